"""The log view (issue 9): paged SQLite queries, sort / filter / click / load / re-run / copy / clear /
export, the static fallback saved in notebooks, the dashboard's tool list and own forms, and the
``%tool_call`` / ``%tool_log`` fixes. Real SQLite logs, real executors, a headless IPython shell."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import threading

import pandas as pd
import pytest

import workbench
from tests.form_catalogue import ip, wait_until, wb  # noqa: F401 - fixtures
from workbench import ExecutionLog, ToolResult, tool
from workbench.jupyter import Dashboard, LogTable, ToolForm
from workbench.jupyter._clickable import STATIC, ClickableHTML
from workbench.jupyter._log_html import outcome, table_html
from workbench.jupyter._magics import CallResult


@tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers.

    A second paragraph that the tool list does not show."""
    return a + b


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@tool(permission="ask")
def guarded(x: int) -> int:
    """Needs approval."""
    return x


def _result(
    i: int, *, status: str = "success", error_type: str | None = None, latency: float = 1.0, name: str = "add"
) -> ToolResult:
    metadata = {"tool_name": name, "latency_ms": latency}
    if status == "error":
        metadata.update(error_type=error_type or "ValueError", error=f"{error_type or 'ValueError'}: boom {i}")
    return ToolResult(
        toolUseId=f"t{i}",
        status=status,
        content=[{"text": str(i)}],
        metadata=metadata,
        started_at="2026-01-01T00:00:00.000Z",
        completed_at=f"2026-01-01T00:00:{i % 60:02d}.000Z",
    )


def _fill(log: ExecutionLog, n: int, name: str = "add") -> None:
    log.append_many((_result(i, latency=float(i % 7), name=name), {"name": name, "input": {"a": i}}) for i in range(n))


def _register(wb, *tools) -> None:
    for item in tools:
        wb.registry.register_tool(item, replace=True)


# -- ExecutionLog.page: one page per query --------------------------------------------------------------
def test_log_page_filters_sorts_and_counts_in_sql():
    log = ExecutionLog()
    _fill(log, 30)
    log.append(
        _result(100, status="error", error_type="CancelledError", name="shout"),
        {"name": "shout", "input": {"text": "50%_off"}},
    )
    log.append(_result(101, status="error", name="shout"), {"name": "shout", "input": {"text": "plain"}})
    rows, matching = log.page(limit=5)
    assert matching == 32 and [r["id"] for r in rows] == [32, 31, 30, 29, 28]  # newest first
    rows, _ = log.page(limit=5, offset=30)
    assert [r["id"] for r in rows] == [2, 1]
    assert [r["id"] for r in log.page(outcome="cancelled")[0]] == [31]
    assert [r["id"] for r in log.page(outcome="error")[0]] == [32]  # errors that were not cancellations
    assert log.page(outcome="success")[1] == 30
    assert log.page(tool="shout")[1] == 2
    # text search: % and _ are literal characters, not SQL wildcards
    assert [r["id"] for r in log.page(text="50%_")[0]] == [31]
    assert log.page(text="%")[1] == 1
    assert [r["id"] for r in log.page(text="BOOM 101")[0]] == [32]  # case-insensitive, in the error
    rows, _ = log.page(sort="latency_ms", descending=False, limit=3)
    assert [r["latency_ms"] for r in rows] == [0.0, 0.0, 0.0] and [r["id"] for r in rows] == [1, 8, 15]  # ties by id
    assert log.tool_names() == ["add", "shout"]
    for bad in ({"sort": "input_json; DROP TABLE calls"}, {"outcome": "weird"}, {"limit": -1}, {"offset": True}):
        with pytest.raises(ValueError):
            log.page(**bad)


