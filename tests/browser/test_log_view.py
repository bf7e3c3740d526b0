"""The log view and the dashboard (issue 9) in a real JupyterLab in Debian's chromium.

The module writes its own notebook (tools, a few calls, ``%tool_call`` of an unknown tool and of a
DataFrame tool, the live log table, the dashboard), runs it once, then clicks as a user does: padded
cells coloured by the theme (9), a row opening its details, load into form, re-run, sort, filter,
copy as JSON, the dashboard's searchable tool list and separate forms (11), Run All going past an
unknown tool and a DataFrame shown as a table (13), and a saved log table opened before it runs (14).
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "log_view.ipynb"
SAVED_NOTEBOOK = "log_view_saved.ipynb"

CELLS = [
    "%load_ext workbench",
    '%%tool\ndef add(a: int, b: int = 1) -> int:\n    """Add two numbers."""\n    return a + b\n',
    "from workbench import tool\n"
    "from workbench.jupyter import get_workbench\n\n"
    "wb = get_workbench()\n"
    "for i in range(15):\n"
    "    name = f'a_rather_long_tool_name_number_{i:02d}'\n"
    "    ns = {}\n"
    '    exec(f\'def {name}(x: int = 0) -> int:\\n    """Tool number {i} does thing {i}.\\n\\n\'\n'
    '         f\'    More text."""\\n    return x + {i}\\n\', ns)\n'
    "    wb.registry.register_tool(tool(ns[name]))\n",
    "%%tool --no-form\n"
    "import pandas as pd\n\n"
    "def frame(n: int = 2) -> pd.DataFrame:\n"
    '    """A small table."""\n'
    "    return pd.DataFrame({'x': list(range(n)), 'label': ['<b>not bold</b>'] * n})\n",
    "%tool_call nope a=1",
    "%tool_call frame n=3",
    "for i in range(6):\n    wb.call('add', {'a': i, 'b': 10 * i})\nwb.call('add', {'a': 'oops'})\n'calls done'",
    "wb.log_table()",
    "wb.ui()",
    "'the end'",
]
ADD_CELL, UNKNOWN_CELL, FRAME_CELL, LOG_CELL, DASH_CELL, LAST_CELL = 1, 4, 5, 7, 8, 9


def _open(page, lab_server, name: str) -> list[str]:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{lab_server['base']}/lab/tree/{name}?token={lab_server['token']}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    news = page.locator(".jp-toast-button", has_text=re.compile(r"^\s*No\s*$"))  # "notified about Jupyter news?" toast
    try:
        news.first.click(timeout=3_000)
    except Exception:  # noqa: BLE001 - the toast did not show up: nothing to dismiss
        pass
    return dialogs


def _run_all(page) -> None:
    page.wait_for_function(lab.KERNEL_READY, timeout=90_000)
    lab.run_all_cells(page)


def _all_ran(page) -> bool:
    return page.evaluate(lab.ALL_CELLS_RAN)


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    """The notebook is written, opened and run once; the tests share the page (each uses its own rows)."""
    lab.write_notebook(lab_server["root"], NOTEBOOK, CELLS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab_server["base"])
    page = context.new_page()
    try:
        dialogs = _open(page, lab_server, NOTEBOOK)
        _run_all(page)
        # Run All stops at a cell that raises, so the last cell only runs if %tool_call nope did not raise
        _cell(page, LAST_CELL).locator(".jp-OutputArea").get_by_text("the end").wait_for(timeout=120_000)
        _cell(page, LOG_CELL).locator("table.workbench-log-table tbody tr").first.wait_for(timeout=60_000)
        yield page
        assert dialogs == []
    finally:
        context.close()


def _cell(page, index: int):
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index)


def _log(page):
    return _cell(page, LOG_CELL).locator(".workbench-log").first


def _rows(scope):
    return scope.locator("table.workbench-log-table tbody tr.workbench-log-row")


def _caption_count(scope) -> int:
    text = scope.locator("table.workbench-log-table caption").inner_text()
    return int(re.match(r"([\d,]+) call", text).group(1).replace(",", ""))


def _wait_caption(scope, count: int) -> None:
    scope.locator("table.workbench-log-table caption").filter(
        has_text=re.compile(rf"^{count:,} calls? logged")
    ).wait_for(timeout=30_000)


_VAR_COLOUR = """(el, name) => {
  const probe = document.createElement('span');
  probe.style.color = `var(${name})`;
  el.appendChild(probe);
  const value = getComputedStyle(probe).color;
  probe.remove();
  return value;
}"""


