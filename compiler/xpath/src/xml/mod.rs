//! Byte-level XML tokenizer: the exact software model of the hardware SAX
//! parser (SPEC §3.2). One byte at a time through an explicit state machine;
//! the only memory it keeps is what the hardware keeps (the state, the
//! name stack of open elements bounded by `XmlConfig::name_stack_bytes`, a
//! depth counter, and small counters for multi-byte tokens).
//!
//! Consumers implement [`Sink`]; the tokenizer never allocates per event.

pub mod attrs;
pub mod chars;
pub mod decl;
pub mod doctype;
pub mod items;
pub mod lanes;
pub mod names;
pub mod ns;
pub mod tokenizer;
pub mod trace;

#[cfg(test)]
mod tests;

pub use tokenizer::Tokenizer;

/// Per-document status reported by the tokenizer (SPEC §2/§3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocStatus {
    Ok,
    Malformed,
    TooDeep,
    /// An element has more attributes, or a longer attribute name, than
    /// the duplicate-attribute check holds ([`attrs`]): the document could
    /// not be checked within the compiled limits.
    AttrLimit,
}

impl DocStatus {
    /// The status code of the hardware status word (bits 1:0).
    pub fn code(self) -> u8 {
        match self {
            DocStatus::Ok => 0,
            DocStatus::Malformed => 1,
            DocStatus::TooDeep => 2,
            DocStatus::AttrLimit => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<DocStatus> {
        match code {
            0 => Some(DocStatus::Ok),
            1 => Some(DocStatus::Malformed),
            2 => Some(DocStatus::TooDeep),
            3 => Some(DocStatus::AttrLimit),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DocStatus::Ok => "ok",
            DocStatus::Malformed => "malformed",
            DocStatus::TooDeep => "too_deep",
            DocStatus::AttrLimit => "attr_limit",
        }
    }
}

/// Why a document was flagged. The first problem wins; after it the
/// tokenizer emits no more events for this document (the rest of the bytes
/// are consumed and ignored) so a flagged document's matches are exactly
/// those found in the prefix before the flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XmlError {
    // ---- malformed ----
    /// `</b>` closes an element opened as `<a>`.
    MismatchedClose,
    /// A close tag with no element open.
    CloseWithoutOpen,
    /// End of document inside a tag, comment, CDATA, PI, DOCTYPE or reference.
    UnterminatedMarkup,
    /// End of document with elements still open.
    UnclosedElement,
    /// `<!DOCTYPE x [ ... ]>`: internal subsets are not supported.
    DoctypeInternalSubset,
    /// A DOCTYPE after the root element started, or a second DOCTYPE.
    MisplacedDoctype,
    /// A second top-level element.
    MultipleRoots,
    /// No element at all (including an empty document).
    NoRootElement,
    /// Non-whitespace character data, CDATA or a reference outside the root element.
    ContentOutsideRoot,
    /// A byte that cannot start or continue a name, a tag or markup here.
    UnexpectedByte,
    /// `<?xml ...?>` anywhere but at the very start of the document.
    MisplacedXmlDecl,
    /// Attribute without `=`, unquoted value, or `<` inside a value.
    BadAttribute,
    /// `&` not followed by a well-formed predefined-entity or character
    /// reference (`&lt; &gt; &amp; &apos; &quot; &#N; &#xH;`).
    BadReference,
    /// `--` inside a comment.
    DoubleHyphenInComment,
    /// `]]>` in character data.
    CdataEndInText,
    // ---- too deep ----
    /// Opening an element deeper than `max_depth`.
    TooDeep,
    /// The names of the open elements no longer fit in the name stack.
    NameStackOverflow,
    // ---- the input stream (hardware only) ----
    /// An AXI4-Stream beat broke the `tkeep` rule of a design taking more
    /// than one byte per clock (a beat not full before a document's last,
    /// or bytes not in the low lanes). The tokenizer never reports it; the
    /// document's bytes from that beat on are not parsed.
    BadBeat,
    // ---- malformed: the characters ([`chars`]) ----
    /// A byte that is not UTF-8, or a character outside XML's `Char`
    /// production (a C0 control but tab, LF and CR; U+FFFE; U+FFFF).
    InvalidChar,
    /// The document is UTF-16 or UTF-32 (a byte order mark, or NUL bytes
    /// around its first `<`), or its XML declaration names an encoding
    /// qrtl does not read (anything but UTF-8, ISO-8859-1 and US-ASCII; a
    /// name other than UTF-8 after a UTF-8 byte order mark).
    UnsupportedEncoding,
    /// The XML declaration breaks its grammar ([`decl`]).
    BadXmlDecl,
    /// The DOCTYPE breaks its grammar ([`doctype`]): no name, a keyword
    /// other than SYSTEM and PUBLIC, a literal missing or unquoted, a
    /// character a public id may not hold.
    BadDoctype,
    /// A name's character beyond ASCII is not a `NameStartChar` (its first)
    /// or not a `NameChar` ([`names`]).
    BadNameChar,
    /// An attribute name repeats within one start tag ([`attrs`]).
    DuplicateAttribute,
    // ---- attr_limit ----
    /// More attributes on one element than `XmlConfig::max_attributes`.
    TooManyAttributes,
    /// An attribute name longer than `XmlConfig::attr_name_bytes`.
    AttrNameTooLong,
    // ---- malformed: Namespaces in XML 1.0 ([`ns`]; only when names are
    // namespace-aware) ----
    /// A name with a colon first, last or twice; a colon in a PI target.
    BadQName,
    /// An element or attribute prefix bound to no namespace (or `xmlns`
    /// as an element's prefix).
    UnboundPrefix,
    /// A namespace declaration Namespaces in XML forbids (`xmlns:p=""`, a
    /// reserved prefix or namespace misused).
    BadNamespaceDecl,
    // ---- attr_limit: the namespace unit's capacities ([`ns::NsLimits`];
    // only under a design's hardware limits) ----
    /// More distinct prefixes (in scope, or used by the start tag) or more
    /// declarations in scope than the hardware holds.
    NsCapacity,
    /// Two prefixed attributes of one start tag with one local name under
    /// different prefixes: a duplicate if both prefixes name one namespace,
    /// which the hardware does not compare.
    NsLocalNameTwice,
}

impl XmlError {
    /// Every reason, in declaration order; the hardware reports
    /// `1 + index` in the status word (0: no error).
    pub const ALL: [XmlError; 31] = [
        XmlError::MismatchedClose,
        XmlError::CloseWithoutOpen,
        XmlError::UnterminatedMarkup,
        XmlError::UnclosedElement,
        XmlError::DoctypeInternalSubset,
        XmlError::MisplacedDoctype,
        XmlError::MultipleRoots,
        XmlError::NoRootElement,
        XmlError::ContentOutsideRoot,
        XmlError::UnexpectedByte,
        XmlError::MisplacedXmlDecl,
        XmlError::BadAttribute,
        XmlError::BadReference,
        XmlError::DoubleHyphenInComment,
        XmlError::CdataEndInText,
        XmlError::TooDeep,
        XmlError::NameStackOverflow,
        XmlError::BadBeat,
        XmlError::InvalidChar,
        XmlError::UnsupportedEncoding,
        XmlError::BadXmlDecl,
        XmlError::BadDoctype,
        XmlError::BadNameChar,
        XmlError::DuplicateAttribute,
        XmlError::TooManyAttributes,
        XmlError::AttrNameTooLong,
        XmlError::BadQName,
        XmlError::UnboundPrefix,
        XmlError::BadNamespaceDecl,
        XmlError::NsCapacity,
        XmlError::NsLocalNameTwice,
    ];

