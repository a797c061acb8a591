//! Session files of `qrtl xpath sim --programmable --session FILE`: query
//! sets and documents in order, run through one simulation of one
//! programmable design, so that configurations are swapped while it runs.
//!
//! A line is a step, `config QUERIES [--mode M] [--ordered] [--id N]
//! [--ns PREFIX=URI]...` or `doc FILE...`; a word starting with `#` starts
//! a comment; blank lines are skipped; paths are relative to the session
//! file. Every step is checked before anything is built (syntax, files,
//! each query set configured onto the design, ids), every error reported
//! at its `FILE:LINE:COL` (E09xx), and nothing runs unless all are good.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::error::{ContextKind, ContextValue};
use clap::Parser;
use qrtl_core::diag::{read_text, Diagnostic, Span, TextError};
use qrtl_core::engine::Failure;
use qrtl_xpath::engine::load_queries;
use qrtl_xpath::ir::generic::{Config, Shape};
use qrtl_xpath::lower::generic::{configure, ConfigureError};
use qrtl_xpath::lower::names::NsOptions;

use crate::programmable::RunStep;
use crate::xpath::ModeArg;

/// What a step looks like, for the help lines.
const STEP_SYNTAX: &str =
    "a step is `config QUERIES [--mode M] [--ordered] [--id N] [--ns PREFIX=URI]` or `doc FILE...`";

/// A `config` step's words after `config`, read by clap as `configure`
/// reads its command line.
#[derive(Parser, Debug)]
#[command(name = "config", no_binary_name = true, disable_help_flag = true)]
struct ConfigArgs {
    /// Query file, relative to the session file.
    queries: PathBuf,
    /// How twigs are matched: holistic (exact), paths or pairs.
    #[arg(long, value_enum, default_value_t = ModeArg::Holistic)]
    mode: ModeArg,
    /// Sibling branches of a twig must match in document order.
    #[arg(long)]
    ordered: bool,
    /// The configuration's id (0 is the empty configuration's).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    id: Option<u16>,
    /// Bind a query prefix to a namespace URI (repeatable).
    #[arg(long = "ns", value_name = "PREFIX=URI")]
    ns: Vec<String>,
}

/// Why a session file is refused.
#[derive(Debug)]
pub enum SessionError {
    /// E0901: the file is not UTF-8 text.
    NotUtf8,
    /// E0902: a line's first word is no step.
    UnknownStep(String),
    /// E0903: a step's operands or options are wrong (clap's words).
    BadStep { step: &'static str, why: String },
    /// E0904: a query file or document cannot be read.
    MissingFile { path: String, why: String },
    /// E0905: a query file has errors (reported before this one).
    QueryErrors { path: String },
    /// E0906: a query set does not fit the design.
    DoesNotFit { path: String, why: ConfigureError },
    /// E0907: two configurations with one id.
    RepeatedId { id: u16, first_line: usize },
    /// E0908: an empty document (an AXI4-Stream packet has a byte or more).
    EmptyDocument { path: String },
    /// E0909: no `doc` step.
    NoDocuments,
}

impl SessionError {
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::NotUtf8 => "E0901",
            SessionError::UnknownStep(_) => "E0902",
            SessionError::BadStep { .. } => "E0903",
            SessionError::MissingFile { .. } => "E0904",
            SessionError::QueryErrors { .. } => "E0905",
            SessionError::DoesNotFit { .. } => "E0906",
            SessionError::RepeatedId { .. } => "E0907",
            SessionError::EmptyDocument { .. } => "E0908",
            SessionError::NoDocuments => "E0909",
        }
    }

    pub fn message(&self) -> String {
        match self {
            SessionError::NotUtf8 => "the session file is not valid UTF-8".into(),
            SessionError::UnknownStep(w) => format!("unknown step `{w}`"),
            SessionError::BadStep { step, why } => format!("bad `{step}` step: {why}"),
            SessionError::MissingFile { path, why } => format!("cannot read {path}: {why}"),
            SessionError::QueryErrors { path } => {
                format!("query file {path} has errors (above)")
            }
            SessionError::DoesNotFit { path, why } => {
                format!("{path} does not fit the design: {why}")
            }
            SessionError::RepeatedId { id, first_line } => {
                format!("configuration id {id} is already the one of line {first_line}")
            }
            SessionError::EmptyDocument { path } => format!("{path} is empty"),
            SessionError::NoDocuments => "the session has no `doc` step".into(),
        }
    }

    pub fn help(&self) -> Option<String> {
        Some(match self {
            SessionError::NotUtf8 => return None,
            SessionError::UnknownStep(_) | SessionError::BadStep { .. } => STEP_SYNTAX.into(),
            SessionError::MissingFile { .. } => "paths are relative to the session file".into(),
            SessionError::QueryErrors { .. } => return None,
            SessionError::DoesNotFit { .. } => {
                "a larger design (the sizing options of `compile --programmable`) or a smaller set"
                    .into()
            }
            SessionError::RepeatedId { .. } => "ids are 1..65535 (0 is the empty \
                 configuration's); a `config` step without --id takes its place among the \
                 `config` steps: 1, 2, 3..."
                .into(),
            SessionError::EmptyDocument { .. } => {
                "an AXI4-Stream packet carries at least one byte".into()
            }
            SessionError::NoDocuments => "add a `doc FILE...` step".into(),
        })
    }
}

