//! The hardware flow in one place: XPath IR (after the XPath passes) →
//! stack IR → stack passes → Verilog. The CLI, tests and benches call this;
//! each stage stays in its own module.

use crate::diag::Diagnostic;
use crate::emit::verilog::xpath::{emit_xpath, XpathRtl, XpathRtlConfig};
use crate::ir::stacks::StackDesign;
use crate::ir::xpath::Design;
use crate::lower::stacks::{lower_stacks, StackLowerConfig};
use crate::passes::registry::{run_stack_pipeline, PassReport, StackPassConfig, StackStats};
use crate::xml::XmlConfig;

/// Options of `qrtl xpath compile|sim`.
#[derive(Clone, Debug)]
pub struct XpathHwOptions {
    pub xml: XmlConfig,
    pub passes: StackPassConfig,
}

impl Default for XpathHwOptions {
    fn default() -> Self {
        XpathHwOptions {
            xml: XmlConfig::default(),
            passes: StackPassConfig::default(),
        }
    }
}

/// A compiled XPath design.
#[derive(Clone, Debug)]
pub struct XpathHw {
    pub stack: StackDesign,
    /// Size of the naive stack IR, before any stack pass.
    pub before: StackStats,
    pub reports: Vec<PassReport>,
    pub rtl: XpathRtl,
}

/// Build the stack IR and the RTL of a (split) XPath design. `file` names the
/// query file in diagnostics.
pub fn build_xpath_hw(
    file: &str,
    design: &Design,
    opts: &XpathHwOptions,
) -> Result<XpathHw, Vec<Diagnostic>> {
    let naive = lower_stacks(
        file,
        design,
        &StackLowerConfig {
            max_depth: opts.xml.max_depth,
        },
    )?;
    let before = StackStats::of(&naive);
    let (stack, reports) = run_stack_pipeline(naive, &opts.passes).map_err(|e| {
        vec![Diagnostic {
            code: "E0399",
            message: e,
            help: Some("this is a compiler bug; please report it with the query file".into()),
            file: file.to_string(),
            line: 0,
            source_line: String::new(),
            span: crate::diag::Span::point(0),
        }]
    })?;
    let rtl = emit_xpath(
        &stack,
        &XpathRtlConfig {
            name_stack_bytes: opts.xml.name_stack_bytes,
        },
    );
    Ok(XpathHw {
        stack,
        before,
        reports,
        rtl,
    })
}
