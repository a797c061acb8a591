//! Duplicate attributes (XML 1.0 well-formedness constraint "Unique Att
//! Spec"), checked within the streaming model the same way in the
//! tokenizer, the item model and both RTL parsers.
//!
//! An element's attribute names are kept while its start tag is read, in
//! [`XmlConfig::max_attributes`] slots of [`XmlConfig::attr_name_bytes`]
//! bytes (the RTL's slot memories), and each new name is compared with the
//! earlier ones byte by byte as it arrives. Names compare as bytes: the
//! qualified names XML 1.0 compares (`a:x` and `b:x` differ even when both
//! prefixes are bound to one namespace).
//!
//! - A name equal to an earlier one of the same start tag is
//!   [`XmlError::DuplicateAttribute`], revealed by the byte that ends it
//!   (`=` or whitespace).
//! - The slots are a limit of the hardware, so going past them is a status
//!   of its own ([`super::DocStatus::AttrLimit`]), never a silent `ok`:
//!   an element's attribute beyond `max_attributes` is
//!   [`XmlError::TooManyAttributes`] at its name's first byte, an
//!   attribute name longer than `attr_name_bytes` is
//!   [`XmlError::AttrNameTooLong`] at its first byte past the limit. Like
//!   `too_deep`, the document's events end there.
//!
//! At one byte, the name stack's capacity (`NameStackOverflow`) and the
//! name's characters (`BadNameChar`) are checked before these limits.

use super::{XmlConfig, XmlError};

/// The attribute names of the start tag being read.
#[derive(Clone, Debug, Default)]
pub struct AttrSet {
    /// The complete names, concatenated, then the name being read.
    bytes: Vec<u8>,
    /// End in `bytes` of each complete name.
    ends: Vec<u32>,
    max_attributes: usize,
    name_bytes: usize,
}

impl AttrSet {
    pub fn new(config: XmlConfig) -> AttrSet {
        AttrSet {
            bytes: Vec::new(),
            ends: Vec::new(),
            max_attributes: config.max_attributes as usize,
            name_bytes: config.attr_name_bytes as usize,
        }
    }

    /// A start tag begins: no names yet.
    #[inline]
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    fn name_start(&self) -> usize {
        self.ends.last().map_or(0, |&e| e as usize)
    }

    /// Bytes of the name being read so far.
    pub fn name_len(&self) -> usize {
        self.bytes.len() - self.name_start()
    }

    /// The limit that the name's next `n` bytes run into, if any: its index
    /// among them and the reason. (A name's first byte when the slots are
    /// full; else its first byte past `attr_name_bytes`.)
    #[inline]
    pub fn limit(&self, n: usize) -> Option<(usize, XmlError)> {
        let len = self.name_len();
        if len == 0 && n > 0 && self.ends.len() >= self.max_attributes {
            return Some((0, XmlError::TooManyAttributes));
        }
        let room = self.name_bytes.saturating_sub(len);
        (n > room).then_some((room, XmlError::AttrNameTooLong))
    }

    /// The name's next bytes (within the limits).
    #[inline]
    pub fn extend(&mut self, seg: &[u8]) {
        self.bytes.extend_from_slice(seg);
    }

    /// The name is complete: `DuplicateAttribute` if an earlier name of the
    /// start tag equals it, else it is kept.
    pub fn end(&mut self) -> Result<(), XmlError> {
        let start = self.name_start();
        let name = &self.bytes[start..];
        let mut from = 0usize;
        for &end in &self.ends {
            if &self.bytes[from..end as usize] == name {
                return Err(XmlError::DuplicateAttribute);
            }
            from = end as usize;
        }
        self.ends.push(self.bytes.len() as u32);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(max_attributes: u32, attr_name_bytes: u32) -> AttrSet {
        AttrSet::new(XmlConfig {
            max_attributes,
            attr_name_bytes,
            ..XmlConfig::default()
        })
    }

    #[test]
    fn equal_names_are_duplicates_and_prefixes_are_not() {
        let mut a = set(8, 8);
        for name in ["ab", "a", "abc", "b"] {
            a.extend(name.as_bytes());
            assert_eq!(a.end(), Ok(()), "{name}");
        }
        a.extend(b"abc");
        assert_eq!(a.end(), Err(XmlError::DuplicateAttribute));
        a.clear();
        a.extend(b"abc");
        assert_eq!(a.end(), Ok(()));
    }

    #[test]
    fn limits_are_found_at_their_byte() {
        let mut a = set(2, 4);
        assert_eq!(a.limit(4), None);
        assert_eq!(a.limit(5), Some((4, XmlError::AttrNameTooLong)));
        a.extend(b"ab");
        assert_eq!(a.limit(3), Some((2, XmlError::AttrNameTooLong)));
        assert_eq!(a.end(), Ok(()));
        a.extend(b"c");
        assert_eq!(a.end(), Ok(()));
        assert_eq!(a.limit(0), None);
        assert_eq!(a.limit(1), Some((0, XmlError::TooManyAttributes)));
    }
}
