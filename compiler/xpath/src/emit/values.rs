//! Value comparators (`rtl-templates/xpath/vcmp.v`): one streaming module per
//! distinct comparison `OP literal`, checking a value's unit stream against
//! the literal with XPath 1.0 rules exactly as `ir::value` does.
//!
//! Three kinds of module ([`Plan`]):
//!
//! * **string** (`=`/`!=` with a string literal): a position counter into the
//!   literal plus an "all equal so far" bit; the literal's bytes and its
//!   characters (code point + position after the character) sit in two small
//!   ROMs indexed by the position. A byte unit advances by one byte, a code
//!   point unit by its UTF-8 length.
//! * **number** (a number literal, or any relational operator): `number(v)` is
//!   the decimal value `D` of the string rounded to the nearest f64, and
//!   rounding is monotone, so `number(v) OP c` only depends on where `D`
//!   lies relative to the midpoints between `c` and its f64 neighbours
//!   ([`Bound`]s, exact finite decimals computed here with a small bignum),
//!   with round-half-to-even deciding the ties. The hardware scans the
//!   syntax of `number()` (NaN detection), the sign, and compares `|D|` with
//!   every bound's magnitude digit by digit: significant integer digits are
//!   counted (saturating just past the longest bound), the first differing
//!   integer / fraction digit is remembered, and the bound's digits come
//!   from ROMs indexed by the shared digit counters.
//! * **constant** (the literal's number is NaN, or the operator can never
//!   hold, e.g. `> inf`): `result` is a constant.
//!
//! [`VcmpModel`] is a bit-accurate software model of the registers and the
//! result logic the template emits; the unit tests check it against
//! `ir::value` on millions of random strings, and `tests/vcmp_rtl.rs` checks
//! the RTL against `ir::value` in Verilator.

use crate::ir::xpath::{CmpOp, Compare, Value};
use askama::Template;
use std::cmp::Ordering;

/// One unit of a value stream (SAX `o_*_unit`): a byte, or a decoded numeric
/// character reference (a code point; UTF-8 in the byte domain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Byte(u8),
    Cp(u32),
}

/// The byte string a unit stream stands for (code points as UTF-8; a code
/// point that is not a `char`, which the SAX parser never produces, is
/// shown as U+FFFD).
pub fn units_to_bytes(units: &[Unit]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len());
    for u in units {
        match *u {
            Unit::Byte(b) => out.push(b),
            Unit::Cp(cp) => {
                let c = char::from_u32(cp).unwrap_or('\u{FFFD}');
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
    }
    out
}

/// A non-negative finite decimal: `int` without leading zeros, `frac`
/// without trailing zeros, digits 0..=9 most significant first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub int: Vec<u8>,
    pub frac: Vec<u8>,
}

impl Decimal {
    /// The exact value of `n · 2^e`.
    pub fn of_dyadic(n: u128, e: i32) -> Decimal {
        // Little-endian decimal digits of n.
        let mut digits: Vec<u8> = Vec::new();
        let mut m = n;
        while m > 0 {
            digits.push((m % 10) as u8);
            m /= 10;
        }
        // Multiply by 2^e (e >= 0) or by 5^-e (e < 0, then shift the point).
        let (factor, steps, chunk_factor, chunk) = if e >= 0 {
            (2u64, e as u32, 1u64 << 28, 28u32)
        } else {
            (5u64, (-e) as u32, 5u64.pow(12), 12u32)
        };
        let mul = |digits: &mut Vec<u8>, k: u64| {
            let mut carry = 0u64;
            for d in digits.iter_mut() {
                let x = u64::from(*d) * k + carry;
                *d = (x % 10) as u8;
                carry = x / 10;
            }
            while carry > 0 {
                digits.push((carry % 10) as u8);
                carry /= 10;
            }
        };
        let mut left = steps;
        while left >= chunk {
            mul(&mut digits, chunk_factor);
            left -= chunk;
        }
        if left > 0 {
            mul(&mut digits, factor.pow(left));
        }
        let point = if e >= 0 { 0 } else { (-e) as usize };
        while digits.len() < point {
            digits.push(0);
        }
        let mut frac: Vec<u8> = digits[..point].iter().rev().copied().collect();
        let mut int: Vec<u8> = digits[point..].iter().rev().copied().collect();
        while frac.last() == Some(&0) {
            frac.pop();
        }
        let lead = int.iter().take_while(|&&d| d == 0).count();
        int.drain(..lead);
        Decimal { int, frac }
    }

    /// Plain decimal text (`"0.5"`, `"12"`).
    pub fn text(&self) -> String {
        let mut s: String = if self.int.is_empty() {
            "0".into()
        } else {
            self.int.iter().map(|&d| char::from(b'0' + d)).collect()
        };
        if !self.frac.is_empty() {
            s.push('.');
            s.extend(self.frac.iter().map(|&d| char::from(b'0' + d)));
        }
        s
    }

    /// Compare with another decimal's value.
    pub fn cmp_value(&self, other: &Decimal) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(&other.int))
            .then_with(|| self.frac.cmp(&other.frac))
    }
}

/// A rounding boundary of the literal `c`: the exact midpoint between `c`
/// and an f64 neighbour (or the overflow threshold for ±inf).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub negative: bool,
    pub magnitude: Decimal,
    /// A value exactly at the boundary rounds to `c` (round half to even).
    pub inside: bool,
}

