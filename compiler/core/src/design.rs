//! Design files (`qrtl build DESIGN.yaml -o DIR`, SPEC §2): one YAML file
//! names an engine, its inputs (paths relative to the YAML file) and its
//! options with the command line's names and defaults. A file holds one
//! design (its keys at the top level; the project goes to DIR) or several
//! (`designs:`, a list of mappings, each with a `name`; each project goes
//! to DIR/NAME).
//!
//! This module reads the file and hands each design to its engine as
//! [`Fields`]: typed getters that record which keys were read, so that the
//! engine's option names are the only list of keys, and every error points
//! into the YAML (`FILE:LINE:COL`, the line, a caret): unknown keys (with
//! a "did you mean"), wrong types, bad values, missing keys, missing input
//! files. The engines are named by the caller (the CLI's registry); this
//! crate knows none of them.

use std::path::{Path, PathBuf};

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoaderOptions, Node};

use crate::diag::{Diagnostic, Span};

/// Error codes of design files.
pub mod codes {
    /// The file is not YAML of the expected shape.
    pub const SYNTAX: &str = "E0801";
    /// A key no engine option has.
    pub const UNKNOWN_KEY: &str = "E0802";
    /// A value of the wrong type (a list for a number, ...).
    pub const TYPE: &str = "E0803";
    /// A value out of range or not one of the choices.
    pub const VALUE: &str = "E0804";
    /// A required key is missing.
    pub const MISSING: &str = "E0805";
    /// An input file does not exist.
    pub const NO_FILE: &str = "E0806";
    /// Design names: missing, not a folder name, or repeated.
    pub const NAME: &str = "E0807";
}

/// A design file's text, for diagnostics.
#[derive(Clone, Debug)]
pub struct DesignSource {
    /// The file name as given (in diagnostics).
    pub file: String,
    /// Inputs are relative to this folder.
    pub base: PathBuf,
    lines: Vec<String>,
}

impl DesignSource {
    pub fn new(path: &Path, text: &str) -> Self {
        DesignSource {
            file: path.display().to_string(),
            base: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            lines: text.lines().map(str::to_string).collect(),
        }
    }

    /// A diagnostic at 1-based `line` and `column` (characters), underlining
    /// `width` characters.
    pub fn diag_at(
        &self,
        code: &'static str,
        line: usize,
        column: usize,
        width: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        let source_line = self
            .lines
            .get(line.wrapping_sub(1))
            .cloned()
            .unwrap_or_default();
        let start: usize = source_line
            .chars()
            .take(column.saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        let end: usize = start
            + source_line[start..]
                .chars()
                .take(width)
                .map(char::len_utf8)
                .sum::<usize>();
        Diagnostic {
            code,
            message: message.into(),
            help: None,
            file: self.file.clone(),
            line: line.max(1),
            source_line,
            span: Span::new(start, end),
        }
    }

    /// A diagnostic at a node (its first character; a scalar underlined).
    pub fn diag(&self, code: &'static str, node: &Node, message: impl Into<String>) -> Diagnostic {
        let (line, column) = start_of(node);
        let width = node
            .as_scalar()
            .map_or(1, |s| s.as_str().chars().count().max(1));
        self.diag_at(code, line, column, width, message)
    }

    fn diag_key(&self, code: &'static str, key: &MarkedScalarNode, msg: String) -> Diagnostic {
        let (line, column) = key
            .span()
            .start()
            .map_or((1, 1), |m| (m.line(), m.column()));
        self.diag_at(code, line, column, key.as_str().chars().count(), msg)
    }
}

fn start_of(node: &Node) -> (usize, usize) {
    node.span()
        .start()
        .map_or((1, 1), |m| (m.line(), m.column()))
}

/// One design of a design file.
#[derive(Debug)]
pub struct Design<'a> {
    /// `name:`; `None` for the single design of a file without `designs:`.
    pub name: Option<String>,
    /// `engine:` (checked against the caller's list).
    pub engine: String,
    pub fields: Fields<'a>,
}

