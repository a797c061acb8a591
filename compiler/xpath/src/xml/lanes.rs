//! The lexer of the multi-byte front end (`--bytes-per-clock` B > 1): the
//! model that `emit::wide` prints as RTL, and the rule that decides which
//! bytes the byte-serial parser behind it may skip.
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
//!
//! # Which bytes are skipped
//!
//! A byte is *droppable* ([`Droppable::at`]) when consuming it leaves the
//! tokenizer's state and registers unchanged and produces no event that the
//! design reads and no error: whitespace between attributes, comment, PI
//! and DOCTYPE bodies, and (when the design has no value or `text()`
//! comparison) the characters of attribute values, character data and
//! CDATA sections after the first. Bytes that may reveal an error, and
//! every byte of names, references and delimiters, are kept; so is a
//! document's last byte. The parser behind the front end then sees the
//! kept bytes only and produces the same events, the same status and the
//! same reason as on the whole document (`tests` below, and
//! `tests/sax_rtl.rs` for the RTL). Only error positions (line, column,
//! offset) differ, and the hardware does not report them.

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

/// When a state's byte may be skipped (see [`Droppable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drop {
    Never,
    /// If the byte is in the set.
    If(Pred),
    /// If the byte is in none of the classes.
    Unless(Pred),
    /// Character data: see [`Droppable::at`].
    Content,
}

/// What the design reads besides names and structure: a byte that only
/// feeds such a comparison is droppable when the design has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Attribute values (value comparisons).
    Values,
    /// Character data (`text()` tests).
    Text,
}

/// One state of the table: transitions in order (the first whose class
/// set holds the byte wins), the state for any other byte, and when the
/// byte is droppable.
pub struct Row {
    pub state: Lex,
    pub edges: &'static [(Pred, Lex)],
    pub otherwise: Lex,
    pub drop: Drop,
    /// The drop rule applies only when the design does not read this.
    pub unless_needed: Option<Need>,
}

use Class as C;
use Lex as L;

const WS: Pred = &[C::Ws];
/// Content bytes never dropped: they start markup or a reference, or take
/// part in `]]>`.
pub const CONTENT_SPECIAL: Pred = &[C::Lt, C::Amp, C::Rsqb, C::Gt];

const fn row(state: Lex, edges: &'static [(Pred, Lex)], otherwise: Lex, drop: Drop) -> Row {
    Row {
        state,
        edges,
        otherwise,
        drop,
        unless_needed: None,
    }
}

