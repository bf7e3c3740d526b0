"""Issue 9, defects 12 and 13 in a real JupyterLab in Debian's chromium.

12: a form of a tool whose MCP server is gone shows it — a banner and a disabled Run button — after
``conn.disconnect()`` and after the server process is killed. The notebook starts a real stdio server
(``python -m workbench.mcp serve tests.mcp_sample_tools``, run in the repository), shows a proxy's
form; the test runs it once by clicking, then adds and runs a cell that ends the connection.

13: ``%tool_log`` and the live log table list the same calls in the same, newest-first, order.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS, ROOT

MCP_NOTEBOOK = "defect_12_disconnected.ipynb"
LOG_NOTEBOOK = "defect_13_log_order.ipynb"

MCP_CELLS = [
    "%load_ext workbench",
    "import sys\n"
    f"REPO = {str(ROOT)!r}\n"
    "sys.path.insert(0, REPO)\n"
    "from workbench.jupyter import get_workbench\n"
    "from workbench.mcp import connect\n\n"
    "wb = get_workbench()\n"
    "SERVE = [sys.executable, '-m', 'workbench.mcp', 'serve', 'tests.mcp_sample_tools']\n"
    "conn = connect(command=SERVE, registry=wb.registry, cwd=REPO, connect_timeout=180)\n"
    "killed = connect(command=SERVE, registry=wb.registry, cwd=REPO, prefix='k_', connect_timeout=180)\n"
    "len(conn.tools), len(killed.tools)",
    "wb.form('add')",
    "wb.form('k_add')",
]

# the calls, oldest first; each tool's name is on its rows in both views
CALLED = ["first_tool", "second_tool", "third_tool"]
LOG_CELLS = [
    "%load_ext workbench",
    "from workbench import tool\n"
    "from workbench.jupyter import get_workbench\n\n"
    "wb = get_workbench()\n\n"
    + "".join(
        f'@tool\ndef {name}(x: int) -> int:\n    """Call number {i}."""\n    return x + {i}\n\n'
        for i, name in enumerate(CALLED, 1)
    )
    + "for name in "
    + repr(CALLED)
    + ":\n"
    "    wb.registry.register_tool(globals()[name])\n"
    "    assert wb.call(name, {'x': 1}).status == 'success'\n"
    "len(wb.log)",
    "%tool_log",
    "wb.log_table()",
]
TOOL_LOG_CELL, LOG_TABLE_CELL = 2, 3


def _cell(page, index: int):
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index)


_form = lab.form_of


_row_input = lab.row_input


def _run_once(form, a: int, b: int) -> None:
    """Fill the form of ``add``, click Run and wait for the sum."""
    for label, value in (("a", a), ("b", b)):
        box = _row_input(form, label)
        box.fill(str(value))
        box.press("Tab")
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text(re.compile(rf"\b{a + b}\b")).first.wait_for(timeout=60_000)
    expect(form.locator(".workbench-run")).to_be_enabled()


_add_and_run_cell = lab.add_and_run_cell


def _banner(form):
    return form.get_by_text(re.compile("was disconnected")).first


_close_notebook = lab.close_notebook


# -- defect 13 first: its page is closed before the module's MCP page opens -------------------------------
def _called_tools(rows) -> list[str]:
    """For each row (top to bottom), which of the called tools it is about."""
    order = []
    for text in rows.all_inner_texts():
        found = [name for name in CALLED if re.search(rf"\b{name}\b", text)]
        assert len(found) == 1, text
        order.append(found[0])
    return order


def test_tool_log_and_the_live_log_table_list_calls_newest_first(lab_server, browser):
    """Defect 13: one order everywhere — the newest call on top in ``%tool_log`` and in the live table."""
    with lab.notebook_page(lab_server, browser, LOG_NOTEBOOK, LOG_CELLS, ready=".workbench-log-table tbody tr") as page:
        try:
            magic_rows = _cell(page, TOOL_LOG_CELL).locator(".jp-OutputArea table tbody tr")
            table_rows = _cell(page, LOG_TABLE_CELL).locator("table.workbench-log-table tbody tr")
            expect(magic_rows).to_have_count(len(CALLED), timeout=60_000)
            expect(table_rows).to_have_count(len(CALLED), timeout=60_000)
            magic, table = _called_tools(magic_rows), _called_tools(table_rows)
            assert table == magic, {"%tool_log": magic, "log_table()": table}
            assert magic == CALLED[::-1], magic  # newest first
            ARTIFACTS.mkdir(exist_ok=True)
            _cell(page, TOOL_LOG_CELL).scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "defect-13-log-order.png"), full_page=False)
        finally:
            _close_notebook(page, lab_server)


# -- defect 12 --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mcp_page(lab_server, browser):
    with lab.notebook_page(
        lab_server, browser, MCP_NOTEBOOK, MCP_CELLS, ready=".workbench-form-k_add", width=1200
    ) as page:
        yield page
        _add_and_run_cell(page, "killed.disconnect(); conn.disconnect()\n'done'", "done")  # no server outlives the lab


def test_a_form_of_a_disconnected_mcp_server_shows_a_banner_and_disables_run(mcp_page):
    """Defect 12: run once (live), then ``conn.disconnect()`` in a cell: banner visible, Run disabled —
    in the light and the dark theme."""
    page = mcp_page
    form = _form(page, "add")
    expect(_banner(form)).to_have_count(0)
    _run_once(form, 2, 3)

    _add_and_run_cell(page, "conn.disconnect()\n'the cell ran'", "the cell ran")
    form = _form(page, "add")
    banner = _banner(form)
    expect(banner).to_be_visible(timeout=60_000)
    expect(form.locator(".workbench-run")).to_be_disabled()
    # not the blue primary button any more: disabled, it looked live in the dark theme
    expect(form.locator(".workbench-run")).not_to_have_class(re.compile(r"\bmod-primary\b"))
    assert "tests.mcp_sample_tools" in banner.inner_text()  # it names the server
    assert "5" in form.locator(".workbench-result-area").inner_text()  # the earlier result stays readable

    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "defect-12-disconnected-light.png"))
    light = banner.evaluate(lab.CONTRAST)
    try:
        lab.set_theme(page, "JupyterLab Dark")
        form = _form(page, "add")
        expect(_banner(form)).to_be_visible()
        expect(form.locator(".workbench-run")).to_be_disabled()
        dark = _banner(form).evaluate(lab.CONTRAST)
        form.screenshot(path=str(ARTIFACTS / "defect-12-disconnected-dark.png"))
    finally:
        lab.set_theme(page, "JupyterLab Light")
    assert light["contrast"] >= 4.5 and dark["contrast"] >= 4.5, (light, dark)


def test_a_form_of_a_killed_mcp_server_shows_a_banner_and_disables_run(mcp_page):
    """Defect 12, the server process dies (SIGKILL) without ``disconnect()``: the form says so too."""
    page = mcp_page
    form = _form(page, "k_add")
    expect(_banner(form)).to_have_count(0)
    _run_once(form, 4, 5)

    _add_and_run_cell(
        page, "import os, signal\nos.kill(wb.call('k_server_pid').value, signal.SIGKILL)\n'killed'", "killed"
    )
    form = _form(page, "k_add")
    expect(_banner(form)).to_be_visible(timeout=60_000)
    expect(form.locator(".workbench-run")).to_be_disabled()
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "defect-12-killed-light.png"))
