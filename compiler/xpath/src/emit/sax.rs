//! The SAX parser module `qrtl_sax` (`rtl-templates/xpath/sax.v`).
//!
//! The module is the hardware twin of [`crate::xml::Tokenizer`]: the same
//! state machine, events, statuses and first error on every byte stream
//! (SPEC §3.2), one byte per clock and never a stall. Its port list and
//! timing are the `qrtl_sax` contract of `rtl-templates/README.md`; the only
//! thing the compiler chooses is the limits below, which become the
//! defaults of the module's `MAX_DEPTH`, `NAME_STACK_BYTES`,
//! `MAX_ATTRIBUTES` and `ATTR_NAME_BYTES` parameters.
//!
//! `tests/sax_rtl.rs` checks the rendered module against the tokenizer in
//! Verilator, document by document, and lints it with
//! `verilator --lint-only -Wall`.

use askama::Template;

/// Clock cycles from a byte on `qrtl_sax`'s input to its events on the
/// registered outputs: the input register with the byte's pre-decoded
/// classes, the state machine's event registers, the output registers
/// with the decoded end-of-document status (see the pipeline notes at the
/// top of `rtl-templates/xpath/sax.v`).
pub const SAX_LATENCY: u32 = 3;

/// The parser's compiled limits (the same as the tokenizer's
/// [`XmlConfig`](crate::xml::XmlConfig)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaxParams {
    /// Deepest element nesting accepted (the document element is depth 1);
    /// opening an element deeper is `TooDeep`. At least 1.
    pub max_depth: u32,
    /// Bytes of open element names (plus the attribute name being read)
    /// kept to check close tags; more is `NameStackOverflow`. At least 1.
    pub name_stack_bytes: u32,
    /// The duplicate-attribute check's slots: attributes per element
    /// (more is `TooManyAttributes`) and bytes per name (more is
    /// `AttrNameTooLong`). At least 1 each.
    pub max_attributes: u32,
    pub attr_name_bytes: u32,
    /// Namespace-aware names: a colon in a PI target is `BadQName`.
    pub namespaces: bool,
}

impl From<crate::xml::XmlConfig> for SaxParams {
    fn from(c: crate::xml::XmlConfig) -> SaxParams {
        SaxParams {
            max_depth: c.max_depth,
            name_stack_bytes: c.name_stack_bytes,
            max_attributes: c.max_attributes,
            attr_name_bytes: c.attr_name_bytes,
            namespaces: c.namespaces,
        }
    }
}

impl Default for SaxParams {
    fn default() -> SaxParams {
        crate::xml::XmlConfig::default().into()
    }
}

#[derive(Template)]
#[template(path = "sax.v", escape = "none")]
struct SaxTemplate {
    max_depth: u32,
    name_stack_bytes: u32,
    max_attributes: u32,
    attr_name_bytes: u32,
    namespaces: u32,
}

/// The Verilog text of module `qrtl_sax` with `p`'s limits as its parameter
/// defaults.
///
/// # Panics
///
/// If a limit is 0: the hardware needs at least one name-stack byte and one
/// level (a tokenizer configured with a 0 limit flags every document, which
/// is not worth a special module).
pub fn sax_module(p: &SaxParams) -> String {
    assert!(
        p.max_depth >= 1
            && p.name_stack_bytes >= 1
            && p.max_attributes >= 1
            && p.attr_name_bytes >= 1,
        "qrtl_sax needs every limit >= 1, got {p:?}"
    );
    let mut v = SaxTemplate {
        max_depth: p.max_depth,
        name_stack_bytes: p.name_stack_bytes,
        max_attributes: p.max_attributes,
        attr_name_bytes: p.attr_name_bytes,
        namespaces: u32::from(p.namespaces),
    }
    .render()
    .expect("the sax.v template renders");
    // askama drops the template's final newline; a source file ends with one.
    if !v.ends_with('\n') {
        v.push('\n');
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_limits_as_parameter_defaults() {
        let v = sax_module(&SaxParams {
            max_depth: 6,
            name_stack_bytes: 40,
            max_attributes: 3,
            attr_name_bytes: 5,
            namespaces: false,
        });
        assert!(v.contains("module qrtl_sax"));
        assert!(v.contains("parameter MAX_DEPTH = 6,"));
        assert!(v.contains("parameter NAME_STACK_BYTES = 40,"));
        assert!(v.contains("parameter MAX_ATTRIBUTES = 3,"));
        assert!(v.contains("parameter ATTR_NAME_BYTES = 5,"));
        assert!(v.contains("parameter NAMESPACES = 0\n"));
        assert!(!v.contains("{{"));
    }

    #[test]
    fn from_xml_config() {
        let p = SaxParams::from(crate::xml::XmlConfig::with_max_depth(8));
        assert_eq!(
            p,
            SaxParams {
                max_depth: 8,
                name_stack_bytes: 512,
                max_attributes: 16,
                attr_name_bytes: 32,
                namespaces: false,
            }
        );
    }
}
