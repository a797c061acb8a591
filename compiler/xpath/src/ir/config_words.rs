//! A programmable design's configuration as the 64-bit words of its
//! configuration stream (`CONFIG.bin`, little-endian words), and back.
//!
//! The stream is a list of **records**: a header word, then `len` data
//! words. Header: bits 63..56 the kind, 55..32 an index, 31..0 a payload;
//! `len` is part of the payload where a record has data (bits 31..16 of
//! it, at most 65,535 words). Records the hardware does not know (kinds
//! from [`HOST`] up) are skipped by their length: they carry what the
//! host needs to read results (each query's flags, its text).
//!
//! | kind | index | payload | data |
//! |---|---|---|---|
//! | `HEADER` 0x01 | 1 with `--ordered`, else 0 | bits 15..0: format version | 1 word: the shape's signature ([`shape_signature`]) |
//! | `TAGS` 0x0B | the first name's entry (code − 1): the entries so far | len, bits 15..0: names | the names packed as bytes, 8 a word, first byte lowest: per name its length, under namespace-aware names its URI + 1 (0: none), then its bytes; zeros after the last ([`tag_bytes`]) |
//! | `TAGHASH` 0x0C | 0 | len, bits 15..8: slot bits, 7..0: bucket bits | the decoder's perfect hash ([`crate::ir::tag_hash`]): 1 word: the seed; then the buckets' displacements, then the slots' codes, 16 bits each, 4 a word, first lowest |
//! | `URI` 0x03 | URI index | len, bits 15..0: bytes | the URI's bytes |
//! | `COMPARATOR` 0x04 | unit | len, bits 15..12: kind, 11..8: operator, 7..0: name bytes | the attribute name's URI + 1 (a word), its bytes, then the literal: a word with its kind (0 string, 1 number) and length, its bytes or the f64's bits |
//! | `COUNTER` 0x05 | unit | len, bits 15..12: operator | 1 word: the tag code (0: every element), 1 word: the f64 bits of the position, then the guard bits, one per word (bit 63: a counter's) |
//! | `VALUE` 0x09 | comparator | len | the comparator's value test as the hardware runs it ([`value_words`]): a plan word, then the literal's entries, two 32-bit entries a word |
//! | `POSITION` 0x0A | counter | len, bit 0: negate | 1 word: the counter's comparison as a range of counts ([`position_word`]): bits 31..0 the least, 63..32 the most |
//! | `LANES` 0x06 | cluster | len | one word per lane: its bit (bit 63: a counter's) |
//! | `SLOTS` 0x07 | first slot (cluster × size + slot) | len | one [`slot_word`] per slot; a slot word of 0 is off |
//! | `COUNTS` 0x08 | 0: tag entries, 1: clusters | how many are in use (the others never match) | — |
//! | `COMMIT` 0x0F | 0 | bits 15..0: the configuration id | — (takes effect at the next document boundary) |
//! | `QUERY` 0x10 | query id | len | its flags, a word each: cluster << 32 \| slot; then its line and text |
//!
//! `VALUE` and `POSITION` follow their unit's `COMPARATOR` / `COUNTER`
//! record and are derived from it (the host computes what would cost the
//! hardware a float unit: a number literal's rounding bounds, a
//! position's integer range); [`Config::from_words`] skips them.

use super::generic::{
    Bit, ClusterConfig, Config, Counter, FlagRef, Link, Name, Pop, Shape, Slot, Unit,
};
use super::tag_hash::{self, TagHash};
use super::xpath::{Axis, CmpOp, Compare, Namespaces, SiblingOrder, Value};
use crate::emit::values::{Bound, Plan};

pub const HEADER: u8 = 0x01;
pub const TAGS: u8 = 0x0B;
pub const TAGHASH: u8 = 0x0C;
pub const URI: u8 = 0x03;
pub const COMPARATOR: u8 = 0x04;
pub const COUNTER: u8 = 0x05;
pub const LANES: u8 = 0x06;
pub const SLOTS: u8 = 0x07;
pub const COUNTS: u8 = 0x08;
pub const VALUE: u8 = 0x09;
pub const POSITION: u8 = 0x0A;
pub const COMMIT: u8 = 0x0F;
/// The first kind the hardware skips.
pub const HOST: u8 = 0x10;
pub const QUERY: u8 = 0x10;
/// Bumped when the format changes (2: `VALUE` and `POSITION`; 3: the tag
/// names packed in `TAGS` records; 4: `TAGHASH`).
pub const VERSION: u32 = 4;

fn header(kind: u8, index: u32, payload: u32) -> u64 {
    (kind as u64) << 56 | ((index as u64) & 0xFF_FFFF) << 32 | payload as u64
}

/// A record's header word, read back: kind, index, data words, low payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: u8,
    pub index: u32,
    /// The data words that follow it (payload bits 31..16).
    pub len: usize,
    /// Payload bits 15..0.
    pub low: u32,
}

impl Header {
    pub fn read(h: u64) -> Header {
        Header {
            kind: (h >> 56) as u8,
            index: (h >> 32) as u32 & 0xFF_FFFF,
            len: (h as u32 >> 16) as usize,
            low: h as u32 & 0xFFFF,
        }
    }
}

