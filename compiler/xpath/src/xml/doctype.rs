//! The document type declaration after `<!DOCTYPE` and its whitespace
//! (XML 1.0 productions 28, 75, 11–13), checked byte by byte; the same
//! machine in the tokenizer, the item model and both RTL parsers.
//!
//! `Name (S ExternalID)? S? '>'`, with `ExternalID` either `SYSTEM S
//! SystemLiteral` or `PUBLIC S PubidLiteral S SystemLiteral`. A system
//! literal holds anything but its quote; a public id only `PubidChar`s
//! (letters, digits, space, CR, LF and `-'()+,./:=?;!*#@$_%`, without `'`
//! in a `'`-quoted one). The name takes the bytes element names take, its
//! characters beyond ASCII checked as theirs ([`super::names`]).
//!
//! - An internal subset (`[` where the grammar allows it) is
//!   [`XmlError::DoctypeInternalSubset`]: qrtl reads none (SPEC §3.2).
//! - Anything else off the grammar is [`XmlError::BadDoctype`] at the byte
//!   that breaks it.

use super::names::NameCheck;
use super::tokenizer::{is_name_char, is_name_start, is_ws};
use super::XmlError;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Whitespace before the name.
    #[default]
    BeforeName,
    Name,
    /// After the name and whitespace: `SYSTEM`, `PUBLIC`, `[` or `>`.
    AfterName,
    /// In the keyword `SYSTEM` (`public` false) or `PUBLIC`.
    Keyword,
    /// After the keyword: whitespace, at least one.
    KeywordSpace,
    /// Whitespace, then the literal's opening quote.
    BeforeLiteral,
    /// In the public id literal.
    Pubid,
    /// After the public id: whitespace, at least one, before the system
    /// literal.
    PubidSpace,
    /// In the system literal.
    System,
    /// After the external id (or the name's whitespace): whitespace, `[`
    /// or `>`.
    End,
}

/// The declaration's registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Doctype {
    phase: Phase,
    /// The keyword is `PUBLIC` (else `SYSTEM`); in `BeforeLiteral`, the
    /// next literal is the public id.
    public: bool,
    /// Keyword bytes matched.
    pos: u8,
    /// The literal's quote is `'` (else `"`).
    single: bool,
    /// The name's characters.
    nm: NameCheck,
    /// The document is ISO-8859-1 (a byte is a character).
    latin1: bool,
}

/// What a byte of the declaration did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoctypeStep {
    /// Still inside the declaration.
    More,
    /// The `>` that ends it.
    Done,
}

/// A public id character (production 13), `'` apart.
pub fn is_pubid_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"\x20\x0D\x0A-()+,./:=?;!*#@$_%".contains(&b)
}

impl Doctype {
    /// The declaration after `<!DOCTYPE` and its first whitespace.
    pub fn new() -> Doctype {
        Doctype::default()
    }

    /// The same in a document declared ISO-8859-1 (`latin1`).
    pub fn in_encoding(latin1: bool) -> Doctype {
        Doctype {
            latin1,
            ..Doctype::default()
        }
    }

