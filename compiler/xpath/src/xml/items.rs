//! The item back end of the multi-byte parser (`--bytes-per-clock` B > 1):
//! how a beat of B bytes is cut into *items*, one per clock, and a model of
//! the data path that consumes them.
//!
//! # Why items
//!
//! The front end ([`super::lanes`]) knows, for every byte lane of a beat,
//! the lexer state before it: which tokenizer state consumes the byte. The
//! control of the byte-serial parser is therefore known for all B lanes at
//! once; what still serialises the bytes are the *data registers*: the name
//! stack, the depth counter, the reference being decoded, the comparators
//! fed with values and character data. Most lanes touch none of them in a
//! way that conflicts with their neighbours (whitespace, delimiters,
//! comment bodies, the bytes of one name), so the back end takes a range
//! of lanes of one beat per clock, an **item**, as long as the range needs
//! each data port at most once:
//!
//! - at most one stack event ([`LaneOp::Open`], [`LaneOp::Close`] or
//!   [`LaneOp::Empty`], the `>` of `/>` being one event that opens and
//!   closes): the depth counter and the name stack's top pointer move once;
//! - the bytes of at most one start-tag name, or of at most one end-tag
//!   name, never both: the name stack bank is written at consecutive
//!   addresses for a start name and read at consecutive addresses for an
//!   end name, through one port;
//! - the bytes of at most one attribute name: one name matcher (the
//!   duplicate check, [`super::attrs`], and the clusters' attribute
//!   conditions);
//! - at most one *serial* lane ([`LaneOp::Serial`]): the rare constructs
//!   whose registers are updated byte by byte (the document's first bytes
//!   and BOM, `<!` and `<?`, the `CDATA[` and `DOCTYPE` keywords,
//!   processing instructions (the XML declaration is checked byte by byte,
//!   and the lexer cannot tell it from another PI: a PI takes a clock per
//!   byte), references from the `&` to the `;`, the `]` held back in a
//!   CDATA section) are handled by one copy of the byte-serial logic, fed
//!   the item's single serial lane;
//! - at most one *unit* of a compared attribute value or of character
//!   data, when the design compares them ([`Needs`]): the comparators take
//!   one unit per clock. A unit is what one lane delivers: a literal byte,
//!   a decoded reference (up to four UTF-8 bytes), or in a CDATA section a
//!   byte together with the held-back `]` that turned out not to start
//!   `]]>` (up to three bytes). A LF after a CR counts as a unit although
//!   it delivers nothing (the rule looks at the lexer state and the byte
//!   only).
//!
//! A name that continues from the previous item or beat is still the same
//! name. Items are formed greedily from lane 0 of each
//! beat: a lane joins the current item unless its op conflicts with the
//! ops already there, and then starts the next item. An item never spans
//! two beats, so a beat costs max(1, items) clocks ([`clocks`]).
//!
//! # The data path
//!
//! [`parse`] models the back end. It does not run the tokenizer's state
//! machine: the control of each lane is the lexer state before it
//! ([`Lex`]), and the model keeps only the registers the hardware keeps
//! (depth, root and DOCTYPE flags, the name stack with its start pointers,
//! the end-name compare pointer, the reference decoder, the PI target's
//! first bytes, the `]` count, the CR flag, keyword positions, the sink's
//! answers). Where the lexer merges tokenizer states, registers tell them
//! apart: `Content` is `Text` at depth > 0 and `Misc` at depth 0; the
//! reference sub-states are the decoder's phase; `PiTarget` is
//! `PiTargetStart` while the target is empty; `PiQuestion` is
//! `PiTargetQuestion` when the `?` ended the target; the keyword states
//! count their position.
//!
//! The checks that read the stack (depth, root seen, the name stack's fill
//! and the top name compared with an end name) read the registers as they
//! were at the item's entry, corrected by the item's single name start and
//! single pop: this is what the conflict rules buy, and the tests check
//! that the result is exactly the tokenizer's events, status and reason for
//! every byte stream. The other registers are per-lane look-backs within
//! the item (the compare pointer advances by one per end-name lane, the `]`
//! count and the CR flag look at the previous lanes), which the hardware
//! computes as prefixes over the item's lanes.
//!
//! Error positions are not modelled (the hardware does not report them).

use super::attrs::AttrSet;
use super::chars::{lane_fault, single_byte_fault};
use super::decl::{Decl, DeclStep, Encoding};
use super::doctype::Doctype;
use super::lanes::{name_fault, Lex, Needs};
use super::tokenizer::{is_name_char, is_name_start, is_ws};
use super::{Sink, XmlConfig, XmlError};

/// What the back end's data path is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemRules {
    /// B: the beat width in bytes (0 is taken as 1).
    pub bytes_per_clock: usize,
    /// Which comparisons the design has (values, `text()`).
    pub needs: Needs,
    /// The design reads attribute names (it has attribute conditions).
    pub attr_names: bool,
}

impl ItemRules {
    fn width(&self) -> usize {
        self.bytes_per_clock.max(1)
    }

    fn counts(&self, unit: Unit) -> bool {
        match unit {
            Unit::Value => self.needs.values,
            Unit::Text => self.needs.text,
        }
    }
}

/// Whose comparator a unit feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Value,
    Text,
}

