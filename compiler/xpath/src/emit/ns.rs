//! The namespace unit `qrtl_ns` (`rtl-templates/xpath/ns.v`) of designs
//! whose names are namespace-aware: the hardware twin of the namespace
//! layer ([`crate::xml::ns`]) under the design's capacities
//! ([`NsLimits`]), between the SAX parser and the clusters.
//!
//! The design's namespace URIs (of its tags, `{URI}local` in Clark
//! notation, and of its `p:*` tests) become classes 1..=D of the unit's
//! `o_ns_cls`; 0 is no namespace, D + 1 any other. Each URI, and the two
//! reserved namespace names, gets a string comparator (`emit::values`)
//! run over a declaration's value.

use super::values::vcmp_module;
use crate::ir::stacks::StackDesign;
pub use crate::ir::xpath::{clark_local, clark_uri};
use crate::ir::xpath::{CmpOp, Compare, CondKind, Value};
use crate::xml::ns::{declarable_prefix_bytes, NsLimits, XMLNS_NAMESPACE, XML_NAMESPACE};
use askama::Template;

/// Clock cycles the unit adds to the event stream: its input register, the
/// register of its faults and classes, and its output register.
pub const NS_LATENCY: u32 = 3;

/// The smallest `attr_name_bytes` a namespace-aware design takes: its
/// prefix table holds prefixes of `attr_name_bytes - 6` bytes, at least
/// the five of `xmlns`' test.
pub const MIN_ATTR_NAME_BYTES: u32 = 10;

/// The namespace URIs of design `d`, in class order (class k + 1 is the
/// k-th): those of its tags, its attributes and its `p:*` tests, sorted.
pub fn design_uris(d: &StackDesign) -> Vec<Vec<u8>> {
    let mut uris: Vec<Vec<u8>> = (0..d.tags.len())
        .filter_map(|i| clark_uri(d.tags.name(crate::ir::xpath::TagId(i as u32))))
        .chain(attr_uris(d))
        .map(<[u8]>::to_vec)
        .chain(d.conds.iter().filter_map(|c| match c {
            CondKind::InNamespace(u) => Some(u.to_vec()),
            _ => None,
        }))
        .collect();
    uris.sort();
    uris.dedup();
    uris
}

/// The namespace URIs of design `d`'s attributes (with repeats).
fn attr_uris(d: &StackDesign) -> impl Iterator<Item = &[u8]> {
    (0..d.attrs.len()).filter_map(|i| clark_uri(d.attrs.name(crate::ir::xpath::AttrId(i as u32))))
}

/// Whether design `d` tests attributes in a namespace: the namespace unit
/// then tells the clusters each attribute's slot and, at `>`, every
/// slot's namespace.
pub fn has_attr_namespaces(d: &StackDesign) -> bool {
    attr_uris(d).next().is_some()
}

/// Class of `uri` among `uris` (1-based), as `o_ns_cls` reports it.
pub fn uri_class(uris: &[Vec<u8>], uri: &[u8]) -> u32 {
    match uris.iter().position(|u| u == uri) {
        Some(i) => i as u32 + 1,
        None => uris.len() as u32 + 1,
    }
}

/// Width of `o_ns_cls` for `n` design URIs (classes 0..=n+1).
pub fn class_width(n: usize) -> u32 {
    let classes = n as u64 + 2;
    (64 - (classes - 1).leading_zeros()).max(1)
}

struct UriView {
    module: String,
    text: String,
}

#[derive(Template)]
#[template(path = "ns.v", escape = "none")]
struct NsTemplate {
    prefixes: u32,
    bindings: u32,
    max_attributes: u32,
    attr_name_bytes: u32,
    prefix_bytes: u32,
    max_depth: u32,
    uris: Vec<UriView>,
    cls_width: u32,
    cls_other: u32,
    cls_xml: u32,
    attr_ns: bool,
}

/// The unit's parameters.
#[derive(Clone, Copy, Debug)]
pub struct NsParams {
    pub limits: NsLimits,
    pub max_attributes: u32,
    pub attr_name_bytes: u32,
    pub max_depth: u32,
}

fn uri_comparator(module: &str, uri: &[u8]) -> String {
    let cmp = Compare {
        op: CmpOp::Eq,
        value: Value::Str(uri.into()),
    };
    vcmp_module(module, &cmp, "a namespace URI (qrtl_ns)")
}

/// The unit's module and its comparators, as (file name, text) pairs.
///
/// # Panics
///
/// If `attr_name_bytes` is below [`MIN_ATTR_NAME_BYTES`] or a capacity is
/// 0 (the CLI refuses both before).
pub fn ns_files(d: &StackDesign, p: &NsParams) -> Vec<(String, String)> {
    assert!(
        p.attr_name_bytes >= MIN_ATTR_NAME_BYTES
            && p.limits.prefixes >= 1
            && p.limits.bindings >= 1
            && p.max_attributes >= 1,
        "qrtl_ns needs attr_name_bytes >= {MIN_ATTR_NAME_BYTES} and capacities >= 1: {p:?}"
    );
    let uris = design_uris(d);
    let mut files = vec![
        (
            "qrtl_ns_uri_xml.v".to_string(),
            uri_comparator("qrtl_ns_uri_xml", XML_NAMESPACE.as_bytes()),
        ),
        (
            "qrtl_ns_uri_xmlns.v".to_string(),
            uri_comparator("qrtl_ns_uri_xmlns", XMLNS_NAMESPACE.as_bytes()),
        ),
    ];
    let mut views = Vec::new();
    for (i, u) in uris.iter().enumerate() {
        let module = format!("qrtl_ns_uri_{}", i + 1);
        files.push((format!("{module}.v"), uri_comparator(&module, u)));
        views.push(UriView {
            module,
            text: comment_text(u),
        });
    }
    let mut text = NsTemplate {
        prefixes: p.limits.prefixes,
        bindings: p.limits.bindings,
        max_attributes: p.max_attributes,
        attr_name_bytes: p.attr_name_bytes,
        prefix_bytes: declarable_prefix_bytes(p.attr_name_bytes),
        max_depth: p.max_depth,
        cls_width: class_width(uris.len()),
        cls_other: uris.len() as u32 + 1,
        cls_xml: uri_class(&uris, XML_NAMESPACE.as_bytes()),
        attr_ns: has_attr_namespaces(d),
        uris: views,
    }
    .render()
    .expect("the ns.v template renders");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    files.push(("qrtl_ns.v".to_string(), text));
    files
}

/// A URI as comment text: printable ASCII kept, other bytes as `\xHH`.
fn comment_text(u: &[u8]) -> String {
    u.iter()
        .map(|&b| match b {
            b' '..=b'~' => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clark_names_split_into_uri_and_local() {
        assert_eq!(clark_uri(b"{urn:x}a"), Some(&b"urn:x"[..]));
        assert_eq!(clark_local(b"{urn:x}a"), b"a");
        assert_eq!(clark_uri(b"a"), None);
        assert_eq!(clark_local(b"a"), b"a");
    }

    #[test]
    fn classes_number_the_uris_from_one_and_others_last() {
        let uris = vec![b"urn:a".to_vec(), b"urn:b".to_vec()];
        assert_eq!(uri_class(&uris, b"urn:b"), 2);
        assert_eq!(uri_class(&uris, b"urn:c"), 3);
        assert_eq!(class_width(0), 1);
        assert_eq!(class_width(2), 2);
        assert_eq!(class_width(3), 3);
    }
}