/// The records of a stream, in order: where each begins and its header
/// (a record's data may run past the end of a stream cut short).
pub fn records(words: &[u64]) -> impl Iterator<Item = (usize, Header)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let h = Header::read(*words.get(at)?);
        let start = at;
        at += 1 + h.len;
        Some((start, h))
    })
}

/// The words of `words` after its COMMIT record (host records the loader
/// takes once the commit is active); all of them if it has none.
pub fn words_after_commit(words: &[u64]) -> usize {
    records(words)
        .find(|(_, h)| h.kind == COMMIT)
        .map_or(words.len(), |(at, h)| {
            words.len().saturating_sub(at + 1 + h.len)
        })
}

/// The slot's configuration word: bits 15..0 the tag code (0: `*`); 17..16
/// the link (0: root `/`, 1: root `//`, 2: parent over `/`, 3: over `//`);
/// 23..18 how far back the parent is; 35..24 the open lanes; 47..36 the
/// close lanes; 48 a pop; 49 the pop's axis is `//`; 50 it reports to the
/// parent's pop; 51 a flag; 52 an `--ordered` predecessor, 59..53 its
/// offset (two's complement); 63 the slot is on.
pub fn slot_word(s: &Slot) -> u64 {
    let (link, back) = match s.link {
        Link::Root(Axis::Child) => (0, 0),
        Link::Root(Axis::Descendant) => (1, 0),
        Link::Parent { back, axis } => (if axis == Axis::Child { 2 } else { 3 }, back),
    };
    let mut w = s.tag.unwrap_or(0) as u64 | link << 16 | (back as u64) << 18;
    w |= (s.open_lanes as u64 & 0xFFF) << 24;
    if let Some(p) = s.pop {
        w |= (p.close_lanes as u64 & 0xFFF) << 36 | 1 << 48;
        w |= ((p.axis == Axis::Descendant) as u64) << 49 | (p.to_parent as u64) << 50;
        if let Some(d) = p.prev {
            w |= 1 << 52 | ((d as u64) & 0x7F) << 53;
        }
    }
    w | (s.flag as u64) << 51 | 1 << 63
}

fn slot_of_word(w: u64) -> Slot {
    let field = |lo: u32, bits: u32| (w >> lo) & ((1 << bits) - 1);
    let axis = |b: u64| {
        if b == 1 {
            Axis::Descendant
        } else {
            Axis::Child
        }
    };
    let link = match field(16, 2) {
        0 => Link::Root(Axis::Child),
        1 => Link::Root(Axis::Descendant),
        k => Link::Parent {
            back: field(18, 6) as u32,
            axis: axis(k - 2),
        },
    };
    let tag = field(0, 16) as u32;
    Slot {
        tag: (tag != 0).then_some(tag),
        link,
        open_lanes: field(24, 12) as u32,
        pop: (field(48, 1) == 1).then(|| Pop {
            axis: axis(field(49, 1)),
            close_lanes: field(36, 12) as u32,
            to_parent: field(50, 1) == 1,
            prev: (field(52, 1) == 1).then(|| ((field(53, 7) as i32) << 25) >> 25),
        }),
        flag: field(51, 1) == 1,
    }
}

/// What a chain slot can hold: no pop, a root or the slot just before as
/// parent.
pub fn is_chain_slot(s: &Slot) -> bool {
    s.pop.is_none() && matches!(s.link, Link::Root(_) | Link::Parent { back: 1, .. })
}

/// The sizes a configuration must have been made for: the design checks
/// the header's word against its own.
pub fn shape_signature(s: &Shape) -> u64 {
    let fields = [
        s.columns,
        s.cluster_size,
        s.window,
        s.general,
        s.tags,
        s.tag_bytes,
        s.uris,
        s.uri_bytes,
        s.comparators,
        s.literal_bytes,
        s.counters,
        s.lanes,
        s.max_depth as usize,
        (s.namespaces == Namespaces::Xpath) as usize,
    ];
    // FNV-1a over the fields' bytes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in fields {
        for b in (f as u64).to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

fn bytes_words(bytes: &[u8], out: &mut Vec<u64>) {
    for chunk in bytes.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        out.push(u64::from_le_bytes(w));
    }
}

fn op_code(op: CmpOp) -> u32 {
    op as u32
}

fn op_of(code: u64) -> Option<CmpOp> {
    use CmpOp::*;
    [Eq, Ne, Lt, Le, Gt, Ge].get(code as usize).copied()
}

fn bit_word(b: Bit) -> u64 {
    match b {
        Bit::Comparator(k) => k as u64,
        Bit::Counter(k) => 1 << 63 | k as u64,
    }
}

fn bit_of_word(w: u64) -> Bit {
    if w >> 63 == 1 {
        Bit::Counter(w as u32)
    } else {
        Bit::Comparator(w as u32)
    }
}

/// What a comparator's value test is to the hardware (`mode` in the
/// `VALUE` plan word).
const MODE_FALSE: u64 = 0;
const MODE_TRUE: u64 = 1;
const MODE_STR_EQ: u64 = 2;
const MODE_STR_NE: u64 = 3;
const MODE_NUM: u64 = 4;

/// The literal entries a comparison needs in a comparator's literal
/// memory: a string's bytes, or a number's rounding bounds' digits (the
/// longer integer part, then the longer fraction; both bounds side by
/// side in each entry). At most `Shape::literal_bytes`.
pub fn literal_entries(cmp: &Compare) -> usize {
    match Plan::new(cmp) {
        Plan::Const(_) => 0,
        Plan::Str { lit, .. } => lit.len(),
        Plan::Num(p) => {
            let most = |f: fn(&Bound) -> usize| p.bounds().into_iter().map(f).max().unwrap_or(0);
            most(|b| b.magnitude.int.len()) + most(|b| b.magnitude.frac.len())
        }
    }
}

