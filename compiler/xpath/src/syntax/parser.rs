//! XPath parser: query text → [`ast::Query`] or one [`SyntaxError`].
//!
//! Tokens are recognised by the nom parsers of [`super::lexer`]; this file
//! is a recursive-descent parser over them with a byte cursor, so every
//! error can name the exact token at fault and say what to write instead.
//! Unsupported XPath (other axes, functions, `or`, unions, arithmetic, ...)
//! always gets its own [`XPathErrorKind`], never a generic failure and
//! never a silent approximation.
//!
//! Grammar (SPEC §3.1), whitespace allowed between tokens:
//!
//! ```text
//! query     := ('/' | '//') step (('/' | '//') step)*
//! step      := ('*' | QName) predicate*
//! predicate := '[' (Number | andexpr) ']'
//! andexpr   := atom ('and' atom)*
//! atom      := '(' andexpr ')'                       flattened into the list
//!            | '@' QName [op literal]
//!            | 'text()' [op literal]
//!            | 'position()' op number
//!            | ('./' | './/')? step (('/' | '//') step)*
//!            | literal op ('@' QName | 'text()' | 'position()')   flipped
//! literal   := '"' [^"]* '"' | "'" [^']* "'" | '-'? Number
//! ```
//!
//! Spans: a step's span runs from its name test to the end of its last
//! predicate (the separator before it is not included); a path
//! expression's span includes a leading `./` or `.//`; a comparison's span
//! is its literal's. All spans are byte offsets into the text given to
//! [`parse_query`]; for [`SourceQuery::ast`] that is the line with its
//! leading whitespace trimmed.

use super::ast::{
    self, Axis, CmpOp, Comparison, Expr, ExprKind, Literal, NameTest, Predicate, PredicateKind,
    Query, Step,
};
use super::decl::{is_declaration, parse_declaration};
pub use super::error::{SyntaxError, XPathErrorKind};
use super::lexer::{
    axis_sep, cmp_op, empty_args, is_bad_char, is_name_start, is_ws, keyword, number, number_value,
    open_paren, prefix_wildcard, qname, string_lit, ws,
};
use nom::IResult;
use qrtl_core::diag::{Diagnostic, Span};
use XPathErrorKind as K;

/// How deeply `[` and `(` may nest before the parser gives up (keeps the
/// recursion, and so the stack, bounded on hostile input).
pub const MAX_NESTING: usize = 64;

/// One query of a query file.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceQuery {
    /// 0-based index among the file's non-blank, non-comment lines.
    pub id: usize,
    /// 1-based line number.
    pub line: usize,
    /// The line as written (without the line break).
    pub text: String,
    /// Spans are byte offsets into `text.trim_start()`.
    pub ast: ast::Query,
}

/// Parse one query. Leading and trailing whitespace is allowed.
pub fn parse_query(src: &str) -> Result<ast::Query, Vec<SyntaxError>> {
    Parser::new(src).query().map_err(|e| vec![e])
}

/// A `declare namespace PREFIX = "URI";` line of a query file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NsDecl {
    pub prefix: String,
    pub uri: String,
    /// 1-based line number.
    pub line: usize,
    /// The line as written (without the line break).
    pub text: String,
    /// The prefix and the quoted URI, as byte offsets into `text`.
    pub prefix_span: Span,
    pub uri_span: Span,
}

/// A parsed query file: its queries, its namespace declarations, and one
/// diagnostic per line that failed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryFile {
    pub queries: Vec<SourceQuery>,
    pub namespaces: Vec<NsDecl>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parse a query file: one query per line; blank lines and lines whose
/// first non-blank character is `#` are skipped, and so are namespace
/// declarations (`declare namespace p = "uri";`, which take no id). Every
/// other line gets the next id, whether or not it parses.
///
/// A large file is parsed in chunks of whole lines on several threads
/// (lines are independent), and the chunks' results are joined in order:
/// the same queries, ids, declarations and diagnostics as one pass.
pub fn parse_query_file(file_name: &str, text: &str) -> QueryFile {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_query_file_on(file_name, text, threads.min(PARSE_THREADS_MAX))
}

/// [`parse_query_file`] on at most `threads` threads.
fn parse_query_file_on(file_name: &str, text: &str, threads: usize) -> QueryFile {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let chunks = line_chunks(text, threads);
    if chunks.len() == 1 {
        return parse_lines(file_name, text, 0).0;
    }
    let parts: Vec<(QueryFile, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|&(chunk, first_line)| {
                scope.spawn(move || parse_lines(file_name, chunk, first_line))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a query-file parser thread panicked"))
            .collect()
    });
    let mut file = QueryFile::default();
    // The ids the chunks before this one gave (to their queries and to
    // their lines that did not parse).
    let mut base = 0;
    for (part, ids) in parts {
        file.queries
            .extend(part.queries.into_iter().map(|q| SourceQuery {
                id: q.id + base,
                ..q
            }));
        file.namespaces.extend(part.namespaces);
        file.diagnostics.extend(part.diagnostics);
        base += ids;
    }
    file
}

/// At most this many threads parse one query file.
const PARSE_THREADS_MAX: usize = 8;

/// A file smaller than this is parsed on the calling thread; each chunk is
/// at least this large.
const PARSE_CHUNK_MIN: usize = 256 * 1024;

/// `text` cut into at most `n` chunks of whole lines, each with the
/// 0-based number of its first line.
fn line_chunks(text: &str, n: usize) -> Vec<(&str, usize)> {
    let n = n.min(text.len() / PARSE_CHUNK_MIN).max(1);
    let mut chunks = Vec::with_capacity(n);
    let (mut start, mut line) = (0, 0);
    for k in 1..n {
        let want = text.len() * k / n;
        let Some(nl) = text.as_bytes()[want.max(start)..]
            .iter()
            .position(|&b| b == b'\n')
        else {
            break;
        };
        let end = want.max(start) + nl + 1;
        let chunk = &text[start..end];
        chunks.push((chunk, line));
        line += chunk.bytes().filter(|&b| b == b'\n').count();
        start = end;
    }
    chunks.push((&text[start..], line));
    chunks
}

/// Parse the lines of `text`, the first of which is line `first_line`
/// (0-based) of the file; ids count from 0. Also the number of ids given.
fn parse_lines(file_name: &str, text: &str, first_line: usize) -> (QueryFile, usize) {
    let mut file = QueryFile::default();
    let mut id = 0;
    for (index, raw) in text.split('\n').enumerate() {
        let index = first_line + index;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let offset = line.len() - trimmed.len();
        let shift = |s: Span| Span::new(s.start + offset, s.end + offset);
        if is_declaration(trimmed) {
            match parse_declaration(trimmed) {
                Ok(d) => file.namespaces.push(NsDecl {
                    prefix: d.prefix,
                    uri: d.uri,
                    line: index + 1,
                    text: line.to_string(),
                    prefix_span: shift(d.prefix_span),
                    uri_span: shift(d.uri_span),
                }),
                Err(e) => {
                    file.diagnostics
                        .push(e.to_diagnostic(file_name, index + 1, line, offset))
                }
            }
            continue;
        }
        match parse_query(trimmed) {
            Ok(ast) => file.queries.push(SourceQuery {
                id,
                line: index + 1,
                text: line.to_string(),
                ast,
            }),
            Err(errors) => file.diagnostics.extend(
                errors
                    .iter()
                    .map(|e| e.to_diagnostic(file_name, index + 1, line, offset)),
            ),
        }
        id += 1;
    }
    (file, id)
}

/// Where the parser stands when something unexpected turns up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// After a step of the query itself.
    Top,
    /// Inside `[...]`.
    Pred,
    /// Inside `(...)` within a predicate.
    Paren,
}

/// One member of an `and` list before it is known whether the predicate
/// is positional (`[2]`) or a condition list.
enum Atom {
    Expr(Expr),
    Number(f64, Span),
}

type PResult<T> = Result<T, SyntaxError>;

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// Where the query's first `/` is.
    query_start: usize,
    /// Open `[` and `(` with their positions, innermost last.
    open: Vec<(char, usize)>,
}

const AXES: &[&str] = &[
    "ancestor",
    "ancestor-or-self",
    "attribute",
    "child",
    "descendant",
    "descendant-or-self",
    "following",
    "following-sibling",
    "namespace",
    "parent",
    "preceding",
    "preceding-sibling",
    "self",
];

const FUNCTIONS: &[&str] = &[
    "last",
    "position",
    "count",
    "id",
    "local-name",
    "namespace-uri",
    "name",
    "string",
    "concat",
    "starts-with",
    "ends-with",
    "contains",
    "substring-before",
    "substring-after",
    "substring",
    "string-length",
    "normalize-space",
    "translate",
    "boolean",
    "not",
    "true",
    "false",
    "lang",
    "number",
    "sum",
    "floor",
    "ceiling",
    "round",
    "matches",
    "lower-case",
    "upper-case",
];

