//! The tag and attribute name decoders: a trie over the names, one
//! flip-flop per trie node, matched byte by byte (ch. 2.5.1's tag decoder
//! as an incremental matcher), with a line per name and per character.

use super::comment::comment_text;
use std::collections::BTreeMap;

/// A trie over byte strings.
struct Trie {
    /// (parent, byte, prefix)
    nodes: Vec<(Option<usize>, u8, Vec<u8>)>,
    /// Node of each word's last byte.
    ends: Vec<usize>,
}

impl Trie {
    fn build(words: &[&[u8]]) -> Trie {
        let mut nodes: Vec<(Option<usize>, u8, Vec<u8>)> = Vec::new();
        let mut index: BTreeMap<(Option<usize>, u8), usize> = BTreeMap::new();
        let mut ends = Vec::new();
        for w in words {
            let mut at = None;
            for (i, &b) in w.iter().enumerate() {
                let next = *index.entry((at, b)).or_insert_with(|| {
                    nodes.push((at, b, w[..=i].to_vec()));
                    nodes.len() - 1
                });
                at = Some(next);
            }
            ends.push(at.expect("names are non-empty"));
        }
        Trie { nodes, ends }
    }
}

/// One flip-flop of a decoder's trie.
pub(super) struct TrieBit {
    /// Index in the trie vector.
    pub idx: usize,
    /// Character line name.
    pub ch: String,
    /// Parent bit, or None at depth 1.
    pub parent: Option<usize>,
    /// The prefix this bit stands for (comment).
    pub prefix: String,
}

/// A decoded name's line: the trie bit of its last byte.
pub(super) struct Line {
    pub name: String,
    pub bit: usize,
    pub comment: String,
    /// With namespace-aware names: the line the name's namespace is
    /// tested on (ANDed in).
    pub ns: Option<String>,
}

/// A character line: the stream's byte equals `byte`.
pub(super) struct CharLine {
    pub name: String,
    pub byte: u8,
}

/// A name decoder for the cluster template.
pub(super) struct Decoder {
    pub chars: Vec<CharLine>,
    pub trie: Vec<TrieBit>,
    pub lines: Vec<Line>,
}

/// The name of cluster `prefix`'s character line for `b`.
pub(super) fn char_name(prefix: &str, b: u8) -> String {
    format!("{prefix}_ch_{b:02x}")
}

/// The decoder of `names` (each its line's name and its bytes) in cluster
/// `prefix`; `suffix` names the character lines its trie reads (`_d`: the
/// registered ones).
pub(super) fn decoder(prefix: &str, names: &[(String, &[u8])], suffix: &str) -> Decoder {
    let trie = Trie::build(&names.iter().map(|n| n.1).collect::<Vec<_>>());
    let mut bytes: Vec<u8> = trie.nodes.iter().map(|n| n.1).collect();
    bytes.sort();
    bytes.dedup();
    Decoder {
        chars: bytes
            .into_iter()
            .map(|b| CharLine {
                name: format!("{}{suffix}", char_name(prefix, b)),
                byte: b,
            })
            .collect(),
        trie: trie
            .nodes
            .iter()
            .enumerate()
            .map(|(idx, (parent, b, pre))| TrieBit {
                idx,
                ch: format!("{}{suffix}", char_name(prefix, *b)),
                parent: *parent,
                prefix: comment_text(pre),
            })
            .collect(),
        lines: names
            .iter()
            .zip(&trie.ends)
            .map(|((name, bytes), &bit)| Line {
                name: name.clone(),
                bit,
                comment: comment_text(bytes),
                ns: None,
            })
            .collect(),
    }
}
