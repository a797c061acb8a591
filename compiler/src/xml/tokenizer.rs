//! The byte-level XML tokenizer: the exact software model of the hardware
//! SAX parser (SPEC §3.2).
//!
//! # Machine
//!
//! [`State`] is the parser's state register. Semantically the machine takes
//! one byte per step and its only memory is what the hardware keeps:
//!
//! - the state, plus small registers: the quote of the attribute value or
//!   DOCTYPE literal being read, the `]` count in character data, a flag
//!   "the previous byte was a CR" (line-end normalisation), the reference
//!   being decoded (up to four letters or a code point below 0x110000), the
//!   first three bytes and the length of a PI target;
//! - the depth counter and flags "root seen", "DOCTYPE seen", "BOM length";
//! - the **name stack**: the names of the open elements, byte by byte, in
//!   `XmlConfig::name_stack_bytes` bytes. Close tags are compared against the
//!   top name byte by byte. An attribute name being read sits on top of the
//!   stack too (software needs it to hand the name to the sink; the hardware
//!   matches it incrementally but applies the same limit), so the open
//!   element names plus the current attribute name must fit.
//!
//! Where a state stays the same for every byte but a few delimiters (names,
//! character data, attribute values, comment, CDATA and PI bodies, quoted
//! DOCTYPE literals) the software scans ahead with `memchr`; the result is
//! identical to stepping byte by byte, and the feeding chunks do not change
//! anything but how the sink's text and value chunks are cut.
//!
//! # Errors
//!
//! The first problem wins: its [`XmlErrorAt`] names the byte that revealed
//! it; after it no more events are emitted for the document and the rest of
//! its bytes are ignored. Lines count `\n` bytes; columns count bytes.
//!
//! # What is not checked (neither does the hardware)
//!
//! UTF-8 validity and XML's `Char` ranges of literal bytes, duplicate
//! attribute names, the contents of the XML declaration, the syntax of a
//! DOCTYPE beyond its keyword, quotes and brackets, and PI targets other than
//! `xml` (any case).

use memchr::{memchr, memchr2, memchr3, memchr_iter, memrchr};

use super::{DocStatus, Sink, XmlConfig, XmlError, XmlErrorAt};

/// Byte classes.
const WS: u8 = 1;
const NAME_START: u8 = 2;
const NAME_CHAR: u8 = 4;

static CLASS: [u8; 256] = build_classes();

const fn build_classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        let start = c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80;
        let name = start || c.is_ascii_digit() || c == b'-' || c == b'.';
        let ws = c == b' ' || c == b'\t' || c == b'\n' || c == b'\r';
        t[b] = (if ws { WS } else { 0 })
            | (if start { NAME_START } else { 0 })
            | (if name { NAME_CHAR } else { 0 });
        b += 1;
    }
    t
}

#[inline(always)]
fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}
#[inline(always)]
fn is_name_start(b: u8) -> bool {
    CLASS[b as usize] & NAME_START != 0
}
#[inline(always)]
fn is_name_char(b: u8) -> bool {
    CLASS[b as usize] & NAME_CHAR != 0
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const CDATA_KW: &[u8; 6] = b"CDATA[";
const DOCTYPE_KW: &[u8; 7] = b"DOCTYPE";
/// Largest Unicode code point; a reference accumulating past it is rejected
/// at the digit that overflows.
const MAX_CODE_POINT: u32 = 0x10_FFFF;

/// The parser's state register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Offset 0 (or 1, 2 inside a BOM): a UTF-8 byte order mark may come.
    Start,
    /// Inside the BOM, this many bytes matched.
    Bom(u8),
    /// Outside the root element (prolog or epilog): whitespace and markup.
    Misc,
    /// Character data inside the root element.
    Text,
    /// After `<`.
    Lt,
    /// Reading a start tag's name (its bytes go onto the name stack).
    StartName,
    /// Inside a start tag, between attributes.
    TagSpace,
    /// Reading an attribute name.
    AttrName,
    /// Whitespace after an attribute name, before `=`.
    AttrAfterName,
    /// After `=`, before the opening quote.
    AttrEq,
    /// Inside a quoted attribute value (quote in `Tokenizer::quote`).
    AttrValue,
    /// Right after an attribute value's closing quote.
    AfterAttrValue,
    /// `/` inside a start tag: `>` must follow.
    EmptyTagSlash,
    /// After `</`.
    EndTagStart,
    /// Reading a close tag's name, comparing it with the top of the stack.
    EndName,
    /// Whitespace after a close tag's name.
    EndTagSpace,
    /// After `<!`.
    Bang,
    /// After `<!-`.
    CommentOpen,
    CommentBody,
    /// One `-` in a comment body.
    CommentDash1,
    /// `--` in a comment: only `>` may follow.
    CommentDash2,
    /// After `<![`, this many bytes of `CDATA[` matched.
    CdataOpen(u8),
    CdataBody,
    /// One `]` in a CDATA section.
    CdataBracket1,
    /// Two or more `]` in a CDATA section.
    CdataBracket2,
    /// After `<!D`, this many bytes of `DOCTYPE` matched (7: whitespace must follow).
    DoctypeOpen(u8),
    DoctypeBody,
    /// Inside a quoted DOCTYPE literal (quote in `Tokenizer::quote`).
    DoctypeQuoted,
    /// After `<?`.
    PiTargetStart,
    PiTarget,
    PiBody,
    /// `?` in a PI.
    PiQuestion,
    /// After `&`.
    RefStart,
    /// `&` and letters of a predefined entity name.
    RefName,
    /// After `&#`.
    RefHash,
    RefDecimal,
    /// After `&#x`.
    RefHexStart,
    RefHex,
}

