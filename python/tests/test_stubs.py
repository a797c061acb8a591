"""The type stubs (qrtl/__init__.pyi) describe the module as built: mypy's
stubtest compares every name, signature and default with the runtime."""

import subprocess
import sys


def test_stubs_match_the_module():
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "qrtl"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
