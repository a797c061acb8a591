//! The lexer of the multi-byte front end (`--bytes-per-clock` B > 1): the
//! model that `emit::wide` prints as RTL. It gives, for every byte, the
//! tokenizer state that consumes it: the control of the item back end
//! ([`super::items`]).
//!
//! # Why a second machine
//!
//! The SAX parser ([`super::Tokenizer`], `qrtl_sax`) consumes one byte per
//! clock, and its next state depends on the previous byte's: chaining B
//! copies of it in one clock multiplies the logic depth by B. The front end
//! instead runs a *lexer*: a small finite-state machine with no data
//! registers ([`Lex`], 35 states) that knows, for every byte, which state of
//! the tokenizer consumes it. A machine without data registers can be run B
//! bytes at a time with a bounded depth: per byte, its transition is a
//! Boolean matrix of the byte alone; the product of a beat's B matrices
//! (computed in a pipeline, from bytes only) takes the state from one beat
//! to the next in a single AND-OR level, whatever B is (parallel prefix of
//! a finite-state machine's transitions).
//!
//! The lexer is *optimistic*: it follows the tokenizer exactly on every
//! prefix of a document before the document's first error (it merges
//! states that differ only in their errors or in registers it does not
//! need: `Misc` and `Text` are both [`Lex::Content`], keyword positions and
//! reference sub-states collapse), and after an error it may be wrong,
//! which is harmless because the parser ignores everything after it.

/// Byte classes the lexer's transitions test (the front end decodes them
/// per lane, like `qrtl_sax`'s stage 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Space, tab, LF, CR.
    Ws,
    /// Letter, `_`, `:` or a byte ≥ 0x80.
    NameStart,
    /// A name start, digit, `-` or `.`.
    NameChar,
    Lt,
    Gt,
    Amp,
    Slash,
    Qmark,
    Excl,
    Eq,
    Dquote,
    Squote,
    Dash,
    Lsqb,
    Rsqb,
    Semi,
    /// 0xEF, the first byte of a UTF-8 byte order mark.
    Bom0,
}

impl Class {
    pub const ALL: [Class; 17] = [
        Class::Ws,
        Class::NameStart,
        Class::NameChar,
        Class::Lt,
        Class::Gt,
        Class::Amp,
        Class::Slash,
        Class::Qmark,
        Class::Excl,
        Class::Eq,
        Class::Dquote,
        Class::Squote,
        Class::Dash,
        Class::Lsqb,
        Class::Rsqb,
        Class::Semi,
        Class::Bom0,
    ];

    /// Whether `b` is in the class (the name and whitespace classes are
    /// the tokenizer's own).
    pub fn contains(self, b: u8) -> bool {
        use super::tokenizer::{is_name_char, is_name_start, is_ws};
        match self {
            Class::Ws => is_ws(b),
            Class::NameStart => is_name_start(b),
            Class::NameChar => is_name_char(b),
            Class::Lt => b == b'<',
            Class::Gt => b == b'>',
            Class::Amp => b == b'&',
            Class::Slash => b == b'/',
            Class::Qmark => b == b'?',
            Class::Excl => b == b'!',
            Class::Eq => b == b'=',
            Class::Dquote => b == b'"',
            Class::Squote => b == b'\'',
            Class::Dash => b == b'-',
            Class::Lsqb => b == b'[',
            Class::Rsqb => b == b']',
            Class::Semi => b == b';',
            Class::Bom0 => b == 0xEF,
        }
    }

    /// The name of the per-lane class line in the RTL.
    pub fn rtl_name(self) -> &'static str {
        match self {
            Class::Ws => "ws",
            Class::NameStart => "nstart",
            Class::NameChar => "nchar",
            Class::Lt => "lt",
            Class::Gt => "gt",
            Class::Amp => "amp",
            Class::Slash => "slash",
            Class::Qmark => "qmark",
            Class::Excl => "excl",
            Class::Eq => "eq",
            Class::Dquote => "dquote",
            Class::Squote => "squote",
            Class::Dash => "dash",
            Class::Lsqb => "lsqb",
            Class::Rsqb => "rsqb",
            Class::Semi => "semi",
            Class::Bom0 => "bom0",
        }
    }
}

/// A set of classes: a byte matches if it is in any of them.
pub type Pred = &'static [Class];

fn matches(pred: Pred, b: u8) -> bool {
    pred.iter().any(|c| c.contains(b))
}

/// The lexer's states: the tokenizer state that consumes the byte (see
/// the module docs for what is merged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lex {
    /// The document's first byte.
    Start,
    Bom1,
    Bom2,
    /// `Misc` and `Text`: prolog, epilog and character data.
    Content,
    Lt,
    StartName,
    TagSpace,
    AttrName,
    AttrAfterName,
    AttrEq,
    AttrValueDq,
    AttrValueSq,
    AfterAttrValue,
    EmptyTagSlash,
    EndName,
    EndTagSpace,
    Bang,
    CommentOpen,
    CommentBody,
    CommentDash1,
    CommentDash2,
    /// `<![` up to the `[` ending `CDATA[`.
    CdataOpen,
    CdataBody,
    CdataBracket1,
    CdataBracket2,
    /// `<!D` up to the whitespace after `DOCTYPE`.
    DoctypeOpen,
    DoctypeBody,
    DoctypeDq,
    DoctypeSq,
    /// `PiTargetStart` and `PiTarget`.
    PiTarget,
    PiBody,
    /// `PiQuestion` and `PiTargetQuestion`.
    PiQuestion,
    /// A reference in character data (all of `RefStart` .. `RefHex`).
    RefText,
    RefAttrDq,
    RefAttrSq,
}

