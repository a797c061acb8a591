//! The characters of names beyond ASCII: XML 1.0 (fifth edition)
//! productions 4 and 4a, `NameStartChar` and `NameChar`, checked the same
//! way in the tokenizer, the item model and both RTL parsers.
//!
//! The state machines take every byte 80..FF as a name byte (a name may
//! start with one); which code point those bytes spell is known at the
//! character's last byte. There the character is checked: a name's first
//! character must be a `NameStartChar`, the others `NameChar`s; otherwise
//! the byte is [`XmlError::BadNameChar`] (the error's position is that
//! last byte: the byte that revealed it). ASCII name bytes are the state
//! machines' own classes, unchanged.
//!
//! The names checked: element names (start tags), attribute names, PI
//! targets and the DOCTYPE's name. An end tag's name is compared with its
//! start tag's, whose characters were checked (a byte that differs is
//! `MismatchedClose`); entity references only name the five predefined
//! entities.
//!
//! In a document declared ISO-8859-1 every byte is a character, its code
//! point the byte's value, so the same ranges apply byte by byte (80..BF
//! but B7, D7 and F7 are not name characters). A US-ASCII document has no
//! byte 80..FF that is not already [`XmlError::InvalidChar`].
//!
//! The bytes reaching this check are sound UTF-8 ([`super::chars`] runs
//! ahead of the machines), so a lead byte tells the sequence's length.

use super::XmlError;

/// What a code point may be in a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameClass {
    /// `NameStartChar`: a name may start with it.
    Start,
    /// `NameChar` but not `NameStartChar` (`-` `.` digits, U+00B7,
    /// U+0300–U+036F, U+203F–U+2040).
    Char,
    /// Not in a name.
    Other,
}

/// The class of code point `cp` (production 4 and 4a).
pub fn class_of(cp: u32) -> NameClass {
    use NameClass::*;
    match cp {
        0x3A | 0x41..=0x5A | 0x5F | 0x61..=0x7A => Start,
        0x2D | 0x2E | 0x30..=0x39 | 0xB7 => Char,
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF => Start,
        0x300..=0x36F => Char,
        0x370..=0x37D | 0x37F..=0x1FFF | 0x200C..=0x200D => Start,
        0x203F..=0x2040 => Char,
        0x2070..=0x218F | 0x2C00..=0x2FEF | 0x3001..=0xD7FF => Start,
        0xF900..=0xFDCF | 0xFDF0..=0xFFFD | 0x1_0000..=0xE_FFFF => Start,
        _ => Other,
    }
}

/// Whether `class` may stand at its place in a name.
fn allowed(class: NameClass, first: bool) -> bool {
    match class {
        NameClass::Start => true,
        NameClass::Char => !first,
        NameClass::Other => false,
    }
}

/// The check over the bytes of one name (the registers the RTL keeps:
/// the open sequence's continuation bytes, its code point so far, whether
/// it is the name's first character).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameCheck {
    /// Continuation bytes still to come (0: none open).
    need: u8,
    /// The code point so far.
    cp: u32,
    /// The open sequence is the name's first character.
    first: bool,
    /// No character of the name has started yet.
    fresh: bool,
}

impl NameCheck {
    /// A name begins (its first byte comes next).
    #[inline]
    pub fn begin(&mut self) {
        *self = NameCheck {
            fresh: true,
            ..NameCheck::default()
        };
    }

    /// Whether `seg`, the name's next bytes, needs [`NameCheck::run`]: some
    /// byte is 80..FF or a sequence is open. (ASCII bytes only clear
    /// `fresh`, which [`NameCheck::skip`] does.)
    #[inline(always)]
    pub fn needs_run(&self, seg: &[u8]) -> bool {
        self.need != 0 || seg.iter().fold(0u8, |a, &b| a | b) >= 0x80
    }

    /// `seg` is not empty and all ASCII: its first byte ends `fresh`.
    #[inline(always)]
    pub fn skip(&mut self) {
        self.fresh = false;
    }

