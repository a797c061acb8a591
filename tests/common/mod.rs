//! Helpers shared by the integration tests.
#![allow(dead_code)]

use qrtl_compiler::frontend::xpath::parse_query_file;
use qrtl_compiler::ir::xpath::{Design, Mode};
use qrtl_compiler::lower::xpath::lower_queries;
use qrtl_compiler::passes::{run_pipeline, PassConfig};
use qrtl_compiler::refmodel::xpath::{Engine, EngineConfig};
use std::path::PathBuf;

/// YFilter's NITF suites (`../shared/data/yfilter-nitf`, see `workload::nitf_dir`).
pub fn nitf_dir() -> PathBuf {
    qrtl_compiler::workload::nitf_dir()
}

/// Parse, lower and run the pass pipeline over a query file's text.
pub fn design_from_text(name: &str, text: &str, mode: Mode) -> Design {
    let (queries, diags) = parse_query_file(name, text);
    assert!(
        diags.is_empty(),
        "{name}: {}",
        diags.iter().map(|d| d.render()).collect::<String>()
    );
    let design = lower_queries(name, &queries).unwrap_or_else(|d| {
        panic!(
            "{name}: {}",
            d.iter().map(|d| d.render()).collect::<String>()
        )
    });
    run_pipeline(design, &PassConfig { mode })
}

pub fn engine_for(text: &str, mode: Mode) -> Engine {
    Engine::new(
        &design_from_text("<test>", text, mode),
        EngineConfig::default(),
    )
}