impl Bound {
    pub fn text(&self) -> String {
        format!(
            "{}{}",
            if self.negative { "-" } else { "" },
            self.magnitude.text()
        )
    }
}

/// `number(v) OP c` as position tests against the boundaries of `c`:
/// `below` (`number(v) < c`) ⟺ `D < lower`, or `D = lower` and not inside;
/// `above` (`number(v) > c`) ⟺ `D > upper`, or `D = upper` and not inside.
/// Only the bounds `op` needs are kept; a missing bound makes its test false.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumPlan {
    pub op: CmpOp,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
}

/// What a comparator module computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    Const(bool),
    Str { lit: Vec<u8>, negate: bool },
    Num(NumPlan),
}

/// `(significand, exponent)` with `x = m · 2^e` for a finite non-negative f64.
fn dyadic(x: f64) -> (u128, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = u128::from(bits & ((1u64 << 52) - 1));
    if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u128 << 52), biased - 1075)
    }
}

/// The exact midpoint of two dyadic numbers as `n · 2^e`.
fn midpoint(a: (u128, i32), b: (u128, i32)) -> (u128, i32) {
    let e = a.1.min(b.1);
    let n = (a.0 << (a.1 - e)) + (b.0 << (b.1 - e));
    (n, e - 1)
}

/// The boundaries of a positive finite `c`: (lower, upper), with `inside`.
fn positive_bounds(c: f64) -> (Bound, Bound) {
    debug_assert!(c > 0.0 && c.is_finite());
    let bits = c.to_bits();
    let inside = bits & 1 == 0;
    let here = dyadic(c);
    let down = dyadic(f64::from_bits(bits - 1));
    let up = if c == f64::MAX {
        (1u128 << 53, 971) // 2^1024, the first "double" past MAX
    } else {
        dyadic(f64::from_bits(bits + 1))
    };
    let mk = |(n, e): (u128, i32)| Bound {
        negative: false,
        magnitude: Decimal::of_dyadic(n, e),
        inside,
    };
    (mk(midpoint(down, here)), mk(midpoint(here, up)))
}

/// The smallest magnitude that rounds to infinity: (MAX + 2^1024) / 2.
fn overflow_threshold() -> Decimal {
    let (n, e) = midpoint(dyadic(f64::MAX), (1u128 << 53, 971));
    Decimal::of_dyadic(n, e)
}

fn negate(b: Bound) -> Bound {
    Bound {
        negative: !b.negative,
        ..b
    }
}

impl Plan {
    pub fn new(cmp: &Compare) -> Plan {
        if let (Value::Str(lit), CmpOp::Eq | CmpOp::Ne) = (&cmp.value, cmp.op) {
            return Plan::Str {
                lit: lit.to_vec(),
                negate: cmp.op == CmpOp::Ne,
            };
        }
        let c = cmp.rhs_number();
        if c.is_nan() {
            return Plan::Const(cmp.op == CmpOp::Ne);
        }
        let (lower, upper) = if c == 0.0 {
            let tiny = Bound {
                negative: false,
                magnitude: Decimal::of_dyadic(1, -1075),
                inside: true,
            };
            (Some(negate(tiny.clone())), Some(tiny))
        } else if c.is_infinite() {
            let t = Bound {
                negative: false,
                magnitude: overflow_threshold(),
                inside: true,
            };
            if c > 0.0 {
                (Some(t), None)
            } else {
                (None, Some(negate(t)))
            }
        } else if c > 0.0 {
            let (lo, hi) = positive_bounds(c);
            (Some(lo), Some(hi))
        } else {
            let (lo, hi) = positive_bounds(-c);
            (Some(negate(hi)), Some(negate(lo)))
        };
        let (need_lower, need_upper) = match cmp.op {
            CmpOp::Lt | CmpOp::Ge => (true, false),
            CmpOp::Gt | CmpOp::Le => (false, true),
            CmpOp::Eq | CmpOp::Ne => (true, true),
        };
        let lower = lower.filter(|_| need_lower);
        let upper = upper.filter(|_| need_upper);
        // An operator whose tests are all constant false can never hold
        // (`< -inf`, `> inf`); the others still depend on NaN.
        if lower.is_none() && upper.is_none() && matches!(cmp.op, CmpOp::Lt | CmpOp::Gt) {
            return Plan::Const(false);
        }
        Plan::Num(NumPlan {
            op: cmp.op,
            lower,
            upper,
        })
    }