def test_log_table_queries_one_page_and_never_builds_the_whole_frame(monkeypatch):
    log = ExecutionLog()
    _fill(log, 2000)
    monkeypatch.setattr(
        ExecutionLog, "to_dataframe", lambda *a, **k: pytest.fail("the view built a whole-log DataFrame")
    )
    monkeypatch.setattr(ExecutionLog, "rows", lambda *a, **k: pytest.fail("the view parsed the whole log"))
    table = LogTable(log, max_rows=25, interval=0.01)
    assert len(table.rows) == 25 and table.rows[0]["id"] == 2000 and table.total == 2000
    assert table.table.value.count("<tr class='workbench-log-row") == 25
    assert "2,000 calls logged" in table.table.value and "newest first" in table.table.value
    assert table.page_label.value.startswith("1–25 of 2,000")
    assert table.first_button.disabled and not table.next_button.disabled
    table.next_page()
    assert [r["id"] for r in table.rows[:2]] == [1975, 1974]
    table.page_index = 79
    table.refresh()
    assert table.next_button.disabled and table.rows[-1]["id"] == 1
    table.previous_page()
    assert table.page_index == 78
    table.close()


# -- padding and colours (defect 9) ----------------------------------------------------------------------
def test_log_cells_are_styled_by_classes_whose_colours_are_jupyterlab_variables():
    log = ExecutionLog()
    log.append(_result(1), {"name": "add", "input": {"a": 1}})
    log.append(_result(2, status="error"), {"name": "add", "input": {"a": 2}})
    log.append(_result(3, status="error", error_type="CancelledError"), {"name": "add", "input": {"a": 3}})
    table = LogTable(log)
    html = table.table.value
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|style=", html)  # no hard-coded colours or inline styles in the live view
    for kind in ("success", "error", "cancelled"):
        assert f"workbench-status workbench-status-{kind}'>{kind}<" in html
    css = (STATIC / "workbench.css").read_text()
    rule = re.search(r"\.workbench-log-table td,[^{]*\{([^}]*)\}", css).group(1)
    assert re.search(r"padding:\s*4px 10px", rule)
    assert not re.search(
        r"#[0-9a-fA-F]{3,8}\b|rgba?\(|hsla?\(|(?<![\w-])(?:white|black|gr[ae]y|red|green|blue|orange)(?![\w-])", css
    )  # no literal colours
    colours = re.findall(r"(?:^|[;{\s])(?:color|background):\s*([^;]+);", css)

    def themed(value: str) -> bool:  # a theme variable, or a color-mix of theme variables only
        if value.startswith("color-mix("):
            return bool(re.findall(r"var\(([^),]+)", value)) and all(
                name.startswith("--jp-") for name in re.findall(r"var\(([^),]+)", value)
            )
        return value.startswith("var(--jp-") or value in ("transparent", "inherit")

    assert len(colours) > 10 and all(themed(value) for value in colours), colours
    assert {"--jp-success-color1", "--jp-error-color1", "--jp-warn-color1"} <= set(re.findall(r"--jp-[\w-]+", css))
    table.close()


def test_cancelled_calls_have_their_own_status_and_filter():
    log = ExecutionLog()
    log.append(_result(1, status="error", error_type="CancelledError"), {"name": "add", "input": {}})
    log.append(_result(2, status="error"), {"name": "add", "input": {}})
    table = LogTable(log)
    assert [outcome(r) for r in table.rows] == ["error", "cancelled"]
    table.status_filter.value = "cancelled"
    assert [r["id"] for r in table.rows] == [1] and "workbench-status-cancelled" in table.table.value
    table.status_filter.value = "error"
    assert [r["id"] for r in table.rows] == [2]
    table.close()


