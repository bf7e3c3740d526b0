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
