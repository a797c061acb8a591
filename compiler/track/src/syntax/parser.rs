//! FlexTrack pattern parser: text → [`ast::Pattern`] or one [`SyntaxError`].
//!
//! Tokens are recognised by small nom parsers (`name`, `number`, `blanks`);
//! this file walks them with a byte cursor so each error names the exact
//! token at fault. Grammar (SPEC §4.1), blanks allowed between tokens:
//!
//! ```text
//! pattern    := item ('.' item)* constraint*
//! item       := region | '@'NAME | '?' | '?+' | '?*' | '!' region | pred
//! pred       := '[' [op ','] (region | '@'NAME) [',' time] ']'   op: inside | overlap (default)
//! time       := T | '(' T ':' T ')'
//! constraint := '{' '@'NAME ':' region (',' region)* '}'
//! ```
//!
//! Names (regions and variables) are `[A-Za-z0-9_]+`; times are unsigned
//! 32-bit integers. Spans are byte offsets into the line given to
//! [`parse_pattern`].

use super::ast::{Constraint, Item, ItemKind, Name, Pattern, Target, Time, TimeOp};
use super::error::{SyntaxError, TrackErrorKind as K};
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::digit1;
use nom::IResult;
use qrtl_core::diag::{Diagnostic, Span};

/// One pattern of a pattern file.
#[derive(Clone, Debug, PartialEq)]
pub struct SourcePattern {
    /// 0-based index among the file's non-blank, non-comment lines.
    pub id: usize,
    /// 1-based line number.
    pub line: usize,
    /// The line as written (without the line break); spans point into it.
    pub text: String,
    pub ast: Pattern,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A region or variable name.
fn name(s: &str) -> IResult<&str, &str> {
    take_while1(is_name_char)(s)
}

fn blanks(s: &str) -> IResult<&str, &str> {
    take_while(|c| c == ' ' || c == '\t')(s)
}

fn number(s: &str) -> IResult<&str, &str> {
    digit1(s)
}

/// Parse one pattern (leading and trailing blanks allowed).
pub fn parse_pattern(src: &str) -> Result<Pattern, SyntaxError> {
    Parser { src, pos: 0 }.pattern()
}

/// Parse a pattern file: one pattern per line; blank lines and lines whose
/// first non-blank character is `#` are skipped; every other line gets the
/// next id whether or not it parses. Returns the parsed patterns and one
/// diagnostic per line that failed.
pub fn parse_pattern_file(file: &str, text: &str) -> (Vec<SourcePattern>, Vec<Diagnostic>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let mut id = 0;
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_pattern(line) {
            Ok(ast) => out.push(SourcePattern {
                id,
                line: index + 1,
                text: line.to_string(),
                ast,
            }),
            Err(e) => diags.push(e.diagnostic(file, index + 1, line)),
        }
        id += 1;
    }
    (out, diags)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn skip_blanks(&mut self) {
        if let Ok((rest, _)) = blanks(self.rest()) {
            self.pos = self.src.len() - rest.len();
        }
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// The span of the token at the cursor (a name, a number or one char).
    fn token_span(&self) -> Span {
        let rest = self.rest();
        let len = match name(rest) {
            Ok((r, _)) => rest.len() - r.len(),
            Err(_) => rest.chars().next().map_or(0, char::len_utf8),
        };
        Span::new(self.pos, self.pos + len)
    }

    fn found(&self) -> String {
        let s = self.token_span();
        if s.start == s.end {
            "end of line".to_string()
        } else {
            format!("`{}`", &self.src[s.start..s.end])
        }
    }

    fn err(&self, kind: K, message: impl Into<String>) -> SyntaxError {
        SyntaxError::new(kind, self.token_span(), message)
    }

    /// An error at the cursor: a bad character gets its own kind.
    fn unexpected(&self, kind: K, expected: &str) -> SyntaxError {
        match self.peek() {
            Some(c) if !is_name_char(c) && !"@?!*+.[](){},:".contains(c) && c != ' ' => {
                self.err(K::BadCharacter, format!("unexpected character `{c}`"))
            }
            _ => self.err(kind, format!("expected {expected}, found {}", self.found())),
        }
    }

    fn name(&mut self) -> Option<Name> {
        let (rest, n) = name(self.rest()).ok()?;
        let start = self.pos;
        self.pos = self.src.len() - rest.len();
        Some(Name {
            text: n.to_string(),
            span: Span::new(start, self.pos),
        })
    }

    fn region(&mut self) -> Result<Name, SyntaxError> {
        self.skip_blanks();
        match self.name() {
            Some(n) => Ok(n),
            None => Err(self.unexpected(K::ExpectedRegion, "a region name")),
        }
    }

    /// After `@` (consumed at `at`).
    fn var_name(&mut self, at: usize) -> Result<Name, SyntaxError> {
        match self.name() {
            Some(mut n) => {
                n.span.start = at;
                Ok(n)
            }
            None => Err(SyntaxError::new(
                K::ExpectedVariableName,
                Span::new(at, self.token_span().end.max(at + 1)),
                format!("expected a variable name after `@`, found {}", self.found()),
            )),
        }
    }

    fn pattern(mut self) -> Result<Pattern, SyntaxError> {
        self.skip_blanks();
        if self.rest().is_empty() {
            return Err(self.err(K::EmptyPattern, "empty pattern"));
        }
        let mut items = vec![self.item()?];
        loop {
            self.skip_blanks();
            if self.eat('.') {
                items.push(self.item()?);
            } else {
                break;
            }
        }
        let mut constraints: Vec<Constraint> = Vec::new();
        loop {
            self.skip_blanks();
            match self.peek() {
                None => break,
                Some('{') => constraints.push(self.constraint()?),
                Some('.') if !constraints.is_empty() => {
                    return Err(self.err(K::ItemAfterConstraint, "item after a constraint"))
                }
                _ => {
                    let expected = if constraints.is_empty() {
                        "`.`, `{` or end of line"
                    } else {
                        "`{` or end of line"
                    };
                    return Err(self.unexpected(K::UnexpectedToken, expected));
                }
            }
        }
        let vars = Pattern {
            items: items.clone(),
            constraints: Vec::new(),
        };
        let vars = vars.variables();
        for (i, c) in constraints.iter().enumerate() {
            if !vars.contains(&c.var.text.as_str()) {
                return Err(SyntaxError::new(
                    K::ConstraintOnUnknownVariable,
                    c.var.span,
                    format!(
                        "constraint on `@{}`, which the pattern does not use",
                        c.var.text
                    ),
                ));
            }
            if constraints[..i].iter().any(|d| d.var.text == c.var.text) {
                return Err(SyntaxError::new(
                    K::DuplicateConstraint,
                    c.var.span,
                    format!("second constraint on `@{}`", c.var.text),
                ));
            }
        }
        Ok(Pattern { items, constraints })
    }

    fn item(&mut self) -> Result<Item, SyntaxError> {
        self.skip_blanks();
        let start = self.pos;
        let kind = match self.peek() {
            Some('?') => {
                self.pos += 1;
                if self.eat('+') {
                    ItemKind::Plus
                } else if self.eat('*') {
                    ItemKind::Star
                } else {
                    ItemKind::Any
                }
            }
            Some('@') => {
                self.pos += 1;
                ItemKind::Var(self.var_name(start)?)
            }
            Some('!') => {
                self.pos += 1;
                self.skip_blanks();
                match self.peek() {
                    Some('@' | '?' | '[' | '!') => {
                        return Err(self.err(
                            K::NegatedNonRegion,
                            format!(
                                "`!` before {}: only a fixed region can be negated",
                                self.found()
                            ),
                        ))
                    }
                    _ => ItemKind::Not(self.region()?),
                }
            }
            Some('[') => {
                self.pos += 1;
                self.pred(start)?
            }
            Some(c) if is_name_char(c) => ItemKind::Region(self.name().expect("a name char")),
            _ => return Err(self.unexpected(K::ExpectedItem, "an item")),
        };
        Ok(Item {
            kind,
            span: Span::new(start, self.pos),
        })
    }

    fn expect_in_bracket(&mut self, c: char, open: usize, what: &str) -> Result<(), SyntaxError> {
        self.skip_blanks();
        if self.eat(c) {
            return Ok(());
        }
        if self.rest().is_empty() {
            return Err(SyntaxError::new(
                K::UnclosedBracket,
                Span::new(open, open + 1),
                "`[` is never closed",
            ));
        }
        Err(self.unexpected(K::UnexpectedToken, what))
    }

    /// After `[` (at `open`).
    fn pred(&mut self, open: usize) -> Result<ItemKind, SyntaxError> {
        self.skip_blanks();
        let save = self.pos;
        // `op` may be left out (`[A, 5]`, `[@x]`): it defaults to overlap.
        let op = match self.name() {
            Some(n) if n.text == "inside" => Some(TimeOp::Inside),
            Some(n) if n.text == "overlap" => Some(TimeOp::Overlap),
            Some(n) => {
                self.skip_blanks();
                let rest = self.rest();
                let time_next = rest.strip_prefix(',').is_some_and(|r| {
                    let r = r.trim_start();
                    r.starts_with('(') || r.starts_with(|c: char| c.is_ascii_digit())
                });
                if rest.starts_with(']') || time_next {
                    self.pos = save;
                    None
                } else {
                    return Err(SyntaxError::new(
                        K::UnknownOp,
                        n.span,
                        format!("unknown operator `{}`", n.text),
                    ));
                }
            }
            None if self.peek() == Some('@') => None,
            None => {
                if self.rest().trim().is_empty() {
                    return Err(SyntaxError::new(
                        K::UnclosedBracket,
                        Span::new(open, open + 1),
                        "`[` is never closed",
                    ));
                }
                return Err(self.unexpected(K::UnknownOp, "`inside` or `overlap`"));
            }
        };
        if op.is_some() {
            self.expect_in_bracket(',', open, "`,`")?;
        }
        let op = op.unwrap_or(TimeOp::Overlap);
        self.skip_blanks();
        let at = self.pos;
        let target = if self.eat('@') {
            Target::Var(self.var_name(at)?)
        } else {
            Target::Region(self.region()?)
        };
        self.skip_blanks();
        let time = if self.eat(',') {
            Some(self.time()?)
        } else {
            None
        };
        self.expect_in_bracket(']', open, "`,` or `]`")?;
        Ok(ItemKind::Pred { op, target, time })
    }

    fn number(&mut self) -> Result<u32, SyntaxError> {
        self.skip_blanks();
        let Ok((rest, digits)) = number(self.rest()) else {
            return Err(self.unexpected(K::ExpectedTime, "a time"));
        };
        let start = self.pos;
        self.pos = self.src.len() - rest.len();
        if self.peek().is_some_and(is_name_char) {
            self.pos = start;
            return Err(self.unexpected(K::ExpectedTime, "a time"));
        }
        digits.parse::<u32>().map_err(|_| {
            SyntaxError::new(
                K::TimeTooLarge,
                Span::new(start, self.pos),
                format!("time {digits} is above 2^32-1"),
            )
        })
    }

    fn time(&mut self) -> Result<Time, SyntaxError> {
        self.skip_blanks();
        let start = self.pos;
        if !self.eat('(') {
            let t = self.number()?;
            return Ok(Time {
                from: t,
                to: t,
                instant: true,
                span: Span::new(start, self.pos),
            });
        }
        let from = self.number()?;
        self.skip_blanks();
        if !self.eat(':') {
            return Err(self.unexpected(K::UnexpectedToken, "`:`"));
        }
        let to = self.number()?;
        self.skip_blanks();
        if !self.eat(')') {
            if self.rest().trim().is_empty() || self.peek() == Some(']') {
                return Err(SyntaxError::new(
                    K::UnclosedParen,
                    Span::new(start, start + 1),
                    "`(` is never closed",
                ));
            }
            return Err(self.unexpected(K::UnexpectedToken, "`)`"));
        }
        let span = Span::new(start, self.pos);
        if from > to {
            return Err(SyntaxError::new(
                K::EmptyWindow,
                span,
                format!("empty window: {from} is after {to}"),
            ));
        }
        Ok(Time {
            from,
            to,
            instant: false,
            span,
        })
    }

    fn constraint(&mut self) -> Result<Constraint, SyntaxError> {
        let open = self.pos;
        self.pos += 1; // `{`
        self.skip_blanks();
        let at = self.pos;
        let var = if self.eat('@') {
            self.var_name(at)?
        } else if self.peek().is_some_and(is_name_char) {
            return Err(self.err(
                K::ConstraintNeedsVariable,
                format!("constraint on {}: name a variable with `@`", self.found()),
            ));
        } else {
            return Err(self.unexpected(K::ConstraintNeedsVariable, "`@variable`"));
        };
        let unclosed = |p: &Self| {
            SyntaxError::new(
                K::UnclosedBrace,
                Span::new(open, open + 1),
                format!("`{{` is never closed (at {})", p.found()),
            )
        };
        self.skip_blanks();
        if !self.eat(':') {
            if self.rest().is_empty() {
                return Err(unclosed(self));
            }
            return Err(self.unexpected(K::UnexpectedToken, "`:`"));
        }
        let mut regions = vec![self.region()?];
        loop {
            self.skip_blanks();
            if self.eat(',') {
                regions.push(self.region()?);
            } else if self.eat('}') {
                break;
            } else if self.rest().is_empty() {
                return Err(unclosed(self));
            } else {
                return Err(self.unexpected(K::UnexpectedToken, "`,` or `}`"));
            }
        }
        Ok(Constraint {
            var,
            regions,
            span: Span::new(open, self.pos),
        })
    }
}