# -- sort, filter ------------------------------------------------------------------------------------------
def test_clicking_a_header_sorts_and_clicking_again_reverses():
    log = ExecutionLog()
    _fill(log, 10)
    table = LogTable(log)
    table.table.emit({"event": "sort", "column": "latency_ms"})  # what a click on the "ms" header sends
    assert [r["latency_ms"] for r in table.rows][:3] == [6.0, 5.0, 4.0]
    assert (
        "data-sort='latency_ms' tabindex='0' role='button' title='Sort by ms' aria-sort='descending'"
        in table.table.value
    )
    table.table.emit({"event": "sort", "column": "latency_ms"})
    assert [r["latency_ms"] for r in table.rows][:3] == [0.0, 0.0, 1.0] and "aria-sort='ascending'" in table.table.value
    table.table.emit({"event": "sort", "column": "tool_name; --"})  # a forged column is a message, not SQL
    assert "Cannot sort" in table.message.value and table.sort == "latency_ms"
    table.close()


def test_filters_by_tool_status_and_text(wb):
    _register(wb, add, shout)
    wb.call("add", {"a": 1})
    wb.call("shout", {"text": "needle in a haystack"})
    wb.call("add", {"a": "x"})
    table = LogTable(wb.log, interval=0.01, workbench=wb)
    assert table.tool_filter.options == ("(all tools)", "add", "shout")
    table.tool_filter.value = "add"
    assert [r["tool_name"] for r in table.rows] == ["add", "add"]
    table.status_filter.value = "error"
    assert [r["id"] for r in table.rows] == [3]
    assert "3 calls logged · 1 match" in table.table.value
    table.tool_filter.value = "(all tools)"
    table.status_filter.value = "any status"
    table.search.value = "NEEDLE"
    table.flush()
    assert [r["tool_name"] for r in table.rows] == ["shout"]
    table.search.value = "nothing like this"
    table.flush()
    assert table.rows == [] and "no calls match the filters" in table.table.value
    table.close()


# -- details, copy ------------------------------------------------------------------------------------------
def test_clicking_a_row_opens_the_full_call_and_copy_gives_its_json(wb):
    _register(wb, shout)
    long_text = "<script>alert(1)</script>" + "x" * 200
    wb.call("shout", {"text": long_text})
    table = LogTable(wb.log, workbench=wb, truncate=20)
    assert table.details.layout.display == "none"
    table.table.selected = "1"  # what clicking the row does (the front end sets `selected`)
    assert table.details.layout.display is None and table.selected_row["id"] == 1
    details = table.details_html.value
    assert "x" * 200 in details  # the full input, not the truncated cell
    assert "&lt;script&gt;" in details and "<script>" not in details
    assert "Request (input)" in details and "Result" in details
    copied = json.loads(table.copy_text())
    assert copied["input"] == {"text": long_text} and copied["output"][0]["text"] == long_text.upper()
    assert json.loads(table.copy_button.text) == copied  # what the Copy as JSON button puts on the clipboard
    table.close_details()
    assert table.details.layout.display == "none" and table.selected_row is None
    table.table.selected = "999"  # a row that is gone: a message, the pane stays closed
    assert "cannot open call 999" in table.message.value and table.table.selected == ""
    table.close()


# -- load into form, re-run --------------------------------------------------------------------------------
def test_load_into_form_shows_that_tools_form_with_the_row_input(wb):
    _register(wb, add, shout)
    wb.call("add", {"a": 5, "b": 7})
    wb.call("shout", {"text": "hi"})
    cell_form = wb.form("add")
    cell_form.set_values({"a": 100})
    table = LogTable(wb.log, workbench=wb)
    table.select(1)
    table.load_button.click()
    form = table.form_area.children[0]
    assert isinstance(form, ToolForm) and form.spec.name == "add" and form.values == {"a": 5, "b": 7}
    assert form is not cell_form and cell_form.values == {"a": 100}  # the cell's form is untouched
    assert "loaded call #1" in table.message.value
    assert form.run().json == 12
    table.close()


