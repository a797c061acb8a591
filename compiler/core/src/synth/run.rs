//! Running the tools: a few at a time, with progress on stderr.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::SynthError;

/// One tool run: `program args` in the project directory, its stdout and
/// stderr appended to `log` (relative to the project).
pub struct Job {
    pub label: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub log: String,
    /// A place-and-route run on this part: its log's device utilisation is
    /// read while it runs, and a design that needs more of a resource than
    /// the part has is stopped there ([`SynthError::DoesNotFit`]) instead of
    /// keeping the placer busy until the time limit.
    pub fit_on: Option<&'static str>,
}

/// A resource the log's device utilisation block (nextpnr's `Info:
/// <resource>: <used>/ <available> <percent>%` lines) shows over its
/// available count, the first one: (resource, used, available).
pub fn over_utilised(log: &str) -> Option<(String, u64, u64)> {
    log.lines()
        .filter_map(|l| {
            let (name, counts) = l.strip_prefix("Info:")?.trim().split_once(':')?;
            if !counts.trim_end().ends_with('%') {
                return None;
            }
            let (used, rest) = counts.trim().split_once('/')?;
            let available = rest.split_whitespace().next()?;
            let used: u64 = used.trim().parse().ok()?;
            let available: u64 = available.parse().ok()?;
            (!name.contains(' ') && used > available).then(|| (name.to_string(), used, available))
        })
        .next()
}

/// Whether nextpnr's log has its whole device utilisation block (placement
/// has begun after it).
fn utilisation_done(log: &str) -> bool {
    log.find("Device utilisation")
        .is_some_and(|at| log[at..].contains("Info: Placed") || log[at..].contains("placement"))
}

/// Progress lines: a line when a run starts, one every `every` while it
/// runs, one when it ends.
pub struct Progress {
    on: bool,
    every: Duration,
}

impl Progress {
    pub fn new(on: bool) -> Progress {
        Progress {
            on,
            every: Duration::from_secs(15),
        }
    }

    pub fn say(&self, msg: &str) {
        if self.on {
            eprintln!("qrtl synth: {msg}");
        }
    }
}

/// The last `n` lines of a file, for error messages.
pub fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("Warning: IO "))
        .collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

struct Running {
    job: Job,
    child: Child,
    started: Instant,
    next_note: Instant,
    /// The fit was read from the log (or the job has none to read).
    fit_read: bool,
    /// When to look at the log for the fit next (once a second).
    next_fit: Instant,
}

fn spawn(dir: &Path, job: Job, progress: &Progress) -> Result<Running, SynthError> {
    if job.fit_on.is_some() {
        // The fit is read from this run's log, never an earlier run's.
        let _ = std::fs::remove_file(dir.join(&job.log));
    }
    let out_path = dir.join(format!("{}.out", job.log));
    let out = std::fs::File::create(&out_path).map_err(|source| SynthError::Io {
        path: out_path.clone(),
        source,
    })?;
    let err = out.try_clone().map_err(|source| SynthError::Io {
        path: out_path.clone(),
        source,
    })?;
    let child = Command::new(&job.program)
        .args(&job.args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|source| SynthError::Io {
            path: job.program.clone(),
            source,
        })?;
    progress.say(&format!(
        "{} started (log: {})",
        job.label,
        dir.join(&job.log).display()
    ));
    let now = Instant::now();
    let fit_read = job.fit_on.is_none();
    Ok(Running {
        job,
        child,
        started: now,
        next_note: now + progress.every,
        fit_read,
        next_fit: now,
    })
}

