//! The programmable design's RTL (`emit::generic`, `rtl-templates/xpath/
//! generic.v`): lint-clean under `verilator --lint-only -Wall` at several
//! sizes.

mod common;

use qrtl_xpath::emit::generic::{generic_files, rtl_refusal};
use qrtl_xpath::ir::generic::Shape;
use qrtl_xpath::ir::xpath::Namespaces;
use qrtl_xpath::xml::XmlConfig;
use std::path::PathBuf;
use std::process::Command;

/// A raw-names shape without condition units (what the RTL builds today).
fn shape(columns: usize, cluster_size: usize, window: usize) -> Shape {
    Shape {
        cluster_size,
        window,
        comparators: 0,
        counters: 0,
        namespaces: Namespaces::Raw,
        ..Shape::with_columns(columns)
    }
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qrtl-generic-rtl-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_generic_design_is_lint_clean() {
    for (columns, cluster_size, window) in [(16, 16, 4), (96, 32, 8), (64, 64, 16)] {
        let s = shape(columns, cluster_size, window);
        assert_eq!(rtl_refusal(&s), None);
        let files = generic_files(
            &s,
            &XmlConfig::with_max_depth(s.max_depth),
            "qrtl_xpath_top",
        );
        let dir = scratch(&format!("{columns}-{cluster_size}-{window}"));
        let mut paths = Vec::new();
        for (name, text) in &files {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            paths.push(p);
        }
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "qrtl_xpath_top"])
            .args(&paths)
            .output()
            .expect("verilator runs");
        assert!(
            out.status.success(),
            "{columns} columns, clusters of {cluster_size}, window {window}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