const COMPARISON_HELP: &str = "supported conditions are paths (`b`, `./b`, `.//b`), `@attr`, \
     `@attr OP literal`, `text() OP literal`, `position() OP number` and `[N]`, \
     joined with `and`";

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            pos: 0,
            query_start: 0,
            open: Vec::new(),
        }
    }

    // ----- cursor -------------------------------------------------------

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.rest().chars();
        chars.next();
        chars.next()
    }

    fn starts(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }

    fn text(&self, span: Span) -> &'a str {
        &self.src[span.start..span.end]
    }

    /// Run a token parser at byte `at` without moving the cursor.
    fn look_at<O>(
        &self,
        at: usize,
        mut p: impl FnMut(&'a str) -> IResult<&'a str, O>,
    ) -> Option<(O, Span)> {
        let input = &self.src[at..];
        match p(input) {
            Ok((rest, out)) => Some((out, Span::new(at, at + input.len() - rest.len()))),
            Err(_) => None,
        }
    }

    fn look<O>(&self, p: impl FnMut(&'a str) -> IResult<&'a str, O>) -> Option<(O, Span)> {
        self.look_at(self.pos, p)
    }

    /// Run a token parser at the cursor and move past what it matched.
    fn eat<O>(&mut self, p: impl FnMut(&'a str) -> IResult<&'a str, O>) -> Option<(O, Span)> {
        let found = self.look(p);
        if let Some((_, span)) = &found {
            self.pos = span.end;
        }
        found
    }

    fn skip_ws(&mut self) {
        self.eat(ws);
    }

    /// Whether whitespace directly precedes the cursor.
    fn after_ws(&self) -> bool {
        self.src[..self.pos].chars().next_back().is_some_and(is_ws)
    }

    /// The span of the single character at the cursor (empty at the end).
    fn char_span(&self) -> Span {
        Span::new(self.pos, self.pos + self.peek().map_or(0, char::len_utf8))
    }

    /// The token at byte `at` and a description for "found ..." messages.
    fn token_at(&self, at: usize) -> (Span, String) {
        let rest = &self.src[at..];
        let Some(c) = rest.chars().next() else {
            return (Span::point(at), "the end of the query".to_string());
        };
        let len_of = |r: &str| rest.len() - r.len();
        if let Ok((r, name)) = qname(rest) {
            return (Span::new(at, at + len_of(r)), format!("`{name}`"));
        }
        if let Ok((r, n)) = number(rest) {
            return (Span::new(at, at + len_of(r)), format!("the number `{n}`"));
        }
        if c == '"' || c == '\'' {
            return match string_lit(rest) {
                Ok((r, _)) => {
                    let len = len_of(r);
                    (
                        Span::new(at, at + len),
                        format!("the string `{}`", &rest[..len]),
                    )
                }
                Err(_) => (
                    Span::new(at, self.src.len()),
                    "an unterminated string".to_string(),
                ),
            };
        }
        if c == '$' || c == '@' {
            if let Ok((r, _)) = qname(rest[1..].trim_start_matches(is_ws)) {
                let len = len_of(r);
                return (Span::new(at, at + len), format!("`{}`", &rest[..len]));
            }
        }
        for two in ["//", "::", "!=", "<=", ">=", "..", "||"] {
            if rest.starts_with(two) {
                return (Span::new(at, at + 2), format!("`{two}`"));
            }
        }
        (Span::new(at, at + c.len_utf8()), format!("`{c}`"))
    }

    fn token(&self) -> (Span, String) {
        self.token_at(self.pos)
    }

    // ----- query and steps ---------------------------------------------

    fn query(&mut self) -> PResult<Query> {
        self.skip_ws();
        let start = self.pos;
        self.query_start = start;
        if self.peek().is_none() {
            return Err(
                SyntaxError::new(K::EmptyQuery, Span::point(start), "empty query")
                    .help("write a path such as `/a/b` or `//b`"),
            );
        }
        let Some((axis, sep)) = self.eat(axis_sep) else {
            return Err(self.not_absolute());
        };
        let steps = self.steps(start, Ctx::Top, axis, Some(sep))?;
        self.skip_ws();
        if self.peek().is_some() {
            return Err(self.unexpected(Ctx::Top));
        }
        let end = steps.last().map_or(start, |s| s.span.end);
        Ok(Query {
            steps,
            span: Span::new(start, end),
        })
    }

    /// Steps joined by `/` and `//`. The first step's axis (and the span of
    /// its separator, if one was written) has already been read.
    fn steps(
        &mut self,
        path_start: usize,
        ctx: Ctx,
        mut axis: Axis,
        mut sep: Option<Span>,
    ) -> PResult<Vec<Step>> {
        let mut steps: Vec<Step> = Vec::new();
        loop {
            let prev_end = steps.last().map(|s| s.span.end);
            steps.push(self.step(axis, sep, path_start, prev_end, ctx)?);
            let save = self.pos;
            self.skip_ws();
            match self.eat(axis_sep) {
                Some((a, s)) => {
                    axis = a;
                    sep = Some(s);
                }
                None => {
                    self.pos = save;
                    return Ok(steps);
                }
            }
        }
    }

    /// One location step: a name test and its predicates.
    fn step(
        &mut self,
        axis: Axis,
        sep: Option<Span>,
        path_start: usize,
        prev_end: Option<usize>,
        ctx: Ctx,
    ) -> PResult<Step> {
        self.skip_ws();
        let start = self.pos;
        let test = match self.peek() {
            Some('*') => {
                self.pos += 1;
                NameTest::Any
            }
            Some(c) if is_name_start(c) => self.name_test(path_start, prev_end, ctx)?,
            _ => return Err(self.bad_step(axis, sep, path_start, prev_end, ctx)),
        };
        let test_end = self.pos;
        let mut predicates = Vec::new();
        loop {
            let save = self.pos;
            self.skip_ws();
            if self.peek() == Some('[') {
                predicates.push(self.predicate()?);
            } else {
                self.pos = save;
                break;
            }
        }
        let end = predicates
            .last()
            .map_or(test_end, |p: &Predicate| p.span.end);
        Ok(Step {
            axis,
            test,
            predicates,
            span: Span::new(start, end),
        })
    }

    /// A name in step position: an element name, or one of the things
    /// that look like one (`child::`, `text()`, `count(`, `p:*`).
    fn name_test(
        &mut self,
        path_start: usize,
        prev_end: Option<usize>,
        ctx: Ctx,
    ) -> PResult<NameTest> {
        let start = self.pos;
        if let Some((text, _)) = self.eat(prefix_wildcard) {
            let prefix = text
                .strip_suffix(":*")
                .expect("prefix_wildcard ends with :*");
            return Ok(NameTest::PrefixAny(prefix.to_string()));
        }
        let Some((name, span)) = self.eat(qname) else {
            return Err(self.bad_step(Axis::Child, None, path_start, prev_end, ctx));
        };
        if let Some(err) = self.axis_or_call(name, span) {
            return Err(match err {
                NameUse::Text(call) => self.text_step(start, call.end, path_start, prev_end, ctx),
                NameUse::Error(e) => e,
            });
        }
        Ok(NameTest::Name(name.to_string()))
    }

    /// If the name just read at `span` is an axis (`name::`) or a call
    /// (`name(`), the error for it. `text(` is left to the caller.
    fn axis_or_call(&self, name: &str, span: Span) -> Option<NameUse> {
        if self.src[span.end..].starts_with("::") {
            let after = span.end + 2;
            let test = match self.look_at(after, qname) {
                Some((n, _)) => n,
                None if self.src[after..].starts_with('*') => "*",
                None => "b",
            };
            let span = Span::new(span.start, after);
            return Some(NameUse::Error(axis_error(name, test, span)));
        }
        let (_, paren) = self.look_at(span.end, open_paren)?;
        let call = Span::new(span.start, paren.end);
        Some(match name {
            "text" => NameUse::Text(match self.look_at(paren.end - 1, empty_args) {
                Some((_, args)) => Span::new(span.start, args.end),
                None => call,
            }),
            _ => NameUse::Error(self.call_error(name, call)),
        })
    }

    /// Error for `name(` anywhere except `text()` and `position()` in a
    /// predicate.
    fn call_error(&self, name: &str, call: Span) -> SyntaxError {
        let span = match self.look_at(call.end - 1, empty_args) {
            Some((_, args)) => Span::new(call.start, args.end),
            None => call,
        };
        match name {
            "node" | "comment" | "processing-instruction" => {
                let help = if name == "node" {
                    "the engine only matches elements: use `*` for any element"
                } else {
                    "the engine only matches elements"
                };
                SyntaxError::new(K::NodeTypeTest, span, format!("`{name}()` tests are not supported"))
                    .help(help)
            }
            "not" => SyntaxError::new(K::Not, span, "`not()` is not supported").help(
                "negation cannot be decided while streaming; to exclude a value, compare with `!=` \
                 (`@a!=\"x\"` also requires `@a` to exist)",
            ),
            "last" => SyntaxError::new(K::FunctionCall, span, "`last()` is not supported").help(
                "a streaming engine cannot know which sibling is last; use `[N]` or `position() OP N`",
            ),
            "position" => SyntaxError::new(
                K::FunctionCall,
                span,
                "`position()` can only be used inside a predicate, compared to a number",
            )
            .help("write `a[position()=2]` or `a[2]`"),
            "count" => SyntaxError::new(K::FunctionCall, span, "`count()` is not supported")
                .help("to require a child element, use a path predicate: `a[b]`"),
            _ if FUNCTIONS.contains(&name) => SyntaxError::new(
                K::FunctionCall,
                span,
                format!("the function `{name}()` is not supported"),
            )
            .help(COMPARISON_HELP),
            _ => SyntaxError::new(
                K::FunctionCall,
                call,
                format!("`{name}(` is a function call; function calls are not supported"),
            )
            .help("an element name cannot be followed by `(`"),
        }
    }

    /// `/a/text()` or `[b/text()]`: suggest the predicate form.
    fn text_step(
        &self,
        start: usize,
        end: usize,
        path_start: usize,
        prev_end: Option<usize>,
        ctx: Ctx,
    ) -> SyntaxError {
        let cond = format!("text(){}", self.comparison_suffix(end).unwrap_or_default());
        let err = SyntaxError::new(
            K::TextStep,
            Span::new(start, end),
            "`text()` cannot be a step: the engine selects elements, not text nodes",
        );
        match prev_end {
            Some(p) => err.help(format!(
                "test the text in a predicate instead: `{}[{cond}]`",
                &self.src[path_start..p]
            )),
            None if ctx == Ctx::Top => err.help(format!(
                "to test the text of any element, write `//*[{cond}]`"
            )),
            None => err.help(format!("write `{cond}` without `./`")),
        }
    }

    /// ` OP literal` written after byte `at`, as `OPliteral`, if present.
    fn comparison_suffix(&self, at: usize) -> Option<String> {
        let (_, w) = self.look_at(at, ws)?;
        let (op, o) = self.look_at(w.end, cmp_op)?;
        let (_, w2) = self.look_at(o.end, ws)?;
        let lit = self.literal_text_at(w2.end)?;
        Some(format!("{}{}", op.as_str(), lit))
    }

    /// The source text of a literal starting at `at`, if one does.
    fn literal_text_at(&self, at: usize) -> Option<&'a str> {
        if let Some((_, s)) = self.look_at(at, string_lit) {
            return Some(&self.src[s.start..s.end]);
        }
        let num_at = if self.src[at..].starts_with('-') {
            at + 1
        } else {
            at
        };
        let (_, n) = self.look_at(num_at, number)?;
        Some(&self.src[at..n.end])
    }

    /// The error for whatever is at the cursor where a step should be.
    fn bad_step(
        &self,
        axis: Axis,
        sep: Option<Span>,
        path_start: usize,
        prev_end: Option<usize>,
        ctx: Ctx,
    ) -> SyntaxError {
        let sep_text = match axis {
            Axis::Child => "/",
            Axis::Descendant => "//",
        };
        let sep_span = sep.unwrap_or(Span::point(self.pos));
        let c = self.peek();
        if matches!(c, None | Some(']') | Some(')')) {
            return trailing_slash(axis, sep_span, prev_end.is_none() && ctx == Ctx::Top);
        }
        let (span, found) = self.token();
        let expected = format!("expected an element name or `*` after `{sep_text}`, found {found}");
        match c {
            Some('.') if self.starts("..") => parent_step(span),
            Some('.') if !self.peek_second().is_some_and(|d| d.is_ascii_digit()) => {
                SyntaxError::new(K::SelfStep, span, "`.` (the current node) is not supported as a step")
                    .help(format!(
                        "remove the `{sep_text}.`; `.` may only start a predicate path (`[./b]`, `[.//b]`)"
                    ))
            }
            Some('@') => self.attribute_step(path_start, prev_end, ctx),
            Some('/') => {
                let spaced = self.after_ws();
                let err = SyntaxError::new(K::ExpectedStep, span, expected);
                if spaced && axis == Axis::Child {
                    err.help("`//` is written without a space between the slashes")
                } else {
                    err.help("`//` already skips any number of levels; `///` has an empty step")
                }
            }
            Some('[') => SyntaxError::new(K::ExpectedStep, span, expected)
                .help(format!("a predicate filters a step: write `{sep_text}*[…]` to filter any element")),
            Some(d) if d.is_ascii_digit() || d == '.' => SyntaxError::new(K::ExpectedStep, span, expected)
                .help("a position goes in a predicate after the step: `a[2]`"),
            Some('$') => variable(span),
            Some('"') | Some('\'') if self.look(string_lit).is_none() => self.unterminated_string(),
            Some(ch) if is_bad_char(ch) => bad_character(ch, span),
            Some('(') => SyntaxError::new(K::ExpectedStep, span, expected)
                .help("parenthesised expressions are not supported"),
            _ => SyntaxError::new(K::ExpectedStep, span, expected),
        }
    }

    /// `/a/@b`: suggest `/a[@b]`.
    fn attribute_step(&self, path_start: usize, prev_end: Option<usize>, ctx: Ctx) -> SyntaxError {
        let start = self.pos;
        let mut end = start + 1;
        let mut attr = "@".to_string();
        if let Some((_, w)) = self.look_at(end, ws) {
            if self.src[w.end..].starts_with('*') {
                end = w.end + 1;
                attr.push('*');
            } else if let Some((name, n)) = self.look_at(w.end, qname) {
                end = n.end;
                attr.push_str(name);
            }
        }
        let cond = match attr.as_str() {
            "@" | "@*" => "@name".to_string(),
            _ => format!("{attr}{}", self.comparison_suffix(end).unwrap_or_default()),
        };
        let err = SyntaxError::new(
            K::AttributeStep,
            Span::new(start, end),
            format!("`{attr}` cannot be a step: the engine selects elements, not attributes"),
        );
        match prev_end {
            Some(p) => err.help(format!(
                "test the attribute in a predicate instead: `{}[{cond}]`",
                &self.src[path_start..p]
            )),
            None if ctx == Ctx::Top => err.help(format!(
                "to match elements that have it, write `//*[{cond}]`"
            )),
            None => err.help(format!("write `{cond}` without `./`")),
        }
    }

    /// The query does not start with `/`.
    fn not_absolute(&self) -> SyntaxError {
        let (span, found) = self.token();
        let Some(c) = self.peek() else {
            return SyntaxError::new(K::EmptyQuery, span, "empty query");
        };
        if is_name_start(c) {
            if let Some((name, nspan)) = self.look(qname) {
                match self.axis_or_call(name, nspan) {
                    Some(NameUse::Error(e)) => return e,
                    Some(NameUse::Text(call)) => {
                        return self.text_step(nspan.start, call.end, self.pos, None, Ctx::Top)
                    }
                    None => {}
                }
            }
        }
        if self.starts("..") {
            return parent_step(span);
        }
        if is_name_start(c) || matches!(c, '*' | '.' | '@') {
            let rel = self.rest().trim_end();
            let body = rel
                .strip_prefix(".//")
                .or_else(|| rel.strip_prefix("./"))
                .unwrap_or(rel);
            let help = match body.chars().next() {
                Some(b) if is_name_start(b) || b == '*' => format!(
                    "write `/{body}` to start at the root, or `//{body}` to match anywhere"
                ),
                Some('@') => format!(
                    "attributes are tested in predicates: `//*[{body}]` matches elements that have it"
                ),
                _ => "write `/a/b` to start at the root, or `//a/b` to match anywhere".to_string(),
            };
            let span = if c == '.' {
                Span::new(span.start, span.start + 1)
            } else {
                span
            };
            return SyntaxError::new(
                K::RelativeQuery,
                span,
                "relative query: a query must start with `/` or `//`",
            )
            .help(help);
        }
        match c {
            '$' => variable(span),
            ']' | ')' => unmatched_close(c, span),
            '"' | '\'' if self.look(string_lit).is_none() => self.unterminated_string(),
            _ if is_bad_char(c) => bad_character(c, span),
            '(' => SyntaxError::new(
                K::UnexpectedToken,
                span,
                format!("a query must start with `/` or `//`, found {found}"),
            )
            .help("parenthesised expressions are not supported; write the path alone"),
            _ => SyntaxError::new(
                K::UnexpectedToken,
                span,
                format!("a query must start with `/` or `//`, found {found}"),
            ),
        }
    }

    // ----- predicates ---------------------------------------------------

    fn enter(&mut self, c: char) -> PResult<()> {
        if self.open.len() >= MAX_NESTING {
            return Err(SyntaxError::new(
                K::NestingTooDeep,
                self.char_span(),
                format!("predicates and parentheses nested more than {MAX_NESTING} deep"),
            ));
        }
        self.open.push((c, self.pos));
        self.pos += 1;
        Ok(())
    }

    fn predicate(&mut self) -> PResult<Predicate> {
        let start = self.pos;
        self.enter('[')?;
        self.skip_ws();
        if self.peek() == Some(']') {
            return Err(SyntaxError::new(
                K::EmptyPredicate,
                Span::new(start, self.pos + 1),
                "empty predicate `[]`",
            )
            .help(
                "write a condition such as `[b]`, `[@a=\"1\"]` or `[2]`, or remove the brackets",
            ));
        }
        let atoms = self.and_expr("`[`")?;
        self.skip_ws();
        if self.peek() != Some(']') {
            return Err(self.unexpected(Ctx::Pred));
        }
        self.pos += 1;
        self.open.pop();
        let span = Span::new(start, self.pos);
        let kind = match atoms.as_slice() {
            [Atom::Number(n, _)] => PredicateKind::Index(*n),
            _ => {
                let mut exprs = Vec::with_capacity(atoms.len());
                for atom in atoms {
                    match atom {
                        Atom::Expr(e) => exprs.push(e),
                        Atom::Number(_, s) => return Err(self.number_in_and(s)),
                    }
                }
                PredicateKind::And(exprs)
            }
        };
        Ok(Predicate { kind, span })
    }

    /// `atom (and atom)*`, parenthesised groups flattened. `opener` names
    /// the token before the first atom, for messages.
    fn and_expr(&mut self, opener: &str) -> PResult<Vec<Atom>> {
        let mut atoms = Vec::new();
        let mut after = opener;
        loop {
            self.atom(&mut atoms, after)?;
            let number = atoms.iter().find_map(|a| match a {
                Atom::Number(_, s) => Some(*s),
                Atom::Expr(_) => None,
            });
            if let Some(s) = number.filter(|_| atoms.len() > 1) {
                return Err(self.number_in_and(s));
            }
            let save = self.pos;
            self.skip_ws();
            if self.eat(keyword("and")).is_some() {
                if let Some(s) = number {
                    return Err(self.number_in_and(s));
                }
                after = "`and`";
                continue;
            }
            self.pos = save;
            return Ok(atoms);
        }
    }

    fn number_in_and(&self, span: Span) -> SyntaxError {
        let n = self.text(span);
        SyntaxError::new(K::NumberInAnd, span, "a number cannot be combined with other conditions")
            .help(format!(
                "for a position, write `[{n}]` as a predicate of its own, or `position()={n}` inside the `and`"
            ))
    }

    fn atom(&mut self, atoms: &mut Vec<Atom>, after: &str) -> PResult<()> {
        self.skip_ws();
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.unclosed());
        };
        let (span, found) = self.token();
        match c {
            ']' | ')' => {
                let err = SyntaxError::new(
                    K::ExpectedCondition,
                    span,
                    format!("expected a condition after {after}, found {found}"),
                );
                return Err(if after == "`and`" {
                    err.help("remove the `and` or add a condition after it")
                } else {
                    err.help("remove the empty parentheses")
                });
            }
            '(' => {
                self.enter('(')?;
                let inner = self.and_expr("`(`")?;
                self.skip_ws();
                if self.peek() != Some(')') {
                    return Err(self.unexpected(Ctx::Paren));
                }
                self.pos += 1;
                self.open.pop();
                atoms.extend(inner);
            }
            '@' => {
                let (name, _) = self.attr_name()?;
                let cmp = self.opt_comparison()?;
                let kind = ExprKind::Attr { name, cmp };
                atoms.push(Atom::Expr(Expr {
                    kind,
                    span: Span::new(start, self.pos),
                }));
            }
            '"' | '\'' => {
                let Some((s, lspan)) = self.eat(string_lit) else {
                    return Err(self.unterminated_string());
                };
                let lit = Literal::Str(s.to_string());
                let save = self.pos;
                self.skip_ws();
                match self.eat(cmp_op) {
                    Some((op, _)) => atoms.push(Atom::Expr(self.flipped(lit, lspan, op)?)),
                    None => {
                        self.pos = save;
                        return Err(SyntaxError::new(
                            K::LiteralPredicate,
                            lspan,
                            "a string on its own is not a condition",
                        )
                        .help(format!(
                            "a non-empty string is always true; to compare the element's text, write `[text()={}]`",
                            self.text(lspan)
                        )));
                    }
                }
            }
            '.' if self.starts("..") => return Err(parent_step(span)),
            '.' if !self.peek_second().is_some_and(|d| d.is_ascii_digit()) => {
                atoms.push(Atom::Expr(self.dot_path()?));
            }
            '-' | '.' | '0'..='9' => {
                let neg = c == '-';
                if neg {
                    self.pos += 1;
                    self.skip_ws();
                }
                let Some((text, nspan)) = self.eat(number) else {
                    return Err(SyntaxError::new(
                        K::Arithmetic,
                        span,
                        "unary minus is not supported",
                    )
                    .help("`-` is only allowed in front of a number literal: `@a=-3`"));
                };
                let v = number_value(text);
                let v = if neg { -v } else { v };
                let lspan = Span::new(start, nspan.end);
                let save = self.pos;
                self.skip_ws();
                match self.eat(cmp_op) {
                    Some((op, _)) => {
                        atoms.push(Atom::Expr(self.flipped(Literal::Num(v), lspan, op)?))
                    }
                    None => {
                        self.pos = save;
                        atoms.push(Atom::Number(v, lspan));
                    }
                }
            }
            '/' => {
                return Err(SyntaxError::new(
                    K::AbsolutePathInPredicate,
                    span,
                    "absolute paths inside a predicate are not supported",
                )
                .help("start the path at the current element: `./b` for a child, `.//b` for any descendant"));
            }
            '$' => return Err(variable(span)),
            '!' if !self.starts("!=") => return Err(bad_character(c, span)),
            '*' => atoms.push(Atom::Expr(self.rel_path(start, Axis::Child, None)?)),
            _ if is_name_start(c) => atoms.push(Atom::Expr(self.name_atom()?)),
            _ if is_bad_char(c) => return Err(bad_character(c, span)),
            _ => {
                return Err(SyntaxError::new(
                    K::ExpectedCondition,
                    span,
                    format!("expected a condition after {after}, found {found}"),
                )
                .help(COMPARISON_HELP))
            }
        }
        Ok(())
    }

    /// An atom starting with a name: `text()`, `position()`, a function,
    /// an axis, or a relative path.
    fn name_atom(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let Some((name, nspan)) = self.look(qname) else {
            return Err(self.unexpected(Ctx::Pred));
        };
        if self.look(prefix_wildcard).is_none() && self.look_at(nspan.end, open_paren).is_some() {
            match name {
                "text" => {
                    self.pos = nspan.end;
                    self.empty_call("text")?;
                    let cmp = self.opt_comparison()?;
                    return Ok(Expr {
                        kind: ExprKind::Text { cmp },
                        span: Span::new(start, self.pos),
                    });
                }
                "position" => {
                    self.pos = nspan.end;
                    self.empty_call("position")?;
                    return self.position_cmp(start);
                }
                _ => {}
            }
        }
        if let Some(NameUse::Error(e)) = self.axis_or_call(name, nspan) {
            return Err(e);
        }
        self.rel_path(start, Axis::Child, None)
    }

    /// After `text` / `position`: `( )`.
    fn empty_call(&mut self, name: &str) -> PResult<()> {
        self.skip_ws();
        if self.eat(empty_args).is_some() {
            return Ok(());
        }
        self.pos += 1; // the `(`
        self.skip_ws();
        let (span, found) = self.token();
        Err(SyntaxError::new(
            K::UnexpectedToken,
            span,
            format!("`{name}()` takes no arguments, found {found}"),
        )
        .help(format!("write `{name}()`")))
    }

    /// After `position()`: `OP number`.
    fn position_cmp(&mut self, start: usize) -> PResult<Expr> {
        let call = Span::new(start, self.pos);
        let save = self.pos;
        self.skip_ws();
        let Some((op, opspan)) = self.eat(cmp_op) else {
            self.pos = save;
            return Err(SyntaxError::new(
                K::BadPositionComparison,
                call,
                "`position()` must be compared to a number",
            )
            .help("write `[position()=2]`, or just `[2]`"));
        };
        self.skip_ws();
        let (lit, lspan) = match self.peek() {
            Some('"' | '\'' | '-' | '.' | '0'..='9') => self.literal(op, opspan)?,
            _ => {
                if let Some(e) = self.foreign_call() {
                    return Err(e);
                }
                let (span, found) = self.token();
                return Err(SyntaxError::new(
                    K::BadPositionComparison,
                    span,
                    format!("`position()` can only be compared to a number, found {found}"),
                )
                .help("write `position() OP N` with a number N, e.g. `position()<=3`"));
            }
        };
        let value = self.position_value(lit, lspan, op)?;
        Ok(Expr {
            kind: ExprKind::Position { op, value },
            span: Span::new(start, self.pos),
        })
    }

    fn position_value(&self, lit: Literal, lspan: Span, op: CmpOp) -> PResult<f64> {
        match lit {
            Literal::Num(v) => Ok(v),
            Literal::Str(s) => {
                let err = SyntaxError::new(
                    K::PositionComparedToString,
                    lspan,
                    "`position()` is compared to a string",
                );
                let t = s.trim();
                Err(if number(t).is_ok_and(|(r, _)| r.is_empty()) {
                    err.help(format!(
                        "write the number without quotes: `position(){}{t}`",
                        op.as_str()
                    ))
                } else {
                    err.help("positions are numbers: `position()=2`")
                })
            }
        }
    }

    /// `@` and the attribute name; returns the name and the span of `@name`.
    fn attr_name(&mut self) -> PResult<(String, Span)> {
        let start = self.pos;
        self.pos += 1; // '@'
        self.skip_ws();
        if self.starts("*") || self.look(prefix_wildcard).is_some() {
            let end = self
                .look(prefix_wildcard)
                .map_or(self.pos + 1, |(_, s)| s.end);
            return Err(SyntaxError::new(
                K::AttributeWildcard,
                Span::new(start, end),
                format!(
                    "`{}` (any attribute) is not supported",
                    &self.src[start..end]
                ),
            )
            .help("name the attribute: `@name`"));
        }
        let Some((name, span)) = self.eat(qname) else {
            let (span, found) = self.token();
            return Err(SyntaxError::new(
                K::ExpectedAttributeName,
                span,
                format!("expected an attribute name after `@`, found {found}"),
            )
            .help("write `@name`"));
        };
        Ok((name.to_string(), Span::new(start, span.end)))
    }

    /// An optional `OP literal` after `@name` or `text()`.
    fn opt_comparison(&mut self) -> PResult<Option<Comparison>> {
        let save = self.pos;
        self.skip_ws();
        let Some((op, opspan)) = self.eat(cmp_op) else {
            self.pos = save;
            return Ok(None);
        };
        let (value, span) = self.literal(op, opspan)?;
        Ok(Some(Comparison { op, value, span }))
    }

    /// The literal after a comparison operator.
    fn literal(&mut self, op: CmpOp, opspan: Span) -> PResult<(Literal, Span)> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some('"' | '\'') => match self.eat(string_lit) {
                Some((s, span)) => Ok((Literal::Str(s.to_string()), span)),
                None => Err(self.unterminated_string()),
            },
            Some('-') => {
                self.pos += 1;
                self.skip_ws();
                match self.eat(number) {
                    Some((t, n)) => Ok((Literal::Num(-number_value(t)), Span::new(start, n.end))),
                    None => {
                        let (span, found) = self.token();
                        Err(SyntaxError::new(
                            K::ExpectedLiteral,
                            span,
                            format!("expected a number after `-`, found {found}"),
                        ))
                    }
                }
            }
            _ => match self.eat(number) {
                Some((t, n)) => Ok((Literal::Num(number_value(t)), n)),
                None => Err(self.bad_literal(op, opspan)),
            },
        }
    }

    /// Whatever is at the cursor where a literal should follow `op`.
    fn bad_literal(&self, op: CmpOp, opspan: Span) -> SyntaxError {
        let (span, found) = self.token();
        let err = SyntaxError::new(
            K::ExpectedLiteral,
            span,
            format!(
                "expected a quoted string or a number after `{}`, found {found}",
                op.as_str()
            ),
        );
        let Some(c) = self.peek() else {
            return err.help("add a value, e.g. `@a=\"x\"` or `@a=5`");
        };
        let adjacent = span.start == opspan.end;
        match c {
            '=' if adjacent && op == CmpOp::Eq => err.help("XPath compares with a single `=`"),
            '>' if adjacent && op == CmpOp::Lt => err.help("write `!=` for \"not equal\""),
            ']' | ')' => err.help("add a value, e.g. `@a=\"x\"` or `@a=5`"),
            '$' => variable(span),
            _ if is_bad_char(c) => bad_character(c, span),
            _ if is_name_start(c) => match self.foreign_call() {
                Some(e) => e,
                None => err.help("the other side of a comparison must be a literal; comparing two nodes is not supported"),
            },
            '@' | '.' | '*' => err.help(
                "the other side of a comparison must be a literal; comparing two nodes is not supported",
            ),
            _ => err,
        }
    }

    /// The error for an unsupported function call or axis at the cursor
    /// (`last()`, `concat(`, `child::`), if that is what is there;
    /// `text()` and `position()` are left to the caller.
    fn foreign_call(&self) -> Option<SyntaxError> {
        let (name, nspan) = self.look(qname)?;
        if matches!(name, "text" | "position") && !self.src[nspan.end..].starts_with("::") {
            return None;
        }
        match self.axis_or_call(name, nspan)? {
            NameUse::Error(e) => Some(e),
            NameUse::Text(_) => None,
        }
    }

    /// `literal OP ...`: the literal is on the left; flip the comparison.
    fn flipped(&mut self, lit: Literal, lspan: Span, op: CmpOp) -> PResult<Expr> {
        self.skip_ws();
        let start = lspan.start;
        let cmp = |lit: Literal| {
            Some(Comparison {
                op: op.flipped(),
                value: lit,
                span: lspan,
            })
        };
        let (span, found) = self.token();
        match self.peek() {
            Some('@') => {
                let (name, _) = self.attr_name()?;
                let kind = ExprKind::Attr { name, cmp: cmp(lit) };
                Ok(Expr { kind, span: Span::new(start, self.pos) })
            }
            Some(c) if is_name_start(c) => {
                let (name, nspan) = self.look(qname).unwrap_or(("", span));
                let called = self.look_at(nspan.end, open_paren).is_some();
                match name {
                    "text" if called => {
                        self.pos = nspan.end;
                        self.empty_call("text")?;
                        let kind = ExprKind::Text { cmp: cmp(lit) };
                        Ok(Expr { kind, span: Span::new(start, self.pos) })
                    }
                    "position" if called => {
                        self.pos = nspan.end;
                        self.empty_call("position")?;
                        let value = self.position_value(lit, lspan, op.flipped())?;
                        let kind = ExprKind::Position { op: op.flipped(), value };
                        Ok(Expr { kind, span: Span::new(start, self.pos) })
                    }
                    _ => match self.axis_or_call(name, nspan) {
                        Some(NameUse::Error(e)) => Err(e),
                        _ => Err(literal_vs_path(span)),
                    },
                }
            }
            Some('.' | '*') if !self.peek_second().is_some_and(|d| d.is_ascii_digit()) => {
                Err(literal_vs_path(span))
            }
            Some('"' | '\'' | '-' | '.' | '0'..='9') => Err(SyntaxError::new(
                K::LiteralPredicate,
                Span::new(start, self.literal_text_at(self.pos).map_or(span.end, |t| self.pos + t.len())),
                "comparing two literals is not supported",
            )
            .help("the result is the same for every element; remove the predicate or compare `@attr` or `text()`")),
            Some('$') => Err(variable(span)),
            Some(c) if is_bad_char(c) => Err(bad_character(c, span)),
            None => Err(self.unclosed()),
            _ => Err(SyntaxError::new(
                K::ExpectedCondition,
                span,
                format!("expected `@attr`, `text()` or `position()` after `{}`, found {found}", op.as_str()),
            )
            .help(COMPARISON_HELP)),
        }
    }

    /// An atom starting with `.` (not `..`, not a number): `./p`, `.//p`,
    /// or the unsupported `.` on its own.
    fn dot_path(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let dot = Span::new(start, start + 1);
        self.pos += 1;
        self.skip_ws();
        if let Some((axis, sep)) = self.eat(axis_sep) {
            return self.rel_path(start, axis, Some(sep));
        }
        if let Some((op, opspan)) = self.look(cmp_op) {
            let lit = self
                .comparison_suffix(dot.end)
                .unwrap_or_else(|| format!("{}\"…\"", op.as_str()));
            return Err(SyntaxError::new(
                K::PathComparison,
                opspan,
                "comparing `.` to a value is not supported",
            )
            .help(format!(
                "to compare the element's text, write `text(){lit}`"
            )));
        }
        Err(SyntaxError::new(
            K::SelfStep,
            dot,
            "`.` on its own is not a supported condition",
        )
        .help("`[.]` is always true: remove it; `.` may only start a path (`./b`, `.//b`)"))
    }

    /// A relative path whose first step's axis has been read (`./`, `.//`)
    /// or is implicit (child).
    fn rel_path(&mut self, start: usize, axis: Axis, sep: Option<Span>) -> PResult<Expr> {
        let steps = self.steps(start, Ctx::Pred, axis, sep)?;
        let end = steps.last().map_or(start, |s| s.span.end);
        let span = Span::new(start, end);
        let save = self.pos;
        self.skip_ws();
        if let Some((op, opspan)) = self.look(cmp_op) {
            let lit = self
                .comparison_suffix(end)
                .unwrap_or_else(|| format!("{}\"…\"", op.as_str()));
            return Err(SyntaxError::new(
                K::PathComparison,
                opspan,
                "comparing a path to a value is not supported",
            )
            .help(format!(
                "to compare the element's text, write `{}[text(){lit}]`",
                self.text(span)
            )));
        }
        self.pos = save;
        Ok(Expr {
            kind: ExprKind::Path(steps),
            span,
        })
    }

    // ----- errors at the cursor ----------------------------------------

    fn unterminated_string(&self) -> SyntaxError {
        let quote = self.peek().unwrap_or('"');
        SyntaxError::new(
            K::UnterminatedString,
            Span::new(self.pos, self.src.len()),
            "unterminated string literal",
        )
        .help(format!("close the string with `{quote}`"))
    }

    /// The query ended inside `[` or `(`.
    fn unclosed(&self) -> SyntaxError {
        match self.open.last() {
            Some(&('(', at)) => SyntaxError::new(
                K::UnclosedParen,
                Span::new(at, at + 1),
                "unclosed `(`: the query ends before its `)`",
            )
            .help("add the missing `)`"),
            Some(&(_, at)) => SyntaxError::new(
                K::UnclosedPredicate,
                Span::new(at, at + 1),
                "unclosed `[`: the query ends before its `]`",
            )
            .help("add the missing `]`"),
            None => SyntaxError::new(
                K::UnexpectedToken,
                Span::point(self.pos),
                "unexpected end of query",
            ),
        }
    }

    /// Something other than what may follow a complete step (`Top`), or a
    /// complete condition (`Pred`, `Paren`).
    fn unexpected(&self, ctx: Ctx) -> SyntaxError {
        let (span, found) = self.token();
        let Some(c) = self.peek() else {
            return self.unclosed();
        };
        if self.look(keyword("or")).is_some() {
            return SyntaxError::new(K::Or, span, "`or` is not supported")
                .help("write each alternative as its own query, one per line");
        }
        if self.look(keyword("and")).is_some() && ctx == Ctx::Top {
            return SyntaxError::new(
                K::UnexpectedToken,
                span,
                "`and` can only join conditions inside a predicate",
            )
            .help("e.g. `/a[b and c]`");
        }
        for op in ["div", "mod"] {
            if self.look(keyword(op)).is_some() {
                return arithmetic(span, op);
            }
        }
        if let Some((op, opspan)) = self.look(cmp_op) {
            return if ctx == Ctx::Top {
                let path = self.src[self.query_start..self.pos].trim_end();
                let lit = self
                    .comparison_suffix(self.pos)
                    .unwrap_or_else(|| format!("{}\"…\"", op.as_str()));
                SyntaxError::new(
                    K::PathComparison,
                    opspan,
                    "comparing a path to a value is not supported",
                )
                .help(format!(
                    "to compare the element's text, write `{path}[text(){lit}]`"
                ))
            } else {
                SyntaxError::new(
                    K::UnexpectedToken,
                    opspan,
                    format!("unexpected comparison `{}`", op.as_str()),
                )
                .help("a comparison has `@attr`, `text()` or `position()` on one side and a literal on the other; comparisons cannot be chained")
            };
        }
        match c {
            '|' => SyntaxError::new(K::Union, span, "unions (`|`) are not supported")
                .help("write each alternative as its own query, one per line"),
            '+' | '-' => arithmetic(span, &c.to_string()),
            '*' => {
                let err = arithmetic(span, "*");
                if ctx == Ctx::Top && !self.after_ws() {
                    err.help("`*` matches any element only as a whole step (`/a/*`); names cannot contain wildcards")
                } else {
                    err
                }
            }
            ']' if ctx == Ctx::Paren => self.unclosed(),
            ']' | ')' => unmatched_close(c, span),
            '[' => SyntaxError::new(K::UnexpectedToken, span, "a predicate can only follow a step")
                .help("put the predicate right after an element name: `a[…]`"),
            '/' => SyntaxError::new(K::UnexpectedToken, span, format!("unexpected {found}"))
                .help("only element steps can be followed by a path; `@a`, `text()` and parenthesised groups cannot"),
            '"' | '\'' if self.look(string_lit).is_none() => self.unterminated_string(),
            '$' => variable(span),
            ',' => SyntaxError::new(K::UnexpectedToken, span, "unexpected `,`")
                .help("join conditions with `and`"),
            _ if is_bad_char(c) || c == '!' => bad_character(c, span),
            _ => {
                let err = SyntaxError::new(
                    K::UnexpectedToken,
                    span,
                    match ctx {
                        Ctx::Top => format!("expected `/`, `//` or the end of the query, found {found}"),
                        Ctx::Pred => format!("expected `and` or `]`, found {found}"),
                        Ctx::Paren => format!("expected `and` or `)`, found {found}"),
                    },
                );
                if ctx == Ctx::Top && is_name_start(c) && self.after_ws() {
                    err.help("element names cannot contain spaces; separate steps with `/`")
                } else if ctx != Ctx::Top {
                    err.help("join conditions with `and`")
                } else {
                    err
                }
            }
        }
    }
}

