"""A 1,000-tool catalog in the dashboard (issue #22), in a real JupyterLab in Debian's chromium: the
list shows a page of tools (one HTML widget), the search narrows it, clicking a tool builds its form."""

from __future__ import annotations

import re

import pytest

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "catalog.ipynb"

CELLS = [
    "%load_ext workbench",
    "import sys, tempfile, pathlib\n"
    f"sys.path.insert(0, {str(lab.__file__).rsplit('/tests/', 1)[0]!r})\n"
    "from tests.catalog_tools import write_catalog\n"
    "from workbench.jupyter import get_workbench\n"
    "folder = pathlib.Path(tempfile.mkdtemp())\n"
    "write_catalog(folder, 1000, 'browser_catalog_1000')\n"
    "sys.path.insert(0, str(folder))\n"
    "wb = get_workbench()\n"
    "wb.registry.process_tools(['browser_catalog_1000'])\n"
    "len(wb.registry)",
    "dash = wb.ui()\ndash",
    "len(dash.forms)",
]
DASH_CELL = 2


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    lab.write_notebook(lab_server["root"], NOTEBOOK, CELLS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{lab_server['base']}/lab/tree/{NOTEBOOK}?token={lab_server['token']}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
        page.wait_for_function(lab.KERNEL_READY, timeout=90_000)
        lab.run_all_cells(page)
        yield page
    finally:
        context.close()


def test_a_1000_tool_dashboard_lists_a_page_searches_and_builds_the_clicked_form(lab_page):
    page = lab_page
    dash = page.locator(".jp-Notebook .jp-CodeCell").nth(DASH_CELL).locator(".workbench-dashboard")
    dash.wait_for(timeout=120_000)
    items = dash.locator(".workbench-tool-item")
    items.first.wait_for(timeout=60_000)
    assert items.count() == 100
    assert "900 more" in dash.locator(".workbench-tool-list").inner_text()
    assert "1000 tools" in dash.inner_text()
    assert dash.locator(".workbench-form").count() == 0  # no form until a tool is selected
    dash.get_by_placeholder("Search tools…").fill("invoice_tool_0009")
    dash.locator(".workbench-tool-item").filter(has_text="weather_tool_0000").wait_for(state="detached", timeout=30_000)
    assert dash.locator(".workbench-tool-item").count() == 1
    dash.locator(".workbench-tool-item").first.click()
    dash.locator(".workbench-form-invoice_tool_0009").wait_for(timeout=30_000)
    assert re.search(r"query", dash.locator(".workbench-form-invoice_tool_0009").inner_text())
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "catalog-dashboard.png"), full_page=False)