/// What a lane does to the data path, from the lexer state before the byte
/// and the byte (as the tokenizer consumes it; after a document's first
/// error the classification may be meaningless, which is harmless).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneOp {
    /// Nothing the item rules count: whitespace, delimiters, comment and
    /// DOCTYPE bodies, an element's `<` and the `/` of `</`.
    Plain,
    /// The `>` ending a start tag: a push.
    Open,
    /// The `>` ending an end tag: a pop.
    Close,
    /// The `>` of `/>`: push and pop, one stack event.
    Empty,
    /// A byte of a start tag's name, or the whitespace or `/` ending it.
    StartName,
    /// A byte of an end tag's name, or the whitespace ending it.
    EndName,
    /// A byte of an attribute name, or the `=` or whitespace ending it.
    AttrName,
    /// A literal byte of an attribute value or of character data.
    Unit(Unit),
    /// A lane of a rare construct, taken alone by the byte-serial logic
    /// (see the module's rules): the document's first byte and a BOM, the
    /// byte after `<` other than a name or `/`, `<!` up to the keyword's
    /// end, processing instructions (target, body, `?`), references (`&` to `;`, the
    /// `;` delivering a unit), and the bytes after a `]` in a CDATA section
    /// (delivering the held-back `]` with the byte).
    Serial(Option<Unit>),
}

impl LaneOp {
    /// The op of byte `b` consumed in lexer state `state`.
    pub fn of(state: Lex, b: u8) -> LaneOp {
        use LaneOp as O;
        match state {
            Lex::Start | Lex::Bom1 | Lex::Bom2 => O::Serial(None),
            Lex::Lt if is_name_start(b) => O::StartName,
            Lex::Lt if b == b'/' => O::Plain,
            Lex::Lt => O::Serial(None),
            Lex::StartName if b == b'>' => O::Open,
            Lex::StartName => O::StartName,
            Lex::TagSpace | Lex::AfterAttrValue if b == b'>' => O::Open,
            Lex::TagSpace if is_name_start(b) => O::AttrName,
            Lex::AttrName => O::AttrName,
            Lex::EmptyTagSlash if b == b'>' => O::Empty,
            Lex::EndName | Lex::EndTagSpace if b == b'>' => O::Close,
            Lex::EndName => O::EndName,
            Lex::Bang | Lex::CdataOpen => O::Serial(None),
            Lex::DoctypeOpen | Lex::DoctypeBody | Lex::DoctypeDq | Lex::DoctypeSq => {
                O::Serial(None)
            }
            Lex::PiTarget | Lex::PiBody | Lex::PiQuestion => O::Serial(None),
            Lex::Content => Self::content(b),
            Lex::AttrValueDq => Self::value(b, b'"'),
            Lex::AttrValueSq => Self::value(b, b'\''),
            Lex::CdataBody if b != b']' => O::Unit(Unit::Text),
            Lex::CdataBracket1 | Lex::CdataBracket2 => Self::cdata_bracket(state, b),
            Lex::RefText => Self::reference(b, Unit::Text),
            Lex::RefAttrDq | Lex::RefAttrSq => Self::reference(b, Unit::Value),
            _ => O::Plain,
        }
    }

    fn content(b: u8) -> LaneOp {
        match b {
            b'<' => LaneOp::Plain,
            b'&' => LaneOp::Serial(None),
            _ => LaneOp::Unit(Unit::Text),
        }
    }

    fn value(b: u8, quote: u8) -> LaneOp {
        match b {
            b'&' => LaneOp::Serial(None),
            _ if b == quote => LaneOp::Plain,
            _ => LaneOp::Unit(Unit::Value),
        }
    }

    /// After `]` or `]]` in a CDATA section: a byte that delivers the held
    /// `]` (and itself), except the `]` after one `]` and the `>` of `]]>`.
    fn cdata_bracket(state: Lex, b: u8) -> LaneOp {
        let delivers = match state {
            Lex::CdataBracket1 => b != b']',
            _ => b != b'>',
        };
        LaneOp::Serial(delivers.then_some(Unit::Text))
    }

    fn reference(b: u8, unit: Unit) -> LaneOp {
        LaneOp::Serial((b == b';').then_some(unit))
    }

    /// Whether this lane continues the name of the previous lane `prev`
    /// (rather than starting one).
    pub fn continues(self, prev: LaneOp) -> bool {
        use LaneOp as O;
        match self {
            O::StartName | O::EndName | O::AttrName => prev == self,
            _ => false,
        }
    }

    /// The unit this lane delivers to a comparator, if any.
    pub fn unit(self) -> Option<Unit> {
        match self {
            LaneOp::Unit(u) | LaneOp::Serial(Some(u)) => Some(u),
            _ => None,
        }
    }
}

/// A range of lanes `[lo, hi)` of beat `beat` consumed in one clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub beat: usize,
    pub lo: usize,
    pub hi: usize,
}

/// The lexer state before every byte of `doc`, then the state after the
/// last byte.
pub fn lex_states(doc: &[u8]) -> Vec<Lex> {
    let mut out = Vec::with_capacity(doc.len() + 1);
    let mut s = Lex::Start;
    out.push(s);
    for &b in doc {
        s = s.next(b);
        out.push(s);
    }
    out
}

/// The op of every lane of `doc`.
pub fn lane_ops(doc: &[u8]) -> Vec<LaneOp> {
    let lex = lex_states(doc);
    doc.iter()
        .zip(&lex)
        .map(|(&b, &s)| LaneOp::of(s, b))
        .collect()
}

/// The data ports an item has used so far.
#[derive(Clone, Copy, Debug, Default)]
struct Load {
    stack: bool,
    start_name: bool,
    end_name: bool,
    attr_name: bool,
    serial: bool,
    unit: bool,
}

impl Load {
    /// Whether lane op `op` (`cont`: continuing the previous lane's name)
    /// needs a port the item has used.
    fn conflicts(&self, op: LaneOp, cont: bool, rules: &ItemRules) -> bool {
        use LaneOp as O;
        let new = !cont;
        let port = match op {
            O::Plain | O::Unit(_) => false,
            O::Open | O::Close | O::Empty => self.stack,
            O::StartName => self.end_name || (self.start_name && new),
            O::EndName => self.start_name || (self.end_name && new),
            O::AttrName => self.attr_name && new,
            O::Serial(_) => self.serial,
        };
        port || (self.unit && op.unit().is_some_and(|u| rules.counts(u)))
    }

