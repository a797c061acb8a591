//! The guide cannot drift from the tool (issue 31).
//!
//! * Every fenced block whose info string is exactly `sh example` in
//!   README.md and docs/*.md runs with `bash -euo pipefail` from the
//!   repository root, with the built `qrtl` first on `PATH` and `OUT` set to
//!   a fresh scratch directory; a failing block names its file, line, exit
//!   status and the tail of its output.
//! * The files in [`MUST_HAVE_EXAMPLES`] hold at least one such block, so
//!   dropping the marker by accident is noticed.
//! * Every long option that `qrtl ... --help` prints, for every subcommand,
//!   and every subcommand itself, appears in docs/cli.md.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Files that must contain runnable examples (relative to the repository).
const MUST_HAVE_EXAMPLES: &[&str] = &["README.md", "docs/cli.md"];

/// The command-line reference that must name every subcommand and option.
const CLI_REFERENCE: &str = "docs/cli.md";

/// The info string that marks a runnable block.
const MARKER: &str = "sh example";

/// A block still running after this long fails (`timeout` kills its
/// process group).
const BLOCK_TIMEOUT: Duration = Duration::from_secs(300);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("qrtl-docs-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One runnable block: where it starts (1-based line of its opening fence)
/// and its text.
#[derive(Debug)]
struct Example {
    file: String,
    line: usize,
    script: String,
}

impl Example {
    /// The lines that are commands (not blank, not `#` comments).
    fn commands(&self) -> impl Iterator<Item = &str> {
        self.script
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
    }
}

/// The fenced blocks of a Markdown text marked `sh example` (CommonMark
/// fences: three or more backticks or tildes, closed by a fence of the same
/// character at least as long, with nothing after it).
fn examples(file: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    // (fence char, fence length, is an example, opening line, body)
    let mut open: Option<(char, usize, bool, usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let t = line.trim_start_matches(' ');
        let fence = if indent <= 3 {
            ['`', '~']
                .into_iter()
                .find(|&c| t.starts_with(c))
                .map(|c| (c, t.chars().take_while(|&x| x == c).count()))
                .filter(|&(_, n)| n >= 3)
        } else {
            None
        };
        match &mut open {
            Some((c, n, example, start, body)) => {
                let closes = fence.is_some_and(|(fc, fnum)| {
                    fc == *c && fnum >= *n && t[fnum..].trim().is_empty()
                });
                if closes {
                    if *example {
                        out.push(Example {
                            file: file.to_string(),
                            line: *start,
                            script: std::mem::take(body),
                        });
                    }
                    open = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {
                if let Some((c, n)) = fence {
                    let info = t[n..].trim();
                    open = Some((c, n, info == MARKER, i + 1, String::new()));
                }
            }
        }
    }
    if let Some((_, _, true, start, _)) = open {
        panic!("{file}:{start}: `{MARKER}` block is never closed");
    }
    out
}

/// README.md and docs/*.md, relative to the repository, sorted.
fn documents() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    let docs = root().join("docs");
    let mut pages: Vec<String> = std::fs::read_dir(&docs)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .map(|n| format!("docs/{n}"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    files.extend(pages);
    files
}

fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
}

/// A directory holding only `qrtl`, a link to the binary under test.
fn bin_dir() -> Scratch {
    let dir = Scratch::new("bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_qrtl"), dir.0.join("qrtl")).expect("link qrtl");
    dir
}

/// The last `lines` lines of `bytes`.
fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    let mut t = all[from..].join("\n");
    if from > 0 {
        t = format!("[{from} lines before]\n{t}");
    }
    t
}

/// Run one block; `Err` with the report of a failure.
fn run(example: &Example, bin: &Path) -> Result<Duration, String> {
    let out = Scratch::new("out");
    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![bin.to_path_buf()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).expect("PATH")
        }
        None => bin.as_os_str().to_owned(),
    };
    let start = Instant::now();
    let result: std::io::Result<Output> = Command::new("timeout")
        .arg("--kill-after=10")
        .arg(BLOCK_TIMEOUT.as_secs().to_string())
        .args(["bash", "-euo", "pipefail", "-c", &example.script])
        .current_dir(root())
        .env("PATH", path)
        .env("OUT", &out.0)
        .stdin(Stdio::null())
        .output();
    let took = start.elapsed();
    let o =
        result.map_err(|e| format!("{}:{}: cannot run bash: {e}", example.file, example.line))?;
    if o.status.success() {
        return Ok(took);
    }
    let status = match o.status.code() {
        Some(124) | Some(137) => format!("timed out after {}s", BLOCK_TIMEOUT.as_secs()),
        Some(c) => format!("exit status {c}"),
        None => format!("{}", o.status),
    };
    Err(format!(
        "{}:{}: `{MARKER}` block failed ({status}, {:.1}s)\n--- block\n{}--- stdout (tail)\n{}\n--- stderr (tail)\n{}\n",
        example.file,
        example.line,
        took.as_secs_f64(),
        example.script,
        tail(&o.stdout, 20),
        tail(&o.stderr, 30),
    ))
}

