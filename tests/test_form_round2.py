"""Notebook round 2 (#22), kernel side: what the form shows belongs to what was asked."""

from __future__ import annotations

import time
from typing import Annotated

import pytest

from pydantic import BaseModel, Field

from workbench import ToolContext, tool
from tests.form_catalogue import ip, wait_until, wb  # noqa: F401 - fixtures
from workbench.jupyter import ToolForm


class Address(BaseModel):
    street: str
    zip: int


@tool
def person(age: Annotated[int, Field(ge=0, le=150)], count: int, name: str = "x", address: Address | None = None) -> str:
    """A person."""
    return f"{name} {age} {count}"


def test_every_invalid_field_is_reported_at_once():
    form = ToolForm(person)
    form.fields["age"].input.value = "200"
    form.fields["count"].input.value = "abc"
    result = form.run()
    assert result.status == "error"
    assert set(form.errors) == {"age", "count"}, form.errors
    assert "150" in form.errors["age"] and "abc" in form.errors["count"]
    assert "2 field errors" in form.summary.value


def test_a_field_that_does_not_parse_is_not_also_reported_missing():
    form = ToolForm(person)
    form.fields["count"].input.value = "abc"
    form.run()
    assert set(form.errors) == {"age", "count"}  # age: missing (required); count: not a number, once
    assert "missing" not in form.errors["count"].lower()


def test_a_failing_tool_shows_its_message_once_and_names_its_cell(ip, wb):  # noqa: F811
    ip.run_cell("%%tool --no-form\n"
                "def explode(n: int) -> int:\n"
                "    \"\"\"Fail.\"\"\"\n"
                "    x = n + 1\n"
                "    raise ValueError(f'boom {x}')\n", store_history=True)
    count = ip.execution_count - 1
    form = ToolForm("explode", wb)
    form.set_values({"n": 1})
    result = form.run()
    assert result.status == "error"
    html = form.result_html.value
    user_part = html.split("<details>")[0]
    assert user_part.count("boom 2") == 1, user_part  # the headline only, not again as the traceback's last line
    assert f"Cell In[{count}], line 4, in explode" in user_part  # the line in the cell's body
    assert "ipykernel_" not in html and "<ipython-input" not in html
    assert "ValueError: boom 2" in html  # the full traceback (collapsed) keeps it


@tool
def stepping(ctx: ToolContext, n: int = 400) -> str:
    """Report progress step by step until cancelled."""
    for i in range(1, n + 1):
        if ctx.cancelled:
            return "stopped"
        ctx.report_progress(i / n, f"step {i}")
        time.sleep(0.01)
    return "done"


def test_a_cancelled_run_does_not_look_like_a_result(wb):  # noqa: F811
    """Defect 9: no bar left at "step n", nothing to copy, nothing to save."""
    wb.registry.register_tool(stepping, replace=True)
    form = ToolForm(stepping, wb)
    done = form.submit()
    assert wait_until(lambda: form.progress_history and form.progress_label.value.startswith("step"), 5)
    assert form.cancel()
    result = done.result(timeout=10)
    assert result.metadata["error_type"] == "CancelledError"
    assert "cancelled" in form.result_html.value
    assert form.progress_box.layout.display == "none"
    assert form.progress.value == 0.0 and form.progress_label.value == ""
    assert form.copy_result.text == "" and form.result_tools.layout.display == "none"
    assert form.save_button.disabled and "cancelled" in form.save_button.tooltip
    with pytest.raises(RuntimeError, match="cancelled"):
        form.save_as_test()
    form.set_values({"n": 2})  # a run to the end is a result again
    assert form.run().ok
    assert not form.save_button.disabled and form.copy_result.text == "done"
