"""Throughput of dask_filter.py on 1, 2 and 4 worker processes (`make bench`
writes bench/REPORT-dask.md with it): the YFilter NITF documents, repeated,
against one of its query suites. Cluster start-up is not counted."""

import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
REPEAT = int(os.environ.get("QRTL_DASK_REPEAT", "200"))


def nitf_dir() -> pathlib.Path:
    """As qrtl_xpath::workload::nitf_dir."""
    if "QRTL_NITF_DIR" in os.environ:
        return pathlib.Path(os.environ["QRTL_NITF_DIR"])
    beside = REPO.parent / "shared" / "data" / "yfilter-nitf"
    return beside if beside.is_dir() else pathlib.Path("/work/shared/data/yfilter-nitf")


def run(queries, docs, workers: int):
    """(documents, bytes, seconds) of one run."""
    cmd = [sys.executable, HERE / "dask_filter.py", queries, *docs,
           "--workers", str(workers), "--repeat", str(REPEAT)]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"(\d+) documents, (\d+) bytes, ([\d.]+) s", p.stderr)
    return int(m[1]), int(m[2]), float(m[3])


def main():
    nitf = nitf_dir()
    queries = nitf / "queries" / "mixed.txt"
    docs = sorted((nitf / "docs").glob("*.xml"))
    print("# Dask: XPath filtering on a LocalCluster of processes\n")
    print(f"`python/examples/dask_filter.py`, {queries.name} (1,000 queries), the {len(docs)} "
          f"NITF documents x {REPEAT}, {os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f} "
          "at the start); cluster start-up not counted.\n")
    print("| workers | documents | MB | seconds | documents/s | MB/s |")
    print("|--:|--:|--:|--:|--:|--:|")
    for workers in (1, 2, 4):
        n, size, seconds = run(queries, docs, workers)
        print(f"| {workers} | {n} | {size / 1e6:.1f} | {seconds:.2f} | {n / seconds:.0f} "
              f"| {size / 1e6 / seconds:.1f} |")


if __name__ == "__main__":
    main()
