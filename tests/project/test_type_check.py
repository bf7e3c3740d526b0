"""mypy checks ``workbench/`` at the strictness pyproject's ``[tool.mypy]`` documents: no error allowed."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# a cold run (a fresh clone: no .mypy_cache) reads every dependency's stubs: minutes of CPU on a busy
# machine, past the suite's default per-test limit, which is a hang guard and not a speed target
@pytest.mark.timeout(1200)
def test_mypy_finds_no_error():
    # the files and flags come from pyproject. mypy's own incremental cache (.mypy_cache, at the root)
    # is kept: a first run checks the package and its dependencies' stubs (a minute of CPU), later ones
    # only what changed since, so the suite run on a busy machine stays within its time limit
    done = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, f"mypy found errors (run `python -m mypy` at the root):\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout
