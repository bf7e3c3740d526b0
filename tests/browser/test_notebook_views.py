"""Notebook round 2 (#22), reproduced in a real JupyterLab in Debian's chromium."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS, ROOT

NOTEBOOK = "notebook_round2.ipynb"

CELLS = [
    "%load_ext workbench",
    "from typing import Annotated\nfrom pydantic import Field",
    "%%tool\n"
    "def person(age: Annotated[int, Field(ge=0, le=150)], count: int) -> str:\n"
    '    """Describe a person."""\n'
    "    return f'{age} years, {count} items'\n",
    "%%tool\n"
    "def explode(n: int) -> int:\n"
    '    """Fail on purpose."""\n'
    "    x = n + 1\n"
    "    raise ValueError(f'boom number {x}')\n",
    "import time\nfrom workbench import ToolContext",
    "%%tool\n"
    "def stepping(ctx: ToolContext, n: int = 400) -> str:\n"
    '    """Report progress step by step until cancelled."""\n'
    "    for i in range(1, n + 1):\n"
    "        if ctx.cancelled:\n"
    "            return 'stopped'\n"
    "        ctx.report_progress(i / n, f'step {i}')\n"
    "        time.sleep(0.05)\n"
    "    return 'done'\n",
    "%%tool\n"
    "def weather_lookup(city: str, units: str = 'metric') -> str:\n"
    '    """Look up the weather of a city."""\n'
    "    return f'sunny in {city}, 21 degrees ({units}); light wind from the west, no rain expected today'\n",
    "import workbench.jupyter\nworkbench.jupyter.ui()",
    "import sys\nimport workbench.mcp\nfrom workbench.jupyter import get_workbench\n"
    f"SERVER = dict(command=[sys.executable, '-m', 'workbench.mcp', 'serve', 'tests.mcp_sample_tools'], cwd={str(ROOT)!r},\n"
    f"              env={{'PYTHONPATH': {str(ROOT)!r}}}, connect_timeout=120)\n"
    "conn = workbench.mcp.connect(**SERVER, prefix='srv_')\n"
    "get_workbench().form('srv_add')",
    "view = workbench.mcp.inspect(**SERVER, prefix='insp_')\nview",
    '%%tool\ndef shout(text: str) -> str:\n    """Say it louder."""\n    return text.upper()\n',
    "from pydantic import BaseModel\nclass Line(BaseModel):\n    sku: str\n    qty: int\n",
    '%%tool\ndef bulk(items: list[Line]) -> int:\n    """Count the items."""\n    return len(items)\n',
]
DASH_CELL, MCP_FORM_CELL, INSPECT_CELL = 7, 8, 9
KILL_SERVERS = (
    "import os, signal\n"
    "for name in ('srv_server_pid', 'insp_server_pid'):\n"
    "    os.kill(get_workbench().call(name).value, signal.SIGKILL)\n"
    "'killed'"
)


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-person") as page:
        yield page


def test_every_invalid_field_is_reported_at_once(lab_page):
    """Defect 3: age=200 (0–150) and count="abc" — one Run reports both, not one kind at a time."""
    form = lab.form_of(lab_page, "person")
    lab.row_input(form, "age").fill("200")
    lab.row_input(form, "count").fill("abc")
    lab.row_input(form, "count").press("Tab")
    form.locator(".workbench-run").click()
    summary = form.get_by_text("2 field errors — nothing was run")
    lab.wait_visible(summary, form, "round2-all-errors")
    box = summary.locator("xpath=..")
    text = box.inner_text()
    form.screenshot(path=str(ARTIFACTS / "round2-all-errors.png"))
    assert "age" in text and "150" in text, text
    assert "count" in text and "abc" in text, text


def test_a_failing_tool_shows_its_message_once_and_names_its_cell(lab_page):
    """Defect 8: the message was shown twice, and the frame named ipykernel's temporary file."""
    form = lab.form_of(lab_page, "explode")
    lab.row_input(form, "n").fill("1")
    form.locator(".workbench-run").click()
    traceback = form.locator(".workbench-traceback")
    traceback.wait_for(timeout=30_000)
    visible = form.locator(".workbench-result-area").inner_text()
    form.screenshot(path=str(ARTIFACTS / "round2-traceback.png"))
    assert visible.count("boom number 2") == 1, visible
    assert "Cell In[4], line 4, in explode" in traceback.inner_text()
    assert "ipykernel_" not in visible


