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
//! Where a state stays the same for every byte but a few delimiters the
//! software scans ahead: names 16 bytes at a time (SSE2 on x86_64),
//! character data and attribute values with a byte-class table (which also
//! tells whether a run holds a CR or `]` that needs the slow path), comment,
//! CDATA, PI bodies and quoted DOCTYPE literals with `memchr`. A few common
//! transitions are taken without going back to the dispatch (`<` + the next
//! byte, `=` + quote, closing quote + whitespace or `>`). The result is
//! identical to stepping byte by byte — the tests feed every document whole
//! and byte by byte — and the chunking changes nothing but how the sink's
//! text and value chunks are cut.
//!
//! Nothing is copied or decoded for the sink unless it asked: names and
//! values inside the chunk are passed as slices of it; an attribute name
//! split across chunks is assembled on top of the name stack.
//!
//! # Errors
//!
//! The first problem wins: its [`XmlErrorAt`] names the byte that revealed
//! it; after it no more events are emitted for the document and the rest of
//! its bytes are ignored. Lines count `\n` bytes; columns count bytes.
//!
//! The characters themselves (UTF-8, XML's `Char`, UTF-16/32 refused) are
//! checked ahead of the machine by [`super::chars`]: the machine only sees
//! the bytes before the first faulty one. The XML declaration is checked
//! by [`super::decl`], whose encoding then decides how the characters
//! after it are checked.
//!
//! # What is not checked (neither does the hardware)
//!
//! Duplicate attribute names, non-ASCII name characters beyond "a byte of
//! 80..FF", and PI targets other than `xml` (any case). The DOCTYPE's
//! grammar is [`super::doctype`]'s.

use memchr::{memchr, memchr3, memchr_iter, memrchr};

use super::attrs::AttrSet;
use super::chars::CharCheck;
use super::decl::{Decl, DeclStep, Encoding};
use super::doctype::{Doctype, DoctypeStep};
use super::names::NameCheck;
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
pub(crate) fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}
#[inline(always)]
pub(crate) fn is_name_start(b: u8) -> bool {
    CLASS[b as usize] & NAME_START != 0
}
#[inline(always)]
pub(crate) fn is_name_char(b: u8) -> bool {
    CLASS[b as usize] & NAME_CHAR != 0
}

/// Delimiters of the runs scanned in one go (see `SPECIAL`).
const S_TEXT_END: u8 = 1; // `<` `&`: end of a character-data run
const S_BRACKET: u8 = 2; // `]`: may start `]]>`
const S_CR: u8 = 4; // CR: line-end normalisation
const S_DQ_END: u8 = 8; // `"` `<` `&`: end of a run in a "-quoted value
const S_SQ_END: u8 = 16; // `'` `<` `&`: end of a run in a '-quoted value
const S_ATTR_WS: u8 = 32; // tab, LF, CR: attribute-value normalisation

static SPECIAL: [u8; 256] = build_special();

const fn build_special() -> [u8; 256] {
    let mut t = [0u8; 256];
    t[b'<' as usize] = S_TEXT_END | S_DQ_END | S_SQ_END;
    t[b'&' as usize] = S_TEXT_END | S_DQ_END | S_SQ_END;
    t[b']' as usize] = S_BRACKET;
    t[b'\r' as usize] = S_CR | S_ATTR_WS;
    t[b'\n' as usize] = S_ATTR_WS;
    t[b'\t' as usize] = S_ATTR_WS;
    t[b'"' as usize] = S_DQ_END;
    t[b'\'' as usize] = S_SQ_END;
    t
}

/// Number of LF bytes (vectorises: byte-sized partial sums).
fn count_newlines(bytes: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut blocks = bytes.chunks_exact(255);
    for block in &mut blocks {
        total += u64::from(block.iter().fold(0u8, |a, &b| a + u8::from(b == b'\n')));
    }
    let rest = blocks.remainder();
    total + rest.iter().filter(|&&b| b == b'\n').count() as u64
}

/// End of the run of name bytes starting at `bytes[i]`.
#[inline(always)]
fn scan_name(bytes: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= bytes.len() {
        let m = simd::name_mask(&bytes[i..i + 16]);
        if m != 0xFFFF {
            return i + (!m).trailing_zeros() as usize;
        }
        i += 16;
    }
    while i < bytes.len() && is_name_char(bytes[i]) {
        i += 1;
    }
    i
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// Bit k set iff `block[k]` is a name byte (ASCII letter, digit, `_`
    /// `:` `-` `.` or ≥ 0x80), as `CLASS`'s `NAME_CHAR`.
    #[inline(always)]
    pub(super) fn name_mask(block: &[u8]) -> u32 {
        assert!(block.len() >= 16);
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads 16
        // bytes that the assertion above proves are in bounds, unaligned.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let set = |b: u8| _mm_set1_epi8(b as i8);
            let high = _mm_cmplt_epi8(v, _mm_setzero_si128());
            let lower = _mm_or_si128(v, set(0x20));
            let alpha = _mm_and_si128(
                _mm_cmpgt_epi8(lower, set(b'a' - 1)),
                _mm_cmplt_epi8(lower, set(b'z' + 1)),
            );
            // `-` `.` `/` `0`..`9` `:` minus `/`.
            let punct = _mm_and_si128(
                _mm_cmpgt_epi8(v, set(b'-' - 1)),
                _mm_cmplt_epi8(v, set(b':' + 1)),
            );
            let punct = _mm_andnot_si128(_mm_cmpeq_epi8(v, set(b'/')), punct);
            let under = _mm_cmpeq_epi8(v, set(b'_'));
            let name = _mm_or_si128(_mm_or_si128(high, alpha), _mm_or_si128(punct, under));
            _mm_movemask_epi8(name) as u32
        }
    }
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const CDATA_KW: &[u8; 6] = b"CDATA[";
const DOCTYPE_KW: &[u8; 7] = b"DOCTYPE";
/// Largest Unicode code point; a reference accumulating past it is rejected
/// at the digit that overflows.
const MAX_CODE_POINT: u32 = 0x10_FFFF;