/// The tokenizer for one document at a time; [`Tokenizer::reset`] starts the
/// next one and keeps the allocations.
pub struct Tokenizer {
    config: XmlConfig,
    state: State,
    err: Option<XmlErrorAt>,
    finished: bool,

    // ---- position (for error reports only) ----
    /// Document offset of the current chunk's first byte.
    base: u64,
    /// Line number (1-based) at `base`.
    line: u64,
    /// Document offset of the first byte of that line.
    line_start: u64,
    /// Document offset of the last `<` (to tell whether `<?xml` is first).
    lt_offset: u64,

    // ---- document structure ----
    depth: u32,
    root_seen: bool,
    doctype_seen: bool,
    bom_len: u8,

    // ---- name stack ----
    /// Names of the open elements, concatenated, then a partial attribute name.
    names: Vec<u8>,
    /// Start in `names` of each open element's name (top last).
    name_starts: Vec<u32>,
    /// Bytes of the close tag's name matched so far.
    cmp_pos: u32,
    /// Length of the attribute name being read.
    attr_len: u32,

    // ---- start tag ----
    /// `start_name` returned true for the element being opened.
    attrs_wanted: bool,
    /// `attr_start` returned true for the current attribute.
    attr_wanted: bool,
    /// Quote of the attribute value or DOCTYPE literal being read.
    quote: u8,

    // ---- character data ----
    in_text: bool,
    text_wanted: bool,
    /// The previous byte was a CR delivered as char data: drop a following LF.
    skip_lf: bool,
    /// Consecutive `]` at the end of the character data read so far (max 2).
    brackets: u8,

    // ---- reference being decoded ----
    ref_in_attr: bool,
    ref_buf: [u8; 4],
    ref_len: u8,
    ref_val: u32,

    // ---- PI target ----
    pi_buf: [u8; 3],
    /// Target length, saturating at 4.
    pi_len: u8,
}

impl Tokenizer {
    pub fn new(config: XmlConfig) -> Tokenizer {
        let cap = (config.name_stack_bytes as usize).min(4096);
        let depth_cap = (config.max_depth as usize).min(256);
        Tokenizer {
            config,
            state: State::Start,
            err: None,
            finished: false,
            base: 0,
            line: 1,
            line_start: 0,
            lt_offset: 0,
            depth: 0,
            root_seen: false,
            doctype_seen: false,
            bom_len: 0,
            names: Vec::with_capacity(cap),
            name_starts: Vec::with_capacity(depth_cap),
            cmp_pos: 0,
            attr_len: 0,
            attrs_wanted: false,
            attr_wanted: false,
            quote: b'"',
            in_text: false,
            text_wanted: false,
            skip_lf: false,
            brackets: 0,
            ref_in_attr: false,
            ref_buf: [0; 4],
            ref_len: 0,
            ref_val: 0,
            pi_buf: [0; 3],
            pi_len: 0,
        }
    }

