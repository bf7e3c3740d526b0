"""**Save as test** in a real JupyterLab (chromium): disabled until a call finished, then a click writes
the call to ``<case folder>/<tool>.cases.json`` on disk (the ``%%tool`` cell's source beside it as
``<tool>_tool.py``, which the file's ``"tools"`` names) and the form shows the path it wrote.
A dark-theme screenshot of the form with the button goes to ``test-artifacts/``."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "save_as_test.ipynb"
FOLDER = "browser_cases"

CELLS = [
    f"%load_ext workbench\nfrom workbench.testing import set_case_folder\nset_case_folder({FOLDER!r})",
    "%%tool\n"
    "def quote(n: int, word: str = 'ok') -> dict:\n"
    '    """Repeat a word n times."""\n'
    "    return {'n': n, 'words': [word] * n}\n",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-quote", width=1200) as page:
        yield page


def _input(form, label: str):
    exact = re.compile(rf"^\s*{re.escape(label)}\s*\*?\s*$")
    row = form.locator(".widget-hbox").filter(has=form.page.locator(".widget-label", has_text=exact)).last
    return row.locator("input, textarea").first


def test_run_then_save_as_test_writes_the_case_file(lab_page, lab_server):
    page = lab_page
    form = page.locator(".workbench-form-quote").first
    form.scroll_into_view_if_needed()
    save = form.locator("button.workbench-save-test")
    expect(save).to_have_text(re.compile("Save as test"))
    expect(save).to_be_disabled()  # nothing ran yet

    box = _input(form, "n")
    box.fill("3")
    box.press("Tab")
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text(re.compile("words")).first.wait_for(timeout=30_000)
    expect(save).to_be_enabled(timeout=30_000)
    save.click()

    shown = form.locator(".workbench-saved-path")
    shown.wait_for(timeout=30_000)
    path = lab_server["root"] / FOLDER / "quote.cases.json"
    assert shown.inner_text().endswith(f"{FOLDER}/quote.cases.json")
    # a notebook tool: its cell is written beside the case file, so no "tools": [] warning any more
    assert "has no importable module" not in form.locator(".workbench-save-message").inner_text()
    assert "def quote(n: int" in (lab_server["root"] / FOLDER / "quote_tool.py").read_text(encoding="utf-8")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "tool": "quote",
        "tools": ["quote_tool.py"],
        "cases": [
            {"id": "case-1", "input": {"n": 3}, "expect": "exact", "value": {"n": 3, "words": ["ok", "ok", "ok"]}}
        ],
    }

    save.click()  # the same call again: an identical case is not saved twice
    expect(form.locator(".workbench-saved-path")).to_be_visible(timeout=30_000)
    assert len(json.loads(path.read_text(encoding="utf-8"))["cases"]) == 1

    ARTIFACTS.mkdir(exist_ok=True)
    try:
        lab.set_theme(page, "JupyterLab Dark")
        form.scroll_into_view_if_needed()
        form.screenshot(path=str(ARTIFACTS / "save-as-test-dark.png"))
    finally:
        lab.set_theme(page, "JupyterLab Light")
