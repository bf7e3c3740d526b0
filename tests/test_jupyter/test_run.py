"""Running from forms: approval, cancel, progress, non-blocking runs, result rendering, the log table, ui()."""

from __future__ import annotations

import asyncio
import base64
import threading
import time

import pandas as pd
import pytest

import workbench
from tests.form_catalogue import c_int, in_thread, ip, wait_until, wb  # noqa: F401 - fixtures
from workbench import ToolContext, tool
from workbench.jupyter import Dashboard, LogTable, ToolForm
from workbench.jupyter._approval import ApprovalPrompt
from workbench.jupyter._render import safe_markdown
from workbench.jupyter._throttle import Throttle

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _form(wb, fn) -> ToolForm:
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


@tool(permission="ask")
def delete_file(path: str) -> str:
    """Delete a file (asks first)."""
    return f"deleted {path}"


@tool(long_running=True)
def slow_loop(ctx: ToolContext, seconds: float = 10.0) -> str:
    """Loop until done or cancelled."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if ctx.cancelled:
            return "stopped"
        time.sleep(0.01)
    return "done"


@tool
def steps(ctx: ToolContext, n: int = 5, pause: float = 0.07) -> str:
    """Report progress n times."""
    for i in range(1, n + 1):
        if pause:
            time.sleep(pause)
        ctx.report_progress(i / n, f"step {i} of {n}")
    return "ok"


@tool
def sleeper(seconds: float = 0.3) -> str:
    """Sleep a while."""
    time.sleep(seconds)
    return "awake"


# -- approval ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("button, status", [("approve_button", "success"), ("deny_button", "error")])
def test_approval_prompt_buttons_decide_while_run_waits(wb, button, status):
    form = _form(wb, delete_file)
    form.set_values({"path": "<img src=x onerror=alert(1)>"})
    assert form.approval.widget.layout.display == "none"
    seen = {}

    def click():
        assert form.approval.asked.wait(5), "the prompt never appeared"
        seen["visible"] = form.approval.widget.layout.display is None
        seen["message"] = form.approval.message.value
        getattr(form.approval, button).click()

    thread, errors = in_thread(click)
    result = form.run()
    thread.join(5)
    assert errors == []
    assert result.status == status
    assert seen["visible"] and "delete_file" in seen["message"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in seen["message"] and "<img src=x" not in seen["message"]
    assert form.approval.widget.layout.display == "none" and not form.approval.pending
    if status == "success":
        assert result.text == "deleted <img src=x onerror=alert(1)>"
    else:
        assert "denied" in result.error
    assert form.approval.decisions == [status == "success"]
    assert wb.log.rows()[-1]["status"] == status


def test_approval_in_a_non_blocking_run_and_cancel_denies(wb):
    form = _form(wb, delete_file)
    form.set_values({"path": "a"})
    done = form.submit()
    assert form.approval.asked.wait(5)
    assert form.cancel() is True  # cancelling while the prompt waits denies
    result = done.result(5)
    assert result.status == "error" and "denied" in result.error


def test_approval_prompt_object_directly():
    prompt = ApprovalPrompt()
    assert prompt.approve() is False  # nothing waiting

    async def main():
        task = asyncio.ensure_future(prompt.ask({"toolUseId": "t", "name": "x", "input": {"a": 1}}))
        await asyncio.sleep(0.01)
        assert prompt.pending
        threading.Thread(target=prompt.approve).start()  # from another thread
        return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) is True
    assert not prompt.pending and prompt.decisions == [True]


# -- cancel -----------------------------------------------------------------------------------------------
def test_cancel_button_stops_a_long_running_tool(wb):
    form = _form(wb, slow_loop)
    assert form.cancel_button.disabled
    started = time.monotonic()
    done = form.submit()
    assert form.running and not form.cancel_button.disabled and form.run_button.disabled
    assert wait_until(lambda: form._current_id in wb.executor.running())
    form.cancel_button.click()
    result = done.result(5)
    assert time.monotonic() - started < 5
    assert result.status == "error" and "cancelled" in result.error
    assert not form.running and form.cancel_button.disabled and not form.run_button.disabled
    assert form.progress.bar_style == "warning"  # cancelled is its own status (issue 9, defect 7)
    assert "cancelled" in form.result_html.value
    assert wb.log.rows()[-1]["error_type"] == "CancelledError"
    assert form.cancel() is False  # nothing running any more


def test_a_form_runs_one_call_at_a_time(wb):
    form = _form(wb, slow_loop)
    form.submit()
    with pytest.raises(RuntimeError, match="already running"):
        form.run()
    form.cancel()
    assert form.wait(5).status == "error"


# -- progress ---------------------------------------------------------------------------------------------
def test_progress_bar_follows_report_progress(wb):
    form = _form(wb, steps)
    result = form.run()
    assert result.ok
    history = form.progress_history
    assert len(history) >= 3, history
    assert history == sorted(history) and history[-1] == 1.0 and history[0] < 1.0
    assert form.progress.value == 1.0 and form.progress.bar_style == "success"
    assert form.progress_label.value == "step 5 of 5"
    assert form.elapsed.value.startswith("took ")


def test_progress_updates_are_throttled(wb):
    form = _form(wb, steps)
    form.set_values({"n": 3000, "pause": 0.0})
    started = time.monotonic()
    assert form.run().ok
    elapsed = time.monotonic() - started
    assert form.progress_history[-1] == 1.0
    assert len(form.progress_history) <= elapsed / 0.05 + 3, (len(form.progress_history), elapsed)


def test_throttle_delivers_the_latest_value():
    seen = []
    throttle = Throttle(seen.append, 0.05)
    for i in range(100):
        throttle(i)
    assert seen == [0]  # leading edge
    assert wait_until(lambda: seen[-1] == 99, 2)
    assert len(seen) == 2
    throttle(100)
    throttle(101)
    throttle.flush()
    assert seen[-1] == 101


# -- non-blocking runs ------------------------------------------------------------------------------------
def test_run_button_schedules_on_the_running_loop_without_blocking_it(wb):
    form = _form(wb, sleeper)

    async def main():
        started = time.monotonic()
        form.run_button.click()  # what a click in the kernel does: returns at once
        assert time.monotonic() - started < 0.2
        assert isinstance(form._task, asyncio.Task)
        ticks = 0
        while form.running:
            ticks += 1
            await asyncio.sleep(0.01)
        return ticks

    ticks = asyncio.run(main())
    assert ticks >= 5  # the loop kept running while the tool slept
    assert form.result.ok and form.result.text == "awake"
    assert "awake" in form.result_html.value


def test_without_a_loop_the_run_goes_to_a_thread(wb):
    form = _form(wb, sleeper)
    started = time.monotonic()
    done = form.submit()
    assert time.monotonic() - started < 0.2 and isinstance(form._task, threading.Thread)
    assert done.result(5).text == "awake" and form.wait() is form.result
    assert wb.log.rows()[-1]["tool_name"] == "sleeper"


def test_elapsed_label_ticks_while_running(wb):
    form = _form(wb, sleeper)
    form.set_values({"seconds": 0.5})
    form.submit()
    assert wait_until(lambda: form.elapsed.value.startswith("elapsed 0.") and form.elapsed.value != "elapsed 0.0 s", 3)
    form.wait(5)
    assert form.elapsed.value.endswith("ms") or form.elapsed.value.endswith(" s")


# -- result area ------------------------------------------------------------------------------------------
@tool
def echo_html(kind: str = "img") -> object:
    """Return hostile text."""
    payloads = {
        "img": "<img src=x onerror=alert(1)>",
        "script": "<script>alert(1)</script>",
        "json": {"html": "<script>alert(1)</script>", "n": 1},
    }
    return payloads[kind]


@pytest.mark.parametrize(
    "kind, escaped",
    [
        ("img", "&lt;img src=x onerror=alert(1)&gt;"),
        ("script", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("json", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ],
)
def test_result_area_escapes_tool_output(wb, kind, escaped):
    form = _form(wb, echo_html)
    form.set_values({"kind": kind})
    assert form.run().ok
    for html_text in (form.result_html.value, form.response_html.value):
        assert escaped in html_text
        assert "<script>" not in html_text and "<img src=x" not in html_text


def test_errors_and_tracebacks_are_escaped(wb):
    @tool
    def explode() -> str:
        """Raise."""
        raise RuntimeError("<script>alert('x')</script>")

    form = _form(wb, explode)
    result = form.run()
    assert result.status == "error"
    value = form.result_html.value
    assert "RuntimeError" in value and "<details>" in value and "traceback" in value
    assert "<script>" not in value and "&lt;script&gt;" in value
    assert form.progress.bar_style == "danger"


def test_markdown_dataframe_image_and_json_rendering(wb):
    from IPython.display import Markdown

    @tool
    def md() -> object:
        """Markdown."""
        return Markdown(
            "# Title\n\nSome **bold** and `code` <script>x</script>\n\n- one\n- two\n\n[link](https://example.org)"
        )

    @tool
    def frame() -> object:
        """A DataFrame."""
        return pd.DataFrame({"a": [1, 2], "b": ["<x>", "y"]})

    @tool
    def picture() -> bytes:
        """An image."""
        return PNG

    @tool
    def data() -> dict:
        """JSON."""
        return {"k": [1, 2]}

    html_md = _ran(wb, md)
    assert "<h1>Title</h1>" in html_md and "<b>bold</b>" in html_md and "<code>code</code>" in html_md
    assert "<li>one</li>" in html_md and "&lt;script&gt;" in html_md and "<script>" not in html_md
    assert '<a href="https://example.org"' in html_md
    html_frame = _ran(wb, frame)
    assert "<table" in html_frame and "&lt;x&gt;" in html_frame and "2 rows × 2 columns" in html_frame
    html_image = _ran(wb, picture)
    assert "<img alt='tool image'" in html_image and "data:image/png;base64," in html_image
    html_json = _ran(wb, data)
    assert "&quot;k&quot;: [\n    1," in html_json  # pretty JSON, shown once


def _ran(wb, fn) -> str:
    form = _form(wb, fn)
    assert form.run().ok
    return form.result_html.value


def test_safe_markdown_keeps_links_to_http_only():
    out = safe_markdown('[x](javascript:alert(1)) [y](https://a.b/?q=1&r="2")')
    assert "javascript:alert(1)" in out and 'href="javascript' not in out
    assert '<a href="https://a.b/?q=1&amp;r=&quot;2&quot;"' in out


def test_returns_mismatch_is_a_visible_warning(wb):
    @tool
    def liar() -> int:
        """Claims an int."""
        return "not a number"  # type: ignore[return-value]

    form = _form(wb, liar)
    result = form.run()
    assert result.ok and result.metadata.get("returns_mismatch")
    assert form.warning.layout.display is None and "returns" in form.warning.value
    form2 = _form(wb, c_int)
    form2.run()
    assert form2.warning.layout.display == "none"


# -- log table --------------------------------------------------------------------------------------------
def test_log_table_updates_after_calls(wb):
    table = LogTable(wb.log, interval=0.05, truncate=20)
    assert "no calls yet" in table.table.value
    form = _form(wb, echo_html)
    form.set_values({"kind": "script"})
    form.run()
    long_form = _form(wb, c_int)
    long_form.set_values({"n": 123456789012345})
    long_form.run()
    assert wait_until(lambda: "c_int" in table.table.value)
    value = table.table.value
    assert value.index("c_int") < value.index("echo_html")  # newest first
    assert "&lt;script&gt;" in value and "<script>" not in value
    assert "workbench-status workbench-status-success" in value  # success is coloured (by a --jp-* class, issue 9)
    assert 'title="{&quot;n&quot;: 123456789012345}"' in value  # full input in the tooltip
    assert list(table.dataframe["tool_name"]) == ["c_int", "echo_html"]
    assert "2 calls logged" in value


def test_log_table_shows_errors_and_filters(wb):
    table = LogTable(wb.log, interval=0.01)
    form = _form(wb, c_int)
    form.set_values({"n": 1})
    form.run()
    wb.call("c_int", {"n": "not an int"})
    assert wait_until(lambda: "ToolInput" in table.table.value or "expected" in table.table.value)
    assert "workbench-status-error" in table.table.value
    table.status_filter.value = "error"
    assert list(table.dataframe["status"]) == ["error"]
    table.status_filter.value = "any status"
    assert "c_int" in table.tool_filter.options
    table.tool_filter.value = "c_int"
    assert len(table.dataframe) == 2
    table.close()
    refreshes = table.refreshes
    wb.call("c_int", {"n": 2})
    time.sleep(0.05)
    assert table.refreshes == refreshes  # a closed table stops following the log


def test_log_table_refreshes_are_throttled(wb):
    wb.registry.register_tool(c_int)
    table = LogTable(wb.log, interval=0.2)
    before = table.refreshes
    for i in range(30):
        wb.call("c_int", {"n": i})
    table.flush()
    assert 1 <= table.refreshes - before <= 4
    assert len(table.dataframe) == 30


# -- dashboard --------------------------------------------------------------------------------------------
def test_ui_lists_the_tools_plus_the_log_and_follows_the_registry(ip, wb):
    # was a tab per tool (issue 9 defect 11: names cut off); now a searchable list and the selected tool's form
    ip.run_cell('%%tool --no-form\ndef one(x: int) -> int:\n    """One."""\n    return x', store_history=False)
    ip.run_cell('%%tool --no-form\ndef two(x: int) -> int:\n    """Two."""\n    return x', store_history=False)
    dashboard = workbench.ui()
    assert isinstance(dashboard, Dashboard) and dashboard is wb.ui()
    assert dashboard.tool_names == ["one", "two"] and dashboard.selected == "one"
    assert isinstance(dashboard.form, ToolForm) and isinstance(dashboard.log_table, LogTable)
    ip.run_cell('%%tool --no-form\ndef three(x: int) -> int:\n    """Three."""\n    return x', store_history=False)
    assert dashboard.tool_names == ["one", "two", "three"]
    old = dashboard.form
    ip.run_cell(
        '%%tool --no-form\ndef one(x: int) -> int:\n    """One again."""\n    return x + 1', store_history=False
    )
    assert dashboard.tool_names == ["one", "two", "three"] and dashboard.form is not old
    wb.registry.unregister("two")
    assert dashboard.tool_names == ["one", "three"]
    # a run from the dashboard's form shows up in its log
    form = dashboard.form
    form.set_values({"x": 1})
    assert form.run().json == 2
    assert wait_until(lambda: "one" in dashboard.log_table.table.value)
