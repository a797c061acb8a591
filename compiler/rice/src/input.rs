//! Integer files (`qrtl rice encode`): decimal integers, one per line.

use qrtl_core::diag::{Diagnostic, Span};

use crate::refmodel::RiceConfig;

fn int_diag(
    file: &str,
    line: usize,
    text: &str,
    span: Span,
    code: &'static str,
    message: String,
) -> Diagnostic {
    Diagnostic {
        code,
        message,
        help: None,
        file: file.to_string(),
        line,
        source_line: text.to_string(),
        span,
    }
}

/// Parse an integer file: decimal integers, one per line, surrounding
/// spaces and tabs allowed; blank lines and lines starting with `#` are
/// skipped. Every bad line is a diagnostic (E0501 not an integer, E0502
/// above 2^64-1, E0503 above the output width, E0504 quotient above the
/// encoder's limit).
pub fn parse_ints(file: &str, text: &str, cfg: &RiceConfig) -> (Vec<u64>, Vec<Diagnostic>) {
    let mut values = Vec::new();
    let mut diags = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let start = line.len() - line.trim_start_matches([' ', '\t']).len();
        let body = line[start..].trim_end_matches([' ', '\t']);
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let end = start + body.len();
        if let Some(bad) = body.find(|c: char| !c.is_ascii_digit()) {
            let at = start + bad;
            let width = body[bad..].chars().next().map_or(1, char::len_utf8);
            diags.push(int_diag(
                file,
                i + 1,
                line,
                Span::new(at, at + width),
                "E0501",
                format!(
                    "expected a decimal integer, found {:?}",
                    &body[bad..bad + width]
                ),
            ));
            continue;
        }
        let span = Span::new(start, end);
        let Ok(v) = body.parse::<u64>() else {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0502",
                "integer above 2^64-1".into(),
            ));
            continue;
        };
        if v > cfg.max_value() {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0503",
                format!(
                    "{v} does not fit the {}-bit output width (--width)",
                    cfg.width
                ),
            ));
            continue;
        }
        let q = v >> cfg.k;
        if q > crate::refmodel::MAX_ENCODE_QUOTIENT {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0504",
                format!(
                    "quotient {q} is above the encoder's limit {} (use a larger --k)",
                    crate::refmodel::MAX_ENCODE_QUOTIENT
                ),
            ));
            continue;
        }
        values.push(v);
    }
    (values, diags)
}