    fn add(&mut self, op: LaneOp, rules: &ItemRules) {
        use LaneOp as O;
        match op {
            O::Plain | O::Unit(_) => {}
            O::Open | O::Close | O::Empty => self.stack = true,
            O::StartName => self.start_name = true,
            O::EndName => self.end_name = true,
            O::AttrName => self.attr_name = true,
            O::Serial(_) => self.serial = true,
        }
        self.unit |= op.unit().is_some_and(|u| rules.counts(u));
    }
}

/// The items of `doc`, beat by beat, lane ranges in order.
pub fn items(doc: &[u8], rules: &ItemRules) -> Vec<Item> {
    let ops = lane_ops(doc);
    let mut out = Vec::new();
    let mut prev = LaneOp::Plain;
    for (beat, lanes) in ops.chunks(rules.width()).enumerate() {
        let mut load = Load::default();
        let mut lo = 0;
        for (lane, &op) in lanes.iter().enumerate() {
            if load.conflicts(op, op.continues(prev), rules) {
                out.push(Item { beat, lo, hi: lane });
                lo = lane;
                load = Load::default();
            }
            load.add(op, rules);
            prev = op;
        }
        out.push(Item {
            beat,
            lo,
            hi: lanes.len(),
        });
    }
    out
}

/// The port bits of one lane, as the item splitter's RTL decodes them
/// (one wire each per lane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortBits {
    /// A stack event (`Open`, `Close`, `Empty`).
    pub stack: bool,
    pub start_name: bool,
    pub end_name: bool,
    /// An attribute-name lane (the duplicate check takes one name).
    pub attr_name: bool,
    pub serial: bool,
    /// A unit the comparators count.
    pub unit: bool,
    /// The lane starts a name rather than continuing the previous lane's.
    pub new_run: bool,
}

impl PortBits {
    /// The bits of lane op `op` after lane op `prev`.
    pub fn of(op: LaneOp, prev: LaneOp, rules: &ItemRules) -> PortBits {
        use LaneOp as O;
        PortBits {
            stack: matches!(op, O::Open | O::Close | O::Empty),
            start_name: op == O::StartName,
            end_name: op == O::EndName,
            attr_name: op == O::AttrName,
            serial: matches!(op, O::Serial(_)),
            unit: op.unit().is_some_and(|u| rules.counts(u)),
            new_run: !op.continues(prev),
        }
    }

    /// Whether this lane conflicts with an item whose earlier lanes have
    /// the bits `or` (the OR of their bits): the splitter's pairwise test,
    /// [`Load::conflicts`] in wires.
    pub fn conflicts(&self, or: &PortBits) -> bool {
        let new = self.new_run;
        (self.stack && or.stack)
            || (self.start_name && (or.end_name || (or.start_name && new)))
            || (self.end_name && (or.start_name || (or.end_name && new)))
            || (self.attr_name && or.attr_name && new)
            || (self.serial && or.serial)
            || (self.unit && or.unit)
    }

    fn or(&self, o: &PortBits) -> PortBits {
        PortBits {
            stack: self.stack || o.stack,
            start_name: self.start_name || o.start_name,
            end_name: self.end_name || o.end_name,
            attr_name: self.attr_name || o.attr_name,
            serial: self.serial || o.serial,
            unit: self.unit || o.unit,
            new_run: false,
        }
    }
}

/// The lanes of one beat that start an item (bit i: lane i), computed as
/// the item splitter's RTL does, without a loop over items: `end[lo]`, the
/// first lane that conflicts with an item starting at `lo` (an OR over the
/// lanes `lo..j` per pair), then the starts as a chain through `end`, lane
/// 0 always starting one. Equal to [`items`]' cut (tested).
pub fn start_mask(bits: &[PortBits]) -> u32 {
    let n = bits.len().min(32);
    let end: Vec<usize> = (0..n)
        .map(|lo| {
            let mut or = PortBits::default();
            (lo..n)
                .find(|&j| {
                    let hit = j > lo && bits[j].conflicts(&or);
                    or = or.or(&bits[j]);
                    hit
                })
                .unwrap_or(n)
        })
        .collect();
    let mut starts = if n > 0 { 1u32 } else { 0 };
    for j in 1..n {
        if (0..j).any(|lo| starts >> lo & 1 == 1 && end[lo] == j) {
            starts |= 1 << j;
        }
    }
    starts
}

/// Clocks the back end takes for `doc`: Σ over beats of max(1, items).
pub fn clocks(doc: &[u8], rules: &ItemRules) -> u64 {
    let items = items(doc, rules);
    let beats = doc.len().div_ceil(rules.width());
    let mut per_beat = vec![0u64; beats];
    for it in &items {
        if let Some(n) = per_beat.get_mut(it.beat) {
            *n += 1;
        }
    }
    per_beat.iter().map(|&n| n.max(1)).sum()
}

/// Parse `doc` as the item back end does, with its items cut by `rules`:
/// the tokenizer's events and first error (without its position).
pub fn parse<S: Sink>(
    doc: &[u8],
    config: XmlConfig,
    rules: &ItemRules,
    sink: &mut S,
) -> Result<(), XmlError> {
    parse_items(doc, config, rules.width(), &items(doc, rules), sink)
}

/// [`parse`] with the items given (beat width `width`): the model is exact
/// only for items that keep the conflict rules.
pub fn parse_items<S: Sink>(
    doc: &[u8],
    config: XmlConfig,
    width: usize,
    items: &[Item],
    sink: &mut S,
) -> Result<(), XmlError> {
    let lex = lex_states(doc);
    let mut backend = Backend::new(config);
    for it in items {
        let start = it.beat.saturating_mul(width.max(1));
        let lo = start.saturating_add(it.lo).min(doc.len());
        let hi = start.saturating_add(it.hi).clamp(lo, doc.len());
        backend.begin_item();
        for i in lo..hi {
            backend.front(doc, &lex, i)?;
            backend.lane(lex[i], doc[i], sink)?;
        }
    }
    backend.finish(lex[doc.len()])
}

