"""Real JupyterLab in Debian's chromium: run tutorial 1, use the form, see the result and the log row."""

from __future__ import annotations

import re

from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "01_getting_started.ipynb"


def open_and_run_all(page, lab_server) -> list[str]:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{lab_server['base']}/lab/tree/{NOTEBOOK}?token={lab_server['token']}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel", timeout=90_000)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # the last cell has run once every cell shows an execution count and the kernel is idle
    page.wait_for_function(
        "() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;"
        " const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent);"
        " return s.kernelDisplayStatus === 'idle' && prompts.length && prompts.every(p => /\\[\\d+\\]/.test(p)); }",
        timeout=120_000)
    return dialogs


def test_tutorial_form_run_result_and_log_row(page, lab_server):
    dialogs = open_and_run_all(page, lab_server)
    form = page.locator(".workbench-form-greet").first
    form.wait_for(state="visible", timeout=60_000)
    log_rows = page.locator(".workbench-log-table tbody tr")
    page.wait_for_function("() => document.querySelectorAll('.workbench-log-table tbody tr').length >= 3", timeout=30_000)
    rows_before = log_rows.count()

    name_input = form.locator("input[type='text']").first
    name_input.fill("Browser")
    name_input.press("Tab")
    form.locator(".workbench-run").click()

    result = form.locator(".workbench-result-area")
    result.get_by_text("Hello, Browser.").wait_for(timeout=30_000)
    page.wait_for_function(f"() => document.querySelectorAll('.workbench-log-table tbody tr').length > {rows_before}",
                           timeout=30_000)
    assert re.search(r"Browser", page.locator(".workbench-log-table").first.inner_text())

    ARTIFACTS.mkdir(exist_ok=True)
    form.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "tutorial1-form.png"), full_page=False)
    page.locator(".workbench-log-table").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "tutorial1-log.png"), full_page=False)
    assert dialogs == []


def test_hostile_tool_output_is_text_not_script(page, lab_server):
    dialogs = open_and_run_all(page, lab_server)
    hostile = "<img src=x onerror=alert(1)>"
    page.get_by_text(hostile).first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)  # give a (wrongly) injected onerror handler time to fire
    assert dialogs == []
    assert page.locator(".jp-OutputArea img[src='x']").count() == 0
    assert page.evaluate("() => window.__xss === undefined")
