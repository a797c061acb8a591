//! Namespaces in XML 1.0 over the tokenizer's events: the layer between
//! the tokenizer and a sink that reports every element and attribute by
//! its expanded name, in Clark notation (`{URI}local`; a name in no
//! namespace is its bare local name), as a design built with
//! `Namespaces::Xpath` names its tags and attributes.
//!
//! A start tag's `xmlns` and `xmlns:p` attributes may follow the names
//! they bind (`<p:a q:x="1" xmlns:p="urn:p" xmlns:q="urn:q">`), so the
//! layer holds the start tag (its name, its attributes, and their values
//! when the inner sink may want them) until its `>`, resolves it there and
//! replays it to the inner sink, then `open`. Declarations are not
//! attributes in the XPath data model and are not replayed. Bindings are
//! scoped: the element's declarations are dropped at its close.
//!
//! Faults, reported through [`Sink::fault`] so that the tokenizer flags
//! the document at the byte that revealed them:
//! - [`XmlError::BadQName`] at the byte after a name (element or
//!   attribute) with a colon first, last, or twice;
//! - [`XmlError::BadNamespaceDecl`] at the closing quote of a declaration
//!   that Namespaces in XML forbids: `xmlns:p=""`, `xml` bound to another
//!   URI or another prefix bound to the XML namespace, `xmlns` declared,
//!   anything bound to the `xmlns` namespace;
//! - [`XmlError::UnboundPrefix`] and [`XmlError::DuplicateAttribute`]
//!   (two attributes with one expanded name) at the tag's `>`.
//!
//! Under a design's hardware limits ([`NsLimits`], `XmlConfig::ns_limits`)
//! the layer also reports what the RTL namespace unit cannot hold, as the
//! `attr_limit` status (never a silent `ok`):
//! - [`XmlError::NsCapacity`] at the byte after a name whose prefix would
//!   be one more distinct prefix than `prefixes` (the prefixes bound in
//!   scope and those the start tag used so far; `xml`, `xmlns` and the
//!   default namespace are not counted, nor a prefix too long to be
//!   declared), or at the closing quote of a declaration beyond
//!   `bindings` in scope;
//! - [`XmlError::NsLocalNameTwice`] at the byte after a prefixed
//!   attribute's name whose local name an earlier prefixed attribute of
//!   the tag has, under another prefix (the unit keeps no namespace names
//!   to tell whether both prefixes name one namespace); checked after the
//!   name's prefix has its table entry (`NsCapacity` first, as in the
//!   unit).

use super::{Sink, XmlError};
use std::ops::Range;

/// The namespace bound to `xml` everywhere (Namespaces in XML 1.0 §3).
pub const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
/// The namespace of `xmlns` declarations, bound to no prefix.
pub const XMLNS_NAMESPACE: &str = "http://www.w3.org/2000/xmlns/";

/// The capacities of the hardware's namespace unit (`qrtl_ns`): the
/// prefix table's entries and the binding records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NsLimits {
    /// Distinct prefixes in scope or used by the start tag being read.
    pub prefixes: u32,
    /// Declarations in scope (of the open elements and the start tag).
    pub bindings: u32,
}

/// Default [`NsLimits::prefixes`].
pub const DEFAULT_NS_PREFIXES: u32 = 8;
/// Default [`NsLimits::bindings`].
pub const DEFAULT_NS_BINDINGS: u32 = 16;

impl Default for NsLimits {
    fn default() -> Self {
        NsLimits {
            prefixes: DEFAULT_NS_PREFIXES,
            bindings: DEFAULT_NS_BINDINGS,
        }
    }
}

/// The longest prefix a declaration can bind when attribute names hold
/// `attr_name_bytes` bytes (`xmlns:` takes six): a longer prefix is never
/// bound, so the hardware's prefix table does not hold it.
pub fn declarable_prefix_bytes(attr_name_bytes: u32) -> u32 {
    attr_name_bytes.saturating_sub(6)
}