/// The events the back end hands the clusters for each item of `doc` (as
/// [`items`] cuts them), one per clock through the event queue: one per
/// lane with an event the clusters read (a start name's byte; an open, a
/// `/>` or a close; with attribute names, an attribute name's byte and a
/// value's start and end; with value comparisons, a value unit; with
/// `text()`, a text unit or a text node's end), one more per `]` a CDATA
/// lane delivers before its own unit, and the document's end (on its last
/// item). Lanes after the document's first error have none.
pub fn events(doc: &[u8], config: XmlConfig, rules: &ItemRules) -> Vec<u64> {
    let items = items(doc, rules);
    let lex = lex_states(doc);
    let width = rules.width();
    let mut backend = Backend::new(config);
    let mut count = LaneEvents::default();
    let mut out = vec![0u64; items.len()];
    'items: for (k, it) in items.iter().enumerate() {
        backend.begin_item();
        for i in it.beat * width + it.lo..it.beat * width + it.hi {
            count.clear();
            let failed = backend.front(doc, &lex, i).is_err()
                || backend.lane(lex[i], doc[i], &mut count).is_err();
            out[k] += count.events(lex[i], doc[i], failed, rules);
            if failed {
                break 'items;
            }
        }
    }
    if let Some(last) = out.last_mut() {
        *last += 1;
    }
    out
}

/// The sink calls of one lane (every attribute and text node wanted).
#[derive(Default)]
struct LaneEvents {
    stack: bool,
    attr_end: bool,
    text_end: bool,
    values: u64,
    texts: u64,
}

impl LaneEvents {
    fn clear(&mut self) {
        *self = LaneEvents::default();
    }

    /// The lane's events in the queue, from its calls and (for the events
    /// the tokenizer reports later, at a name's end) its state and byte.
    fn events(&self, st: Lex, b: u8, failed: bool, rules: &ItemRules) -> u64 {
        let name = !failed
            && ((st == Lex::Lt && is_name_start(b)) || (st == Lex::StartName && is_name_char(b)));
        let attr = !failed
            && rules.attr_names
            && ((st == Lex::TagSpace && is_name_start(b))
                || (st == Lex::AttrName && is_name_char(b))
                || (st == Lex::AttrEq && (b == b'"' || b == b'\'')));
        let needs = rules.needs;
        let any = name
            || attr
            || self.stack
            || (rules.attr_names && self.attr_end)
            || (needs.values && self.values > 0)
            || (needs.text && (self.texts > 0 || self.text_end));
        let held = if needs.text {
            self.texts.saturating_sub(1)
        } else {
            0
        };
        u64::from(any) + held
    }
}

impl Sink for LaneEvents {
    fn start_name(&mut self, _: &[u8], _: u32) -> bool {
        true
    }
    fn attr_start(&mut self, _: &[u8]) -> bool {
        true
    }
    fn attr_value(&mut self, _: &[u8]) {
        self.values += 1;
    }
    fn attr_end(&mut self) {
        self.attr_end = true;
    }
    fn open(&mut self) {
        self.stack = true;
    }
    fn close(&mut self) {
        self.stack = true;
    }
    fn wants_text(&mut self) -> bool {
        true
    }
    fn text(&mut self, _: &[u8]) {
        self.texts += 1;
    }
    fn text_end(&mut self) {
        self.text_end = true;
    }
}

// ---- the data path ----

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const CDATA_KW: &[u8; 6] = b"CDATA[";
const DOCTYPE_KW: &[u8; 7] = b"DOCTYPE";
const MAX_CODE_POINT: u32 = 0x10_FFFF;

/// The reference decoder's phase (the tokenizer's `RefStart` .. `RefHex`,
/// which the lexer merges).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum RefPhase {
    #[default]
    Start,
    Hash,
    HexStart,
    Name,
    Decimal,
    Hex,
}

/// The scalar registers.
#[derive(Clone, Copy, Debug, Default)]
struct Regs {
    depth: u32,
    root_seen: bool,
    doctype_seen: bool,
    /// No byte but a BOM's consumed yet.
    not_started: bool,
    /// The current markup's `<` was the first byte after any BOM.
    lt_first: bool,
    /// Position in `CDATA[` or `DOCTYPE`.
    kw: u8,
    /// End-name bytes matched.
    cmp: u32,
    /// Bytes of the attribute name being read.
    attr_len: u32,
    attrs_wanted: bool,
    attr_wanted: bool,
    in_text: bool,
    text_wanted: bool,
    /// The previous delivered byte was a CR: drop a LF.
    skip_lf: bool,
    /// Trailing `]` in character data (max 2).
    brackets: u8,
    ref_phase: RefPhase,
    ref_buf: [u8; 4],
    ref_len: u8,
    ref_val: u32,
    pi_buf: [u8; 3],
    /// PI target length, saturating at 4.
    pi_len: u8,
    /// The `?` in a PI ended its target (`<?t?`): only `>` may follow.
    pi_target_q: bool,
    /// The document began with a UTF-8 byte order mark.
    bom: bool,
    /// Inside the XML declaration (its PI body and `?`).
    decl: Option<Decl>,
    /// How the bytes are read (the declaration's encoding once read).
    encoding: Encoding,
    /// The DOCTYPE after its keyword (the lexer's body and literal states).
    dtd: Doctype,
}

/// The stack registers at the item's entry.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    depth: u32,
    root_seen: bool,
    names_len: u32,
    /// Start of the top name and of the one below it.
    top: u32,
    parent: u32,
}

/// The item's single stack ops at the lanes before the current one.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    name_start: bool,
    pop: bool,
    /// Name-stack fill right after the pop.
    pop_base: Option<u32>,
    /// Start-name bytes written since the entry (or the pop).
    pushed: u32,
}