/// What a name followed by `::` or `(` turned out to be.
enum NameUse {
    /// `text(`, ending where the returned span ends (`text()` if the
    /// argument list is empty).
    Text(Span),
    Error(SyntaxError),
}

fn axis_error(name: &str, test: &str, span: Span) -> SyntaxError {
    if !AXES.contains(&name) {
        return SyntaxError::new(
            K::UnsupportedAxis,
            span,
            format!("`{name}::` is not an XPath axis (and explicit axes are not supported)"),
        )
        .help("separate steps with `/` (child) or `//` (descendant)");
    }
    let help = match name {
        "child" => format!(
            "`child::` is what `/` already means: write `/{test}` instead of `/child::{test}`"
        ),
        "descendant" => format!("write `//{test}` instead of `/descendant::{test}`"),
        "descendant-or-self" => "write `//` instead of `/descendant-or-self::node()/`".into(),
        "attribute" => format!("test attributes in a predicate: `[@{test}]`"),
        "self" => "`self::` steps are not supported; remove the step".into(),
        _ => "only the downward axes `/` (child) and `//` (descendant) are supported".into(),
    };
    SyntaxError::new(
        K::UnsupportedAxis,
        span,
        format!("the `{name}::` axis is not supported"),
    )
    .help(help)
}

fn trailing_slash(axis: Axis, sep: Span, alone: bool) -> SyntaxError {
    match (axis, alone) {
        (Axis::Child, true) => SyntaxError::new(
            K::TrailingSlash,
            sep,
            "a query needs at least one step after `/`",
        )
        .help("write `/*` to match the root element of every document"),
        (Axis::Descendant, true) => SyntaxError::new(
            K::TrailingSlash,
            sep,
            "a query needs at least one step after `//`",
        )
        .help("write `//*` to match any element"),
        (Axis::Child, false) => {
            SyntaxError::new(K::TrailingSlash, sep, "a path cannot end with `/`")
                .help("remove the trailing `/`")
        }
        (Axis::Descendant, false) => {
            SyntaxError::new(K::TrailingSlash, sep, "a path cannot end with `//`")
                .help("remove it, or write `//*` to match any descendant element")
        }
    }
}

