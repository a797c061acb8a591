//! Syntax tree of one FlexTrack pattern (SPEC §4.1). Spans are byte offsets
//! into the pattern's source line.

use qrtl_core::diag::Span;

/// A name as written: a region (`A`, `downtown`) or a variable without its
/// `@` (`x` for `@x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    /// For a variable, the span includes the `@`.
    pub span: Span,
}

/// `inside` or `overlap` (SPEC §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeOp {
    /// The visit interval intersects the window.
    Overlap,
    /// The visit interval lies within the window.
    Inside,
}

impl TimeOp {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeOp::Overlap => "overlap",
            TimeOp::Inside => "inside",
        }
    }
}

/// `T` (an instant: the window `(T:T)`) or `(T1:T2)`, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Time {
    pub from: u32,
    pub to: u32,
    /// Written as a single instant `T`.
    pub instant: bool,
    pub span: Span,
}

/// What a predicate's event must be in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Region(Name),
    Var(Name),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `A`: one event in region A.
    Region(Name),
    /// `@x`: one event whose region is the variable's binding.
    Var(Name),
    /// `?`: any one event.
    Any,
    /// `?+`: one or more events.
    Plus,
    /// `?*`: zero or more events.
    Star,
    /// `!A`: one event in any region but A.
    Not(Name),
    /// `[op, R|@x, time]`: one event in R (or the binding of `@x`) whose
    /// visit satisfies `op` against the window.
    Pred {
        op: TimeOp,
        target: Target,
        time: Option<Time>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

/// `{@x: A, B}`: the regions `@x` may bind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub var: Name,
    pub regions: Vec<Name>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub items: Vec<Item>,
    pub constraints: Vec<Constraint>,
}

impl Pattern {
    /// Variable names in order of first occurrence (in items).
    pub fn variables(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for it in &self.items {
            let name = match &it.kind {
                ItemKind::Var(n) => n,
                ItemKind::Pred {
                    target: Target::Var(n),
                    ..
                } => n,
                _ => continue,
            };
            if !out.contains(&name.text.as_str()) {
                out.push(&name.text);
            }
        }
        out
    }
}

impl std::fmt::Display for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.instant {
            write!(f, "{}", self.from)
        } else {
            write!(f, "({}:{})", self.from, self.to)
        }
    }
}

/// Canonical text: parses back to the same pattern (spans aside).
impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, it) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            match &it.kind {
                ItemKind::Region(n) => write!(f, "{}", n.text)?,
                ItemKind::Var(n) => write!(f, "@{}", n.text)?,
                ItemKind::Any => f.write_str("?")?,
                ItemKind::Plus => f.write_str("?+")?,
                ItemKind::Star => f.write_str("?*")?,
                ItemKind::Not(n) => write!(f, "!{}", n.text)?,
                ItemKind::Pred { op, target, time } => {
                    write!(f, "[{}, ", op.as_str())?;
                    match target {
                        Target::Region(n) => write!(f, "{}", n.text)?,
                        Target::Var(n) => write!(f, "@{}", n.text)?,
                    }
                    if let Some(t) = time {
                        write!(f, ", {t}")?;
                    }
                    f.write_str("]")?;
                }
            }
        }
        for c in &self.constraints {
            write!(f, " {{@{}: ", c.var.text)?;
            for (i, r) in c.regions.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(&r.text)?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}
