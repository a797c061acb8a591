//! The byte-serial event protocol (`qrtl_sax`'s outputs, which
//! `qrtl_wide_events` also gives) turned into the tokenizer's trace: shared
//! by `tests/sax_rtl.rs` and `tests/wide_rtl.rs`.
#![allow(dead_code)]

use std::fmt::Write as _;

use qrtl_xpath::xml::trace::escape;
use qrtl_xpath::xml::{Sink, Tokenizer, XmlConfig, XmlError};

pub fn reason_code(e: XmlError) -> u8 {
    e.code()
}

// ---------------------------------------------------------------------------
// Traces
// ---------------------------------------------------------------------------

/// A document's events as lines (the format of `xml::trace`; an error's
/// position is its byte offset only: the module's side comes from its
/// internal `fail` signal, read by the driver), the bytes of a text node cut
/// by the end of the document kept apart.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Trace {
    pub lines: Vec<String>,
    pub attr: Option<(Vec<u8>, Vec<u8>)>,
    pub text: Option<Vec<u8>>,
    pub cut_text: Option<Vec<u8>>,
    pub status: String,
}

impl Trace {
    /// End of document: cut events, then the status (`None`: ok) with the
    /// offset of the byte that revealed the error.
    pub fn finish(&mut self, error: Option<(XmlError, u64)>) {
        if let Some((name, value)) = self.attr.take() {
            self.lines
                .push(format!("attr-cut {}=\"{}\"", escape(&name), escape(&value)));
        }
        self.cut_text = self.text.take();
        self.status = match error {
            None => "status ok".into(),
            Some((e, offset)) => {
                format!("status {} {e:?} offset {offset}", e.status().as_str())
            }
        };
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(l);
            s.push('\n');
        }
        if let Some(t) = &self.cut_text {
            let _ = writeln!(s, "text-cut \"{}\"", escape(t));
        }
        s.push_str(&self.status);
        s.push('\n');
        s
    }
}

impl Sink for Trace {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.lines.push(format!("start {} @{depth}", escape(name)));
        true
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.attr = Some((name.to_vec(), Vec::new()));
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        if let Some((_, v)) = &mut self.attr {
            v.extend_from_slice(chunk);
        }
    }
    fn attr_end(&mut self) {
        if let Some((name, value)) = self.attr.take() {
            self.lines
                .push(format!("attr {}=\"{}\"", escape(&name), escape(&value)));
        }
    }
    fn open(&mut self) {
        self.lines.push("open".into());
    }
    fn close(&mut self) {
        self.lines.push("close".into());
    }
    fn wants_text(&mut self) -> bool {
        self.text = Some(Vec::new());
        true
    }
    fn text(&mut self, chunk: &[u8]) {
        if let Some(t) = &mut self.text {
            t.extend_from_slice(chunk);
        }
    }
    fn text_end(&mut self) {
        if let Some(t) = self.text.take() {
            self.lines.push(format!("text \"{}\"", escape(&t)));
        }
    }
}

pub fn reference_trace(config: XmlConfig, doc: &[u8]) -> Trace {
    let mut t = Tokenizer::new(config);
    let mut sink = Trace::default();
    t.feed(doc, &mut sink);
    let r = t.finish(&mut sink);
    sink.finish(r.err().map(|e| (e.error, e.offset)));
    sink
}

// ---------------------------------------------------------------------------
// The RTL's records → traces
// ---------------------------------------------------------------------------

pub const F_NAME_BYTE: u32 = 1 << 0;
pub const F_NAME_FIRST: u32 = 1 << 1;
pub const F_NAME_END: u32 = 1 << 2;
pub const F_ATTR_NAME_BYTE: u32 = 1 << 3;
pub const F_ATTR_NAME_FIRST: u32 = 1 << 4;
pub const F_ATTR_NAME_END: u32 = 1 << 5;
pub const F_VAL_START: u32 = 1 << 6;
pub const F_VAL_UNIT: u32 = 1 << 7;
pub const F_VAL_END: u32 = 1 << 8;
pub const F_OPEN: u32 = 1 << 9;
pub const F_OPEN_EMPTY: u32 = 1 << 10;
pub const F_CLOSE: u32 = 1 << 11;
pub const F_TEXT_UNIT: u32 = 1 << 12;
pub const F_TEXT_END: u32 = 1 << 13;
pub const F_DOC_END: u32 = 1 << 14;

pub struct Record {
    pub flags: u32,
    pub byte: u8,
    pub unit_byte: u8,
    pub unit_cp: u32,
    pub unit_is_cp: bool,
    pub status: u8,
    pub reason: u8,
    pub err_offset: u32,
}

/// Builds one document's trace from the module's events, checking the
/// port-level contract on the way (problems are reported in the trace).
#[derive(Default)]
struct RtlDoc {
    trace: Trace,
    depth: u32,
    name: Option<Vec<u8>>,
    attr_name: Option<Vec<u8>>,
    in_value: bool,
    problems: Vec<String>,
}