fn parent_step(span: Span) -> SyntaxError {
    SyntaxError::new(K::ParentStep, span, "the parent step `..` is not supported")
        .help("only downward paths are supported: test the child in a predicate instead (`/a[b]`, not `/a/b/..`)")
}

fn variable(span: Span) -> SyntaxError {
    SyntaxError::new(K::Variable, span, "variables are not supported")
        .help("write the value itself as a quoted string or a number")
}

fn arithmetic(span: Span, op: &str) -> SyntaxError {
    SyntaxError::new(
        K::Arithmetic,
        span,
        format!("arithmetic (`{op}`) is not supported"),
    )
    .help("compare `@attr`, `text()` or `position()` directly with a literal, e.g. `@x=3`")
}

fn unmatched_close(c: char, span: Span) -> SyntaxError {
    let opener = if c == ']' { '[' } else { '(' };
    SyntaxError::new(
        K::UnmatchedClose,
        span,
        format!("`{c}` has no matching `{opener}`"),
    )
    .help(format!("remove it or add the missing `{opener}`"))
}

fn bad_character(c: char, span: Span) -> SyntaxError {
    let err = SyntaxError::new(
        K::BadCharacter,
        span,
        format!("unexpected character `{}`", c.escape_debug()),
    );
    match c {
        '!' => err.help("write `!=` for \"not equal\"; `not()` is not supported"),
        '&' => err.help("join conditions with `and`"),
        '#' => err.help("comments must be on their own line, starting with `#`"),
        _ => err,
    }
}

