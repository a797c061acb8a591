//! The XML declaration, `<?xml version="1.0" encoding="..." standalone="..."?>`
//! (XML 1.0 productions 23–26, 32, 80–81), checked byte by byte after its
//! `<?xml` and whitespace; the same machine in the tokenizer, the item
//! model and both RTL parsers.
//!
//! - `version` is required and first; `encoding` and `standalone` may
//!   follow, in that order, each after whitespace; whitespace may surround
//!   `=` and precede `?>`; values are quoted with `"` or `'` alike.
//! - `VersionNum` is `1.` and one or more digits; `EncName` is a letter and
//!   then letters, digits, `.`, `_` and `-`; `standalone` is `yes` or `no`.
//! - Anything else is [`XmlError::BadXmlDecl`] at the byte that breaks the
//!   grammar.
//!
//! The **encoding** decides how the characters after the declaration are
//! checked ([`Encoding`], [`super::chars`]). Names compare without case:
//! `UTF-8`; `ISO-8859-1`; `US-ASCII` and `ASCII`. Any other name (UTF-16,
//! Shift_JIS, ...) is [`XmlError::UnsupportedEncoding`] at the value's
//! closing quote, and so is a name other than UTF-8 after a UTF-8 byte
//! order mark. Without a declaration (or without `encoding`) the document
//! is UTF-8.

use super::XmlError;

/// How a document's bytes are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8, checked as UTF-8 (the default).
    #[default]
    Utf8,
    /// ISO-8859-1: every byte is a character; only C0 controls are faults.
    /// Names and values compare as bytes (a query's non-ASCII literal, in
    /// UTF-8, matches no Latin-1 text).
    Latin1,
    /// US-ASCII: bytes 80..FF are faults too.
    Ascii,
}

/// The three pseudo-attributes, in their order.
const KEYWORDS: [&[u8]; 3] = [b"version", b"encoding", b"standalone"];
const VERSION: u8 = 0;
const ENCODING: u8 = 1;
const STANDALONE: u8 = 2;

/// The encoding names qrtl reads, upper case, and what they mean.
const NAMES: [(&[u8], Encoding); 4] = [
    (b"UTF-8", Encoding::Utf8),
    (b"ISO-8859-1", Encoding::Latin1),
    (b"US-ASCII", Encoding::Ascii),
    (b"ASCII", Encoding::Ascii),
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// After whitespace: another whitespace, the next pseudo-attribute's
    /// first letter, or (once `version` was read) `?`.
    #[default]
    Space,
    /// Right after a value's closing quote: whitespace or `?`.
    AfterValue,
    /// In a pseudo-attribute's keyword.
    Keyword,
    /// After the keyword: whitespace or `=`.
    BeforeEq,
    /// After `=`: whitespace or a quote.
    AfterEq,
    /// In a quoted value.
    Value,
    /// After the final `?`: `>`.
    Question,
}

/// The declaration's registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decl {
    phase: Phase,
    /// The pseudo-attribute being read (`Keyword`..`Value`), or the first
    /// one still allowed (`Space`, `AfterValue`); 3: none.
    attr: u8,
    /// Bytes of the keyword or value read, saturating at 15.
    pos: u8,
    /// The value's quote is `'` (else `"`).
    single: bool,
    /// Bit k: the value so far is a prefix of `NAMES[k]` (encoding), or of
    /// `yes` (bit 0) / `no` (bit 1) (standalone).
    cands: u8,
    /// The encoding the declaration names so far.
    encoding: Encoding,
    /// The document began with a UTF-8 byte order mark.
    bom: bool,
}

