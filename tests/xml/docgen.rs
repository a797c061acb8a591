//! Seeded generator of random *valid* XML documents covering every
//! construct of SPEC §3.2, shared by `tests/xml_vs_quickxml.rs` and
//! `tests/xml_fuzz.rs` (included with `#[path]`; this folder's `.xml` files
//! are the file-driven cases of `tests/xml_cases.rs`).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub struct Gen {
    rng: SmallRng,
    out: Vec<u8>,
    pub max_depth: u32,
}

const NAMES: &[&str] = &[
    "a",
    "b",
    "item",
    "ns:tag",
    "x-y.z",
    "_u",
    "é",
    "数据",
    "ρ:κ",
    "head",
    "body",
    "p",
    "A1",
    "tobject.subject",
    ":colon",
];
const ATTRS: &[&str] = &[
    "id", "x", "y", "xml:lang", "data-v", "é", "a.b", "_", "href", "ns:at",
];

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: SmallRng::seed_from_u64(seed),
            out: Vec::new(),
            max_depth: 12,
        }
    }

    fn push(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn ws(&mut self, min: usize) {
        let n = min + self.rng.gen_range(0..3);
        for _ in 0..n {
            let c = [" ", "\n", "\t", "\r\n", "  "][self.rng.gen_range(0..5)];
            self.push(c);
        }
    }

    fn maybe_ws(&mut self) {
        if self.rng.gen_bool(0.3) {
            self.ws(1);
        }
    }

    fn name(&mut self) -> String {
        if self.rng.gen_bool(0.6) {
            NAMES[self.rng.gen_range(0..NAMES.len())].to_string()
        } else {
            let len = self.rng.gen_range(1..12);
            let mut s = String::new();
            for i in 0..len {
                let set: &[u8] = if i == 0 {
                    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
                } else {
                    b"abcdefghijklmnopqrstuvwxyz0123456789-._"
                };
                s.push(set[self.rng.gen_range(0..set.len())] as char);
            }
            s
        }
    }

    /// A random valid character reference or predefined entity.
    fn reference(&mut self) -> String {
        match self.rng.gen_range(0..8) {
            0 => "&lt;".into(),
            1 => "&gt;".into(),
            2 => "&amp;".into(),
            3 => "&apos;".into(),
            4 => "&quot;".into(),
            _ => {
                let c = loop {
                    let v = match self.rng.gen_range(0..4) {
                        0 => self.rng.gen_range(0x20..0x7F),
                        1 => [0x9, 0xA, 0xD][self.rng.gen_range(0..3)],
                        2 => self.rng.gen_range(0xA0..0xD800),
                        _ => self.rng.gen_range(0x1_0000..0x11_0000),
                    };
                    if let Some(c) = char::from_u32(v) {
                        break c;
                    }
                };
                if self.rng.gen_bool(0.5) {
                    format!("&#{};", c as u32)
                } else if self.rng.gen_bool(0.5) {
                    format!("&#x{:X};", c as u32)
                } else {
                    format!("&#x{:04x};", c as u32)
                }
            }
        }
    }

    fn attr_value(&mut self, quote: char) -> String {
        let mut v = String::new();
        for _ in 0..self.rng.gen_range(0..6) {
            let piece = match self.rng.gen_range(0..12) {
                0 => self.reference(),
                1 => ">".into(),
                2 => "/".into(),
                3 => if quote == '"' { "'" } else { "\"" }.into(),
                4 => ["\t", "\n", "\r", "\r\n"][self.rng.gen_range(0..4)].into(),
                5 => "ü€😀".into(),
                6 => " ".into(),
                7 => "]]>".into(),
                _ => self.name(),
            };
            v.push_str(&piece);
        }
        v
    }

    fn start_tag(&mut self, name: &str, empty: bool) {
        self.push("<");
        self.push(name);
        let n = self.rng.gen_range(0..4);
        let mut used = Vec::new();
        for _ in 0..n {
            let a = ATTRS[self.rng.gen_range(0..ATTRS.len())];
            if used.contains(&a) {
                continue;
            }
            used.push(a);
            self.ws(1);
            self.push(a);
            self.maybe_ws();
            self.push("=");
            self.maybe_ws();
            let q = if self.rng.gen_bool(0.5) { '"' } else { '\'' };
            let v = self.attr_value(q);
            self.out.push(q as u8);
            self.push(&v);
            self.out.push(q as u8);
        }
        self.maybe_ws();
        self.push(if empty { "/>" } else { ">" });
    }

    /// Character data without `<`, `&` or `]]>`.
    fn text(&mut self) {
        for _ in 0..self.rng.gen_range(1..6) {
            let piece: String = match self.rng.gen_range(0..12) {
                0 | 1 => self.reference(),
                2 => "]".into(),
                3 => ">".into(),
                4 => ["\n", "\r", "\r\n", "\t", " "][self.rng.gen_range(0..5)].into(),
                5 => "ñ—数据😀".into(),
                6 => "'\"/=?!".into(),
                _ => self.name(),
            };
            if piece.starts_with('>') && self.out.ends_with(b"]]") {
                self.push("&gt;");
            } else {
                self.push(&piece);
            }
        }
    }

    fn cdata(&mut self) {
        self.push("<![CDATA[");
        let mut c: Vec<u8> = Vec::new();
        for _ in 0..self.rng.gen_range(0..5) {
            let piece = [
                "]", "]]", ">", "<b>", "&amp;", "\r\n", "\r", "text", "é", "--",
            ][self.rng.gen_range(0..10)];
            if piece.starts_with('>') && c.ends_with(b"]]") {
                continue;
            }
            c.extend_from_slice(piece.as_bytes());
        }
        self.out.extend_from_slice(&c);
        self.push("]]>");
    }

    fn comment(&mut self) {
        self.push("<!--");
        let mut c: Vec<u8> = Vec::new();
        for _ in 0..self.rng.gen_range(0..5) {
            let piece = ["-", " ", "<a>", "&bogus;", "text", "\n", ">", "]]>", "é"]
                [self.rng.gen_range(0..9)];
            if piece == "-" && c.ends_with(b"-") {
                continue;
            }
            c.extend_from_slice(piece.as_bytes());
        }
        if c.ends_with(b"-") {
            c.push(b' ');
        }
        self.out.extend_from_slice(&c);
        self.push("-->");
    }

    fn pi(&mut self) {
        let target = loop {
            let t = self.name();
            if !t.to_ascii_lowercase().starts_with("xml") && !t.contains(':') {
                break t;
            }
        };
        self.push("<?");
        self.push(&target);
        if self.rng.gen_bool(0.7) {
            self.ws(1);
            let mut c: Vec<u8> = Vec::new();
            for _ in 0..self.rng.gen_range(0..5) {
                let piece = ["?", ">", "x='1'", "<b>", "&", " ", "é"][self.rng.gen_range(0..7)];
                if piece == ">" && c.ends_with(b"?") {
                    continue;
                }
                c.extend_from_slice(piece.as_bytes());
            }
            if c.ends_with(b"?") {
                c.push(b' ');
            }
            self.out.extend_from_slice(&c);
        }
        self.push("?>");
    }

    fn misc(&mut self) {
        for _ in 0..self.rng.gen_range(0..3) {
            match self.rng.gen_range(0..3) {
                0 => self.comment(),
                1 => self.pi(),
                _ => self.ws(1),
            }
        }
    }

    fn element(&mut self, depth: u32) {
        let name = self.name();
        if depth >= self.max_depth || self.rng.gen_bool(0.15) {
            self.start_tag(&name, true);
            return;
        }
        self.start_tag(&name, false);
        let items = if depth + 1 >= self.max_depth {
            0
        } else {
            self.rng.gen_range(0..6)
        };
        for _ in 0..items {
            match self.rng.gen_range(0..10) {
                0..=2 => self.element(depth + 1),
                3..=5 => self.text(),
                6 => self.cdata(),
                7 => self.comment(),
                8 => self.pi(),
                _ => self.ws(1),
            }
        }
        self.push("</");
        self.push(&name);
        self.maybe_ws();
        self.push(">");
    }

    /// A deep chain of elements.
    fn chain(&mut self, depth: u32) {
        let names: Vec<String> = (0..depth).map(|_| self.name()).collect();
        for n in &names {
            self.start_tag(n, false);
            if self.rng.gen_bool(0.3) {
                self.text();
            }
        }
        for n in names.iter().rev() {
            self.push("</");
            self.push(n);
            self.push(">");
        }
    }

    pub fn document(&mut self) -> Vec<u8> {
        self.out.clear();
        if self.rng.gen_bool(0.1) {
            self.push("\u{FEFF}");
        }
        if self.rng.gen_bool(0.5) {
            self.push("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
        }
        self.misc();
        if self.rng.gen_bool(0.3) {
            self.push("<!DOCTYPE ");
            let n = self.name();
            self.push(&n);
            match self.rng.gen_range(0..3) {
                0 => self.push(" SYSTEM \"a[b].dtd\""),
                1 => self.push(" PUBLIC '-//X//(Y)//EN' \"u'[.dtd\""),
                _ => {}
            }
            self.maybe_ws();
            self.push(">");
            self.misc();
        }
        if self.rng.gen_bool(0.1) {
            let d = self.rng.gen_range(20..200);
            self.chain(d);
        } else {
            self.element(0);
        }
        self.misc();
        std::mem::take(&mut self.out)
    }
}