struct Backend {
    config: XmlConfig,
    r: Regs,
    entry: Entry,
    seen: Seen,
    /// The name stack bank and the start of each open element's name.
    names: Vec<u8>,
    starts: Vec<u32>,
    /// The attribute name being read (handed to the sink; the hardware
    /// matches it incrementally).
    attr: Vec<u8>,
    /// The lane's name-character fault (`name_fault`), which the name
    /// lanes check after the name stack's capacity.
    name_bad: bool,
    /// The start tag's attribute names (the duplicate check's slots).
    attrs: AttrSet,
}

type Lane = Result<(), XmlError>;

impl Backend {
    fn new(config: XmlConfig) -> Backend {
        Backend {
            config,
            r: Regs {
                not_started: true,
                ..Regs::default()
            },
            entry: Entry::default(),
            seen: Seen::default(),
            names: Vec::new(),
            starts: Vec::new(),
            attr: Vec::new(),
            name_bad: false,
            attrs: AttrSet::new(config),
        }
    }

    /// Latch the stack registers at the start of an item.
    fn begin_item(&mut self) {
        let n = self.starts.len();
        self.entry = Entry {
            depth: self.r.depth,
            root_seen: self.r.root_seen,
            names_len: self.names.len() as u32,
            top: n.checked_sub(1).map_or(0, |k| self.starts[k]),
            parent: n.checked_sub(2).map_or(0, |k| self.starts[k]),
        };
        self.seen = Seen::default();
    }

    // ---- stack reads: entry registers and the item's single ops ----

    fn depth(&self) -> u32 {
        (self.entry.depth + u32::from(self.seen.name_start))
            .saturating_sub(u32::from(self.seen.pop))
    }

    fn root_seen(&self) -> bool {
        self.entry.root_seen || self.seen.name_start
    }

    fn names_len(&self) -> u32 {
        self.seen.pop_base.unwrap_or(self.entry.names_len) + self.seen.pushed
    }

    /// The name an end name is compared with.
    fn top_name(&self) -> (usize, usize) {
        let e = &self.entry;
        if self.seen.pop {
            (e.parent as usize, e.top as usize)
        } else {
            (e.top as usize, e.names_len as usize)
        }
    }

    // ---- lanes ----

    /// One lane: byte `b` consumed in lexer state `st`.
    fn lane<S: Sink>(&mut self, st: Lex, b: u8, sink: &mut S) -> Lane {
        let bom = matches!(st, Lex::Bom1 | Lex::Bom2) || (st == Lex::Start && b == BOM[0]);
        let out = self.dispatch(st, b, sink);
        self.r.not_started &= bom;
        self.r.bom |= st == Lex::Bom2;
        out
    }

    fn dispatch<S: Sink>(&mut self, st: Lex, b: u8, sink: &mut S) -> Lane {
        match st {
            Lex::Start if b == BOM[0] => Ok(()),
            Lex::Start => self.misc(b),
            Lex::Bom1 => expect(b == BOM[1], XmlError::ContentOutsideRoot),
            Lex::Bom2 => expect(b == BOM[2], XmlError::ContentOutsideRoot),
            Lex::Content if self.depth() == 0 => self.misc(b),
            Lex::Content => self.text(b, sink),
            Lex::Lt => self.markup_start(b, sink),
            Lex::StartName => self.start_name(b, sink),
            Lex::TagSpace => self.tag_space(b, sink),
            Lex::AttrName => self.attr_name(b, sink),
            Lex::AttrAfterName => expect(b == b'=' || is_ws(b), XmlError::BadAttribute),
            Lex::AttrEq => self.attr_eq(b),
            Lex::AttrValueDq => self.attr_value(b, b'"', sink),
            Lex::AttrValueSq => self.attr_value(b, b'\'', sink),
            Lex::AfterAttrValue => self.after_attr_value(b, sink),
            Lex::EmptyTagSlash => self.empty_tag_slash(b, sink),
            Lex::EndName => self.end_name(b, sink),
            Lex::EndTagSpace => self.end_tag_space(b, sink),
            Lex::Bang => self.bang(b, sink),
            Lex::CommentOpen => expect(b == b'-', XmlError::UnexpectedByte),
            Lex::CommentBody | Lex::CommentDash1 => Ok(()),
            Lex::CommentDash2 => expect(b == b'>', XmlError::DoubleHyphenInComment),
            Lex::CdataOpen => self.cdata_open(b),
            Lex::CdataBody | Lex::CdataBracket1 | Lex::CdataBracket2 => {
                self.cdata(st, b, sink);
                Ok(())
            }
            Lex::DoctypeOpen => self.doctype_open(b),
            Lex::DoctypeBody | Lex::DoctypeDq | Lex::DoctypeSq => {
                self.r.dtd.byte(b)?;
                Ok(())
            }
            Lex::PiTarget => self.pi_target(b),
            Lex::PiBody | Lex::PiQuestion if self.r.decl.is_some() => self.xml_decl(b),
            Lex::PiBody => {
                self.r.pi_target_q = false;
                Ok(())
            }
            Lex::PiQuestion => expect(!self.r.pi_target_q || b == b'>', XmlError::UnexpectedByte),
            Lex::RefText => self.reference(b, false, sink),
            Lex::RefAttrDq | Lex::RefAttrSq => self.reference(b, true, sink),
        }
    }

    /// `Misc`: whitespace or `<` outside the root element.
    fn misc(&mut self, b: u8) -> Lane {
        if b == b'<' {
            self.r.lt_first = self.r.not_started;
            return Ok(());
        }
        expect(is_ws(b), XmlError::ContentOutsideRoot)
    }