def test_a_cancelled_run_does_not_look_like_a_result(lab_page):
    """Defect 9: after Cancel the bar stayed orange at "step 8", Save as test was enabled and Copy result
    copied the cancellation."""
    form = lab.form_of(lab_page, "stepping")
    form.locator(".workbench-run").click()
    form.locator(".workbench-progress").get_by_text("step 8").wait_for(timeout=30_000)
    form.locator(".workbench-cancel").click()
    form.locator(".workbench-result-area").get_by_text("was cancelled").wait_for(timeout=30_000)
    lab_page.wait_for_timeout(500)  # any late progress report would land now
    form.screenshot(path=str(ARTIFACTS / "round2-cancelled.png"))
    progress = form.locator(".workbench-progress")
    if progress.is_visible():  # gone, or saying plainly that the call was cancelled
        assert "cancelled" in progress.inner_text() and "step" not in progress.inner_text(), progress.inner_text()
    assert form.locator(".workbench-save-test").is_disabled()
    copy = form.locator(".workbench-copy-button", has_text="Copy result")
    assert copy.count() == 0 or not copy.first.is_visible() or copy.first.is_disabled()


def _dashboard(page):
    dash = page.locator(".jp-Notebook .jp-CodeCell").nth(DASH_CELL).locator(".workbench-dashboard").first
    dash.scroll_into_view_if_needed()
    return dash


def _shown_forms(dash) -> list[str]:
    """The tool names of the forms the dashboard shows (visible ones)."""
    names = []
    for form in dash.locator(".workbench-form").all():
        if form.is_visible():
            names += re.findall(r"workbench-form-(\w+)", form.get_attribute("class") or "")
    return [name for name in names if name not in ("header",)]


def test_the_dashboard_shows_the_form_of_a_tool_the_search_shows(lab_page):
    """Defect 5: the search hid the selected tool, its form stayed on screen."""
    dash = _dashboard(lab_page)
    search = dash.get_by_placeholder("Search tools…")
    dash.locator(".workbench-tool-item").filter(has_text=re.compile(r"^\s*person")).first.click()
    dash.locator(".workbench-form-person").wait_for(timeout=30_000)
    search.fill("explode")
    dash.locator(".workbench-tool-item").filter(has_text="person").wait_for(state="detached", timeout=30_000)
    dash.locator(".workbench-form-explode").wait_for(timeout=30_000)
    lab_page.wait_for_timeout(300)
    assert _shown_forms(dash) == ["explode"]
    search.fill("no such tool")
    dash.get_by_text("no tool matches").first.wait_for(timeout=30_000)
    lab_page.wait_for_timeout(300)
    dash.screenshot(path=str(ARTIFACTS / "round2-dashboard-no-match.png"))
    assert _shown_forms(dash) == []
    search.fill("")  # the tool the user picked comes back
    dash.locator(".workbench-form-person").wait_for(timeout=30_000)
    assert _shown_forms(dash) == ["person"]


