"""The form shell's defects of issue 9 (everything around the fields) in a real JupyterLab in chromium.

The module writes its own notebook (``%load_ext workbench`` + ``%%tool`` cells), runs it once, and
each test uses its own form: a new attempt clears the old outcome (4), messages say things once and a
traceback starts with the user's frames (6), cancel is *cancelled* (7), no idle progress bar, no emoji
clock, the timing once (8), docstrings as collapsed markdown without sideways scrolling (9), badge
and text contrast in the light and dark themes (10), the saved notebook's static ``text/html`` (14).
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_shell_defects.ipynb"
LONG_WORD = "x" * 400

CELLS = [
    "%load_ext workbench",
    "import asyncio\nfrom pydantic import BaseModel\n\nclass Customer(BaseModel):\n    name: str\n",
    "%%tool\n"
    "def echo(text: str, times: int = 1) -> str:\n"
    '    """Echo the text (``boom`` raises)."""\n'
    "    if text == 'boom':\n"
    "        raise ValueError('boom')\n"
    "    return text * times\n",
    "%%tool --long-running\n"
    "async def waiter(seconds: float = 60.0) -> str:\n"
    '    """Wait a while (cancel me)."""\n'
    "    await asyncio.sleep(seconds)\n"
    "    return 'waited'\n",
    '%%tool\ndef order(customer: Customer) -> str:\n    """Place an order."""\n    return customer.name\n',
    "%%tool\n"
    "def documented(query: str) -> str:\n"
    '    """Search the catalogue.\n\n'
    '    The **query** is matched against `title` and `body`; <img src=x onerror="window.__xss=1"> stays text.\n\n'
    "    - first point\n"
    "    - second point\n\n"
    f"    A long word: {LONG_WORD}\n\n"
    "    More text at the end.\n"
    '    """\n'
    "    return query\n",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    """One page for the module: the notebook is written, opened and run once."""
    with lab.notebook_page(
        lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-documented", width=1200
    ) as page:
        yield page
        assert page.evaluate("() => window.__xss === undefined")


_form = lab.form_of


_row_input = lab.row_input


def _type(box, text: str) -> None:
    box.fill(text)
    box.press("Tab")


def _result(form):
    return form.locator(".workbench-result-area")


def _wait_result(form, pattern: str) -> str:
    _result(form).get_by_text(re.compile(pattern)).first.wait_for(timeout=30_000)
    return _result(form).inner_text()


def _visible(locator) -> bool:
    return locator.count() > 0 and locator.first.is_visible()


def test_a_new_attempt_and_reset_clear_the_old_outcome(lab_page):
    """Defect 4: after a rejected run (or Reset) the previous result, bar and timing are gone; Reset
    during a run keeps the running state while the call goes on."""
    form = _form(lab_page, "echo")
    _type(_row_input(form, "text"), "hello")
    form.locator(".workbench-run").click()
    _wait_result(form, "hellohello|hello")

    _type(_row_input(form, "times"), "abc")  # not a number: the next attempt is rejected
    form.locator(".workbench-run").click()
    form.get_by_text("nothing was run").first.wait_for(timeout=30_000)
    expect(_result(form)).not_to_contain_text("hello", timeout=30_000)
    expect(_result(form)).not_to_contain_text("success")
    expect(form.locator(".workbench-elapsed")).to_have_text("")  # no timing left
    assert not re.search(r"\d\s?m?s\b", form.inner_text().split("Request (ToolUse)")[0])
    assert not _visible(form.locator(".workbench-progress"))

    _type(_row_input(form, "times"), "2")
    form.locator(".workbench-run").click()
    _wait_result(form, "hellohello")
    form.get_by_role("button", name="Reset").click()
    expect(_result(form)).not_to_contain_text("hello", timeout=30_000)
    expect(form.locator(".workbench-elapsed")).to_have_text("")

    waiter = _form(lab_page, "waiter")
    waiter.locator(".workbench-run").click()
    _wait_result(waiter, "running")
    waiter.get_by_role("button", name="Reset").click()
    lab_page.wait_for_function(
        "(el) => /elapsed [1-9]/.test(el.innerText)",  # the timer still ticks after Reset
        arg=waiter.locator(".workbench-elapsed").element_handle(),
        timeout=30_000,
    )
    assert "running" in _result(waiter).inner_text()
    assert waiter.locator(".workbench-cancel").is_enabled()
    waiter.locator(".workbench-cancel").click()
    _wait_result(waiter, "cancelled")


