//! The characters of a document: UTF-8 well-formedness and XML 1.0's `Char`
//! production, checked on the byte stream ahead of the parser's state
//! machine (SPEC §3.2), the same way in the tokenizer and in both RTL
//! parsers.
//!
//! A byte is a **character fault** ([`XmlError::InvalidChar`]) when, all
//! the document's bytes before it being sound:
//! - it is a C0 control other than tab, LF and CR (`Char` excludes them);
//! - a UTF-8 sequence is open and the byte is not one of its continuation
//!   bytes, or not in the range its lead allows for the second byte
//!   (`E0`: `A0..BF`, no overlong forms; `ED`: `80..9F`, no surrogates;
//!   `F0`: `90..BF`; `F4`: `80..8F`, nothing above U+10FFFF);
//! - no sequence is open and the byte is a continuation byte (`80..BF`) or
//!   can lead none (`C0`, `C1`, `F5..FF`);
//! - it ends `EF BF BE` or `EF BF BF` (U+FFFE, U+FFFF: not `Char`).
//!
//! The document's first two bytes also tell **UTF-16 and UTF-32**
//! ([`XmlError::UnsupportedEncoding`], XML 1.0 appendix F): `FE` or `FF`
//! first (their byte order marks), `00` first, or `00` second (`<` in
//! UTF-16LE or UTF-32LE). qrtl reads UTF-8 only (SPEC §3.2).
//!
//! The fault is the byte's, and the parser never sees that byte: a fault
//! wins over any error the byte would have revealed, and the document's
//! events end before it. A document that ends inside a sequence has no
//! fault of its own: its last bytes are character data or markup, which
//! the end-of-document checks already reject (`UnclosedElement`,
//! `UnterminatedMarkup`), or they are outside the root element, where a
//! byte of `80..FF` is already `ContentOutsideRoot`.
//!
//! After an XML declaration naming ISO-8859-1 or US-ASCII ([`Encoding`])
//! the bytes are single characters: only C0 controls (and in US-ASCII
//! bytes 80..FF) are faults ([`single_byte_fault`]).
//!
//! The tokenizer runs the byte automaton [`CharCheck`]; the wide RTL front
//! end tests each lane against the three bytes before it ([`lane_fault`]),
//! which finds the same first fault (a unit test checks the two agree),
//! and its back end picks the single-byte rule instead after a
//! declaration.

use super::decl::Encoding;
use super::XmlError;

/// Where the next byte stands in a UTF-8 sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Seq {
    /// Continuation bytes still expected (0: none open).
    need: u8,
    /// The range the next continuation byte must be in.
    lo: u8,
    hi: u8,
    /// `EF BF` read: a third byte `BE` or `BF` would be U+FFFE / U+FFFF.
    ef_bf: bool,
    /// `EF` read as the lead (its second byte decides `ef_bf`).
    ef: bool,
}

/// The byte automaton over one document's bytes, fed chunk by chunk.
#[derive(Clone, Copy, Debug, Default)]
pub struct CharCheck {
    seq: Seq,
    /// Bytes of the document seen so far, saturating at 2.
    pos: u8,
    /// How the bytes are read (the XML declaration's encoding, once read).
    encoding: Encoding,
}

/// A C0 control other than tab, LF and CR.
#[inline]
pub fn is_bad_control(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')
}

/// Bytes the fast path passes: tab, LF, CR and `20..7F` (plain ASCII).
#[inline(always)]
fn is_plain(b: u8) -> bool {
    (b >= 0x20 && b < 0x80) || b == b'\t' || b == b'\n' || b == b'\r'
}

/// The bytes the fast path takes at once (a branch-free OR over them, which
/// the compiler turns into vector compares).
const BLOCK: usize = 32;

/// Whether every byte of `block` is plain ASCII (`is_plain`).
#[inline(always)]
fn plain_block(block: &[u8; BLOCK]) -> bool {
    let mut bad = 0u8;
    for &b in block {
        bad |= u8::from(!is_plain(b));
    }
    bad == 0
}

impl CharCheck {
    pub fn new() -> CharCheck {
        CharCheck::default()
    }

    /// Read the next bytes in `encoding` (an XML declaration just ended,
    /// on its ASCII `>`: no UTF-8 sequence is open).
    pub fn set_encoding(&mut self, encoding: Encoding) {
        self.encoding = encoding;
        self.seq = Seq::default();
    }

