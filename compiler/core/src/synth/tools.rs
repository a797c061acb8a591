//! Finding the open synthesis tools.
//!
//! Order, for each tool: an explicit path in the environment
//! (`QRTL_YOSYS`, `QRTL_NEXTPNR_ECP5`, `QRTL_NEXTPNR_ICE40`); the pinned
//! YoWASP build in the local venv that `make deps-synth` creates
//! (`$QRTL_SYNTH_VENV`, else `.venv-synth/` in the current directory or
//! next to the `qrtl` binary's checkout); the YoWASP build on `PATH`; the
//! native build on `PATH` (Debian's `yosys`, `nextpnr-ice40`).

use std::path::{Path, PathBuf};

/// The venv directory `make deps-synth` creates.
pub const VENV_DIR: &str = ".venv-synth";

/// One of the tools the flow runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    Yosys,
    NextpnrEcp5,
    NextpnrIce40,
}

impl ToolKind {
    /// The native program name.
    pub fn native(self) -> &'static str {
        match self {
            ToolKind::Yosys => "yosys",
            ToolKind::NextpnrEcp5 => "nextpnr-ecp5",
            ToolKind::NextpnrIce40 => "nextpnr-ice40",
        }
    }

    fn env_var(self) -> &'static str {
        match self {
            ToolKind::Yosys => "QRTL_YOSYS",
            ToolKind::NextpnrEcp5 => "QRTL_NEXTPNR_ECP5",
            ToolKind::NextpnrIce40 => "QRTL_NEXTPNR_ICE40",
        }
    }

    fn yowasp(self) -> String {
        format!("yowasp-{}", self.native())
    }
}

/// A tool found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub kind: ToolKind,
    pub program: PathBuf,
    /// YoWASP (WebAssembly) builds see only the directory they run in and
    /// below: the flow gives them relative paths only.
    pub yowasp: bool,
}

/// Where a tool was looked for, for the error when it is missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotFound {
    pub kind: ToolKind,
    pub tried: Vec<String>,
}

/// The venv directories to look in, most specific first.
fn venv_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(v) = std::env::var_os("QRTL_SYNTH_VENV") {
        dirs.push(PathBuf::from(v));
    }
    if let Ok(cwd) = std::env::current_dir() {
        dirs.push(cwd.join(VENV_DIR));
    }
    // target/release/qrtl → the checkout it was built in.
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(4) {
            dirs.push(dir.join(VENV_DIR));
        }
    }
    dirs.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(VENV_DIR),
    );
    dirs.dedup();
    dirs
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Find `kind`, or say everywhere it was looked for.
pub fn find(kind: ToolKind) -> Result<Tool, NotFound> {
    let mut tried = Vec::new();
    if let Some(p) = std::env::var_os(kind.env_var()) {
        let p = PathBuf::from(p);
        if is_executable(&p) {
            let yowasp = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("yowasp-"));
            return Ok(Tool {
                kind,
                program: p,
                yowasp,
            });
        }
        tried.push(format!(
            "${}={} (not an executable)",
            kind.env_var(),
            p.display()
        ));
        // An explicit choice that does not work is not silently replaced.
        return Err(NotFound { kind, tried });
    }
    let yowasp = kind.yowasp();
    for dir in venv_dirs() {
        let p = dir.join("bin").join(&yowasp);
        if is_executable(&p) {
            return Ok(Tool {
                kind,
                program: p,
                yowasp: true,
            });
        }
        tried.push(p.display().to_string());
    }
    if let Some(p) = on_path(&yowasp) {
        return Ok(Tool {
            kind,
            program: p,
            yowasp: true,
        });
    }
    tried.push(format!("{yowasp} on PATH"));
    if let Some(p) = on_path(kind.native()) {
        return Ok(Tool {
            kind,
            program: p,
            yowasp: false,
        });
    }
    tried.push(format!("{} on PATH", kind.native()));
    Err(NotFound { kind, tried })
}