def test_messages_say_things_once_and_the_traceback_starts_with_the_users_frames(lab_page):
    """Defect 6: no "ValueError: ValueError", no "customer.name: customer.name"; internal frames collapsed."""
    form = _form(lab_page, "echo")
    _type(_row_input(form, "times"), "1")
    _type(_row_input(form, "text"), "boom")
    form.locator(".workbench-run").click()
    text = _wait_result(form, "boom")
    assert "ValueError: boom" in text and "ValueError: ValueError" not in text
    shown = form.locator(".workbench-traceback")
    shown.first.wait_for(state="visible", timeout=30_000)
    assert "in echo" in shown.inner_text() and "workbench/executor/" not in shown.inner_text()
    full = _result(form).locator("details").last
    assert full.get_attribute("open") is None and "workbench/executor/" in full.text_content()
    assert not full.get_by_text(re.compile("workbench/executor/")).first.is_visible()  # collapsed

    order = _form(lab_page, "order")
    order.locator(".workbench-run").click()
    summary = order.get_by_text("nothing was run").first.locator("xpath=..")
    summary.wait_for(timeout=30_000)
    assert "customer.name" in summary.inner_text()
    assert "customer.name: customer.name" not in summary.inner_text()


def _status_colour(locator) -> str:
    return locator.evaluate("(el) => getComputedStyle(el).color")


def _status_word(form):
    """The status word at the start of the result (``success``, ``error``, ``cancelled``)."""
    return _result(form).locator(".workbench-result span").first


def test_cancel_is_shown_as_cancelled_not_as_an_error(lab_page):
    """Defect 7: its own status word, class and colour."""
    echo = _form(lab_page, "echo")
    _type(_row_input(echo, "text"), "boom")
    echo.locator(".workbench-run").click()
    _wait_result(echo, "boom")
    error_status = _status_word(echo)
    assert error_status.inner_text().strip() == "error"

    form = _form(lab_page, "waiter")
    form.locator(".workbench-run").click()
    _wait_result(form, "running")
    form.locator(".workbench-cancel").click()
    _wait_result(form, "was cancelled")
    status = _status_word(form)
    assert status.inner_text().strip() == "cancelled"
    assert "workbench-status-cancelled" in status.get_attribute("class")
    assert _result(form).locator(".workbench-status-error").count() == 0
    assert _status_colour(status) != _status_colour(error_status)


def test_idle_forms_have_no_progress_bar_no_emoji_clock_and_one_timing(lab_page):
    """Defect 8."""
    idle = _form(lab_page, "documented")
    assert not _visible(idle.locator(".workbench-progress"))
    assert not _visible(idle.locator(".progress-bar, .widget-progress"))
    form = _form(lab_page, "echo")
    _type(_row_input(form, "text"), "tick")
    form.locator(".workbench-run").click()
    _wait_result(form, "tick")
    expect(form.locator(".workbench-elapsed")).to_contain_text("took", timeout=30_000)
    text = form.inner_text()
    assert "⏱" not in lab_page.locator(".jp-NotebookPanel").first.inner_text()
    timings = re.findall(r"\d+(?:\.\d+)?\s?(?:ms|s)\b", text.split("Request (ToolUse)")[0])
    assert len(timings) == 1, timings
    assert not _visible(form.locator(".workbench-progress"))  # echo reports no progress


def test_docstrings_are_markdown_collapsed_and_long_words_wrap(lab_page):
    """Defect 9 (form part): markdown, "show more", no sideways scrolling."""
    form = _form(lab_page, "documented")
    header = form.locator(".widget-html").first  # the form's header
    assert header.locator("b", has_text="query").count() == 1
    assert header.locator("code", has_text="title").count() == 1
    assert header.locator("li").count() == 2
    assert header.get_by_text('<img src=x onerror="window.__xss=1">', exact=False).count() >= 1
    rest = header.get_by_text("More text at the end.")
    assert not rest.is_visible()
    header.get_by_text("show more").click()
    rest.wait_for(state="visible", timeout=30_000)

    echo = _form(lab_page, "echo")
    _type(_row_input(echo, "text"), LONG_WORD)
    echo.locator(".workbench-run").click()
    _wait_result(echo, "xxxxxxxx")
    for name in ("documented", "echo"):
        output = _form(lab_page, name).locator("xpath=ancestor::div[contains(@class,'jp-OutputArea-output')]").first
        widths = output.evaluate("(el) => [el.scrollWidth, el.clientWidth]")
        assert widths[0] <= widths[1] + 1, (name, widths)
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-shell-docstring.png"))


