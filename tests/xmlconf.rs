//! The W3C XML Conformance Test Suite (`../shared/data/xmlconf/`, 2,585
//! cases; see its README) through the tokenizer, as a ratchet: it passes
//! today and fails both when a case regresses and when a known gap is
//! fixed (issue 29).
//!
//! The catalogue `xmlconf.xml` includes one catalogue per contributor
//! through the external entities of its internal subset; each `TEST` names
//! a document (`URI`, relative to its catalogue), a `TYPE` and the
//! `ENTITIES` it needs. Every document is tokenized whole with a large
//! depth and name-stack limit, inside `catch_unwind`: the tokenizer must
//! never panic, whatever the case's type. Then, by type:
//!
//! * `not-wf`: must be flagged (`Err`).
//! * `valid` and `invalid` (both well-formed; qrtl does not validate) with
//!   `ENTITIES="none"`: `ok` without a DOCTYPE internal subset; with one,
//!   malformed with reason `DoctypeInternalSubset` (SPEC §3.2: internal
//!   subsets are rejected by design); UTF-16 and UTF-32 documents
//!   (recognised by their first bytes, XML 1.0 appendix F) and documents
//!   whose XML declaration names another encoding than UTF-8, ISO-8859-1
//!   and US-ASCII: malformed with reason `UnsupportedEncoding`. With
//!   external entities: skipped, since qrtl never reads them.
//! * `error`: skipped (processors need not report these errors).
//!
//! Cases of Namespaces in XML 1.0 (`RECOMMENDATION="NS1.0"`) run through
//! the namespace layer (`xml::ns`) above the tokenizer, as the engine runs
//! documents for namespace-aware names; every other case through the
//! tokenizer alone (XML 1.0 without namespaces, as `--namespaces raw`).
//!
//! Two data files in `tests/xmlconf/`, lines `ID<TAB>reason`, `#` comments:
//!
//! * `exclusions.txt`: cases outside qrtl's scope, not checked (a not-wf
//!   fault in an external entity or the external DTD, XML 1.1, a fault
//!   only before XML 1.0's 5th edition).
//! * `known-gaps.txt`: cases qrtl gets wrong today, grouped by cause: the
//!   work list of issue 29 point 1. A case wrong and not listed fails the
//!   test (a regression); a listed case that now passes fails it too, so
//!   its line must be deleted and the list only shrinks.
//!
//! To see every case's outcome (`ID TYPE outcome got note`, one per line,
//! to diff before and after a change) and the exclusion candidates the
//! rules above derive mechanically (review each by reading its document):
//!
//! ```text
//! cargo test --release --test xmlconf -- --ignored --nocapture print_xmlconf_report
//! cargo test --release --test xmlconf -- --ignored --nocapture print_exclusion_candidates
//! ```
//!
//! The RTL parser is not run here: `sax_rtl.rs` runs every document of the
//! suite through it and compares it with the tokenizer event by event.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use qrtl_xpath::xml::tokenizer::tokenize;
use qrtl_xpath::xml::{ns, Sink, XmlConfig, XmlError, XmlErrorAt};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// TEST elements in the 2013-09-23 edition of the suite.
const EXPECTED_CASES: usize = 2585;

// ------------------------------------------------------------ the suite

