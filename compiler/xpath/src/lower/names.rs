//! Query prefixes → namespace URIs (SPEC §3.1): the bindings of `--ns
//! PREFIX=URI` (also design YAML and the Python package) and of the query
//! file's `declare namespace` lines, checked against Namespaces in XML 1.0's
//! reserved names; then each QName of a query becomes the expanded name the
//! design compares (`{URI}local`, see [`Namespaces`]).

use crate::ir::xpath::Namespaces;
use crate::syntax::NsDecl;
use qrtl_core::diag::Diagnostic;
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;

use crate::syntax::is_ncname;
use crate::xml::ns::{reserved_fault, ReservedFault};
pub use crate::xml::ns::{XMLNS_NAMESPACE, XML_NAMESPACE};

/// How a query file's names are read: the mode and the bindings given
/// outside the file (`--ns`, in order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NsOptions {
    pub mode: Namespaces,
    pub bindings: Vec<(String, String)>,
}

impl NsOptions {
    /// Names read under `mode` with the bindings `--ns` gave (each
    /// `PREFIX=URI`), or the first thing wrong with them: a bad binding,
    /// or any binding under raw names, where a prefix is only text.
    pub fn new<S: AsRef<str>>(
        mode: Namespaces,
        bindings: &[S],
    ) -> Result<NsOptions, NsOptionsError> {
        if mode == Namespaces::Raw && !bindings.is_empty() {
            return Err(NsOptionsError {
                binding: None,
                message: "prefixes bind only for namespace-aware names; under raw names a prefix is only text"
                    .into(),
            });
        }
        let mut opts = NsOptions {
            mode,
            bindings: Vec::new(),
        };
        for b in bindings {
            let b = b.as_ref();
            opts.bind(b).map_err(|message| NsOptionsError {
                binding: Some(b.to_string()),
                message,
            })?;
        }
        Ok(opts)
    }

    pub fn raw() -> NsOptions {
        NsOptions {
            mode: Namespaces::Raw,
            bindings: Vec::new(),
        }
    }

    /// Add `--ns PREFIX=URI` (the text after `--ns`), or say why not.
    pub fn bind(&mut self, arg: &str) -> Result<(), String> {
        let Some((prefix, uri)) = arg.split_once('=') else {
            return Err(format!("`{arg}` is not PREFIX=URI"));
        };
        check_binding(prefix, uri).map_err(BindingFault::message)?;
        if let Some((_, old)) = self.bindings.iter().find(|(p, _)| p == prefix) {
            if old != uri {
                return Err(format!(
                    "prefix `{prefix}` is bound twice: to `{old}` and to `{uri}`"
                ));
            }
            return Ok(());
        }
        self.bindings.push((prefix.to_string(), uri.to_string()));
        Ok(())
    }
}

/// What [`NsOptions::new`] refused: the binding at fault (none when there
/// should be no bindings at all) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NsOptionsError {
    pub binding: Option<String>,
    pub message: String,
}