    /// The reason code of the hardware status word (1-based; the RTL's
    /// `qrtl_sax` uses the same numbers).
    pub fn code(self) -> u8 {
        match self {
            XmlError::MismatchedClose => 1,
            XmlError::CloseWithoutOpen => 2,
            XmlError::UnterminatedMarkup => 3,
            XmlError::UnclosedElement => 4,
            XmlError::DoctypeInternalSubset => 5,
            XmlError::MisplacedDoctype => 6,
            XmlError::MultipleRoots => 7,
            XmlError::NoRootElement => 8,
            XmlError::ContentOutsideRoot => 9,
            XmlError::UnexpectedByte => 10,
            XmlError::MisplacedXmlDecl => 11,
            XmlError::BadAttribute => 12,
            XmlError::BadReference => 13,
            XmlError::DoubleHyphenInComment => 14,
            XmlError::CdataEndInText => 15,
            XmlError::TooDeep => 16,
            XmlError::NameStackOverflow => 17,
            XmlError::BadBeat => 18,
            XmlError::InvalidChar => 19,
            XmlError::UnsupportedEncoding => 20,
            XmlError::BadXmlDecl => 21,
            XmlError::BadDoctype => 22,
            XmlError::BadNameChar => 23,
            XmlError::DuplicateAttribute => 24,
            XmlError::TooManyAttributes => 25,
            XmlError::AttrNameTooLong => 26,
            XmlError::BadQName => 27,
            XmlError::UnboundPrefix => 28,
            XmlError::BadNamespaceDecl => 29,
            XmlError::NsCapacity => 30,
            XmlError::NsLocalNameTwice => 31,
        }
    }