/// What the inner sink may ask for of the attributes that are not
/// declarations (the layer keeps no more: a plain attribute nobody reads
/// costs only its name check).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AttrWants {
    /// Their names (some condition tests an attribute).
    pub names: bool,
    /// Their values (some condition reads an attribute's value).
    pub values: bool,
}

/// One attribute of the start tag being read.
#[derive(Clone, Debug)]
struct Attr {
    /// The QName in `Layer::tag`.
    name: Range<usize>,
    /// Where its colon is, if it has a prefix.
    colon: Option<usize>,
    /// The value in `Layer::tag`, when kept.
    value: Range<usize>,
    /// `xmlns` or `xmlns:p`: the prefix bound (empty for the default).
    decl: Option<Range<usize>>,
}

/// One in-scope binding: prefix and URI in `Layer::arena` (an empty
/// prefix is the default namespace; an empty URI undeclares it).
#[derive(Clone, Debug)]
struct Binding {
    prefix: Range<usize>,
    uri: Range<usize>,
}

/// The layer's state, kept across documents (its buffers are reused);
/// [`Layer::reset`] before each document.
#[derive(Clone, Debug, Default)]
pub struct Layer {
    /// What of the attributes that are not declarations the inner sink
    /// may ask for.
    wants: AttrWants,
    /// The attribute being read is a declaration.
    in_decl: bool,
    /// The inner sink may ask for this element's attributes
    /// ([`Sink::may_want_attrs`] of its local name).
    tag_wants: bool,
    /// The start tag: its QName first, then attribute names and values.
    tag: Vec<u8>,
    name_len: usize,
    /// The element name's colon.
    name_colon: Option<usize>,
    depth: u32,
    attrs: Vec<Attr>,
    /// Attributes with a prefix (other than declarations) in `attrs`.
    prefixed: usize,
    /// The attribute being read keeps its value.
    keep: bool,
    bindings: Vec<Binding>,
    arena: Vec<u8>,
    /// Per open element: `bindings` and `arena` lengths before its own.
    scopes: Vec<(usize, usize)>,
    /// The expanded name being replayed.
    out: Vec<u8>,
    fault: Option<XmlError>,
    /// The hardware's capacities, if documents are checked within them.
    limits: Option<NsLimits>,
    /// [`declarable_prefix_bytes`] of the tokenizer's attribute names.
    prefix_bytes: usize,
    /// Under `limits`: the prefixes the start tag used that the prefix
    /// table did not hold yet (in `tag`).
    tag_prefixes: Vec<Range<usize>>,
}

impl Layer {
    /// A layer that keeps what of the attributes `wants` says the inner
    /// sink may ask for.
    pub fn new(wants: AttrWants) -> Layer {
        Layer {
            wants,
            ..Layer::default()
        }
    }

    /// A layer that also checks documents within the hardware's
    /// capacities `limits`, its attribute names holding `attr_name_bytes`.
    pub fn with_limits(wants: AttrWants, limits: NsLimits, attr_name_bytes: u32) -> Layer {
        Layer {
            wants,
            limits: Some(limits),
            prefix_bytes: declarable_prefix_bytes(attr_name_bytes) as usize,
            ..Layer::default()
        }
    }

    pub fn reset(&mut self) {
        self.tag.clear();
        self.attrs.clear();
        self.bindings.clear();
        self.arena.clear();
        self.scopes.clear();
        self.tag_prefixes.clear();
        self.fault = None;
    }

    /// The sink that feeds `inner` through this layer.
    pub fn sink<'a, S: Sink>(&'a mut self, inner: &'a mut S) -> NsSink<'a, S> {
        NsSink { layer: self, inner }
    }

