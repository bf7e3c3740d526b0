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


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def test_the_dashboard_shows_only_the_form_of_a_tool_the_search_shows(wb):  # noqa: F811
    """Defect 5: a search that hid the selected tool left its form on screen."""
    from workbench.jupyter import Dashboard

    for item in (person, shout):
        wb.registry.register_tool(item, replace=True)
    dashboard = Dashboard(wb)
    dashboard.select("person")
    dashboard.search.value = "upper-case"
    assert dashboard.visible_tools == ["shout"]
    assert dashboard.selected == "shout" and dashboard.form_area.children == (dashboard.forms["shout"],)
    assert dashboard.tool_list.selected == "shout"
    dashboard.search.value = "zzz"
    assert dashboard.selected is None and dashboard.form is None and dashboard.tool_list.selected == ""
    assert "No tool matches" in dashboard.form_area.children[0].value
    dashboard.search.value = ""  # the tool the user picked comes back
    assert dashboard.selected == "person" and dashboard.form_area.children == (dashboard.forms["person"],)
    dashboard.search.value = "upper-case"
    dashboard.select("person")  # e.g. the log's Load into form: the search no longer hides it
    assert dashboard.search.value == "" and dashboard.form_area.children == (dashboard.forms["person"],)
    dashboard.close()


def test_the_log_details_close_when_a_filter_hides_their_call(wb):  # noqa: F811
    """Defect 5: the details panel kept a call the filter hid."""
    from workbench.jupyter import LogTable

    wb.registry.register_tool(shout, replace=True)
    wb.registry.register_tool(person, replace=True)
    wb.call("shout", {"text": "needle"})
    wb.call("person", {"age": 3, "count": 1})
    table = LogTable(wb.log, interval=0.01, workbench=wb)
    table.select(1)
    assert table.details.layout.display is None
    table.tool_filter.value = "shout"  # still shown: the details stay
    assert table.selected_row["id"] == 1 and table.details.layout.display is None
    table.search.value = "no such text"
    table.flush()
    assert table.selected_row is None and table.details.layout.display == "none" and table.table.selected == ""
    table.search.value = ""
    table.tool_filter.value = "(all tools)"
    table.select(2)
    table.status_filter.value = "error"
    assert table.selected_row is None and table.details.layout.display == "none"
    table.close()


def test_the_log_table_marks_the_columns_that_never_break():
    """Defect 6: the tool name (and id, time, status, ms) stay on one line, live and in the saved HTML."""
    import re as _re

    from workbench.jupyter._log_html import table_html

    row = {"id": 1, "tool_name": "weather_lookup", "status": "success", "input": {"city": "x" * 80},
           "output": [{"text": "sunny"}], "completed_at": "2026-01-01T10:00:00Z", "latency_ms": 2.0}
    live = table_html([row], total=1)
    cells = _re.findall(r"<td[^>]*>", live)
    assert len(cells) == 7
    assert [("workbench-log-fit" in cell) for cell in cells] == [True, True, True, True, False, False, True]
    assert "workbench-log-tool" in cells[2] and "workbench-log-input" in cells[4] and "workbench-log-output" in cells[5]
    static = table_html([row], total=1, static=True)
    assert static.count("white-space:nowrap") == 5