    /// The next byte of the name (a name byte to the state machine): the
    /// fault it reveals, if any. `latin1`: the document is ISO-8859-1.
    #[inline]
    pub fn byte(&mut self, b: u8, latin1: bool) -> Result<(), XmlError> {
        let fresh = std::mem::replace(&mut self.fresh, false);
        if b < 0x80 {
            return Ok(());
        }
        let done = if latin1 {
            Some((u32::from(b), fresh))
        } else if b >= 0xC0 {
            let (need, bits) = match b {
                0xC0..=0xDF => (1, b & 0x1F),
                0xE0..=0xEF => (2, b & 0x0F),
                _ => (3, b & 0x07),
            };
            self.need = need;
            self.cp = u32::from(bits);
            self.first = fresh;
            None
        } else {
            self.cp = (self.cp << 6) | u32::from(b & 0x3F);
            self.need = self.need.saturating_sub(1);
            (self.need == 0).then_some((self.cp, self.first))
        };
        match done {
            Some((cp, first)) if !allowed(class_of(cp), first) => Err(XmlError::BadNameChar),
            _ => Ok(()),
        }
    }

    /// The name's next bytes: the index of the first faulty byte.
    pub fn run(&mut self, seg: &[u8], latin1: bool) -> Option<usize> {
        seg.iter().position(|&b| self.byte(b, latin1).is_err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of `name` through a fresh check: the index of the first
    /// faulty byte.
    fn fault(name: &str) -> Option<usize> {
        let mut c = NameCheck::default();
        c.begin();
        c.run(name.as_bytes(), false)
    }

    #[test]
    fn classes_follow_the_fifth_edition_ranges() {
        use NameClass::*;
        for (cp, want) in [
            (u32::from(b'a'), Start),
            (u32::from(b':'), Start),
            (u32::from(b'9'), Char),
            (0xB7, Char),
            (0xC0, Start),
            (0xD7, Other),
            (0xF7, Other),
            (0x2FF, Start),
            (0x300, Char),
            (0x36F, Char),
            (0x37E, Other),
            (0x37F, Start),
            (0x2000, Other),
            (0x200C, Start),
            (0x203F, Char),
            (0x2041, Other),
            (0x3000, Other),
            (0x3001, Start),
            (0xE000, Other),
            (0xFDD0, Other),
            (0xFFFD, Start),
            (0x1_0000, Start),
            (0xE_FFFF, Start),
            (0xF_0000, Other),
        ] {
            assert_eq!(class_of(cp), want, "U+{cp:04X}");
        }
    }

    #[test]
    fn a_character_is_checked_at_its_last_byte() {
        assert_eq!(fault("a\u{e9}t\u{e9}"), None);
        assert_eq!(fault("\u{e9}t\u{e9}"), None);
        assert_eq!(fault("\u{4e2d}\u{6587}"), None);
        assert_eq!(fault("a\u{10000}"), None);
        assert_eq!(fault("a\u{300}"), None);
        assert_eq!(fault("a\u{b7}"), None);
        // A first character that may only continue a name.
        assert_eq!(fault("\u{300}a"), Some(1));
        assert_eq!(fault("\u{b7}a"), Some(1));
        assert_eq!(fault("\u{203f}"), Some(2));
        // Not a name character anywhere.
        assert_eq!(fault("a\u{a0}"), Some(2));
        assert_eq!(fault("ab\u{2000}"), Some(4));
        assert_eq!(fault("a\u{f0000}"), Some(4));
    }

    #[test]
    fn latin1_bytes_are_code_points() {
        let run = |bytes: &[u8]| {
            let mut c = NameCheck::default();
            c.begin();
            c.run(bytes, true)
        };
        assert_eq!(run(b"\xe9t\xe9"), None);
        assert_eq!(run(b"a\xb7"), None);
        assert_eq!(run(b"\xb7"), Some(0));
        assert_eq!(run(b"a\xd7"), Some(1));
        assert_eq!(run(b"a\xa0"), Some(1));
    }

    #[test]
    fn a_sequence_may_span_chunks() {
        let mut c = NameCheck::default();
        c.begin();
        let bytes = "\u{300}".as_bytes();
        assert_eq!(c.run(&bytes[..1], false), None);
        assert!(c.needs_run(b"x"));
        assert_eq!(c.run(&bytes[1..], false), Some(0));
    }
}
