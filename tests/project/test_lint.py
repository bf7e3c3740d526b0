"""ruff's lint rules and formatting, as pyproject's ``[tool.ruff]`` sets them, hold on the code."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["workbench", "tests", "benchmarks"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args, *CHECKED], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_finds_nothing():
    done = _ruff("check", "--no-cache", "--output-format", "concise")
    assert done.returncode == 0, f"`ruff check {' '.join(CHECKED)}` found:\n{done.stdout}{done.stderr}"


def test_ruff_format_would_change_nothing():
    done = _ruff("format", "--check", "--no-cache")
    assert done.returncode == 0, (
        f"`ruff format {' '.join(CHECKED)}` would reformat these files "
        f"(run it, then commit):\n{done.stdout}{done.stderr}"
    )