/// The suite's folder (`common::xmlconf_dir`).
fn suite_dir() -> PathBuf {
    common::xmlconf_dir()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaseType {
    Valid,
    Invalid,
    NotWf,
    Error,
}

impl CaseType {
    const ALL: [CaseType; 4] = [
        CaseType::Valid,
        CaseType::Invalid,
        CaseType::NotWf,
        CaseType::Error,
    ];

    fn parse(s: &str) -> Option<CaseType> {
        match s {
            "valid" => Some(CaseType::Valid),
            "invalid" => Some(CaseType::Invalid),
            "not-wf" => Some(CaseType::NotWf),
            "error" => Some(CaseType::Error),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            CaseType::Valid => "valid",
            CaseType::Invalid => "invalid",
            CaseType::NotWf => "not-wf",
            CaseType::Error => "error",
        }
    }
}

/// One `TEST` element, its attribute defaults filled in from `testcases.dtd`.
#[derive(Debug)]
struct Case {
    id: String,
    kind: CaseType,
    /// `none`, `general`, `parameter` or `both`.
    entities: String,
    /// The document, resolved against its catalogue's folder.
    path: PathBuf,
    version: Option<String>,
    edition: Option<String>,
    recommendation: String,
}

/// Every case of the suite, in catalogue order.
fn load_suite(dir: &Path) -> Vec<Case> {
    let master = dir.join("xmlconf.xml");
    let text = read_text(&master);
    let mut reader = Reader::from_str(&text);
    let mut entities = HashMap::new();
    let mut cases = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::DocType(d)) => entities = entity_decls(&String::from_utf8_lossy(&d)),
            Ok(Event::Text(t)) => {
                for name in entity_refs(&String::from_utf8_lossy(&t)) {
                    let file = entities
                        .get(&name)
                        .unwrap_or_else(|| panic!("{}: undeclared &{name};", master.display()));
                    cases.extend(load_catalogue(&dir.join(file)));
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("{}: {e}", master.display()),
        }
    }
    cases
}

/// `name → system id` of the `<!ENTITY name SYSTEM "file">` declarations
/// in a DOCTYPE's text.
fn entity_decls(doctype: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for decl in doctype.split("<!ENTITY").skip(1) {
        let mut words = decl.split_whitespace();
        let (Some(name), Some("SYSTEM"), Some(literal)) =
            (words.next(), words.next(), words.next())
        else {
            continue;
        };
        let file = literal
            .trim_end_matches('>')
            .trim_matches(|c| c == '"' || c == '\'');
        out.insert(name.to_string(), file.to_string());
    }
    out
}

/// The names of the `&name;` references in raw text.
fn entity_refs(text: &str) -> Vec<String> {
    text.split('&')
        .skip(1)
        .filter_map(|s| s.split_once(';').map(|(name, _)| name.to_string()))
        .collect()
}

/// The `TEST` elements of one contributor's catalogue (a fragment: it may
/// hold several top-level elements).
fn load_catalogue(file: &Path) -> Vec<Case> {
    let base = file.parent().expect("a catalogue lies in a folder");
    let text = read_text(file);
    let mut reader = Reader::from_str(&text);
    let mut cases = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.name().as_ref() == b"TEST" => {
                cases.push(case_of(&e, base, file));
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("{}: {e}", file.display()),
        }
    }
    cases
}

fn case_of(e: &BytesStart, base: &Path, file: &Path) -> Case {
    let mut attrs = HashMap::new();
    for a in e.attributes() {
        let a = a.unwrap_or_else(|err| panic!("{}: TEST attribute: {err}", file.display()));
        let value = a
            .unescape_value()
            .unwrap_or_else(|err| panic!("{}: TEST attribute: {err}", file.display()));
        attrs.insert(
            String::from_utf8_lossy(a.key.as_ref()).into_owned(),
            value.into_owned(),
        );
    }
    let get = |k: &str| attrs.get(k).cloned();
    let need = |k: &str| get(k).unwrap_or_else(|| panic!("{}: TEST without {k}", file.display()));
    let id = need("ID");
    let kind = CaseType::parse(&need("TYPE"))
        .unwrap_or_else(|| panic!("{}: {id}: unknown TYPE", file.display()));
    Case {
        kind,
        entities: get("ENTITIES").unwrap_or_else(|| "none".into()),
        path: base.join(need("URI")),
        version: get("VERSION"),
        edition: get("EDITION"),
        recommendation: get("RECOMMENDATION").unwrap_or_else(|| "XML1.0".into()),
        id,
    }
}

fn read_text(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

// ------------------------------------------------------------ the data files

/// `ID<TAB>reason` lines of a file in `tests/xmlconf/`, in file order.
fn id_list(name: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/xmlconf")
        .join(name);
    let mut out = BTreeMap::new();
    for (n, line) in read_text(&path).lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("{}:{}: expected ID<TAB>reason", path.display(), n + 1));
        let old = out.insert(id.to_string(), reason.trim().to_string());
        assert!(
            old.is_none(),
            "{}:{}: {id} listed twice",
            path.display(),
            n + 1
        );
    }
    out
}