    /// The reason for a status-word code (`None` for 0 or unknown codes).
    pub fn from_code(code: u8) -> Option<XmlError> {
        Self::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }

    /// A reason the tokenizer (and `qrtl_sax`) can give; `BadBeat` is the
    /// multi-byte input's, about the stream rather than the document, and
    /// the namespace reasons are the namespace layer's.
    pub fn from_parser(self) -> bool {
        self != XmlError::BadBeat && !self.is_namespace()
    }

    /// A reason of Namespaces in XML ([`ns`]), given only when names are
    /// namespace-aware (no hardware parser gives them yet).
    pub fn is_namespace(self) -> bool {
        matches!(
            self,
            XmlError::BadQName
                | XmlError::UnboundPrefix
                | XmlError::BadNamespaceDecl
                | XmlError::NsCapacity
                | XmlError::NsLocalNameTwice
        )
    }

    pub fn status(self) -> DocStatus {
        match self {
            XmlError::TooDeep | XmlError::NameStackOverflow => DocStatus::TooDeep,
            XmlError::TooManyAttributes
            | XmlError::AttrNameTooLong
            | XmlError::NsCapacity
            | XmlError::NsLocalNameTwice => DocStatus::AttrLimit,
            _ => DocStatus::Malformed,
        }
    }
    pub fn describe(self) -> &'static str {
        match self {
            XmlError::MismatchedClose => "close tag does not match the open element",
            XmlError::CloseWithoutOpen => "close tag with no element open",
            XmlError::UnterminatedMarkup => "document ends inside markup",
            XmlError::UnclosedElement => "document ends with elements still open",
            XmlError::DoctypeInternalSubset => "DOCTYPE internal subsets are not supported",
            XmlError::MisplacedDoctype => "DOCTYPE after the root element or repeated",
            XmlError::MultipleRoots => "more than one root element",
            XmlError::NoRootElement => "no root element",
            XmlError::ContentOutsideRoot => "character data outside the root element",
            XmlError::UnexpectedByte => "unexpected byte in markup",
            XmlError::MisplacedXmlDecl => "XML declaration not at the start of the document",
            XmlError::BadAttribute => "malformed attribute",
            XmlError::BadReference => "malformed or unknown entity/character reference",
            XmlError::DoubleHyphenInComment => "'--' inside a comment",
            XmlError::CdataEndInText => "']]>' in character data",
            XmlError::TooDeep => "nesting deeper than the maximum depth",
            XmlError::NameStackOverflow => "open element names exceed the name stack",
            XmlError::BadBeat => "an input beat broke the tkeep rule (multi-byte input)",
            XmlError::InvalidChar => "byte is not UTF-8 or not an XML character",
            XmlError::UnsupportedEncoding => {
                "unsupported encoding (UTF-8, ISO-8859-1 and US-ASCII are read)"
            }
            XmlError::BadXmlDecl => "malformed XML declaration",
            XmlError::BadDoctype => "malformed DOCTYPE",
            XmlError::BadNameChar => "character not allowed in a name",
            XmlError::DuplicateAttribute => "attribute repeated in a start tag",
            XmlError::TooManyAttributes => {
                "more attributes on an element than the duplicate check holds"
            }
            XmlError::AttrNameTooLong => "attribute name longer than the duplicate check holds",
            XmlError::BadQName => "name with a misplaced colon (Namespaces in XML)",
            XmlError::UnboundPrefix => "namespace prefix not declared",
            XmlError::BadNamespaceDecl => "namespace declaration not allowed",
            XmlError::NsCapacity => {
                "more namespace prefixes or declarations in scope than the parser holds"
            }
            XmlError::NsLocalNameTwice => {
                "two prefixed attributes with one local name (namespace names are not compared)"
            }
        }
    }
}