    /// Bind the declaration `a` (its value read), or say why not.
    fn declare(&mut self, a: &Attr) -> Result<(), XmlError> {
        let prefix = &self.tag[a.decl.clone().expect("a declaration")];
        let uri = &self.tag[a.value.clone()];
        if reserved_fault(prefix, uri).is_some() {
            return Err(XmlError::BadNamespaceDecl);
        }
        if let Some(l) = self.limits {
            if self.bindings.len() >= l.bindings as usize {
                return Err(XmlError::NsCapacity);
            }
        }
        let p0 = self.arena.len();
        self.arena.extend_from_slice(prefix);
        let u0 = self.arena.len();
        self.arena.extend_from_slice(uri);
        self.bindings.push(Binding {
            prefix: p0..u0,
            uri: u0..self.arena.len(),
        });
        Ok(())
    }

    /// The expanded name of the QName at `name` in `tag` whose colon is at
    /// `colon` (`element`: an unprefixed name takes the default namespace):
    /// `false` when it is the QName itself (no namespace), `true` when it
    /// is in `out`.
    fn expand(
        &mut self,
        name: Range<usize>,
        colon: Option<usize>,
        element: bool,
    ) -> Result<bool, XmlError> {
        if colon.is_none() && (!element || self.bindings.is_empty()) {
            return Ok(false);
        }
        let Layer {
            tag,
            bindings,
            arena,
            out,
            ..
        } = self;
        let qname = &tag[name];
        let (prefix, local) = match colon {
            Some(k) => (&qname[..k], &qname[k + 1..]),
            None => (&qname[..0], qname),
        };
        let uri = match lookup(bindings, arena, prefix) {
            _ if prefix == b"xmlns" => return Err(XmlError::UnboundPrefix),
            Some(u) => u,
            None if prefix.is_empty() => &[][..],
            None => return Err(XmlError::UnboundPrefix),
        };
        if uri.is_empty() {
            return Ok(false);
        }
        out.clear();
        out.push(b'{');
        out.extend_from_slice(uri);
        out.push(b'}');
        out.extend_from_slice(local);
        Ok(true)
    }

    /// The expanded name [`Layer::expand`] gave for `name`.
    fn expanded(&self, name: Range<usize>, in_out: bool) -> &[u8] {
        if in_out {
            &self.out
        } else {
            &self.tag[name]
        }
    }

    /// Under limits: the prefix at `prefix` in `tag` enters the prefix
    /// table, if the table does not hold it yet (`NsCapacity` when full).
    fn table(&mut self, prefix: Range<usize>) -> Result<(), XmlError> {
        let Some(l) = self.limits else {
            return Ok(());
        };
        let p = &self.tag[prefix.clone()];
        if p == b"xml" || p == b"xmlns" || p.is_empty() || p.len() > self.prefix_bytes {
            return Ok(());
        }
        let mut held: Vec<&[u8]> = Vec::new();
        let bound = self.bindings.iter().map(|b| &self.arena[b.prefix.clone()]);
        let used = self.tag_prefixes.iter().map(|r| &self.tag[r.clone()]);
        for q in bound.chain(used) {
            if !q.is_empty() && q != b"xml" && !held.contains(&q) {
                held.push(q);
            }
        }
        if held.contains(&p) {
            return Ok(());
        }
        if held.len() >= l.prefixes as usize {
            return Err(XmlError::NsCapacity);
        }
        self.tag_prefixes.push(prefix);
        Ok(())
    }

    /// Under limits: an earlier prefixed attribute of the tag has the local
    /// name of the one at `name` (colon at `colon`).
    fn local_twice(&self, name: Range<usize>, colon: usize) -> bool {
        if self.limits.is_none() {
            return false;
        }
        let local = &self.tag[name.start + colon + 1..name.end];
        self.attrs.iter().any(|a| match a.colon {
            Some(k) if a.decl.is_none() => &self.tag[a.name.start + k + 1..a.name.end] == local,
            _ => false,
        })
    }

    /// Two prefixed attributes with one expanded name.
    fn duplicate(&mut self) -> Result<bool, XmlError> {
        if self.prefixed < 2 {
            return Ok(false);
        }
        let mut names: Vec<Vec<u8>> = Vec::new();
        for i in 0..self.attrs.len() {
            let a = self.attrs[i].clone();
            if a.decl.is_some() || a.colon.is_none() {
                continue;
            }
            self.expand(a.name, a.colon, false)?;
            if names.contains(&self.out) {
                return Ok(true);
            }
            names.push(self.out.clone());
        }
        Ok(false)
    }
}