    /// The first fault in `bytes`, the document's next bytes: its index and
    /// reason. The automaton has moved past the bytes before it (and past
    /// all of them when there is none).
    pub fn scan(&mut self, bytes: &[u8]) -> Option<(usize, XmlError)> {
        let mut i = 0;
        let n = bytes.len();
        while i < n {
            if self.seq.need == 0 && self.pos >= 2 {
                // Fast path: whole blocks of plain ASCII, then plain bytes.
                while let Some(block) = bytes.get(i..i + BLOCK) {
                    if !plain_block(block.try_into().expect("a block")) {
                        break;
                    }
                    i += BLOCK;
                }
                while i < n && is_plain(bytes[i]) {
                    i += 1;
                }
                if i == n {
                    break;
                }
            }
            if let Some(e) = self.byte(bytes[i]) {
                return Some((i, e));
            }
            i += 1;
        }
        None
    }

    /// One byte: its fault, or none (the automaton then moves past it).
    #[inline]
    pub fn byte(&mut self, b: u8) -> Option<XmlError> {
        let pos = self.pos;
        self.pos = (pos + 1).min(2);
        if (pos == 0 && matches!(b, 0x00 | 0xFE | 0xFF)) || (pos == 1 && b == 0x00) {
            return Some(XmlError::UnsupportedEncoding);
        }
        if self.encoding != Encoding::Utf8 {
            return single_byte_fault(self.encoding, b);
        }
        let s = self.seq;
        if s.need > 0 {
            if b < s.lo || b > s.hi || (s.ef_bf && b >= 0xBE) {
                return Some(XmlError::InvalidChar);
            }
            self.seq = Seq {
                need: s.need - 1,
                lo: 0x80,
                hi: 0xBF,
                ef_bf: s.ef && b == 0xBF,
                ef: false,
            };
            return None;
        }
        let (need, lo, hi) = match b {
            0x00..=0x7F => return is_bad_control(b).then_some(XmlError::InvalidChar),
            0xC2..=0xDF => (1, 0x80, 0xBF),
            0xE0 => (2, 0xA0, 0xBF),
            0xED => (2, 0x80, 0x9F),
            0xE1..=0xEF => (2, 0x80, 0xBF),
            0xF0 => (3, 0x90, 0xBF),
            0xF1..=0xF3 => (3, 0x80, 0xBF),
            0xF4 => (3, 0x80, 0x8F),
            _ => return Some(XmlError::InvalidChar),
        };
        self.seq = Seq {
            need,
            lo,
            hi,
            ef_bf: false,
            ef: b == 0xEF,
        };
        None
    }
}

/// The fault of byte `b` in a single-byte encoding: C0 controls (but tab,
/// LF, CR), and in US-ASCII bytes 80..FF.
pub fn single_byte_fault(encoding: Encoding, b: u8) -> Option<XmlError> {
    let bad = is_bad_control(b) || (encoding == Encoding::Ascii && b >= 0x80);
    bad.then_some(XmlError::InvalidChar)
}

/// The first fault of a whole document (read as UTF-8): its offset and
/// reason.
pub fn first_fault(doc: &[u8]) -> Option<(usize, XmlError)> {
    CharCheck::new().scan(doc)
}

