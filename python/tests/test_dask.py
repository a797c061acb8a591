"""python/examples/dask_filter.py: a LocalCluster of 2 worker processes gives
the single-process answers, in input order."""

import json
import subprocess
import sys

import qrtl

from conftest import REPO

EXAMPLE = REPO / "python" / "examples" / "dask_filter.py"


def test_two_workers_equal_one_process(nitf):
    queries = nitf / "queries" / "mixed.txt"
    docs = sorted(str(d) for d in (nitf / "docs").glob("*.xml"))
    run = subprocess.run(
        [sys.executable, EXAMPLE, queries, *docs, "--workers", "2", "--partitions", "7"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = [json.loads(line) for line in run.stdout.splitlines()]
    want = qrtl.XPathFilter.from_file(queries).filter_many(docs, jobs=1)
    assert [g["doc"] for g in got] == docs
    assert got == [{"doc": r.doc, "status": r.status, "matched": r.matched} for r in want]
    assert "100 documents" in run.stderr and "on 2 workers" in run.stderr
