//! Diagnostics: one error type with a stable code, a primary span, a message
//! and an optional help line, rendered as
//!
//! ```text
//! FILE:LINE:COL: error[E0102]: message
//!   |
//! 7 | /a/b[@c=]
//!   |         ^
//!   = help: ...
//! ```
//!
//! Every front end (XPath, FlexTrack, trajectories, CLI inputs) reports
//! through this type so errors look the same everywhere.

use std::fmt;

/// A byte range inside one line of a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// An empty span at `at` (for "expected something here").
    pub fn point(at: usize) -> Span {
        Span { start: at, end: at }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0101`; see each front end's error enum.
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub file: String,
    /// 1-based line number; 0 when the diagnostic is about the whole file.
    pub line: usize,
    /// The full text of the line the span points into (without newline).
    pub source_line: String,
    /// Byte span inside `source_line`.
    pub span: Span,
}

impl Diagnostic {
    /// 1-based column in characters of the span start.
    pub fn col(&self) -> usize {
        let start = self.span.start.min(self.source_line.len());
        self.source_line
            .get(..start)
            .map(|s| s.chars().count())
            .unwrap_or(start)
            + 1
    }

    /// Render with file:line:col, the source line and a caret line (just
    /// the file when the diagnostic is about the whole file), then the help.
    pub fn render(&self) -> String {
        let (mut out, pad) = if self.line == 0 {
            let head = format!("{}: error[{}]: {}\n", self.file, self.code, self.message);
            (head, " ".to_string())
        } else {
            self.render_at_line()
        };
        if let Some(help) = &self.help {
            out.push_str(&format!("{pad} = help: {help}\n"));
        }
        out
    }

    /// The file:line:col head, the source line and its caret line; and the
    /// gutter's padding.
    fn render_at_line(&self) -> (String, String) {
        let mut out = String::new();
        let col = self.col();
        out.push_str(&format!(
            "{}:{}:{}: error[{}]: {}\n",
            self.file, self.line, col, self.code, self.message
        ));
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        out.push_str(&format!("{pad} |\n"));
        out.push_str(&format!(
            "{gutter} | {}\n",
            self.source_line.replace('\t', " ")
        ));
        let width = {
            let end = self.span.end.clamp(self.span.start, self.source_line.len());
            let start = self.span.start.min(end);
            self.source_line
                .get(start..end)
                .map(|s| s.chars().count())
                .unwrap_or(1)
                .max(1)
        };
        out.push_str(&format!(
            "{pad} | {}{}\n",
            " ".repeat(col - 1),
            "^".repeat(width)
        ));
        (out, pad)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Why a source file could not be read as text.
#[derive(Debug)]
pub enum TextError {
    Io(std::io::Error),
    /// Not UTF-8 from this 1-based line and column (bytes) on.
    Utf8 {
        line: usize,
        col: usize,
    },
}

/// Read a source file (queries, patterns, integers, trajectories) as UTF-8
/// text; where it is not, the position of its first bad byte.
pub fn read_text(path: &std::path::Path) -> Result<String, TextError> {
    let bytes = std::fs::read(path).map_err(TextError::Io)?;
    String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = upto.len() - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        TextError::Utf8 { line, col }
    })
}

/// A diagnostic without a source line (I/O errors, bad CLI values).
pub fn plain_error(file: &str, message: impl fmt::Display) -> String {
    format!("{file}: error: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_of_a_whole_file_has_no_line() {
        let d = Diagnostic {
            code: "E0002",
            message: "too big".into(),
            help: Some("split it".into()),
            file: "q.txt".into(),
            line: 0,
            source_line: String::new(),
            span: Span::point(0),
        };
        assert_eq!(
            d.render(),
            "q.txt: error[E0002]: too big\n  = help: split it\n"
        );
    }

    #[test]
    fn render_points_caret_at_span() {
        let d = Diagnostic {
            code: "E0001",
            message: "expected a value".into(),
            help: Some("write @c=\"v\"".into()),
            file: "q.txt".into(),
            line: 3,
            source_line: "/a/b[@c=]".into(),
            span: Span::new(8, 9),
        };
        let r = d.render();
        assert!(
            r.starts_with("q.txt:3:9: error[E0001]: expected a value\n"),
            "{r}"
        );
        assert!(r.contains("3 | /a/b[@c=]\n  |         ^\n"), "{r}");
        assert!(r.contains("= help: write"), "{r}");
    }

    #[test]
    fn column_counts_characters_not_bytes() {
        let d = Diagnostic {
            code: "E0001",
            message: "m".into(),
            help: None,
            file: "f".into(),
            line: 1,
            source_line: "/é/x".into(),
            span: Span::new(4, 5),
        };
        assert_eq!(d.col(), 4);
    }
}