/// One state of the table: transitions in order (the first whose class
/// set holds the byte wins), and the state for any other byte.
pub struct Row {
    pub state: Lex,
    pub edges: &'static [(Pred, Lex)],
    pub otherwise: Lex,
}

use Class as C;
use Lex as L;

const WS: Pred = &[C::Ws];

const fn row(state: Lex, edges: &'static [(Pred, Lex)], otherwise: Lex) -> Row {
    Row {
        state,
        edges,
        otherwise,
    }
}

/// The lexer, one row per state, in [`Lex`] order. Comments name what the
/// tokenizer does where the optimistic table differs from it only on bytes
/// that are errors there.
pub const TABLE: [Row; 35] = [
    // BOM or `<`; anything else is `Misc` (an error unless whitespace).
    row(
        L::Start,
        &[(&[C::Bom0], L::Bom1), (&[C::Lt], L::Lt)],
        L::Content,
    ),
    row(L::Bom1, &[], L::Bom2),
    row(L::Bom2, &[], L::Content),
    row(
        L::Content,
        &[(&[C::Lt], L::Lt), (&[C::Amp], L::RefText)],
        L::Content,
    ),
    // Lt: a name start begins a start tag; other bytes are errors.
    row(
        L::Lt,
        &[
            (&[C::Slash], L::EndName),
            (&[C::Qmark], L::PiTarget),
            (&[C::Excl], L::Bang),
        ],
        L::StartName,
    ),
    row(
        L::StartName,
        &[
            (&[C::Gt], L::Content),
            (&[C::Slash], L::EmptyTagSlash),
            (WS, L::TagSpace),
        ],
        L::StartName,
    ),
    row(
        L::TagSpace,
        &[
            (WS, L::TagSpace),
            (&[C::Gt], L::Content),
            (&[C::Slash], L::EmptyTagSlash),
        ],
        L::AttrName,
    ),
    row(
        L::AttrName,
        &[(&[C::Eq], L::AttrEq), (WS, L::AttrAfterName)],
        L::AttrName,
    ),
    row(L::AttrAfterName, &[(WS, L::AttrAfterName)], L::AttrEq),
    row(
        L::AttrEq,
        &[
            (WS, L::AttrEq),
            (&[C::Dquote], L::AttrValueDq),
            (&[C::Squote], L::AttrValueSq),
        ],
        L::AttrEq,
    ),
    row(
        L::AttrValueDq,
        &[(&[C::Dquote], L::AfterAttrValue), (&[C::Amp], L::RefAttrDq)],
        L::AttrValueDq,
    ),
    row(
        L::AttrValueSq,
        &[(&[C::Squote], L::AfterAttrValue), (&[C::Amp], L::RefAttrSq)],
        L::AttrValueSq,
    ),
    row(
        L::AfterAttrValue,
        &[(&[C::Gt], L::Content), (&[C::Slash], L::EmptyTagSlash)],
        L::TagSpace,
    ),
    row(L::EmptyTagSlash, &[], L::Content),
    row(
        L::EndName,
        &[(&[C::Gt], L::Content), (WS, L::EndTagSpace)],
        L::EndName,
    ),
    row(L::EndTagSpace, &[(WS, L::EndTagSpace)], L::Content),
    // Bang: `-`, `[`, or the `D` of DOCTYPE.
    row(
        L::Bang,
        &[(&[C::Dash], L::CommentOpen), (&[C::Lsqb], L::CdataOpen)],
        L::DoctypeOpen,
    ),
    row(L::CommentOpen, &[], L::CommentBody),
    row(
        L::CommentBody,
        &[(&[C::Dash], L::CommentDash1)],
        L::CommentBody,
    ),
    row(
        L::CommentDash1,
        &[(&[C::Dash], L::CommentDash2)],
        L::CommentBody,
    ),
    row(L::CommentDash2, &[], L::Content),
    // `CDATA[` holds one `[`, its last byte.
    row(L::CdataOpen, &[(&[C::Lsqb], L::CdataBody)], L::CdataOpen),
    row(
        L::CdataBody,
        &[(&[C::Rsqb], L::CdataBracket1)],
        L::CdataBody,
    ),
    row(
        L::CdataBracket1,
        &[(&[C::Rsqb], L::CdataBracket2)],
        L::CdataBody,
    ),
    row(
        L::CdataBracket2,
        &[(&[C::Gt], L::Content), (&[C::Rsqb], L::CdataBracket2)],
        L::CdataBody,
    ),
    // `DOCTYPE` holds no whitespace; the whitespace after it starts the body.
    row(L::DoctypeOpen, &[(WS, L::DoctypeBody)], L::DoctypeOpen),
    row(
        L::DoctypeBody,
        &[
            (&[C::Gt], L::Content),
            (&[C::Dquote], L::DoctypeDq),
            (&[C::Squote], L::DoctypeSq),
        ],
        L::DoctypeBody,
    ),
    row(
        L::DoctypeDq,
        &[(&[C::Dquote], L::DoctypeBody)],
        L::DoctypeDq,
    ),
    row(
        L::DoctypeSq,
        &[(&[C::Squote], L::DoctypeBody)],
        L::DoctypeSq,
    ),
    row(
        L::PiTarget,
        &[(&[C::Qmark], L::PiQuestion), (WS, L::PiBody)],
        L::PiTarget,
    ),
    row(L::PiBody, &[(&[C::Qmark], L::PiQuestion)], L::PiBody),
    row(
        L::PiQuestion,
        &[(&[C::Gt], L::Content), (&[C::Qmark], L::PiQuestion)],
        L::PiBody,
    ),
    // A reference ends at its `;` (a `;` anywhere else is an error).
    row(L::RefText, &[(&[C::Semi], L::Content)], L::RefText),
    row(L::RefAttrDq, &[(&[C::Semi], L::AttrValueDq)], L::RefAttrDq),
    row(L::RefAttrSq, &[(&[C::Semi], L::AttrValueSq)], L::RefAttrSq),
];