/// A running job's fit, once its log shows the utilisation: `Err` when the
/// design needs more of a resource than the part has.
fn read_fit(dir: &Path, r: &mut Running) -> Result<(), SynthError> {
    if r.fit_read || Instant::now() < r.next_fit {
        return Ok(());
    }
    r.next_fit = Instant::now() + Duration::from_secs(1);
    let log = std::fs::read_to_string(dir.join(&r.job.log)).unwrap_or_default();
    if !utilisation_done(&log) {
        return Ok(());
    }
    r.fit_read = true;
    match over_utilised(&log) {
        Some((resource, used, available)) => Err(SynthError::DoesNotFit {
            what: r.job.label.clone(),
            part: r.job.fit_on.unwrap_or_default(),
            resource,
            used,
            available,
            log: dir.join(&r.job.log),
        }),
        None => Ok(()),
    }
}

/// Run `jobs`, at most `parallel` at a time; the first failure stops the
/// others and is returned. A run still going after `limit` is stopped and
/// is a [`SynthError::TimeLimit`] failure; a place-and-route run whose
/// utilisation shows the design larger than its part (`Job::fit_on`) is
/// stopped then and is a [`SynthError::DoesNotFit`] failure.
pub fn run_all(
    dir: &Path,
    progress: &Progress,
    jobs: Vec<Job>,
    parallel: usize,
    limit: Option<Duration>,
) -> Result<(), SynthError> {
    let mut waiting = jobs.into_iter();
    let mut running: Vec<Running> = Vec::new();
    let mut failure: Option<SynthError> = None;
    loop {
        while failure.is_none() && running.len() < parallel.max(1) {
            match waiting.next() {
                Some(job) => running.push(spawn(dir, job, progress)?),
                None => break,
            }
        }
        if running.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        let mut i = 0;
        while i < running.len() {
            let r = &mut running[i];
            let status = r.child.try_wait().map_err(|source| SynthError::Io {
                path: r.job.program.clone(),
                source,
            })?;
            if status.is_none() && failure.is_none() {
                if let Err(e) = read_fit(dir, r) {
                    let mut r = running.swap_remove(i);
                    let _ = r.child.kill();
                    let _ = r.child.wait();
                    progress.say(&format!("{} stopped: {e}", r.job.label));
                    failure = Some(e);
                    continue;
                }
            }
            match status {
                None if limit.is_some_and(|l| r.started.elapsed() >= l) => {
                    let mut r = running.swap_remove(i);
                    let _ = r.child.kill();
                    let _ = r.child.wait();
                    let limit = limit.unwrap_or_default();
                    progress.say(&format!(
                        "{} stopped at the time limit ({} s)",
                        r.job.label,
                        limit.as_secs()
                    ));
                    if failure.is_none() {
                        failure = Some(SynthError::TimeLimit {
                            what: r.job.label,
                            limit,
                            log: dir.join(&r.job.log),
                        });
                    }
                }
                None => {
                    if Instant::now() >= r.next_note {
                        progress.say(&format!(
                            "{} running, {} s",
                            r.job.label,
                            r.started.elapsed().as_secs()
                        ));
                        r.next_note += progress.every;
                    }
                    i += 1;
                }
                Some(st) => {
                    let r = running.swap_remove(i);
                    let secs = r.started.elapsed().as_secs_f64();
                    if st.success() {
                        progress.say(&format!("{} done in {secs:.1} s", r.job.label));
                    } else if failure.is_none() {
                        let log = dir.join(&r.job.log);
                        let out = dir.join(format!("{}.out", r.job.log));
                        let mut t = tail(&log, 12);
                        if t.is_empty() {
                            t = tail(&out, 12);
                        } else {
                            // A tool that dies without a word in its log
                            // (YoWASP's "wasm trap: call stack exhausted")
                            // says why on its own output.
                            let said = tail(&out, 3);
                            if !said.is_empty() && !t.contains(&said) {
                                t.push_str("\nand its output ends:\n");
                                t.push_str(&said);
                            }
                        }
                        failure = Some(SynthError::ToolFailed {
                            what: format!("{} ({st})", r.job.label),
                            log,
                            tail: t,
                        });
                    }
                }
            }
        }
        if failure.is_some() {
            for r in &mut running {
                let _ = r.child.kill();
                let _ = r.child.wait();
            }
            running.clear();
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
