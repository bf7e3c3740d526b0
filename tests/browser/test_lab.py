"""Real JupyterLab in Debian's chromium: run tutorial 1, use the form, see the result and the log row."""

from __future__ import annotations

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS, ROOT

DOCS = ROOT / "docs"

NOTEBOOK = "01_getting_started.ipynb"


def open_and_run_all(page, lab_server) -> list[str]:
    return lab.open_and_run_all(page, lab_server, NOTEBOOK)


def test_tutorial_form_run_result_and_log_row(page, lab_server):
    dialogs = open_and_run_all(page, lab_server)
    form = page.locator(".workbench-form-greet").first
    form.wait_for(state="visible", timeout=60_000)
    log_rows = page.locator(".workbench-log-table tbody tr")
    page.wait_for_function(
        "() => document.querySelectorAll('.workbench-log-table tbody tr').length >= 3", timeout=30_000
    )
    rows_before = log_rows.count()

    name_input = form.locator("input[type='text']").first
    name_input.fill("Browser")
    name_input.press("Tab")
    form.locator(".workbench-run").click()

    result = form.locator(".workbench-result-area")
    result.get_by_text("Hello, Browser.").wait_for(timeout=30_000)
    page.wait_for_function(
        f"() => document.querySelectorAll('.workbench-log-table tbody tr').length > {rows_before}", timeout=30_000
    )
    # the new call is the newest row of the live log table (the table is newest first)
    page.locator(".workbench-log-table tbody tr", has_text="Browser").first.wait_for(timeout=30_000)

    # the README's screenshots are taken here (docs/), light and dark
    ARTIFACTS.mkdir(exist_ok=True)
    page.add_style_tag(content=".Toastify { display: none !important; }")  # JupyterLab's news toast
    log_table = page.locator(".workbench-log-table", has_text="Browser").first
    for theme, suffix in (("JupyterLab Light", ""), ("JupyterLab Dark", "-dark")):
        lab.set_theme(page, theme)
        form.scroll_into_view_if_needed()
        form.locator(".workbench-run").wait_for(state="visible", timeout=30_000)
        page.screenshot(path=str(DOCS / f"form{suffix}.png"), full_page=False)
        # JupyterLab renders cells as they scroll in: wait for the table itself before the picture
        log_table.scroll_into_view_if_needed()
        log_table.locator("tbody tr", has_text="Browser").first.wait_for(state="visible", timeout=30_000)
        page.wait_for_timeout(300)
        page.screenshot(path=str(DOCS / f"log-table{suffix}.png"), full_page=False)
    lab.set_theme(page, "JupyterLab Light")
    assert dialogs == []


def test_hostile_tool_output_is_text_not_script(page, lab_server):
    dialogs = open_and_run_all(page, lab_server)
    hostile = "<img src=x onerror=alert(1)>"
    page.get_by_text(hostile).first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)  # give a (wrongly) injected onerror handler time to fire
    assert dialogs == []
    assert page.locator(".jp-OutputArea img[src='x']").count() == 0
    assert page.evaluate("() => window.__xss === undefined")