impl std::fmt::Display for NsOptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.binding {
            Some(b) => write!(f, "{b}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Why a binding cannot stand: the prefix or the URI is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingFault {
    Prefix(String),
    Uri(String),
}

impl BindingFault {
    pub fn message(self) -> String {
        match self {
            BindingFault::Prefix(m) | BindingFault::Uri(m) => m,
        }
    }
}

/// Why `prefix` may not be bound to `uri`, if it may not (a query has
/// no default namespace, so the URI may not be empty either).
pub fn check_binding(prefix: &str, uri: &str) -> Result<(), BindingFault> {
    use BindingFault::{Prefix, Uri};
    if !is_ncname(prefix) {
        return Err(Prefix(format!(
            "`{prefix}` is not a prefix (a name without `:`)"
        )));
    }
    Err(match reserved_fault(prefix.as_bytes(), uri.as_bytes()) {
        None => return Ok(()),
        Some(ReservedFault::EmptyUri) => Uri(format!(
            "prefix `{prefix}` bound to the empty URI (a name in no namespace is written without a prefix)"
        )),
        Some(ReservedFault::XmlElsewhere) => Uri(format!(
            "prefix `xml` is bound to `{XML_NAMESPACE}` and to nothing else"
        )),
        Some(ReservedFault::XmlnsPrefix) => {
            Prefix("prefix `xmlns` cannot be bound (it marks namespace declarations)".into())
        }
        Some(ReservedFault::XmlNamespace) => Uri(format!(
            "only the prefix `xml` may be bound to `{XML_NAMESPACE}`"
        )),
        Some(ReservedFault::XmlnsNamespace) => {
            Uri(format!("no prefix may be bound to `{XMLNS_NAMESPACE}`"))
        }
    })
}

/// The in-scope bindings of a query file.
#[derive(Clone, Debug)]
pub struct NsContext {
    pub mode: Namespaces,
    map: HashMap<String, String>,
}

/// What a QName of a query resolves to.
pub enum Resolved<'a> {
    /// The expanded name the design compares (the QName itself, borrowed,
    /// where it needs no expansion).
    Name(Cow<'a, str>),
    /// The prefix is bound to nothing.
    Unbound(String),
}

impl NsContext {
    /// The bindings of `opts` and of the file's declarations; one
    /// diagnostic per declaration that cannot stand.
    pub fn new(
        file: &str,
        decls: &[NsDecl],
        opts: &NsOptions,
    ) -> Result<NsContext, Vec<Diagnostic>> {
        let mut map: HashMap<String, String> = HashMap::default();
        map.insert("xml".into(), XML_NAMESPACE.into());
        for (p, u) in &opts.bindings {
            map.insert(p.clone(), u.clone());
        }
        let mut errors = Vec::new();
        let mut declared: HashMap<&str, &NsDecl> = HashMap::default();
        for d in decls {
            let why = if opts.mode == Namespaces::Raw {
                Err(BindingFault::Prefix(
                    "namespace declarations need namespace-aware matching, not `--namespaces raw`"
                        .into(),
                ))
            } else {
                check_binding(&d.prefix, &d.uri).and_then(|()| clash(&map, &declared, opts, d))
            };
            match why {
                Ok(()) => {
                    map.insert(d.prefix.clone(), d.uri.clone());
                    declared.insert(&d.prefix, d);
                }
                Err(message) => errors.push(decl_error(file, d, message)),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(NsContext {
            mode: opts.mode,
            map,
        })
    }

    /// The expanded name of `qname` (an element's or an attribute's). Raw
    /// mode keeps the text. No prefix means no namespace for both: XPath
    /// 1.0 has no default element namespace.
    pub fn expand<'a>(&self, qname: &'a str) -> Resolved<'a> {
        if self.mode == Namespaces::Raw {
            return Resolved::Name(Cow::Borrowed(qname));
        }
        match qname.split_once(':') {
            None => Resolved::Name(Cow::Borrowed(qname)),
            Some((prefix, local)) => match self.map.get(prefix) {
                Some(uri) => Resolved::Name(Cow::Owned(format!("{{{uri}}}{local}"))),
                None => Resolved::Unbound(prefix.to_string()),
            },
        }
    }

    /// The URI bound to `prefix`.
    pub fn uri(&self, prefix: &str) -> Option<&str> {
        self.map.get(prefix).map(String::as_str)
    }

    /// The bindings but `xml`'s, sorted by prefix.
    pub fn bindings(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = (self.map.iter())
            .filter(|(p, _)| *p != "xml")
            .map(|(p, u)| (p.clone(), u.clone()))
            .collect();
        v.sort_unstable();
        v
    }

    /// The bound prefixes, sorted (for error messages).
    pub fn prefixes(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.map.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
}

/// A declaration that rebinds a prefix of `--ns` or of an earlier line.
fn clash(
    map: &HashMap<String, String>,
    declared: &HashMap<&str, &NsDecl>,
    opts: &NsOptions,
    d: &NsDecl,
) -> Result<(), BindingFault> {
    let Some(old) = map.get(&d.prefix).filter(|u| **u != d.uri) else {
        return Ok(());
    };
    let fault = |m: String| Err(BindingFault::Uri(m));
    if let Some(first) = declared.get(d.prefix.as_str()) {
        return fault(format!(
            "prefix `{}` is already declared on line {} as `{old}`",
            d.prefix, first.line
        ));
    }
    if opts.bindings.iter().any(|(p, _)| *p == d.prefix) {
        return fault(format!(
            "prefix `{}` is bound to `{old}` by `--ns`",
            d.prefix
        ));
    }
    fault(format!("prefix `{}` is bound to `{old}`", d.prefix))
}

fn decl_error(file: &str, d: &NsDecl, fault: BindingFault) -> Diagnostic {
    let span = match fault {
        BindingFault::Prefix(_) => d.prefix_span,
        BindingFault::Uri(_) => d.uri_span,
    };
    let message = fault.message();
    Diagnostic {
        code: "E0204",
        message,
        help: Some(r#"declare a prefix once, with a URI of its own: `declare namespace p = "urn:example";`"#.into()),
        file: file.to_string(),
        line: d.line,
        source_line: d.text.clone(),
        span,
    }
}