fn literal_vs_path(span: Span) -> SyntaxError {
    SyntaxError::new(K::PathComparison, span, "comparing a path to a value is not supported")
        .help("to compare an element's text, put the comparison in that element's predicate: `b[text()=\"x\"]`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Query {
        match parse_query(src) {
            Ok(q) => q,
            Err(e) => panic!("{src}: {e:?}"),
        }
    }

    fn err(src: &str) -> SyntaxError {
        match parse_query(src) {
            Ok(q) => panic!("{src} parsed: {q:?}"),
            Err(mut e) => {
                assert_eq!(e.len(), 1);
                e.remove(0)
            }
        }
    }

    fn kind(src: &str) -> XPathErrorKind {
        err(src).kind
    }

    fn name(s: &str) -> NameTest {
        NameTest::Name(s.to_string())
    }

    fn exprs(p: &Predicate) -> &[Expr] {
        match &p.kind {
            PredicateKind::And(e) => e,
            PredicateKind::Index(n) => panic!("index {n}"),
        }
    }

    fn path(e: &Expr) -> &[Step] {
        match &e.kind {
            ExprKind::Path(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn simple_paths() {
        let q = parse("/a//b/*");
        let axes: Vec<_> = q.steps.iter().map(|s| s.axis).collect();
        assert_eq!(axes, [Axis::Child, Axis::Descendant, Axis::Child]);
        assert_eq!(q.steps[1].test, name("b"));
        assert_eq!(q.steps[2].test, NameTest::Any);
        assert_eq!(q.span, Span::new(0, 7));
        assert_eq!(q.steps[1].span, Span::new(4, 5));
    }

    #[test]
    fn keywords_as_element_names() {
        let q = parse("/and[and and @and]");
        assert_eq!(q.steps[0].test, name("and"));
        let e = exprs(&q.steps[0].predicates[0]);
        assert_eq!(e.len(), 2);
        assert_eq!(path(&e[0])[0].test, name("and"));
        assert_eq!(
            e[1].kind,
            ExprKind::Attr {
                name: "and".into(),
                cmp: None
            }
        );

        let q = parse("/text/position[text and position]/or/div/mod");
        assert_eq!(q.steps[0].test, name("text"));
        assert_eq!(q.steps[1].test, name("position"));
        let e = exprs(&q.steps[1].predicates[0]);
        assert_eq!(path(&e[0])[0].test, name("text"));
        assert_eq!(path(&e[1])[0].test, name("position"));
        assert_eq!(q.steps[2].test, name("or"));

        let q = parse("/a[or][div and mod][text[1]]");
        assert_eq!(
            path(&exprs(&q.steps[0].predicates[0])[0])[0].test,
            name("or")
        );
        assert_eq!(exprs(&q.steps[0].predicates[1]).len(), 2);
        let text_step = &path(&exprs(&q.steps[0].predicates[2])[0])[0];
        assert_eq!(text_step.test, name("text"));
        assert_eq!(text_step.predicates[0].kind, PredicateKind::Index(1.0));

        assert_eq!(kind("/a[b andc]"), K::UnexpectedToken);
        assert_eq!(
            parse("/a[b and(c)]").steps[0].predicates[0].span,
            Span::new(2, 12)
        );
    }

    #[test]
    fn prefixes_and_odd_names() {
        let q = parse("/a:b//x:y[@xml:lang=\"en\"]/body.content/x-y/_z/é");
        assert_eq!(q.steps[0].test, name("a:b"));
        assert_eq!(q.steps[1].test, name("x:y"));
        assert_eq!(
            exprs(&q.steps[1].predicates[0])[0].kind,
            ExprKind::Attr {
                name: "xml:lang".into(),
                cmp: Some(Comparison {
                    op: CmpOp::Eq,
                    value: Literal::Str("en".into()),
                    span: Span::new(20, 24)
                })
            }
        );
        assert_eq!(q.steps[2].test, name("body.content"));
        assert_eq!(q.steps[5].test, name("é"));
        assert_eq!(parse("/a:*").steps[0].test, NameTest::PrefixAny("a".into()));
        assert_eq!(parse("/x[p:*]").to_string(), "/x[p:*]");
        assert_eq!(kind("/a/child::b"), K::UnsupportedAxis);
        assert_eq!(kind("/a:b:c"), K::UnexpectedToken);
    }

    #[test]
    fn numbers() {
        let index = |src: &str| match &parse(src).steps[0].predicates[0].kind {
            PredicateKind::Index(n) => *n,
            other => panic!("{other:?}"),
        };
        assert_eq!(index("/a[2]"), 2.0);
        assert_eq!(index("/a[.5]"), 0.5);
        assert_eq!(index("/a[5.]"), 5.0);
        assert_eq!(index("/a[0]"), 0.0);
        assert_eq!(index("/a[ 1.5 ]"), 1.5);
        assert_eq!(index("/a[(3)]"), 3.0);
        assert_eq!(index("/a[-1]"), -1.0);
        let attr = |src: &str| match &exprs(&parse(src).steps[0].predicates[0])[0].kind {
            ExprKind::Attr { cmp: Some(c), .. } => c.value.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(attr("/a[@x=-3]"), Literal::Num(-3.0));
        assert_eq!(attr("/a[@x= - 3]"), Literal::Num(-3.0));
        assert_eq!(attr("/a[@x=.5]"), Literal::Num(0.5));
        assert_eq!(attr("/a[@x=5.]"), Literal::Num(5.0));
        assert_eq!(attr("/a[@x='5']"), Literal::Str("5".into()));
        assert_eq!(kind("/a[@x=-b]"), K::ExpectedLiteral);
        assert_eq!(kind("/a[-b]"), K::Arithmetic);
    }

    #[test]
    fn whitespace_between_tokens() {
        let a = parse("  / a [ @x = \"1\" and b ] // c [ 2 ]  ");
        let b = parse("/a[@x=\"1\" and b]//c[2]");
        assert_eq!(a.steps.len(), 2);
        assert_eq!(a.steps[0].test, b.steps[0].test);
        assert_eq!(exprs(&a.steps[0].predicates[0]).len(), 2);
        assert_eq!(a.steps[1].predicates[0].kind, PredicateKind::Index(2.0));
        assert_eq!(a.span, Span::new(2, 35));
        parse("/a[\tposition ( ) <= 3 and text ( ) != 'x']");
        parse("/a[. / b][. // c]");
        assert_eq!(kind("/ /a"), K::ExpectedStep);
        assert_eq!(
            err("/a/ /b").help.as_deref(),
            Some("`//` is written without a space between the slashes")
        );
        assert_eq!(kind("/a b"), K::UnexpectedToken);
    }

    #[test]
    fn nested_predicates() {
        let q = parse("/a[b[c/d][@e=\"1\"]]/f");
        assert_eq!(q.steps.len(), 2);
        let b = &path(&exprs(&q.steps[0].predicates[0])[0])[0];
        assert_eq!(b.test, name("b"));
        assert_eq!(b.predicates.len(), 2);
        let cd = path(&exprs(&b.predicates[0])[0]);
        assert_eq!(
            cd.iter().map(|s| s.test.clone()).collect::<Vec<_>>(),
            [name("c"), name("d")]
        );
        assert_eq!(b.span, Span::new(3, 17));
        assert_eq!(q.steps[1].test, name("f"));
    }

    #[test]
    fn relative_paths_in_predicates() {
        let q = parse("/a[./b][.//c/d][e//f]");
        let p = &q.steps[0].predicates;
        assert_eq!(path(&exprs(&p[0])[0])[0].axis, Axis::Child);
        assert_eq!(exprs(&p[0])[0].span, Span::new(3, 6));
        let cd = path(&exprs(&p[1])[0]);
        assert_eq!((cd[0].axis, cd[1].axis), (Axis::Descendant, Axis::Child));
        let ef = path(&exprs(&p[2])[0]);
        assert_eq!((ef[0].axis, ef[1].axis), (Axis::Child, Axis::Descendant));
    }

    #[test]
    fn parentheses_flatten() {
        let q = parse("/a[(b and (c)) and @d]");
        assert_eq!(exprs(&q.steps[0].predicates[0]).len(), 3);
        assert_eq!(kind("/a[(b]"), K::UnclosedParen);
        assert_eq!(kind("/a[(b"), K::UnclosedParen);
        assert_eq!(kind("/a[b)]"), K::UnmatchedClose);
        assert_eq!(kind("/a[()]"), K::ExpectedCondition);
    }

    #[test]
    fn position_both_ways() {
        let pos = |src: &str| match &exprs(&parse(src).steps[0].predicates[0])[0].kind {
            ExprKind::Position { op, value } => (*op, *value),
            other => panic!("{other:?}"),
        };
        assert_eq!(pos("/a[position()>2]"), (CmpOp::Gt, 2.0));
        assert_eq!(pos("/a[2<position()]"), (CmpOp::Gt, 2.0));
        assert_eq!(pos("/a[2 >= position()]"), (CmpOp::Le, 2.0));
        assert_eq!(pos("/a[position()!=-1]"), (CmpOp::Ne, -1.0));
        assert_eq!(kind("/a[position()=\"2\"]"), K::PositionComparedToString);
        assert_eq!(kind("/a[\"2\"=position()]"), K::PositionComparedToString);
        assert_eq!(kind("/a[position()]"), K::BadPositionComparison);
        assert_eq!(kind("/a[position()=@x]"), K::BadPositionComparison);
        assert_eq!(kind("/a[position(1)=1]"), K::UnexpectedToken);
    }

    #[test]
    fn flipped_value_comparisons() {
        let q = parse("/a[\"x\" != @b][5 > text()]");
        let e = &exprs(&q.steps[0].predicates[0])[0];
        assert_eq!(
            e.kind,
            ExprKind::Attr {
                name: "b".into(),
                cmp: Some(Comparison {
                    op: CmpOp::Ne,
                    value: Literal::Str("x".into()),
                    span: Span::new(3, 6)
                })
            }
        );
        let q = parse("/a[5 > text()]");
        let ExprKind::Text { cmp: Some(c) } = &exprs(&q.steps[0].predicates[0])[0].kind else {
            panic!()
        };
        assert_eq!((c.op, &c.value), (CmpOp::Lt, &Literal::Num(5.0)));
        assert_eq!(kind("/a[1=1]"), K::LiteralPredicate);
        assert_eq!(kind("/a[\"x\"]"), K::LiteralPredicate);
        assert_eq!(kind("/a[1=b]"), K::PathComparison);
    }

    #[test]
    fn spans_point_at_the_problem() {
        let e = err("/a/b[@c=]");
        assert_eq!((e.kind, e.span), (K::ExpectedLiteral, Span::new(8, 9)));
        let e = err("/a/b[c = \"x\"]");
        assert_eq!((e.kind, e.span), (K::PathComparison, Span::new(7, 8)));
        assert_eq!(
            e.help.as_deref(),
            Some("to compare the element's text, write `c[text()=\"x\"]`")
        );
        let e = err("/a/@b");
        assert_eq!((e.kind, e.span), (K::AttributeStep, Span::new(3, 5)));
        assert_eq!(
            e.help.as_deref(),
            Some("test the attribute in a predicate instead: `/a[@b]`")
        );
        let e = err("/a[x]/text()=\"v\"");
        assert_eq!((e.kind, e.span), (K::TextStep, Span::new(6, 12)));
        assert_eq!(
            e.help.as_deref(),
            Some("test the text in a predicate instead: `/a[x][text()=\"v\"]`")
        );
        let e = err("/a[b and contains(., 'x')]");
        assert_eq!((e.kind, e.span), (K::FunctionCall, Span::new(9, 18)));
        let e = err("/a[b");
        assert_eq!((e.kind, e.span), (K::UnclosedPredicate, Span::new(2, 3)));
        let e = err("a/b");
        assert_eq!((e.kind, e.span), (K::RelativeQuery, Span::new(0, 1)));
        assert_eq!(
            e.help.as_deref(),
            Some("write `/a/b` to start at the root, or `//a/b` to match anywhere")
        );
        assert_eq!(
            err("./a").help.as_deref(),
            Some("write `/a` to start at the root, or `//a` to match anywhere")
        );
    }

    #[test]
    fn unsupported_constructs_have_specific_errors() {
        let cases = [
            ("/a/descendant::b", K::UnsupportedAxis),
            ("/a[ancestor::b]", K::UnsupportedAxis),
            ("following-sibling::b", K::UnsupportedAxis),
            ("/a/..", K::ParentStep),
            ("/a[..]", K::ParentStep),
            ("/a/.", K::SelfStep),
            ("/a[./.]", K::SelfStep),
            ("/a[.]", K::SelfStep),
            ("//@b", K::AttributeStep),
            ("/a[b/@c]", K::AttributeStep),
            ("/a/text()", K::TextStep),
            ("/a/node()", K::NodeTypeTest),
            ("/a[comment()]", K::NodeTypeTest),
            ("/a | /b", K::Union),
            ("/a[b or c]", K::Or),
            ("/a or /b", K::Or),
            ("/a[not(b)]", K::Not),
            ("/a[last()]", K::FunctionCall),
            ("/a[count(b)=1]", K::FunctionCall),
            ("/a[starts-with(@x,'y')]", K::FunctionCall),
            ("/a[. = 'x']", K::PathComparison),
            ("/a/b = 'x'", K::PathComparison),
            ("/a[@x + 1 = 2]", K::Arithmetic),
            ("/a[@x=1 div 2]", K::Arithmetic),
            ("/a*", K::Arithmetic),
            ("/a[@x=$v]", K::Variable),
            ("/a[@*]", K::AttributeWildcard),
            ("/a[@p:*]", K::AttributeWildcard),
            ("/a[2 and @x]", K::NumberInAnd),
            ("/a[@x and 2]", K::NumberInAnd),
            ("/a[(2) and @x]", K::NumberInAnd),
            ("/a[]", K::EmptyPredicate),
            ("/a[ ]", K::EmptyPredicate),
            ("/a[@x=\"1]", K::UnterminatedString),
            ("/a%", K::BadCharacter),
            ("/a[b &amp; c]", K::BadCharacter),
            ("/a[b and ]", K::ExpectedCondition),
            ("/a[@]", K::ExpectedAttributeName),
            ("/a[/b]", K::AbsolutePathInPredicate),
            ("/a[//b]", K::AbsolutePathInPredicate),
            ("/a/", K::TrailingSlash),
            ("/a//", K::TrailingSlash),
            ("/", K::TrailingSlash),
            ("//", K::TrailingSlash),
            ("/a[b/]", K::TrailingSlash),
            ("///a", K::ExpectedStep),
            ("/[b]", K::ExpectedStep),
            ("/a/1", K::ExpectedStep),
            ("/a]", K::UnmatchedClose),
            ("*", K::RelativeQuery),
            ("", K::EmptyQuery),
            ("  ", K::EmptyQuery),
        ];
        for (src, want) in cases {
            assert_eq!(kind(src), want, "{src}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!("/a{}", "[b".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING));
        assert!(parse_query(&ok).is_ok());
        let deep = format!(
            "/a{}",
            "[b".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1)
        );
        assert_eq!(kind(&deep), K::NestingTooDeep);
        let parens = format!("/a[{}b{}]", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(kind(&parens), K::NestingTooDeep);
    }

    #[test]
    fn a_file_parsed_in_chunks_equals_one_pass() {
        // Over 1 MB: chunks of at least PARSE_CHUNK_MIN, cut wherever the
        // lines fall (queries, errors, declarations, comments,
        // blank and CRLF lines).
        let kinds = [
            "/a/b[@x = \"1\"]",
            "  //c/*",
            "/d[",
            "# comment",
            "",
            "declare namespace p = \"urn:p\";",
            "/p:e\r",
            "declare namespace = \"bad\";",
            "/f/..",
        ];
        let mut text = String::from("\u{feff}");
        for i in 0..100_000 {
            text.push_str(kinds[i % kinds.len()]);
            text.push_str(if i % 7 == 0 { "/g" } else { "" });
            text.push('\n');
        }
        assert!(text.len() > 4 * PARSE_CHUNK_MIN);
        let one = parse_query_file_on("q.txt", &text, 1);
        assert!(one.queries.len() > 30_000 && one.diagnostics.len() > 20_000);
        assert!(one.namespaces.len() > 9_000);
        for threads in [2, 3, 5, 8] {
            let chunked = parse_query_file_on("q.txt", &text, threads);
            assert!(chunked == one, "{threads} threads differ from one");
        }
        // The file did go in chunks: at least four of PARSE_CHUNK_MIN.
        assert!(line_chunks(&text, 8).len() >= 4);
    }

    #[test]
    fn file_ids_survive_errors_and_spans_include_indent() {
        let text = "# header\n/a\n\n  /b[\n\t//c\r\n   # note\n/d/..\n";
        let QueryFile {
            queries,
            diagnostics: diags,
            ..
        } = parse_query_file("q.txt", text);
        let ids: Vec<_> = queries
            .iter()
            .map(|q| (q.id, q.line, q.text.as_str()))
            .collect();
        assert_eq!(ids, [(0, 2, "/a"), (2, 5, "\t//c")]);
        assert_eq!(queries[1].ast.span, Span::new(0, 3));
        assert_eq!(diags.len(), 2);
        assert_eq!(
            (diags[0].line, diags[0].col(), diags[0].code),
            (4, 5, "E0124")
        );
        assert_eq!(
            (diags[1].line, diags[1].col(), diags[1].code),
            (7, 4, "E0106")
        );
        let f = parse_query_file("bom.txt", "\u{feff}/a\n");
        assert_eq!(
            (
                f.queries.len(),
                f.diagnostics.len(),
                f.queries[0].text.as_str()
            ),
            (1, 0, "/a")
        );
    }

    #[test]
    fn declarations_take_no_id_and_keep_their_line() {
        let text = "/a\n  declare namespace p = \"urn:p\";\n/p:b\ndeclare namespace q\n/c\n";
        let f = parse_query_file("q.txt", text);
        let ids: Vec<_> = f.queries.iter().map(|q| (q.id, q.line)).collect();
        assert_eq!(ids, [(0, 1), (1, 3), (2, 5)]);
        assert_eq!(f.namespaces.len(), 1);
        let d = &f.namespaces[0];
        assert_eq!(
            (d.prefix.as_str(), d.uri.as_str(), d.line),
            ("p", "urn:p", 2)
        );
        assert_eq!(
            (d.prefix_span, d.uri_span),
            (Span::new(20, 21), Span::new(24, 31))
        );
        assert_eq!(f.diagnostics.len(), 1);
        let e = &f.diagnostics[0];
        assert_eq!((e.line, e.col(), e.code), (4, 20, "E0136"));
    }

    #[test]
    fn all_errors_are_renderable() {
        let e = err("/a[@x=\"é");
        let d = e.to_diagnostic("f", 1, "/a[@x=\"é", 0);
        let r = d.render();
        assert!(
            r.starts_with("f:1:7: error[E0127]: unterminated string literal\n"),
            "{r}"
        );
        assert!(r.contains(&format!("  | {}^^\n", " ".repeat(6))), "{r}");
    }
}
