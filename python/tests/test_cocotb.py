"""The cocotb testbench of generated projects (tb/, `make cocotb`): one
small project per engine, run in Icarus with backpressure on both streams,
the package's model as the scoreboard."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

Q = REPO / "queries"
PROJECTS = {
    "xpath": ["xpath", "compile", Q / "xpath" / "news-paths.txt"],
    "xpath-ns": ["xpath", "compile", Q / "xpath" / "atom.txt"],
    "xpath-4-bytes": ["xpath", "compile", Q / "xpath" / "news.txt", "--bytes-per-clock", "4", "--namespaces", "raw"],
    "track": ["track", "compile", Q / "track" / "patterns.txt", "--regions", Q / "track" / "regions.yaml"],
    "rice": ["rice", "compile", "--k", "3", "--width", "32", "--value-bits", "16"],
}


def make_cocotb(project: pathlib.Path, *args):
    """`make cocotb` with this interpreter's environment (cocotb, qrtl) first in PATH."""
    env = dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        ["make", "-s", "cocotb", *args], cwd=project, env=env, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def icarus():
    assert shutil.which("iverilog"), "Icarus Verilog missing: apt-get install iverilog (make deps)"


@pytest.mark.parametrize("name", PROJECTS)
def test_generated_testbench_passes(qrtl_cli, icarus, tmp_path, name):
    qrtl_cli(*PROJECTS[name], "-o", tmp_path / name)
    run = make_cocotb(tmp_path / name, "PAUSE=40")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "TESTS=1 PASS=1 FAIL=0" in run.stdout
    assert "12 %s inputs: results equal the model's" % name.split("-")[0] in run.stdout


def test_the_scoreboard_catches_a_wrong_answer(qrtl_cli, icarus, tmp_path):
    project = tmp_path / "news"
    qrtl_cli(*PROJECTS["xpath"], "-o", project)
    manifest = json.loads((project / "manifest.json").read_text())
    queries = manifest["queries"]
    queries[0]["text"], queries[1]["text"] = queries[1]["text"], queries[0]["text"]
    (project / "manifest.json").write_text(json.dumps(manifest))
    docs = sorted(str(d) for d in (Q / "xpath" / "docs").glob("*.xml"))
    run = make_cocotb(project, "COUNT=0", "INPUTS=" + " ".join(docs))
    assert run.returncode != 0
    assert "FAIL=1" in run.stdout and "AssertionError" in run.stdout