def _look(log) -> dict:
    """Padding, status and text colours of the first rows, and what the theme variables resolve to."""
    success = log.locator(".workbench-status-success").first
    error = log.locator(".workbench-status-error").first
    cell = _rows(log).first.locator("td").nth(2)
    return {
        "padding": cell.evaluate("(el) => [getComputedStyle(el).paddingLeft, getComputedStyle(el).paddingTop]"),
        "success": success.evaluate("(el) => getComputedStyle(el).color"),
        "error": error.evaluate("(el) => getComputedStyle(el).color"),
        "text": cell.evaluate("(el) => getComputedStyle(el).color"),
        "success_contrast": success.evaluate(lab.CONTRAST)["contrast"],
        "error_contrast": error.evaluate(lab.CONTRAST)["contrast"],
        "jp_text": cell.evaluate(_VAR_COLOUR, "--jp-ui-font-color1"),
    }


def test_log_cells_are_padded_and_coloured_by_the_jupyterlab_theme(lab_page):
    """Defect 9 (log part): padded cells; text in the theme's --jp-* colour, statuses readable (contrast ≥ 4.5), light and dark."""
    page = lab_page
    cell = _cell(page, LOG_CELL).locator("table.workbench-log-table tbody tr").first.locator("td").nth(2)
    cell.scroll_into_view_if_needed()
    padding = cell.evaluate("(el) => [getComputedStyle(el).paddingLeft, getComputedStyle(el).paddingTop]")
    assert all(float(v.rstrip("px")) >= 4 for v in padding), padding
    log = _log(page)
    light = _look(log)
    text = _rows(log).first.inner_text()
    assert re.search(r"\d{2}:\d{2}:\d{2}\s+add\s+(success|error)", text), text  # cells apart, not "23:36:36addsuccess"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "log-view-light.png"), full_page=False)
    lab.set_theme(page, "JupyterLab Dark")
    try:
        dark = _look(log)
        log.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "log-view-dark.png"), full_page=False)
    finally:
        lab.set_theme(page, "JupyterLab Light")
    for look in (light, dark):
        assert look["text"] == look["jp_text"], look
        for status in ("success", "error"):  # the theme's status colour, mixed towards the font colour: readable
            assert look[f"{status}_contrast"] >= 4.5, (status, look)
    assert light["text"] != dark["text"] and light["success"] != dark["success"] and light["error"] != dark["error"]


def test_clicking_a_row_opens_the_full_request_and_result(lab_page):
    log = _log(lab_page)
    details = log.locator(".workbench-log-details")
    assert not details.is_visible()
    row = _rows(log).filter(has_text='"a": 3').first
    row.click()
    details.wait_for(state="visible", timeout=30_000)
    assert row.evaluate("(el) => el.classList.contains('workbench-selected')")
    body = details.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    details.scroll_into_view_if_needed()
    lab_page.screenshot(path=str(ARTIFACTS / "log-view-details.png"), full_page=False)
    assert re.search(r'"a": 3,\s*"b": 30', body) and "33" in body and "request (input)" in body.lower()
    copy = details.get_by_role("button", name="Copy the call as JSON")
    copy.click()
    details.locator("button[data-copied='yes']").wait_for(timeout=30_000)
    copied = json.loads(lab_page.evaluate("() => navigator.clipboard.readText()"))
    assert copied["input"] == {"a": 3, "b": 30} and copied["tool_name"] == "add" and copied["status"] == "success"

    # keyboard: rows are focusable, Enter opens one
    log.locator(".workbench-log-details").get_by_role("button").last.click()  # close (×)
    details.wait_for(state="hidden", timeout=30_000)
    other = _rows(log).filter(has_text='"a": 1,').first
    other.focus()
    other.press("Enter")
    details.get_by_text(re.compile(r'"b": 10')).first.wait_for(timeout=30_000)


def test_load_into_form_puts_the_row_input_into_the_form(lab_page):
    log = _log(lab_page)
    _rows(log).filter(has_text='"a": 4').first.click()
    log.get_by_role("button", name="Load into form").click()
    form = log.locator(".workbench-form-add")
    form.wait_for(state="visible", timeout=30_000)
    inputs = form.locator("input:not([type='checkbox'])")
    expect(inputs.nth(0)).to_have_value("4", timeout=30_000)
    expect(inputs.nth(1)).to_have_value("40", timeout=30_000)
    cell_form = _cell(lab_page, ADD_CELL).locator(".workbench-form-add")
    assert (
        cell_form.locator("input:not([type='checkbox'])").first.input_value() != "4"
    )  # the cell's form is another widget
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text("44").first.wait_for(timeout=30_000)