def test_the_log_details_close_when_the_filter_hides_their_call(lab_page):
    """Defect 5: the details panel kept showing a call the log's filter hid."""
    dash = _dashboard(lab_page)
    dash.get_by_placeholder("Search tools…").fill("")
    dash.locator(".workbench-tool-item").filter(has_text=re.compile(r"^\s*explode")).first.click()
    form = dash.locator(".workbench-form-explode")
    lab.row_input(form, "n").fill("5")
    form.locator(".workbench-run").click()
    form.locator(".workbench-traceback").wait_for(timeout=30_000)
    dash.locator(".workbench-tool-item").filter(has_text=re.compile(r"^\s*person")).first.click()
    form = dash.locator(".workbench-form-person")
    lab.row_input(form, "age").fill("30")
    lab.row_input(form, "count").fill("4")
    lab.row_input(form, "count").press("Tab")
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text("30 years, 4 items").first.wait_for(timeout=30_000)
    log = dash.locator(".workbench-log")
    rows = log.locator("table.workbench-log-table tbody tr.workbench-log-row")
    rows.filter(has_text="boom number 6").first.click()
    details = log.locator(".workbench-log-details")
    details.wait_for(state="visible", timeout=30_000)
    log.locator("select").first.select_option("person")
    rows.filter(has_text="boom number 6").wait_for(state="detached", timeout=30_000)
    lab_page.wait_for_timeout(500)
    log.screenshot(path=str(ARTIFACTS / "round2-log-filtered.png"))
    assert not details.is_visible() or "boom number 6" not in details.inner_text()
    rows.filter(has_text="30 years").first.click()  # a call the filter shows opens as before
    details.get_by_text("30 years, 4 items").first.wait_for(timeout=30_000)
    log.locator("select").first.select_option("(all tools)")


# the number of lines a cell's text takes (its text's line boxes)
LINES = """(el) => { const range = document.createRange(); range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return tops.size; }"""


def test_the_log_never_breaks_a_tool_name(lab_page):
    """Defect 6: "weather_l|ookup" broke mid-word while the input column had room."""
    dash = _dashboard(lab_page)
    dash.get_by_placeholder("Search tools…").fill("")
    dash.locator(".workbench-tool-item").filter(has_text="weather_lookup").first.click()
    form = dash.locator(".workbench-form-weather_lookup")
    lab.row_input(form, "city").fill("Llanfairpwllgwyngyll on the island of Anglesey, Wales")
    lab.row_input(form, "city").press("Tab")
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text("light wind").first.wait_for(timeout=30_000)
    log = dash.locator(".workbench-log")
    row = log.locator("table.workbench-log-table tbody tr.workbench-log-row").filter(has_text="Anglesey").first
    row.wait_for(timeout=30_000)
    for width in (1400, 900):
        lab_page.set_viewport_size({"width": width, "height": 1000})
        lab_page.wait_for_timeout(500)
        log.scroll_into_view_if_needed()
        log.screenshot(path=str(ARTIFACTS / f"round2-log-columns-{width}.png"))
        cells = row.locator("td")
        for index in (0, 1, 2, 3, 6):  # id, time, tool, status, ms: never broken
            assert cells.nth(index).evaluate(LINES) == 1, (width, index, cells.nth(index).inner_text())
        for index in (4, 5):  # input, output: wrapped in a column of a readable width
            assert cells.nth(index).bounding_box()["width"] >= 150, (width, index)
    lab_page.set_viewport_size({"width": 1400, "height": 1000})


def _cell(page, index: int):
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index)


