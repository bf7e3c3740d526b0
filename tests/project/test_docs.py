"""The documentation is tested like code: the site builds with ``mkdocs build --strict`` (a broken link,
a missing page or an unresolved reference fails it), every exported name is in the API reference,
and every Python example of README.md and docs/ runs and prints what it shows."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_site import ROOT, build_site

HOOKS = ROOT / "docs" / "_hooks" / "workbench_docs.py"
PAGES = [ROOT / "README.md"] + sorted(path for path in (ROOT / "docs").glob("*.md"))


def _hooks():
    spec = importlib.util.spec_from_file_location("workbench_docs_hooks", HOOKS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("docs") / "site"
    built = build_site(site_dir)
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stdout[-3000:]}\n{built.stderr[-6000:]}"
    return site_dir


def test_the_site_builds_strictly_with_every_guide_page(site):
    for page in (
        "getting-started",
        "tools-and-schemas",
        "notebook-forms",
        "executors-and-log",
        "testing",
        "batch-and-dask",
        "mcp",
        "models-and-agents",
        "playground-guide",
        "evaluations",
        "evaluations-statistics",
        "evaluations-multi-turn",
        "adapters",
        "cli",
        "performance",
        "security",
        "architecture",
        "changelog",
        "tutorials/01_getting_started",
        "tutorials/11_multi_turn_evaluations",
    ):
        assert (site / page / "index.html").is_file(), page
    assert "Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")


def test_every_exported_name_is_in_the_api_reference(site):
    """``workbench.__all__`` and each public subpackage's ``__all__``, read from the code now: a name added
    to an ``__all__`` shows up here, rendered from its docstring or linked to where it is."""
    hooks = _hooks()
    packages = hooks.public_packages()
    assert {"workbench", "workbench.agent", "workbench.evals", "workbench.mcp", "workbench.models"} <= set(packages)
    missing = []
    for package in packages:
        html = (site / "reference" / package / "index.html").read_text(encoding="utf-8")
        ids = set(re.findall(r'id="([^"]+)"', html))
        for name, path in hooks.exported(package):
            if path not in ids and f"{package}.{name}" not in ids:
                missing.append(f"{package}.{name}")
    assert missing == []


def test_a_docstring_is_what_the_reference_shows(site):
    html = (site / "reference" / "workbench.agent" / "index.html").read_text(encoding="utf-8")
    assert 'id="workbench.agent._loop.run_agent"' in html and "until it answers without a tool call" in html
    top = (site / "reference" / "workbench" / "index.html").read_text(encoding="utf-8")
    assert 'id="workbench.types.ToolResult"' in top and "The outcome of one tool call" in top


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_python_example_runs_and_prints_what_it_shows(page, tmp_path):
    """Each page's examples run in order, in a fresh interpreter and an empty folder (they write files
    such as runs.sqlite); ``notebooks/`` is importable, as in the tutorials."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "notebooks")])}
    done = subprocess.run(
        [sys.executable, "-m", "tests.docs_examples", str(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_example_runner_checks_printed_output(tmp_path):
    """The runner itself: an example whose ``#>`` lines differ from what it prints fails, naming the line."""
    page = tmp_path / "page.md"
    page.write_text("intro\n\n```python\nx = 2\nprint(x + 1)\n#> 4\n```\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.docs_examples", str(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "page.md:3: printed\n#> 3\nbut the example shows\n#> 4" in done.stderr
    page.write_text(
        "```python\nprint('a')\nprint()\n#> a\n#>\n```\n\n<!-- not run: needs a key -->\n```python\nraise SystemExit(3)\n```\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.docs_examples", str(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "not run (needs a key)" in done.stdout


def test_readme_is_a_short_entry_that_links_every_guide_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    blocks = re.findall(r"```bash\n(.+?)\n```", readme)
    assert "jupyter lab notebooks/" in blocks[0] and blocks[1].endswith("python -m pytest")  # the two commands first
    for page in (
        "tools-and-schemas",
        "notebook-forms",
        "executors-and-log",
        "testing",
        "batch-and-dask",
        "mcp",
        "models-and-agents",
        "playground-guide",
        "evaluations",
        "adapters",
        "security",
        "performance",
    ):
        assert f"(docs/{page}.md)" in readme, page
    assert "mkdocs serve" in readme and "docs/form.png" in readme


def test_the_reference_section_lists_one_page_per_public_package():
    hooks = _hooks()
    config = hooks.on_config({"docs_dir": "docs", "nav": [{"API reference": []}]})
    assert {"workbench.agent": "reference/workbench.agent.md"} in config["nav"][0]["API reference"]