def test_load_into_form_leaves_out_what_the_form_cannot_take_and_says_so(wb):
    _register(wb, add)
    wb.call("add", {"a": "oops", "b": 2})  # rejected input
    wb.log.append(_result(9), {"name": "add", "input": {"a": 1, "gone": True}})  # a parameter the tool lost
    table = LogTable(wb.log, workbench=wb)
    table.select(1)
    form = table.load_into_form()
    assert form.values == {"b": 2} and "left out a:" in table.message.value
    form = table.load_into_form(2)
    assert form.values == {"a": 1} and "left out gone:" in table.message.value and "no parameter" in table.message.value
    table.close()


def test_rerun_sends_the_same_input_through_the_executor_and_a_new_row_appears(wb):
    _register(wb, add)
    wb.call("add", {"a": 2, "b": 3})
    table = LogTable(wb.log, workbench=wb, interval=0.01)
    table.select(1)
    seen = []
    wb.executor.on_event(lambda event: seen.append(event.kind))
    done = table.rerun()
    result = done.result(timeout=10)
    assert result.json == 5 and "start" in seen  # through the workbench executor
    assert wait_until(lambda: table.total == 2 and table.rows[0]["id"] == 2)
    new = wb.log.get(2)
    assert new["input"] == {"a": 2, "b": 3} and new["tool_use_id"] != wb.log.get(1)["tool_use_id"]
    assert wait_until(lambda: "re-ran call #1: success" in table.message.value)
    table.close()


def test_rerun_of_an_ask_tool_asks_in_the_details_pane(wb):
    _register(wb, guarded)
    wb.log.append(_result(1, name="guarded"), {"name": "guarded", "input": {"x": 4}})
    table = LogTable(wb.log, workbench=wb, interval=0.01)
    table.select(1)
    done = table.rerun()
    assert table.approval.asked.wait(10) and "guarded" in table.approval.message.value
    assert table.approval.approve()
    assert done.result(timeout=10).json == 4


def test_rerun_button_inside_a_running_loop_does_not_block_it(wb):
    _register(wb, add)
    wb.call("add", {"a": 1})
    table = LogTable(wb.log, workbench=wb)
    table.select(1)

    async def click_then_wait():
        table.rerun_button.click()  # a click arrives on the kernel's loop: the call must not run inside it
        pending = table.last_rerun
        assert pending is not None and not pending.done()
        return await asyncio.wait_for(asyncio.wrap_future(pending), 10)

    assert asyncio.run(click_then_wait()).json == 2 and len(wb.log) == 2
    table.close()


# -- clear, export ------------------------------------------------------------------------------------------
def test_clear_needs_a_second_click(wb):
    _register(wb, add)
    wb.call("add", {"a": 1})
    table = LogTable(wb.log, workbench=wb)
    table.clear_button.click()
    assert len(wb.log) == 1 and "Confirm clear" == table.clear_button.description
    table.status_filter.value = "error"  # another action cancels the pending confirmation
    assert table.clear_button.description == "Clear"
    table.clear_button.click()
    assert len(wb.log) == 1
    table.clear_button.click()
    assert len(wb.log) == 0 and "no calls yet" in table.table.value and table.tool_filter.options == ("(all tools)",)


def test_export_button_writes_csv_and_jsonl(wb, tmp_path):
    _register(wb, add)
    wb.call("add", {"a": 1})
    wb.call("add", {"a": "=cmd"})
    table = LogTable(wb.log, workbench=wb)
    table.export_button.click()
    assert "type a file path" in table.message.value
    for name in ("runs.csv", "runs.jsonl"):
        table.export_path.value = str(tmp_path / name)
        table.export_button.click()
        assert f"exported 2 calls to {tmp_path / name}" in table.message.value
    assert len(list(csv.DictReader(open(tmp_path / "runs.csv")))) == 2
    assert [json.loads(line)["id"] for line in open(tmp_path / "runs.jsonl")] == [1, 2]
    table.export_path.value = str(tmp_path / "runs.txt")
    table.export_button.click()
    assert "export failed" in table.message.value and ".jsonl" in table.message.value


