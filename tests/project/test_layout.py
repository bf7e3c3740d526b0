"""The tests mirror the package: each test file sits in the folder of the part of ``workbench`` it checks.

``tests/browser`` holds the real-browser tests (JupyterLab in chromium), ``tests/project`` the checks of
the repository itself (README commands, layers, notebooks' metadata). Helper modules (servers, sample
tools) stay at the top of ``tests/`` where every folder imports them as ``tests.<module>``.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = TESTS.parent / "workbench"
# a folder of tests -> the part of the package it checks
FOLDERS = {
    "adapters": "adapters", "agent": "agent", "cli": "cli.py", "core": None, "evals": "evals",
    "executor": "executor", "jupyter": "jupyter", "log": "log", "mcp": "mcp", "models": "models",
    "formats": "formats", "testing": "testing", "browser": "jupyter", "project": None,
}


def test_no_test_file_is_left_at_the_top_of_tests():
    assert sorted(path.name for path in TESTS.glob("test_*.py")) == []


def test_every_folder_of_tests_is_a_known_part_of_the_package():
    folders = {path.parent.name for path in TESTS.glob("*/test_*.py")}
    assert folders <= set(FOLDERS), folders - set(FOLDERS)
    for folder in folders:
        part = FOLDERS[folder]
        if part is not None:
            assert (PACKAGE / part).exists() or (PACKAGE / f"{part}.py").exists(), (folder, part)
        assert (TESTS / folder / "__init__.py").exists(), f"tests/{folder} must be a package"


def test_the_tests_folder_itself_is_never_on_sys_path():
    # tests/mcp would shadow the MCP SDK (``import mcp``) in this process and in every Dask worker
    # or process pool it starts: helper modules are imported as ``tests.<module>`` instead
    assert str(TESTS) not in [str(Path(entry).resolve()) for entry in sys.path if entry]
