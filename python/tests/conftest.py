"""Shared fixtures: the `qrtl` binary the answers are compared with, the
repository's sample files and the YFilter NITF suites."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def qrtl_binary() -> pathlib.Path:
    """$QRTL_BIN, else `qrtl` in $CARGO_TARGET_DIR (or target/) release."""
    if "QRTL_BIN" in os.environ:
        return pathlib.Path(os.environ["QRTL_BIN"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "qrtl"


def nitf_dir() -> pathlib.Path:
    """As qrtl_xpath::workload::nitf_dir: $QRTL_NITF_DIR, ../shared beside
    the repository, else /work/shared."""
    if "QRTL_NITF_DIR" in os.environ:
        return pathlib.Path(os.environ["QRTL_NITF_DIR"])
    beside = REPO.parent / "shared" / "data" / "yfilter-nitf"
    return beside if beside.is_dir() else pathlib.Path("/work/shared/data/yfilter-nitf")


@pytest.fixture(scope="session")
def qrtl_cli():
    """Run the `qrtl` binary; its stdout's JSON lines."""
    binary = qrtl_binary()
    assert binary.is_file(), f"{binary} missing: run `cargo build --release` (make test does)"

    def run(*args, check=True):
        p = subprocess.run([str(binary), *map(str, args)], capture_output=True, check=False)
        if check:
            assert p.returncode == 0, p.stderr.decode()
        return p

    def lines(*args):
        out = run(*args).stdout.decode()
        return [json.loads(line) for line in out.splitlines()]

    run.json_lines = lines
    return run


@pytest.fixture(scope="session")
def nitf():
    d = nitf_dir()
    assert (d / "docs").is_dir(), f"the YFilter NITF suites are missing at {d}"
    return d