impl RtlDoc {
    fn unit(&self, r: &Record) -> Vec<u8> {
        if r.unit_is_cp {
            match char::from_u32(r.unit_cp) {
                Some(c) => c.to_string().into_bytes(),
                None => format!("<bad code point {:#x}>", r.unit_cp).into_bytes(),
            }
        } else {
            vec![r.unit_byte]
        }
    }

    /// One cycle's events, in the tokenizer's order within a byte.
    fn step(&mut self, r: &Record) {
        let f = r.flags;
        if f & F_TEXT_UNIT != 0 {
            if self.trace.text.is_none() {
                self.trace.wants_text();
            }
            let u = self.unit(r);
            self.trace.text(&u);
        }
        if f & F_VAL_UNIT != 0 {
            if !self.in_value {
                self.problems.push("o_val_unit outside a value".into());
            }
            let u = self.unit(r);
            self.trace.attr_value(&u);
        }
        if f & F_TEXT_END != 0 {
            if self.trace.text.is_none() {
                self.problems.push("o_text_end without text units".into());
            }
            self.trace.text_end();
        }
        if f & F_NAME_FIRST != 0 {
            if f & F_NAME_BYTE == 0 {
                self.problems
                    .push("o_name_first without o_name_byte".into());
            }
            self.name = Some(Vec::new());
        }
        if f & F_NAME_BYTE != 0 {
            match &mut self.name {
                Some(n) => n.push(r.byte),
                None => self.problems.push("o_name_byte without a first".into()),
            }
        }
        if f & F_NAME_END != 0 {
            match self.name.take() {
                Some(n) => {
                    self.trace.start_name(&n, self.depth + 1);
                }
                None => self.problems.push("o_name_end without a name".into()),
            }
        }
        if f & F_ATTR_NAME_FIRST != 0 {
            if f & F_ATTR_NAME_BYTE == 0 {
                self.problems
                    .push("o_attr_name_first without o_attr_name_byte".into());
            }
            self.attr_name = Some(Vec::new());
        }
        if f & F_ATTR_NAME_BYTE != 0 {
            match &mut self.attr_name {
                Some(n) => n.push(r.byte),
                None => self
                    .problems
                    .push("o_attr_name_byte without a first".into()),
            }
        }
        if f & F_ATTR_NAME_END != 0 {
            match self.attr_name.take() {
                Some(n) => {
                    self.trace.attr_start(&n);
                }
                None => self.problems.push("o_attr_name_end without a name".into()),
            }
        }
        if f & F_VAL_START != 0 {
            if self.trace.attr.is_none() || self.in_value {
                self.problems.push("o_val_start out of place".into());
            }
            self.in_value = true;
        }
        if f & F_VAL_END != 0 {
            if !self.in_value {
                self.problems.push("o_val_end without o_val_start".into());
            }
            self.in_value = false;
            self.trace.attr_end();
        }
        if f & F_OPEN != 0 {
            self.trace.open();
            if f & F_OPEN_EMPTY != 0 {
                self.trace.close();
            } else {
                self.depth += 1;
            }
        } else if f & F_OPEN_EMPTY != 0 {
            self.problems.push("o_open_empty without o_open".into());
        }
        if f & F_CLOSE != 0 {
            if self.depth == 0 {
                self.problems.push("o_close with nothing open".into());
            }
            self.depth = self.depth.saturating_sub(1);
            self.trace.close();
        }
    }

    fn end(mut self, r: &Record) -> Trace {
        let error = match r.reason {
            0 => None,
            k if (k as usize) <= XmlError::ALL.len() => Some(XmlError::ALL[k as usize - 1]),
            k => {
                self.problems.push(format!("o_reason {k} out of range"));
                None
            }
        };
        let want_status = error.map_or(0, |e| e.status().code());
        if r.status != want_status {
            self.problems.push(format!(
                "o_status {} does not go with o_reason {}",
                r.status, r.reason
            ));
        }
        if let Some(e) = error {
            assert_eq!(reason_code(e), r.reason);
        }
        self.trace
            .finish(error.map(|e| (e, u64::from(r.err_offset))));
        for p in self.problems {
            self.trace.lines.push(format!("CONTRACT: {p}"));
        }
        self.trace
    }
}

pub fn rtl_traces(records: &[Record]) -> Vec<Trace> {
    let mut out = Vec::new();
    let mut doc = RtlDoc::default();
    for r in records {
        doc.step(r);
        if r.flags & F_DOC_END != 0 {
            out.push(std::mem::take(&mut doc).end(r));
        }
    }
    assert!(
        doc.trace.lines.is_empty() && doc.name.is_none(),
        "events after the last o_doc_end"
    );
    out
}
