//! `--jobs N` of the `filter` commands, written once: an ordered parallel
//! map over a stream of inputs. N worker threads each own a state (their
//! engine) built by the same `init`; the calling thread pulls inputs,
//! hands them out in batches and passes the results to `sink` in input
//! order. `--jobs 1` runs on the calling thread, as a plain loop.
//!
//! Batches: small documents (a NUL-separated stream of records of a few
//! KB) take tens of microseconds each, about what handing one to a worker
//! and its result back costs in wake-ups. So inputs go out in batches of
//! up to [`BATCH_ITEMS`] inputs or [`BATCH_WEIGHT`] bytes, but a batch is
//! sent as soon as no batch is waiting for a worker: a slow stream (a
//! live feed) is never held back to fill one, and a worker never idles
//! while the calling thread fills one.
//!
//! Memory: at most [`PER_WORKER`] × N batches are in flight (pulled but
//! not yet sunk), so it is bounded whatever the stream's length.

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

/// Batches in flight per worker: enough to keep every worker busy while
/// one slow input holds the head of the output back.
pub const PER_WORKER: usize = 4;

/// The most inputs in one batch.
pub const BATCH_ITEMS: usize = 64;

/// A batch is full once its inputs weigh this much (bytes of input, as
/// the caller's `weight` estimates them).
pub const BATCH_WEIGHT: usize = 256 * 1024;

/// `--jobs N` of the filter commands.
#[derive(clap::Args, Debug, Clone)]
pub struct JobsArgs {
    /// Worker threads, each with its own engine (default: the machine's
    /// available parallelism); output stays in input order, identical to
    /// `--jobs 1`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
}

impl JobsArgs {
    /// The number of workers: `--jobs`, or the available parallelism.
    pub fn count(&self) -> NonZeroUsize {
        let n = match self.jobs {
            Some(n) => NonZeroUsize::new(n as usize),
            None => std::thread::available_parallelism().ok(),
        };
        n.unwrap_or(NonZeroUsize::MIN)
    }
}

/// What a worker sends back: a batch's results, or word that it panicked
/// (so the collector stops waiting for the results it will never send).
enum Done<R> {
    Results(usize, Vec<R>),
    Panicked,
}

/// Sends [`Done::Panicked`] when dropped by a panicking worker.
struct PanicNotice<'a, R>(&'a mpsc::Sender<Done<R>>);

impl<R> Drop for PanicNotice<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send(Done::Panicked);
        }
    }
}

/// The task queue: batches numbered in input order, and how many of them
/// no worker has taken yet.
struct Tasks<I> {
    rx: Mutex<mpsc::Receiver<(usize, Vec<I>)>>,
    waiting: AtomicUsize,
}

/// Map `work` over `inputs` on `jobs` workers (each with its own state
/// from `init`) and give the results to `sink` in input order; `sink`
/// returning `Break` stops the run early. `weight` estimates an input's
/// size in bytes, for batching. Returns the workers' states (for
/// statistics). A worker's panic is resumed on the calling thread.
pub fn ordered_map<I, S, R>(
    jobs: NonZeroUsize,
    inputs: impl Iterator<Item = I>,
    weight: impl Fn(&I) -> usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, I) -> R + Sync,
    mut sink: impl FnMut(R) -> ControlFlow<()>,
) -> Vec<S>
where
    I: Send,
    S: Send,
    R: Send,
{
    if jobs.get() == 1 {
        let mut state = init();
        for item in inputs {
            if sink(work(&mut state, item)).is_break() {
                break;
            }
        }
        return vec![state];
    }
    let (task_tx, task_rx) = mpsc::channel::<(usize, Vec<I>)>();
    let tasks = Tasks {
        rx: Mutex::new(task_rx),
        waiting: AtomicUsize::new(0),
    };
    let (done_tx, done_rx) = mpsc::channel::<Done<R>>();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.get())
            .map(|_| {
                let done_tx = done_tx.clone();
                let (tasks, init, work) = (&tasks, &init, &work);
                scope.spawn(move || worker(tasks, &done_tx, init, work))
            })
            .collect();
        drop(done_tx);
        let window = jobs.get() * PER_WORKER;
        let feed = Feed {
            tx: task_tx,
            waiting: &tasks.waiting,
            weight: &weight,
        };
        collect(inputs, feed, done_rx, window, &mut sink);
        let mut states = Vec::with_capacity(workers.len());
        for w in workers {
            match w.join() {
                Ok(s) => states.push(s),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        states
    })
}