def test_rerun_adds_a_row(lab_page):
    log = _log(lab_page)
    _rows(log).filter(has_text='"a": 2').first.click()
    before = _caption_count(log)
    log.get_by_role("button", name="Re-run").click()
    _wait_caption(log, before + 1)
    newest = _rows(log).first.inner_text()
    assert '"a": 2' in newest and "success" in newest
    log.get_by_text(re.compile(r"re-ran call #\d+: success")).wait_for(timeout=30_000)


def test_sort_by_a_header_and_filter(lab_page):
    log = _log(lab_page)
    ids = lambda: [int(_rows(log).nth(i).locator("td").first.inner_text()) for i in range(_rows(log).count())]  # noqa: E731
    newest_first = ids()
    assert newest_first == sorted(newest_first, reverse=True)
    header = log.locator("th[data-sort='latency_ms']")
    header.click()
    log.locator("th[data-sort='latency_ms'][aria-sort='descending']").wait_for(timeout=30_000)
    ms = [float(_rows(log).nth(i).locator("td").last.inner_text()) for i in range(_rows(log).count())]
    assert ms == sorted(ms, reverse=True)
    log.locator("th[data-sort='latency_ms']").click()
    log.locator("th[data-sort='latency_ms'][aria-sort='ascending']").wait_for(timeout=30_000)
    log.locator("th[data-sort='id']").click()  # back to newest first
    log.locator("th[data-sort='id'][aria-sort='descending']").wait_for(timeout=30_000)

    search = log.get_by_placeholder(re.compile("filter: text"))
    search.fill("oops")
    log.locator("caption").filter(has_text=" 1 match").wait_for(timeout=30_000)
    assert _rows(log).count() == 1 and "error" in _rows(log).first.inner_text()
    search.fill("")
    log.locator("caption").filter(has_text=re.compile("match")).wait_for(state="detached", timeout=30_000)
    log.locator("select").nth(1).select_option("error")
    log.locator("caption").filter(has_text=" 2 matches").wait_for(timeout=30_000)  # "oops" and the unknown tool
    assert {_rows(log).nth(i).locator(".workbench-status").inner_text() for i in range(2)} == {"error"}
    log.locator("select").nth(1).select_option("any status")
    log.locator("select").first.select_option("frame")
    log.locator("caption").filter(has_text=" 1 match").wait_for(timeout=30_000)
    log.locator("select").first.select_option("(all tools)")


def test_dashboard_lists_the_tools_searchably_and_has_its_own_forms(lab_page):
    """Defect 11: no cut-off tab names — every name readable with its first description line and a
    tooltip; a search box; the dashboard's form is not the one under the %%tool cell."""
    page = lab_page
    output = _cell(page, DASH_CELL).locator(".jp-OutputArea")
    output.locator(".jupyter-widgets").first.wait_for(timeout=30_000)
    assert output.locator(".lm-TabBar, .widget-tab").count() == 0  # no tab strip cutting the names off
    dash = output.locator(".workbench-dashboard")
    dash.scroll_into_view_if_needed()
    items = dash.locator(".workbench-tool-item")
    assert items.count() == 17  # add, 15 long names, frame
    for i in range(items.count()):
        name = items.nth(i).locator(".workbench-tool-name")
        assert name.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1"), name.inner_text()  # not cut off
        assert items.nth(i).get_attribute("title")
    assert "Tool number 7 does thing 7." in items.filter(has_text="number_07").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-light.png"), full_page=False)

    dash.get_by_placeholder("Search tools…").fill("thing 12")
    dash.locator(".workbench-tool-item").filter(has_text="number_03").wait_for(state="detached", timeout=30_000)
    assert dash.locator(".workbench-tool-item").count() == 1
    dash.locator(".workbench-tool-item").first.click()
    dash.locator(".workbench-form-a_rather_long_tool_name_number_12").wait_for(timeout=30_000)
    dash.get_by_placeholder("Search tools…").fill("")

    dash.locator(".workbench-tool-item").filter(has_text=re.compile(r"^\s*add")).first.click()
    dash_form = dash.locator(".workbench-form-add")
    dash_form.wait_for(timeout=30_000)
    cell_input = _cell(page, ADD_CELL).locator(".workbench-form-add input:not([type='checkbox'])").first
    before = cell_input.input_value()
    box = dash_form.locator("input:not([type='checkbox'])").first
    box.fill("77")
    box.press("Tab")
    page.wait_for_timeout(300)
    assert cell_input.input_value() == before  # editing the dashboard's form leaves the cell's form alone
    lab.set_theme(page, "JupyterLab Dark")
    try:
        dash.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "dashboard-dark.png"), full_page=False)
        item = dash.locator(".workbench-tool-item").first
        colours = item.locator(".workbench-tool-desc").evaluate(
            "(el) => [getComputedStyle(el).color, (() => { const p = document.createElement('span');"
            " p.style.color = 'var(--jp-ui-font-color2)'; el.appendChild(p); const c = getComputedStyle(p).color; p.remove(); return c; })()]"
        )
        assert colours[0] == colours[1]
    finally:
        lab.set_theme(page, "JupyterLab Light")