/// A word of a line and its byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Word<'a> {
    text: &'a str,
    at: usize,
}

impl Word<'_> {
    fn span(&self) -> Span {
        Span::new(self.at, self.at + self.text.len())
    }
}

/// The words of a line up to a comment (a word starting with `#`).
fn words(line: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if line[s..].starts_with('#') {
                    break;
                }
                out.push(Word {
                    text: &line[s..i],
                    at: s,
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The span of option `--name` (with its value) among `words`.
fn option_span(words: &[Word], name: &str) -> Option<Span> {
    let long = format!("--{name}");
    let i = words
        .iter()
        .position(|w| w.text == long || w.text.starts_with(&format!("{long}=")))?;
    let last = match words[i].text == long {
        true => words.get(i + 1).unwrap_or(&words[i]),
        false => &words[i],
    };
    Some(Span::new(words[i].at, last.at + last.text.len()))
}

/// Where clap's error points among a step's words: the bad value, else
/// the bad option, else the end of the line.
fn clap_span(e: &clap::Error, words: &[Word], line_len: usize) -> Span {
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let find = |needle: &str| words.iter().skip(1).find(|w| w.text == needle);
    if let Some(w) = text(ContextKind::InvalidValue).as_deref().and_then(find) {
        return w.span();
    }
    if let Some(arg) = text(ContextKind::InvalidArg) {
        let name = arg.split([' ', '=']).next().unwrap_or("");
        if let Some(w) = words.iter().skip(1).find(|w| {
            w.text == name || (name.starts_with("--") && w.text.starts_with(&format!("{name}=")))
        }) {
            return w.span();
        }
    }
    Span::point(line_len)
}

/// Clap's message up to its usage lines, on one line, without `error: `.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = String::new();
    for l in lines {
        let sep = match out.is_empty() || out.ends_with(':') {
            true => " ",
            false => "; ",
        };
        out.push_str(sep);
        out.push_str(l);
    }
    let out = out.trim_start();
    out.strip_prefix("error: ").unwrap_or(out).to_string()
}

/// Read a session file and prepare its steps for `shape`: documents read,
/// each query set configured (ids 1, 2, 3... in order unless `--id`);
/// every error of the file, or the steps.
pub fn read_session(path: &Path, shape: &Shape) -> Result<Vec<RunStep>, Failure> {
    let file = path.display().to_string();
    let text = read_text(path).map_err(|e| match e {
        TextError::Io(e) => Failure::input(qrtl_core::diag::plain_error(
            &file,
            format!("cannot read session file: {e}"),
        )),
        TextError::Utf8 { line, col } => Failure::input(format!(
            "{file}:{line}:{col}: error[{}]: {}",
            SessionError::NotUtf8.code(),
            SessionError::NotUtf8.message()
        )),
    })?;
    let mut reader = Reader {
        file,
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        shape,
        errors: String::new(),
        error_count: 0,
        ids: HashMap::new(),
        config_steps: 0,
        doc_steps: 0,
        steps: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        reader.line(i + 1, line);
    }
    reader.finish()
}

/// A session file being read: where it is, the design, what it found.
struct Reader<'a> {
    file: String,
    dir: PathBuf,
    shape: &'a Shape,
    /// Rendered errors in file order (a query file's own diagnostics come
    /// before the session's error that names it).
    errors: String,
    error_count: usize,
    /// Each configuration id and the line that took it.
    ids: HashMap<u16, usize>,
    config_steps: usize,
    doc_steps: usize,
    steps: Vec<RunStep>,
}

impl Reader<'_> {
    fn error(&mut self, line: usize, source: &str, span: Span, e: SessionError) {
        let d = Diagnostic {
            code: e.code(),
            message: e.message(),
            help: e.help(),
            file: self.file.clone(),
            line,
            source_line: source.to_string(),
            span,
        };
        self.errors.push_str(&d.render());
        self.error_count += 1;
    }

    fn line(&mut self, n: usize, line: &str) {
        let words = words(line);
        match words.first().map(|w| w.text) {
            None => {}
            Some("config") => self.config(n, line, &words),
            Some("doc") => self.doc(n, line, &words),
            Some(other) => {
                let e = SessionError::UnknownStep(other.to_string());
                self.error(n, line, words[0].span(), e)
            }
        }
    }

    /// `config QUERIES [options]`: the query set configured onto the design.
    fn config(&mut self, n: usize, line: &str, words: &[Word]) {
        self.config_steps += 1;
        let args = match ConfigArgs::try_parse_from(words[1..].iter().map(|w| w.text)) {
            Ok(a) => a,
            Err(e) => {
                let why = clap_message(&e);
                let span = clap_span(&e, words, line.len());
                return self.error(
                    n,
                    line,
                    span,
                    SessionError::BadStep {
                        step: "config",
                        why,
                    },
                );
            }
        };
        let id = self.config_id(n, line, words, args.id);
        let ns = match NsOptions::new(self.shape.namespaces, &args.ns) {
            Ok(ns) => ns,
            Err(e) => {
                let span = option_span(words, "ns").unwrap_or(words[0].span());
                let why = format!("--ns {e}");
                return self.error(
                    n,
                    line,
                    span,
                    SessionError::BadStep {
                        step: "config",
                        why,
                    },
                );
            }
        };
        let at = (words.iter().skip(1))
            .find(|w| Path::new(w.text) == args.queries)
            .map_or(words[0].span(), Word::span);
        let place = (n, line, at);
        if let (Some(config), Some(id)) = (self.configure(place, &args, &ns), id) {
            let queries = self.dir.join(&args.queries).display().to_string();
            let config = Box::new(config);
            self.steps.push(RunStep::Config {
                id,
                queries,
                config,
            });
        }
    }

    /// A `config` step's query set read and configured onto the design, or
    /// None after reporting why not at `place` (line, its text, the span of
    /// the query file's name).
    fn configure(
        &mut self,
        (n, line, at): (usize, &str, Span),
        args: &ConfigArgs,
        ns: &NsOptions,
    ) -> Option<Config> {
        let path = self.dir.join(&args.queries);
        let name = path.display().to_string();
        if let Err(why) = readable(&path) {
            self.error(n, line, at, SessionError::MissingFile { path: name, why });
            return None;
        }
        let source = match load_queries(&path, args.mode.into(), args.ordered, ns) {
            Ok(s) => s,
            Err(f) => {
                self.errors.push_str(&f.text);
                self.error(n, line, at, SessionError::QueryErrors { path: name });
                return None;
            }
        };
        configure(&source.design, self.shape)
            .map_err(|why| self.error(n, line, at, SessionError::DoesNotFit { path: name, why }))
            .ok()
    }

    /// The step's id (`--id`, else its place among the `config` steps), or
    /// None after reporting it taken.
    fn config_id(&mut self, n: usize, line: &str, words: &[Word], id: Option<u16>) -> Option<u16> {
        let (id, span) = match id {
            Some(id) => (id, option_span(words, "id").unwrap_or(words[0].span())),
            None => match u16::try_from(self.config_steps) {
                Ok(id) => (id, words[0].span()),
                Err(_) => {
                    let why = "more than 65535 `config` steps".to_string();
                    let e = SessionError::BadStep {
                        step: "config",
                        why,
                    };
                    self.error(n, line, words[0].span(), e);
                    return None;
                }
            },
        };
        match self.ids.get(&id) {
            Some(&first_line) => {
                self.error(n, line, span, SessionError::RepeatedId { id, first_line });
                None
            }
            None => {
                self.ids.insert(id, n);
                Some(id)
            }
        }
    }

    /// `doc FILE...`: the documents, each one packet.
    fn doc(&mut self, n: usize, line: &str, words: &[Word]) {
        self.doc_steps += 1;
        if words.len() == 1 {
            let why = "no document; write `doc FILE...`".to_string();
            let e = SessionError::BadStep { step: "doc", why };
            return self.error(n, line, Span::point(line.len()), e);
        }
        for w in &words[1..] {
            let path = self.dir.join(w.text);
            let name = path.display().to_string();
            match std::fs::read(&path) {
                Ok(bytes) if bytes.is_empty() => self.error(
                    n,
                    line,
                    w.span(),
                    SessionError::EmptyDocument { path: name },
                ),
                Ok(bytes) => self.steps.push(RunStep::Doc { name, bytes }),
                Err(e) => {
                    let why = e.to_string();
                    self.error(
                        n,
                        line,
                        w.span(),
                        SessionError::MissingFile { path: name, why },
                    )
                }
            }
        }
    }

    /// The steps, or every error and a count.
    fn finish(mut self) -> Result<Vec<RunStep>, Failure> {
        if self.doc_steps == 0 {
            self.error(0, "", Span::default(), SessionError::NoDocuments);
        }
        if self.error_count == 0 {
            return Ok(self.steps);
        }
        let steps = self.config_steps + self.doc_steps;
        let plural = if self.error_count == 1 { "" } else { "s" };
        Err(Failure::input(format!(
            "{}{}: {} error{plural} in {steps} steps",
            self.errors, self.file, self.error_count
        )))
    }
}

/// A query file that can be opened, or why not.
fn readable(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err("a directory, not a file".into()),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<(&str, usize)> {
        words(line).iter().map(|w| (w.text, w.at)).collect()
    }

    #[test]
    fn words_have_offsets_and_stop_at_a_comment() {
        assert_eq!(
            texts("  config q.txt\t--ordered # the id is 1"),
            [("config", 2), ("q.txt", 9), ("--ordered", 15)]
        );
        assert_eq!(texts("# only a comment"), []);
        assert_eq!(texts("doc a#b.xml"), [("doc", 0), ("a#b.xml", 4)]);
    }

    #[test]
    fn an_option_span_covers_its_value() {
        let w = words("config q.txt --id 7 --ns=a=u");
        assert_eq!(option_span(&w, "id"), Some(Span::new(13, 19)));
        assert_eq!(option_span(&w, "ns"), Some(Span::new(20, 28)));
        assert_eq!(option_span(&w, "mode"), None);
    }

    #[test]
    fn a_clap_error_points_at_the_bad_value() {
        let line = "config q.txt --mode holistc";
        let w = words(line);
        let e = ConfigArgs::try_parse_from(w[1..].iter().map(|w| w.text)).unwrap_err();
        assert_eq!(clap_span(&e, &w, line.len()), Span::new(20, 27));
        let m = clap_message(&e);
        assert!(
            m.starts_with("invalid value 'holistc' for '--mode <MODE>'; [possible values:"),
            "{m}"
        );
    }
}