const fn row_needing(
    state: Lex,
    edges: &'static [(Pred, Lex)],
    otherwise: Lex,
    drop: Drop,
    need: Need,
) -> Row {
    Row {
        state,
        edges,
        otherwise,
        drop,
        unless_needed: Some(need),
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
        Drop::Never,
    ),
    row(L::Bom1, &[], L::Bom2, Drop::Never),
    row(L::Bom2, &[], L::Content, Drop::Never),
    row_needing(
        L::Content,
        &[(&[C::Lt], L::Lt), (&[C::Amp], L::RefText)],
        L::Content,
        Drop::Content,
        Need::Text,
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
        Drop::Never,
    ),
    row(
        L::StartName,
        &[
            (&[C::Gt], L::Content),
            (&[C::Slash], L::EmptyTagSlash),
            (WS, L::TagSpace),
        ],
        L::StartName,
        Drop::Never,
    ),
    row(
        L::TagSpace,
        &[
            (WS, L::TagSpace),
            (&[C::Gt], L::Content),
            (&[C::Slash], L::EmptyTagSlash),
        ],
        L::AttrName,
        Drop::If(WS),
    ),
    row(
        L::AttrName,
        &[(&[C::Eq], L::AttrEq), (WS, L::AttrAfterName)],
        L::AttrName,
        Drop::Never,
    ),
    row(
        L::AttrAfterName,
        &[(WS, L::AttrAfterName)],
        L::AttrEq,
        Drop::If(WS),
    ),
    row(
        L::AttrEq,
        &[
            (WS, L::AttrEq),
            (&[C::Dquote], L::AttrValueDq),
            (&[C::Squote], L::AttrValueSq),
        ],
        L::AttrEq,
        Drop::If(WS),
    ),
    row_needing(
        L::AttrValueDq,
        &[(&[C::Dquote], L::AfterAttrValue), (&[C::Amp], L::RefAttrDq)],
        L::AttrValueDq,
        Drop::Unless(&[C::Dquote, C::Amp, C::Lt]),
        Need::Values,
    ),
    row_needing(
        L::AttrValueSq,
        &[(&[C::Squote], L::AfterAttrValue), (&[C::Amp], L::RefAttrSq)],
        L::AttrValueSq,
        Drop::Unless(&[C::Squote, C::Amp, C::Lt]),
        Need::Values,
    ),
    row(
        L::AfterAttrValue,
        &[(&[C::Gt], L::Content), (&[C::Slash], L::EmptyTagSlash)],
        L::TagSpace,
        Drop::Never,
    ),
    row(L::EmptyTagSlash, &[], L::Content, Drop::Never),
    row(
        L::EndName,
        &[(&[C::Gt], L::Content), (WS, L::EndTagSpace)],
        L::EndName,
        Drop::Never,
    ),
    row(
        L::EndTagSpace,
        &[(WS, L::EndTagSpace)],
        L::Content,
        Drop::If(WS),
    ),
    // Bang: `-`, `[`, or the `D` of DOCTYPE.
    row(
        L::Bang,
        &[(&[C::Dash], L::CommentOpen), (&[C::Lsqb], L::CdataOpen)],
        L::DoctypeOpen,
        Drop::Never,
    ),
    row(L::CommentOpen, &[], L::CommentBody, Drop::Never),
    row(
        L::CommentBody,
        &[(&[C::Dash], L::CommentDash1)],
        L::CommentBody,
        Drop::Unless(&[C::Dash]),
    ),
    row(
        L::CommentDash1,
        &[(&[C::Dash], L::CommentDash2)],
        L::CommentBody,
        Drop::Never,
    ),
    row(L::CommentDash2, &[], L::Content, Drop::Never),
    // `CDATA[` holds one `[`, its last byte.
    row(
        L::CdataOpen,
        &[(&[C::Lsqb], L::CdataBody)],
        L::CdataOpen,
        Drop::Never,
    ),
    row_needing(
        L::CdataBody,
        &[(&[C::Rsqb], L::CdataBracket1)],
        L::CdataBody,
        Drop::Unless(&[C::Rsqb]),
        Need::Text,
    ),
    row(
        L::CdataBracket1,
        &[(&[C::Rsqb], L::CdataBracket2)],
        L::CdataBody,
        Drop::Never,
    ),
    row(
        L::CdataBracket2,
        &[(&[C::Gt], L::Content), (&[C::Rsqb], L::CdataBracket2)],
        L::CdataBody,
        Drop::Never,
    ),
    // `DOCTYPE` holds no whitespace; the whitespace after it starts the body.
    row(
        L::DoctypeOpen,
        &[(WS, L::DoctypeBody)],
        L::DoctypeOpen,
        Drop::Never,
    ),
    row(
        L::DoctypeBody,
        &[
            (&[C::Gt], L::Content),
            (&[C::Dquote], L::DoctypeDq),
            (&[C::Squote], L::DoctypeSq),
        ],
        L::DoctypeBody,
        Drop::Unless(&[C::Gt, C::Lsqb, C::Dquote, C::Squote, C::Lt]),
    ),
    row(
        L::DoctypeDq,
        &[(&[C::Dquote], L::DoctypeBody)],
        L::DoctypeDq,
        Drop::Unless(&[C::Dquote]),
    ),
    row(
        L::DoctypeSq,
        &[(&[C::Squote], L::DoctypeBody)],
        L::DoctypeSq,
        Drop::Unless(&[C::Squote]),
    ),
    row(
        L::PiTarget,
        &[(&[C::Qmark], L::PiQuestion), (WS, L::PiBody)],
        L::PiTarget,
        Drop::Never,
    ),
    row(
        L::PiBody,
        &[(&[C::Qmark], L::PiQuestion)],
        L::PiBody,
        Drop::Unless(&[C::Qmark]),
    ),
    row(
        L::PiQuestion,
        &[(&[C::Gt], L::Content), (&[C::Qmark], L::PiQuestion)],
        L::PiBody,
        Drop::Never,
    ),
    // A reference ends at its `;` (a `;` anywhere else is an error).
    row(
        L::RefText,
        &[(&[C::Semi], L::Content)],
        L::RefText,
        Drop::Never,
    ),
    row(
        L::RefAttrDq,
        &[(&[C::Semi], L::AttrValueDq)],
        L::RefAttrDq,
        Drop::Never,
    ),
    row(
        L::RefAttrSq,
        &[(&[C::Semi], L::AttrValueSq)],
        L::RefAttrSq,
        Drop::Never,
    ),
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

/// What the design reads (see [`Need`]).
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

    pub fn has(self, need: Need) -> bool {
        match need {
            Need::Values => self.values,
            Need::Text => self.text,
        }
    }
}

/// The drop decision, byte by byte. `Content` looks one byte back: the
/// first byte of a character-data run is kept (outside the root element a
/// non-whitespace byte is an error, and a text node starts there), and so
/// is the first non-whitespace byte after whitespace, so a kept byte of the
/// run is an error outside the root exactly when the run holds one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Droppable {
    /// The previous byte was character data other than [`CONTENT_SPECIAL`].
    prev_plain: bool,
    /// ... and whitespace.
    prev_ws: bool,
}

impl Droppable {
    /// Whether byte `b`, consumed in `state`, may be skipped; then remember
    /// it for the next byte's decision.
    pub fn at(&mut self, state: Lex, b: u8, needs: Needs) -> bool {
        let row = state.row();
        let needed = row.unless_needed.is_some_and(|n| needs.has(n));
        let ws = Class::Ws.contains(b);
        let plain = state == Lex::Content && !matches(CONTENT_SPECIAL, b);
        let drop = !needed
            && match row.drop {
                Drop::Never => false,
                Drop::If(pred) => matches(pred, b),
                Drop::Unless(pred) => !matches(pred, b),
                Drop::Content => plain && self.prev_plain && (ws || !self.prev_ws),
            };
        self.prev_plain = plain;
        self.prev_ws = ws;
        drop
    }
}

/// The bytes of `doc` the front end passes on: every byte that is not
/// droppable, and the last byte.
pub fn compact(doc: &[u8], needs: Needs) -> Vec<u8> {
    let mut state = Lex::Start;
    let mut drop = Droppable::default();
    let mut out = Vec::with_capacity(doc.len());
    for (i, &b) in doc.iter().enumerate() {
        if !drop.at(state, b, needs) || i + 1 == doc.len() {
            out.push(b);
        }
        state = state.next(b);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
