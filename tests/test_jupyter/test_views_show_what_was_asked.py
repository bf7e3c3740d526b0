"""Notebook round 2 (#22), kernel side: what the form shows belongs to what was asked."""

from __future__ import annotations

import re
import time
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from tests.form_catalogue import ip, wait_until, wb  # noqa: F401 - fixtures
from workbench import ToolContext, tool
from workbench.jupyter import ToolForm


class Address(BaseModel):
    street: str
    zip: int


@tool
def person(
    age: Annotated[int, Field(ge=0, le=150)], count: int, name: str = "x", address: Address | None = None
) -> str:
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
    ip.run_cell(
        "%%tool --no-form\n"
        "def explode(n: int) -> int:\n"
        '    """Fail."""\n'
        "    x = n + 1\n"
        "    raise ValueError(f'boom {x}')\n",
        store_history=True,
    )
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

    row = {
        "id": 1,
        "tool_name": "weather_lookup",
        "status": "success",
        "input": {"city": "x" * 80},
        "output": [{"text": "sunny"}],
        "completed_at": "2026-01-01T10:00:00Z",
        "latency_ms": 2.0,
    }
    live = table_html([row], total=1)
    cells = _re.findall(r"<td[^>]*>", live)
    assert len(cells) == 7
    assert [("workbench-log-fit" in cell) for cell in cells] == [True, True, True, True, False, False, True]
    assert "workbench-log-tool" in cells[2] and "workbench-log-input" in cells[4] and "workbench-log-output" in cells[5]
    static = table_html([row], total=1, static=True)
    assert static.count("white-space:nowrap") == 5


def test_reconnect_brings_a_form_of_a_killed_mcp_server_back(wb):  # noqa: F811
    """Defect 7: the disconnected banner asked for code; its Reconnect button connects again and the
    same form runs the new proxy."""
    from tests.test_mcp.test_server_death import ROOT, SERVE, WAIT, _kill
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect

    conn = connect(command=SERVE, registry=wb.registry, cwd=str(ROOT), connect_timeout=WAIT)
    pids, fresh = [], None
    try:
        form = ToolForm(wb.registry.get_tool("add"), wb)
        other = ToolForm(wb.registry.get_tool("add"), wb)  # a second view of the same tool
        assert form.disconnected_box.layout.display == "none"
        form.set_values({"a": 2, "b": 3})
        pids.append(SequentialExecutor().call(wb.registry, "server_pid").value)
        _kill(pids[0])
        assert wait_until(lambda: form.disconnected and other.disconnected, WAIT)
        assert form.disconnected_box.layout.display is None and not form.reconnect_button.disabled
        assert "Reconnect" in form.disconnected_banner.value
        form.reconnect_button.click()
        assert wait_until(lambda: not form.disconnected, WAIT), form.disconnected_banner.value
        fresh = form.tool.connection
        assert fresh is not conn and fresh.connected and form.tool is wb.registry.get_tool("add")
        assert not form.run_button.disabled and form.run_button.button_style == "primary"
        assert form.disconnected_box.layout.display == "none"
        assert form.values == {"a": 2, "b": 3}  # what was typed stays
        assert form.run().value == 5
        other.reconnect()  # already reconnected elsewhere: takes the live proxy, starts no second server
        assert other.tool is form.tool and not other.disconnected
        pids.append(SequentialExecutor().call(wb.registry, "server_pid").value)
        _kill(pids[1])  # and a form that reconnected follows its new connection
        assert wait_until(lambda: form.disconnected and other.disconnected, WAIT)
    finally:
        for connection in (conn, fresh):
            if connection is not None:
                connection.disconnect()
        for pid in pids:
            _kill(pid)