/// What Namespaces in XML 1.0 (§3, "Reserved Prefixes and Namespace
/// Names") forbids in binding `prefix` (empty: the default namespace) to
/// `uri`. Documents' declarations and queries' bindings alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReservedFault {
    /// `xmlns:p=""` (undeclaring a prefix is XML 1.1's).
    EmptyUri,
    /// `xml` bound to another namespace than its own.
    XmlElsewhere,
    /// `xmlns` declared.
    XmlnsPrefix,
    /// Another prefix (or the default) bound to the `xml` namespace.
    XmlNamespace,
    /// Anything bound to the `xmlns` namespace.
    XmlnsNamespace,
}

/// The first rule [`ReservedFault`] lists that binding `prefix` to `uri`
/// breaks, if any.
pub fn reserved_fault(prefix: &[u8], uri: &[u8]) -> Option<ReservedFault> {
    let xml = uri == XML_NAMESPACE.as_bytes();
    match prefix {
        b"xml" if xml => None,
        b"xml" => Some(ReservedFault::XmlElsewhere),
        b"xmlns" => Some(ReservedFault::XmlnsPrefix),
        _ if !prefix.is_empty() && uri.is_empty() => Some(ReservedFault::EmptyUri),
        _ if xml => Some(ReservedFault::XmlNamespace),
        _ if uri == XMLNS_NAMESPACE.as_bytes() => Some(ReservedFault::XmlnsNamespace),
        _ => None,
    }
}

/// The URI bound to `prefix` (empty: the default namespace), innermost
/// first; `Some(b"")` for an undeclared default.
fn lookup<'a>(bindings: &[Binding], arena: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    if prefix == b"xml" {
        return Some(XML_NAMESPACE.as_bytes());
    }
    let b = bindings
        .iter()
        .rev()
        .find(|b| &arena[b.prefix.clone()] == prefix)?;
    Some(&arena[b.uri.clone()])
}

/// A name's colon if it is a QName (no colon first or last, at most one):
/// `Ok(None)` without a prefix, `Err` for a bad QName.
#[inline]
fn qname_colon(name: &[u8]) -> Result<Option<usize>, XmlError> {
    let Some(k) = name.iter().position(|&b| b == b':') else {
        return Ok(None);
    };
    if k == 0 || k + 1 == name.len() || name[k + 1..].contains(&b':') {
        return Err(XmlError::BadQName);
    }
    Ok(Some(k))
}

/// The attribute name's declaration prefix: `xmlns` → empty, `xmlns:p` → `p`.
fn declared_prefix(name: &[u8]) -> Option<&[u8]> {
    match name {
        b"xmlns" => Some(&name[..0]),
        _ => name.strip_prefix(b"xmlns:"),
    }
}

/// A [`Sink`] feeding `inner` with expanded names ([`Layer`]).
pub struct NsSink<'a, S> {
    layer: &'a mut Layer,
    inner: &'a mut S,
}

impl<S: Sink> NsSink<'_, S> {
    /// Resolve the start tag and replay it to the inner sink.
    fn replay(&mut self) -> Result<(), XmlError> {
        let l = &mut *self.layer;
        if l.duplicate()? {
            return Err(XmlError::DuplicateAttribute);
        }
        // Every attribute prefix must be bound, asked for or not.
        if l.prefixed > 0 {
            for i in 0..l.attrs.len() {
                let a = &l.attrs[i];
                if a.decl.is_none() && a.colon.is_some() {
                    l.expand(a.name.clone(), a.colon, false)?;
                }
            }
        }
        let in_out = l.expand(0..l.name_len, l.name_colon, true)?;
        if !self
            .inner
            .start_name(l.expanded(0..l.name_len, in_out), l.depth)
        {
            return Ok(());
        }
        for i in 0..l.attrs.len() {
            let a = l.attrs[i].clone();
            if a.decl.is_some() {
                continue;
            }
            let in_out = l.expand(a.name.clone(), a.colon, false)?;
            if self.inner.attr_start(l.expanded(a.name, in_out)) {
                debug_assert!(
                    l.wants.values,
                    "the inner sink wants values the layer did not keep"
                );
                self.inner.attr_value(&l.tag[a.value]);
            }
            self.inner.attr_end();
        }
        Ok(())
    }
}