/// The character that starts at byte `i` of `lit`, if a well-formed
/// UTF-8 sequence starts there: (code point, bytes).
fn char_at(lit: &[u8], i: usize) -> Option<(u32, usize)> {
    (1..=4).find_map(|k| {
        let s = std::str::from_utf8(lit.get(i..i + k)?).ok()?;
        s.chars().next().map(|c| (c as u32, k))
    })
}

/// A comparator's `VALUE` data (`None`: an existence test, always true).
/// The plan word: bits 2..0 the mode (0 never, 1 always, 2 string `=`, 3
/// string `!=`, 4 number), 6..4 the operator (numbers), 8/9/10 the lower
/// bound is there / negative / inside (a value exactly at it rounds to
/// the literal), 11/12/13 the same for the upper bound, 23..16 the
/// string's length or the number's integer entries, 31..24 and 39..32 the
/// lower bound's integer and fraction digits, 47..40 and 55..48 the
/// upper's. Then the entries, entry 2j in bits 31..0 of word j and 2j + 1
/// in 63..32: a string's entry i is its byte i (bits 7..0), whether a
/// well-formed UTF-8 character starts there (8), its length − 1 (10..9)
/// and its code point (31..11); a number's entry i < the integer entries
/// holds integer digit i (most significant first) of the lower bound (bits
/// 3..0) and of the upper (7..4), and entry integer entries + j their
/// fraction digit j. See `emit::values` for the bounds.
pub fn value_words(cmp: Option<&Compare>) -> Vec<u64> {
    let Some(cmp) = cmp else {
        return vec![MODE_TRUE];
    };
    let mut entries: Vec<u32> = Vec::new();
    let plan = match Plan::new(cmp) {
        Plan::Const(v) => {
            if v {
                MODE_TRUE
            } else {
                MODE_FALSE
            }
        }
        Plan::Str { lit, negate } => {
            for i in 0..lit.len() {
                let (ok, len, cp) = char_at(&lit, i).map_or((0, 1, 0), |(c, k)| (1, k, c));
                entries.push(lit[i] as u32 | ok << 8 | (len as u32 - 1) << 9 | cp << 11);
            }
            (if negate { MODE_STR_NE } else { MODE_STR_EQ }) | (lit.len() as u64) << 16
        }
        Plan::Num(p) => {
            let ints = literal_entries(cmp)
                - [&p.lower, &p.upper]
                    .into_iter()
                    .flatten()
                    .map(|b| b.magnitude.frac.len())
                    .max()
                    .unwrap_or(0);
            entries = vec![0; literal_entries(cmp)];
            let mut w = MODE_NUM | (p.op as u64) << 4 | (ints as u64) << 16;
            for (k, b) in [&p.lower, &p.upper].into_iter().enumerate() {
                let Some(b) = b else { continue };
                let m = &b.magnitude;
                w |= (1 | (b.negative as u64) << 1 | (b.inside as u64) << 2) << (8 + 3 * k);
                w |= (m.int.len() as u64) << (24 + 16 * k) | (m.frac.len() as u64) << (32 + 16 * k);
                for (i, &d) in m.int.iter().chain(&m.frac).enumerate() {
                    let at = if i < m.int.len() {
                        i
                    } else {
                        ints + i - m.int.len()
                    };
                    entries[at] |= (d as u32) << (4 * k);
                }
            }
            w
        }
    };
    assert!(
        entries.len() <= 0xFF,
        "a literal of {} entries: configure refuses more than the shape's literal bytes",
        entries.len()
    );
    let mut out = vec![plan];
    out.extend(
        entries
            .chunks(2)
            .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32),
    );
    out
}

/// Most children a positional unit counts (its count saturates here).
pub const POSITION_MAX: u64 = u32::MAX as u64;

/// A counter's `POSITION` record: `count OP value` for the counts 1..=
/// [`POSITION_MAX`] as (negate, the word with the least count in bits
/// 31..0 and the most in 63..32): the bit is `least <= count <= most`,
/// inverted with negate. An empty range (least > most) never holds.
pub fn position_word(op: CmpOp, value: f64) -> (bool, u64) {
    let max = POSITION_MAX as f64;
    let clamp = |x: f64| x.clamp(0.0, max) as u64;
    const EMPTY: (u64, u64) = (1, 0);
    let range = |lo: f64, hi: f64| {
        if value.is_nan() || lo > hi || hi < 0.0 || lo > max {
            EMPTY
        } else {
            (clamp(lo), clamp(hi))
        }
    };
    let (negate, (least, most)) = match op {
        CmpOp::Eq | CmpOp::Ne if value.fract() != 0.0 || value.is_infinite() => {
            (op == CmpOp::Ne, EMPTY)
        }
        CmpOp::Eq | CmpOp::Ne => (op == CmpOp::Ne, range(value, value)),
        CmpOp::Lt => (false, range(0.0, value.ceil() - 1.0)),
        CmpOp::Le => (false, range(0.0, value.floor())),
        CmpOp::Gt => (false, range(value.floor() + 1.0, f64::INFINITY)),
        CmpOp::Ge => (false, range(value.ceil(), f64::INFINITY)),
    };
    (negate, least | most << 32)
}