struct Lists {
    exclusions: BTreeMap<String, String>,
    gaps: BTreeMap<String, String>,
}

impl Lists {
    fn load() -> Lists {
        Lists {
            exclusions: id_list("exclusions.txt"),
            gaps: id_list("known-gaps.txt"),
        }
    }
}

// ------------------------------------------------------------ running a case

/// Receives every event and drops it (asking for attributes and text, so
/// every path of the tokenizer runs).
struct Ignore;

impl Sink for Ignore {
    fn start_name(&mut self, _: &[u8], _: u32) -> bool {
        true
    }
    fn attr_start(&mut self, _: &[u8]) -> bool {
        true
    }
    fn attr_value(&mut self, _: &[u8]) {}
    fn attr_end(&mut self) {}
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn wants_text(&mut self) -> bool {
        true
    }
    fn text(&mut self, _: &[u8]) {}
    fn text_end(&mut self) {}
}

/// Limits large enough that they never decide a case (the suite's valid
/// documents have up to 48 attributes on an element, names up to 26
/// bytes; the defaults are 16 and 32).
fn config() -> XmlConfig {
    XmlConfig {
        max_depth: 1 << 16,
        name_stack_bytes: 1 << 20,
        max_attributes: 64,
        attr_name_bytes: 64,
        namespaces: false,
        ns_limits: None,
    }
}

/// What the tokenizer said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Got {
    Ok,
    Flagged(XmlErrorAt),
    Panicked,
}

impl fmt::Display for Got {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Got::Ok => write!(f, "ok"),
            Got::Flagged(e) => write!(f, "{:?}@{}:{}", e.error, e.line, e.col),
            Got::Panicked => write!(f, "PANIC"),
        }
    }
}

/// The tokenizer alone, or (`namespaces`) with the namespace layer on top,
/// as the engine runs it for namespace-aware names.
fn run_tokenizer(doc: &[u8], namespaces: bool) -> Got {
    let run = || {
        if !namespaces {
            return tokenize(config(), doc, &mut Ignore);
        }
        let config = XmlConfig {
            namespaces: true,
            ..config()
        };
        let mut layer = ns::Layer::new(ns::AttrWants::default());
        tokenize(config, doc, &mut layer.sink(&mut Ignore))
    };
    match panic::catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(())) => Got::Ok,
        Ok(Err(e)) => Got::Flagged(e),
        Err(_) => Got::Panicked,
    }
}

// ------------------------------------------------------------ expectations

/// What a case must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Malformed or too deep, any reason.
    Flagged,
    Ok,
    /// Flagged with this reason.
    Reason(XmlError),
}

impl Expect {
    fn met_by(self, got: Got) -> bool {
        match (self, got) {
            (Expect::Flagged, Got::Flagged(_)) | (Expect::Ok, Got::Ok) => true,
            (Expect::Reason(r), Got::Flagged(e)) => e.error == r,
            _ => false,
        }
    }
}

/// What the test does with a case.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    Check(Expect),
    Excluded(String),
    Skipped(&'static str),
}

const SKIP_ERROR: &str = "error: processors need not report it";
const SKIP_ENTITIES: &str = "well-formed but needs external entities qrtl never reads";

fn plan(case: &Case, doc: &[u8], lists: &Lists) -> Plan {
    if let Some(reason) = lists.exclusions.get(&case.id) {
        return Plan::Excluded(reason.clone());
    }
    match case.kind {
        CaseType::Error => Plan::Skipped(SKIP_ERROR),
        CaseType::NotWf => Plan::Check(Expect::Flagged),
        CaseType::Valid | CaseType::Invalid if case.entities != "none" => {
            Plan::Skipped(SKIP_ENTITIES)
        }
        CaseType::Valid | CaseType::Invalid if is_utf16_or_32(doc) || declares_unread(doc) => {
            Plan::Check(Expect::Reason(XmlError::UnsupportedEncoding))
        }
        CaseType::Valid | CaseType::Invalid if has_internal_subset(doc) => {
            Plan::Check(Expect::Reason(XmlError::DoctypeInternalSubset))
        }
        CaseType::Valid | CaseType::Invalid => Plan::Check(Expect::Ok),
    }
}

