//! A [`Sink`] that writes the tokenizer's events as text, one per line: the
//! format of the file-driven tests in `tests/xml/*.expected` and a debugging
//! aid.
//!
//! ```text
//! start nitf @1          start_name (name, depth)
//! attr id="5"            attr_start + attr_value chunks (merged) + attr_end
//! open
//! text "\n"              one text node, chunks merged
//! close
//! status ok              or: status malformed MismatchedClose at 3:7 offset 25
//! ```
//!
//! An event sequence cut by an error shows its unfinished part as
//! `attr-cut NAME="..."` or `text-cut "..."`. Names and values are quoted
//! with `\n \r \t \" \\` and `\xHH` for bytes that are not UTF-8.

use std::fmt::Write;

use super::{Sink, Tokenizer, XmlConfig, XmlErrorAt};

/// Records events as text. By default it asks for every attribute and
/// text node; `want_attrs` / `want_text` turn that off.
pub struct TraceSink {
    pub out: String,
    pub want_attrs: bool,
    pub want_text: bool,
    attr: Option<(Vec<u8>, Option<Vec<u8>>)>,
    text: Option<Vec<u8>>,
}

impl Default for TraceSink {
    fn default() -> Self {
        TraceSink::new()
    }
}

impl TraceSink {
    pub fn new() -> TraceSink {
        TraceSink {
            out: String::new(),
            want_attrs: true,
            want_text: true,
            attr: None,
            text: None,
        }
    }

    /// Flush any cut event and append the status line.
    pub fn finish(&mut self, result: Result<(), XmlErrorAt>) {
        if let Some((name, value)) = self.attr.take() {
            self.attr_line("attr-cut", &name, value.as_deref());
        }
        if let Some(text) = self.text.take() {
            let _ = writeln!(self.out, "text-cut {}", quote(&text));
        }
        match result {
            Ok(()) => self.out.push_str("status ok\n"),
            Err(e) => {
                let _ = writeln!(
                    self.out,
                    "status {} {:?} at {}:{} offset {}",
                    e.error.status().as_str(),
                    e.error,
                    e.line,
                    e.col,
                    e.offset
                );
            }
        }
    }

    fn attr_line(&mut self, tag: &str, name: &[u8], value: Option<&[u8]>) {
        let _ = write!(self.out, "{tag} {}", escape(name));
        if let Some(v) = value {
            let _ = write!(self.out, "={}", quote(v));
        }
        self.out.push('\n');
    }
}

impl Sink for TraceSink {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        let _ = writeln!(self.out, "start {} @{depth}", escape(name));
        self.want_attrs
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.attr = Some((name.to_vec(), Some(Vec::new())));
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        if let Some((_, Some(v))) = &mut self.attr {
            v.extend_from_slice(chunk);
        }
    }
    fn attr_end(&mut self) {
        if let Some((name, value)) = self.attr.take() {
            self.attr_line("attr", &name, value.as_deref());
        }
    }
    fn open(&mut self) {
        self.out.push_str("open\n");
    }
    fn close(&mut self) {
        self.out.push_str("close\n");
    }
    fn wants_text(&mut self) -> bool {
        if self.want_text {
            self.text = Some(Vec::new());
        }
        self.want_text
    }
    fn text(&mut self, chunk: &[u8]) {
        if let Some(t) = &mut self.text {
            t.extend_from_slice(chunk);
        }
    }
    fn text_end(&mut self) {
        if let Some(t) = self.text.take() {
            let _ = writeln!(self.out, "text {}", quote(&t));
        }
    }
}

/// Bytes as readable text (see the module docs).
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                '"' => s.push_str("\\\""),
                '\\' => s.push_str("\\\\"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        let _ = write!(s, "\\x{b:02X}");
                    }
                }
                c => s.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(s, "\\x{b:02X}");
        }
    }
    s
}

fn quote(bytes: &[u8]) -> String {
    format!("\"{}\"", escape(bytes))
}

/// Tokenize `doc` fed in chunks of `chunk` bytes (all at once for 0) and
/// return its trace, status line included.
pub fn trace_document(config: XmlConfig, doc: &[u8], chunk: usize) -> String {
    let mut sink = TraceSink::new();
    trace_with(config, doc, chunk, &mut sink);
    sink.out
}

/// Like [`trace_document`] with a caller-configured sink.
pub fn trace_with(config: XmlConfig, doc: &[u8], chunk: usize, sink: &mut TraceSink) {
    let mut t = Tokenizer::new(config);
    if chunk == 0 {
        t.feed(doc, sink);
    } else {
        for c in doc.chunks(chunk) {
            t.feed(c, sink);
        }
    }
    let r = t.finish(sink);
    sink.finish(r);
}