    /// Start a new document (keeps allocations).
    pub fn reset(&mut self) {
        let mut names = std::mem::take(&mut self.names);
        let mut name_starts = std::mem::take(&mut self.name_starts);
        names.clear();
        name_starts.clear();
        *self = Tokenizer {
            names,
            name_starts,
            ..Tokenizer::new_empty(self.config)
        };
    }

    fn new_empty(config: XmlConfig) -> Tokenizer {
        let mut t = Tokenizer::new(XmlConfig {
            max_depth: 0,
            name_stack_bytes: 0,
        });
        t.config = config;
        t
    }

    pub fn config(&self) -> XmlConfig {
        self.config
    }

    /// Current element depth (0 outside the root element).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Bytes of the current document consumed so far.
    pub fn offset(&self) -> u64 {
        self.base
    }

    /// The first problem found so far, if any.
    pub fn error(&self) -> Option<XmlErrorAt> {
        self.err
    }

    /// Status so far (`Ok` until a problem is found; complete after `finish`).
    pub fn status(&self) -> DocStatus {
        self.err.map_or(DocStatus::Ok, |e| e.error.status())
    }

    /// Record the first problem, revealed by `bytes[i]` of the current chunk.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, error: XmlError, bytes: &[u8], i: usize) {
        let prefix = &bytes[..i.min(bytes.len())];
        let (line, line_start) = match memrchr(b'\n', prefix) {
            Some(p) => {
                let count = memchr_iter(b'\n', prefix).count() as u64;
                (self.line + count, self.base + p as u64 + 1)
            }
            None => (self.line, self.line_start),
        };
        let offset = self.base + prefix.len() as u64;
        self.err = Some(XmlErrorAt {
            error,
            offset,
            line,
            col: offset - line_start + 1,
        });
    }

    /// End the current text node, if one is open.
    #[inline]
    fn end_text<S: Sink>(&mut self, sink: &mut S) {
        if self.in_text {
            self.in_text = false;
            if self.text_wanted {
                sink.text_end();
            }
        }
    }

    /// Start a text node if none is open.
    #[inline]
    fn begin_text<S: Sink>(&mut self, sink: &mut S) {
        if !self.in_text {
            self.in_text = true;
            self.skip_lf = false;
            self.text_wanted = sink.wants_text();
        }
    }

    /// Literal character data `seg` (non-empty) of the current text node.
    #[inline]
    fn text_chars<S: Sink>(&mut self, seg: &[u8], sink: &mut S) {
        self.begin_text(sink);
        if self.text_wanted {
            self.deliver_text(seg, sink);
        }
    }

    /// Hand literal text to the sink with CRLF and lone CR turned into LF.
    fn deliver_text<S: Sink>(&mut self, mut seg: &[u8], sink: &mut S) {
        if self.skip_lf && !seg.is_empty() {
            self.skip_lf = false;
            if seg[0] == b'\n' {
                seg = &seg[1..];
            }
        }
        while let Some(p) = memchr(b'\r', seg) {
            if p > 0 {
                sink.text(&seg[..p]);
            }
            sink.text(b"\n");
            match seg.get(p + 1) {
                Some(b'\n') => seg = &seg[p + 2..],
                Some(_) => seg = &seg[p + 1..],
                None => {
                    self.skip_lf = true;
                    return;
                }
            }
        }
        if !seg.is_empty() {
            sink.text(seg);
        }
    }

    /// Hand a literal attribute-value chunk to the sink with tab, LF, CR and
    /// CRLF each turned into one space (XML attribute-value normalisation).
    fn deliver_attr<S: Sink>(&mut self, mut seg: &[u8], sink: &mut S) {
        if self.skip_lf && !seg.is_empty() {
            self.skip_lf = false;
            if seg[0] == b'\n' {
                seg = &seg[1..];
            }
        }
        while let Some(p) = memchr3(b'\t', b'\n', b'\r', seg) {
            if p > 0 {
                sink.attr_value(&seg[..p]);
            }
            sink.attr_value(b" ");
            if seg[p] == b'\r' {
                match seg.get(p + 1) {
                    Some(b'\n') => {
                        seg = &seg[p + 2..];
                        continue;
                    }
                    Some(_) => {}
                    None => {
                        self.skip_lf = true;
                        return;
                    }
                }
            }
            seg = &seg[p + 1..];
        }
        if !seg.is_empty() {
            sink.attr_value(seg);
        }
    }

    /// Decoded reference output (a character or predefined entity).
    #[inline]
    fn decoded<S: Sink>(&mut self, out: &[u8], sink: &mut S) {
        self.skip_lf = false;
        if self.ref_in_attr {
            if self.attr_wanted {
                sink.attr_value(out);
            }
            self.state = State::AttrValue;
        } else {
            self.begin_text(sink);
            if self.text_wanted {
                sink.text(out);
            }
            self.brackets = 0;
            self.state = State::Text;
        }
    }

    /// Where markup ends: back to content or to the prolog/epilog.
    #[inline]
    fn after_markup(&self) -> State {
        if self.depth > 0 {
            State::Text
        } else {
            State::Misc
        }
    }

    #[inline]
    fn top_start(&self) -> usize {
        self.name_starts.last().copied().unwrap_or(0) as usize
    }

    /// Pop the top element (its close tag or `/>` is complete).
    #[inline]
    fn close_element<S: Sink>(&mut self, sink: &mut S) {
        sink.close();
        let top = self.top_start();
        self.names.truncate(top);
        self.name_starts.pop();
        self.depth = self.depth.saturating_sub(1);
        self.state = self.after_markup();
    }

    /// Feed the next chunk of the current document.
    pub fn feed<S: Sink>(&mut self, bytes: &[u8], sink: &mut S) {
        if self.err.is_some() || self.finished {
            return;
        }
        let n = bytes.len();
        let cap = self.config.name_stack_bytes as usize;
        let mut i = 0usize;
        while i < n {
            match self.state {
                State::Text => {
                    let b = bytes[i];
                    if b == b'<' {
                        self.brackets = 0;
                        self.skip_lf = false;
                        self.lt_offset = self.base + i as u64;
                        self.state = State::Lt;
                        i += 1;
                        continue;
                    }
                    if b == b'&' {
                        self.brackets = 0;
                        self.skip_lf = false;
                        self.ref_in_attr = false;
                        self.state = State::RefStart;
                        i += 1;
                        continue;
                    }
                    let end = memchr2(b'<', b'&', &bytes[i..]).map_or(n, |p| i + p);
                    let run = &bytes[i..end];
                    if let Some(p) = self.find_cdata_end(run) {
                        if p > 0 {
                            self.text_chars(&run[..p], sink);
                        }
                        return self.fail(XmlError::CdataEndInText, bytes, i + p);
                    }
                    self.brackets = trailing_brackets(self.brackets, run);
                    self.text_chars(run, sink);
                    i = end;
                }
                State::Misc => {
                    let b = bytes[i];
                    if is_ws(b) {
                        i += 1;
                        while i < n && is_ws(bytes[i]) {
                            i += 1;
                        }
                    } else if b == b'<' {
                        self.lt_offset = self.base + i as u64;
                        self.state = State::Lt;
                        i += 1;
                    } else {
                        return self.fail(XmlError::ContentOutsideRoot, bytes, i);
                    }
                }
                State::Start => {
                    if bytes[i] == BOM[0] {
                        self.state = State::Bom(1);
                        i += 1;
                    } else {
                        self.state = State::Misc;
                    }
                }
                State::Bom(k) => {
                    if bytes[i] != BOM[k as usize] {
                        return self.fail(XmlError::ContentOutsideRoot, bytes, i);
                    }
                    i += 1;
                    if k as usize + 1 == BOM.len() {
                        self.bom_len = BOM.len() as u8;
                        self.state = State::Misc;
                    } else {
                        self.state = State::Bom(k + 1);
                    }
                }
                State::Lt => {
                    let b = bytes[i];
                    if is_name_start(b) {
                        // A start tag: the text node ends even if the
                        // element is then rejected.
                        self.end_text(sink);
                        if self.depth == 0 && self.root_seen {
                            return self.fail(XmlError::MultipleRoots, bytes, i);
                        }
                        if self.depth >= self.config.max_depth {
                            return self.fail(XmlError::TooDeep, bytes, i);
                        }
                        self.depth += 1;
                        self.root_seen = true;
                        self.name_starts.push(self.names.len() as u32);
                        self.state = State::StartName;
                        continue;
                    }
                    match b {
                        b'/' => {
                            if self.depth == 0 {
                                return self.fail(XmlError::CloseWithoutOpen, bytes, i);
                            }
                            self.end_text(sink);
                            self.cmp_pos = 0;
                            self.state = State::EndTagStart;
                        }
                        b'?' => {
                            self.end_text(sink);
                            self.state = State::PiTargetStart;
                        }
                        b'!' => self.state = State::Bang,
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    }
                    i += 1;
                }
                State::StartName => {
                    let start = i;
                    while i < n && is_name_char(bytes[i]) {
                        i += 1;
                    }
                    if i > start {
                        let avail = cap.saturating_sub(self.names.len());
                        if i - start > avail {
                            return self.fail(XmlError::NameStackOverflow, bytes, start + avail);
                        }
                        self.names.extend_from_slice(&bytes[start..i]);
                    }
                    if i == n {
                        break;
                    }
                    let b = bytes[i];
                    let next = match b {
                        b'>' => State::Text,
                        b'/' => State::EmptyTagSlash,
                        _ if is_ws(b) => State::TagSpace,
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    };
                    let top = self.top_start();
                    self.attrs_wanted = sink.start_name(&self.names[top..], self.depth);
                    self.attr_wanted = false;
                    if b == b'>' {
                        sink.open();
                    }
                    self.state = next;
                    i += 1;
                }
                State::TagSpace => {
                    let b = bytes[i];
                    if is_ws(b) {
                        i += 1;
                        continue;
                    }
                    if is_name_start(b) {
                        self.attr_len = 0;
                        self.state = State::AttrName;
                        continue;
                    }
                    match b {
                        b'>' => {
                            sink.open();
                            self.state = State::Text;
                        }
                        b'/' => self.state = State::EmptyTagSlash,
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    }
                    i += 1;
                }
                State::AttrName => {
                    let start = i;
                    while i < n && is_name_char(bytes[i]) {
                        i += 1;
                    }
                    let seg = &bytes[start..i];
                    let before = self.attr_len as usize;
                    // Partial names from earlier chunks are on the stack
                    // only if the sink wants them.
                    let copied = if self.attrs_wanted { before } else { 0 };
                    let used = self.names.len() - copied + before;
                    let avail = cap.saturating_sub(used);
                    if seg.len() > avail {
                        return self.fail(XmlError::NameStackOverflow, bytes, start + avail);
                    }
                    self.attr_len += seg.len() as u32;
                    if i == n {
                        // The name continues in the next chunk: keep what we
                        // have on top of the name stack if the sink wants it.
                        if self.attrs_wanted {
                            self.names.extend_from_slice(seg);
                        }
                        break;
                    }
                    let b = bytes[i];
                    self.state = match b {
                        b'=' => State::AttrEq,
                        _ if is_ws(b) => State::AttrAfterName,
                        _ => return self.fail(XmlError::BadAttribute, bytes, i),
                    };
                    if self.attrs_wanted {
                        self.attr_wanted = if before == 0 {
                            sink.attr_start(seg)
                        } else {
                            self.names.extend_from_slice(seg);
                            let m = self.names.len().saturating_sub(self.attr_len as usize);
                            let w = sink.attr_start(&self.names[m..]);
                            self.names.truncate(m);
                            w
                        };
                    }
                    i += 1;
                }
                State::AttrAfterName => {
                    let b = bytes[i];
                    if b == b'=' {
                        self.state = State::AttrEq;
                    } else if !is_ws(b) {
                        return self.fail(XmlError::BadAttribute, bytes, i);
                    }
                    i += 1;
                }
                State::AttrEq => {
                    let b = bytes[i];
                    if b == b'"' || b == b'\'' {
                        self.quote = b;
                        self.skip_lf = false;
                        self.state = State::AttrValue;
                    } else if !is_ws(b) {
                        return self.fail(XmlError::BadAttribute, bytes, i);
                    }
                    i += 1;
                }
                State::AttrValue => {
                    let rest = &bytes[i..];
                    match memchr3(self.quote, b'&', b'<', rest) {
                        None => {
                            if self.attr_wanted {
                                self.deliver_attr(rest, sink);
                            }
                            i = n;
                        }
                        Some(p) => {
                            if p > 0 && self.attr_wanted {
                                self.deliver_attr(&rest[..p], sink);
                            }
                            let b = rest[p];
                            i += p;
                            if b == b'&' {
                                self.skip_lf = false;
                                self.ref_in_attr = true;
                                self.state = State::RefStart;
                            } else if b == b'<' {
                                return self.fail(XmlError::BadAttribute, bytes, i);
                            } else {
                                if self.attrs_wanted {
                                    sink.attr_end();
                                }
                                self.attr_wanted = false;
                                self.skip_lf = false;
                                self.state = State::AfterAttrValue;
                            }
                            i += 1;
                        }
                    }
                }
                State::AfterAttrValue => {
                    let b = bytes[i];
                    match b {
                        b'>' => {
                            sink.open();
                            self.state = State::Text;
                        }
                        b'/' => self.state = State::EmptyTagSlash,
                        _ if is_ws(b) => self.state = State::TagSpace,
                        _ if is_name_start(b) => {
                            return self.fail(XmlError::BadAttribute, bytes, i);
                        }
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    }
                    i += 1;
                }
                State::EmptyTagSlash => {
                    if bytes[i] != b'>' {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    i += 1;
                    sink.open();
                    self.close_element(sink);
                }
                State::EndTagStart => {
                    if !is_name_start(bytes[i]) {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    self.state = State::EndName;
                }
                State::EndName => {
                    let top = self.top_start();
                    let len = self.names.len() - top;
                    let mut k = self.cmp_pos as usize;
                    while i < n {
                        let b = bytes[i];
                        if !is_name_char(b) {
                            break;
                        }
                        if k >= len || self.names[top + k] != b {
                            return self.fail(XmlError::MismatchedClose, bytes, i);
                        }
                        k += 1;
                        i += 1;
                    }
                    self.cmp_pos = k as u32;
                    if i == n {
                        break;
                    }
                    let b = bytes[i];
                    let complete = k == len;
                    if b == b'>' || is_ws(b) {
                        if !complete {
                            return self.fail(XmlError::MismatchedClose, bytes, i);
                        }
                    } else {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    i += 1;
                    if b == b'>' {
                        self.close_element(sink);
                    } else {
                        self.state = State::EndTagSpace;
                    }
                }
                State::EndTagSpace => {
                    let b = bytes[i];
                    if b == b'>' {
                        i += 1;
                        self.close_element(sink);
                    } else if is_ws(b) {
                        i += 1;
                    } else {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                }
                State::Bang => {
                    match bytes[i] {
                        b'-' => {
                            self.end_text(sink);
                            self.state = State::CommentOpen;
                        }
                        b'[' => {
                            if self.depth == 0 {
                                return self.fail(XmlError::ContentOutsideRoot, bytes, i);
                            }
                            self.state = State::CdataOpen(0);
                        }
                        b'D' => {
                            if self.depth > 0 || self.root_seen || self.doctype_seen {
                                return self.fail(XmlError::MisplacedDoctype, bytes, i);
                            }
                            self.doctype_seen = true;
                            self.state = State::DoctypeOpen(1);
                        }
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    }
                    i += 1;
                }
                State::CommentOpen => {
                    if bytes[i] != b'-' {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    self.state = State::CommentBody;
                    i += 1;
                }
                State::CommentBody => match memchr(b'-', &bytes[i..]) {
                    Some(p) => {
                        i += p + 1;
                        self.state = State::CommentDash1;
                    }
                    None => i = n,
                },
                State::CommentDash1 => {
                    self.state = if bytes[i] == b'-' {
                        State::CommentDash2
                    } else {
                        State::CommentBody
                    };
                    i += 1;
                }
                State::CommentDash2 => {
                    if bytes[i] != b'>' {
                        return self.fail(XmlError::DoubleHyphenInComment, bytes, i);
                    }
                    self.state = self.after_markup();
                    i += 1;
                }
                State::CdataOpen(k) => {
                    if bytes[i] != CDATA_KW[k as usize] {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    i += 1;
                    if k as usize + 1 == CDATA_KW.len() {
                        self.skip_lf = false;
                        self.state = State::CdataBody;
                    } else {
                        self.state = State::CdataOpen(k + 1);
                    }
                }
                State::CdataBody => {
                    let rest = &bytes[i..];
                    match memchr(b']', rest) {
                        Some(p) => {
                            if p > 0 {
                                self.text_chars(&rest[..p], sink);
                            }
                            i += p + 1;
                            self.state = State::CdataBracket1;
                        }
                        None => {
                            self.text_chars(rest, sink);
                            i = n;
                        }
                    }
                }
                State::CdataBracket1 => {
                    if bytes[i] == b']' {
                        self.state = State::CdataBracket2;
                        i += 1;
                    } else {
                        self.text_chars(b"]", sink);
                        self.state = State::CdataBody;
                    }
                }
                State::CdataBracket2 => match bytes[i] {
                    b'>' => {
                        self.skip_lf = false;
                        self.brackets = 0;
                        self.state = State::Text;
                        i += 1;
                    }
                    b']' => {
                        self.text_chars(b"]", sink);
                        i += 1;
                    }
                    _ => {
                        self.text_chars(b"]]", sink);
                        self.state = State::CdataBody;
                    }
                },
                State::DoctypeOpen(k) => {
                    let b = bytes[i];
                    if (k as usize) < DOCTYPE_KW.len() {
                        if b != DOCTYPE_KW[k as usize] {
                            return self.fail(XmlError::UnexpectedByte, bytes, i);
                        }
                        self.state = State::DoctypeOpen(k + 1);
                    } else {
                        if !is_ws(b) {
                            return self.fail(XmlError::UnexpectedByte, bytes, i);
                        }
                        self.state = State::DoctypeBody;
                    }
                    i += 1;
                }
                State::DoctypeBody => {
                    let b = bytes[i];
                    match b {
                        b'>' => self.state = State::Misc,
                        b'[' => return self.fail(XmlError::DoctypeInternalSubset, bytes, i),
                        b'"' | b'\'' => {
                            self.quote = b;
                            self.state = State::DoctypeQuoted;
                        }
                        b'<' => return self.fail(XmlError::UnexpectedByte, bytes, i),
                        _ => {}
                    }
                    i += 1;
                }
                State::DoctypeQuoted => match memchr(self.quote, &bytes[i..]) {
                    Some(p) => {
                        i += p + 1;
                        self.state = State::DoctypeBody;
                    }
                    None => i = n,
                },
                State::PiTargetStart => {
                    if !is_name_start(bytes[i]) {
                        return self.fail(XmlError::UnexpectedByte, bytes, i);
                    }
                    self.pi_len = 0;
                    self.state = State::PiTarget;
                }
                State::PiTarget => {
                    let b = bytes[i];
                    if is_name_char(b) {
                        if (self.pi_len as usize) < self.pi_buf.len() {
                            self.pi_buf[self.pi_len as usize] = b;
                        }
                        self.pi_len = self.pi_len.saturating_add(1).min(4);
                        i += 1;
                        continue;
                    }
                    let next = match b {
                        b'?' => State::PiQuestion,
                        _ if is_ws(b) => State::PiBody,
                        _ => return self.fail(XmlError::UnexpectedByte, bytes, i),
                    };
                    if self.pi_len == 3 && self.pi_buf.eq_ignore_ascii_case(b"xml") {
                        let first = self.lt_offset == u64::from(self.bom_len);
                        if !(first && &self.pi_buf == b"xml") {
                            return self.fail(XmlError::MisplacedXmlDecl, bytes, i);
                        }
                    }
                    self.state = next;
                    i += 1;
                }
                State::PiBody => match memchr(b'?', &bytes[i..]) {
                    Some(p) => {
                        i += p + 1;
                        self.state = State::PiQuestion;
                    }
                    None => i = n,
                },
                State::PiQuestion => {
                    match bytes[i] {
                        b'>' => self.state = self.after_markup(),
                        b'?' => {}
                        _ => self.state = State::PiBody,
                    }
                    i += 1;
                }
                State::RefStart => {
                    let b = bytes[i];
                    if b == b'#' {
                        self.state = State::RefHash;
                    } else if b.is_ascii_alphabetic() {
                        self.ref_buf[0] = b;
                        self.ref_len = 1;
                        self.state = State::RefName;
                    } else {
                        return self.fail(XmlError::BadReference, bytes, i);
                    }
                    i += 1;
                }
                State::RefName => {
                    let b = bytes[i];
                    if b == b';' {
                        let out: &[u8] = match &self.ref_buf[..self.ref_len as usize] {
                            b"lt" => b"<",
                            b"gt" => b">",
                            b"amp" => b"&",
                            b"apos" => b"'",
                            b"quot" => b"\"",
                            _ => return self.fail(XmlError::BadReference, bytes, i),
                        };
                        i += 1;
                        self.decoded(out, sink);
                        continue;
                    }
                    if !b.is_ascii_alphabetic() || self.ref_len as usize == self.ref_buf.len() {
                        return self.fail(XmlError::BadReference, bytes, i);
                    }
                    self.ref_buf[self.ref_len as usize] = b;
                    self.ref_len += 1;
                    i += 1;
                }
                State::RefHash => {
                    let b = bytes[i];
                    if b == b'x' {
                        self.state = State::RefHexStart;
                    } else if b.is_ascii_digit() {
                        self.ref_val = u32::from(b - b'0');
                        self.state = State::RefDecimal;
                    } else {
                        return self.fail(XmlError::BadReference, bytes, i);
                    }
                    i += 1;
                }
                State::RefHexStart => {
                    let b = bytes[i];
                    match hex_value(b) {
                        Some(v) => {
                            self.ref_val = v;
                            self.state = State::RefHex;
                        }
                        None => return self.fail(XmlError::BadReference, bytes, i),
                    }
                    i += 1;
                }
                State::RefDecimal | State::RefHex => {
                    let b = bytes[i];
                    if b == b';' {
                        let Some(c) = xml_char(self.ref_val) else {
                            return self.fail(XmlError::BadReference, bytes, i);
                        };
                        i += 1;
                        let mut utf8 = [0u8; 4];
                        let out = c.encode_utf8(&mut utf8).as_bytes();
                        self.decoded(out, sink);
                        continue;
                    }
                    let (radix, digit) = if self.state == State::RefHex {
                        (16, hex_value(b))
                    } else {
                        (
                            10,
                            if b.is_ascii_digit() {
                                Some(u32::from(b - b'0'))
                            } else {
                                None
                            },
                        )
                    };
                    let Some(d) = digit else {
                        return self.fail(XmlError::BadReference, bytes, i);
                    };
                    self.ref_val = self.ref_val * radix + d;
                    if self.ref_val > MAX_CODE_POINT {
                        return self.fail(XmlError::BadReference, bytes, i);
                    }
                    i += 1;
                }
            }
        }
        // Chunk consumed: advance the position registers.
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        if newlines > 0 {
            self.line += newlines;
            if let Some(p) = memrchr(b'\n', bytes) {
                self.line_start = self.base + p as u64 + 1;
            }
        }
        self.base += n as u64;
    }

    /// End of the document: the end-of-document checks. Returns the first
    /// problem of the document (also available from [`Tokenizer::error`]).
    /// Call [`Tokenizer::reset`] before the next document.
    pub fn finish<S: Sink>(&mut self, _sink: &mut S) -> Result<(), XmlErrorAt> {
        if let Some(e) = self.err {
            return Err(e);
        }
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let error = match self.state {
            State::Start | State::Misc => {
                if self.root_seen {
                    return Ok(());
                }
                XmlError::NoRootElement
            }
            State::Text => XmlError::UnclosedElement,
            _ => XmlError::UnterminatedMarkup,
        };
        let e = XmlErrorAt {
            error,
            offset: self.base,
            line: self.line,
            col: self.base - self.line_start + 1,
        };
        self.err = Some(e);
        Err(e)
    }

    /// Offset of a `>` in `run` (character data) completing `]]>`, counting
    /// the `]` that ended the previous run.
    #[inline]
    fn find_cdata_end(&self, run: &[u8]) -> Option<usize> {
        memchr_iter(b'>', run).find(|&p| match p {
            0 => self.brackets >= 2,
            1 => run[0] == b']' && self.brackets >= 1,
            _ => run[p - 1] == b']' && run[p - 2] == b']',
        })
    }
}

/// Consecutive `]` (max 2) ending `prev` brackets followed by `run`.
#[inline]
fn trailing_brackets(prev: u8, run: &[u8]) -> u8 {
    let t = run.iter().rev().take(2).take_while(|&&b| b == b']').count();
    if t == run.len() {
        (usize::from(prev) + t).min(2) as u8
    } else {
        t as u8
    }
}

#[inline]
fn hex_value(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

/// A character reference's code point, if it is an XML `Char`
/// (tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF).
fn xml_char(v: u32) -> Option<char> {
    let ok = matches!(v, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x1_0000..=0x10_FFFF);
    if ok {
        char::from_u32(v)
    } else {
        None
    }
}

/// Tokenize a whole document in one chunk.
pub fn tokenize<S: Sink>(config: XmlConfig, doc: &[u8], sink: &mut S) -> Result<(), XmlErrorAt> {
    let mut t = Tokenizer::new(config);
    t.feed(doc, sink);
    t.finish(sink)
}