/// What a byte of the declaration did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclStep {
    /// Still inside the declaration.
    More,
    /// The `>` that ends it: the document's encoding from now on.
    Done(Encoding),
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Decl {
    /// A declaration after `<?xml` and its first whitespace; `bom`: the
    /// document began with a UTF-8 byte order mark.
    pub fn new(bom: bool) -> Decl {
        Decl {
            bom,
            ..Decl::default()
        }
    }

    /// The next byte.
    pub fn byte(&mut self, b: u8) -> Result<DeclStep, XmlError> {
        let bad = Err(XmlError::BadXmlDecl);
        match self.phase {
            Phase::Space | Phase::AfterValue => {
                if is_ws(b) {
                    self.phase = Phase::Space;
                } else if b == b'?' && self.attr > VERSION {
                    self.phase = Phase::Question;
                } else if self.phase == Phase::Space && self.keyword_starts(b) {
                    self.phase = Phase::Keyword;
                    self.pos = 1;
                } else {
                    return bad;
                }
            }
            Phase::Keyword => {
                let kw = KEYWORDS[usize::from(self.attr)];
                if b != kw[usize::from(self.pos)] {
                    return bad;
                }
                self.pos += 1;
                if usize::from(self.pos) == kw.len() {
                    self.phase = Phase::BeforeEq;
                }
            }
            Phase::BeforeEq => match b {
                b'=' => self.phase = Phase::AfterEq,
                _ if is_ws(b) => {}
                _ => return bad,
            },
            Phase::AfterEq => match b {
                b'"' | b'\'' => {
                    self.phase = Phase::Value;
                    self.single = b == b'\'';
                    self.pos = 0;
                    self.cands = if self.attr == STANDALONE {
                        0b11
                    } else {
                        0b1111
                    };
                }
                _ if is_ws(b) => {}
                _ => return bad,
            },
            Phase::Value => return self.value(b),
            Phase::Question => {
                if b != b'>' {
                    return bad;
                }
                return Ok(DeclStep::Done(self.encoding));
            }
        }
        Ok(DeclStep::More)
    }

    /// `b` starts the keyword of a pseudo-attribute allowed here: `version`
    /// first, then `encoding` or `standalone`, then `standalone`.
    fn keyword_starts(&mut self, b: u8) -> bool {
        let attr = match (self.attr, b) {
            (VERSION, b'v') => VERSION,
            (ENCODING, b'e') => ENCODING,
            (ENCODING | STANDALONE, b's') => STANDALONE,
            _ => return false,
        };
        self.attr = attr;
        true
    }

    /// A byte of a quoted value.
    fn value(&mut self, b: u8) -> Result<DeclStep, XmlError> {
        let bad = Err(XmlError::BadXmlDecl);
        let pos = usize::from(self.pos);
        if b == if self.single { b'\'' } else { b'"' } {
            self.close_value()?;
            self.phase = Phase::AfterValue;
            self.attr += 1;
            return Ok(DeclStep::More);
        }
        let ok = match self.attr {
            VERSION => match pos {
                0 => b == b'1',
                1 => b == b'.',
                _ => b.is_ascii_digit(),
            },
            ENCODING => {
                b.is_ascii_alphabetic()
                    || (pos > 0 && (b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')))
            }
            _ => {
                let yes = self.cands & 1 != 0 && b"yes".get(pos) == Some(&b);
                let no = self.cands & 2 != 0 && b"no".get(pos) == Some(&b);
                self.cands = u8::from(yes) | (u8::from(no) << 1);
                yes || no
            }
        };
        if !ok {
            return bad;
        }
        if self.attr == ENCODING {
            let upper = b.to_ascii_uppercase();
            for (k, (name, _)) in NAMES.iter().enumerate() {
                if name.get(pos) != Some(&upper) {
                    self.cands &= !(1 << k);
                }
            }
        }
        self.pos = self.pos.saturating_add(1).min(15);
        Ok(DeclStep::More)
    }

    /// The closing quote of a value: is the value complete, and (encoding)
    /// one qrtl reads?
    fn close_value(&mut self) -> Result<(), XmlError> {
        let pos = usize::from(self.pos);
        let complete = match self.attr {
            VERSION => pos >= 3,
            ENCODING => pos >= 1,
            _ => (self.cands & 1 != 0 && pos == 3) || (self.cands & 2 != 0 && pos == 2),
        };
        if !complete {
            return Err(XmlError::BadXmlDecl);
        }
        if self.attr == ENCODING {
            let named = NAMES
                .iter()
                .enumerate()
                .find(|(k, (name, _))| self.cands & (1 << k) != 0 && name.len() == pos);
            match named {
                Some((_, &(_, enc))) if !self.bom || enc == Encoding::Utf8 => self.encoding = enc,
                _ => return Err(XmlError::UnsupportedEncoding),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declaration's bytes after `<?xml ` through `>`: its encoding, or
    /// the error and the index of the byte that revealed it.
    fn run(body: &str, bom: bool) -> Result<Encoding, (XmlError, usize)> {
        let mut d = Decl::new(bom);
        for (i, &b) in body.as_bytes().iter().enumerate() {
            match d.byte(b) {
                Ok(DeclStep::Done(e)) => {
                    assert_eq!(i + 1, body.len(), "{body:?} ended early");
                    return Ok(e);
                }
                Ok(DeclStep::More) => {}
                Err(e) => return Err((e, i)),
            }
        }
        panic!("{body:?} did not end");
    }

    #[test]
    fn well_formed_declarations_give_their_encoding() {
        use Encoding::*;
        for (body, enc) in [
            ("version='1.0'?>", Utf8),
            ("version=\"1.0\"?>", Utf8),
            ("  version = '1.10'  ?>", Utf8),
            ("version='1.0' encoding='utf-8'?>", Utf8),
            (
                "version='1.0' encoding=\"ISO-8859-1\" standalone='yes'?>",
                Latin1,
            ),
            ("version='1.0' encoding='iso-8859-1'?>", Latin1),
            ("version='1.0' encoding='US-ASCII'?>", Ascii),
            (
                "version='1.0'\n\tencoding='ascii'\r\nstandalone=\"no\" ?>",
                Ascii,
            ),
            ("version='1.0' standalone='no'?>", Utf8),
        ] {
            assert_eq!(run(body, false), Ok(enc), "{body:?}");
        }
    }

    #[test]
    fn each_fault_is_found_at_its_byte() {
        use XmlError::*;
        for (body, err, at) in [
            ("?>", BadXmlDecl, 0),
            ("VERSION='1.0'?>", BadXmlDecl, 0),
            ("encoding='UTF-8' version='1.0'?>", BadXmlDecl, 0),
            ("version='1.0'encoding='UTF-8'?>", BadXmlDecl, 13),
            ("version='1.0\"?>", BadXmlDecl, 12),
            ("version='1.0' version='1.0'?>", BadXmlDecl, 14),
            ("version='1.0' valid='no'?>", BadXmlDecl, 14),
            ("version='1.0' standalone='YES'?>", BadXmlDecl, 26),
            ("version='1.0' standalone='yess'?>", BadXmlDecl, 29),
            ("version='1.0' standalone='ye'?>", BadXmlDecl, 28),
            ("version='1.0' standalone=yes?>", BadXmlDecl, 25),
            ("version='1.0' encoding='UTF 8'?>", BadXmlDecl, 27),
            ("version='1.0' encoding='UTF/8'?>", BadXmlDecl, 27),
            ("version='1.0' encoding='-UTF'?>", BadXmlDecl, 24),
            ("version='1.0' encoding=''?>", BadXmlDecl, 24),
            ("version='1 .0'?>", BadXmlDecl, 10),
            ("version='1.'?>", BadXmlDecl, 11),
            ("version='2.0'?>", BadXmlDecl, 9),
            (
                "version='1.0' standalone='yes' encoding='UTF-8'?>",
                BadXmlDecl,
                31,
            ),
            ("version='1.0' <!-- c -->?>", BadXmlDecl, 14),
            ("version='1.0'? >", BadXmlDecl, 14),
            ("version='1.0' encoding='UTF-16'?>", UnsupportedEncoding, 30),
            (
                "version='1.0' encoding='Shift_JIS'?>",
                UnsupportedEncoding,
                33,
            ),
            ("version='1.0' encoding='UTF-8x'?>", UnsupportedEncoding, 30),
        ] {
            assert_eq!(run(body, false), Err((err, at)), "{body:?}");
        }
    }

    #[test]
    fn a_byte_order_mark_allows_utf8_only() {
        assert_eq!(
            run("version='1.0' encoding='UTF-8'?>", true),
            Ok(Encoding::Utf8)
        );
        assert_eq!(
            run("version='1.0' encoding='ISO-8859-1'?>", true),
            Err((XmlError::UnsupportedEncoding, 34))
        );
    }
}