def test_a_disconnected_mcp_form_and_inspect_view_reconnect_with_a_button(lab_page):
    """Defect 7: after the server died every MCP view said "disconnected" with Run disabled and asked for
    ``connection.reconnect()`` in code; a Reconnect button brings the form and the inspect view back."""
    page = lab_page
    form = _cell(page, MCP_FORM_CELL).locator(".workbench-form-srv_add").first
    view = _cell(page, INSPECT_CELL).locator(".workbench-mcp-inspector").first
    form.wait_for(timeout=60_000)
    view.wait_for(timeout=60_000)
    lab.add_and_run_cell(page, KILL_SERVERS, "killed")
    banner = form.locator(".workbench-disconnected")
    banner.wait_for(timeout=60_000)
    view.locator(".widget-html", has_text="disconnected").first.wait_for(timeout=60_000)
    form.scroll_into_view_if_needed()
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        form.screenshot(path=str(ARTIFACTS / f"round2-disconnected-{theme.split()[-1].lower()}.png"))
    lab.set_theme(page, "JupyterLab Light")
    expect(form.locator(".workbench-run")).to_be_disabled(timeout=30_000)

    form.locator(".workbench-reconnect").click()
    banner.wait_for(state="hidden", timeout=120_000)
    run = form.locator(".workbench-run")
    # Run comes back before the banner goes, in the kernel; the browser applies the two widgets' updates
    # each in its own promise chain, so Run may be a frame behind the banner there
    expect(run).to_be_enabled(timeout=30_000)
    lab.row_input(form, "a").fill("2")
    lab.row_input(form, "b").fill("3")
    lab.row_input(form, "b").press("Tab")
    run.click()
    form.locator(".workbench-result-area").get_by_text("5").first.wait_for(timeout=60_000)
    assert "success" in form.locator(".workbench-result-area").inner_text()

    view.scroll_into_view_if_needed()
    view.screenshot(path=str(ARTIFACTS / "round2-inspect-disconnected.png"))
    view.locator(".workbench-mcp-reconnect").click()
    view.locator(".workbench-mcp-reconnect").wait_for(state="hidden", timeout=120_000)
    title = view.locator(".widget-html").first
    page.wait_for_function("(el) => !el.innerText.includes('disconnected')", arg=title.element_handle(), timeout=60_000)
    view.locator(".widget-dropdown select").first.select_option(label="insp_add")
    tool_form = view.locator(".workbench-form-insp_add").first
    tool_form.wait_for(timeout=60_000)
    assert tool_form.locator(".workbench-run").is_enabled()
    assert not tool_form.locator(".workbench-disconnected").is_visible()
    view.screenshot(path=str(ARTIFACTS / "round2-inspect-reconnected.png"))


# the WCAG contrast ratio of two rgb() colours
_RATIO = r"""([a, b]) => { const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).map(Number).map(v => { v /= 255;
  return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); }"""

_LOOK = """(el) => { const s = getComputedStyle(el);
  return {height: s.height, font: s.fontSize + ' ' + s.fontFamily, radius: s.borderRadius,
          background: s.backgroundColor, color: s.color}; }"""


def test_copy_buttons_look_like_the_other_buttons_and_the_mode_toggle_reads_in_both_themes(lab_page):
    """Defect 10: "Copy result" was a small native button; the selected Form/JSON toggle had low contrast
    in the dark theme."""
    page = lab_page
    form = lab.form_of(page, "person")
    lab.row_input(form, "age").fill("30")
    lab.row_input(form, "count").fill("4")
    lab.row_input(form, "count").press("Tab")
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text("30 years, 4 items").first.wait_for(timeout=30_000)
    copy = form.locator(".workbench-copy-button", has_text="Copy result")
    copy.wait_for(timeout=30_000)
    reset = form.get_by_role("button", name="Reset")
    looks = {}
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        form.scroll_into_view_if_needed()
        form.screenshot(path=str(ARTIFACTS / f"round2-buttons-{theme.split()[-1].lower()}.png"))
        copy_look, reset_look = copy.evaluate(_LOOK), reset.evaluate(_LOOK)
        assert copy_look == reset_look, (theme, copy_look, reset_look)
        selected = form.locator(".workbench-mode-toggle button.mod-active")
        other = form.locator(".workbench-mode-toggle button:not(.mod-active)")
        looks[theme] = (selected.evaluate(lab.CONTRAST), other.evaluate(lab.CONTRAST))
    lab.set_theme(page, "JupyterLab Light")
    for theme, (selected, other) in looks.items():
        assert selected["contrast"] >= 4.5, (theme, selected)  # its text
        # which one is on: the selected button stands apart from the other one (the theme's grey: 1.6:1)
        assert page.evaluate(_RATIO, [selected["background"], other["background"]]) >= 2, (theme, selected, other)


