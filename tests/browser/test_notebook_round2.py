"""Notebook round 2 (#22), reproduced in a real JupyterLab in Debian's chromium."""

from __future__ import annotations

import pytest

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "notebook_round2.ipynb"

CELLS = [
    "%load_ext workbench",
    "from typing import Annotated\nfrom pydantic import Field",
    "%%tool\n"
    "def person(age: Annotated[int, Field(ge=0, le=150)], count: int) -> str:\n"
    "    \"\"\"Describe a person.\"\"\"\n"
    "    return f'{age} years, {count} items'\n",
    "%%tool\n"
    "def explode(n: int) -> int:\n"
    "    \"\"\"Fail on purpose.\"\"\"\n"
    "    x = n + 1\n"
    "    raise ValueError(f'boom number {x}')\n",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-person") as page:
        yield page


def test_every_invalid_field_is_reported_at_once(lab_page):
    """Defect 3: age=200 (0–150) and count="abc" — one Run reports both, not one kind at a time."""
    form = lab.form_of(lab_page, "person")
    lab.row_input(form, "age").fill("200")
    lab.row_input(form, "count").fill("abc")
    lab.row_input(form, "count").press("Tab")
    form.locator(".workbench-run").click()
    summary = form.get_by_text("2 field errors — nothing was run")
    summary.wait_for(timeout=30_000)
    box = summary.locator("xpath=..")
    text = box.inner_text()
    form.screenshot(path=str(ARTIFACTS / "round2-all-errors.png"))
    assert "age" in text and "150" in text, text
    assert "count" in text and "abc" in text, text


def test_a_failing_tool_shows_its_message_once_and_names_its_cell(lab_page):
    """Defect 8: the message was shown twice, and the frame named ipykernel's temporary file."""
    form = lab.form_of(lab_page, "explode")
    lab.row_input(form, "n").fill("1")
    form.locator(".workbench-run").click()
    traceback = form.locator(".workbench-traceback")
    traceback.wait_for(timeout=30_000)
    visible = form.locator(".workbench-result-area").inner_text()
    form.screenshot(path=str(ARTIFACTS / "round2-traceback.png"))
    assert visible.count("boom number 2") == 1, visible
    assert "Cell In[4], line 4, in explode" in traceback.inner_text()
    assert "ipykernel_" not in visible