#[test]
fn marked_examples_run() {
    let bin = bin_dir();
    let mut failures = Vec::new();
    let mut count = 0;
    for file in documents() {
        let path = root().join(&file);
        if !path.exists() {
            continue;
        }
        for ex in examples(&file, &read(&file)) {
            count += 1;
            if ex.commands().next().is_none() {
                failures.push(format!(
                    "{}:{}: `{MARKER}` block has no command",
                    ex.file, ex.line
                ));
                continue;
            }
            match run(&ex, &bin.0) {
                Ok(took) => eprintln!("ok {}:{} ({:.1}s)", ex.file, ex.line, took.as_secs_f64()),
                Err(report) => failures.push(report),
            }
        }
    }
    assert!(count > 0, "no `{MARKER}` block anywhere");
    assert!(
        failures.is_empty(),
        "{} of {count} examples failed:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn documents_keep_their_examples() {
    for file in MUST_HAVE_EXAMPLES {
        let n = examples(file, &read(file)).len();
        assert!(
            n >= 1,
            "{file} has no `{MARKER}` block: were the markers removed?"
        );
    }
    let readme = examples("README.md", &read("README.md")).len();
    if readme == 0 && !MUST_HAVE_EXAMPLES.contains(&"README.md") {
        eprintln!("note: README.md has no `{MARKER}` block yet");
    }
}

/// `qrtl ARGS --help`.
fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .arg("--help")
        .output()
        .expect("run qrtl --help");
    assert!(o.status.success(), "qrtl {} --help failed", args.join(" "));
    String::from_utf8(o.stdout).expect("help is UTF-8")
}

/// The subcommands a help text lists (its `Commands:` section, `help` left
/// out).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every `--long-option` in a text.
fn long_options(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'-');
        let name: String = text[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if before_ok && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push(format!("--{}", name.trim_end_matches('-')));
        }
        i = start + 2 + name.len();
    }
    out.sort();
    out.dedup();
    out
}

/// Every command path (`["xpath", "check"]`, `["synth"]`, ...) that has no
/// subcommands of its own.
fn leaf_commands() -> Vec<Vec<String>> {
    let mut leaves = Vec::new();
    let mut todo: Vec<Vec<String>> = subcommands(&help(&[]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let subs = subcommands(&help(&args));
        if subs.is_empty() {
            leaves.push(path);
        } else {
            for s in subs {
                let mut p = path.clone();
                p.push(s);
                todo.push(p);
            }
        }
    }
    leaves.sort();
    leaves
}

#[test]
fn cli_reference_covers_help() {
    let reference = read(CLI_REFERENCE);
    let documented = long_options(&reference);
    let leaves = leaf_commands();
    assert!(leaves.len() >= 14, "too few subcommands found: {leaves:?}");
    let mut missing = Vec::new();
    for path in &leaves {
        let name = format!("qrtl {}", path.join(" "));
        if !reference.contains(&format!("`{name}")) {
            missing.push(format!(
                "{name}: the command is not described (`{name} ...`)"
            ));
        }
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        for opt in long_options(&help(&args)) {
            if opt == "--help" || opt == "--version" {
                continue;
            }
            if !documented.contains(&opt) {
                missing.push(format!("{name}: {opt}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{CLI_REFERENCE} does not mention what `--help` prints:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn fence_parsing() {
    let text = "a\n```sh example\nqrtl x\n# c\n```\n````md\n```sh example\nno\n```\n````\n~~~sh example\nqrtl y\n~~~\n```sh\nnot run\n```\n";
    let ex = examples("t.md", text);
    assert_eq!(ex.len(), 2, "{ex:?}");
    assert_eq!((ex[0].line, ex[0].script.as_str()), (2, "qrtl x\n# c\n"));
    assert_eq!(ex[0].commands().collect::<Vec<_>>(), ["qrtl x"]);
    assert_eq!((ex[1].line, ex[1].script.as_str()), (11, "qrtl y\n"));
    assert_eq!(
        long_options("  -o, --out <OUT>  x --max-depth; a--b, --k=3, `--no-prefix-merge`"),
        ["--k", "--max-depth", "--no-prefix-merge", "--out"]
    );
}