/// One step's result: the next state and the index of the next byte
/// (`REJECTED` once the step found the document's first problem).
type Step = (State, usize);

/// The index a step returns after recording the document's first problem
/// (`Tokenizer::reject`): past any chunk, so the loop over it ends.
const REJECTED: usize = usize::MAX;

/// The index the XML declaration's last step returns when it changes how
/// the following bytes are read: past any chunk, so the loop over it ends
/// and `feed` checks the characters again from `Tokenizer::resume`.
const REREAD: usize = usize::MAX - 1;

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
    /// After `</`: reading the close tag's name, comparing it with the top
    /// of the stack (`cmp_pos` bytes matched).
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
    /// After `<!DOCTYPE` and whitespace: its name, external id and
    /// literals, byte by byte (`Tokenizer::dtd`).
    DoctypeBody,
    /// After `<?`.
    PiTargetStart,
    PiTarget,
    PiBody,
    /// `?` in a PI.
    PiQuestion,
    /// `?` right after a PI target: only `>` may follow (`<?t?>`).
    PiTargetQuestion,
    /// Inside the XML declaration, after `<?xml` and whitespace
    /// (`Tokenizer::decl`).
    XmlDecl,
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
    /// The character check, a step ahead of the state machine.
    chars: CharCheck,
    /// Where the machine goes on after `REREAD`.
    resume: usize,

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

    // ---- XML declaration, DOCTYPE ----
    decl: Decl,
    dtd: Doctype,

    // ---- names beyond ASCII ----
    /// The characters of the name being read ([`NameCheck`]).
    nm: NameCheck,
    /// The XML declaration named ISO-8859-1: a byte is a character.
    latin1: bool,

    // ---- duplicate attributes ----
    /// The start tag's attribute names ([`AttrSet`]).
    attrs: AttrSet,
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
            chars: CharCheck::new(),
            resume: 0,
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
            decl: Decl::default(),
            dtd: Doctype::default(),
            nm: NameCheck::default(),
            latin1: false,
            attrs: AttrSet::new(config),
        }
    }

    /// Start a new document (keeps allocations).
    pub fn reset(&mut self) {
        let mut names = std::mem::take(&mut self.names);
        let mut name_starts = std::mem::take(&mut self.name_starts);
        let mut attrs = std::mem::take(&mut self.attrs);
        names.clear();
        name_starts.clear();
        attrs.clear();
        *self = Tokenizer {
            names,
            name_starts,
            attrs,
            ..Tokenizer::new_empty(self.config)
        };
    }

    fn new_empty(config: XmlConfig) -> Tokenizer {
        let mut t = Tokenizer::new(XmlConfig {
            max_depth: 0,
            name_stack_bytes: 0,
            max_attributes: 0,
            attr_name_bytes: 0,
            namespaces: false,
            ns_limits: None,
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

    /// A step found the document's first problem, revealed by `bytes[i]`:
    /// record it and end the chunk.
    #[inline(always)]
    fn reject(&mut self, error: XmlError, bytes: &[u8], i: usize) -> Step {
        self.fail(error, bytes, i);
        (self.state, REJECTED)
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

    /// Literal character data `seg` (non-empty) of the current text node;
    /// `may_cr`: `seg` may contain a CR.
    #[inline(always)]
    fn text_chars<S: Sink>(&mut self, seg: &[u8], may_cr: bool, sink: &mut S) {
        self.begin_text(sink);
        if self.text_wanted {
            if may_cr || self.skip_lf {
                self.deliver_text(seg, sink);
            } else {
                sink.text(seg);
            }
        }
    }

    /// Literal attribute-value bytes `seg` (non-empty) of a wanted value;
    /// `may_ws`: `seg` may contain a tab, LF or CR.
    #[inline(always)]
    fn attr_chars<S: Sink>(&mut self, seg: &[u8], may_ws: bool, sink: &mut S) {
        if may_ws || self.skip_lf {
            self.deliver_attr(seg, sink);
        } else {
            sink.attr_value(seg);
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

    /// Decoded reference output (a character or predefined entity); returns
    /// the state to go back to.
    #[inline]
    fn decoded<S: Sink>(&mut self, out: &[u8], sink: &mut S) -> State {
        self.skip_lf = false;
        if self.ref_in_attr {
            if self.attr_wanted {
                sink.attr_value(out);
            }
            State::AttrValue
        } else {
            self.begin_text(sink);
            if self.text_wanted {
                sink.text(out);
            }
            self.brackets = 0;
            State::Text
        }
    }

    /// Where markup ends: back to content or to the prolog/epilog.
    #[inline(always)]
    fn after_markup(&self) -> State {
        if self.depth > 0 {
            State::Text
        } else {
            State::Misc
        }
    }

    #[inline(always)]
    fn top_start(&self) -> usize {
        self.name_starts.last().copied().unwrap_or(0) as usize
    }

    /// Pop the top element (its close tag or `/>` is complete); returns the
    /// next state.
    #[inline(always)]
    fn close_element<S: Sink>(&mut self, sink: &mut S) -> State {
        sink.close();
        let top = self.top_start();
        self.names.truncate(top);
        self.name_starts.pop();
        self.depth = self.depth.saturating_sub(1);
        self.after_markup()
    }

    /// The byte `b` after `<` tells which markup starts. Returns the next
    /// state and whether `b` is consumed (a start tag's name is left for
    /// `StartName`).
    #[inline(always)]
    fn markup_start<S: Sink>(&mut self, b: u8, sink: &mut S) -> Result<(State, bool), XmlError> {
        if is_name_start(b) {
            // A start tag: the text node ends even if the element is then
            // rejected.
            self.end_text(sink);
            if self.depth == 0 && self.root_seen {
                return Err(XmlError::MultipleRoots);
            }
            if self.depth >= self.config.max_depth {
                return Err(XmlError::TooDeep);
            }
            self.depth += 1;
            self.root_seen = true;
            self.name_starts.push(self.names.len() as u32);
            self.nm.begin();
            self.attrs.clear();
            return Ok((State::StartName, false));
        }
        match b {
            b'/' => {
                if self.depth == 0 {
                    return Err(XmlError::CloseWithoutOpen);
                }
                self.end_text(sink);
                self.cmp_pos = 0;
                Ok((State::EndName, true))
            }
            b'?' => {
                self.end_text(sink);
                Ok((State::PiTargetStart, true))
            }
            b'!' => Ok((State::Bang, true)),
            _ => Err(XmlError::UnexpectedByte),
        }
    }

    /// Feed the next chunk of the current document.
    pub fn feed<S: Sink>(&mut self, bytes: &[u8], sink: &mut S) {
        if self.err.is_some() || self.finished {
            return;
        }
        let cap = self.config.name_stack_bytes as usize;
        let mut i = 0usize;
        // The state register lives in a local while the chunk is processed.
        let mut st = self.state;
        loop {
            // The characters are checked first (`chars`): the machine only
            // sees the bytes before the first faulty one.
            let fault = self.chars.scan(&bytes[i..]).map(|(k, e)| (i + k, e));
            let n = fault.map_or(bytes.len(), |f| f.0);
            let sound = &bytes[..n];
            while i < n {
                (st, i) = self.step(st, sound, i, cap, sink);
            }
            if self.err.is_some() {
                // A step rejected the document (its index was `REJECTED`):
                // nothing reads the state or the position after that.
                return;
            }
            if i == REREAD {
                // The XML declaration changed the encoding: the bytes after
                // it are checked again under the new rules.
                i = self.resume;
                continue;
            }
            if let Some((at, error)) = fault {
                self.fail(error, bytes, at);
                return;
            }
            break;
        }
        self.state = st;
        self.advance_position(bytes);
    }

    /// One step of the machine in state `st` at `bytes[i]` (`i` in bounds):
    /// consumes one byte, a run of bytes the state stays the same for, or
    /// (for a state that only looks) none. `cap`: the name stack's size.
    #[inline(always)]
    fn step<S: Sink>(
        &mut self,
        st: State,
        bytes: &[u8],
        i: usize,
        cap: usize,
        sink: &mut S,
    ) -> Step {
        match st {
            State::Text => self.text(bytes, i, sink),
            State::Misc => self.misc(bytes, i, sink),
            State::Start => Self::start(bytes[i], i),
            State::Bom(k) => self.bom(k, bytes, i),
            State::Lt => self.markup(bytes, i, sink),
            State::StartName => self.start_name(bytes, i, cap, sink),
            State::TagSpace => self.tag_space(bytes, i, sink),
            State::AttrName => self.attr_name(bytes, i, cap, sink),
            State::AttrAfterName => self.attr_after_name(bytes, i),
            State::AttrEq => self.attr_eq(bytes, i),
            State::AttrValue => self.attr_value(bytes, i, sink),
            State::AfterAttrValue => self.after_attr_value(bytes, i, sink),
            State::EmptyTagSlash => self.empty_tag_slash(bytes, i, sink),
            State::EndName => self.end_name(bytes, i, sink),
            State::EndTagSpace => self.end_tag_space(bytes, i, sink),
            State::Bang => self.bang(bytes, i, sink),
            State::CommentOpen | State::CommentBody | State::CommentDash1 | State::CommentDash2 => {
                self.comment(st, bytes, i)
            }
            State::CdataOpen(_)
            | State::CdataBody
            | State::CdataBracket1
            | State::CdataBracket2 => self.cdata(st, bytes, i, sink),
            State::DoctypeOpen(_) | State::DoctypeBody => self.doctype(st, bytes, i),
            State::PiTargetStart
            | State::PiTarget
            | State::PiBody
            | State::PiQuestion
            | State::PiTargetQuestion => self.pi(st, bytes, i),
            State::XmlDecl => self.xml_decl(bytes, i),
            State::RefStart | State::RefHash | State::RefHexStart => self.ref_start(st, bytes, i),
            State::RefName => self.ref_name(bytes, i, sink),
            State::RefDecimal | State::RefHex => self.ref_number(st, bytes, i, sink),
        }
    }

    /// Chunk consumed: advance the position registers.
    #[inline]
    fn advance_position(&mut self, bytes: &[u8]) {
        let newlines = count_newlines(bytes);
        if newlines > 0 {
            self.line += newlines;
            if let Some(p) = memrchr(b'\n', bytes) {
                self.line_start = self.base + p as u64 + 1;
            }
        }
        self.base += bytes.len() as u64;
    }

    // ---- document level: BOM, prolog and epilog, character data ----

    /// `Start`: a BOM may begin at `b`; otherwise `b` is left for `Misc`.
    #[inline(always)]
    fn start(b: u8, i: usize) -> (State, usize) {
        if b == BOM[0] {
            (State::Bom(1), i + 1)
        } else {
            (State::Misc, i)
        }
    }

    /// `Bom(k)`: byte `k` of the BOM.
    #[inline(always)]
    fn bom(&mut self, k: u8, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        if b != BOM[k as usize] {
            return self.reject(XmlError::ContentOutsideRoot, bytes, i);
        }
        if k as usize + 1 == BOM.len() {
            self.bom_len = BOM.len() as u8;
            (State::Misc, i + 1)
        } else {
            (State::Bom(k + 1), i + 1)
        }
    }

    /// `Misc`: whitespace (a run of it) or `<` outside the root element.
    #[inline(always)]
    fn misc<S: Sink>(&mut self, bytes: &[u8], mut i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if is_ws(b) {
            i += 1;
            while i < bytes.len() && is_ws(bytes[i]) {
                i += 1;
            }
            (State::Misc, i)
        } else if b == b'<' {
            self.lt(bytes, i, sink)
        } else {
            self.reject(XmlError::ContentOutsideRoot, bytes, i)
        }
    }

    /// `Text`: `<`, `&`, or the run of character data up to the next one
    /// (checked for `]]>`, delivered with line ends normalised).
    #[inline(always)]
    fn text<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if b == b'<' {
            self.brackets = 0;
            self.skip_lf = false;
            return self.lt(bytes, i, sink);
        }
        if b == b'&' {
            self.brackets = 0;
            self.skip_lf = false;
            self.ref_in_attr = false;
            return (State::RefStart, i + 1);
        }
        let n = bytes.len();
        let mut j = i;
        let mut seen = 0u8;
        while j < n {
            let c = SPECIAL[bytes[j] as usize];
            if c & S_TEXT_END != 0 {
                break;
            }
            seen |= c;
            j += 1;
        }
        let run = &bytes[i..j];
        if seen & S_BRACKET != 0 || self.brackets > 0 {
            if let Some(p) = self.find_cdata_end(run) {
                if p > 0 {
                    self.text_chars(&run[..p], true, sink);
                }
                return self.reject(XmlError::CdataEndInText, bytes, i + p);
            }
            self.brackets = trailing_brackets(self.brackets, run);
        }
        self.text_chars(run, seen & S_CR != 0, sink);
        (State::Text, j)
    }

    // ---- markup start ----

    /// `<` at `bytes[i]` in content or outside the root: dispatch on the
    /// byte after it right away when it is in this chunk.
    #[inline(always)]
    fn lt<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        self.lt_offset = self.base + i as u64;
        let i = i + 1;
        if i == bytes.len() {
            return (State::Lt, i);
        }
        self.markup(bytes, i, sink)
    }

    /// The characters of the name's next bytes `seg` ([`NameCheck`]): the
    /// index of the first faulty byte. ASCII runs cost one OR over them.
    #[inline(always)]
    fn name_chars(&mut self, seg: &[u8]) -> Option<usize> {
        if seg.is_empty() {
            return None;
        }
        if !self.nm.needs_run(seg) {
            self.nm.skip();
            return None;
        }
        self.nm.run(seg, self.latin1)
    }

    /// `Lt`: the byte after `<` (see `markup_start`).
    #[inline(always)]
    fn markup<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        match self.markup_start(bytes[i], sink) {
            Ok((next, consumed)) => (next, i + usize::from(consumed)),
            Err(e) => self.reject(e, bytes, i),
        }
    }

    // ---- start tags ----

    /// `StartName`: the run of name bytes (onto the name stack), then the
    /// byte that ends the name.
    #[inline(always)]
    fn start_name<S: Sink>(
        &mut self,
        bytes: &[u8],
        start: usize,
        cap: usize,
        sink: &mut S,
    ) -> Step {
        let i = scan_name(bytes, start);
        if i > start {
            let avail = cap.saturating_sub(self.names.len());
            let fits = (i - start).min(avail);
            if let Some(k) = self.name_chars(&bytes[start..start + fits]) {
                return self.reject(XmlError::BadNameChar, bytes, start + k);
            }
            if i - start > avail {
                return self.reject(XmlError::NameStackOverflow, bytes, start + avail);
            }
            self.names.extend_from_slice(&bytes[start..i]);
        }
        if i == bytes.len() {
            return (State::StartName, i);
        }
        let b = bytes[i];
        let next = match b {
            b'>' => State::Text,
            b'/' => State::EmptyTagSlash,
            _ if is_ws(b) => State::TagSpace,
            _ => return self.reject(XmlError::UnexpectedByte, bytes, i),
        };
        let top = self.top_start();
        self.attrs_wanted = sink.start_name(&self.names[top..], self.depth);
        self.attr_wanted = false;
        if let Some(e) = sink.fault() {
            return self.reject(e, bytes, i);
        }
        if b == b'>' {
            sink.open();
            if let Some(e) = sink.fault() {
                return self.reject(e, bytes, i);
            }
        }
        (next, i + 1)
    }

    /// `TagSpace`: whitespace between attributes, then an attribute name
    /// (left for `AttrName`), `>` or `/`.
    #[inline(always)]
    fn tag_space<S: Sink>(&mut self, bytes: &[u8], mut i: usize, sink: &mut S) -> Step {
        let n = bytes.len();
        while i < n && is_ws(bytes[i]) {
            i += 1;
        }
        if i == n {
            return (State::TagSpace, i);
        }
        let b = bytes[i];
        if is_name_start(b) {
            self.attr_len = 0;
            self.nm.begin();
            return (State::AttrName, i);
        }
        match b {
            b'>' => {
                sink.open();
                if let Some(e) = sink.fault() {
                    return self.reject(e, bytes, i);
                }
                (State::Text, i + 1)
            }
            b'/' => (State::EmptyTagSlash, i + 1),
            _ => self.reject(XmlError::UnexpectedByte, bytes, i),
        }
    }

    /// `EmptyTagSlash`: `>` must follow `/`.
    #[inline(always)]
    fn empty_tag_slash<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if b != b'>' {
            return self.reject(XmlError::UnexpectedByte, bytes, i);
        }
        sink.open();
        if let Some(e) = sink.fault() {
            return self.reject(e, bytes, i);
        }
        (self.close_element(sink), i + 1)
    }

    // ---- attributes and values ----

    /// `AttrName`: the run of name bytes, then `=` or whitespace (and the
    /// quote, when it follows `=` at once).
    #[inline(always)]
    fn attr_name<S: Sink>(&mut self, bytes: &[u8], start: usize, cap: usize, sink: &mut S) -> Step {
        let n = bytes.len();
        let mut i = scan_name(bytes, start);
        let seg = &bytes[start..i];
        let before = self.attr_len as usize;
        // Partial names from earlier chunks are on the stack only if the
        // sink wants them.
        let copied = if self.attrs_wanted { before } else { 0 };
        let used = self.names.len() - copied + before;
        let avail = cap.saturating_sub(used);
        if let Some((k, e)) = self.attr_fault(seg, avail) {
            return self.reject(e, bytes, start + k);
        }
        self.attrs.extend(seg);
        self.attr_len += seg.len() as u32;
        if i == n {
            // The name continues in the next chunk: keep what we have on top
            // of the name stack if the sink wants it.
            if self.attrs_wanted {
                self.names.extend_from_slice(seg);
            }
            return (State::AttrName, i);
        }
        let b = bytes[i];
        let mut st = match b {
            b'=' => State::AttrEq,
            _ if is_ws(b) => State::AttrAfterName,
            _ => return self.reject(XmlError::BadAttribute, bytes, i),
        };
        if let Err(e) = self.attrs.end() {
            return self.reject(e, bytes, i);
        }
        if self.attrs_wanted {
            self.attr_wanted = self.attr_start(seg, before, sink);
            if let Some(e) = sink.fault() {
                return self.reject(e, bytes, i);
            }
        }
        i += 1;
        // Usually the quote follows `=` at once.
        if b == b'=' && i < n && (bytes[i] == b'"' || bytes[i] == b'\'') {
            self.quote = bytes[i];
            self.skip_lf = false;
            st = State::AttrValue;
            i += 1;
        }
        (st, i)
    }

    /// The first fault among an attribute name's next bytes `seg` (`avail`
    /// of them fit on the name stack): its index and reason. At one byte
    /// the name stack comes first, then the name's characters, then the
    /// duplicate check's limits ([`AttrSet::limit`]).
    #[inline(always)]
    fn attr_fault(&mut self, seg: &[u8], avail: usize) -> Option<(usize, XmlError)> {
        let mut fault = (seg.len() > avail).then_some((avail, XmlError::NameStackOverflow));
        let fits = seg.len().min(avail);
        for cand in [
            self.name_chars(&seg[..fits])
                .map(|k| (k, XmlError::BadNameChar)),
            self.attrs.limit(seg.len()),
        ]
        .into_iter()
        .flatten()
        {
            if fault.is_none_or(|f| cand.0 < f.0) {
                fault = Some(cand);
            }
        }
        fault
    }

    /// Hand the complete attribute name to the sink: `seg`, after the
    /// `before` bytes of it that earlier chunks left on the name stack.
    #[inline(always)]
    fn attr_start<S: Sink>(&mut self, seg: &[u8], before: usize, sink: &mut S) -> bool {
        if before == 0 {
            return sink.attr_start(seg);
        }
        self.names.extend_from_slice(seg);
        let m = self.names.len().saturating_sub(self.attr_len as usize);
        let w = sink.attr_start(&self.names[m..]);
        self.names.truncate(m);
        w
    }

    /// `AttrAfterName`: whitespace, then `=`.
    #[inline(always)]
    fn attr_after_name(&mut self, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        if b == b'=' {
            (State::AttrEq, i + 1)
        } else if is_ws(b) {
            (State::AttrAfterName, i + 1)
        } else {
            self.reject(XmlError::BadAttribute, bytes, i)
        }
    }

    /// `AttrEq`: whitespace, then the opening quote.
    #[inline(always)]
    fn attr_eq(&mut self, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        if b == b'"' || b == b'\'' {
            self.quote = b;
            self.skip_lf = false;
            (State::AttrValue, i + 1)
        } else if is_ws(b) {
            (State::AttrEq, i + 1)
        } else {
            self.reject(XmlError::BadAttribute, bytes, i)
        }
    }

    /// `AttrValue`: the run of value bytes up to the closing quote, `&` or
    /// `<`, then that byte (and, after the quote, whitespace or `>` when it
    /// follows at once).
    #[inline(always)]
    fn attr_value<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let n = bytes.len();
        let stop = if self.quote == b'"' {
            S_DQ_END
        } else {
            S_SQ_END
        };
        let mut j = i;
        let mut seen = 0u8;
        while j < n {
            let c = SPECIAL[bytes[j] as usize];
            if c & stop != 0 {
                break;
            }
            seen |= c;
            j += 1;
        }
        if j > i && self.attr_wanted {
            self.attr_chars(&bytes[i..j], seen & S_ATTR_WS != 0, sink);
        }
        let mut i = j;
        if i == n {
            return (State::AttrValue, i);
        }
        let b = bytes[i];
        i += 1;
        if b == b'&' {
            self.skip_lf = false;
            self.ref_in_attr = true;
            return (State::RefStart, i);
        }
        if b == b'<' {
            return self.reject(XmlError::BadAttribute, bytes, i - 1);
        }
        // The closing quote.
        if self.attrs_wanted {
            sink.attr_end();
            if let Some(e) = sink.fault() {
                return self.reject(e, bytes, i - 1);
            }
        }
        self.attr_wanted = false;
        self.skip_lf = false;
        // Usually whitespace or `>` follows at once.
        if i < n {
            let c = bytes[i];
            if is_ws(c) {
                return (State::TagSpace, i + 1);
            } else if c == b'>' {
                sink.open();
                if let Some(e) = sink.fault() {
                    return self.reject(e, bytes, i);
                }
                return (State::Text, i + 1);
            }
        }
        (State::AfterAttrValue, i)
    }

    /// `AfterAttrValue`: whitespace, `>` or `/` must follow a value.
    #[inline(always)]
    fn after_attr_value<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        let next = match b {
            b'>' => {
                sink.open();
                if let Some(e) = sink.fault() {
                    return self.reject(e, bytes, i);
                }
                State::Text
            }
            b'/' => State::EmptyTagSlash,
            _ if is_ws(b) => State::TagSpace,
            _ if is_name_start(b) => return self.reject(XmlError::BadAttribute, bytes, i),
            _ => return self.reject(XmlError::UnexpectedByte, bytes, i),
        };
        (next, i + 1)
    }

    // ---- close tags ----

    /// `EndName`: the run of name bytes, compared with the top of the name
    /// stack, then `>` or whitespace.
    #[inline(always)]
    fn end_name<S: Sink>(&mut self, bytes: &[u8], start: usize, sink: &mut S) -> Step {
        let k = self.cmp_pos as usize;
        if k == 0 && !is_name_start(bytes[start]) {
            return self.reject(XmlError::UnexpectedByte, bytes, start);
        }
        let i = scan_name(bytes, start);
        let seg = &bytes[start..i];
        let top = self.top_start();
        let expect = &self.names[(top + k).min(self.names.len())..];
        let len = k + expect.len();
        if !expect.starts_with(seg) {
            let m = seg.iter().zip(expect).take_while(|(a, b)| a == b).count();
            return self.reject(XmlError::MismatchedClose, bytes, start + m);
        }
        let k = k + seg.len();
        self.cmp_pos = k as u32;
        if i == bytes.len() {
            return (State::EndName, i);
        }
        let b = bytes[i];
        if b == b'>' || is_ws(b) {
            if k != len {
                return self.reject(XmlError::MismatchedClose, bytes, i);
            }
        } else {
            return self.reject(XmlError::UnexpectedByte, bytes, i);
        }
        let next = if b == b'>' {
            self.close_element(sink)
        } else {
            State::EndTagSpace
        };
        (next, i + 1)
    }

    /// `EndTagSpace`: whitespace, then `>`.
    #[inline(always)]
    fn end_tag_space<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if b == b'>' {
            (self.close_element(sink), i + 1)
        } else if is_ws(b) {
            (State::EndTagSpace, i + 1)
        } else {
            self.reject(XmlError::UnexpectedByte, bytes, i)
        }
    }

    // ---- comments, CDATA sections ----

    /// `Bang`: the byte after `<!` starts a comment, a CDATA section or a
    /// DOCTYPE.
    #[inline(always)]
    fn bang<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        let next = match b {
            b'-' => {
                self.end_text(sink);
                State::CommentOpen
            }
            b'[' => {
                if self.depth == 0 {
                    return self.reject(XmlError::ContentOutsideRoot, bytes, i);
                }
                State::CdataOpen(0)
            }
            b'D' => {
                if self.depth > 0 || self.root_seen || self.doctype_seen {
                    return self.reject(XmlError::MisplacedDoctype, bytes, i);
                }
                self.doctype_seen = true;
                State::DoctypeOpen(1)
            }
            _ => return self.reject(XmlError::UnexpectedByte, bytes, i),
        };
        (next, i + 1)
    }

    /// The comment states: `<!-` + `-`, the body (scanned to the next `-`),
    /// `-` and `--`.
    #[inline(always)]
    fn comment(&mut self, st: State, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        let next = match st {
            State::CommentOpen => {
                if b != b'-' {
                    return self.reject(XmlError::UnexpectedByte, bytes, i);
                }
                State::CommentBody
            }
            State::CommentBody => {
                return match memchr(b'-', &bytes[i..]) {
                    Some(p) => (State::CommentDash1, i + p + 1),
                    None => (State::CommentBody, bytes.len()),
                };
            }
            State::CommentDash1 => {
                if b == b'-' {
                    State::CommentDash2
                } else {
                    State::CommentBody
                }
            }
            State::CommentDash2 => {
                if b != b'>' {
                    return self.reject(XmlError::DoubleHyphenInComment, bytes, i);
                }
                self.after_markup()
            }
            _ => unreachable!("not a comment state: {st:?}"),
        };
        (next, i + 1)
    }

    /// The CDATA states: the keyword, the body (delivered as character
    /// data up to the next `]`), `]` and `]]`.
    #[inline(always)]
    fn cdata<S: Sink>(&mut self, st: State, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        match st {
            State::CdataOpen(k) => {
                if bytes[i] != CDATA_KW[k as usize] {
                    return self.reject(XmlError::UnexpectedByte, bytes, i);
                }
                if k as usize + 1 == CDATA_KW.len() {
                    self.skip_lf = false;
                    (State::CdataBody, i + 1)
                } else {
                    (State::CdataOpen(k + 1), i + 1)
                }
            }
            State::CdataBody => {
                let rest = &bytes[i..];
                match memchr(b']', rest) {
                    Some(p) => {
                        if p > 0 {
                            self.text_chars(&rest[..p], true, sink);
                        }
                        (State::CdataBracket1, i + p + 1)
                    }
                    None => {
                        self.text_chars(rest, true, sink);
                        (State::CdataBody, bytes.len())
                    }
                }
            }
            State::CdataBracket1 => {
                if bytes[i] == b']' {
                    (State::CdataBracket2, i + 1)
                } else {
                    self.text_chars(b"]", false, sink);
                    (State::CdataBody, i)
                }
            }
            State::CdataBracket2 => match bytes[i] {
                b'>' => {
                    self.skip_lf = false;
                    self.brackets = 0;
                    (State::Text, i + 1)
                }
                b']' => {
                    self.text_chars(b"]", false, sink);
                    (State::CdataBracket2, i + 1)
                }
                _ => {
                    self.text_chars(b"]]", false, sink);
                    (State::CdataBody, i)
                }
            },
            _ => unreachable!("not a CDATA state: {st:?}"),
        }
    }

    // ---- DOCTYPE ----

    /// The DOCTYPE states: the keyword and the whitespace after it, then
    /// the declaration ([`Doctype`]) up to its `>`.
    #[inline(always)]
    fn doctype(&mut self, st: State, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        let next = match st {
            State::DoctypeOpen(k) => {
                if (k as usize) < DOCTYPE_KW.len() {
                    if b != DOCTYPE_KW[k as usize] {
                        return self.reject(XmlError::UnexpectedByte, bytes, i);
                    }
                    State::DoctypeOpen(k + 1)
                } else {
                    if !is_ws(b) {
                        return self.reject(XmlError::UnexpectedByte, bytes, i);
                    }
                    self.dtd = Doctype::in_encoding(self.latin1);
                    State::DoctypeBody
                }
            }
            State::DoctypeBody => match self.dtd.byte(b) {
                Ok(DoctypeStep::More) => State::DoctypeBody,
                Ok(DoctypeStep::Done) => State::Misc,
                Err(e) => return self.reject(e, bytes, i),
            },
            _ => unreachable!("not a DOCTYPE state: {st:?}"),
        };
        (next, i + 1)
    }

    // ---- processing instructions ----

    /// The PI states: the target (its first bytes kept to tell `xml`), the
    /// body (scanned to the next `?`), and `?`.
    #[inline(always)]
    fn pi(&mut self, st: State, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        let next = match st {
            State::PiTargetStart => {
                if !is_name_start(b) {
                    return self.reject(XmlError::UnexpectedByte, bytes, i);
                }
                self.pi_len = 0;
                self.nm.begin();
                return (State::PiTarget, i);
            }
            State::PiTarget => return self.pi_target(bytes, i),
            State::PiBody => {
                return match memchr(b'?', &bytes[i..]) {
                    Some(p) => (State::PiQuestion, i + p + 1),
                    None => (State::PiBody, bytes.len()),
                };
            }
            State::PiTargetQuestion => {
                if b != b'>' {
                    return self.reject(XmlError::UnexpectedByte, bytes, i);
                }
                self.after_markup()
            }
            State::PiQuestion => match b {
                b'>' => self.after_markup(),
                b'?' => State::PiQuestion,
                _ => State::PiBody,
            },
            _ => unreachable!("not a PI state: {st:?}"),
        };
        (next, i + 1)
    }

    /// `PiTarget`: a target byte, or the byte that ends the target (where
    /// an `xml` target not at the very start is rejected).
    #[inline(always)]
    fn pi_target(&mut self, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        if b == b':' && self.config.namespaces {
            return self.reject(XmlError::BadQName, bytes, i);
        }
        if is_name_char(b) {
            if self.nm.byte(b, self.latin1).is_err() {
                return self.reject(XmlError::BadNameChar, bytes, i);
            }
            if (self.pi_len as usize) < self.pi_buf.len() {
                self.pi_buf[self.pi_len as usize] = b;
            }
            self.pi_len = self.pi_len.saturating_add(1).min(4);
            return (State::PiTarget, i + 1);
        }
        let next = match b {
            b'?' => State::PiTargetQuestion,
            _ if is_ws(b) => State::PiBody,
            _ => return self.reject(XmlError::UnexpectedByte, bytes, i),
        };
        if self.pi_len == 3 && self.pi_buf.eq_ignore_ascii_case(b"xml") {
            let first = self.lt_offset == u64::from(self.bom_len);
            if !(first && &self.pi_buf == b"xml") {
                return self.reject(XmlError::MisplacedXmlDecl, bytes, i);
            }
            // The XML declaration: `version` must follow.
            if b == b'?' {
                return self.reject(XmlError::BadXmlDecl, bytes, i);
            }
            self.decl = Decl::new(self.bom_len > 0);
            return (State::XmlDecl, i + 1);
        }
        (next, i + 1)
    }

    /// `XmlDecl`: a byte of the XML declaration ([`Decl`]); its `>` may
    /// change how the next bytes are read (`REREAD`).
    #[inline(never)]
    fn xml_decl(&mut self, bytes: &[u8], i: usize) -> Step {
        match self.decl.byte(bytes[i]) {
            Ok(DeclStep::More) => (State::XmlDecl, i + 1),
            Ok(DeclStep::Done(Encoding::Utf8)) => (State::Misc, i + 1),
            Ok(DeclStep::Done(encoding)) => {
                self.chars.set_encoding(encoding);
                self.latin1 = encoding == Encoding::Latin1;
                self.resume = i + 1;
                (State::Misc, REREAD)
            }
            Err(e) => self.reject(e, bytes, i),
        }
    }

    // ---- references ----

    /// `RefStart`, `RefHash`, `RefHexStart`: the first bytes of a reference.
    #[inline(always)]
    fn ref_start(&mut self, st: State, bytes: &[u8], i: usize) -> Step {
        let b = bytes[i];
        let next = match st {
            State::RefStart => {
                if b == b'#' {
                    State::RefHash
                } else if b.is_ascii_alphabetic() {
                    self.ref_buf[0] = b;
                    self.ref_len = 1;
                    State::RefName
                } else {
                    return self.reject(XmlError::BadReference, bytes, i);
                }
            }
            State::RefHash => {
                if b == b'x' {
                    State::RefHexStart
                } else if b.is_ascii_digit() {
                    self.ref_val = u32::from(b - b'0');
                    State::RefDecimal
                } else {
                    return self.reject(XmlError::BadReference, bytes, i);
                }
            }
            State::RefHexStart => match hex_value(b) {
                Some(v) => {
                    self.ref_val = v;
                    State::RefHex
                }
                None => return self.reject(XmlError::BadReference, bytes, i),
            },
            _ => unreachable!("not a reference start state: {st:?}"),
        };
        (next, i + 1)
    }

    /// `RefName`: a letter of a predefined entity's name, or `;`.
    #[inline(always)]
    fn ref_name<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if b == b';' {
            let out: &[u8] = match &self.ref_buf[..self.ref_len as usize] {
                b"lt" => b"<",
                b"gt" => b">",
                b"amp" => b"&",
                b"apos" => b"'",
                b"quot" => b"\"",
                _ => return self.reject(XmlError::BadReference, bytes, i),
            };
            return (self.decoded(out, sink), i + 1);
        }
        if !b.is_ascii_alphabetic() || self.ref_len as usize == self.ref_buf.len() {
            return self.reject(XmlError::BadReference, bytes, i);
        }
        self.ref_buf[self.ref_len as usize] = b;
        self.ref_len += 1;
        (State::RefName, i + 1)
    }

    /// `RefDecimal`, `RefHex`: a digit of a character reference, or `;`.
    #[inline(always)]
    fn ref_number<S: Sink>(&mut self, st: State, bytes: &[u8], i: usize, sink: &mut S) -> Step {
        let b = bytes[i];
        if b == b';' {
            let Some(c) = xml_char(self.ref_val) else {
                return self.reject(XmlError::BadReference, bytes, i);
            };
            let mut utf8 = [0u8; 4];
            let out = c.encode_utf8(&mut utf8).as_bytes();
            return (self.decoded(out, sink), i + 1);
        }
        let (radix, digit) = if st == State::RefHex {
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
            return self.reject(XmlError::BadReference, bytes, i);
        };
        self.ref_val = self.ref_val * radix + d;
        if self.ref_val > MAX_CODE_POINT {
            return self.reject(XmlError::BadReference, bytes, i);
        }
        (st, i + 1)
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

#[cfg(test)]
mod scan_tests {
    use super::*;

    #[test]
    fn scan_name_agrees_with_the_class_table() {
        for b in 0..=255u8 {
            for pos in 0..40 {
                let mut v = vec![b'a'; 40];
                v[pos] = b;
                let expect = if is_name_char(b) { 40 } else { pos };
                for start in 0..=pos.min(3) {
                    assert_eq!(scan_name(&v, start), expect, "byte {b:#04x} at {pos}");
                }
            }
        }
    }

    #[test]
    fn count_newlines_counts() {
        let v: Vec<u8> = (0..2000u32)
            .map(|k| if k % 7 == 0 { b'\n' } else { b'x' })
            .collect();
        assert_eq!(
            count_newlines(&v),
            v.iter().filter(|&&b| b == b'\n').count() as u64
        );
    }
}
