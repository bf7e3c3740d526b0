"""mypy checks ``workbench/`` at the strictness pyproject's ``[tool.mypy]`` documents: no error allowed."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error(tmp_path):
    # the files and flags come from pyproject; a cache of this run's own keeps runs independent
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"mypy found errors (run `python -m mypy` at the root):\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout
