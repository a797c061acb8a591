//! Differential test of the value comparators (`rtl-templates/xpath/vcmp.v`,
//! `emit::verilog::values`) in Verilator against `ir::value`.
//!
//! One test design holds a comparator instance for every comparison below;
//! it is linted (`verilator --lint-only -Wall`, `iverilog -g2005`), built once (cached under the
//! temp dir, keyed by a hash of the sources), and fed thousands of seeded
//! random values as unit streams (code point units for random characters,
//! idle cycles between units). Every result bit is checked against
//! `ir::value::compare_bytes` on the concatenated bytes.

use qrtl_xpath::emit::values::{stimulus, units_to_bytes, vcmp_module, Plan, Unit, VcmpModel};
use qrtl_xpath::ir::value::compare_bytes;
use qrtl_xpath::ir::xpath::{CmpOp, Compare, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Command;

const OPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];

fn comparisons() -> Vec<Compare> {
    let mut v = Vec::new();
    let nums = [
        0.0,
        1.0,
        -1.0,
        100.0,
        18.0,
        -3.5,
        0.1,
        2.5,
        123456789.125,
        1e21,
        -1e-7,
        9007199254740993.0,
        0.30000000000000004,
        f64::MAX,
        -f64::MIN_POSITIVE,
        5e-324,
        1e-320,
        1e308,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for x in nums {
        for op in OPS {
            v.push(Compare {
                op,
                value: Value::num(x),
            });
        }
    }
    // String literals: `=`/`!=` compare strings, relational ops numbers.
    for s in [
        "",
        "en",
        "caf\u{e9}",
        "\u{20ac}1",
        "\u{1F600}",
        "a\u{e9}\u{800}b",
        "18",
        " 20 ",
        "-0",
        "0.5",
        "x y",
        "abc",
        "-.25",
        "1e3",
    ] {
        for op in OPS {
            v.push(Compare {
                op,
                value: Value::Str(s.as_bytes().to_vec().into()),
            });
        }
    }
    v
}

/// FNV-1a, a stable hash for the build cache key.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The design's files: (file name, text), one module per file.
fn design(cmps: &[Compare]) -> Vec<(String, String)> {
    let n = cmps.len();
    let words = n.div_ceil(32);
    let mut files = Vec::new();
    for (i, c) in cmps.iter().enumerate() {
        let name = format!("qrtl_vcmp_{i}");
        let text = vcmp_module(&name, c, &format!("vcmp_rtl test instance {i}: {c:?}"));
        files.push((format!("{name}.v"), text));
    }
    let mut v = String::new();
    v.push_str(&format!(
        "// The comparators side by side; results read 32 at a time.
module vcmp_test_top (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    input  wire        unit_valid,
    input  wire        unit_is_cp,
    input  wire [7:0]  unit_byte,
    input  wire [20:0] unit_cp,
    input  wire [7:0]  rd_word,
    output reg  [31:0] rd_data
);
    wire [{hi}:0] results;
",
        hi = words * 32 - 1
    ));
    if words * 32 > n {
        v.push_str(&format!(
            "    assign results[{}:{n}] = {}'d0;\n",
            words * 32 - 1,
            words * 32 - n
        ));
    }
    for i in 0..n {
        v.push_str(&format!(
            "    qrtl_vcmp_{i} u{i} (.clk(clk), .rst(rst), .start(start), .unit_valid(unit_valid), \
             .unit_is_cp(unit_is_cp), .unit_byte(unit_byte), .unit_cp(unit_cp), .result(results[{i}]));\n"
        ));
    }
    v.push_str("    always @* begin\n        case (rd_word)\n");
    for w in 0..words {
        v.push_str(&format!(
            "            8'd{w}: rd_data = results[{}:{}];\n",
            w * 32 + 31,
            w * 32
        ));
    }
    v.push_str("            default: rd_data = 32'd0;\n        endcase\n    end\nendmodule\n");
    files.push(("vcmp_test_top.v".into(), v));
    files
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} (is verilator installed?): {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Lint and build the design (reusing a cached build), returning the binary.
fn build(design: &[(String, String)]) -> PathBuf {
    let driver_src = Path::new(env!("CARGO_MANIFEST_DIR")).join("sim/vcmp_driver.cpp");
    let driver = std::fs::read(&driver_src).expect("sim/vcmp_driver.cpp");
    let mut key = driver.clone();
    for (name, text) in design {
        key.extend_from_slice(name.as_bytes());
        key.push(0);
        key.extend_from_slice(text.as_bytes());
    }
    let dir = std::env::temp_dir().join(format!("qrtl-vcmp-{:016x}", fnv(&key)));
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let mut v = Vec::new();
    for (name, text) in design {
        let path = src.join(name);
        std::fs::write(&path, text).unwrap();
        v.push(path);
    }

    // Lint: no warnings at all under -Wall.
    let lint = run(Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "vcmp_test_top"])
        .args(&v));
    let msgs =
        String::from_utf8_lossy(&lint.stderr).to_string() + &String::from_utf8_lossy(&lint.stdout);
    assert!(
        !msgs.contains("%Warning") && !msgs.contains("%Error"),
        "lint:\n{msgs}"
    );

    // Plain Verilog-2005: Icarus Verilog elaborates it without a warning.
    let iv = run(Command::new("iverilog")
        .args(["-g2005", "-Wall", "-o"])
        .arg(dir.join("iverilog.out"))
        .args(&v));
    let msgs =
        String::from_utf8_lossy(&iv.stderr).to_string() + &String::from_utf8_lossy(&iv.stdout);
    assert!(msgs.trim().is_empty(), "iverilog -g2005:\n{msgs}");

    let exe = dir.join("obj/vcmp_sim");
    if !exe.exists() {
        run(Command::new("verilator")
            .env("OBJCACHE", "ccache")
            .args([
                "--cc",
                "--exe",
                "--build",
                "-Wall",
                "-j",
                "2",
                "--top-module",
                "vcmp_test_top",
                "-o",
                "vcmp_sim",
                "--Mdir",
            ])
            .arg(dir.join("obj"))
            .args(&v)
            .arg(&driver_src));
    }
    assert!(exe.exists(), "{} not built", exe.display());
    exe
}

