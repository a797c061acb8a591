"""qrtl.XPathFilter against `qrtl xpath filter` and `qrtl xpath check`."""

import pathlib
import re
import tomllib

import pytest
import qrtl

import randomdocs
from conftest import REPO


def cli_answers(qrtl_cli, queries, docs, *flags):
    """`qrtl xpath filter`'s JSON lines and its stderr notes by document."""
    p = qrtl_cli("xpath", "filter", *flags, queries, *docs)
    notes = {}
    for line in p.stderr.decode().splitlines():
        m = re.fullmatch(r"(.*):(\d+):(\d+): note: (\w+): (.*)", line)
        assert m, f"unexpected stderr line {line!r}"
        notes[m[1]] = (int(m[2]), int(m[3]), m[4], m[5])
    lines = [__import__("json").loads(s) for s in p.stdout.decode().splitlines()]
    return lines, notes


def assert_same(results, lines, notes):
    assert len(results) == len(lines)
    for r, want in zip(results, lines):
        assert (r.doc, r.status, r.matched) == (want["doc"], want["status"], want["matched"])
        note = notes.get(r.doc)
        got = None if r.reason is None else (r.line, r.col, r.status, r.reason)
        assert got == note, r.doc


@pytest.mark.parametrize("suite", ["simple_paths", "mixed"])
def test_nitf_suite_equals_cli(qrtl_cli, nitf, suite):
    queries = nitf / "queries" / f"{suite}.txt"
    docs = sorted(str(d) for d in (nitf / "docs").glob("*.xml"))
    f = qrtl.XPathFilter.from_file(queries)
    lines, notes = cli_answers(qrtl_cli, queries, docs)
    assert_same(f.filter_many(docs, jobs=4), lines, notes)


@pytest.mark.parametrize(
    "seed,options,flags",
    [
        (1, {}, []),
        (2, {"mode": "paths"}, ["--mode", "paths"]),
        (3, {"mode": "pairs"}, ["--mode", "pairs"]),
        (4, {"ordered": True}, ["--ordered"]),
        (5, {"max_depth": 4}, ["--max-depth", "4"]),
    ],
)
def test_random_set_equals_cli(qrtl_cli, tmp_path, seed, options, flags):
    qfile = tmp_path / "q.txt"
    qfile.write_text(randomdocs.queries(seed, 60))
    docs = []
    for i, doc in enumerate(randomdocs.documents(seed, 80)):
        path = tmp_path / f"d{i:03}.xml"
        path.write_bytes(doc)
        docs.append(str(path))
    lines, notes = cli_answers(qrtl_cli, qfile, docs, *flags)
    f = qrtl.XPathFilter(qfile.read_text(), **options)
    results = f.filter_many(docs, jobs=2)
    assert_same(results, lines, notes)
    statuses = {r.status for r in results}
    assert "malformed" in statuses and any(r.matched for r in results)
    if "max_depth" in options:
        assert "too_deep" in statuses


def test_filter_many_equals_filter_in_order():
    f = qrtl.XPathFilter(randomdocs.queries(7, 40))
    docs = randomdocs.documents(7, 50)
    one_by_one = [f.filter(d) for d in docs]
    assert f.filter_many(docs, jobs=1) == one_by_one
    assert f.filter_many(iter(docs), jobs=4) == one_by_one
    assert f.filter_many([], jobs=4) == []


def test_bytes_and_files_give_the_same_answer(tmp_path):
    f = qrtl.XPathFilter("/a/b\n//c\n")
    doc = b"<a><b/><c/></a>"
    (tmp_path / "d.xml").write_bytes(doc)
    by_path = f.filter(tmp_path / "d.xml")
    assert by_path.matched == f.filter(doc).matched == [0, 1]
    assert by_path.doc == str(tmp_path / "d.xml") and f.filter(doc).doc is None
    assert f.filter(bytearray(doc)).matched == [0, 1]


def test_malformed_document_reports_reason_and_position():
    r = qrtl.XPathFilter("/a\n").filter(b"<a>\n  <b></c></a>")
    assert (r.status, r.matched) == ("malformed", [0])
    assert (r.line, r.col) == (2, 8)  # the byte that shows the mismatch
    assert r.reason == "close tag does not match the open element"


def test_query_errors_carry_every_diagnostic_as_the_cli_prints_them(qrtl_cli, tmp_path):
    qfile = tmp_path / "bad.txt"
    qfile.write_text("/a\n//b[\n/c/\n/d]]\n")
    with pytest.raises(qrtl.QueryError) as e:
        qrtl.XPathFilter.from_file(qfile)
    cli = qrtl_cli("xpath", "check", qfile, check=False)
    assert cli.returncode == 1
    assert str(e.value) == cli.stderr.decode().rstrip("\n")
    where = [(d.file, d.line, d.column) for d in e.value.diagnostics]
    assert where == [(str(qfile), 2, 4), (str(qfile), 3, 3), (str(qfile), 4, 3)]
    assert all(re.fullmatch(r"E\d{4}", d.code) and d.message for d in e.value.diagnostics)
    assert isinstance(e.value, ValueError)