/// Whether the document is UTF-16 or UTF-32 (XML 1.0 appendix F: a byte
/// order mark, or NUL bytes around the first `<`), which qrtl refuses
/// with a reason of its own (`UnsupportedEncoding`) rather than reading.
fn is_utf16_or_32(doc: &[u8]) -> bool {
    matches!(doc.first(), Some(0x00 | 0xFE | 0xFF)) || doc.get(1) == Some(&0x00)
}

/// Whether the document's XML declaration names an encoding qrtl does not
/// read: anything but UTF-8, ISO-8859-1 and US-ASCII (any case), or, after
/// a UTF-8 byte order mark, anything but UTF-8.
fn declares_unread(doc: &[u8]) -> bool {
    let (bom, rest) = match doc.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, doc),
    };
    let Some(decl) = rest.strip_prefix(b"<?xml") else {
        return false;
    };
    let decl = &decl[..decl
        .windows(2)
        .position(|w| w == b"?>")
        .unwrap_or(decl.len())];
    let Some(at) = decl.windows(8).position(|w| w == b"encoding") else {
        return false;
    };
    let value: Vec<u8> = decl[at + 8..]
        .iter()
        .skip_while(|&&b| b != b'"' && b != b'\'')
        .skip(1)
        .take_while(|&&b| b != b'"' && b != b'\'')
        .map(u8::to_ascii_uppercase)
        .collect();
    let read: &[&[u8]] = if bom {
        &[b"UTF-8"]
    } else {
        &[b"UTF-8", b"ISO-8859-1", b"US-ASCII", b"ASCII"]
    };
    !read.contains(&value.as_slice())
}

/// Whether the document's DOCTYPE has an internal subset: a `[` before the
/// DOCTYPE's `>`, outside quoted literals. The DOCTYPE is looked for after
/// the prolog's comments and PIs (`o-p16pass1` has `<!DOCTYPE <[` inside a
/// PI). UTF-16 documents are decoded first.
fn has_internal_subset(doc: &[u8]) -> bool {
    let text = decode(doc);
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        let close = if rest.starts_with("<?") {
            "?>"
        } else if rest.starts_with("<!--") {
            "-->"
        } else {
            break;
        };
        let Some(end) = rest.find(close) else {
            return false;
        };
        rest = &rest[end + close.len()..];
    }
    let Some(doctype) = rest.strip_prefix("<!DOCTYPE") else {
        return false;
    };
    let mut quote = None;
    for c in doctype.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => return true,
            (None, '>') => return false,
            _ => {}
        }
    }
    false
}

/// The document as text: UTF-16 by its BOM, else UTF-8 (lossy).
fn decode(doc: &[u8]) -> String {
    let utf16 = |be: bool| {
        let units = doc[2..].chunks_exact(2).map(|p| {
            let pair = [p[0], p[1]];
            if be {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    };
    match doc {
        [0xFE, 0xFF, ..] => utf16(true),
        [0xFF, 0xFE, ..] => utf16(false),
        _ => String::from_utf8_lossy(doc).into_owned(),
    }
}

/// Candidate exclusion by the suite's own attributes and today's outcome
/// (the rules of `exclusions.txt`); each needs a review of its document.
fn exclusion_rule(case: &Case, got: Got) -> Option<&'static str> {
    let v11 = case.version.as_deref().is_some_and(|v| v.contains("1.1"))
        || matches!(case.recommendation.as_str(), "XML1.1" | "NS1.1");
    let before_5th = case.edition.as_deref().is_some_and(|e| !e.contains('5'));
    let accepted = got == Got::Ok;
    if v11 && case.kind != CaseType::Error {
        Some("XML 1.1 only")
    } else if before_5th && case.kind == CaseType::NotWf {
        Some("edition: not-wf only before XML 1.0 5th edition, which qrtl follows")
    } else if case.kind != CaseType::NotWf || !accepted {
        None
    } else if case.entities != "none" {
        Some("external: the fault is in an external entity or the external DTD")
    } else {
        None
    }
}

// ------------------------------------------------------------ outcomes

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Passed,
    KnownGap,
    /// Wrong and not a known gap.
    Regression,
    /// A known gap that now passes: delete its line.
    GapFixed,
    Excluded,
    Skipped,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "pass",
            Verdict::KnownGap => "known-gap",
            Verdict::Regression => "FAIL",
            Verdict::GapFixed => "GAP-FIXED",
            Verdict::Excluded => "excluded",
            Verdict::Skipped => "skipped",
        }
    }
}