/// The fault of byte `b` at document offset `pos`, from the (up to) three
/// bytes before it, `p1` the nearest (`None` before the document's start),
/// assuming those bytes are sound: the look-back form the wide RTL front
/// end computes on every lane at once.
pub fn lane_fault(
    pos: u64,
    p3: Option<u8>,
    p2: Option<u8>,
    p1: Option<u8>,
    b: u8,
) -> Option<XmlError> {
    if (pos == 0 && matches!(b, 0x00 | 0xFE | 0xFF)) || (pos == 1 && b == 0x00) {
        return Some(XmlError::UnsupportedEncoding);
    }
    let p = |x: Option<u8>| x.unwrap_or(0);
    let (p1, p2, p3) = (p(p1), p(p2), p(p3));
    let cont = |x: u8| (0x80..=0xBF).contains(&x);
    let lead2 = |x: u8| (0xC2..=0xDF).contains(&x);
    let lead3 = |x: u8| (0xE0..=0xEF).contains(&x);
    let lead4 = |x: u8| (0xF0..=0xF4).contains(&x);
    // Which byte of a sequence `b` must be (2nd, 3rd, 4th).
    let second = lead2(p1) || lead3(p1) || lead4(p1);
    let third = (lead3(p2) || lead4(p2)) && cont(p1);
    let fourth = lead4(p3) && cont(p2) && cont(p1);
    let bad = if second {
        !cont(b)
            || (p1 == 0xE0 && b < 0xA0)
            || (p1 == 0xED && b > 0x9F)
            || (p1 == 0xF0 && b < 0x90)
            || (p1 == 0xF4 && b > 0x8F)
    } else if third || fourth {
        !cont(b) || (third && p2 == 0xEF && p1 == 0xBF && b >= 0xBE)
    } else {
        is_bad_control(b) || cont(b) || matches!(b, 0xC0 | 0xC1 | 0xF5..=0xFF)
    };
    bad.then_some(XmlError::InvalidChar)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn windowed_first_fault(doc: &[u8]) -> Option<(usize, XmlError)> {
        (0..doc.len()).find_map(|i| {
            let back = |k: usize| i.checked_sub(k).map(|j| doc[j]);
            lane_fault(i as u64, back(3), back(2), back(1), doc[i]).map(|e| (i, e))
        })
    }

    /// Random documents rich in UTF-8 lead and continuation bytes.
    fn random_doc(rng: &mut impl Rng) -> Vec<u8> {
        const PICKS: &[u8] = &[
            b'a', b'<', b'\n', b'\t', 0x0C, 0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBD, 0xBE,
            0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5,
            0xFE, 0xFF,
        ];
        let len = rng.gen_range(0..12);
        (0..len)
            .map(|_| {
                if rng.gen_bool(0.3) {
                    rng.gen()
                } else {
                    PICKS[rng.gen_range(0..PICKS.len())]
                }
            })
            .collect()
    }

    #[test]
    fn the_automaton_accepts_exactly_what_std_accepts_as_chars() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(29);
        for _ in 0..200_000 {
            let mut doc = b"ab".to_vec();
            doc.extend(random_doc(&mut rng));
            let ok_std = std::str::from_utf8(&doc).is_ok_and(|s| {
                s.chars().all(|c| {
                    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
                })
            });
            let mut check = CharCheck::new();
            let fault = check.scan(&doc);
            // A document cut inside a sequence has no fault of its own.
            let complete = check.seq.need == 0;
            assert_eq!(ok_std, fault.is_none() && complete, "{doc:02X?}: {fault:?}");
        }
    }

    #[test]
    fn the_look_back_form_finds_the_automatons_first_fault() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(26);
        for _ in 0..200_000 {
            let doc = random_doc(&mut rng);
            assert_eq!(windowed_first_fault(&doc), first_fault(&doc), "{doc:02X?}");
        }
    }

    #[test]
    fn chunks_find_the_same_fault_as_the_whole() {
        let doc = "<a>héllo \u{10000}\u{FFFD}</a>\u{0C}".as_bytes();
        let whole = first_fault(doc);
        assert_eq!(whole, Some((doc.len() - 1, XmlError::InvalidChar)));
        for cut in 0..doc.len() {
            let mut check = CharCheck::new();
            let got = match check.scan(&doc[..cut]) {
                Some(f) => Some(f),
                None => check.scan(&doc[cut..]).map(|(i, e)| (cut + i, e)),
            };
            assert_eq!(got, whole, "cut at {cut}");
        }
    }

    #[test]
    fn utf16_and_utf32_are_told_from_the_first_two_bytes() {
        for doc in [
            &b"\xFF\xFE<\x00"[..],
            b"\xFE\xFF\x00<",
            b"\x00<\x00?",
            b"<\x00?\x00",
        ] {
            assert_eq!(
                first_fault(doc).map(|f| f.1),
                Some(XmlError::UnsupportedEncoding),
                "{doc:02X?}"
            );
        }
        assert_eq!(first_fault(b"<a\x00"), Some((2, XmlError::InvalidChar)));
        assert_eq!(first_fault(b"\xEF\xBB\xBF<a/>"), None);
    }
}