# -- the static fallback (defect 14, table part) -------------------------------------------------------------
def test_a_saved_log_table_has_a_readable_static_html_and_text(wb):
    _register(wb, shout)
    wb.call("shout", {"text": "<img src=x onerror=alert(1)>"})
    table = LogTable(wb.log, workbench=wb)
    bundle = table._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the live widget still comes first
    html, text = bundle["text/html"], bundle["text/plain"]
    assert "<table class='workbench-log-table'" in html and "<td" in html and "shout" in html
    assert "padding:4px 10px" in html and "var(--jp-success-color1" in html  # readable without our stylesheet
    assert "<img" not in html and "&lt;img src=x" in html
    assert not text.startswith("LogTable(") and "1 call logged" in text and "shout" in text


# -- the dashboard (defect 11) -------------------------------------------------------------------------------
def _many_tools(wb, count: int = 15) -> list[str]:
    names = []
    for i in range(count):
        name = f"a_rather_long_tool_name_number_{i:02d}"
        namespace: dict = {}
        exec(
            f'def {name}(x: int = 0) -> int:\n    """Tool number {i} does thing {i}.\n\n'  # noqa: S102
            f'    Details nobody reads in a list."""\n    return x + {i}\n',
            namespace,
        )
        wb.registry.register_tool(tool(namespace[name]))
        names.append(name)
    return names


def test_dashboard_lists_every_tool_with_the_first_description_line_and_searches(wb):
    names = _many_tools(wb)
    dashboard = Dashboard(wb)
    listing = dashboard.tool_list.value
    assert dashboard.tool_names == names
    for i, name in enumerate(names):
        assert f"data-key='{name}'" in listing and f">{name}</div>" in listing  # the whole name
        assert f"Tool number {i} does thing {i}." in listing
    assert "Details nobody reads" not in re.sub(r"title='[^']*'", "", listing)  # only the first line is shown
    assert re.search(
        r"title='a_rather_long_tool_name_number_03\s+Tool number 3 does thing 3\.\s+Details nobody reads", listing
    )
    dashboard.search.value = "thing 1"
    assert dashboard.visible_tools == [names[1], *names[10:]]
    dashboard.search.value = "NUMBER_07"
    assert dashboard.visible_tools == [names[7]] and "1 of 15 tools" in dashboard.count_label.value
    dashboard.search.value = "zzz"
    assert "no tool matches" in dashboard.tool_list.value
    dashboard.tool_list.selected = names[7]  # a click in the list
    assert dashboard.selected == names[7] and dashboard.form.spec.name == names[7]
    assert dashboard.form_area.children == (dashboard.form,)
    dashboard.close()


def test_dashboard_forms_are_their_own_widgets(wb):
    _register(wb, add, shout)
    cell_form = wb.form("add")  # the form under the %%tool cell
    dashboard = Dashboard(wb)
    dash_form = dashboard.select("add")
    assert dash_form is not cell_form
    dash_form.set_values({"a": 3})
    cell_form.set_values({"a": 9})
    assert dash_form.values == {"a": 3} and cell_form.values == {"a": 9}
    dashboard.close()


def test_dashboard_log_load_into_form_selects_the_tool_and_fills_its_form(wb):
    _register(wb, add, shout)
    wb.call("shout", {"text": "from the log"})
    dashboard = Dashboard(wb)
    assert dashboard.selected == "add"
    dashboard.log_table.select(1)
    dashboard.log_table.load_button.click()
    assert dashboard.selected == "shout" and dashboard.tool_list.selected == "shout"
    assert dashboard.form.values == {"text": "from the log"}
    assert dashboard.log_table.form_area.children == ()  # shown in the dashboard's form, not under the log
    dashboard.close()


def test_dashboard_static_fallback_lists_tools_and_the_log(wb):
    _register(wb, add)
    wb.call("add", {"a": 1})
    bundle = Dashboard(wb)._repr_mimebundle_()
    assert "<code>add</code> — Add two numbers." in bundle["text/html"] and "workbench-log-table" in bundle["text/html"]
    assert "add — Add two numbers." in bundle["text/plain"]