/// Parse a design file: its designs, each with its engine among `engines`,
/// or every diagnostic.
pub fn parse<'a>(
    source: &'a DesignSource,
    root: &'a Node,
    engines: &[&str],
) -> Result<Vec<Design<'a>>, Vec<Diagnostic>> {
    let map = root.as_mapping().expect("the loader only returns mappings");
    let mut diags = Vec::new();
    let mut designs = Vec::new();
    match map.get_node("designs") {
        None => {
            if let Some(d) = design(source, map, root, engines, false, &mut diags) {
                designs.push(d);
            }
            if !diags.is_empty() {
                return Err(diags);
            }
            return Ok(designs);
        }
        Some(list) => {
            for key in map.keys().filter(|k| k.as_str() != "designs") {
                diags.push(source.diag_key(
                    codes::UNKNOWN_KEY,
                    key,
                    format!(
                        "key `{}` beside `designs:`: each design's keys go in its own entry",
                        key.as_str()
                    ),
                ));
            }
            let Some(items) = list.as_sequence() else {
                diags.push(source.diag(codes::TYPE, list, "`designs` must be a list of designs"));
                return Err(diags);
            };
            if items.is_empty() {
                diags.push(source.diag(codes::VALUE, list, "`designs` lists no design"));
            }
            for item in items.iter() {
                match item.as_mapping() {
                    Some(m) => {
                        if let Some(d) = design(source, m, item, engines, true, &mut diags) {
                            designs.push(d);
                        }
                    }
                    None => diags.push(source.diag(
                        codes::TYPE,
                        item,
                        "a design must be a mapping (engine: ..., name: ..., ...)",
                    )),
                }
            }
        }
    }
    check_names(source, &designs, root, &mut diags);
    if diags.is_empty() {
        Ok(designs)
    } else {
        Err(diags)
    }
}

/// Read a design file from disk and parse it into a tree; syntax errors as
/// diagnostics.
pub fn load(path: &Path) -> Result<(DesignSource, Node), Vec<Diagnostic>> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![Diagnostic {
            code: codes::SYNTAX,
            message: format!("cannot read the design file: {e}"),
            help: None,
            file: name.clone(),
            line: 1,
            source_line: String::new(),
            span: Span::point(0),
        }]
    })?;
    let source = DesignSource::new(path, &text);
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true);
    match marked_yaml::parse_yaml_with_options(0, &text, options) {
        Ok(node) => Ok((source, node)),
        Err(e) => Err(vec![load_error(&source, &e)]),
    }
}

fn load_error(source: &DesignSource, e: &marked_yaml::LoadError) -> Diagnostic {
    use marked_yaml::LoadError::*;
    let (marker, message) = match e {
        TopLevelMustBeMapping(m) => (
            Some(*m),
            "a design file is a mapping (engine: ..., or designs: [...])".to_string(),
        ),
        TopLevelMustBeSequence(m) => (Some(*m), "expected a list".to_string()),
        UnexpectedAnchor(m) => (
            Some(*m),
            "anchors and aliases are not supported".to_string(),
        ),
        MappingKeyMustBeScalar(m) => (Some(*m), "keys must be plain names".to_string()),
        UnexpectedTag(m) => (Some(*m), "YAML tags are not supported".to_string()),
        ScanError(m, err) => (Some(*m), format!("YAML syntax: {err}")),
        DuplicateKey(inner) => (
            inner.key.span().start().copied(),
            format!("key `{}` appears twice", inner.key.as_str()),
        ),
    };
    let (line, column) = marker.map_or((1, 1), |m| (m.line(), m.column().max(1)));
    source.diag_at(codes::SYNTAX, line, column, 1, message)
}

fn design<'a>(
    source: &'a DesignSource,
    map: &'a MarkedMappingNode,
    node: &'a Node,
    engines: &[&str],
    named: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Design<'a>> {
    let mut fields = Fields::new(source, map, node);
    let name = if named {
        fields.string("name")
    } else {
        fields.opt_string("name")
    };
    let engine = fields.string("engine")?;
    if !engines.contains(&engine.as_str()) {
        let node = map.get_node("engine").expect("read above");
        let mut d = source.diag(
            codes::VALUE,
            node,
            format!(
                "unknown engine `{engine}` (engines: {})",
                engines.join(", ")
            ),
        );
        d.help = did_you_mean(&engine, engines.iter().copied());
        diags.push(d);
        return None;
    }
    diags.append(&mut fields.diags);
    Some(Design {
        name,
        engine,
        fields,
    })
}

