//! `qrtl track ...`: clap subcommands and their handlers. Exit codes as the
//! rest of the CLI: 0 success, 1 bad input, 2 usage.

use crate::diag::{plain_error, Diagnostic};
use crate::frontend::flextrack::{parse_pattern_file, SourcePattern};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum TrackCommand {
    /// Parse a pattern file and report every error (exit 1 if any).
    Check {
        /// Pattern file: one pattern per line, `#` comments and blank lines skipped.
        patterns: PathBuf,
    },
}

/// Run one `qrtl track` subcommand; returns the exit code.
pub fn run(cmd: TrackCommand) -> i32 {
    match cmd {
        TrackCommand::Check { patterns } => check(&patterns),
    }
}

pub(crate) fn print_diagnostics(diags: &[Diagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render());
    }
}

/// Read a text file; a diagnostic line on failure.
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String, i32> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => Ok(t),
            Err(e) => {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
                let col =
                    upto.len() - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
                eprintln!("{name}:{line}:{col}: error: {what} is not valid UTF-8");
                Err(1)
            }
        },
        Err(e) => {
            eprintln!("{}", plain_error(&name, format!("cannot read {what}: {e}")));
            Err(1)
        }
    }
}

/// Parse a pattern file; every diagnostic and exit 1 on any error.
pub(crate) fn load_patterns(path: &Path) -> Result<Vec<SourcePattern>, i32> {
    let name = path.display().to_string();
    let text = read_text(path, "pattern file")?;
    let (patterns, diags) = parse_pattern_file(&name, &text);
    if !diags.is_empty() {
        print_diagnostics(&diags);
        eprintln!(
            "{name}: {} error{} in {} patterns",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" },
            patterns.len() + diags.len()
        );
        return Err(1);
    }
    if patterns.is_empty() {
        eprintln!(
            "{}",
            plain_error(&name, "no patterns (every line is blank or a # comment)")
        );
        return Err(1);
    }
    Ok(patterns)
}

fn check(patterns: &Path) -> i32 {
    match load_patterns(patterns) {
        Ok(p) => {
            let _ = writeln!(
                std::io::stdout().lock(),
                "{}: {} patterns ok",
                patterns.display(),
                p.len()
            );
            0
        }
        Err(code) => code,
    }
}