/// Records written one after another.
struct Writer {
    out: Vec<u64>,
}

/// A tag name as a `TAGS` record packs it: its length, its URI + 1 under
/// namespace-aware names, its bytes.
pub fn tag_bytes(t: &Name, xpath: bool) -> Vec<u8> {
    let mut out = vec![t.local.len() as u8];
    if xpath {
        out.push(t.uri.map_or(0, |u| u as u8 + 1));
    }
    out.extend(&t.local);
    out
}

/// What the decoder hashes of a tag name: its URI + 1 under
/// namespace-aware names, then its bytes ([`tag_bytes`] without the length).
pub fn tag_key(t: &Name, xpath: bool) -> Vec<u8> {
    tag_bytes(t, xpath).split_off(1)
}

/// Words of a `TAGHASH` record's table: 16-bit entries, 4 a word.
pub fn table_words(entries: usize) -> usize {
    entries.div_ceil(4)
}

fn pack16(entries: &[u16], out: &mut Vec<u64>) {
    for c in entries.chunks(4) {
        out.push(c.iter().rev().fold(0, |w, &e| w << 16 | e as u64));
    }
}

fn unpack16(words: &[u64], entries: usize) -> Vec<u16> {
    (0..entries)
        .map(|i| (words[i / 4] >> (16 * (i % 4))) as u16)
        .collect()
}

fn tags_record(w: &mut Writer, first: usize, names: usize, packed: &[u8]) {
    let mut d = Vec::new();
    bytes_words(packed, &mut d);
    w.record(TAGS, first as u32, names as u32, &d);
}

impl Writer {
    fn record(&mut self, kind: u8, index: u32, low: u32, data: &[u64]) {
        assert!(data.len() <= 0xFFFF, "a record of {} words", data.len());
        self.out.push(header(
            kind,
            index,
            (data.len() as u32) << 16 | (low & 0xFFFF),
        ));
        self.out.extend_from_slice(data);
    }
}

fn name_words(n: &Name, out: &mut Vec<u64>) {
    out.push(n.uri.map_or(0, |u| u as u64 + 1));
    bytes_words(&n.local, out);
}

fn compare_words(c: &Compare, out: &mut Vec<u64>) {
    match &c.value {
        Value::Str(s) => {
            out.push(s.len() as u64);
            bytes_words(s, out);
        }
        Value::Num(bits) => {
            out.push(1 << 32);
            out.push(*bits);
        }
    }
}

impl Config {
    /// The configuration stream, ending with `COMMIT` of id `id` (the
    /// status word's bits 31..16 name it), followed by the host's records.
    pub fn words(&self, id: u16) -> Vec<u64> {
        let mut w = Writer { out: Vec::new() };
        let ordered = (self.order == SiblingOrder::Ordered) as u32;
        w.record(HEADER, ordered, VERSION, &[shape_signature(&self.shape)]);
        for (i, u) in self.uris.iter().enumerate() {
            let mut d = Vec::new();
            bytes_words(u, &mut d);
            w.record(URI, i as u32, u.len() as u32, &d);
        }
        let xpath = self.shape.namespaces == Namespaces::Xpath;
        let mut first = 0;
        let mut packed = Vec::new();
        for (i, t) in self.tags.iter().enumerate() {
            let name = tag_bytes(t, xpath);
            if (packed.len() + name.len()).div_ceil(8) > 0xFFFF {
                tags_record(&mut w, first, i - first, &packed);
                (first, packed) = (i, Vec::new());
            }
            packed.extend(name);
        }
        if first < self.tags.len() {
            tags_record(&mut w, first, self.tags.len() - first, &packed);
        }
        let t = &self.tag_hash;
        let mut d = vec![t.seed as u64];
        pack16(&t.displace, &mut d);
        pack16(&t.slots, &mut d);
        w.record(TAGHASH, 0, t.slot_bits << 8 | t.bucket_bits, &d);
        w.record(COUNTS, 0, self.tags.len() as u32, &[]);
        w.record(COUNTS, 1, self.clusters.len() as u32, &[]);
        for (i, u) in self.comparators.iter().enumerate() {
            let mut d = Vec::new();
            let (kind, op, name_len) = match u {
                Unit::AttrExists(n) => {
                    name_words(n, &mut d);
                    (0, 0, n.local.len())
                }
                Unit::AttrCmp(n, c) => {
                    name_words(n, &mut d);
                    compare_words(c, &mut d);
                    (1, op_code(c.op), n.local.len())
                }
                Unit::TextExists => (2, 0, 0),
                Unit::TextCmp(c) => {
                    compare_words(c, &mut d);
                    (3, op_code(c.op), 0)
                }
                Unit::InNamespace(uri) => {
                    d.push(*uri as u64);
                    (4, 0, 0)
                }
            };
            w.record(
                COMPARATOR,
                i as u32,
                kind << 12 | op << 8 | name_len as u32,
                &d,
            );
            let cmp = match u {
                Unit::AttrCmp(_, c) | Unit::TextCmp(c) => Some(c),
                _ => None,
            };
            w.record(VALUE, i as u32, 0, &value_words(cmp));
        }
        for (i, c) in self.counters.iter().enumerate() {
            let mut d = vec![c.test.unwrap_or(0) as u64, c.value.to_bits()];
            d.extend(c.guard.iter().map(|b| bit_word(*b)));
            w.record(COUNTER, i as u32, op_code(c.op) << 12, &d);
            let (negate, range) = position_word(c.op, c.value);
            w.record(POSITION, i as u32, negate as u32, &[range]);
        }
        let size = self.shape.cluster_size as u32;
        for (k, cl) in self.clusters.iter().enumerate() {
            let lanes: Vec<u64> = cl.lanes.iter().map(|b| bit_word(*b)).collect();
            w.record(LANES, k as u32, 0, &lanes);
            let word = |s: &Option<Slot>| s.as_ref().map_or(0, slot_word);
            let mut slots: Vec<u64> = cl.slots.iter().map(word).collect();
            // Slots past the last in use are switched off.
            slots.resize(self.shape.cluster_size, 0);
            for (j, chunk) in slots.chunks(0xFFFF).enumerate() {
                w.record(SLOTS, k as u32 * size + (j * 0xFFFF) as u32, 0, chunk);
            }
        }
        w.record(COMMIT, 0, id as u32, &[]);
        for (q, flags) in self.queries.iter().enumerate() {
            let mut d: Vec<u64> = flags
                .iter()
                .map(|&(c, s)| (c as u64) << 32 | s as u64)
                .collect();
            let (line, text) = &self.texts[q];
            d.push(*line as u64);
            d.push(text.len() as u64);
            bytes_words(text.as_bytes(), &mut d);
            w.record(QUERY, q as u32, flags.len() as u32, &d);
        }
        w.out
    }