    /// The next byte.
    pub fn byte(&mut self, b: u8) -> Result<DoctypeStep, XmlError> {
        let bad = Err(XmlError::BadDoctype);
        let p = self.phase;
        let quote = if self.single { b'\'' } else { b'"' };
        self.phase = match p {
            Phase::BeforeName if is_ws(b) => p,
            Phase::BeforeName if is_name_start(b) => {
                self.nm.begin();
                self.nm.byte(b, self.latin1)?;
                Phase::Name
            }
            Phase::Name if is_name_char(b) => {
                self.nm.byte(b, self.latin1)?;
                p
            }
            Phase::Name | Phase::AfterName | Phase::End if is_ws(b) => match p {
                Phase::Name => Phase::AfterName,
                _ => p,
            },
            Phase::AfterName if b == b'S' || b == b'P' => {
                self.public = b == b'P';
                self.pos = 1;
                Phase::Keyword
            }
            Phase::Name | Phase::AfterName | Phase::End if b == b'[' => {
                return Err(XmlError::DoctypeInternalSubset)
            }
            Phase::Name | Phase::AfterName | Phase::End if b == b'>' => {
                return Ok(DoctypeStep::Done)
            }
            Phase::Keyword => {
                let kw: &[u8] = if self.public { b"PUBLIC" } else { b"SYSTEM" };
                if b != kw[usize::from(self.pos)] {
                    return bad;
                }
                self.pos += 1;
                if usize::from(self.pos) == kw.len() {
                    Phase::KeywordSpace
                } else {
                    p
                }
            }
            Phase::KeywordSpace | Phase::PubidSpace if is_ws(b) => Phase::BeforeLiteral,
            Phase::BeforeLiteral if is_ws(b) => p,
            Phase::BeforeLiteral if b == b'"' || b == b'\'' => {
                self.single = b == b'\'';
                if self.public {
                    Phase::Pubid
                } else {
                    Phase::System
                }
            }
            Phase::Pubid if b == quote => {
                self.public = false;
                Phase::PubidSpace
            }
            Phase::Pubid if is_pubid_char(b) || (b == b'\'' && !self.single) => p,
            Phase::System if b == quote => Phase::End,
            Phase::System => p,
            _ => return bad,
        };
        Ok(DoctypeStep::More)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes after `<!DOCTYPE ` through `>`: Ok, or the error and the
    /// index of the byte that revealed it.
    fn run(body: &str) -> Result<(), (XmlError, usize)> {
        let mut d = Doctype::new();
        for (i, &b) in body.as_bytes().iter().enumerate() {
            match d.byte(b) {
                Ok(DoctypeStep::Done) => {
                    assert_eq!(i + 1, body.len(), "{body:?} ended early");
                    return Ok(());
                }
                Ok(DoctypeStep::More) => {}
                Err(e) => return Err((e, i)),
            }
        }
        panic!("{body:?} did not end");
    }

    #[test]
    fn well_formed_declarations_end_at_their_gt() {
        for body in [
            "a>",
            " a >",
            "doc SYSTEM 'doc.dtd'>",
            "doc SYSTEM \"a'b>c\" >",
            "doc PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"x.dtd\">",
            "doc PUBLIC 'it' 's'>",
            "doc\nPUBLIC\n\"a b'c\"\n'x'>",
            "h:doc SYSTEM ''>",
        ] {
            assert_eq!(run(body), Ok(()), "{body:?}");
        }
    }

    #[test]
    fn each_fault_is_found_at_its_byte() {
        use XmlError::*;
        for (body, err, at) in [
            (">", BadDoctype, 0),
            ("1a>", BadDoctype, 0),
            ("a SYSTEM>", BadDoctype, 8),
            ("a SYSTEM'x'>", BadDoctype, 8),
            ("a SYSTEMX 'x'>", BadDoctype, 8),
            ("a system 'x'>", BadDoctype, 2),
            ("a PUBLIC 'x'>", BadDoctype, 12),
            ("a PUBLIC 'x''y'>", BadDoctype, 12),
            ("a PUBLIC \"[\" 'y'>", BadDoctype, 10),
            ("a PUBLIC '{' 'y'>", BadDoctype, 10),
            ("a SYSTEM 'x''y'>", BadDoctype, 12),
            ("a SYSTEM 'x' PUBLIC>", BadDoctype, 13),
            ("a 'x'>", BadDoctype, 2),
            ("a [ ]>", DoctypeInternalSubset, 2),
            ("a[]>", DoctypeInternalSubset, 1),
            ("a SYSTEM 'x' [", DoctypeInternalSubset, 13),
            ("a <b>", BadDoctype, 2),
            ("\u{300}a>", BadNameChar, 1),
            ("a\u{a0}>", BadNameChar, 2),
        ] {
            assert_eq!(run(body), Err((err, at)), "{body:?}");
        }
    }
}