struct Outcome<'a> {
    case: &'a Case,
    plan: Plan,
    got: Got,
    verdict: Verdict,
}

fn judge(plan: &Plan, got: Got, is_gap: bool) -> Verdict {
    let Plan::Check(expect) = plan else {
        return match plan {
            Plan::Excluded(_) => Verdict::Excluded,
            _ => Verdict::Skipped,
        };
    };
    match (expect.met_by(got), is_gap) {
        (true, false) => Verdict::Passed,
        (true, true) => Verdict::GapFixed,
        (false, true) => Verdict::KnownGap,
        (false, false) => Verdict::Regression,
    }
}

fn run_case<'a>(case: &'a Case, lists: &Lists) -> Outcome<'a> {
    let doc = fs::read(&case.path)
        .unwrap_or_else(|e| panic!("{}: read {}: {e}", case.id, case.path.display()));
    let got = run_tokenizer(&doc, is_namespace_case(case));
    let plan = plan(case, &doc, lists);
    let verdict = judge(&plan, got, lists.gaps.contains_key(&case.id));
    Outcome {
        case,
        plan,
        got,
        verdict,
    }
}

/// A case of Namespaces in XML 1.0 (run with the namespace layer).
fn is_namespace_case(case: &Case) -> bool {
    case.recommendation == "NS1.0"
}

fn run_suite<'a>(cases: &'a [Case], lists: &Lists) -> Vec<Outcome<'a>> {
    // Panics are caught and reported per case; keep the default hook's
    // message out of the way of the summary.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let outcomes = cases.iter().map(|c| run_case(c, lists)).collect();
    panic::set_hook(hook);
    outcomes
}

fn expected_text(plan: &Plan) -> String {
    match plan {
        Plan::Check(Expect::Flagged) => "flagged".into(),
        Plan::Check(Expect::Ok) => "ok".into(),
        Plan::Check(Expect::Reason(r)) => format!("{r:?}"),
        Plan::Excluded(r) => r.clone(),
        Plan::Skipped(r) => (*r).into(),
    }
}

// ------------------------------------------------------------ summary

#[derive(Default)]
struct Counts {
    run: usize,
    passed: usize,
    excluded: usize,
    gaps: usize,
    skipped: usize,
    failed: usize,
}

impl Counts {
    fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::KnownGap => self.gaps += 1,
            Verdict::Regression | Verdict::GapFixed => self.failed += 1,
            Verdict::Excluded => self.excluded += 1,
            Verdict::Skipped => self.skipped += 1,
        }
        if !matches!(v, Verdict::Excluded | Verdict::Skipped) {
            self.run += 1;
        }
    }
}

