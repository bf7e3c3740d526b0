"""Steps every browser test shares: write a notebook, open it in JupyterLab and run it, switch theme."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import nbformat
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import ARTIFACTS

KERNEL_READY = (
    "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
    " return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel; }"
)
# the last cell has run once every code cell shows an execution count and the kernel is idle
ALL_CELLS_RAN = (
    "() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;"
    " const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent);"
    " return s.kernelDisplayStatus === 'idle' && prompts.length && prompts.every(p => /\\[\\d+\\]/.test(p)); }"
)

# {color, background, contrast}: an element's text colour against the first opaque background behind it,
# and their WCAG contrast ratio (understands rgb()/rgba() and the color(srgb ...) that color-mix computes to)
CONTRAST = """(el) => {
  const parse = (c) => {  // rgb()/rgba(), or color(srgb r g b / a) with channels in 0..1 (what color-mix computes to)
    const m = c.match(/[\\d.]+/g).map(Number), k = c.startsWith('color(') ? 255 : 1;
    return {r: m[0] * k, g: m[1] * k, b: m[2] * k, a: m.length > 3 ? m[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                                return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let node = el, bg = null;
  while (node && node.nodeType === 1) { const c = parse(getComputedStyle(node).backgroundColor); if (c.a > 0.5) { bg = c; break; } node = node.parentElement; }
  bg = bg || {r: 255, g: 255, b: 255, a: 1};
  let fg = parse(getComputedStyle(el).color);
  fg = {r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a)};
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return {color: getComputedStyle(el).color, background: `rgb(${bg.r}, ${bg.g}, ${bg.b})`, contrast: (hi + 0.05) / (lo + 0.05)};
}"""


def write_notebook(root: Path, name: str, cells: list[str]) -> Path:
    """A notebook of code ``cells`` (python3 kernel) at ``root/name``."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = root / name
    nbformat.write(nb, str(path))
    return path


def open_and_run_all(page, lab_server: dict, name: str) -> list[str]:
    """Open ``name`` in JupyterLab, run all cells and wait until they ran; returns the (live) list of
    dialog messages (a hostile output that ran script would open one)."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{lab_server['base']}/lab/tree/{name}?token={lab_server['token']}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    page.wait_for_function(KERNEL_READY, timeout=90_000)
    run_all_cells(page)
    try:
        page.wait_for_function(ALL_CELLS_RAN, timeout=90_000)
    except PlaywrightTimeout:
        # Seen on a loaded CI machine: the execute requests sent just as the kernel connected got no
        # reply, so nothing ran. Keep a screenshot of that state and ask once more, as a user would.
        page.screenshot(path=str(ARTIFACTS / f"{Path(name).stem}-run-all-retry.png"))
        run_all_cells(page)
        page.wait_for_function(ALL_CELLS_RAN, timeout=120_000)
    return dialogs


def run_all_cells(page) -> None:
    """Ask JupyterLab to run every cell without awaiting the command's promise: it settles only when the
    last cell has run, so awaiting it in ``page.evaluate`` would hang past every timeout of ours."""
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


@contextmanager
def notebook_page(
    lab_server: dict,
    browser,
    name: str,
    cells: list[str],
    *,
    ready: Optional[str] = None,
    width: int = 1400,
    height: int = 1000,
) -> Iterator:
    """A page on a new notebook of ``cells``, run once; ``ready`` is a selector to wait for. Checks on
    leaving that no dialog opened."""
    write_notebook(lab_server["root"], name, cells)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        dialogs = open_and_run_all(page, lab_server, name)
        if ready:
            page.locator(ready).first.wait_for(state="visible", timeout=60_000)
        page.add_style_tag(content=".Toastify { display: none !important; }")  # JupyterLab's news toast
        yield page
        assert dialogs == []
    finally:
        context.close()


@contextmanager
def inspector_page(lab_server: dict, browser, name: str, view_source: str) -> Iterator:
    """A page on a notebook whose cell ``view = …`` (``view_source``) shows an MCP inspector; its
    connection is closed, and the notebook too, on leaving."""
    cells = ["%load_ext workbench", f"{view_source}\nview"]
    with notebook_page(lab_server, browser, name, cells, ready=".workbench-mcp-inspector", width=1300) as page:
        yield page
        add_and_run_cell(page, "view.connection.disconnect()\n'closed'", "closed")
        close_notebook(page, lab_server)


def inspector_tab(page, title: str) -> None:
    """Open the inspector's tab named ``title``."""
    page.locator(".workbench-mcp-tabs .lm-TabBar-tab", has_text=title).first.click()


def set_theme(page, name: str) -> None:
    """Switch JupyterLab's theme and wait until its stylesheet is in force (the dark one sets
    ``--jp-layout-color0: #111``)."""
    dark = "Dark" in name
    page.evaluate(f"() => window.jupyterapp.commands.execute('apputils:change-theme', {{theme: '{name}'}})")
    page.wait_for_function(f"() => document.body.dataset.jpThemeName === '{name}'", timeout=30_000)
    page.wait_for_function(
        "(dark) => (getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim() === '#111') === dark",
        arg=dark,
        timeout=30_000,
    )
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30_000)  # the theme-change overlay


def form_of(page, tool_name: str):
    """The (first) form of ``tool_name`` on the page, scrolled into view."""
    form = page.locator(f".workbench-form-{tool_name}").first
    form.scroll_into_view_if_needed()
    return form


def row_input(form, label: str):
    """The input (or textarea) of the form row labelled ``label`` (a required row's ``*`` allowed)."""
    exact = re.compile(rf"^\s*{re.escape(label)}\s*\*?\s*$")
    return (
        form.locator(".widget-hbox")
        .filter(has=form.page.locator(".widget-label", has_text=exact))
        .last.locator("input, textarea")
        .first
    )


_ADD_AND_RUN_CELL = """async (source) => {
  const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = notebook.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  notebook.activeCell.model.sharedModel.setSource(source);
  await app.commands.execute('notebook:run-cell');
}"""


def add_and_run_cell(page, source: str, expected_output: str) -> None:
    """Append a code cell, run it as a user would, and wait for ``expected_output`` in its output."""
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    count = cells.count()
    page.evaluate(_ADD_AND_RUN_CELL, source)
    cells.nth(count).locator(".jp-OutputArea").get_by_text(expected_output).first.wait_for(timeout=120_000)


def _open_documents(lab_server: dict) -> list:
    """The main-area widgets JupyterLab's saved workspaces reopen on the next page."""
    import json
    import urllib.request

    url = f"{lab_server['base']}/lab/api/workspaces"
    request = urllib.request.Request(url, headers={"Authorization": f"token {lab_server['token']}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        values = json.loads(response.read())["workspaces"]["values"]
    return [
        widget
        for value in values
        for widget in value["data"].get("layout-restorer:data", {}).get("main", {}).get("dock", {}).get("widgets", [])
    ]


def close_notebook(page, lab_server: dict) -> None:
    """Save and close every document, and wait until JupyterLab's saved workspace opens none — else
    the next page reopens it beside its own notebook (``ALL_CELLS_RAN`` looks at the current one)."""
    page.evaluate(
        "async () => { await window.jupyterapp.commands.execute('docmanager:save');"
        " await window.jupyterapp.commands.execute('application:close-all'); }"
    )
    try:
        page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')", timeout=60_000)
    except PlaywrightTimeout:  # e.g. "Save your work": something changed the notebook after the save
        page.screenshot(path=str(ARTIFACTS / "close-notebook-timeout.png"))
        dialog = page.locator(".jp-Dialog")
        shown = dialog.first.inner_text(timeout=5_000) if dialog.count() else "no dialog"
        raise AssertionError(f"the notebook did not close in 60 s ({shown})") from None
    for _ in range(600):
        if not _open_documents(lab_server):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"JupyterLab's workspace still opens {_open_documents(lab_server)}")


def wait_visible(locator, form, label: str, timeout: float = 30_000) -> None:
    """``locator.wait_for()``; on a timeout, a screenshot (``<label>-timeout.png``) and what ``form`` shows
    go into the failure, so a failure seen only in CI can be read afterwards."""
    try:
        locator.wait_for(timeout=timeout)
    except PlaywrightTimeout:
        form.page.screenshot(path=str(ARTIFACTS / f"{label}-timeout.png"))
        shown = form.inner_text(timeout=5_000) if form.count() else "(no form)"
        status = form.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus")
        raise AssertionError(
            f"{label}: not shown in {timeout / 1000:.0f} s; kernel {status}; the form shows:\n{shown}"
        ) from None