fn check_names(
    source: &DesignSource,
    designs: &[Design<'_>],
    root: &Node,
    diags: &mut Vec<Diagnostic>,
) {
    let mut seen: Vec<&str> = Vec::new();
    for d in designs {
        let Some(name) = d.name.as_deref() else {
            continue;
        };
        let node = d.fields.map.get_node("name").unwrap_or(root);
        let ok = !name.is_empty()
            && name != "."
            && name != ".."
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !ok {
            diags.push(source.diag(
                codes::NAME,
                node,
                format!(
                    "design name `{name}` is not a folder name (letters, digits, `_`, `-`, `.`)"
                ),
            ));
        } else if seen.contains(&name) {
            diags.push(source.diag(codes::NAME, node, format!("two designs are named `{name}`")));
        }
        seen.push(name);
    }
}

/// One design's keys, read by type. Every getter records its key; a wrong
/// value becomes a diagnostic and the getter returns the default (or
/// `None`), so that all errors of a file are reported at once.
#[derive(Debug)]
pub struct Fields<'a> {
    source: &'a DesignSource,
    map: &'a MarkedMappingNode,
    node: &'a Node,
    read: Vec<&'static str>,
    diags: Vec<Diagnostic>,
}

impl<'a> Fields<'a> {
    fn new(source: &'a DesignSource, map: &'a MarkedMappingNode, node: &'a Node) -> Self {
        Fields {
            source,
            map,
            node,
            read: Vec::new(),
            diags: Vec::new(),
        }
    }

