"""A tool's ``ctx.log`` lines and questions as rows under its call in the live log table, in a real
JupyterLab (Debian's chromium), light and dark: each level readable (contrast measured in the page),
the tool's text escaped, and a click on a line opening its call's details with the tool log."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "log_lines.ipynb"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical")

CELLS = [
    "%load_ext workbench",
    "from workbench import ToolContext\n"
    "from workbench.jupyter import get_workbench\n"
    "from workbench.models import ScriptedModel\n\n"
    "wb = get_workbench()\n"
    "wb.sampling_model = ScriptedModel(['a sampled answer'], name='notes')",
    "%%tool --no-form\n"
    "def noisy(n: int, tool_context: ToolContext) -> int:\n"
    '    """Logs at every level and asks a model."""\n'
    f"    for level in {LEVELS!r}:\n"
    "        tool_context.log(level, f'{level} line <b>not bold</b>')\n"
    "    tool_context.sample('Say something')\n"
    "    return n\n",
    "wb.call('noisy', {'n': 1}).status",
    "wb.log_table()",
]


@pytest.fixture(scope="module")
def table_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready="tr.workbench-log-line", width=1300) as page:
        yield page
        lab.close_notebook(page, lab_server)


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_log_lines_are_rows_under_their_call_readable_in_both_themes(table_page, theme):
    page = table_page
    lab.set_theme(page, theme)
    table = page.locator(".workbench-log table.workbench-log-table").first
    table.scroll_into_view_if_needed()
    expect(table.locator("tr.workbench-log-row")).to_have_count(1)
    lines = table.locator("tr.workbench-log-line")
    expect(lines).to_have_count(len(LEVELS) + 1)
    for index, level in enumerate(LEVELS):
        line = lines.nth(index)
        expect(line).to_contain_text(f"{level} line <b>not bold</b>")  # shown as text, not markup
        badge = line.locator(f".workbench-log-level-{level}")
        expect(badge).to_have_text(level)
        contrast = badge.evaluate(lab.CONTRAST)["contrast"]
        assert contrast >= 4.5, (theme, level, contrast)
        text = line.locator("td.workbench-log-line-text code")
        assert text.evaluate(lab.CONTRAST)["contrast"] >= 4.5, (theme, level)
    sampled = lines.nth(len(LEVELS))
    expect(sampled).to_contain_text("↳ sampled")
    expect(sampled).to_contain_text("Say something → scripted:notes: a sampled answer")
    assert sampled.locator("td.workbench-log-kind").evaluate(lab.CONTRAST)["contrast"] >= 4.5
    # the error level looks different from the info level
    colours = {
        level: lines.nth(i).locator(".workbench-log-level").evaluate("(el) => getComputedStyle(el).color")
        for i, level in enumerate(LEVELS)
    }
    assert colours["error"] != colours["info"] != colours["warning"]
    page.screenshot(path=str(ARTIFACTS / f"log-lines-{'dark' if 'Dark' in theme else 'light'}.png"))
    lines.nth(3).click()  # a line opens its call
    details = page.locator(".workbench-log-details").first
    expect(details).to_contain_text("Tool log", timeout=30_000)
    expect(details).to_contain_text("warning warning line <b>not bold</b>")
    page.locator(".workbench-log-details button[title='Close the details']").first.click()
    expect(details).to_be_hidden()