    /// Strings worth testing this comparison with: the literal, the bounds,
    /// `c` and its neighbours (seeds for the random value generators).
    pub fn interesting_strings(&self, cmp: &Compare) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        if let Value::Str(s) = &cmp.value {
            out.push(s.to_vec());
        }
        let c = cmp.rhs_number();
        if c.is_finite() {
            let bits = c.to_bits();
            for x in [
                c,
                f64::from_bits(bits.wrapping_add(1)),
                f64::from_bits(bits.wrapping_sub(1)),
            ] {
                if x.is_finite() {
                    out.push(format!("{x}").into_bytes());
                }
            }
        }
        if let Plan::Num(p) = self {
            for b in [&p.lower, &p.upper].into_iter().flatten() {
                out.push(b.text().into_bytes());
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------
// Bit-accurate model of the emitted registers and result logic.

/// Number syntax states (`S_*` in the RTL), as `ir::value::NumScan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
    Lead,
    Minus,
    Int,
    Frac,
    Trail,
    Bad,
}

/// Register widths and saturation limits shared by the model and the RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumShape {
    /// Significant integer digit counter saturates here (longest bound + 1).
    pub cnt_max: usize,
    pub cnt_w: usize,
    /// Fraction digit position saturates here (longest bound fraction).
    pub fpos_max: usize,
    pub fpos_w: usize,
}

/// Bits to hold `0..=max` (at least 1).
pub(crate) fn bits_for(max: usize) -> usize {
    (usize::BITS - max.leading_zeros()).max(1) as usize
}

impl NumPlan {
    pub fn bounds(&self) -> Vec<&Bound> {
        [&self.lower, &self.upper].into_iter().flatten().collect()
    }
    pub fn shape(&self) -> NumShape {
        let bs = self.bounds();
        let cnt_max = bs.iter().map(|b| b.magnitude.int.len()).max().unwrap_or(0) + 1;
        let fpos_max = bs.iter().map(|b| b.magnitude.frac.len()).max().unwrap_or(0);
        NumShape {
            cnt_max,
            cnt_w: bits_for(cnt_max),
            fpos_max,
            fpos_w: bits_for(fpos_max),
        }
    }
}

/// Per-bound first-difference registers.
#[derive(Clone, Copy, Debug, Default)]
struct BoundRegs {
    icmp: Option<Ordering>,
    fcmp: Option<Ordering>,
}

/// The registers of one comparator module and their update, exactly as
/// `rtl-templates/xpath/vcmp.v` computes them.
#[derive(Clone, Debug)]
pub struct VcmpModel {
    plan: Plan,
    shape: Option<NumShape>,
    // string kind
    pos: usize,
    ok: bool,
    // number kind
    st: Scan,
    neg: bool,
    saw_digit: bool,
    nonzero: bool,
    cnt: usize,
    fpos: usize,
    regs: [BoundRegs; 2],
}

fn digit_at(digits: &[u8], i: usize) -> u8 {
    digits.get(i).copied().unwrap_or(0)
}

/// Ordering as the RTL's first-difference code: EQ stays open.
fn first_diff(cur: Option<Ordering>, d: u8, k: u8) -> Option<Ordering> {
    match cur {
        Some(Ordering::Equal) | None => Some(d.cmp(&k)),
        other => other,
    }
}

impl VcmpModel {
    pub fn new(plan: Plan) -> VcmpModel {
        let shape = match &plan {
            Plan::Num(p) => Some(p.shape()),
            _ => None,
        };
        let mut m = VcmpModel {
            plan,
            shape,
            pos: 0,
            ok: true,
            st: Scan::Lead,
            neg: false,
            saw_digit: false,
            nonzero: false,
            cnt: 0,
            fpos: 0,
            regs: [BoundRegs::default(); 2],
        };
        m.start();
        m
    }

    /// `start`: a new value begins.
    pub fn start(&mut self) {
        self.pos = 0;
        self.ok = true;
        self.st = Scan::Lead;
        self.neg = false;
        self.saw_digit = false;
        self.nonzero = false;
        self.cnt = 0;
        self.fpos = 0;
        self.regs = [BoundRegs {
            icmp: Some(Ordering::Equal),
            fcmp: Some(Ordering::Equal),
        }; 2];
    }

    pub fn feed(&mut self, unit: Unit) {
        match &self.plan {
            Plan::Const(_) => {}
            Plan::Str { lit, .. } => {
                if !self.ok {
                    return;
                }
                let step = match unit {
                    Unit::Byte(b) => (self.pos < lit.len() && lit[self.pos] == b).then_some(1),
                    Unit::Cp(cp) => lit_char(lit, self.pos)
                        .filter(|&(c, _)| c == cp)
                        .map(|(_, len)| len),
                };
                match step {
                    Some(n) => self.pos += n,
                    None => self.ok = false,
                }
            }
            Plan::Num(p) => {
                let shape = self.shape.expect("number plan has a shape");
                // Character class: code points above U+007F are never numeric.
                let ch = match unit {
                    Unit::Byte(b) => Some(b),
                    Unit::Cp(cp) if cp < 0x80 => Some(cp as u8),
                    Unit::Cp(_) => None,
                };
                let is_ws = ch.is_some_and(crate::ir::value::is_xpath_ws);
                let is_digit = ch.is_some_and(|c| c.is_ascii_digit());
                let is_minus = ch == Some(b'-');
                let is_dot = ch == Some(b'.');
                let d = ch.unwrap_or(0).wrapping_sub(b'0');
                use Scan::*;
                let int_phase = matches!(self.st, Lead | Minus | Int);
                let next = match self.st {
                    Bad => Bad,
                    Lead if is_ws => Lead,
                    Lead if is_minus => Minus,
                    Lead | Minus | Int if is_digit => Int,
                    Lead | Minus | Int if is_dot => Frac,
                    Frac if is_digit => Frac,
                    Int | Frac | Trail if is_ws => Trail,
                    _ => Bad,
                };
                if self.st == Lead && is_minus {
                    self.neg = true;
                }
                let bounds = p.bounds();
                if is_digit && (int_phase || self.st == Frac) {
                    self.saw_digit = true;
                    if d != 0 {
                        self.nonzero = true;
                    }
                }
                if is_digit && int_phase && !(self.cnt == 0 && d == 0) {
                    for (r, b) in self.regs.iter_mut().zip(&bounds) {
                        r.icmp = first_diff(r.icmp, d, digit_at(&b.magnitude.int, self.cnt));
                    }
                    self.cnt = (self.cnt + 1).min(shape.cnt_max);
                }
                if is_digit && self.st == Frac {
                    for (r, b) in self.regs.iter_mut().zip(&bounds) {
                        r.fcmp = first_diff(r.fcmp, d, digit_at(&b.magnitude.frac, self.fpos));
                    }
                    self.fpos = (self.fpos + 1).min(shape.fpos_max);
                }
                self.st = next;
            }
        }
    }