impl<S: Sink> Sink for NsSink<'_, S> {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        let l = &mut *self.layer;
        l.tag.clear();
        l.tag.extend_from_slice(name);
        l.name_len = name.len();
        l.depth = depth;
        l.attrs.clear();
        l.prefixed = 0;
        l.scopes.push((l.bindings.len(), l.arena.len()));
        l.tag_prefixes.clear();
        l.name_colon = None;
        match qname_colon(name) {
            Ok(c) => l.name_colon = c,
            Err(e) => l.fault = Some(e),
        }
        if let Some(k) = l.name_colon {
            if let Err(e) = l.table(0..k) {
                l.fault = Some(e);
            }
        }
        let local = &name[l.name_colon.map_or(0, |k| k + 1)..];
        l.tag_wants = l.wants.names && self.inner.may_want_attrs(local);
        true
    }

    fn attr_start(&mut self, name: &[u8]) -> bool {
        let l = &mut *self.layer;
        let colon = match qname_colon(name) {
            Ok(c) => c,
            Err(e) => {
                l.fault = Some(e);
                return false;
            }
        };
        let declared = if name[0] == b'x' {
            declared_prefix(name)
        } else {
            None
        };
        l.in_decl = declared.is_some();
        if declared.is_none() && colon.is_none() && !l.tag_wants {
            return false;
        }
        let n0 = l.tag.len();
        l.tag.extend_from_slice(name);
        let n1 = l.tag.len();
        let decl = declared.map(|p| n1 - p.len()..n1);
        let checked = match (&decl, colon) {
            (Some(p), _) => l.table(p.clone()),
            // The prefix's table entry first, then the local name: the
            // hardware decides reason 31 a clock after 30.
            (None, Some(k)) => l.table(n0..n0 + k).and_then(|()| {
                if l.local_twice(n0..n1, k) {
                    Err(XmlError::NsLocalNameTwice)
                } else {
                    Ok(())
                }
            }),
            (None, None) => Ok(()),
        };
        if let Err(e) = checked {
            l.fault = Some(e);
            return false;
        }
        l.prefixed += usize::from(decl.is_none() && colon.is_some());
        l.keep = decl.is_some() || (l.wants.values && l.tag_wants);
        l.attrs.push(Attr {
            name: n0..n1,
            colon,
            value: n1..n1,
            decl,
        });
        l.keep
    }

    fn attr_value(&mut self, chunk: &[u8]) {
        let l = &mut *self.layer;
        l.tag.extend_from_slice(chunk);
        let end = l.tag.len();
        l.attrs.last_mut().expect("attr_start came first").value.end = end;
    }

    fn attr_end(&mut self) {
        let l = &mut *self.layer;
        if !l.in_decl {
            return;
        }
        let a = l
            .attrs
            .last()
            .cloned()
            .expect("attr_start kept the declaration");
        if let Err(e) = l.declare(&a) {
            l.fault = Some(e);
        }
    }

    fn open(&mut self) {
        match self.replay() {
            Ok(()) => self.inner.open(),
            Err(e) => self.layer.fault = Some(e),
        }
    }

    fn close(&mut self) {
        let l = &mut *self.layer;
        if let Some((b, a)) = l.scopes.pop() {
            l.bindings.truncate(b);
            l.arena.truncate(a);
        }
        self.inner.close();
    }

    fn wants_text(&mut self) -> bool {
        self.inner.wants_text()
    }

    fn text(&mut self, chunk: &[u8]) {
        self.inner.text(chunk);
    }

    fn text_end(&mut self) {
        self.inner.text_end();
    }

    fn fault(&mut self) -> Option<XmlError> {
        self.layer.fault.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::tokenizer::tokenize;
    use crate::xml::trace::TraceSink;
    use crate::xml::XmlConfig;

    /// The first fault of `doc` under `limits` (and where), or `None`.
    fn fault(doc: &str, limits: Option<NsLimits>) -> Option<(XmlError, u64)> {
        let config = XmlConfig {
            namespaces: true,
            ns_limits: limits,
            ..XmlConfig::default()
        };
        let wants = AttrWants {
            names: true,
            values: true,
        };
        let mut layer = match limits {
            Some(l) => Layer::with_limits(wants, l, config.attr_name_bytes),
            None => Layer::new(wants),
        };
        layer.reset();
        let mut trace = TraceSink::new();
        let r = tokenize(config, doc.as_bytes(), &mut layer.sink(&mut trace));
        r.err().map(|e| (e.error, e.offset))
    }

    fn small(prefixes: u32, bindings: u32) -> Option<NsLimits> {
        Some(NsLimits { prefixes, bindings })
    }

    #[test]
    fn the_prefix_table_counts_distinct_prefixes_in_scope_and_in_the_tag() {
        let doc = r#"<r xmlns:a="u" xmlns:b="v"><a:x b:y="1"/><c:z xmlns:c="w"/></r>"#;
        assert_eq!(fault(doc, None), None);
        assert_eq!(fault(doc, small(3, 16)), None);
        // The third prefix, `c`, at the byte after its element name.
        let at = doc.find("c:z").unwrap() as u64 + 3;
        assert_eq!(fault(doc, small(2, 16)), Some((XmlError::NsCapacity, at)));
        // `xml`, `xmlns` and the default namespace take no entry; a prefix
        // leaves the table with its last binding.
        let doc = r#"<r><a xmlns:p="u" xmlns="d" xml:lang="en"/><b xmlns:q="v"/></r>"#;
        assert_eq!(fault(doc, small(1, 16)), None);
    }

    #[test]
    fn declarations_beyond_the_bindings_are_a_limit_at_their_quote() {
        let doc = r#"<r xmlns:a="u"><s xmlns:a="v" xmlns="w"/></r>"#;
        assert_eq!(fault(doc, small(8, 3)), None);
        let at = doc.find(r#"w"/>"#).unwrap() as u64 + 1;
        assert_eq!(fault(doc, small(8, 2)), Some((XmlError::NsCapacity, at)));
    }

    #[test]
    fn one_local_name_under_two_prefixes_is_a_limit_only_under_limits() {
        let doc = r#"<r xmlns:a="u" xmlns:b="v"><e a:k="1" k="2" b:k="3"/></r>"#;
        assert_eq!(fault(doc, None), None);
        let at = doc.find("b:k").unwrap() as u64 + 3;
        assert_eq!(
            fault(doc, small(8, 16)),
            Some((XmlError::NsLocalNameTwice, at))
        );
        // A new prefix the table cannot hold comes first (as in the unit).
        let doc = r#"<r xmlns:a="u"><e a:k="1" c:k="3"/></r>"#;
        let at = doc.find("c:k").unwrap() as u64 + 3;
        assert_eq!(fault(doc, small(1, 16)), Some((XmlError::NsCapacity, at)));
        assert_eq!(
            fault(doc, small(2, 16)),
            Some((XmlError::NsLocalNameTwice, at))
        );
        // Two prefixes naming one namespace: a duplicate, found exactly
        // without limits (at the `>`).
        let doc = r#"<r xmlns:a="u" xmlns:b="u"><e a:k="1" b:k="3"/></r>"#;
        let at = doc.find("/>").unwrap() as u64 + 1;
        assert_eq!(fault(doc, None), Some((XmlError::DuplicateAttribute, at)));
    }
}