/// A worker: take batches until the channel closes, send each batch's
/// results.
fn worker<I, S, R>(
    tasks: &Tasks<I>,
    done: &mpsc::Sender<Done<R>>,
    init: &impl Fn() -> S,
    work: &impl Fn(&mut S, I) -> R,
) -> S {
    let _notice = PanicNotice(done);
    let mut state = init();
    loop {
        let task = match tasks.rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        let Ok((seq, batch)) = task else { break };
        tasks.waiting.fetch_sub(1, Ordering::AcqRel);
        let results = batch.into_iter().map(|i| work(&mut state, i)).collect();
        if done.send(Done::Results(seq, results)).is_err() {
            break; // the collector stopped early
        }
    }
    state
}

/// The calling thread's end of the task queue.
struct Feed<'a, I, W> {
    tx: mpsc::Sender<(usize, Vec<I>)>,
    waiting: &'a AtomicUsize,
    weight: &'a W,
}

impl<I, W: Fn(&I) -> usize> Feed<'_, I, W> {
    /// The next batch from `inputs`: inputs up to [`BATCH_ITEMS`] or
    /// [`BATCH_WEIGHT`], cut short when no batch is waiting for a worker
    /// (so none idles while this one fills). Empty once `inputs` is.
    fn batch(&self, inputs: &mut impl Iterator<Item = I>) -> Vec<I> {
        let mut batch = Vec::new();
        let mut weight = 0;
        while batch.len() < BATCH_ITEMS && weight < BATCH_WEIGHT {
            let Some(item) = inputs.next() else { break };
            weight += (self.weight)(&item);
            batch.push(item);
            if self.waiting.load(Ordering::Acquire) == 0 {
                break;
            }
        }
        batch
    }

    /// Queue batch `seq`; false once every worker has gone.
    fn send(&self, seq: usize, batch: Vec<I>) -> bool {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        self.tx.send((seq, batch)).is_ok()
    }
}

