//! `--programmable`: the generic XPath engine's Verilog
//! (`rtl-templates/xpath/generic.v`, around `qrtl_sax`), from its sizes
//! alone: the queries are a configuration (`ir::config_words`) loaded at
//! run time, so one build serves every query set that fits.

use super::sax::{sax_module, SaxParams};
use crate::ir::config_words::shape_signature;
use crate::ir::generic::Shape;
use crate::ir::xpath::Namespaces;
use crate::xml::XmlConfig;
use askama::Template;

/// The modules whose sizes are parameters: emitted as they are.
const GEN_LOADER: &str = include_str!("../../../../rtl-templates/xpath/gen_loader.v");
const GEN_DECODER: &str = include_str!("../../../../rtl-templates/xpath/gen_decoder.v");
const GEN_CLUSTER: &str = include_str!("../../../../rtl-templates/xpath/gen_cluster.v");
const GEN_UNITS: &str = include_str!("../../../../rtl-templates/xpath/gen_units.v");
const GEN_CMP: &str = include_str!("../../../../rtl-templates/xpath/gen_cmp.v");
const GEN_SCAN: &str = include_str!("../../../../rtl-templates/xpath/gen_scan.v");
const GEN_LANES: &str = include_str!("../../../../rtl-templates/xpath/gen_lanes.v");

/// Words per document: the status word and the slots' flag bitmap.
pub fn result_words(shape: &Shape) -> usize {
    1 + shape.columns.div_ceil(32)
}

/// What the generic hardware cannot build yet, for a usage error:
/// namespace-aware names are configured in the model (`refmodel::generic`)
/// but not yet in RTL; sizes the RTL's counters and one-hot links need.
pub fn rtl_refusal(shape: &Shape) -> Option<String> {
    if shape.namespaces == Namespaces::Xpath {
        return Some(
            "the programmable design compares names as raw bytes for now; add --namespaces raw"
                .into(),
        );
    }
    if shape.comparators > 0xFFFF || shape.counters > 0xFFFF {
        return Some(format!(
            "{} comparators and {} counters: at most 65,535 of each",
            shape.comparators, shape.counters
        ));
    }
    if !shape.cluster_size.is_power_of_two() || shape.columns > 1 << 16 {
        return Some(format!(
            "{} columns in clusters of {}: the cluster size must be a power of two and the columns at most 65,536",
            shape.columns, shape.cluster_size
        ));
    }
    None
}

#[derive(Template)]
#[template(path = "generic.v", escape = "none")]
struct GenericTemplate {
    module: String,
    columns: usize,
    clusters: usize,
    cluster_size: usize,
    /// General slots per cluster (the last ones); the others are chain
    /// slots.
    general: usize,
    window: usize,
    tags: usize,
    tag_bytes: usize,
    max_depth: u32,
    lanes: usize,
    bw: u32,
    /// Bits of an `--ordered` predecessor's place (0..=2 * window).
    prev_w: u32,
    swap: usize,
    swap_w: u32,
    /// Condition units: comparators and counters (0 and 0: none built).
    units: bool,
    comparators: usize,
    counters: usize,
    literal_bytes: usize,
    /// Unit bits: comparators, then counters, each at least 1.
    kw: usize,
    pw: usize,
    unit_bits: usize,
    /// Addresses a lane's unit bit.
    sel_w: u32,
    /// Addresses an attribute name's 64-bit words (at least 1).
    naw: u32,
    /// Addresses a literal's 32-bit entries (at least 2).
    law: u32,
    code_w: u32,
    decoder_latency: usize,
    /// Addresses the tag entries (the decoder's name store).
    eaw: u32,
    /// Address the decoder's slot and displacement tables' rows (4 a row).
    trw: u32,
    drw: u32,
    aw_tag: u32,
    /// Addresses the loader's tag queue ([`TAG_QUEUE_WORDS`]).
    tq_aw: u32,
    pos_w: u32,
    sp_w: u32,
    da: u32,
    aw_slot: u32,
    slot_w: u32,
    result_words: usize,
    words_w: u32,
    pad_bits: usize,
    signature: String,
    /// The configuration format's version the loader accepts.
    version: u32,
    name_stack_bytes: u32,
    max_attributes: u32,
    attr_name_bytes: u32,
}

/// Clocks from a commit's start, between documents, until the new
/// configuration is active everywhere and the next document may start: the
/// commit travels along the cluster stages (cluster k at stage k + 2) and
/// each cluster copies its shadow slot words in `cluster_size + window + 1`
/// clocks (gen_cluster.v).
pub fn swap_cycles(shape: &Shape) -> usize {
    shape.clusters() + shape.cluster_size + shape.window + 3
}

/// Bits of configuration a column (slot) holds: its slot word narrowed
/// to the fields this size reads (gen_cluster.v's shadow word `SW`): the
/// tag code, `*`, the link and its distance, two lane masks, five pop bits,
/// the predecessor's place, on.
pub fn shadow_bits(shape: &Shape) -> u32 {
    bits_for(shape.tags)
        + 1
        + 2
        + bits_for(shape.window)
        + 2 * shape.lanes as u32
        + 5
        + bits_for(2 * shape.window)
        + 1
}

