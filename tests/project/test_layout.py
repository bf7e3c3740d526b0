"""The tests mirror the package: each test file sits in ``tests/test_<part>/``, the folder of the part of
``workbench`` it checks (``test_`` first, so that no folder is named like a module a test server imports:
``python tests/some_server.py`` puts ``tests/`` on ``sys.path``, where a ``tests/mcp`` would hide the MCP SDK).

``tests/browser`` holds the real-browser tests (JupyterLab in chromium), ``tests/project`` the checks of
the repository itself (README commands, layers, notebooks' metadata). Helper modules (servers, sample
tools) stay at the top of ``tests/`` where every folder imports them as ``tests.<module>``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = TESTS.parent / "workbench"
# a folder of tests -> the part of the package it checks
FOLDERS = {
    "test_adapters": "adapters",
    "test_agent": "agent",
    "test_cli": "cli",
    "test_core": None,
    "test_evals": "evals",
    "test_executor": "executor",
    "test_jupyter": "jupyter",
    "test_log": "log",
    "test_mcp": "mcp",
    "test_models": "models",
    "test_formats": "formats",
    "test_testing": "testing",
    "browser": "jupyter",
    "project": None,
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


def test_no_folder_of_tests_hides_an_importable_module():
    # a script run as ``python tests/x.py`` (the MCP test servers are) has tests/ first on sys.path
    hidden = [
        path.name
        for path in TESTS.iterdir()
        if path.is_dir()
        and importlib.util.find_spec(path.name) is not None
        and path.name not in ("__pycache__", "node")
    ]
    assert hidden == []


def test_the_tests_folder_itself_is_never_on_sys_path():
    # nor in this process and every Dask worker or process pool it starts: helper modules are
    # imported as ``tests.<module>``
    assert str(TESTS) not in [str(Path(entry).resolve()) for entry in sys.path if entry]
