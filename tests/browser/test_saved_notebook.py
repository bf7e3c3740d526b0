"""Issue 22 defect 1: a notebook saved from JupyterLab and reopened before running shows its forms and
log table, not "Error displaying widget: model not found".

The notebook is run and saved by JupyterLab itself (so it is trusted, and JupyterLab picks the widget
view over the ``text/html`` fallback), then opened in a fresh page on a new kernel and not run.
"""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "saved_reopened.ipynb"
CELLS = [
    "%load_ext workbench",
    '%%tool\ndef greet(name: str = \'world\') -> str:\n    """Say hello to someone."""\n    return \'hello \' + name\n',
    "from workbench.jupyter import get_workbench\n"
    "get_workbench().call('greet', {'name': 'ada'})\n"
    "get_workbench().log_table()",
]


def _shut_down_kernels(lab_server: dict) -> None:
    """Shut down every running kernel through the server's REST API (as "Shut Down All Kernels" does)."""
    headers = {"Authorization": f"token {lab_server['token']}"}
    with urllib.request.urlopen(
        urllib.request.Request(f"{lab_server['base']}/api/kernels", headers=headers)
    ) as response:
        kernels = json.loads(response.read())
    for kernel in kernels:
        request = urllib.request.Request(
            f"{lab_server['base']}/api/kernels/{kernel['id']}", headers=headers, method="DELETE"
        )
        urllib.request.urlopen(request, timeout=30).close()


def test_a_saved_notebook_reopened_before_running_shows_forms_and_log_table(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-greet") as page:
        page.get_by_text("hello ada").first.wait_for(timeout=60_000)
        lab.close_notebook(page, lab_server)  # saves it, as a user's Ctrl+S does
    _shut_down_kernels(lab_server)  # else the reopened notebook joins the old kernel, whose models live on

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{lab_server['base']}/lab/tree/{NOTEBOOK}?token={lab_server['token']}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
        page.wait_for_function(lab.KERNEL_READY, timeout=90_000)  # a new kernel: nothing of the old run is live
        outputs = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea")
        log_outputs = page.locator(".jp-Notebook .jp-CodeCell").nth(2).locator(".jp-OutputArea")
        expect(outputs).to_contain_text("greet", timeout=60_000)
        expect(outputs).to_contain_text("Say hello to someone.")
        expect(log_outputs).to_contain_text("greet", timeout=60_000)
        expect(log_outputs).to_contain_text("ada")
        page.wait_for_timeout(2000)  # the widget manager has restored (or failed to) by now
        expect(page.locator(".jp-Notebook")).not_to_contain_text("Error displaying widget")
        # ipywidgets' broken-link icon: on the form and the log table themselves, not on each widget inside
        icons = page.evaluate(
            "() => [...document.querySelectorAll('.jupyter-widgets-disconnected')]"
            ".filter(el => getComputedStyle(el, '::before').display !== 'none').length"
        )
        assert icons == 2
        page.add_style_tag(content=".Toastify { display: none !important; }")
        for theme, suffix in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            lab.set_theme(page, theme)
            page.screenshot(path=str(ARTIFACTS / f"saved-notebook-reopened-{suffix}.png"))
        lab.set_theme(page, "JupyterLab Light")
    finally:
        context.close()
    saved = json.loads((lab_server["root"] / NOTEBOOK).read_text())
    assert "application/vnd.jupyter.widget-state+json" in saved["metadata"].get("widgets", {}), (
        "JupyterLab did not save the widget state with the notebook"
    )