/// Clocks from an element name's end to its code (gen_decoder.v's
/// LATENCY; the top delays the parser's events by as much).
pub const DECODER_LATENCY: usize = 8;

/// Words the loader's tag queue holds (gen_loader.v: one block RAM).
pub const TAG_QUEUE_WORDS: usize = 512;

/// Clocks the configuration stream `words` takes to load into the design
/// of `shape` and become active, with `s_cfg` never waiting on its
/// sender: one per word up to the COMMIT record (more while the tag queue
/// is full), the COMMIT waiting for the last tag name's bytes, then
/// [`swap_cycles`] at the document boundary. `TAGS` records (header and
/// data words) go to a queue that gen_loader.v drains beside the stream:
/// per word a clock to read it, then a clock per byte up to the word's
/// end or the 0 after the last name.
pub fn load_cycles(shape: &Shape, words: &[u64]) -> u64 {
    use crate::ir::config_words::{COMMIT, TAGS};
    use std::collections::VecDeque;
    let xpath = shape.namespaces == crate::ir::xpath::Namespaces::Xpath;
    let (mut t, mut drained) = (0u64, 0u64);
    // The clocks at which the queued words still in the queue are read.
    let mut queued: VecDeque<u64> = VecDeque::new();
    let mut left = 0usize; // bytes of the current name still to write
    for (at, h) in crate::ir::config_words::records(words) {
        let (kind, data) = (h.kind, h.len);
        for (k, &w) in words[at..(at + 1 + data).min(words.len())]
            .iter()
            .enumerate()
        {
            t += 1;
            if kind != TAGS {
                continue;
            }
            while queued.front().is_some_and(|&r| r < t) {
                queued.pop_front();
            }
            if queued.len() >= TAG_QUEUE_WORDS {
                t = queued.pop_front().expect("a full queue") + 1;
            }
            let clocks = if k == 0 {
                1
            } else {
                name_byte_clocks(w, &mut left, xpath)
            };
            let read = (t + 1).max(drained + 1);
            drained = read + clocks;
            queued.push_back(read);
        }
        if kind == COMMIT {
            break;
        }
    }
    t.max(drained) + swap_cycles(shape) as u64
}

/// Clocks the loader spends on a `TAGS` data word's bytes: one each, up
/// to the word's end or a 0 where a name's length would be (the padding
/// after the last name). `left`: bytes of a name still to come.
fn name_byte_clocks(w: u64, left: &mut usize, xpath: bool) -> u64 {
    let mut clocks = 0;
    for b in w.to_le_bytes() {
        clocks += 1;
        if *left > 0 {
            *left -= 1;
        } else if b == 0 {
            break;
        } else {
            *left = b as usize + xpath as usize;
        }
    }
    clocks
}

/// Bits that hold the values 0..=n.
fn bits_for(n: usize) -> u32 {
    super::values::bits_for(n) as u32
}

/// The design's Verilog files: `(file name, text)`, the top module first.
/// The caller has checked [`rtl_refusal`].
pub fn generic_files(shape: &Shape, xml: &XmlConfig, module: &str) -> Vec<(String, String)> {
    let words = result_words(shape);
    let (kw, pw) = (shape.comparators.max(1), shape.counters.max(1));
    let (slot_bits, bucket_bits) = crate::ir::tag_hash::sizes(shape.tags);
    let mut top = GenericTemplate {
        module: module.to_string(),
        columns: shape.columns,
        clusters: shape.clusters(),
        cluster_size: shape.cluster_size,
        general: shape.general,
        window: shape.window,
        tags: shape.tags,
        tag_bytes: shape.tag_bytes,
        max_depth: shape.max_depth,
        lanes: shape.lanes,
        bw: bits_for(shape.window),
        prev_w: bits_for(2 * shape.window),
        swap: swap_cycles(shape),
        swap_w: bits_for(swap_cycles(shape)),
        units: shape.comparators + shape.counters > 0,
        comparators: shape.comparators,
        counters: shape.counters,
        literal_bytes: shape.literal_bytes,
        kw,
        pw,
        unit_bits: kw + pw,
        sel_w: bits_for(kw + pw - 1),
        naw: bits_for(shape.tag_bytes.div_ceil(8) - 1).max(1),
        law: bits_for(shape.literal_bytes - 1).max(2),
        code_w: bits_for(shape.tags),
        decoder_latency: DECODER_LATENCY,
        eaw: bits_for(shape.tags.saturating_sub(1)).max(1),
        trw: slot_bits.saturating_sub(2).max(1),
        drw: bucket_bits.saturating_sub(2).max(1),
        aw_tag: bits_for(shape.tag_bytes - 1),
        tq_aw: TAG_QUEUE_WORDS.trailing_zeros(),
        pos_w: bits_for(shape.tag_bytes),
        sp_w: bits_for(shape.max_depth as usize),
        da: bits_for(shape.max_depth as usize - 1),
        aw_slot: bits_for(shape.cluster_size - 1),
        slot_w: bits_for(shape.columns - 1),
        result_words: words,
        words_w: bits_for(words),
        pad_bits: 32 * (words - 1) - shape.columns,
        signature: format!("{:016x}", shape_signature(shape)),
        version: crate::ir::config_words::VERSION,
        name_stack_bytes: xml.name_stack_bytes,
        max_attributes: xml.max_attributes,
        attr_name_bytes: xml.attr_name_bytes,
    }
    .render()
    .expect("the generic.v template renders");
    if !top.ends_with('\n') {
        top.push('\n');
    }
    let sax = sax_module(&SaxParams::from(*xml));
    let fixed = |name: &str, text: &str| (name.to_string(), text.to_string());
    let mut files = vec![
        (format!("{module}.v"), top),
        ("qrtl_sax.v".to_string(), sax),
        fixed("qrtl_gen_loader.v", GEN_LOADER),
        fixed("qrtl_gen_decoder.v", GEN_DECODER),
        fixed("qrtl_gen_cluster.v", GEN_CLUSTER),
    ];
    if shape.comparators + shape.counters > 0 {
        files.push(fixed("qrtl_gen_units.v", GEN_UNITS));
        files.push(fixed("qrtl_gen_cmp.v", GEN_CMP));
        files.push(fixed("qrtl_gen_scan.v", GEN_SCAN));
        files.push(fixed("qrtl_gen_lanes.v", GEN_LANES));
    }
    files
}

