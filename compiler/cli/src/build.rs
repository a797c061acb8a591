//! `qrtl build DESIGN.yaml -o DIR` (SPEC §2): every design of a design
//! file compiled through its engine, then written. A file with one design
//! (keys at the top level) writes its project to DIR, exactly as the
//! matching `qrtl ENGINE compile ... -o DIR`; a file with `designs:` writes
//! each to DIR/NAME. Any error in any design (the YAML, an input file, a
//! query) is reported with all the others and nothing is written.

use std::path::{Path, PathBuf};

use qrtl_core::design::{self, Fields};
use qrtl_core::engine::{Engine, Failure};
use qrtl_core::project::{write_project, ProjectSpec};

use crate::common::fail;

/// An engine as `qrtl build` sees it: its name, and a design file entry to
/// a project.
pub trait BuildEngine: Sync {
    fn name(&self) -> &'static str;
    /// Read the entry's keys, load its inputs, compile: the project.
    fn project(&self, fields: Fields<'_>) -> Result<ProjectSpec, Failure>;
}

/// An [`Engine`] with its design-file reader (`from_design` of its crate).
pub struct Registered<E: Engine> {
    pub engine: E,
    pub from_design: fn(Fields<'_>) -> Result<(E::Source, E::Options), Failure>,
}

impl<E: Engine + Sync> BuildEngine for Registered<E> {
    fn name(&self) -> &'static str {
        E::NAME
    }

    fn project(&self, fields: Fields<'_>) -> Result<ProjectSpec, Failure> {
        let (source, opts) = (self.from_design)(fields)?;
        let design = self.engine.compile(&source, &opts)?;
        Ok(self.engine.project(&source, design, &opts))
    }
}

/// Run `qrtl build`; returns the exit code.
pub fn run(file: &Path, out: &Path) -> i32 {
    match prepare(file, out) {
        Ok(projects) => {
            for (dir, spec) in &projects {
                if let Err(e) = write_project(dir, spec) {
                    eprintln!("error: {e}");
                    return 1;
                }
            }
            for (dir, spec) in &projects {
                println!(
                    "{}: {} project {}",
                    file.display(),
                    kind(spec),
                    dir.display()
                );
            }
            0
        }
        Err(f) => fail(f),
    }
}

/// The engine of a project (its manifest's `kind`).
fn kind(spec: &ProjectSpec) -> &str {
    spec.manifest_extra
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("?")
}

/// Every design compiled (nothing written), or every failure.
fn prepare(file: &Path, out: &Path) -> Result<Vec<(PathBuf, ProjectSpec)>, Failure> {
    let (source, root) = design::load(file).map_err(|d| Failure::diagnostics(&d))?;
    let names: Vec<&str> = crate::engines::ENGINES.iter().map(|e| e.name()).collect();
    let designs = design::parse(&source, &root, &names).map_err(|d| Failure::diagnostics(&d))?;
    let mut projects = Vec::new();
    let mut failed = Failure::reported(0);
    for d in designs {
        let engine = crate::engines::ENGINES
            .iter()
            .find(|e| e.name() == d.engine)
            .expect("design::parse checked the engine");
        match engine.project(d.fields) {
            Ok(spec) => {
                let dir = match &d.name {
                    Some(name) => out.join(name),
                    None => out.to_path_buf(),
                };
                projects.push((dir, spec));
            }
            Err(f) => {
                failed.text.push_str(&f.text);
                failed.exit_code = failed.exit_code.max(f.exit_code);
            }
        }
    }
    if failed.exit_code != 0 {
        // A usage-style error of an engine is bad input in a design file.
        failed.exit_code = 1;
        return Err(failed);
    }
    Ok(projects)
}