def test_query_text_is_named_in_diagnostics():
    with pytest.raises(qrtl.QueryError) as e:
        qrtl.XPathFilter("/a[\n")
    [d] = e.value.diagnostics
    assert (d.file, d.line, d.column) == ("<queries>", 1, 3)
    assert str(e.value).startswith("<queries>:1:3: error[")


def test_no_queries_is_a_query_error_without_diagnostics():
    with pytest.raises(qrtl.QueryError, match="no queries") as e:
        qrtl.XPathFilter("# only a comment\n")
    assert e.value.diagnostics == []


def test_unreadable_files_raise_oserror_with_the_path(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(FileNotFoundError) as e:
        qrtl.XPathFilter(missing)
    assert e.value.filename == str(missing)
    f = qrtl.XPathFilter("/a\n")
    with pytest.raises(FileNotFoundError) as e:
        f.filter_many([b"<a/>", str(missing)], jobs=2)
    assert e.value.filename == str(missing)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="mode"):
        qrtl.XPathFilter("/a\n", mode="exact")
    with pytest.raises(ValueError, match="max_depth"):
        qrtl.XPathFilter("/a\n", max_depth=0)
    with pytest.raises(ValueError, match="max_attributes"):
        qrtl.XPathFilter("/a\n", max_attributes=0)
    with pytest.raises(ValueError, match="attr_name_bytes"):
        qrtl.XPathFilter("/a\n", attr_name_bytes=2000)
    with pytest.raises(TypeError, match="bytes"):
        qrtl.XPathFilter("/a\n").filter(42)
    with pytest.raises(ValueError, match="jobs"):
        qrtl.XPathFilter("/a\n").filter_many([], jobs=0)


def test_version_is_the_workspace_version():
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert qrtl.__version__ == cargo["workspace"]["package"]["version"]


def test_module_doc_shows_the_two_minute_path():
    assert "XPathFilter" in qrtl.__doc__ and "rice_encode" in qrtl.__doc__
    assert (pathlib.Path(qrtl.__file__).parent / "py.typed").is_file()


def test_attribute_limits_are_the_clis():
    """Duplicate attributes are malformed; past the duplicate check's slots
    a document is `attr_limit`, with the limits the CLI takes."""
    f = qrtl.XPathFilter("//a\n", max_attributes=2, attr_name_bytes=4)
    dup = f.filter(b"<a x='1' x='2'/>")
    assert (dup.status, dup.reason) == ("malformed", "attribute repeated in a start tag")
    many = f.filter(b"<a x='1' y='2' z='3'/>")
    assert many.status == "attr_limit" and (many.line, many.col) == (1, 16)
    long = f.filter(b"<a abcde='1'/>")
    assert long.status == "attr_limit" and long.col == 8
    assert qrtl.XPathFilter("//a\n").filter(b"<a x='1' y='2' z='3'/>").status == "ok"


def test_namespaces_are_xpaths_and_equal_the_clis(qrtl_cli, tmp_path):
    """Names compare by namespace URI and local name; `namespaces` binds
    query prefixes as `--ns` does, `names="raw"` compares bytes as
    `--namespaces raw` does."""
    queries = tmp_path / "q.txt"
    queries.write_text("//b\n//x:b\n//x:*\n/x:a[@x:k]\n//*[@x:k]\n")
    docs = []
    for i, text in enumerate([
        b"<a><b/></a>",
        b"<a xmlns='urn:x'><b/></a>",
        b"<p:a xmlns:p='urn:x' p:k='1'><b xmlns=''/></p:a>",
        b"<a xmlns:q='urn:x'><q:b/><c q:k=''/></a>",
        b"<a><u:b/></a>",
    ]):
        d = tmp_path / f"d{i}.xml"
        d.write_bytes(text)
        docs.append(str(d))
    f = qrtl.XPathFilter.from_file(queries, namespaces={"x": "urn:x"})
    results = f.filter_many(docs)
    assert [r.matched for r in results] == [[0], [1, 2], [0, 2, 3, 4], [1, 2, 4], []]
    assert (results[4].status, results[4].reason) == ("malformed", "namespace prefix not declared")
    assert_same(results, *cli_answers(qrtl_cli, queries, docs, "--ns", "x=urn:x"))
    raw = qrtl.XPathFilter("//b\n//u:b\n", names="raw")
    assert raw.filter(docs[4]).matched == [1]
    with pytest.raises(qrtl.QueryError) as e:
        qrtl.XPathFilter("//y:b\n")
    assert "prefix `y` is not bound" in str(e.value)
    with pytest.raises(ValueError, match="namespaces: prefix `xmlns`"):
        qrtl.XPathFilter("//b\n", namespaces={"xmlns": "urn:x"})