def _contrasts(page) -> dict:
    waiter = _form(page, "waiter")
    found = {}
    for badge in ("async", "long-running"):
        found[badge] = waiter.locator("span", has_text=re.compile(rf"^{badge}$")).first.evaluate(lab.CONTRAST)
    found["description"] = _form(page, "documented").get_by_text("Search the catalogue.").first.evaluate(lab.CONTRAST)
    found["status"] = _status_word(waiter).evaluate(lab.CONTRAST)
    return found


def test_badges_and_text_are_readable_in_light_and_dark_themes(lab_page):
    """Defect 10: WCAG contrast ≥ 4.5 for the badges, the description and the status in both themes."""
    page = lab_page
    waiter = _form(page, "waiter")
    if "was cancelled" not in _result(waiter).inner_text():
        waiter.locator(".workbench-run").click()
        _wait_result(waiter, "running")
        waiter.locator(".workbench-cancel").click()
        _wait_result(waiter, "was cancelled")
    ARTIFACTS.mkdir(exist_ok=True)
    light = _contrasts(page)
    waiter.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "form-shell-light.png"), full_page=False)
    try:
        lab.set_theme(page, "JupyterLab Dark")
        dark = _contrasts(page)
        _form(page, "waiter")
        page.screenshot(path=str(ARTIFACTS / "form-shell-dark.png"), full_page=False)
    finally:
        lab.set_theme(page, "JupyterLab Light")
    for name in light:
        assert light[name]["contrast"] >= 4.5, (name, "light", light[name])
        assert dark[name]["contrast"] >= 4.5, (name, "dark", dark[name])
        assert light[name]["color"] != dark[name]["color"], (name, light[name], dark[name])


def test_the_saved_notebook_has_a_static_html_form_and_lab_shows_the_widget(lab_page, lab_server):
    """Defect 14 (forms): the output keeps the widget view (rendered live) and adds a readable ``text/html``."""
    page = lab_page
    form = _form(page, "echo")
    assert form.locator(".workbench-run").is_visible()
    assert page.locator(".workbench-form-static").count() == 0  # JupyterLab shows the live widget, not the fallback
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    path = lab_server["root"] / NOTEBOOK

    def saved_outputs():
        nb = json.loads(path.read_text())
        cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("%%tool\ndef echo"))
        return cell["outputs"]

    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
    outputs = [o for o in saved_outputs() if o.get("output_type") in ("display_data", "execute_result")]
    assert outputs, saved_outputs()
    data = outputs[0]["data"]
    assert "application/vnd.jupyter.widget-view+json" in data
    html = "".join(data["text/html"]) if isinstance(data["text/html"], list) else data["text/html"]
    assert "Tool form" in html and "<code>echo</code>" in html
    assert "<code>text</code>" in html and "<code>times</code>" in html and "integer" in html


# -- features: keyboard, clipboard, JSON mode ----------------------------------------------------------------
def _prompt(page, tool_name: str) -> str:
    """The execution count of the cell whose output holds the form of ``tool_name``."""
    cell = page.locator(".jp-CodeCell").filter(has=page.locator(f".workbench-form-{tool_name}")).first
    return cell.locator(".jp-InputPrompt").first.inner_text()


def test_ctrl_enter_runs_the_form_from_any_field_and_esc_cancels(lab_page):
    """Keyboard: Ctrl+Enter in a number box (synced on change only) and in a text area runs the form,
    not the notebook cell; Esc in a field cancels the running call."""
    page = lab_page
    form = _form(page, "echo")
    prompt = _prompt(page, "echo")
    text, times = _row_input(form, "text"), _row_input(form, "times")
    text.fill("key")
    times.fill("3")
    times.press("Control+Enter")  # focus never left the box: its value is synced by the shortcut
    _wait_result(form, "keykeykey")
    assert times.evaluate("(el) => el === document.activeElement")
    text.fill("again")
    text.press("Control+Enter")
    _wait_result(form, "againagainagain")
    assert text.input_value() == "again"  # no newline typed into the text area
    assert _prompt(page, "echo") == prompt  # JupyterLab did not run the cell again

    waiter = _form(page, "waiter")
    seconds = _row_input(waiter, "seconds")
    seconds.fill("120")
    seconds.press("Control+Enter")
    _wait_result(waiter, "running")
    seconds.press("Escape")
    _wait_result(waiter, "was cancelled")
    assert _status_word(waiter).inner_text().strip() == "cancelled"


def _clipboard(page) -> str:
    return page.evaluate("() => navigator.clipboard.readText()")


def _copy(page, scope, label: str) -> str:
    """Click the Copy button ``label`` in ``scope`` and return what the clipboard holds then."""
    page.evaluate("() => navigator.clipboard.writeText('-')")
    button = scope.locator(".workbench-copy-button", has_text=label).first
    button.click()
    page.wait_for_function("() => navigator.clipboard.readText().then(t => t !== '-')", timeout=30_000)
    return _clipboard(page)