/// Stimulus writer: one 8-byte record per clock.
struct Stim {
    bytes: Vec<u8>,
    samples: usize,
}

impl Stim {
    fn cycle(&mut self, ctrl: u8, byte: u8, cp: u32) {
        self.bytes.push(ctrl);
        self.bytes.push(byte);
        self.bytes.extend_from_slice(&cp.to_le_bytes()[..3]);
        self.bytes.extend_from_slice(&[0, 0, 0]);
        if ctrl & 8 != 0 {
            self.samples += 1;
        }
    }
    fn unit(&mut self, start: bool, u: Unit, sample: bool) {
        let s = u8::from(start) | if sample { 8 } else { 0 };
        match u {
            Unit::Byte(b) => self.cycle(s | 2, b, 0),
            Unit::Cp(cp) => self.cycle(s | 2 | 4, 0, cp),
        }
    }
    /// An idle cycle with junk on the data inputs.
    fn idle(&mut self, rng: &mut impl Rng, sample: bool) {
        let junk_cp = rng.gen::<u32>() & 0x1f_ffff;
        let ctrl = if sample { 8 } else { 0 } | if rng.gen_bool(0.5) { 4 } else { 0 };
        self.cycle(ctrl, rng.gen(), junk_cp);
    }
}

/// A random character as a code point unit (ASCII, Latin-1, BMP, astral).
fn random_char(rng: &mut impl Rng) -> u32 {
    loop {
        let cp = match rng.gen_range(0..4) {
            0 => rng.gen_range(0x20..0x7f),
            1 => rng.gen_range(0x80..0x800),
            2 => rng.gen_range(0x800..0x10000),
            _ => rng.gen_range(0x10000..0x110000),
        };
        if char::from_u32(cp).is_some() {
            return cp;
        }
    }
}