    /// `|D|` compared with bound `i`'s magnitude, from the registers.
    fn magnitude_cmp(&self, i: usize, b: &Bound) -> Ordering {
        let nk = b.magnitude.int.len();
        let nf = b.magnitude.frac.len();
        let r = self.regs[i];
        if self.cnt > nk {
            Ordering::Greater
        } else if self.cnt < nk {
            Ordering::Less
        } else if r.icmp != Some(Ordering::Equal) {
            r.icmp.expect("set")
        } else if r.fcmp != Some(Ordering::Equal) {
            r.fcmp.expect("set")
        } else if self.fpos < nf {
            Ordering::Less
        } else {
            Ordering::Equal
        }
    }

    pub fn result(&self) -> bool {
        match &self.plan {
            Plan::Const(v) => *v,
            Plan::Str { lit, negate } => (self.ok && self.pos == lit.len()) != *negate,
            Plan::Num(p) => {
                let is_nan =
                    !(matches!(self.st, Scan::Int | Scan::Frac | Scan::Trail) && self.saw_digit);
                let neg_nz = self.neg && self.nonzero;
                let mut i = 0;
                let mut below = false;
                let mut above = false;
                if let Some(b) = &p.lower {
                    let m = self.magnitude_cmp(i, b);
                    i += 1;
                    below = if !b.negative {
                        neg_nz || m == Ordering::Less || (!b.inside && m == Ordering::Equal)
                    } else {
                        neg_nz && (m == Ordering::Greater || (!b.inside && m == Ordering::Equal))
                    };
                }
                if let Some(b) = &p.upper {
                    let m = self.magnitude_cmp(i, b);
                    above = if !b.negative {
                        !neg_nz && (m == Ordering::Greater || (!b.inside && m == Ordering::Equal))
                    } else {
                        !neg_nz || m == Ordering::Less || (!b.inside && m == Ordering::Equal)
                    };
                }
                match p.op {
                    CmpOp::Lt => !is_nan && below,
                    CmpOp::Ge => !is_nan && !below,
                    CmpOp::Gt => !is_nan && above,
                    CmpOp::Le => !is_nan && !above,
                    CmpOp::Eq => !is_nan && !below && !above,
                    CmpOp::Ne => is_nan || below || above,
                }
            }
        }
    }

    /// Convenience: start, feed all units, read the result.
    pub fn eval(&mut self, units: &[Unit]) -> bool {
        self.start();
        for &u in units {
            self.feed(u);
        }
        self.result()
    }
}

/// The character starting at byte `i` of the literal, if a well-formed
/// UTF-8 sequence starts there: (code point, its length in bytes).
fn lit_char(lit: &[u8], i: usize) -> Option<(u32, usize)> {
    (1..=4).find_map(|k| {
        let s = std::str::from_utf8(lit.get(i..i + k)?).ok()?;
        let c = s.chars().next()?;
        Some((c as u32, k))
    })
}

// ---------------------------------------------------------------------------
// Emission.

struct RomEntry {
    idx: usize,
    val: String,
}

struct BoundView {
    /// `lo` or `hi`.
    name: &'static str,
    /// What the test means, for the comment.
    role: String,
    text: String,
    negative: bool,
    inside: bool,
    n_int: usize,
    n_frac: usize,
    int_rom: Vec<RomEntry>,
    frac_rom: Vec<RomEntry>,
    /// `cnt < n_int` (constant false when `n_int` is 0).
    cnt_lt: String,
    /// `fpos < n_frac` (constant false when `n_frac` is 0).
    fpos_lt: String,
    /// The bound's test (`below` / `above`) from `<name>_mag` and `neg_nz`.
    test: String,
}

#[derive(Template)]
#[template(path = "vcmp.v", escape = "none")]
struct VcmpTemplate<'a> {
    name: &'a str,
    comment: &'a str,
    what: String,
    kind: &'static str,
    const_result: bool,
    // string kind
    lit_len: usize,
    pos_w: usize,
    lit_text: String,
    lit_bytes: Vec<RomEntry>,
    lit_chars: Vec<RomEntry>,
    negate: bool,
    // number kind
    bounds: Vec<BoundView>,
    cnt_w: usize,
    cnt_max: usize,
    fpos_w: usize,
    fpos_max: usize,
    result_expr: String,
}

/// Abbreviated decimal text for comments.
fn short_text(s: &str) -> String {
    if s.len() <= 72 {
        s.to_string()
    } else {
        format!("{}...{} ({} chars)", &s[..40], &s[s.len() - 12..], s.len())
    }
}

