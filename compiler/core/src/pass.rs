//! The pass manager every engine shares: passes over one IR, named
//! pipelines of them, "disable a pass by name", verification of the IR after
//! every pass and a per-pass report.
//!
//! An engine implements [`Ir`] for each IR it optimises, writes one type per
//! pass implementing [`Pass`], and builds one [`PassManager`] per IR in a
//! registry file that lists every pass and names its pipelines. Nothing here
//! knows an engine: the IR and the configuration the passes read are type
//! parameters.
//!
//! ```
//! use qrtl_core::pass::{Ir, Pass, PassManager};
//!
//! #[derive(Debug)]
//! struct Nums(Vec<u32>);
//! impl Ir for Nums {
//!     type Stats = usize;
//!     fn verify(&self) -> Result<(), String> {
//!         Ok(())
//!     }
//!     fn stats(&self) -> usize {
//!         self.0.len()
//!     }
//! }
//! struct Dedup;
//! impl Pass<Nums, ()> for Dedup {
//!     fn name(&self) -> &'static str {
//!         "dedup"
//!     }
//!     fn description(&self) -> &'static str {
//!         "drop repeated numbers"
//!     }
//!     fn run(&self, mut ir: Nums, _: &()) -> Nums {
//!         ir.0.dedup();
//!         ir
//!     }
//! }
//! let pm = PassManager::new().pass(Dedup).pipeline("all", &["dedup"]);
//! let (out, reports) = pm.run_all("all", Nums(vec![1, 1, 2]), &()).unwrap();
//! assert_eq!(out.0, vec![1, 2]);
//! assert_eq!((reports[0].pass, reports[0].ran, reports[0].after), ("dedup", true, 2));
//! ```

use std::fmt;
use std::rc::Rc;

/// An IR passes can transform: it can check its own invariants, and
/// measure itself for the per-pass report.
pub trait Ir {
    /// What the per-pass report records after each pass (`()` if nothing).
    type Stats: Clone;
    /// The IR's structural invariants; `Err` names the first one broken.
    fn verify(&self) -> Result<(), String>;
    /// The IR's size now.
    fn stats(&self) -> Self::Stats;
}

/// A pass over `IR`, configured by a `C`.
pub trait Pass<IR, C> {
    /// Kebab-case name, unique within its manager (`prefix-merge`).
    fn name(&self) -> &'static str;
    /// One line: what the pass does.
    fn description(&self) -> &'static str;
    /// A mandatory pass always runs: disabling it is refused.
    fn mandatory(&self) -> bool {
        false
    }
    /// The transformation.
    fn run(&self, ir: IR, config: &C) -> IR;
}

/// One row of the report: a pass of the pipeline, whether it ran, and the
/// IR's statistics after it (unchanged when it did not run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassReport<S> {
    pub pass: &'static str,
    pub ran: bool,
    pub after: S,
}

/// Why a pipeline did not run to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassError {
    /// No pipeline of that name.
    UnknownPipeline(String),
    /// Names asked to be disabled that are not optional passes of the
    /// pipeline (unknown, or mandatory).
    CannotDisable(Vec<String>),
    /// The IR broke an invariant after a pass: a compiler bug.
    Verify { pass: &'static str, error: String },
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PassError::UnknownPipeline(p) => write!(f, "unknown pipeline {p}"),
            PassError::CannotDisable(names) => {
                write!(f, "unknown or mandatory pass {}", names.join(", "))
            }
            PassError::Verify { pass, error } => {
                write!(f, "internal error after pass {pass}: {error}")
            }
        }
    }
}

impl std::error::Error for PassError {}

/// Every pass over one IR and the named pipelines (ordered lists of those
/// passes) that run them.
pub struct PassManager<IR, C> {
    passes: Vec<Rc<dyn Pass<IR, C>>>,
    /// Pipeline name and indexes into `passes`, in run order.
    pipelines: Vec<(&'static str, Vec<usize>)>,
}

impl<IR: Ir, C> Default for PassManager<IR, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<IR: Ir, C> PassManager<IR, C> {
    pub fn new() -> Self {
        PassManager {
            passes: Vec::new(),
            pipelines: Vec::new(),
        }
    }

    /// Register a pass. Panics if its name is taken (a registry bug).
    pub fn pass(mut self, pass: impl Pass<IR, C> + 'static) -> Self {
        assert!(
            self.find(pass.name()).is_none(),
            "pass {} registered twice",
            pass.name()
        );
        self.passes.push(Rc::new(pass));
        self
    }

    /// Name a pipeline: registered passes, in run order. Panics on an
    /// unknown pass or a taken pipeline name (a registry bug).
    pub fn pipeline(mut self, name: &'static str, passes: &[&str]) -> Self {
        assert!(
            self.pipelines.iter().all(|(n, _)| *n != name),
            "pipeline {name} named twice"
        );
        let order = passes
            .iter()
            .map(|p| {
                self.find(p)
                    .unwrap_or_else(|| panic!("pipeline {name}: unknown pass {p}"))
            })
            .collect();
        self.pipelines.push((name, order));
        self
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.passes.iter().position(|p| p.name() == name)
    }

    /// Every registered pass, in registration order.
    pub fn passes(&self) -> impl Iterator<Item = &dyn Pass<IR, C>> {
        self.passes.iter().map(|p| p.as_ref())
    }

    /// A registered pass by name.
    pub fn get(&self, name: &str) -> Option<&dyn Pass<IR, C>> {
        self.find(name).map(|i| self.passes[i].as_ref())
    }

    /// Pipeline names, in the order they were named.
    pub fn pipeline_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.pipelines.iter().map(|(n, _)| *n)
    }

    /// The passes of a pipeline in run order; `None` for an unknown name.
    pub fn pipeline_passes(&self, pipeline: &str) -> Option<Vec<Rc<dyn Pass<IR, C>>>> {
        self.pipelines
            .iter()
            .find(|(n, _)| *n == pipeline)
            .map(|(_, order)| order.iter().map(|&i| self.passes[i].clone()).collect())
    }