#[test]
fn vcmp_rtl_matches_reference() {
    let cmps = comparisons();
    let n = cmps.len();
    let words = n.div_ceil(32);
    let exe = build(&design(&cmps));

    let seeds: Vec<Vec<u8>> = cmps
        .iter()
        .flat_map(|c| Plan::new(c).interesting_strings(c))
        .collect();
    let mut rng = SmallRng::seed_from_u64(0x7c3d_2026);
    let mut stim = Stim {
        bytes: Vec::new(),
        samples: 0,
    };
    let mut values: Vec<Vec<Unit>> = Vec::new();
    // Reset, then values back to back.
    stim.cycle(16, 0, 0);
    let n_values = 6000;
    for i in 0..n_values {
        let long = if i % 40 == 0 { 1300 } else { 30 };
        let bytes = stimulus::value(&mut rng, &seeds, long);
        let mut units = stimulus::to_units(&mut rng, &bytes, 0.25);
        // Random characters as code point units.
        if rng.gen_bool(0.2) {
            let at = rng.gen_range(0..=units.len());
            units.insert(at, Unit::Cp(random_char(&mut rng)));
        }
        // Sometimes a synchronous reset: the state then describes the empty
        // value (checked as a value of its own).
        if rng.gen_bool(0.01) {
            stim.cycle(16 | 8, rng.gen(), 0);
            assert_eq!(stim.samples, values.len() + 1);
            values.push(Vec::new());
        }
        // Sometimes an abandoned partial value first: start must clear it.
        if rng.gen_bool(0.05) {
            let junk = stimulus::value(&mut rng, &seeds, 30);
            stim.cycle(1, 0, 0);
            for u in stimulus::to_units(&mut rng, &junk, 0.25) {
                stim.unit(false, u, false);
            }
        }
        // start alone, or together with the first unit.
        let merged = !units.is_empty() && rng.gen_bool(0.5);
        if !merged {
            stim.cycle(1, rng.gen(), 0);
        }
        for (k, &u) in units.iter().enumerate() {
            let last = k + 1 == units.len();
            let sample_now = last && rng.gen_bool(0.5);
            stim.unit(merged && k == 0, u, sample_now);
            if sample_now {
                continue;
            }
            let idles = if rng.gen_bool(0.7) {
                0
            } else {
                rng.gen_range(1..3)
            };
            for j in 0..idles {
                stim.idle(&mut rng, last && j + 1 == idles);
            }
            if last && idles == 0 {
                stim.idle(&mut rng, true);
            }
        }
        if units.is_empty() {
            stim.idle(&mut rng, true);
        }
        assert_eq!(stim.samples, values.len() + 1, "one sample per value");
        values.push(units);
    }

    let dir = exe.parent().unwrap().to_path_buf();
    let stim_path = dir.join(format!("stim-{}.bin", std::process::id()));
    let res_path = dir.join(format!("res-{}.bin", std::process::id()));
    std::fs::write(&stim_path, &stim.bytes).unwrap();
    run(Command::new(&exe)
        .arg(&stim_path)
        .arg(&res_path)
        .arg(words.to_string()));
    let res = std::fs::read(&res_path).unwrap();
    let _ = std::fs::remove_file(&stim_path);
    let _ = std::fs::remove_file(&res_path);
    assert_eq!(res.len(), values.len() * words * 4, "result words");

    let mut models: Vec<VcmpModel> = cmps.iter().map(|c| VcmpModel::new(Plan::new(c))).collect();
    let mut ones = vec![0usize; n];
    let mut failures = Vec::new();
    for (vi, units) in values.iter().enumerate() {
        let bytes = units_to_bytes(units);
        let row = &res[vi * words * 4..(vi + 1) * words * 4];
        for (i, cmp) in cmps.iter().enumerate() {
            let got = row[i / 8] >> (i % 8) & 1 == 1;
            let want = compare_bytes(&bytes, cmp);
            let model = models[i].eval(units);
            ones[i] += usize::from(got);
            if got != want || model != want {
                failures.push(format!(
                    "value #{vi} {:?} (units {units:?}): instance {i} {} {:?}: rtl {got}, model {model}, ir::value {want}",
                    String::from_utf8_lossy(&bytes),
                    cmp.op.as_str(),
                    cmp.value
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches, first:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    // The test is only meaningful if comparisons go both ways.
    for (i, cmp) in cmps.iter().enumerate() {
        if !matches!(Plan::new(cmp), Plan::Const(_)) {
            assert!(
                ones[i] > 0 && ones[i] < values.len(),
                "instance {i} {cmp:?}: always {}",
                ones[i] > 0
            );
        }
    }
    eprintln!(
        "vcmp_rtl: {n} comparators, {} values, {} cycles, {} result bits checked",
        values.len(),
        stim.bytes.len() / 8,
        values.len() * n
    );
}