def _panel(form, title: str):
    """The collapsed section ``title`` of the form (a disclosure button and the box it controls), opened."""
    button = form.locator("button.workbench-disclosure", has_text=title).first
    if button.get_attribute("aria-expanded") != "true":
        button.click()
    form.page.wait_for_function("(b) => b.getAttribute('aria-controls')", arg=button.element_handle(), timeout=30_000)
    section = form.locator("#" + button.get_attribute("aria-controls"))
    section.locator(".workbench-copy-button").first.wait_for(state="visible", timeout=30_000)
    return section


def test_copy_buttons_copy_the_result_the_json_and_the_code(lab_page, lab_server):
    page = lab_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab_server["base"])
    form = _form(page, "echo")
    _type(_row_input(form, "text"), "copied")
    _type(_row_input(form, "times"), "2")
    form.locator(".workbench-run").click()
    _wait_result(form, "copiedcopied")
    assert _copy(page, form, "Copy result") == "copiedcopied"

    request = json.loads(_copy(page, _panel(form, "Request (ToolUse)"), "Copy JSON"))
    assert request["name"] == "echo" and request["input"] == {"text": "copied", "times": 2}
    response = json.loads(_copy(page, _panel(form, "Response (ToolResult)"), "Copy JSON"))
    assert response["status"] == "success" and response["toolUseId"] == request["toolUseId"]
    code = _copy(page, _panel(form, "Copy as code"), "Copy code")
    assert code.startswith('%tool_call echo {"text": "copied", "times": 2}') and "get_workbench().call('echo'" in code
    assert form.locator(".workbench-copy-button[data-copied='yes']").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-shell-copy.png"))


def _editor(form):
    return form.locator(".workbench-json-editor textarea").first


def _verdict(form, pattern: str) -> str:
    verdict = form.locator(".workbench-json-verdict")
    verdict.get_by_text(re.compile(pattern)).first.wait_for(timeout=30_000)
    return verdict.inner_text()


def test_json_mode_round_trip_with_validation_as_you_type(lab_page):
    """Form → JSON shows the fields' values; JSON edits are checked as typed; JSON → form fills the
    fields (keys left out are not set); Run from JSON mode sends the JSON."""
    page = lab_page
    form = _form(page, "echo")
    _type(_row_input(form, "text"), "json")
    _type(_row_input(form, "times"), "2")
    form.locator(".workbench-mode-toggle button", has_text="JSON").click()
    editor = _editor(form)
    editor.wait_for(state="visible", timeout=30_000)
    page.wait_for_function("(el) => el.value.includes('json')", arg=editor.element_handle(), timeout=30_000)
    assert json.loads(editor.input_value()) == {"text": "json", "times": 2}
    expect(_row_input(form, "text")).to_be_hidden()  # the fields are replaced by the editor
    _verdict(form, "valid input")

    editor.fill('{"text": "round", ')
    assert "not valid JSON" in _verdict(form, "not valid JSON")
    editor.fill('{"text": "round", "times": "x"}')
    assert "times" in _verdict(form, "times")
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-shell-json-mode.png"))
    editor.fill('{"text": "round", "colour": 1}')
    _verdict(form, "no parameter")
    editor.fill('{"text": "round", "times": 3}')
    _verdict(form, "valid input")

    form.locator(".workbench-mode-toggle button", has_text="Form").click()
    text = _row_input(form, "text")
    text.wait_for(state="visible", timeout=30_000)
    assert text.input_value() == "round" and _row_input(form, "times").input_value() == "3"

    form.locator(".workbench-mode-toggle button", has_text="JSON").click()
    page.wait_for_function("(el) => el.value.includes('round')", arg=editor.element_handle(), timeout=30_000)
    editor.fill('{"text": "trip"}')
    _verdict(form, "valid input")
    form.locator(".workbench-run").click()
    result = _wait_result(form, "trip")
    assert "triptrip" not in result  # times left out: not set, the default 1 applies
    editor.fill('{"text": ')
    _verdict(form, "not valid JSON")
    form.locator(".workbench-mode-toggle button", has_text="Form").click()
    _verdict(form, "fix the JSON")  # invalid JSON keeps JSON mode; nothing lost
    assert editor.is_visible() and editor.input_value() == '{"text": '
    editor.fill('{"text": "trip"}')
    form.locator(".workbench-mode-toggle button", has_text="Form").click()
    times = _row_input(form, "times")
    times.wait_for(state="visible", timeout=30_000)
    assert times.input_value() == "" and "not set" in (times.get_attribute("placeholder") or "")