    /// The passes of a pipeline one may disable (the non-mandatory ones),
    /// in run order; empty for an unknown pipeline.
    pub fn optional_names(&self, pipeline: &str) -> Vec<&'static str> {
        self.pipeline_passes(pipeline)
            .unwrap_or_default()
            .into_iter()
            .filter(|p| !p.mandatory())
            .map(|p| p.name())
            .collect()
    }

    /// The names of `disabled` that cannot be disabled in `pipeline`: not
    /// one of its passes, or mandatory. Empty when all may be disabled.
    pub fn refused<S: AsRef<str>>(&self, pipeline: &str, disabled: &[S]) -> Vec<String> {
        let optional = self.optional_names(pipeline);
        disabled
            .iter()
            .map(AsRef::as_ref)
            .filter(|d| !optional.contains(d))
            .map(str::to_string)
            .collect()
    }

    /// Run every pass of a pipeline on `ir` ([`run`](Self::run) with none
    /// disabled).
    pub fn run_all(
        &self,
        pipeline: &str,
        ir: IR,
        config: &C,
    ) -> Result<(IR, Vec<PassReport<IR::Stats>>), PassError> {
        self.run::<&str>(pipeline, ir, config, &[])
    }

    /// Run a pipeline on `ir`, skipping the passes named in `disabled` and
    /// verifying the IR after every pass that ran. Returns the IR and one
    /// report per pass of the pipeline. Refuses (before running anything)
    /// an unknown pipeline, and disabling an unknown or mandatory pass.
    pub fn run<S: AsRef<str>>(
        &self,
        pipeline: &str,
        mut ir: IR,
        config: &C,
        disabled: &[S],
    ) -> Result<(IR, Vec<PassReport<IR::Stats>>), PassError> {
        let passes = self
            .pipeline_passes(pipeline)
            .ok_or_else(|| PassError::UnknownPipeline(pipeline.to_string()))?;
        let refused = self.refused(pipeline, disabled);
        if !refused.is_empty() {
            return Err(PassError::CannotDisable(refused));
        }
        let mut reports = Vec::with_capacity(passes.len());
        for pass in passes {
            let ran = pass.mandatory() || !disabled.iter().any(|d| d.as_ref() == pass.name());
            if ran {
                ir = pass.run(ir, config);
                ir.verify().map_err(|error| PassError::Verify {
                    pass: pass.name(),
                    error,
                })?;
            }
            reports.push(PassReport {
                pass: pass.name(),
                ran,
                after: ir.stats(),
            });
        }
        Ok((ir, reports))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of numbers that must stay sorted.
    #[derive(Debug, PartialEq)]
    struct Sorted(Vec<i32>);
    impl Ir for Sorted {
        type Stats = usize;
        fn verify(&self) -> Result<(), String> {
            if self.0.windows(2).all(|w| w[0] <= w[1]) {
                Ok(())
            } else {
                Err("not sorted".into())
            }
        }
        fn stats(&self) -> usize {
            self.0.len()
        }
    }

    struct Dedup;
    impl Pass<Sorted, i32> for Dedup {
        fn name(&self) -> &'static str {
            "dedup"
        }
        fn description(&self) -> &'static str {
            "drop repeats"
        }
        fn run(&self, mut ir: Sorted, _: &i32) -> Sorted {
            ir.0.dedup();
            ir
        }
    }

    /// Appends the config; mandatory.
    struct Push;
    impl Pass<Sorted, i32> for Push {
        fn name(&self) -> &'static str {
            "push"
        }
        fn description(&self) -> &'static str {
            "append the config"
        }
        fn mandatory(&self) -> bool {
            true
        }
        fn run(&self, mut ir: Sorted, c: &i32) -> Sorted {
            ir.0.push(*c);
            ir
        }
    }

    fn manager() -> PassManager<Sorted, i32> {
        PassManager::new()
            .pass(Dedup)
            .pass(Push)
            .pipeline("both", &["dedup", "push"])
            .pipeline("push", &["push"])
    }

    #[test]
    fn runs_in_order_and_reports() {
        let (ir, r) = manager()
            .run_all("both", Sorted(vec![1, 1, 2]), &5)
            .unwrap();
        assert_eq!(ir, Sorted(vec![1, 2, 5]));
        let rows: Vec<_> = r.iter().map(|r| (r.pass, r.ran, r.after)).collect();
        assert_eq!(rows, [("dedup", true, 2), ("push", true, 3)]);
    }

    #[test]
    fn disables_by_name() {
        let (ir, r) = manager()
            .run("both", Sorted(vec![1, 1]), &5, &["dedup"])
            .unwrap();
        assert_eq!(ir, Sorted(vec![1, 1, 5]));
        assert_eq!((r[0].ran, r[0].after), (false, 2));
    }

    #[test]
    fn refuses_unknown_and_mandatory() {
        let m = manager();
        assert_eq!(m.optional_names("both"), ["dedup"]);
        assert!(m.optional_names("push").is_empty());
        assert_eq!(
            m.refused("both", &["push", "bogus", "dedup"]),
            ["push", "bogus"]
        );
        // `dedup` is not in the `push` pipeline.
        assert_eq!(
            m.run("push", Sorted(vec![]), &1, &["dedup"]).unwrap_err(),
            PassError::CannotDisable(vec!["dedup".into()])
        );
        assert_eq!(
            m.run_all("none", Sorted(vec![]), &1).unwrap_err(),
            PassError::UnknownPipeline("none".into())
        );
    }

    #[test]
    fn verifies_after_each_pass() {
        let e = manager().run_all("both", Sorted(vec![3]), &1).unwrap_err();
        assert_eq!(e.to_string(), "internal error after pass push: not sorted");
    }

    #[test]
    #[should_panic(expected = "unknown pass")]
    fn pipeline_of_unknown_pass_is_a_bug() {
        let _ = manager().pipeline("bad", &["nope"]);
    }
}