/// Where the first problem was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmlErrorAt {
    pub error: XmlError,
    /// Byte offset of the byte that revealed the problem (document length for end-of-document errors).
    pub offset: u64,
    /// 1-based line and column (bytes) of that offset.
    pub line: u64,
    pub col: u64,
}

/// Compiled limits of the parser (the hardware has the same ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmlConfig {
    /// Deepest element nesting accepted; the document element is depth 1.
    pub max_depth: u32,
    /// Capacity in bytes of the stack of open element names used to check
    /// close tags. Default: 64 bytes per level.
    pub name_stack_bytes: u32,
    /// Attributes per element the duplicate check holds ([`attrs`]).
    pub max_attributes: u32,
    /// Longest attribute name (bytes) the duplicate check holds.
    pub attr_name_bytes: u32,
    /// Names are namespace-aware: the tokenizer rejects a colon in a PI
    /// target (`BadQName`); everything else of Namespaces in XML is the
    /// [`ns`] layer's, above the tokenizer.
    pub namespaces: bool,
    /// The namespace unit's capacities, when documents are checked as a
    /// design's hardware checks them (`None`: exact, unbounded, as
    /// `filter` does).
    pub ns_limits: Option<ns::NsLimits>,
}

/// Default [`XmlConfig::max_attributes`] (YFilter's NITF documents have up
/// to 16 on one element).
pub const DEFAULT_MAX_ATTRIBUTES: u32 = 16;
/// Default [`XmlConfig::attr_name_bytes`].
pub const DEFAULT_ATTR_NAME_BYTES: u32 = 32;

impl XmlConfig {
    pub fn with_max_depth(max_depth: u32) -> XmlConfig {
        XmlConfig {
            max_depth,
            name_stack_bytes: max_depth.saturating_mul(64).max(64),
            max_attributes: DEFAULT_MAX_ATTRIBUTES,
            attr_name_bytes: DEFAULT_ATTR_NAME_BYTES,
            namespaces: false,
            ns_limits: None,
        }
    }
}

impl Default for XmlConfig {
    fn default() -> Self {
        XmlConfig::with_max_depth(32)
    }
}

/// Receiver of SAX events. Callbacks come in document order; names and
/// values are byte slices valid only during the call.
///
/// For one element: `start_name`, then for each attribute `attr_start`,
/// zero or more `attr_value` chunks and `attr_end` (only when
/// `start_name` returned true), then `open` at the `>` (or `/>`), then the
/// content, then `close` (immediately after `open` for `<a/>`).
pub trait Sink {
    /// `<name` has been read (element at depth `depth`, 1 = root). Return
    /// true to receive this element's attributes.
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool;
    /// An attribute name (only if `start_name` returned true). Return true
    /// to receive its decoded value.
    fn attr_start(&mut self, name: &[u8]) -> bool;
    /// A chunk of the decoded attribute value (references decoded). Only if
    /// `attr_start` returned true. May be called several times.
    fn attr_value(&mut self, chunk: &[u8]);
    /// End of the attribute (only if `attr_start` was called).
    fn attr_end(&mut self);
    /// The start tag is complete: the element is open (a push).
    fn open(&mut self);
    /// The element closes (a pop); its close tag has been verified.
    fn close(&mut self);
    /// Whether character data of the currently open element is wanted.
    /// Asked once when a text node starts.
    fn wants_text(&mut self) -> bool;
    /// A chunk of character data of the current element: references
    /// decoded, CDATA content verbatim. Only after `wants_text` returned true.
    fn text(&mut self, chunk: &[u8]);
    /// The current text node ended (a start tag, end tag, comment or PI
    /// follows). Called only for text nodes for which `wants_text` was true.
    fn text_end(&mut self);
    /// Whether an element whose local name is `local` (in whatever
    /// namespace) may have its attributes asked for: a hint for a layer
    /// that must decide what to keep before it knows the expanded name.
    #[inline(always)]
    fn may_want_attrs(&mut self, _local: &[u8]) -> bool {
        true
    }
    /// A fault the sink found in the event just given (`start_name`,
    /// `attr_start`, `attr_end`, `open`): the tokenizer flags the document
    /// at the current byte and gives no more events. Taken once.
    #[inline(always)]
    fn fault(&mut self) -> Option<XmlError> {
        None
    }
}
