//! XPath 1.0 value semantics shared by the reference model and the emitters:
//! string-to-number conversion and comparisons of a node's string value
//! against a literal. Streaming-friendly: values arrive in chunks and the
//! memory used is bounded by the longest literal, never by the document.

use super::xpath::{CmpOp, Compare, Value};

/// XPath whitespace: space, tab, CR, LF.
pub fn is_xpath_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// `number(s)` of XPath 1.0: optional whitespace, an optional `-`, a Number
/// (`Digits ('.' Digits?)? | '.' Digits`), optional whitespace; anything
/// else is NaN.
pub fn xpath_number(s: &[u8]) -> f64 {
    let start = s.iter().position(|&b| !is_xpath_ws(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_xpath_ws(b))
        .map_or(start, |e| e + 1);
    let t = &s[start..end];
    let body = t.strip_prefix(b"-").unwrap_or(t);
    // Number ::= Digits ('.' Digits?)? | '.' Digits
    let dot = body.iter().position(|&b| b == b'.');
    let (int, frac) = match dot {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &body[..0]),
    };
    let digits_ok = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if !digits_ok(int) || !digits_ok(frac) || (int.is_empty() && frac.is_empty()) {
        return f64::NAN;
    }
    // Fast path: few digits are exact in f64, and one multiplication or
    // division by an exact power of ten rounds correctly.
    if int.len() + frac.len() <= 15 {
        let mantissa = int
            .iter()
            .chain(frac)
            .fold(0u64, |m, &d| m * 10 + u64::from(d - b'0'));
        const POW10: [f64; 16] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        ];
        let v = mantissa as f64 / POW10[frac.len()];
        return if t.first() == Some(&b'-') { -v } else { v };
    }
    // The slice is ASCII and a valid Rust float literal ("5.", ".5" included).
    std::str::from_utf8(t)
        .ok()
        .and_then(|x| x.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// Significant digits kept by [`NumScan`]; more cannot change an f64 except
/// in exact half-way ties beyond 768 digits.
const MAX_DIGITS: usize = 768;

/// Streaming XPath `number()`: feed chunks, then `finish`.
#[derive(Clone, Debug, Default)]
pub struct NumScan {
    state: NumState,
    negative: bool,
    saw_digit: bool,
    digits: Vec<u8>,
    exp10: i64,
    /// A nonzero digit was dropped beyond `MAX_DIGITS`: the value lies
    /// strictly above the kept digits (matters at exact half-way ties).
    sticky: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum NumState {
    #[default]
    Lead,
    Minus,
    Int,
    Frac,
    Trail,
    Bad,
}

impl NumScan {
    pub fn reset(&mut self) {
        self.state = NumState::Lead;
        self.negative = false;
        self.saw_digit = false;
        self.digits.clear();
        self.exp10 = 0;
        self.sticky = false;
    }

    fn digit(&mut self, d: u8, fraction: bool) {
        self.saw_digit = true;
        if self.digits.len() < MAX_DIGITS {
            if !(self.digits.is_empty() && d == b'0') {
                self.digits.push(d);
            }
            if fraction {
                self.exp10 -= 1;
            }
        } else {
            self.sticky |= d != b'0';
            if !fraction {
                self.exp10 += 1;
            }
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        use NumState::*;
        for &b in chunk {
            self.state = match (self.state, b) {
                (Bad, _) => return,
                (Lead, b) if is_xpath_ws(b) => Lead,
                (Lead, b'-') => Minus,
                (Lead | Minus | Int, b'0'..=b'9') => {
                    if self.state == Minus {
                        self.negative = true;
                    }
                    self.digit(b, false);
                    Int
                }
                (Lead | Minus | Int, b'.') => {
                    if self.state == Minus {
                        self.negative = true;
                    }
                    Frac
                }
                (Frac, b'0'..=b'9') => {
                    self.digit(b, true);
                    Frac
                }
                (Int | Frac | Trail, b) if is_xpath_ws(b) => Trail,
                _ => Bad,
            };
        }
    }

    pub fn finish(&self) -> f64 {
        match self.state {
            NumState::Int | NumState::Frac | NumState::Trail if self.saw_digit => {}
            _ => return f64::NAN,
        }
        let magnitude = if self.digits.is_empty() {
            0.0
        } else {
            // Digits are ASCII; the string is a valid Rust float literal.
            // A dropped nonzero digit becomes one more `1` digit, which
            // rounds like the whole tail (it only breaks exact ties).
            let (sticky, exp10) = if self.sticky {
                ("1", self.exp10 - 1)
            } else {
                ("", self.exp10)
            };
            let text = format!(
                "{}{sticky}e{exp10}",
                std::str::from_utf8(&self.digits).unwrap_or("0"),
            );
            text.parse::<f64>().unwrap_or(f64::NAN)
        };
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }
}

/// Accumulates one string value (attribute value or text node) in chunks,
/// keeping at most `cap` bytes (enough to compare against every string
/// literal of the design) plus a streaming number scan.
#[derive(Clone, Debug)]
pub struct ValueAcc {
    buf: Vec<u8>,
    cap: usize,
    overflow: bool,
    scan: NumScan,
    /// `number()` of the value, computed at most once per value.
    number: std::cell::Cell<Option<f64>>,
}

impl ValueAcc {
    /// `longest_literal`: the longest string literal any comparison uses.
    pub fn new(longest_literal: usize) -> ValueAcc {
        let cap = longest_literal.max(64) + 1;
        ValueAcc {
            buf: Vec::with_capacity(cap),
            cap,
            overflow: false,
            scan: NumScan::default(),
            number: std::cell::Cell::new(None),
        }
    }

    pub fn reset(&mut self) {
        self.buf.clear();
        self.overflow = false;
        self.number.set(None);
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.number.set(None);
        if self.overflow {
            self.scan.feed(chunk);
            return;
        }
        if self.buf.len() + chunk.len() <= self.cap {
            self.buf.extend_from_slice(chunk);
        } else {
            self.overflow = true;
            self.scan.reset();
            self.scan.feed(&self.buf);
            self.scan.feed(chunk);
        }
    }

    /// The value, if it is short enough to equal some literal.
    pub fn bytes(&self) -> Option<&[u8]> {
        (!self.overflow).then_some(self.buf.as_slice())
    }

    /// `number()` of the value (computed once, then cached until the value changes).
    pub fn number(&self) -> f64 {
        if let Some(x) = self.number.get() {
            return x;
        }
        let x = if self.overflow {
            self.scan.finish()
        } else {
            xpath_number(&self.buf)
        };
        self.number.set(Some(x));
        x
    }

    /// Does this single string value satisfy the comparison (XPath 1.0)?
    pub fn satisfies(&self, cmp: &Compare) -> bool {
        compare_value(self.bytes(), || self.number(), cmp)
    }
}

/// Compare a string value (None: longer than any literal) with a literal.
pub fn compare_value(value: Option<&[u8]>, number: impl FnOnce() -> f64, cmp: &Compare) -> bool {
    match (&cmp.value, cmp.op) {
        (Value::Str(lit), CmpOp::Eq) => value == Some(&lit[..]),
        (Value::Str(lit), CmpOp::Ne) => value != Some(&lit[..]),
        _ => cmp.op.num(number(), cmp.rhs_number()),
    }
}

/// Compare a complete string value with a literal.
pub fn compare_bytes(value: &[u8], cmp: &Compare) -> bool {
    compare_value(Some(value), || xpath_number(value), cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_round_like_the_whole_string() {
        // 800 significant digits: a half-way tie of 1 + 2^-53 in the first
        // digits, broken only by a nonzero digit beyond the kept 768.
        let tie = "1.00000000000000011102230246251565404236316680908203125";
        let mut s = tie.to_string();
        s.push_str(&"0".repeat(800 - s.len()));
        s.push('1');
        let want: f64 = s.parse().unwrap();
        let mut scan = NumScan::default();
        scan.feed(s.as_bytes());
        assert_eq!(scan.finish(), want);
        assert_eq!(xpath_number(s.as_bytes()), want);
        assert!(want > 1.0);
    }

    #[test]
    fn number_conversion_follows_xpath() {
        for (s, want) in [
            ("18", 18.0),
            ("  18 \n", 18.0),
            ("-3.5", -3.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("007", 7.0),
            ("0.000", 0.0),
            ("1234567890123456789012345", 1.2345678901234568e24),
            ("-.12345678901234567", -0.12345678901234567),
            ("12345678901234567.", 12345678901234567.0),
            ("0.1", 0.1),
            ("-0", -0.0),
        ] {
            assert_eq!(xpath_number(s.as_bytes()), want, "{s:?}");
        }
        for s in [
            "", " ", "-", ".", "+1", "1e3", "1 2", "- 1", "abc", "1..2", "0x10", "inf", "NaN",
        ] {
            assert!(xpath_number(s.as_bytes()).is_nan(), "{s:?}");
        }
    }

    #[test]
    fn streaming_scan_matches_whole_string_in_any_chunking() {
        let s = b"   -0012.50100  ";
        for cut in 0..s.len() {
            let mut n = NumScan::default();
            n.feed(&s[..cut]);
            n.feed(&s[cut..]);
            assert_eq!(n.finish(), -12.501);
        }
    }

    #[test]
    fn very_long_numbers_keep_magnitude() {
        let long = format!("{}.5", "9".repeat(2000));
        assert_eq!(xpath_number(long.as_bytes()), f64::INFINITY);
        let tiny = format!("0.{}1", "0".repeat(1000));
        assert_eq!(xpath_number(tiny.as_bytes()), 0.0);
        let padded = format!("{}42{}", " ".repeat(5000), " ".repeat(5000));
        let mut acc = ValueAcc::new(4);
        acc.push(padded.as_bytes());
        assert_eq!(acc.number(), 42.0);
        assert_eq!(acc.bytes(), None);
    }

    #[test]
    fn comparisons_follow_xpath_rules() {
        let eq_str = Compare {
            op: CmpOp::Eq,
            value: Value::Str(b"18".to_vec().into()),
        };
        let eq_num = Compare {
            op: CmpOp::Eq,
            value: Value::num(18.0),
        };
        let ne_num = Compare {
            op: CmpOp::Ne,
            value: Value::num(18.0),
        };
        let lt_str = Compare {
            op: CmpOp::Lt,
            value: Value::Str(b" 20 ".to_vec().into()),
        };
        assert!(compare_bytes(b"18", &eq_str));
        assert!(!compare_bytes(b" 18", &eq_str), "string equality is exact");
        assert!(
            compare_bytes(b" 18.0 ", &eq_num),
            "number equality converts"
        );
        assert!(compare_bytes(b"abc", &ne_num), "NaN != 18 holds");
        assert!(!compare_bytes(b"abc", &eq_num));
        assert!(compare_bytes(b"19", &lt_str), "relational compares numbers");
        assert!(!compare_bytes(b"x", &lt_str));
    }
}
