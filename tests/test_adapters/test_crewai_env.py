"""The CrewAI adapter, tested in CrewAI's own environment.

CrewAI (1.7 and later) pins ``mcp<2`` (and ``pydantic<2.13``, ``openai<3``), so it cannot be installed
beside the project's ``mcp>=2.3``: pip's resolver refuses ("crewai 1.15.30 depends on mcp<2 and
>=1.30.0"). ``.ci/system-deps`` builds ``.venv-crewai`` with ``pip install -e ".[crewai]"``; this test
runs ``tests/crewai_env/crewai_adapter_checks.py`` there with pytest and requires every check to pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "crewai_env" / "crewai_adapter_checks.py"


@pytest.fixture(scope="module")
def crewai_python() -> str:
    python = os.environ.get("CREWAI_PYTHON") or str(ROOT / ".venv-crewai" / "bin" / "python")
    if not Path(python).exists():
        pytest.fail(
            f"CrewAI's environment is missing ({python}): run .ci/system-deps (it builds .venv-crewai) "
            "or set CREWAI_PYTHON"
        )
    return python


def test_the_crewai_adapter_passes_its_checks_in_crewais_environment(crewai_python):
    done = subprocess.run(
        [
            crewai_python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-o",
            "python_files=crewai_adapter_checks.py",
            str(CHECKS),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    passed = re.search(r"(\d+) passed", output)
    assert passed and int(passed.group(1)) >= 4 and "skipped" not in output, output[-2000:]
    assert sys.executable != crewai_python  # the main suite's environment is another one