    /// The design file.
    pub fn source(&self) -> &DesignSource {
        self.source
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Node> {
        self.read.push(key);
        self.map.get_node(key)
    }

    fn scalar(&mut self, key: &'static str, what: &str) -> Option<&'a MarkedScalarNode> {
        let node = self.get(key)?;
        match node.as_scalar() {
            Some(s) => Some(s),
            None => {
                self.diags.push(self.source.diag(
                    codes::TYPE,
                    node,
                    format!("`{key}` must be {what}"),
                ));
                None
            }
        }
    }

    /// A missing key: at the mapping's first key (the design's first line).
    fn missing(&mut self, key: &str) {
        let message = format!("missing key `{key}`");
        let d = match self.map.keys().next() {
            Some(first) => self.source.diag_key(codes::MISSING, first, message),
            None => self.source.diag(codes::MISSING, self.node, message),
        };
        self.diags.push(d);
    }

    fn bad_value(&mut self, key: &'static str, message: String) {
        let node = self.map.get_node(key).unwrap_or(self.node);
        let d = self.source.diag(codes::VALUE, node, message);
        self.diags.push(d);
    }

    /// Whether the design sets `key` (for a key that only matters beside
    /// another's value).
    pub fn has(&self, key: &str) -> bool {
        self.map.get_node(key).is_some()
    }

    /// Report `key` missing unless it is there (for a required key read by a
    /// getter with a default).
    pub fn require(&mut self, key: &'static str) {
        if self.map.get_node(key).is_none() {
            self.missing(key);
        }
    }

    /// A required string.
    pub fn string(&mut self, key: &'static str) -> Option<String> {
        let v = self.opt_string(key);
        if v.is_none() && self.map.get_node(key).is_none() {
            self.missing(key);
        }
        v
    }

    /// An optional string.
    pub fn opt_string(&mut self, key: &'static str) -> Option<String> {
        self.scalar(key, "a string").map(|s| s.as_str().to_string())
    }

    /// A required input file, relative to the design file; it must exist.
    pub fn input(&mut self, key: &'static str) -> Option<PathBuf> {
        let v = self.opt_input(key);
        if v.is_none() && self.map.get_node(key).is_none() {
            self.missing(key);
        }
        v
    }

    /// An optional input file, relative to the design file; it must exist.
    pub fn opt_input(&mut self, key: &'static str) -> Option<PathBuf> {
        let s = self.scalar(key, "a file name")?;
        let path = normalize(&self.source.base.join(s.as_str()));
        if path.is_file() {
            return Some(path);
        }
        let node = self.map.get_node(key).expect("read above");
        let d = self.source.diag(
            codes::NO_FILE,
            node,
            format!("`{key}`: no file {}", path.display()),
        );
        self.diags.push(d);
        None
    }

    /// `key`'s scalar parsed as a `T` (described as `what`), or a type error.
    fn parsed<T: std::str::FromStr>(&mut self, key: &'static str, what: &str) -> Option<T> {
        let s = self.scalar(key, what)?;
        let v = s.as_str().parse::<T>().ok();
        if v.is_none() {
            let node = self.map.get_node(key).expect("read above");
            let d = self.source.diag(
                codes::TYPE,
                node,
                format!("`{key}` must be {what}, not `{}`", s.as_str()),
            );
            self.diags.push(d);
        }
        v
    }

    /// An unsigned integer in `min..=max`, or `default` when absent.
    pub fn uint(&mut self, key: &'static str, default: u64, min: u64, max: u64) -> u64 {
        match self.parsed::<u64>(key, "a whole number") {
            Some(v) if (min..=max).contains(&v) => v,
            Some(v) => {
                self.bad_value(key, format!("`{key}` is {v}; it must be in {min}..={max}"));
                default
            }
            None => default,
        }
    }

    /// A number in `(0, max]`, or `default` when absent.
    pub fn positive(&mut self, key: &'static str, default: f64, max: f64) -> f64 {
        match self.parsed::<f64>(key, "a number") {
            Some(v) if v.is_finite() && v > 0.0 && v <= max => v,
            Some(_) => {
                self.bad_value(key, format!("`{key}` must be in (0, {max}]"));
                default
            }
            None => default,
        }
    }

    /// `true` or `false`, or `default` when absent.
    pub fn flag(&mut self, key: &'static str, default: bool) -> bool {
        let Some(s) = self.scalar(key, "true or false") else {
            return default;
        };
        match s.as_str() {
            "true" => true,
            "false" => false,
            other => {
                let node = self.map.get_node(key).expect("read above");
                let d = self.source.diag(
                    codes::TYPE,
                    node,
                    format!("`{key}` must be true or false, not `{other}`"),
                );
                self.diags.push(d);
                default
            }
        }
    }

    /// One of `choices` (the command line's value names), or `default`.
    pub fn choice<T: Copy>(&mut self, key: &'static str, default: T, choices: &[(&str, T)]) -> T {
        let Some(s) = self.scalar(key, "a string") else {
            return default;
        };
        if let Some((_, v)) = choices.iter().find(|(n, _)| *n == s.as_str()) {
            return *v;
        }
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        let node = self.map.get_node(key).expect("read above");
        let mut d = self.source.diag(
            codes::VALUE,
            node,
            format!(
                "`{key}` is `{}`; it must be one of {}",
                s.as_str(),
                names.join(", ")
            ),
        );
        d.help = did_you_mean(s.as_str(), names.iter().copied());
        self.diags.push(d);
        default
    }

    /// A list of strings (or one string), empty when absent.
    pub fn strings(&mut self, key: &'static str) -> Vec<String> {
        let Some(node) = self.get(key) else {
            return Vec::new();
        };
        if let Some(s) = node.as_scalar() {
            return vec![s.as_str().to_string()];
        }
        let mut out = Vec::new();
        match node.as_sequence() {
            Some(items) => {
                for item in items.iter() {
                    match item.as_scalar() {
                        Some(s) => out.push(s.as_str().to_string()),
                        None => self.diags.push(self.source.diag(
                            codes::TYPE,
                            item,
                            format!("`{key}` must list strings"),
                        )),
                    }
                }
            }
            None => self.diags.push(self.source.diag(
                codes::TYPE,
                node,
                format!("`{key}` must be a list of strings"),
            )),
        }
        out
    }

    /// A check of the engine's own (a value the getters cannot judge, such
    /// as a pass name): a diagnostic at `key`'s value.
    pub fn reject(&mut self, key: &'static str, message: impl Into<String>, help: Option<String>) {
        let node = self.map.get_node(key).unwrap_or(self.node);
        let mut d = self.source.diag(codes::VALUE, node, message);
        d.help = help;
        self.diags.push(d);
    }

    /// Every diagnostic so far, plus one per key no getter read (with the
    /// closest known key as help); `Ok` when there are none.
    pub fn finish(mut self) -> Result<(), Vec<Diagnostic>> {
        let known: Vec<&str> = self.read.clone();
        for key in self.map.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let mut d = self.source.diag_key(
                codes::UNKNOWN_KEY,
                key,
                format!("unknown key `{}`", key.as_str()),
            );
            d.help = did_you_mean(key.as_str(), known.iter().copied())
                .or_else(|| Some(format!("keys: {}", known.join(", "))));
            self.diags.push(d);
        }
        self.diags.sort_by_key(|d| (d.line, d.span.start));
        if self.diags.is_empty() {
            Ok(())
        } else {
            Err(self.diags)
        }
    }
}

/// `a/b/../c` as `a/c` (lexically), so that an input reads as the path a
/// user would give the matching `compile` command.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// "did you mean `x`?" for the closest of `names` (edit distance at most a
/// third of the word, at least 1), if any.
pub fn did_you_mean<'n>(word: &str, names: impl Iterator<Item = &'n str>) -> Option<String> {
    let limit = (word.chars().count() / 3).max(1);
    names
        .map(|n| (edit_distance(word, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| format!("did you mean `{n}`?"))
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<(DesignSource, Node), Vec<Diagnostic>> {
        let source = DesignSource::new(Path::new("d.yaml"), text);
        let options = LoaderOptions::default()
            .error_on_duplicate_keys(true)
            .prevent_coercion(true);
        marked_yaml::parse_yaml_with_options(0, text, options)
            .map(|n| (source.clone(), n))
            .map_err(|e| vec![load_error(&source, &e)])
    }

    fn first_error(text: &str, read: impl Fn(&mut Fields<'_>)) -> String {
        let (source, root) = match parsed(text) {
            Ok(p) => p,
            Err(d) => return d[0].render(),
        };
        let designs = match parse(&source, &root, &["xpath", "rice"]) {
            Ok(d) => d,
            Err(d) => return d[0].render(),
        };
        for mut d in designs {
            read(&mut d.fields);
            if let Err(e) = d.fields.finish() {
                return e[0].render();
            }
        }
        String::new()
    }

    fn xpath_keys(f: &mut Fields<'_>) {
        f.uint("cluster_size", 256, 0, 1 << 20);
        f.choice("mode", 0, &[("holistic", 0), ("paths", 1), ("pairs", 2)]);
        f.flag("ordered", false);
    }

    #[test]
    fn unknown_key_points_at_it_with_the_closest_name() {
        let e = first_error("engine: xpath\nclustr_size: 4\n", xpath_keys);
        assert!(
            e.starts_with("d.yaml:2:1: error[E0802]: unknown key `clustr_size`"),
            "{e}"
        );
        assert!(e.contains("help: did you mean `cluster_size`?"), "{e}");
    }

    #[test]
    fn wrong_type_and_bad_choice_point_at_the_value() {
        let e = first_error("engine: xpath\ncluster_size: many\n", xpath_keys);
        assert!(
            e.starts_with(
                "d.yaml:2:15: error[E0803]: `cluster_size` must be a whole number, not `many`"
            ),
            "{e}"
        );
        let e = first_error("engine: xpath\nmode: path\n", xpath_keys);
        assert!(
            e.starts_with("d.yaml:2:7: error[E0804]: `mode` is `path`"),
            "{e}"
        );
        assert!(e.contains("did you mean `paths`?"), "{e}");
        let e = first_error("engine: xpath\nordered: [1]\n", xpath_keys);
        assert!(
            e.starts_with("d.yaml:2:10: error[E0803]: `ordered` must be true or false"),
            "{e}"
        );
    }

    #[test]
    fn engines_names_and_syntax_are_checked() {
        let e = first_error("engine: xpth\n", xpath_keys);
        assert!(
            e.starts_with("d.yaml:1:9: error[E0804]: unknown engine `xpth`"),
            "{e}"
        );
        assert!(e.contains("did you mean `xpath`?"), "{e}");
        let e = first_error("designs:\n  - engine: xpath\n", xpath_keys);
        assert!(e.contains("error[E0805]: missing key `name`"), "{e}");
        let e = first_error(
            "designs:\n  - {engine: xpath, name: a}\n  - {engine: rice, name: a}\n",
            |_| (),
        );
        assert!(
            e.starts_with("d.yaml:3:26: error[E0807]: two designs are named `a`"),
            "{e}"
        );
        let e = first_error("engine: xpath\nengine: rice\n", xpath_keys);
        assert!(
            e.starts_with("d.yaml:2:1: error[E0801]: key `engine` appears twice"),
            "{e}"
        );
        let e = first_error("engine: [xpath\n", xpath_keys);
        assert!(e.contains("error[E0801]: YAML syntax"), "{e}");
    }

    #[test]
    fn missing_input_file_points_at_the_value() {
        let e = first_error("engine: xpath\nqueries: nowhere.txt\n", |f| {
            f.input("queries");
        });
        assert!(
            e.starts_with("d.yaml:2:10: error[E0806]: `queries`: no file nowhere.txt"),
            "{e}"
        );
    }

    #[test]
    fn inputs_read_as_paths_beside_the_design_file() {
        assert_eq!(
            normalize(Path::new("q/designs/../track/p.txt")),
            Path::new("q/track/p.txt")
        );
        assert_eq!(normalize(Path::new("./a/./b")), Path::new("a/b"));
        assert_eq!(normalize(Path::new("../../x")), Path::new("../../x"));
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(did_you_mean("zzz", ["mode"].into_iter()), None);
    }
}