/// One document's result as the programmable design reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericDocResult {
    pub status: crate::xml::DocStatus,
    pub reason: Option<crate::xml::XmlError>,
    /// The configuration that answered.
    pub config_id: u16,
    /// The queries of `config` whose flags are all set.
    pub matched: Vec<u32>,
}

/// Decode a document's result words (status word, then the slots' flag
/// bitmap) with the configuration that answered.
pub fn decode_generic_result(
    words: &[u32],
    config: &crate::ir::generic::Config,
) -> Result<GenericDocResult, String> {
    let expect = result_words(&config.shape);
    if words.len() != expect {
        return Err(format!("{} result words, expected {expect}", words.len()));
    }
    let status_word = words[0];
    if status_word >> 7 & 0x1FF != 0 {
        return Err(format!("bad status word {status_word:#x}"));
    }
    let (status, reason) = crate::engine::decode_status(status_word)?;
    let size = config.shape.cluster_size;
    let bit = |(c, s): (u32, u32)| {
        let i = c as usize * size + s as usize;
        words[1 + i / 32] >> (i % 32) & 1 == 1
    };
    let matched = (config.queries.iter().enumerate())
        .filter(|(_, flags)| flags.iter().all(|&f| bit(f)))
        .map(|(q, _)| q as u32)
        .collect();
    Ok(GenericDocResult {
        status,
        reason,
        config_id: (status_word >> 16) as u16,
        matched,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::config_words::{COMMIT, HEADER, QUERY, SLOTS, TAGS};

    fn header(kind: u8, data: u64, low: u64) -> u64 {
        (kind as u64) << 56 | data << 16 | low
    }

    #[test]
    fn load_clocks_count_words_to_the_commit_and_drain_names_beside() {
        let shape = Shape {
            cluster_size: 16,
            window: 4,
            namespaces: crate::ir::xpath::Namespaces::Raw,
            ..Shape::with_columns(32)
        };
        // 2 clusters + 16 slots + window 4 + 3.
        assert_eq!(swap_cycles(&shape), 25);
        // Names of 11 and 2 bytes: [11, 11 bytes, 2, 2 bytes, 0...] is 16
        // bytes, 2 words; the drain reads the header (2 clocks), the first
        // word (1 + 8), the second (1 + 8: 6 bytes and the 0 ending it).
        let name_words = [
            u64::from_le_bytes([11, b'a', b'b', b'c', b'd', b'e', b'f', b'g']),
            u64::from_le_bytes([b'h', b'i', b'j', b'k', 2, b'x', b'y', 0]),
        ];
        let mut words = vec![header(HEADER, 1, 1), 0, header(TAGS, 2, 2)];
        words.extend(name_words);
        let slots = |n: u64| {
            let mut w = vec![header(SLOTS, n, 0)];
            w.extend(std::iter::repeat_n(0, n as usize));
            w
        };
        // Few words after the names: the commit waits for their bytes.
        let mut short = words.clone();
        short.extend(slots(2));
        short.extend([header(COMMIT, 0, 7), header(QUERY, 3, 0), 0, 0, 0]);
        // TAGS header taken at clock 3, read at 4, done at 5; word 1 taken
        // at 4, read at 6, done at 14; word 2 read at 15, done at 23.
        assert_eq!(load_cycles(&shape, &short), 23 + 25);
        // Many: the names are written while the slot words stream.
        let mut long = words;
        long.extend(slots(30));
        long.push(header(COMMIT, 0, 7));
        assert_eq!(load_cycles(&shape, &long), 5 + 31 + 1 + 25);
        let mut left = 0;
        assert_eq!(name_byte_clocks(name_words[0], &mut left, false), 8);
        assert_eq!(left, 4);
        assert_eq!(name_byte_clocks(name_words[1], &mut left, false), 8);
        assert_eq!(left, 0);
    }
}