# -- magics (defect 13) --------------------------------------------------------------------------------------
def test_tool_call_of_an_unknown_tool_is_an_error_result_and_run_all_goes_on(ip, wb):
    _register(wb, add)
    ran = ip.run_cell("%tool_call ad a=1", store_history=False)
    assert ran.success and ran.error_in_exec is None  # a UsageError would stop "Run All"
    result = ran.result
    assert isinstance(result, ToolResult) and result.status == "error"
    assert result.metadata["error_type"] == "ToolNotFoundError" and "Did you mean 'add'" in result.error
    assert wb.log.rows()[-1]["tool_name"] == "ad"  # logged like any failed call


def test_tool_call_shows_a_dataframe_result_as_a_table(ip, wb):
    ip.run_cell(
        "%%tool --no-form\nimport pandas as pd\ndef frame(n: int = 2) -> pd.DataFrame:\n"
        '    """A frame."""\n    return pd.DataFrame({"x": list(range(n)), "tag": ["<b>"] * n})',
        store_history=False,
    )
    result = ip.run_line_magic("tool_call", "frame n=3")
    assert isinstance(result, CallResult) and result.ok and isinstance(result.value, pd.DataFrame)
    html = result._repr_html_()
    assert "<table" in html and html.count("<td>&lt;b&gt;</td>") == 3 and "<b>" not in html.replace("<b>success", "")
    _register(wb, add)
    assert "<table" not in ip.run_line_magic("tool_call", "add a=1")._repr_html_()  # other results: as before


def test_tool_log_is_newest_first_like_the_live_table(ip, wb):
    _register(wb, add)
    for i in range(3):
        ip.run_line_magic("tool_call", f"add a={i}")
    frame = ip.run_line_magic("tool_log", "")
    assert list(frame["id"]) == [3, 2, 1] and list(frame.index) == [0, 1, 2]
    table = LogTable(wb.log)
    assert [r["id"] for r in table.rows] == list(frame["id"])
    assert list(ip.run_line_magic("tool_log", "--last 2")["id"]) == [3, 2]
    table.close()


# -- pieces ----------------------------------------------------------------------------------------------------
def test_clickable_widget_ships_its_assets_and_forwards_browser_events():
    widget = ClickableHTML("<b>x</b>")
    assert "export default" in widget._esm and "data-key" in widget._esm and "workbench-log-table" in widget._css
    got = []
    widget.on_event(got.append)
    widget._on_msg(widget, {"event": "sort", "column": "id"}, [])
    widget._on_msg(widget, {"not": "an event"}, [])
    assert got == [{"event": "sort", "column": "id"}]


def test_table_html_escapes_and_marks_the_selected_row():
    rows = [
        {
            "id": 7,
            "tool_name": "<t>",
            "status": "success",
            "input": {"q": "'\""},
            "output": [{"text": "<i>"}],
            "completed_at": "2026-01-01T10:11:12.000Z",
            "latency_ms": 2.5,
        }
    ]
    html = table_html(rows, total=1, selected=7)
    assert "workbench-log-row workbench-selected' data-key='7'" in html and "10:11:12" in html
    assert "&lt;t&gt;" in html and "&lt;i&gt;" in html and "<i>" not in html.replace("<i>no", "")


def test_workbench_submit_runs_off_the_calling_thread_and_logs(wb):
    _register(wb, add)
    caller = threading.get_ident()
    seen = []

    @tool
    def where() -> int:
        """Which thread."""
        seen.append(threading.get_ident())
        return 1

    _register(wb, where)
    assert wb.submit("where").result(timeout=10).json == 1 and seen and seen[0] != caller
    assert wb.submit("add", {"a": 1}).result(timeout=10).json == 2 and len(wb.log) == 2
    assert workbench.ui().log_table.execution_log is wb.log