def test_the_spec_table_is_left_aligned_with_defaults_and_bounds(lab_page):
    """Defect 10: the spec's HTML table right-aligned the descriptions and left out defaults and bounds."""
    page = lab_page
    lab.add_and_run_cell(page, "get_workbench().registry.get_tool('person').spec", "parameter")
    table = page.locator(".jp-Notebook .jp-CodeCell").last.locator("table.workbench-params")
    table.scroll_into_view_if_needed()
    table.screenshot(path=str(ARTIFACTS / "round2-spec-table.png"))
    aligns = table.locator("td, th").evaluate_all("(cells) => cells.map(c => getComputedStyle(c).textAlign)")
    assert aligns and set(aligns) == {"left"}, aligns
    text = table.inner_text()
    assert "≥ 0" in text and "≤ 150" in text and "default" in text


def test_the_form_history_loads_a_recent_input_back_with_one_pick(lab_page):
    """Form history (#22): the last distinct inputs, newest first, as compact escaped JSON; picking one
    puts it back into the fields."""
    form = lab.form_of(lab_page, "shout")
    for text in ("<b>one</b>", "two"):
        lab.row_input(form, "text").fill(text)
        lab.row_input(form, "text").press("Tab")
        form.locator(".workbench-run").click()
        form.locator(".workbench-result-area").get_by_text(text.upper()).wait_for(timeout=30_000)
    select = form.locator(".workbench-form-history select")
    select.wait_for(timeout=30_000)
    lab_page.wait_for_function("(el) => el.options.length === 2", arg=select.element_handle(), timeout=30_000)
    labels = [o.inner_text() for o in select.locator("option").all()]
    assert labels == ['{"text":"two"}', '{"text":"<b>one</b>"}'], labels
    assert select.locator("b").count() == 0  # shown as text, not markup
    select.select_option(label='{"text":"<b>one</b>"}')
    lab_page.wait_for_function(
        "(el) => el.value === '<b>one</b>'", arg=lab.row_input(form, "text").element_handle(), timeout=30_000
    )
    form.screenshot(path=str(ARTIFACTS / "round2-form-history.png"))


def test_two_pinned_runs_are_compared_side_by_side(lab_page):
    """Pinning (#22): Pin next to the result keeps the run; two pins show both inputs and a result diff."""
    form = lab.form_of(lab_page, "shout")
    for text in ("alpha", "beta"):
        lab.row_input(form, "text").fill(text)
        lab.row_input(form, "text").press("Tab")
        form.locator(".workbench-run").click()
        form.locator(".workbench-result-area").get_by_text(text.upper()).wait_for(timeout=30_000)
        form.locator(".workbench-pin").click()
    compare = form.locator(".workbench-pin-compare")
    compare.wait_for(timeout=30_000)
    pins = form.locator(".workbench-pins")
    text = pins.inner_text()
    form.screenshot(path=str(ARTIFACTS / "round2-pins.png"))
    assert "Pinned #1" in text and "Pinned #2" in text and '"alpha"' in text and '"beta"' in text, text
    assert "ALPHA" in compare.inner_text() and "BETA" in compare.inner_text(), compare.inner_text()
    form.locator(".workbench-unpin").first.click()
    compare.wait_for(state="detached", timeout=30_000)