/// The calling thread's side: keep `window` batches in flight, reorder
/// the results, sink them in order. Dropping the feed on return ends the
/// workers.
fn collect<I, R, W: Fn(&I) -> usize>(
    inputs: impl Iterator<Item = I>,
    feed: Feed<'_, I, W>,
    done: mpsc::Receiver<Done<R>>,
    window: usize,
    sink: &mut impl FnMut(R) -> ControlFlow<()>,
) {
    let mut inputs = inputs.fuse();
    // Batches' results not yet sunk; index 0 is batch number `next_out`.
    let mut pending: VecDeque<Option<Vec<R>>> = VecDeque::with_capacity(window);
    let (mut next_in, mut next_out) = (0usize, 0usize);
    loop {
        while next_in - next_out < window {
            let batch = feed.batch(&mut inputs);
            if batch.is_empty() {
                break;
            }
            if !feed.send(next_in, batch) {
                return;
            }
            pending.push_back(None);
            next_in += 1;
        }
        if next_in == next_out {
            return; // every input sunk
        }
        let (seq, r) = match done.recv() {
            Ok(Done::Results(seq, r)) => (seq, r),
            Ok(Done::Panicked) | Err(_) => return,
        };
        pending[seq - next_out] = Some(r);
        while let Some(Some(_)) = pending.front() {
            let Some(Some(results)) = pending.pop_front() else {
                break;
            };
            next_out += 1;
            for r in results {
                if sink(r).is_break() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn n(k: usize) -> NonZeroUsize {
        NonZeroUsize::new(k).unwrap()
    }

    /// Squares with uneven delays: results still in input order, with
    /// inputs light (batches cut by count) or heavy (a batch each).
    fn run(jobs: usize, len: usize, weight: usize) -> Vec<usize> {
        let mut out = Vec::new();
        ordered_map(
            n(jobs),
            0..len,
            |_| weight,
            || (),
            |_, i| {
                std::thread::sleep(Duration::from_micros(((i * 7919) % 13) as u64 * 50));
                i * i
            },
            |r| {
                out.push(r);
                ControlFlow::Continue(())
            },
        );
        out
    }

    #[test]
    fn results_in_input_order_for_any_jobs() {
        let want: Vec<usize> = (0..200).map(|i| i * i).collect();
        for jobs in 1..=5 {
            for weight in [0, 1000, BATCH_WEIGHT] {
                assert_eq!(
                    run(jobs, 200, weight),
                    want,
                    "--jobs {jobs}, weight {weight}"
                );
            }
        }
        assert!(run(3, 0, 1).is_empty());
    }

    #[test]
    fn one_state_per_worker_and_every_input_seen_once() {
        let inits = AtomicUsize::new(0);
        let states = ordered_map(
            n(3),
            0..100usize,
            |_| 1,
            || {
                inits.fetch_add(1, Ordering::Relaxed);
                Vec::new()
            },
            |seen: &mut Vec<usize>, i| seen.push(i),
            |()| ControlFlow::Continue(()),
        );
        assert_eq!(states.len(), 3);
        assert_eq!(inits.load(Ordering::Relaxed), 3);
        let mut all: Vec<usize> = states.into_iter().flatten().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn inputs_in_flight_are_bounded() {
        for jobs in [1, 2, 4] {
            let pulled = Cell::new(0usize);
            let sunk = Cell::new(0usize);
            let most = Cell::new(0usize);
            let inputs = (0..500usize).inspect(|_| {
                pulled.set(pulled.get() + 1);
                most.set(most.get().max(pulled.get() - sunk.get()));
            });
            ordered_map(
                n(jobs),
                inputs,
                |_| 1,
                || (),
                |_, i| i,
                |_| {
                    sunk.set(sunk.get() + 1);
                    ControlFlow::Continue(())
                },
            );
            assert_eq!(sunk.get(), 500);
            assert!(
                most.get() <= jobs * PER_WORKER * BATCH_ITEMS,
                "--jobs {jobs}: {}",
                most.get()
            );
        }
    }

    #[test]
    fn sink_break_stops_early() {
        for jobs in [1, 3] {
            let pulled = Cell::new(0usize);
            let mut got = Vec::new();
            ordered_map(
                n(jobs),
                (0..10_000usize).inspect(|_| pulled.set(pulled.get() + 1)),
                |_| 1,
                || (),
                |_, i| i,
                |r| {
                    got.push(r);
                    if r == 9 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            assert_eq!(got, (0..10).collect::<Vec<_>>());
            let bound = 10 + jobs * PER_WORKER * BATCH_ITEMS;
            assert!(pulled.get() <= bound, "{}", pulled.get());
        }
    }

    #[test]
    #[should_panic(expected = "worker bug")]
    fn a_worker_panic_reaches_the_caller() {
        ordered_map(
            n(2),
            0..50usize,
            |_| 1,
            || (),
            |_, i| {
                assert!(i != 17, "worker bug");
                i
            },
            |_| ControlFlow::Continue(()),
        );
    }

    /// The batching rule itself: a batch fills to `BATCH_ITEMS` inputs or
    /// `BATCH_WEIGHT` bytes while another batch waits for a worker, and
    /// leaves with one input when none waits (no worker idles while it
    /// fills).
    #[test]
    fn a_batch_is_cut_short_when_no_batch_waits() {
        let (tx, _rx) = mpsc::channel();
        let waiting = AtomicUsize::new(0);
        let light = |_: &usize| 1;
        let feed = Feed {
            tx,
            waiting: &waiting,
            weight: &light,
        };
        let mut inputs = 0..1000usize;
        assert_eq!(feed.batch(&mut inputs), vec![0], "none waiting: one input");
        waiting.store(1, Ordering::Release);
        let full = feed.batch(&mut inputs);
        assert_eq!(full.len(), BATCH_ITEMS, "one waiting: a full batch");
        assert_eq!(full[0], 1, "in input order");
        let heavy = |_: &usize| BATCH_WEIGHT / 4;
        let feed = Feed {
            tx: feed.tx,
            waiting: &waiting,
            weight: &heavy,
        };
        assert_eq!(feed.batch(&mut inputs).len(), 4, "cut by weight");
        assert!(feed.send(0, vec![1]), "a worker's end is open");
        assert_eq!(waiting.load(Ordering::Acquire), 2, "a sent batch waits");
        assert!(feed.batch(&mut std::iter::empty()).is_empty());
    }

    #[test]
    fn jobs_default_is_at_least_one() {
        assert!(JobsArgs { jobs: None }.count().get() >= 1);
        assert_eq!(JobsArgs { jobs: Some(3) }.count().get(), 3);
    }
}