    /// `Text`: character data, `<`, `&`, and the `>` of `]]>`.
    fn text<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        match b {
            b'<' | b'&' => {
                self.r.brackets = 0;
                self.r.skip_lf = false;
                self.r.lt_first = false;
                self.r.ref_phase = RefPhase::Start;
            }
            b'>' if self.r.brackets >= 2 => return Err(XmlError::CdataEndInText),
            _ => {
                self.r.brackets = if b == b']' {
                    (self.r.brackets + 1).min(2)
                } else {
                    0
                };
                self.text_byte(b, sink);
            }
        }
        Ok(())
    }

    fn begin_text<S: Sink>(&mut self, sink: &mut S) {
        if !self.r.in_text {
            self.r.in_text = true;
            self.r.skip_lf = false;
            self.r.text_wanted = sink.wants_text();
        }
    }

    fn end_text<S: Sink>(&mut self, sink: &mut S) {
        if self.r.in_text {
            self.r.in_text = false;
            if self.r.text_wanted {
                sink.text_end();
            }
        }
    }

    /// A literal byte of character data, CR and CR LF delivered as LF.
    fn text_byte<S: Sink>(&mut self, b: u8, sink: &mut S) {
        self.begin_text(sink);
        if !self.r.text_wanted {
            return;
        }
        let drop = self.r.skip_lf && b == b'\n';
        self.r.skip_lf = b == b'\r';
        if !drop {
            sink.text(if b == b'\r' {
                b"\n"
            } else {
                std::slice::from_ref(&b)
            });
        }
    }

    // ---- tags ----

    /// `Lt`: the byte after `<`.
    fn markup_start<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        if is_name_start(b) {
            self.end_text(sink);
            let depth = self.depth();
            if depth == 0 && self.root_seen() {
                return Err(XmlError::MultipleRoots);
            }
            if depth >= self.config.max_depth {
                return Err(XmlError::TooDeep);
            }
            self.seen.name_start = true;
            self.attrs.clear();
            self.starts.push(self.names.len() as u32);
            self.r.depth += 1;
            self.r.root_seen = true;
            return self.start_name_byte(b);
        }
        match b {
            b'/' if self.depth() == 0 => return Err(XmlError::CloseWithoutOpen),
            b'/' => self.r.cmp = 0,
            b'?' => self.r.pi_len = 0,
            b'!' => return Ok(()),
            _ => return Err(XmlError::UnexpectedByte),
        }
        self.end_text(sink);
        Ok(())
    }

    /// A start-tag name byte onto the name stack.
    fn start_name_byte(&mut self, b: u8) -> Lane {
        if self.names_len() >= self.config.name_stack_bytes {
            return Err(XmlError::NameStackOverflow);
        }
        expect(!self.name_bad, XmlError::BadNameChar)?;
        self.seen.pushed += 1;
        self.names.push(b);
        Ok(())
    }

    /// `StartName`: a name byte or the byte ending the name.
    fn start_name<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        if is_name_char(b) {
            return self.start_name_byte(b);
        }
        if !(b == b'>' || b == b'/' || is_ws(b)) {
            return Err(XmlError::UnexpectedByte);
        }
        let top = self.starts.last().map_or(0, |&s| s as usize);
        let name = self.names.get(top..).unwrap_or_default();
        self.r.attrs_wanted = sink.start_name(name, self.r.depth);
        self.r.attr_wanted = false;
        if b == b'>' {
            sink.open();
        }
        Ok(())
    }

    /// `TagSpace`: whitespace, an attribute name's first byte, `>` or `/`.
    fn tag_space<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        if is_name_start(b) {
            self.r.attr_len = 0;
            self.attr.clear();
            return self.attr_byte(b);
        }
        match b {
            b'>' => sink.open(),
            b'/' => {}
            _ => return expect(is_ws(b), XmlError::UnexpectedByte),
        }
        Ok(())
    }

    /// An attribute-name byte (it counts against the name stack).
    fn attr_byte(&mut self, b: u8) -> Lane {
        let used = u64::from(self.names_len()) + u64::from(self.r.attr_len);
        if used >= u64::from(self.config.name_stack_bytes) {
            return Err(XmlError::NameStackOverflow);
        }
        expect(!self.name_bad, XmlError::BadNameChar)?;
        if let Some((_, e)) = self.attrs.limit(1) {
            return Err(e);
        }
        self.attrs.extend(&[b]);
        self.r.attr_len += 1;
        self.attr.push(b);
        Ok(())
    }

    /// `AttrName`: a name byte, `=` or whitespace.
    fn attr_name<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        if is_name_char(b) {
            return self.attr_byte(b);
        }
        if !(b == b'=' || is_ws(b)) {
            return Err(XmlError::BadAttribute);
        }
        self.attrs.end()?;
        if self.r.attrs_wanted {
            self.r.attr_wanted = sink.attr_start(&self.attr);
        }
        Ok(())
    }

    /// `AttrEq`: whitespace or the opening quote.
    fn attr_eq(&mut self, b: u8) -> Lane {
        if b == b'"' || b == b'\'' {
            self.r.skip_lf = false;
            return Ok(());
        }
        expect(is_ws(b), XmlError::BadAttribute)
    }

    /// `AttrValue`: a value byte (tab, LF, CR, CR LF as one space), `&`,
    /// or the closing quote.
    fn attr_value<S: Sink>(&mut self, b: u8, quote: u8, sink: &mut S) -> Lane {
        if b == quote {
            if self.r.attrs_wanted {
                sink.attr_end();
            }
            self.r.attr_wanted = false;
            self.r.skip_lf = false;
            return Ok(());
        }
        match b {
            b'&' => {
                self.r.skip_lf = false;
                self.r.ref_phase = RefPhase::Start;
            }
            b'<' => return Err(XmlError::BadAttribute),
            _ if self.r.attr_wanted => {
                let drop = self.r.skip_lf && b == b'\n';
                self.r.skip_lf = b == b'\r';
                if !drop {
                    let ws = matches!(b, b'\t' | b'\n' | b'\r');
                    sink.attr_value(if ws { b" " } else { std::slice::from_ref(&b) });
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `AfterAttrValue`: `>`, `/` or whitespace.
    fn after_attr_value<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        match b {
            b'>' => sink.open(),
            b'/' => {}
            _ if is_ws(b) => {}
            _ if is_name_start(b) => return Err(XmlError::BadAttribute),
            _ => return Err(XmlError::UnexpectedByte),
        }
        Ok(())
    }

    /// `EmptyTagSlash`: the `>` of `/>`.
    fn empty_tag_slash<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        expect(b == b'>', XmlError::UnexpectedByte)?;
        sink.open();
        self.close_element(sink);
        Ok(())
    }

    /// The pop: the top element closes.
    fn close_element<S: Sink>(&mut self, sink: &mut S) {
        sink.close();
        let base = if self.seen.name_start {
            self.entry.names_len
        } else {
            self.entry.top
        };
        self.seen.pop = true;
        self.seen.pop_base = Some(base);
        self.seen.pushed = 0;
        let top = self.starts.pop().unwrap_or(0);
        self.names.truncate(top as usize);
        self.r.depth = self.r.depth.saturating_sub(1);
    }

    /// `EndName`: a name byte compared with the top name, `>` or whitespace.
    fn end_name<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        let k = self.r.cmp as usize;
        if k == 0 && !is_name_start(b) {
            return Err(XmlError::UnexpectedByte);
        }
        let (lo, hi) = self.top_name();
        if is_name_char(b) {
            let at = lo + k;
            expect(
                at < hi && self.names.get(at) == Some(&b),
                XmlError::MismatchedClose,
            )?;
            self.r.cmp += 1;
            return Ok(());
        }
        if !(b == b'>' || is_ws(b)) {
            return Err(XmlError::UnexpectedByte);
        }
        expect(lo + k == hi, XmlError::MismatchedClose)?;
        if b == b'>' {
            self.close_element(sink);
        }
        Ok(())
    }

    /// `EndTagSpace`: whitespace, then `>`.
    fn end_tag_space<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        if b == b'>' {
            self.close_element(sink);
            return Ok(());
        }
        expect(is_ws(b), XmlError::UnexpectedByte)
    }

    // ---- comments, CDATA, DOCTYPE, PIs ----

    /// `Bang`: the byte after `<!`.
    fn bang<S: Sink>(&mut self, b: u8, sink: &mut S) -> Lane {
        match b {
            b'-' => self.end_text(sink),
            b'[' if self.depth() == 0 => return Err(XmlError::ContentOutsideRoot),
            b'[' => self.r.kw = 0,
            b'D' => {
                if self.depth() > 0 || self.root_seen() || self.r.doctype_seen {
                    return Err(XmlError::MisplacedDoctype);
                }
                self.r.doctype_seen = true;
                self.r.kw = 1;
            }
            _ => return Err(XmlError::UnexpectedByte),
        }
        Ok(())
    }

    fn cdata_open(&mut self, b: u8) -> Lane {
        expect(
            CDATA_KW.get(usize::from(self.r.kw)) == Some(&b),
            XmlError::UnexpectedByte,
        )?;
        self.r.kw += 1;
        if usize::from(self.r.kw) == CDATA_KW.len() {
            self.r.skip_lf = false;
        }
        Ok(())
    }

    /// CDATA body, `]` and `]]`: `]` are held back until they turn out not
    /// to end the section.
    fn cdata<S: Sink>(&mut self, st: Lex, b: u8, sink: &mut S) {
        let held = match (st, b) {
            (_, b']') if st != Lex::CdataBracket2 => return,
            (Lex::CdataBracket2, b'>') => {
                self.r.skip_lf = false;
                self.r.brackets = 0;
                return;
            }
            (Lex::CdataBracket2, b']') => {
                self.text_byte(b']', sink);
                return;
            }
            (Lex::CdataBody, _) => 0,
            (Lex::CdataBracket1, _) => 1,
            _ => 2,
        };
        for _ in 0..held {
            self.text_byte(b']', sink);
        }
        self.text_byte(b, sink);
    }

    fn doctype_open(&mut self, b: u8) -> Lane {
        let k = usize::from(self.r.kw);
        match DOCTYPE_KW.get(k) {
            Some(&c) => {
                expect(b == c, XmlError::UnexpectedByte)?;
                self.r.kw += 1;
                Ok(())
            }
            None => {
                expect(is_ws(b), XmlError::UnexpectedByte)?;
                self.r.dtd = Doctype::in_encoding(self.r.encoding == Encoding::Latin1);
                Ok(())
            }
        }
    }

    /// `PiTarget` (`PiTargetStart` while empty): a target byte, or the `?`
    /// or whitespace ending it, where `xml` not at the start is rejected.
    fn pi_target(&mut self, b: u8) -> Lane {
        if self.r.pi_len == 0 && !is_name_start(b) {
            return Err(XmlError::UnexpectedByte);
        }
        if is_name_char(b) {
            expect(!self.name_bad, XmlError::BadNameChar)?;
            if let Some(slot) = self.r.pi_buf.get_mut(usize::from(self.r.pi_len)) {
                *slot = b;
            }
            self.r.pi_len = (self.r.pi_len + 1).min(4);
            return Ok(());
        }
        if !(b == b'?' || is_ws(b)) {
            return Err(XmlError::UnexpectedByte);
        }
        self.r.pi_target_q = b == b'?';
        let buf = &self.r.pi_buf;
        if self.r.pi_len == 3 && buf.eq_ignore_ascii_case(b"xml") {
            expect(self.r.lt_first && buf == b"xml", XmlError::MisplacedXmlDecl)?;
            // The XML declaration: `version` must follow.
            expect(b != b'?', XmlError::BadXmlDecl)?;
            self.r.decl = Some(Decl::new(self.r.bom));
        }
        Ok(())
    }

    /// A byte of the XML declaration (the lexer's PI body and `?`).
    fn xml_decl(&mut self, b: u8) -> Lane {
        let Some(decl) = self.r.decl.as_mut() else {
            return Ok(());
        };
        if let DeclStep::Done(encoding) = decl.byte(b)? {
            self.r.decl = None;
            self.r.encoding = encoding;
        }
        Ok(())
    }

    /// The front end's flags of byte `doc[i]`: its character fault (the
    /// lane fails), and its name-character fault (kept for the name lanes).
    fn front(&mut self, doc: &[u8], lex: &[Lex], i: usize) -> Lane {
        self.char_fault(doc, i)?;
        self.name_bad = name_fault(doc, lex, i, self.r.encoding == Encoding::Latin1);
        Ok(())
    }

    /// The character check of byte `doc[i]` (`chars`): the look-back form
    /// on UTF-8, the single-byte rule after a declaration naming another
    /// encoding. The front end computes the former for every lane, the
    /// back end chooses.
    fn char_fault(&self, doc: &[u8], i: usize) -> Lane {
        let fault = match self.r.encoding {
            Encoding::Utf8 => {
                let back = |k: usize| i.checked_sub(k).map(|j| doc[j]);
                lane_fault(i as u64, back(3), back(2), back(1), doc[i])
            }
            encoding => single_byte_fault(encoding, doc[i]),
        };
        fault.map_or(Ok(()), Err)
    }

    // ---- references ----

    /// A reference byte after `&` (`in_attr`: in an attribute value).
    fn reference<S: Sink>(&mut self, b: u8, in_attr: bool, sink: &mut S) -> Lane {
        let r = &mut self.r;
        let phase = match (r.ref_phase, b) {
            (RefPhase::Start, b'#') => RefPhase::Hash,
            (RefPhase::Start, _) if b.is_ascii_alphabetic() => {
                r.ref_buf[0] = b;
                r.ref_len = 1;
                RefPhase::Name
            }
            (RefPhase::Hash, b'x') => RefPhase::HexStart,
            (RefPhase::Hash | RefPhase::HexStart, _) => {
                let hex = r.ref_phase == RefPhase::HexStart;
                r.ref_val = digit(b, hex).ok_or(XmlError::BadReference)?;
                if hex {
                    RefPhase::Hex
                } else {
                    RefPhase::Decimal
                }
            }
            (RefPhase::Name, b';') => return self.entity(in_attr, sink),
            (RefPhase::Name, _) => {
                let len = usize::from(r.ref_len);
                let slot = r.ref_buf.get_mut(len).ok_or(XmlError::BadReference)?;
                expect(b.is_ascii_alphabetic(), XmlError::BadReference)?;
                *slot = b;
                r.ref_len += 1;
                RefPhase::Name
            }
            (RefPhase::Decimal | RefPhase::Hex, b';') => return self.char_ref(in_attr, sink),
            (RefPhase::Decimal | RefPhase::Hex, _) => {
                let hex = r.ref_phase == RefPhase::Hex;
                let d = digit(b, hex).ok_or(XmlError::BadReference)?;
                r.ref_val = r.ref_val * if hex { 16 } else { 10 } + d;
                expect(r.ref_val <= MAX_CODE_POINT, XmlError::BadReference)?;
                r.ref_phase
            }
            _ => return Err(XmlError::BadReference),
        };
        self.r.ref_phase = phase;
        Ok(())
    }

    /// The `;` of a predefined entity.
    fn entity<S: Sink>(&mut self, in_attr: bool, sink: &mut S) -> Lane {
        let out: &[u8] = match &self.r.ref_buf[..usize::from(self.r.ref_len).min(4)] {
            b"lt" => b"<",
            b"gt" => b">",
            b"amp" => b"&",
            b"apos" => b"'",
            b"quot" => b"\"",
            _ => return Err(XmlError::BadReference),
        };
        self.decoded(out, in_attr, sink);
        Ok(())
    }

    /// The `;` of a character reference.
    fn char_ref<S: Sink>(&mut self, in_attr: bool, sink: &mut S) -> Lane {
        let v = self.r.ref_val;
        let ok =
            matches!(v, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x1_0000..=0x10_FFFF);
        let c = char::from_u32(v)
            .filter(|_| ok)
            .ok_or(XmlError::BadReference)?;
        let mut utf8 = [0u8; 4];
        self.decoded(c.encode_utf8(&mut utf8).as_bytes(), in_attr, sink);
        Ok(())
    }

    /// A decoded reference: one unit of the value or of character data.
    fn decoded<S: Sink>(&mut self, out: &[u8], in_attr: bool, sink: &mut S) {
        self.r.skip_lf = false;
        if in_attr {
            if self.r.attr_wanted {
                sink.attr_value(out);
            }
        } else {
            self.begin_text(sink);
            if self.r.text_wanted {
                sink.text(out);
            }
            self.r.brackets = 0;
        }
    }

    /// End of the document, in lexer state `st`.
    fn finish(&self, st: Lex) -> Result<(), XmlError> {
        match st {
            Lex::Start => Err(XmlError::NoRootElement),
            Lex::Content if self.r.depth > 0 => Err(XmlError::UnclosedElement),
            Lex::Content if self.r.root_seen => Ok(()),
            Lex::Content => Err(XmlError::NoRootElement),
            _ => Err(XmlError::UnterminatedMarkup),
        }
    }
}

fn expect(ok: bool, error: XmlError) -> Lane {
    if ok {
        Ok(())
    } else {
        Err(error)
    }
}

/// A decimal or (`hex`) hexadecimal digit's value.
fn digit(b: u8, hex: bool) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' if hex => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' if hex => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