fn summary(outcomes: &[Outcome]) -> String {
    let mut rows: BTreeMap<CaseType, Counts> = BTreeMap::new();
    let mut total = Counts::default();
    for o in outcomes {
        rows.entry(o.case.kind).or_default().add(o.verdict);
        total.add(o.verdict);
    }
    let mut out = format!(
        "{:<9} {:>6} {:>6} {:>6} {:>8} {:>10} {:>7} {:>6}\n",
        "TYPE", "cases", "run", "passed", "excluded", "known-gaps", "skipped", "failed"
    );
    let line = |name: &str, c: &Counts| {
        let cases = c.run + c.excluded + c.skipped;
        format!(
            "{name:<9} {cases:>6} {:>6} {:>6} {:>8} {:>10} {:>7} {:>6}\n",
            c.run, c.passed, c.excluded, c.gaps, c.skipped, c.failed
        )
    };
    for kind in CaseType::ALL {
        out += &line(kind.as_str(), rows.get(&kind).unwrap_or(&Counts::default()));
    }
    out += &line("all", &total);
    out += &skip_reasons(outcomes);
    out
}

fn skip_reasons(outcomes: &[Outcome]) -> String {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for o in outcomes {
        if let Plan::Skipped(r) = &o.plan {
            *reasons.entry(r).or_default() += 1;
        }
    }
    reasons
        .iter()
        .map(|(r, n)| format!("skipped {n:>4}: {r}\n"))
        .collect()
}

// ------------------------------------------------------------ the tests

#[test]
fn xmlconf_ratchet() {
    let cases = load_suite(&suite_dir());
    assert!(
        cases.len() == EXPECTED_CASES && cases.len() > 2500,
        "the catalogue walk found {} TEST elements, expected {EXPECTED_CASES}",
        cases.len()
    );
    let lists = Lists::load();
    check_lists_name_cases(&cases, &lists);
    let outcomes = run_suite(&cases, &lists);
    eprint!("{}", summary(&outcomes));

    let mut problems = Vec::new();
    for o in &outcomes {
        let (id, got) = (&o.case.id, o.got);
        if got == Got::Panicked {
            problems.push(format!("{id}: the tokenizer panicked"));
        }
        match o.verdict {
            Verdict::Regression => problems.push(format!(
                "{id} ({}): expected {}, got {got}; a regression (or add it to known-gaps.txt with its cause)",
                o.case.kind.as_str(),
                expected_text(&o.plan)
            )),
            Verdict::GapFixed => problems.push(format!(
                "{id}: listed in tests/xmlconf/known-gaps.txt but now passes ({got}): delete its line"
            )),
            Verdict::Excluded | Verdict::Skipped if lists.gaps.contains_key(id) => problems.push(
                format!("{id}: listed in known-gaps.txt but not checked (excluded or skipped)"),
            ),
            _ => {}
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Both lists name existing cases.
fn check_lists_name_cases(cases: &[Case], lists: &Lists) {
    let ids: HashMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), c)).collect();
    assert_eq!(ids.len(), cases.len(), "duplicate TEST ids in the suite");
    for id in lists.exclusions.keys() {
        assert!(
            ids.contains_key(id.as_str()),
            "exclusions.txt: no case {id}"
        );
    }
    for id in lists.gaps.keys() {
        assert!(
            ids.contains_key(id.as_str()),
            "known-gaps.txt: no case {id}"
        );
    }
}

#[test]
#[ignore = "prints every case's outcome, for a developer to diff"]
fn print_xmlconf_report() {
    let cases = load_suite(&suite_dir());
    let lists = Lists::load();
    for o in run_suite(&cases, &lists) {
        let note = match o.verdict {
            Verdict::KnownGap => lists.gaps[&o.case.id].clone(),
            _ => expected_text(&o.plan),
        };
        println!(
            "{}\t{}\t{}\t{}\t{note}",
            o.case.id,
            o.case.kind.as_str(),
            o.verdict.as_str(),
            o.got
        );
    }
}

#[test]
#[ignore = "prints exclusion candidates in exclusions.txt's format, to review"]
fn print_exclusion_candidates() {
    let cases = load_suite(&suite_dir());
    for case in &cases {
        let doc = fs::read(&case.path)
            .unwrap_or_else(|e| panic!("{}: read {}: {e}", case.id, case.path.display()));
        if let Some(reason) = exclusion_rule(case, run_tokenizer(&doc, is_namespace_case(case))) {
            println!("{}\t{reason}", case.id);
        }
    }
}
