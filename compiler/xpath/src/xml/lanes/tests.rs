//! The lexer's table. The lexer itself is checked against the tokenizer
//! through the item model (`super::super::items::tests`): the model takes
//! every lane's control from the lexer state alone and gives the
//! tokenizer's events, status and reason on every document there.

use super::*;

#[test]
fn table_rows_are_in_state_order() {
    for (i, row) in TABLE.iter().enumerate() {
        assert_eq!(row.state.index(), i, "row {i} is {:?}", row.state);
    }
}

#[test]
fn every_state_reaches_content_or_stays_in_markup() {
    // From every state some byte string leads back to Content (a document
    // can always go on): the lexer has no dead end.
    for start in Lex::all() {
        let mut seen = std::collections::BTreeSet::from([start]);
        let mut frontier = vec![start];
        while let Some(s) = frontier.pop() {
            for b in 0..=255u8 {
                let n = s.next(b);
                if seen.insert(n) {
                    frontier.push(n);
                }
            }
        }
        assert!(
            seen.contains(&Lex::Content),
            "{start:?} never reaches Content"
        );
    }
}

/// `count` generated NITF-like documents of 200–3000 bytes (the item
/// model's tests).
pub(crate) fn generated_docs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    use crate::workload::{DocGen, DocGenConfig, Vocab};
    let cfg = DocGenConfig {
        seed,
        doc_bytes: (200, 3000),
        ..DocGenConfig::default()
    };
    let mut gen = DocGen::new(Vocab::nitf(), cfg);
    (0..count).map(|_| gen.next_doc()).collect()
}