def test_run_all_goes_past_a_tool_call_of_an_unknown_tool(lab_page):
    """Defect 13: an unknown tool is an error result, not a UsageError (the fixture waited for the last cell)."""
    unknown = _cell(lab_page, UNKNOWN_CELL).locator(".jp-OutputArea")
    assert "Unknown tool 'nope'" in unknown.inner_text() and "UsageError" not in unknown.inner_text()
    assert (
        _cell(lab_page, UNKNOWN_CELL)
        .locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        .count()
        == 0
    )
    assert "the end" in _cell(lab_page, LAST_CELL).locator(".jp-OutputArea").inner_text()


def test_tool_call_shows_a_dataframe_as_a_table(lab_page):
    """Defect 13: a DataFrame result is a (padded, escaped) table, not its plain-text dump."""
    table = _cell(lab_page, FRAME_CELL).locator(".jp-OutputArea table")
    table.wait_for(timeout=30_000)
    assert table.locator("tbody tr").count() == 3
    assert table.locator("td").filter(has_text="<b>not bold</b>").count() == 3  # escaped: shown, not rendered
    padding = table.locator("td").first.evaluate("(el) => parseFloat(getComputedStyle(el).paddingLeft)")
    assert padding >= 4


def _saved_bundle() -> dict:
    """What a saved notebook holds for ``wb.log_table()``: the mimebundle the kernel sent."""
    from workbench import ExecutionLog, ToolResult
    from workbench.jupyter import LogTable

    log = ExecutionLog()
    for i, status in enumerate(("success", "error")):
        metadata = {"tool_name": "greet", "latency_ms": 1.5}
        if status == "error":
            metadata.update(error_type="ValueError", error="ValueError: boom")
        log.append(
            ToolResult(
                toolUseId=f"t{i}",
                status=status,
                content=[{"text": f"Hello {i}"}],
                metadata=metadata,
                started_at="2026-01-01T23:36:35.000Z",
                completed_at="2026-01-01T23:36:36.000Z",
            ),
            {"name": "greet", "input": {"name": f"user{i}"}},
        )
    table = LogTable(log)
    data = table._repr_mimebundle_()
    table.close()
    return data[0] if isinstance(data, tuple) else data


def test_a_saved_log_table_opened_before_running_shows_a_table(lab_server, browser):
    """Defect 14 (table part): no ``LogTable(children=…`` text — a readable, padded table."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("get_workbench().log_table()", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", data=_saved_bundle(), execution_count=1)]
    nb.cells = [cell]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(lab_server["root"] / SAVED_NOTEBOOK))
    context = browser.new_context(viewport={"width": 1400, "height": 700})
    page = context.new_page()
    try:
        _open(page, lab_server, SAVED_NOTEBOOK)
        output = page.locator(".jp-OutputArea-output").first
        output.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)  # let any renderer settle
        text = output.inner_text()
        assert "LogTable(" not in text and "children=" not in text, text
        table = output.locator("table")
        assert table.count() == 1, text
        assert table.locator("tbody tr").count() == 2 and "user1" in text and "ValueError: boom" in text
        assert re.search(r"23:36:36\s+greet\s+error", table.locator("tbody tr").first.inner_text())
        assert float(table.locator("td").first.evaluate("(el) => parseFloat(getComputedStyle(el).paddingLeft)")) >= 4
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "log-view-saved.png"), full_page=False)
    finally:
        context.close()