    /// A configuration stream read back for the design of `shape`; what
    /// is wrong with it, if anything.
    pub fn from_words(shape: &Shape, words: &[u64]) -> Result<(Config, u16), String> {
        Reader::new(shape, words).read()
    }
}

struct Reader<'a> {
    words: &'a [u64],
    at: usize,
    config: Config,
    tag_hash: Option<TagHash>,
    tag_count: Option<usize>,
}

impl<'a> Reader<'a> {
    fn new(shape: &Shape, words: &'a [u64]) -> Reader<'a> {
        Reader {
            words,
            at: 0,
            config: Config {
                shape: *shape,
                uris: Vec::new(),
                tags: Vec::new(),
                tag_hash: TagHash::default(),
                comparators: Vec::new(),
                counters: Vec::new(),
                order: SiblingOrder::Unordered,
                clusters: vec![ClusterConfig::default(); shape.clusters()],
                queries: Vec::new(),
                texts: Vec::new(),
                copies: 0,
            },
            tag_hash: None,
            tag_count: None,
        }
    }

    fn read(mut self) -> Result<(Config, u16), String> {
        let mut id = None;
        let mut clusters = None;
        let mut seen_header = false;
        while self.at < self.words.len() {
            let Header {
                kind,
                index,
                len,
                low,
            } = Header::read(self.words[self.at]);
            let at = self.at;
            if !seen_header && kind != HEADER {
                return Err(format!(
                    "word {at}: the stream does not begin with a header"
                ));
            }
            let data = self
                .words
                .get(at + 1..at + 1 + len)
                .ok_or_else(|| format!("word {at}: a record of {len} words runs past the end"))?;
            self.at += 1 + len;
            match kind {
                HEADER => {
                    if low != VERSION || data.first() != Some(&shape_signature(&self.config.shape))
                    {
                        return Err("the configuration was made for another design".into());
                    }
                    seen_header = true;
                    if index == 1 {
                        self.config.order = SiblingOrder::Ordered;
                    }
                }
                URI => self.config.uris.push(bytes_of(data, low as usize)),
                TAGS => self.tags(index, low as usize, data)?,
                TAGHASH => self.tag_hash = Some(self.tag_hash_of(low, data)?),
                COUNTS if index == 1 => clusters = Some(low as usize),
                COUNTS if index == 0 => self.tag_count = Some(low as usize),
                COUNTS => {}
                COMPARATOR => self.config.comparators.push(unit_of(low, data)?),
                COUNTER => self.config.counters.push(Counter {
                    test: (data[0] != 0).then_some(data[0] as u32),
                    value: f64::from_bits(data[1]),
                    guard: data[2..].iter().map(|&w| bit_of_word(w)).collect(),
                    op: op_of((low >> 12) as u64).ok_or("a bad operator")?,
                }),
                LANES => {
                    self.cluster(index)?.lanes = data.iter().map(|&w| bit_of_word(w)).collect()
                }
                SLOTS => self.slots(index, data)?,
                // Derived from the unit's record.
                VALUE | POSITION => {}
                COMMIT => id = Some(low as u16),
                QUERY => self.query(low as usize, data)?,
                _ if kind >= HOST => {}
                _ => return Err(format!("word {at}: unknown record kind {kind:#04x}")),
            }
        }
        let id = id.ok_or("the stream has no commit")?;
        let clusters = clusters.ok_or("the stream does not say how many clusters are in use")?;
        if clusters > self.config.clusters.len() {
            return Err(format!(
                "{clusters} clusters in use; the design has {}",
                self.config.clusters.len()
            ));
        }
        self.config.clusters.truncate(clusters);
        self.config.tag_hash = self.tag_hash.ok_or("the stream has no TAGHASH record")?;
        let tags = self.config.tags.len();
        if self.tag_count != Some(tags) {
            return Err(format!(
                "{tags} tag names, but COUNTS says {:?}",
                self.tag_count
            ));
        }
        if let Some(c) = self
            .config
            .tag_hash
            .slots
            .iter()
            .find(|&&c| c as usize > tags)
        {
            return Err(format!(
                "a TAGHASH slot holds code {c}; there are {tags} tag names"
            ));
        }
        Ok((self.config, id))
    }

    /// A `TAGHASH` record: its sizes must fit the design's tables and its
    /// data be exactly the seed and both tables.
    fn tag_hash_of(&self, low: u32, data: &[u64]) -> Result<TagHash, String> {
        let (slot_bits, bucket_bits) = (low >> 8, low & 0xFF);
        let (most, most_buckets) = tag_hash::sizes(self.config.shape.tags);
        if slot_bits == 0 || slot_bits > most || bucket_bits > most_buckets {
            return Err(format!(
                "a TAGHASH of 2^{slot_bits} slots and 2^{bucket_bits} buckets; the design has 2^{most} and 2^{most_buckets}"
            ));
        }
        let (b, m) = (1usize << bucket_bits, 1usize << slot_bits);
        if data.len() != 1 + table_words(b) + table_words(m) {
            return Err(format!("a TAGHASH record of {} words", data.len()));
        }
        let tables = &data[1..];
        Ok(TagHash {
            seed: data[0] as u32,
            slot_bits,
            bucket_bits,
            displace: unpack16(&tables[..table_words(b)], b),
            slots: unpack16(&tables[table_words(b)..], m),
        })
    }

    /// A `TAGS` record of `names` names from entry `first`.
    fn tags(&mut self, first: u32, names: usize, data: &[u64]) -> Result<(), String> {
        if first as usize != self.config.tags.len() {
            return Err(format!(
                "tag names from entry {first} after {} entries",
                self.config.tags.len()
            ));
        }
        let xpath = self.config.shape.namespaces == Namespaces::Xpath;
        let bytes = bytes_of(data, 8 * data.len());
        let mut at = 0;
        let short = || "a short TAGS record".to_string();
        for _ in 0..names {
            let len = *bytes.get(at).ok_or_else(short)? as usize;
            let uri = match xpath {
                true => (*bytes.get(at + 1).ok_or_else(short)? as u32).checked_sub(1),
                false => None,
            };
            let start = at + 1 + xpath as usize;
            let local = bytes.get(start..start + len).ok_or_else(short)?.to_vec();
            if len == 0 || len > self.config.shape.tag_bytes || local.contains(&0) {
                return Err(format!(
                    "a tag name of {len} bytes (1 to {}, none of them 0)",
                    self.config.shape.tag_bytes
                ));
            }
            self.config.tags.push(Name { uri, local });
            at = start + len;
        }
        Ok(())
    }

    fn cluster(&mut self, k: u32) -> Result<&mut ClusterConfig, String> {
        self.config
            .clusters
            .get_mut(k as usize)
            .ok_or_else(|| format!("cluster {k} is past the design's"))
    }

    fn slots(&mut self, first: u32, data: &[u64]) -> Result<(), String> {
        let size = self.config.shape.cluster_size as u32;
        let chain = self.config.shape.chain();
        let (k, s0) = (first / size, first % size);
        let cl = self.cluster(k)?;
        for (j, &w) in data.iter().enumerate() {
            let s = s0 as usize + j;
            if s != cl.slots.len() {
                return Err(format!("cluster {k}: slot {s} is written out of order"));
            }
            if w >> 63 == 0 {
                cl.slots.push(None);
                continue;
            }
            let slot = slot_of_word(w);
            if s < chain && !is_chain_slot(&slot) {
                return Err(format!(
                    "cluster {k}: slot {s} is a chain slot (its parent one slot back, no pop)"
                ));
            }
            cl.slots.push(Some(slot));
        }
        // Slots past the last in use are not part of the configuration.
        while cl.slots.last() == Some(&None) {
            cl.slots.pop();
        }
        Ok(())
    }

    fn query(&mut self, flags: usize, data: &[u64]) -> Result<(), String> {
        let bad = || "a short query record".to_string();
        let refs: Vec<FlagRef> = data
            .get(..flags)
            .ok_or_else(bad)?
            .iter()
            .map(|&w| ((w >> 32) as u32, w as u32))
            .collect();
        let line = *data.get(flags).ok_or_else(bad)? as usize;
        let len = *data.get(flags + 1).ok_or_else(bad)? as usize;
        let text = bytes_of(data.get(flags + 2..).ok_or_else(bad)?, len);
        self.config.queries.push(refs);
        self.config
            .texts
            .push((line, String::from_utf8_lossy(&text).into_owned()));
        Ok(())
    }
}

fn bytes_of(words: &[u64], len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.truncate(len);
    out
}

fn name_of(data: &[u64], len: usize) -> (Name, &[u64]) {
    let nwords = len.div_ceil(8);
    let name = Name {
        uri: (data[0] as u32).checked_sub(1),
        local: bytes_of(&data[1..1 + nwords], len),
    };
    (name, &data[1 + nwords..])
}

fn compare_of(op: CmpOp, data: &[u64]) -> Compare {
    let value = if data[0] >> 32 == 1 {
        Value::Num(data[1])
    } else {
        let len = data[0] as usize;
        Value::Str(bytes_of(&data[1..], len).into())
    };
    Compare { op, value }
}

fn unit_of(low: u32, data: &[u64]) -> Result<Unit, String> {
    let op = op_of((low >> 8 & 0xF) as u64).ok_or("a bad operator")?;
    let name_len = (low & 0xFF) as usize;
    Ok(match low >> 12 {
        0 => Unit::AttrExists(name_of(data, name_len).0),
        1 => {
            let (n, rest) = name_of(data, name_len);
            Unit::AttrCmp(n, compare_of(op, rest))
        }
        2 => Unit::TextExists,
        3 => Unit::TextCmp(compare_of(op, data)),
        4 => Unit::InNamespace(data[0] as u32),
        k => return Err(format!("comparator kind {k}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_words_read_back() {
        let slots = [
            Slot {
                tag: None,
                link: Link::Root(Axis::Descendant),
                open_lanes: 0,
                pop: None,
                flag: true,
            },
            Slot {
                tag: Some(0xFFFF),
                link: Link::Parent {
                    back: 32,
                    axis: Axis::Descendant,
                },
                open_lanes: 0xFFF,
                pop: Some(Pop {
                    axis: Axis::Descendant,
                    close_lanes: 0x801,
                    to_parent: true,
                    prev: Some(-32),
                }),
                flag: false,
            },
            Slot {
                tag: Some(3),
                link: Link::Parent {
                    back: 1,
                    axis: Axis::Child,
                },
                open_lanes: 5,
                pop: Some(Pop {
                    axis: Axis::Child,
                    close_lanes: 0,
                    to_parent: false,
                    prev: Some(31),
                }),
                flag: true,
            },
        ];
        for s in slots {
            let w = slot_word(&s);
            assert_eq!(w >> 63, 1, "an on slot's word has bit 63");
            assert_eq!(slot_of_word(w), s);
        }
    }

    fn config(shape: Shape) -> Config {
        let tag = Name {
            uri: Some(0),
            local: b"a-longer-name".to_vec(),
        };
        let xpath = shape.namespaces == Namespaces::Xpath;
        Config {
            shape,
            uris: vec![b"urn:x".to_vec()],
            tag_hash: TagHash::build(&[tag_key(&tag, xpath)]).expect("a hash"),
            tags: vec![tag],
            comparators: vec![Unit::TextCmp(Compare {
                op: CmpOp::Ge,
                value: Value::num(2.5),
            })],
            counters: vec![],
            order: SiblingOrder::Unordered,
            clusters: vec![ClusterConfig {
                lanes: vec![Bit::Comparator(0)],
                slots: vec![Some(Slot {
                    tag: Some(1),
                    link: Link::Root(Axis::Child),
                    open_lanes: 0,
                    pop: Some(Pop {
                        axis: Axis::Child,
                        close_lanes: 1,
                        to_parent: false,
                        prev: None,
                    }),
                    flag: true,
                })],
            }],
            queries: vec![vec![(0, 0)]],
            texts: vec![(1, "/x:a-longer-name[text() >= 2.5]".into())],
            copies: 0,
        }
    }

    #[test]
    fn bad_streams_are_refused() {
        let shape = Shape {
            general: 64,
            ..Shape::with_columns(64)
        };
        let c = config(shape);
        let words = c.words(3);
        assert_eq!(Config::from_words(&shape, &words), Ok((c.clone(), 3)));
        // A twig slot where the design has a chain slot.
        let chained = Shape {
            general: 16,
            ..shape
        };
        let e = Config::from_words(&chained, &config(chained).words(3)).unwrap_err();
        assert!(e.contains("slot 0 is a chain slot"), "{e}");
        // Names for entries after ones never sent.
        let mut skipped = words.clone();
        let at = skipped
            .iter()
            .position(|w| (w >> 56) as u8 == TAGS)
            .expect("a TAGS record");
        skipped[at] |= 5 << 32;
        let e = Config::from_words(&shape, &skipped).unwrap_err();
        assert!(e.contains("tag names from entry 5 after 0"), "{e}");
        let other = Shape { window: 4, ..shape };
        let e = Config::from_words(&other, &words).unwrap_err();
        assert!(e.contains("another design"), "{e}");
        let e = Config::from_words(&shape, &words[1..]).unwrap_err();
        assert!(e.contains("header"), "{e}");
        let e = Config::from_words(&shape, &words[..words.len() - 1]).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
        let no_commit: Vec<u64> = words
            .iter()
            .copied()
            .filter(|w| (w >> 56) as u8 != COMMIT)
            .collect();
        let e = Config::from_words(&shape, &no_commit).unwrap_err();
        assert!(e.contains("no commit"), "{e}");
    }

    /// The words with the first record of `kind` changed by `edit` (its
    /// header word and data).
    fn edited(words: &[u64], kind: u8, edit: impl Fn(&mut Vec<u64>)) -> Vec<u64> {
        let (at, h) = records(words)
            .find(|(_, h)| h.kind == kind)
            .expect("a record of the kind");
        let end = at + 1 + h.len;
        let mut record = words[at..end].to_vec();
        edit(&mut record);
        [&words[..at], &record[..], &words[end..]].concat()
    }

    #[test]
    fn the_tag_hash_travels_and_bad_ones_are_refused() {
        let shape = Shape {
            general: 64,
            ..Shape::with_columns(64)
        };
        let c = config(shape);
        let words = c.words(1);
        let (back, _) = Config::from_words(&shape, &words).expect("read back");
        assert_eq!(back.tag_hash, c.tag_hash);
        assert_eq!(back.tag_code(&c.tags[0]), 1);
        let refused = |w: Vec<u64>, why: &str| {
            let e = Config::from_words(&shape, &w).unwrap_err();
            assert!(e.contains(why), "{why}: {e}");
        };
        // No TAGHASH record at all.
        let none: Vec<u64> = records(&words)
            .filter(|(_, h)| h.kind != TAGHASH)
            .flat_map(|(at, h)| words[at..at + 1 + h.len].iter().copied())
            .collect();
        refused(none, "no TAGHASH");
        // More slots than the design's table holds (32 tags: 2^6 slots).
        let (most, _) = tag_hash::sizes(shape.tags);
        refused(
            edited(&words, TAGHASH, |r| r[0] += (most as u64 + 1 - 1) << 8),
            "TAGHASH of 2^",
        );
        // A table one word short.
        refused(
            edited(&words, TAGHASH, |r| {
                r.pop();
                r[0] -= 1 << 16;
            }),
            "a TAGHASH record of",
        );
        // A slot holding a code past the names.
        refused(
            edited(&words, TAGHASH, |r| {
                let last = r.last_mut().expect("the slot table");
                *last = *last & !0xFFFF_0000 | 9 << 16;
            }),
            "holds code 9",
        );
        // COUNTS that disagree with the names sent.
        refused(edited(&words, COUNTS, |r| r[0] += 1), "COUNTS says Some(2)");
        // A name with a zero byte, and one longer than the entries.
        let at_name = |r: &mut Vec<u64>| r[1] &= !(0xFF << 16);
        refused(edited(&words, TAGS, at_name), "none of them 0");
        let small = Shape {
            tag_bytes: 8,
            ..shape
        };
        let e = Config::from_words(&small, &config(small).words(1)).unwrap_err();
        assert!(e.contains("a tag name of 13 bytes (1 to 8"), "{e}");
    }

    #[test]
    fn positions_become_ranges_of_counts() {
        let holds = |op: CmpOp, v: f64, count: u64| {
            let (negate, w) = position_word(op, v);
            let (least, most) = (w & 0xFFFF_FFFF, w >> 32);
            (least <= count && count <= most) != negate
        };
        for op in [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ] {
            for v in [
                -1.0,
                0.0,
                0.5,
                1.0,
                2.0,
                2.5,
                3.0,
                1e20,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ] {
                for count in 1..=5u64 {
                    assert_eq!(
                        holds(op, v, count),
                        op.num(count as f64, v),
                        "position {count} {} {v}",
                        op.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn value_plans_hold_the_literal() {
        let cmp = |op, value| Compare { op, value };
        // A string: its bytes, and a character where one starts.
        let w = value_words(Some(&cmp(
            CmpOp::Ne,
            Value::Str(b"a\xc3\xa9".to_vec().into()),
        )));
        assert_eq!(w[0] & 7, MODE_STR_NE);
        assert_eq!(w[0] >> 16 & 0xFF, 3, "three bytes");
        let entry = |i: usize| (w[1 + i / 2] >> (32 * (i % 2))) as u32;
        assert_eq!(entry(0), b'a' as u32 | 1 << 8 | (b'a' as u32) << 11);
        assert_eq!(
            entry(1) & 0x7FF,
            0xc3 | 1 << 8 | 1 << 9,
            "a two-byte character"
        );
        assert_eq!(entry(1) >> 11, 0xe9);
        assert_eq!(entry(2) >> 8 & 1, 0, "no character starts in the middle");
        // A number: 2.5's bounds (`=` needs both), 2.5 -+ 2^-52, one
        // integer digit, 52 fraction digits each.
        let w = value_words(Some(&cmp(CmpOp::Eq, Value::num(2.5))));
        assert_eq!(w[0] & 7, MODE_NUM);
        assert_eq!(w[0] >> 4 & 7, CmpOp::Eq as u64);
        assert_eq!(w[0] >> 8 & 0x3F, 0b101_101, "both there, positive, inside");
        assert_eq!(w[0] >> 16 & 0xFF, 1, "one integer entry");
        assert_eq!((w[0] >> 24 & 0xFF, w[0] >> 32 & 0xFF), (1, 52));
        assert_eq!((w[0] >> 40 & 0xFF, w[0] >> 48 & 0xFF), (1, 52));
        assert_eq!(literal_entries(&cmp(CmpOp::Eq, Value::num(2.5))), 53);
        let gt = value_words(Some(&cmp(CmpOp::Gt, Value::num(2.5))));
        assert_eq!(
            gt[0] >> 8 & 0x3F,
            0b101_000,
            "`>` needs the upper bound only"
        );
        assert_eq!(w[1] & 0xFF, 0x22, "both bounds' integer digit 2");
        assert_eq!(
            w[1] >> 32 & 0xFF,
            0x54,
            "fraction digit 0: 4 below, 5 above"
        );
        // A NaN literal and an existence test need no literal.
        assert_eq!(
            value_words(Some(&cmp(CmpOp::Ne, Value::num(f64::NAN)))),
            [MODE_TRUE]
        );
        assert_eq!(value_words(None), [MODE_TRUE]);
    }
}