/// A literal's bytes for a Verilog comment (printable ASCII kept, others escaped).
fn escape_literal(lit: &[u8]) -> String {
    let mut s = String::new();
    for &b in lit {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

fn describe(cmp: &Compare) -> String {
    match &cmp.value {
        Value::Str(s) => format!("value {} \"{}\"", cmp.op.as_str(), escape_literal(s)),
        Value::Num(_) => {
            let x = cmp.rhs_number();
            let plain = format!("{x}");
            let text = if plain.len() <= 24 {
                plain
            } else {
                format!("{x:e}")
            };
            format!("value {} {text}", cmp.op.as_str())
        }
    }
}

/// The Verilog module for one comparison (see `rtl-templates/README.md`,
/// `qrtl_vcmp_*`). `comment` (its first line) is placed on a line at the
/// top of the module.
///
/// Ports: `clk`, `rst` (synchronous, active high), `start` (a new value
/// begins: clears the state; a unit in the same cycle is the new value's
/// first unit), `unit_valid`, `unit_is_cp`, `unit_byte[7:0]`,
/// `unit_cp[20:0]`, `result` (combinational from the state: valid the cycle
/// after the last unit, and after `rst`/`start` alone it describes the
/// empty value).
pub fn vcmp_module(module_name: &str, cmp: &crate::ir::xpath::Compare, comment: &str) -> String {
    let mut t = VcmpTemplate {
        name: module_name,
        comment: comment.lines().next().unwrap_or(""),
        what: describe(cmp),
        kind: "const",
        const_result: false,
        lit_len: 0,
        pos_w: 1,
        lit_text: String::new(),
        lit_bytes: Vec::new(),
        lit_chars: Vec::new(),
        negate: false,
        bounds: Vec::new(),
        cnt_w: 1,
        cnt_max: 0,
        fpos_w: 1,
        fpos_max: 0,
        result_expr: String::new(),
    };
    match &Plan::new(cmp) {
        Plan::Const(v) => t.const_result = *v,
        Plan::Str { lit, negate } => string_view(&mut t, lit, *negate),
        Plan::Num(p) => number_view(&mut t, p),
    }
    let mut text = t.render().expect("vcmp template renders");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A string comparison's part of the template: the literal's bytes and
/// the characters starting in it, as ROMs.
fn string_view(t: &mut VcmpTemplate<'_>, lit: &[u8], negate: bool) {
    t.kind = "str";
    t.negate = negate;
    t.lit_len = lit.len();
    t.pos_w = bits_for(lit.len());
    t.lit_text = escape_literal(lit);
    let w = t.pos_w;
    t.lit_bytes = lit
        .iter()
        .enumerate()
        .map(|(i, &b)| RomEntry {
            idx: i,
            val: format!("8'h{b:02x}"),
        })
        .collect();
    t.lit_chars = (0..lit.len())
        .filter_map(|i| {
            let (cp, len) = lit_char(lit, i)?;
            Some(RomEntry {
                idx: i,
                val: format!("{{1'b1, {w}'d{}, 21'h{cp:05x}}}", i + len),
            })
        })
        .collect();
}

/// A number comparison's part of the template: its counters' shape, its
/// bounds and the result from their tests.
fn number_view(t: &mut VcmpTemplate<'_>, p: &NumPlan) {
    t.kind = "num";
    let shape = p.shape();
    t.cnt_w = shape.cnt_w;
    t.cnt_max = shape.cnt_max;
    t.fpos_w = shape.fpos_w;
    t.fpos_max = shape.fpos_max;
    for (is_lower, b) in [(true, &p.lower), (false, &p.upper)] {
        if let Some(b) = b {
            t.bounds.push(bound_view(is_lower, b, &shape));
        }
    }
    let below = if p.lower.is_some() { "lo_test" } else { "1'b0" };
    let above = if p.upper.is_some() { "hi_test" } else { "1'b0" };
    t.result_expr = match p.op {
        CmpOp::Lt => format!("!is_nan && {below}"),
        CmpOp::Ge => format!("!is_nan && !{below}"),
        CmpOp::Gt => format!("!is_nan && {above}"),
        CmpOp::Le => format!("!is_nan && !{above}"),
        CmpOp::Eq => format!("!is_nan && !{below} && !{above}"),
        CmpOp::Ne => format!("is_nan || {below} || {above}"),
    }
    .replace("!1'b0", "1'b1")
    .replace(" && 1'b1", "")
    .replace(" || 1'b0", "");
}

/// A bound's digit ROM: its nonzero digits.
fn digit_rom(digits: &[u8]) -> Vec<RomEntry> {
    digits
        .iter()
        .enumerate()
        .filter(|(_, &d)| d != 0)
        .map(|(i, &d)| RomEntry {
            idx: i,
            val: format!("4'd{d}"),
        })
        .collect()
}

/// The lower (`lo`) or upper (`hi`) bound's part of the template.
fn bound_view(is_lower: bool, b: &Bound, shape: &NumShape) -> BoundView {
    let name = if is_lower { "lo" } else { "hi" };
    let n_int = b.magnitude.int.len();
    let n_frac = b.magnitude.frac.len();
    let m = format!("{name}_mag");
    let eq = if b.inside {
        String::new()
    } else {
        format!(" || {m} == C_EQ")
    };
    let test = match (is_lower, b.negative) {
        // below: D < lower (or at it, when not inside)
        (true, false) => format!("neg_nz || {m} == C_LT{eq}"),
        (true, true) => format!("neg_nz && ({m} == C_GT{eq})"),
        // above: D > upper (or at it, when not inside)
        (false, false) => format!("!neg_nz && ({m} == C_GT{eq})"),
        (false, true) => format!("!neg_nz || {m} == C_LT{eq}"),
    };
    BoundView {
        name,
        role: if is_lower {
            "below: number(value) < literal".into()
        } else {
            "above: number(value) > literal".into()
        },
        text: short_text(&b.text()),
        negative: b.negative,
        inside: b.inside,
        n_int,
        n_frac,
        int_rom: digit_rom(&b.magnitude.int),
        frac_rom: digit_rom(&b.magnitude.frac),
        cnt_lt: if n_int == 0 {
            "1'b0".into()
        } else {
            format!("cnt < {}'d{n_int}", shape.cnt_w)
        },
        fpos_lt: if n_frac == 0 {
            "1'b0".into()
        } else {
            format!("fpos < {}'d{n_frac}", shape.fpos_w)
        },
        test,
    }
}

// ---------------------------------------------------------------------------
// Seeded random stimulus (unit tests here and `tests/vcmp_rtl.rs`).

pub mod stimulus {
    use super::Unit;
    use rand::Rng;

    const GARBAGE: &[&[u8]] = &[
        b"0",
        b"1",
        b"5",
        b"9",
        b".",
        b"-",
        b" ",
        b"\t",
        b"\n",
        b"\r",
        b"+",
        b"e",
        b"E",
        b"a",
        b"x",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\xf0\x9f\x98\x80",
        b"\x00",
        b"\xff",
        b"\"",
        b"&",
    ];
    const WS: &[u8] = b" \t\r\n";

    fn digits(rng: &mut impl Rng, n: usize, out: &mut Vec<u8>) {
        for _ in 0..n {
            out.push(b'0' + rng.gen_range(0..10u8));
        }
    }

    /// A length with a heavy head and a long tail.
    fn len(rng: &mut impl Rng, long: usize) -> usize {
        match rng.gen_range(0..10) {
            0..=5 => rng.gen_range(0..4),
            6..=8 => rng.gen_range(0..24),
            _ => rng.gen_range(0..=long),
        }
    }

    /// A syntactically plausible number: whitespace, sign, digits, point.
    pub fn number_text(rng: &mut impl Rng, long: usize) -> Vec<u8> {
        let mut s = Vec::new();
        if rng.gen_bool(0.2) {
            for _ in 0..rng.gen_range(1..4) {
                s.push(WS[rng.gen_range(0..WS.len())]);
            }
        }
        if rng.gen_bool(0.3) {
            s.push(b'-');
        }
        if rng.gen_bool(0.2) {
            let n = len(rng, long);
            s.resize(s.len() + n, b'0');
        }
        let n_int = len(rng, long);
        digits(rng, n_int, &mut s);
        if rng.gen_bool(0.5) {
            s.push(b'.');
            if rng.gen_bool(0.3) {
                let n = len(rng, long);
                s.resize(s.len() + n, b'0');
            }
            let n_frac = len(rng, long);
            digits(rng, n_frac, &mut s);
        }
        if rng.gen_bool(0.2) {
            for _ in 0..rng.gen_range(1..4) {
                s.push(WS[rng.gen_range(0..WS.len())]);
            }
        }
        s
    }

    /// Mutate a seed string: digit tweaks, truncation, extension, padding.
    pub fn mutate(rng: &mut impl Rng, seed: &[u8], long: usize) -> Vec<u8> {
        let mut s = seed.to_vec();
        for _ in 0..rng.gen_range(0..3) {
            match rng.gen_range(0..12) {
                0 if !s.is_empty() => {
                    // bump one digit up or down
                    let i = rng.gen_range(0..s.len());
                    if s[i].is_ascii_digit() {
                        s[i] = if rng.gen_bool(0.5) {
                            if s[i] == b'9' {
                                b'0'
                            } else {
                                s[i] + 1
                            }
                        } else if s[i] == b'0' {
                            b'9'
                        } else {
                            s[i] - 1
                        };
                    }
                }
                1 if !s.is_empty() => {
                    let i = rng.gen_range(0..s.len());
                    s.truncate(i);
                }
                2 => {
                    let n = len(rng, long);
                    digits(rng, n, &mut s);
                }
                3 => {
                    let n = len(rng, long);
                    s.resize(s.len() + n, b'0');
                    if rng.gen_bool(0.5) {
                        s.push(b'0' + rng.gen_range(1..10u8));
                    }
                }
                4 => {
                    let n = len(rng, long);
                    let mut t = vec![b'0'; n];
                    t.extend_from_slice(&s);
                    s = t;
                }
                5 => {
                    let w = WS[rng.gen_range(0..WS.len())];
                    if rng.gen_bool(0.5) {
                        s.insert(0, w);
                    } else {
                        s.push(w);
                    }
                }
                6 => {
                    if s.first() == Some(&b'-') {
                        s.remove(0);
                    } else {
                        s.insert(0, b'-');
                    }
                }
                7 => {
                    let g = GARBAGE[rng.gen_range(0..GARBAGE.len())];
                    let i = rng.gen_range(0..=s.len());
                    s.splice(i..i, g.iter().copied());
                }
                8 if !s.is_empty() => {
                    let i = rng.gen_range(0..s.len());
                    s.remove(i);
                }
                9 => {
                    if !s.contains(&b'.') {
                        s.push(b'.');
                    }
                    let n = len(rng, long);
                    s.resize(s.len() + n, b'0');
                }
                _ => {}
            }
        }
        s
    }

    /// Random bytes over a small alphabet of interesting characters.
    pub fn garbage(rng: &mut impl Rng) -> Vec<u8> {
        let mut s = Vec::new();
        for _ in 0..rng.gen_range(0..12) {
            s.extend_from_slice(GARBAGE[rng.gen_range(0..GARBAGE.len())]);
        }
        s
    }

    /// One random value: mostly derived from the seeds (literals, bounds,
    /// neighbours), else random numbers or garbage.
    pub fn value(rng: &mut impl Rng, seeds: &[Vec<u8>], long: usize) -> Vec<u8> {
        match rng.gen_range(0..10) {
            0..=5 if !seeds.is_empty() => {
                let seed = &seeds[rng.gen_range(0..seeds.len())];
                mutate(rng, seed, long)
            }
            0..=7 => number_text(rng, long),
            _ => garbage(rng),
        }
    }

    /// Split bytes into units: each well-formed UTF-8 character becomes a
    /// code point unit with probability `p_cp`; other bytes stay bytes.
    pub fn to_units(rng: &mut impl Rng, bytes: &[u8], p_cp: f64) -> Vec<Unit> {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let ch = (1..=4).find_map(|k| {
                let s = std::str::from_utf8(bytes.get(i..i + k)?).ok()?;
                Some((s.chars().next()? as u32, k))
            });
            match ch {
                Some((cp, k)) if rng.gen_bool(p_cp) => {
                    out.push(Unit::Cp(cp));
                    i += k;
                }
                _ => {
                    out.push(Unit::Byte(bytes[i]));
                    i += 1;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::value::{compare_bytes, xpath_number, ValueAcc};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn num(op: CmpOp, x: f64) -> Compare {
        Compare {
            op,
            value: Value::num(x),
        }
    }
    fn st(op: CmpOp, s: &str) -> Compare {
        Compare {
            op,
            value: Value::Str(s.as_bytes().to_vec().into()),
        }
    }

    const OPS: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    /// Literal numbers covering the interesting corners of f64.
    fn literal_numbers() -> Vec<f64> {
        let mut v = vec![
            0.0,
            1.0,
            -1.0,
            100.0,
            -3.5,
            0.1,
            -0.1,
            18.0,
            2.5,
            1e21,
            1e-7,
            123456789.125,
            9007199254740992.0,
            9007199254740993.0,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-320,
            1e308,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.5,
            1024.0,
            0.30000000000000004,
        ];
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..20 {
            let x = f64::from_bits(rng.gen::<u64>());
            if !x.is_nan() {
                v.push(x);
            }
        }
        v
    }

    #[test]
    fn decimal_expansion_is_exact() {
        assert_eq!(Decimal::of_dyadic(1, -1).text(), "0.5");
        assert_eq!(Decimal::of_dyadic(3, -3).text(), "0.375");
        assert_eq!(Decimal::of_dyadic(5, 4).text(), "80");
        assert_eq!(Decimal::of_dyadic(0, 0).text(), "0");
        let tiny = Decimal::of_dyadic(1, -1075);
        assert_eq!(tiny.frac.len(), 1075);
        assert!(tiny.int.is_empty());
        assert!(tiny.text().ends_with("125"));
        assert_eq!(overflow_threshold().int.len(), 309);
        assert_eq!(Decimal::of_dyadic(1, 64).text(), "18446744073709551616");
    }

    /// A value exactly at a bound rounds inside iff `inside`; a hair beyond
    /// rounds outside, a hair within rounds to c.
    #[test]
    fn bounds_are_the_rounding_boundaries() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut cs = literal_numbers();
        for _ in 0..300 {
            let x = f64::from_bits(rng.gen::<u64>());
            if x.is_finite() {
                cs.push(x);
            }
        }
        for c in cs {
            let Plan::Num(p) = Plan::new(&num(CmpOp::Eq, c)) else {
                panic!("{c}: number plan")
            };
            for (b, is_lower) in [(&p.lower, true), (&p.upper, false)] {
                let Some(b) = b else { continue };
                let at = xpath_number(b.text().as_bytes());
                assert_eq!(at == c, b.inside, "{c} bound {}", b.text());
                // A hair beyond the bound (away from c), and a hair inside.
                let hair = |toward_c: bool| {
                    let mut s = b.text();
                    if !s.contains('.') {
                        s.push('.');
                    }
                    // Moving the magnitude up moves away from zero.
                    let away_from_zero = (is_lower == b.negative) != toward_c;
                    let bumped = if away_from_zero {
                        s + &"0".repeat(30) + "1"
                    } else {
                        // subtract 10^-k: decrement the last digit chain
                        let mut d: Vec<u8> = s.into_bytes();
                        let mut i = d.len() - 1;
                        loop {
                            if d[i] == b'.' || d[i] == b'-' {
                                i -= 1;
                                continue;
                            }
                            if d[i] == b'0' {
                                d[i] = b'9';
                                i -= 1;
                            } else {
                                d[i] -= 1;
                                break;
                            }
                        }
                        let mut s = String::from_utf8(d).unwrap();
                        s.push_str(&"9".repeat(30));
                        s
                    };
                    xpath_number(bumped.as_bytes())
                };
                assert_ne!(hair(false), c, "{c}: beyond bound {}", b.text());
                assert_eq!(hair(true), c, "{c}: within bound {}", b.text());
            }
        }
    }

    fn check(cmp: &Compare, model: &mut VcmpModel, units: &[Unit]) {
        let bytes = units_to_bytes(units);
        let want = compare_bytes(&bytes, cmp);
        let got = model.eval(units);
        assert_eq!(
            got,
            want,
            "{} {:?}: value {:?} (number {})",
            cmp.op.as_str(),
            cmp.value,
            String::from_utf8_lossy(&bytes),
            xpath_number(&bytes)
        );
    }

    fn comparisons() -> Vec<Compare> {
        let mut v = Vec::new();
        for x in literal_numbers() {
            for op in OPS {
                v.push(num(op, x));
            }
        }
        for s in [
            "",
            "en",
            "abc",
            "18",
            " 20 ",
            "-0",
            "0.5",
            "caf\u{e9}",
            "\u{20ac}1",
            "\u{1F600}",
            "a\u{e9}b",
            "x y",
            "1e3",
            ".",
            "-.5",
            "007",
        ] {
            for op in OPS {
                v.push(st(op, s));
            }
        }
        v
    }

    #[test]
    fn model_matches_reference_on_random_values() {
        let mut rng = SmallRng::seed_from_u64(0x5eed);
        let cmps = comparisons();
        let mut total = 0usize;
        for cmp in &cmps {
            let plan = Plan::new(cmp);
            let seeds = plan.interesting_strings(cmp);
            let constant = matches!(plan, Plan::Const(_));
            let mut model = VcmpModel::new(plan);
            let per = 6000;
            let mut seen = [0usize; 2];
            for i in 0..per {
                let long = if i % 50 == 0 { 1200 } else { 40 };
                let bytes = stimulus::value(&mut rng, &seeds, long);
                let units = stimulus::to_units(&mut rng, &bytes, 0.2);
                check(cmp, &mut model, &units);
                seen[usize::from(model.result())] += 1;
                total += 1;
            }
            // Every non-constant comparison is exercised both ways.
            assert!(
                constant || seen.iter().all(|&n| n >= 20),
                "{cmp:?}: results false/true {seen:?}"
            );
            for seed in &seeds {
                let units = stimulus::to_units(&mut rng, seed, 0.5);
                check(cmp, &mut model, &units);
            }
        }
        assert!(total > 2_000_000, "{total}");
    }

    #[test]
    fn streaming_accumulator_agrees() {
        // ir::value's ValueAcc (the reference model's path) on unit chunks.
        let mut rng = SmallRng::seed_from_u64(3);
        for cmp in comparisons().iter().step_by(3) {
            let plan = Plan::new(cmp);
            let seeds = plan.interesting_strings(cmp);
            let mut model = VcmpModel::new(plan);
            for _ in 0..500 {
                let bytes = stimulus::value(&mut rng, &seeds, 100);
                let units = stimulus::to_units(&mut rng, &bytes, 0.3);
                let mut acc = ValueAcc::new(8);
                for u in &units {
                    acc.push(&units_to_bytes(&[*u]));
                }
                assert_eq!(
                    model.eval(&units),
                    acc.satisfies(cmp),
                    "{cmp:?} {:?} exact {} acc {}",
                    String::from_utf8_lossy(&bytes),
                    compare_bytes(&bytes, cmp),
                    acc.number()
                );
            }
        }
    }

    #[test]
    fn long_values_saturate() {
        let cmp = num(CmpOp::Gt, 100.0);
        let mut m = VcmpModel::new(Plan::new(&cmp));
        for n in [1usize, 3, 4, 200, 5000, 70000] {
            let s = format!("  {}{} ", "0".repeat(n), "1".repeat(n));
            let units: Vec<Unit> = s.bytes().map(Unit::Byte).collect();
            assert_eq!(m.eval(&units), compare_bytes(s.as_bytes(), &cmp), "{n}");
        }
        let zero = num(CmpOp::Eq, 0.0);
        let mut m = VcmpModel::new(Plan::new(&zero));
        let t = Decimal::of_dyadic(1, -1075).text();
        for (s, want) in [
            (t.clone(), true),
            (format!("-{t}"), true),
            (format!("{t}{}1", "0".repeat(3000)), false),
            (format!("-{t}{}1", "0".repeat(3000)), false),
            (format!("{t}{}", "0".repeat(3000)), true),
        ] {
            let units: Vec<Unit> = s.bytes().map(Unit::Byte).collect();
            assert_eq!(m.eval(&units), want);
            assert_eq!(compare_bytes(s.as_bytes(), &zero), want);
        }
    }

    #[test]
    fn string_literals_match_code_points() {
        let cmp = st(CmpOp::Eq, "caf\u{e9}");
        let mut m = VcmpModel::new(Plan::new(&cmp));
        let mk = |s: &str| s.bytes().map(Unit::Byte).collect::<Vec<_>>();
        let mut u = mk("caf");
        u.push(Unit::Cp(0xe9));
        assert!(m.eval(&u));
        u.push(Unit::Cp(0x20));
        assert!(!m.eval(&u));
        let mut u = mk("ca");
        u.push(Unit::Cp(u32::from(b'f')));
        u.extend(mk("\u{e9}"));
        assert!(m.eval(&u));
        assert!(!m.eval(&mk("caf")));
        assert!(!m.eval(&[Unit::Cp(0xe9)]));
    }

    #[test]
    fn emits_each_kind() {
        for cmp in [
            st(CmpOp::Eq, "en"),
            st(CmpOp::Ne, ""),
            st(CmpOp::Lt, "x"),
            num(CmpOp::Gt, 100.0),
            num(CmpOp::Eq, 0.0),
            num(CmpOp::Ge, f64::NEG_INFINITY),
        ] {
            let v = vcmp_module("qrtl_vcmp_t", &cmp, "// test");
            assert!(v.contains("module qrtl_vcmp_t"), "{v}");
            assert!(v.contains("endmodule"));
        }
    }
}