def test_a_failed_reconnect_says_why_in_the_banner(wb, tmp_path):  # noqa: F811
    """Defect 7: a server that cannot start again leaves the form disconnected, with the reason."""
    import shutil
    import sys as _sys

    from tests.test_mcp.test_server_death import ROOT, WAIT
    from workbench.mcp import connect

    module = tmp_path / "vanishing_tools.py"
    shutil.copy(ROOT / "tests" / "mcp_sample_tools.py", module)
    conn = connect(
        command=[_sys.executable, "-m", "workbench.mcp", "serve", "vanishing_tools"],
        registry=wb.registry,
        cwd=str(tmp_path),
        connect_timeout=WAIT,
        env={"PYTHONPATH": f"{ROOT}:{tmp_path}"},
    )
    try:
        form = ToolForm(wb.registry.get_tool("add"), wb)
        module.unlink()  # the server cannot start again
        conn.disconnect()
        assert wait_until(lambda: form.disconnected, WAIT)
        form.reconnect_button.click()
        assert wait_until(lambda: "Reconnect failed" in form.disconnected_banner.value, WAIT)
        assert form.disconnected and form.run_button.disabled and not form.reconnect_button.disabled
        assert form.reconnect_button.description == "Reconnect"
    finally:
        conn.disconnect()


def test_the_inspect_view_of_a_killed_server_reconnects(tmp_path):
    """Defect 7: a disconnected inspect view offers Reconnect, which brings every tab back live."""
    from tests.mcp_servers import ROOT as _ROOT
    from tests.mcp_servers import WAIT as _WAIT
    from tests.mcp_servers import eventually, serve_command
    from tests.test_mcp.test_server_death import _kill
    from workbench.executor import SequentialExecutor
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    workbench = Workbench()
    view = inspect(
        command=serve_command("tests.mcp_sample_tools"), workbench=workbench, cwd=str(_ROOT), connect_timeout=_WAIT
    )
    old, pids = view.connection, []
    try:
        assert view.reconnect_button.layout.display == "none"
        assert view.children[0] is view.header and view.reconnect_button in view.header.children  # shown by inspect()
        view.tool_picker.value = "add"
        old_form = view.tool_forms["add"]
        pids.append(SequentialExecutor().call(old.registry, "server_pid").value)
        _kill(pids[0])
        eventually(lambda: "disconnected" in view.title.value, what="the disconnected title")
        assert view.reconnect_button.layout.display is None
        eventually(lambda: old_form.disconnected, what="the tool form disconnected")
        old_form.reconnect_button.click()  # the button of the form in the view reconnects the whole view
        eventually(
            lambda: view.connection is not old and "disconnected" not in view.title.value, what="the reconnected view"
        )
        assert view.connection.connected and view.reconnect_button.layout.display == "none"
        assert "Reconnect failed" not in view.reconnect_message.value
        assert not view.reconnect_button.disabled and view.reconnect_button.description == "Reconnect"
        form = view.tool_forms["add"]
        assert form is not old_form and not form.disconnected and not form.run_button.disabled
        assert view.tool_box.children == (form,)
        assert form.set_values({"a": 2, "b": 3}).run().value == 5
        pids.append(SequentialExecutor().call(view.connection.registry, "server_pid").value)
        _kill(pids[1])  # the view follows its new connection
        eventually(lambda: "disconnected" in view.title.value, what="the second disconnect")
        second = view.connection
        view.reconnect_button.click()  # and the view's own button
        eventually(lambda: view.connection is not second and view.connection.connected, what="the second reconnect")
        eventually(lambda: not view.reconnect_button.disabled, what="the button back")
        assert view.tool_forms["add"].set_values({"a": 1, "b": 1}).run().value == 2
        second.disconnect()
    finally:
        view.connection.disconnect()
        old.disconnect()
        for pid in pids:
            _kill(pid)


def test_the_spec_table_is_left_aligned_and_shows_defaults_enums_and_bounds():
    """Defect 10: the spec's HTML table right-aligned descriptions and left out defaults, enums, bounds."""
    from typing import Literal

    from workbench.jupyter._render import form_summary_html

    @tool
    def forecast(
        days: Annotated[int, Field(ge=1, le=14, description="how many days")],
        unit: Literal["celsius", "fahrenheit"] = "celsius",
        city: str | None = None,
    ) -> str:
        """Forecast."""
        return ""

    for html in (forecast.spec._repr_html_(), form_summary_html(forecast.spec)):
        cells = re.findall(r"<t[dh](?=[\s>])([^>]*)>", html)
        assert cells and all("text-align:left" in cell for cell in cells), html
        assert "≥ 1" in html and "≤ 14" in html and "how many days" in html
        assert "one of &quot;celsius&quot;, &quot;fahrenheit&quot;" in html
        assert re.search(r"<td[^>]*>(<code>)?&quot;celsius&quot;(</code>)?</td>", html), html  # the default
        assert ">default<" in html and ">allowed<" in html