def test_json_to_form_with_300_items_shows_a_page_with_show_more(lab_page):
    """Defect 4: 300 list-of-model items still showed the JSON editor after 45 s with Form selected."""
    import json
    import time

    form = lab.form_of(lab_page, "bulk")
    form.locator(".workbench-mode-toggle button", has_text="JSON").click()
    editor = form.locator(".workbench-json-editor textarea").first
    editor.wait_for(state="visible", timeout=30_000)
    editor.fill(json.dumps({"items": [{"sku": f"s{i}", "qty": i} for i in range(300)]}))
    form.get_by_text("valid input").first.wait_for(timeout=30_000)
    start = time.monotonic()
    form.locator(".workbench-mode-toggle button", has_text="Form").click()
    more = form.locator(".workbench-show-more")
    more.wait_for(state="visible", timeout=30_000)
    shown_after = time.monotonic() - start
    # a page of this two-field model is 10 rows (about 150 widgets: each is a model the page creates)
    assert "290 more" in more.inner_text(), more.inner_text()
    assert more.evaluate("(b) => b.scrollWidth <= b.clientWidth"), "the button's text is cut off"
    expect(editor).to_be_hidden()
    rows = form.locator(".workbench-field-label", has_text=re.compile(r"^\[\d+\]"))
    assert rows.count() == 10 and lab.row_input(form, "qty").input_value() == "9"
    for theme in ("JupyterLab Light", "JupyterLab Dark"):  # "show more" and the rows read in both themes
        lab.set_theme(lab_page, theme)
        more.scroll_into_view_if_needed()  # the list is taller than the page: the last rows and "show more"
        box, form_box = more.bounding_box(), form.bounding_box()
        top = max(form_box["y"], box["y"] - 420)
        clip = {"x": form_box["x"], "y": top, "width": form_box["width"], "height": box["y"] + 110 - top}
        suffix = "" if theme.endswith("Light") else "-dark"
        lab_page.screenshot(path=str(ARTIFACTS / f"round2-large-list{suffix}.png"), clip=clip)
        assert more.evaluate(lab.CONTRAST)["contrast"] >= 4.5, (theme, more.evaluate(lab.CONTRAST))
        assert rows.first.evaluate(lab.CONTRAST)["contrast"] >= 4.5, (theme, rows.first.evaluate(lab.CONTRAST))
    lab.set_theme(lab_page, "JupyterLab Light")
    more.click()
    form.locator(".workbench-show-more", has_text="280 more").wait_for(timeout=30_000)
    assert rows.count() == 20
    lab.row_input(form, "qty").fill("7")  # the last row shown (item 19) is editable
    lab.row_input(form, "qty").press("Tab")
    form.locator(".widget-button", has_text="add").last.click()  # shown at once, after the 280 unbuilt items
    added = form.locator(".workbench-field-label", has_text=re.compile(r"^\[300\]"))
    added.wait_for(timeout=30_000)
    assert rows.count() == 21 and "280 more" in more.inner_text()
    added.locator("xpath=ancestor::div[contains(@class, 'widget-hbox')][2]").locator(
        ".widget-button"
    ).last.click()  # its remove button
    added.wait_for(state="detached", timeout=30_000)
    form.locator(".workbench-run").click()
    form.locator(".workbench-result-area").get_by_text("300").wait_for(timeout=30_000)
    form.locator(".workbench-mode-toggle button", has_text="JSON").click()  # every item, with the edit
    form.get_by_text("valid input").first.wait_for(timeout=30_000)
    sent = json.loads(editor.input_value())["items"]
    assert len(sent) == 300 and sent[19] == {"sku": "s19", "qty": 7} and sent[299] == {"sku": "s299", "qty": 299}
    # again: the rows built before are closed (not kept as models in the page) and a new page is shown
    editor.fill(json.dumps({"items": [{"sku": f"t{i}", "qty": i} for i in range(300)]}))
    form.get_by_text("valid input").first.wait_for(timeout=30_000)
    start = time.monotonic()
    form.locator(".workbench-mode-toggle button", has_text="Form").click()
    form.locator(".workbench-show-more", has_text="290 more").wait_for(timeout=30_000)
    again_after = time.monotonic() - start
    assert rows.count() == 10 and form.locator("input").evaluate_all("(inputs) => inputs.some((i) => i.value === 't9')")
    print(
        f"JSON → Form with 300 items: the first page was on screen after {shown_after:.2f} s, "
        f"and after {again_after:.2f} s the second time"
    )