impl Lex {
    /// Every state, in table order.
    pub fn all() -> impl Iterator<Item = Lex> {
        TABLE.iter().map(|r| r.state)
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn row(self) -> &'static Row {
        &TABLE[self.index()]
    }

    /// The state after consuming `b`.
    pub fn next(self, b: u8) -> Lex {
        let row = self.row();
        row.edges
            .iter()
            .find(|(pred, _)| matches(pred, b))
            .map_or(row.otherwise, |&(_, to)| to)
    }

    /// The name of the state's bit in the RTL.
    pub fn rtl_name(self) -> String {
        let mut s = String::from("L");
        for c in format!("{self:?}").chars() {
            if c.is_ascii_uppercase() {
                s.push('_');
            }
            s.push(c.to_ascii_uppercase());
        }
        s
    }
}

/// What the design compares besides names and structure: attribute
/// values, character data (`text()`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub values: bool,
    pub text: bool,
}

impl Needs {
    /// Every combination (for tests and benchmarks).
    pub const ALL: [Needs; 4] = [
        Needs {
            values: false,
            text: false,
        },
        Needs {
            values: true,
            text: false,
        },
        Needs {
            values: false,
            text: true,
        },
        Needs {
            values: true,
            text: true,
        },
    ];
}

#[cfg(test)]
pub(crate) mod tests;

/// States whose byte begins a name: an element's (`Lt`), an attribute's
/// (`TagSpace`), a PI target's (`PiTarget` right after `?`).
fn begins_name(doc: &[u8], lex: &[Lex], j: usize) -> bool {
    match lex[j] {
        Lex::Lt | Lex::TagSpace => true,
        Lex::PiTarget => j > 0 && doc[j - 1] == b'?',
        _ => false,
    }
}

/// The name-character fault of byte `doc[i]` as the front end computes it
/// for every lane (`lex[j]`: the state before byte j): the byte ends a
/// character beyond ASCII (its last UTF-8 byte, found from the three bytes
/// before it; in ISO-8859-1 (`latin1`), any byte 80..FF) in a start-tag
/// name, an attribute name or a PI target, and that character may not
/// stand there ([`super::names`]: a name's first character must be a
/// `NameStartChar`). The DOCTYPE's name is the serial logic's. The bytes
/// before `i` are assumed sound UTF-8 (the character check runs first).
pub fn name_fault(doc: &[u8], lex: &[Lex], i: usize, latin1: bool) -> bool {
    use super::names::{class_of, NameClass};
    let b = doc[i];
    let in_name = |j: usize| {
        matches!(lex[j], Lex::StartName | Lex::AttrName | Lex::PiTarget) || begins_name(doc, lex, j)
    };
    if b < 0x80 || !in_name(i) {
        return false;
    }
    let (cp, lead) = if latin1 {
        (u32::from(b), i)
    } else {
        if b >= 0xC0 {
            return false;
        }
        // The lead: the nearest byte before that is not a continuation.
        let Some(lead) = (i.saturating_sub(3)..i).rev().find(|&j| doc[j] >= 0xC0) else {
            return false;
        };
        let len = match doc[lead] {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        if i - lead + 1 != len {
            return false;
        }
        let mask = [0x1F, 0x0F, 0x07][len - 2];
        let cp = doc[lead + 1..=i]
            .iter()
            .fold(u32::from(doc[lead] & mask), |cp, &c| {
                (cp << 6) | u32::from(c & 0x3F)
            });
        (cp, lead)
    };
    match class_of(cp) {
        NameClass::Start => false,
        NameClass::Char => begins_name(doc, lex, lead),
        NameClass::Other => true,
    }
}
