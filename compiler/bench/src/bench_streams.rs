//! The stream sections of `qrtl-bench` (issue 28): documents each seen
//! once in a stream of small records against one large document with the
//! same content, and the `qrtl xpath filter` command line on a
//! NUL-separated stream with `--jobs 1, 2, …`.
//!
//! Both are measured in this process or in `qrtl` children, after the
//! configurations of the main table; figures are reported, never asserted.

use qrtl_xpath::ir::xpath::{Design, Mode};
use qrtl_xpath::lower::xpath::lower_queries;
use qrtl_xpath::passes::{run_pipeline, PassConfig};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::syntax::parse_query_file;
use qrtl_xpath::workload::{
    generate_docs, generate_queries, query_file, DocGenConfig, QueryGenConfig, Vocab,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Compile a query file's text as `qrtl xpath filter` does (holistic).
fn design(text: &str) -> Result<Design, String> {
    let qf = parse_query_file("bench", text);
    let (queries, diags) = (qf.queries, qf.diagnostics);
    if let Some(d) = diags.first() {
        return Err(d.render());
    }
    let design = lower_queries("bench", &queries)
        .map_err(|d| d.first().map(|d| d.render()).unwrap_or_default())?;
    Ok(run_pipeline(
        design,
        &PassConfig {
            mode: Mode::Holistic,
        },
    ))
}

/// Generated YFilter-style path queries (the main table's `gen-*`).
fn queries(count: usize) -> String {
    query_file(&generate_queries(
        Vocab::nitf(),
        &QueryGenConfig {
            seed: 7,
            count,
            ..Default::default()
        },
    ))
}

/// Small records (1–4 KB, generated, seed 28) of about `bytes` in all, and
/// one document holding the same records under a root element.
fn records(bytes: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
    let small = generate_docs(
        Vocab::nitf(),
        &DocGenConfig {
            seed: 28,
            target_bytes: bytes,
            doc_bytes: (1_000, 4_000),
            ..Default::default()
        },
    );
    let mut large = b"<records>".to_vec();
    for d in &small {
        // Drop an XML declaration: it may only start a document.
        let body = match d.windows(2).position(|w| w == b"?>") {
            Some(i) if d.starts_with(b"<?xml") => &d[i + 2..],
            _ => &d[..],
        };
        large.extend_from_slice(body);
    }
    large.extend_from_slice(b"</records>");
    (small, large)
}

/// Wall-clock seconds of a first pass of a fresh engine over `docs`.
fn first_pass(design: &Design, docs: &[&[u8]]) -> f64 {
    let mut engine = Engine::new(design, EngineConfig::default());
    let t = Instant::now();
    for d in docs {
        std::hint::black_box(engine.filter(d));
    }
    t.elapsed().as_secs_f64()
}

/// Small records against one large document: first-pass MB/s of each, at
/// 1K and 10K generated queries.
pub fn records_section(quick: bool, md: &mut String) -> Result<(), String> {
    let (small, large) = records(if quick { 400_000 } else { 5_000_000 });
    let bytes: usize = small.iter().map(Vec::len).sum();
    let _ = writeln!(
        md,
        "\n## A stream of small documents vs one large document\n"
    );
    let _ = writeln!(
        md,
        "{} generated records of 1–4 KB ({:.2} MB, seed 28), each filtered as a document, \
         against one document holding the same records under `<records>`; a fresh engine \
         for each (first pass: every record new), wall-clock MB/s of the records' bytes. \
         Target (issue 28): the stream no more than 1.5× slower per byte.\n",
        small.len(),
        bytes as f64 / 1e6
    );
    let _ = writeln!(
        md,
        "| queries | records MB/s | one document MB/s | slowdown (records / one) |"
    );
    let _ = writeln!(md, "|--:|--:|--:|--:|");
    let counts: &[usize] = if quick {
        &[100, 1_000]
    } else {
        &[1_000, 10_000]
    };
    for &n in counts {
        let d = design(&queries(n))?;
        let refs: Vec<&[u8]> = small.iter().map(Vec::as_slice).collect();
        let s = first_pass(&d, &refs);
        let l = first_pass(&d, &[&large]);
        let _ = writeln!(
            md,
            "| {n} | {:.1} | {:.1} | {:.2} |",
            bytes as f64 / s / 1e6,
            bytes as f64 / l / 1e6,
            s / l
        );
    }
    Ok(())
}

/// The `qrtl` binary beside this one (`cargo build --release --bin qrtl`).
fn qrtl_exe() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let exe = me.with_file_name("qrtl");
    if exe.exists() {
        Ok(exe)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build --release --bin qrtl`",
            exe.display()
        ))
    }
}

/// Wall-clock seconds of `qrtl xpath filter --split nul --jobs J` on `stream`.
fn timed_filter(exe: &Path, queries: &Path, stream: &Path, jobs: usize) -> Result<f64, String> {
    let t = Instant::now();
    let st = Command::new(exe)
        .args(["xpath", "filter", "--split", "nul", "--jobs"])
        .arg(jobs.to_string())
        .arg(queries)
        .arg(stream)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    // Exit 1 is a flagged or unreadable input; the stream has none.
    if !st.success() {
        return Err(format!("qrtl exited with {st}"));
    }
    Ok(t.elapsed().as_secs_f64())
}

/// `qrtl xpath filter --split nul --jobs J` on the NITF documents
/// repeated, for J = 1, 2, 4, … up to the available parallelism.
pub fn jobs_section(quick: bool, nitf: &[Vec<u8>], md: &mut String) -> Result<(), String> {
    let exe = qrtl_exe()?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/out/streams");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let repeat = if quick { 10 } else { 100 };
    let mut stream = Vec::new();
    for _ in 0..repeat {
        for d in nitf {
            stream.extend_from_slice(d);
            stream.push(0);
        }
    }
    let stream_path = dir.join("nitf.nul");
    let queries_path = dir.join("gen-1k.txt");
    std::fs::write(&stream_path, &stream).map_err(|e| e.to_string())?;
    std::fs::write(&queries_path, queries(1_000)).map_err(|e| e.to_string())?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let _ = writeln!(md, "\n## `qrtl xpath filter --split nul --jobs J`\n");
    let _ = writeln!(
        md,
        "The NITF documents × {repeat} ({} documents, {:.1} MB) in one NUL-separated stream, \
         1K generated path queries, the `qrtl` binary end to end (start-up and query \
         compilation included), wall clock, best of 3, on {cores} logical cores. Target \
         (issue 28): `--jobs 2` ≥ 1.8× `--jobs 1` on two cores.\n",
        nitf.len() * repeat,
        stream.len() as f64 / 1e6
    );
    let _ = writeln!(md, "| jobs | seconds | MB/s | speed-up |");
    let _ = writeln!(md, "|--:|--:|--:|--:|");
    let mut base = None;
    let mut jobs = 1;
    while jobs <= cores.max(2) {
        let best = (0..3)
            .map(|_| timed_filter(&exe, &queries_path, &stream_path, jobs))
            .collect::<Result<Vec<f64>, String>>()?
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        let b = *base.get_or_insert(best);
        let _ = writeln!(
            md,
            "| {jobs} | {best:.2} | {:.1} | {:.2}× |",
            stream.len() as f64 / best / 1e6,
            b / best
        );
        jobs *= 2;
    }
    Ok(())
}
