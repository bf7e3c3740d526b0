"""The model playground in a real JupyterLab (chromium), light and dark: a prompt to a ScriptedModel shows
the tool card and its result; step mode: edit an argument in the card's form, Approve, and the tool gets
the edited value (and the model's next request carries its result); two models side by side.

One notebook holds the three playgrounds (one JupyterLab server and one kernel for the module).
Screenshots go to ``test-artifacts/playground-*.png``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "playground_browser.ipynb"

CELLS = [
    "import workbench\n"
    "from workbench import tool\n"
    "from workbench.models import ScriptedModel\n"
    "\n"
    "@tool\n"
    "def lookup(city: str, days: int = 1) -> str:\n"
    "    \"\"\"The weather forecast of a city.\"\"\"\n"
    "    return f'{city}: 21 degrees for {days} day(s)'\n"
    "\n"
    "workbench.get_workbench().registry.register_tool(lookup, replace=True)\n"
    "\n"
    "def weather(name, city):\n"
    "    def answer(messages, _specs):\n"
    "        return 'the tool said: ' + messages[-1]['results'][0]['content'][0]['text']\n"
    "    return ScriptedModel([{'tool_calls': [{'name': 'lookup', 'input': {'city': city, 'days': 2}}]}, answer],\n"
    "                         name=name)\n",
    "auto_model = weather('auto', 'Oslo')\nworkbench.playground([auto_model])",
    "step_model = weather('step', 'Oslo')\nstep_pg = workbench.playground([step_model])\nstep_pg.step_mode = True\nstep_pg",
    "left, right = weather('left', 'Lima'), weather('right', 'Quito')\n"
    "two = workbench.playground([left, right]).select(left, right)\ntwo",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-playground", width=1400,
                           height=1100) as page:
        page.locator(".workbench-playground").nth(2).wait_for(state="visible", timeout=60_000)
        yield page


def _playground(page, index: int):
    playground = page.locator(".workbench-playground").nth(index)
    playground.scroll_into_view_if_needed()
    return playground


def _send(playground, text: str, *, keyboard: bool = False) -> None:
    """Type ``text`` in the prompt box and press Send (or Ctrl+Enter in the box)."""
    prompt = playground.locator(".workbench-prompt textarea")
    prompt.fill(text)
    if keyboard:
        prompt.press("Control+Enter")
        return
    prompt.press("Tab")
    playground.locator("button.workbench-send").click()


#: text that must stay readable (WCAG AA, contrast >= 4.5) in both themes
READABLE = (".workbench-chat-user", ".workbench-chat-assistant", ".workbench-tool-card .workbench-status",
            ".workbench-turn-badge")


def _screenshots(page, playground, name: str) -> None:
    """Light and dark pictures of ``playground``, checking on each that its text is readable."""
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for theme, suffix in (("JupyterLab Light", ""), ("JupyterLab Dark", "-dark")):
            lab.set_theme(page, theme)
            playground.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            playground.screenshot(path=str(ARTIFACTS / f"playground-{name}{suffix}.png"))
            present = [selector for selector in READABLE if playground.locator(selector).count()]
            assert len(present) >= 2, present
            for selector in present:
                measured = playground.locator(selector).first.evaluate(lab.CONTRAST)
                assert measured["contrast"] >= 4.5, (theme, selector, measured)
    finally:
        lab.set_theme(page, "JupyterLab Light")


def test_a_prompt_shows_the_tool_card_its_result_and_the_answer(lab_page):
    page = lab_page
    playground = _playground(page, 0)
    _send(playground, "weather in Oslo?")
    card = playground.locator(".workbench-tool-card-lookup")
    card.locator(".workbench-result-area").get_by_text("Oslo: 21 degrees for 2 day(s)").wait_for(timeout=60_000)
    playground.locator(".workbench-chat-assistant", has_text="the tool said: Oslo: 21 degrees").wait_for(timeout=30_000)
    # the card is the tool's form, filled with the model's arguments, read-only in auto mode
    city = lab.row_input(card, "city")
    expect(city).to_have_value("Oslo")
    expect(city).to_be_disabled()
    expect(card.locator("button.workbench-approve")).to_be_hidden()
    expect(playground.locator("button.workbench-save-eval")).to_be_enabled()
    expect(playground.locator("button.workbench-save-transcript")).to_be_enabled()
    _screenshots(page, playground, "auto")


def test_step_mode_edit_approve_runs_the_edited_call(lab_page):
    page = lab_page
    playground = _playground(page, 1)
    _send(playground, "weather in Oslo?")
    card = playground.locator(".workbench-tool-card-lookup")
    approve = card.locator("button.workbench-approve")
    approve.wait_for(state="visible", timeout=60_000)
    city = lab.row_input(card, "city")
    expect(city).to_have_value("Oslo")
    expect(city).to_be_enabled()
    _screenshots(page, playground, "step-waiting")
    city.fill("Bergen")
    city.press("Tab")
    page.wait_for_timeout(300)  # the edited value's sync message lands before the click's
    approve.click()
    card.locator(".workbench-result-area").get_by_text("Bergen: 21 degrees for 2 day(s)").wait_for(timeout=60_000)
    # the model's next request carried the edited call's result: its answer quotes it
    playground.locator(".workbench-chat-assistant", has_text="the tool said: Bergen: 21 degrees").wait_for(
        timeout=30_000)
    expect(card).to_contain_text("edited")
    lab.add_and_run_cell(page, "print('sent:', step_model.calls[1]['messages'][-1]['results'][0]['content'][0]['text'])",
                         "sent: Bergen: 21 degrees for 2 day(s)")
    # Save as eval case: the prompt and the call as the user edited it become a case of the suite file
    playground = _playground(page, 1)
    playground.locator(".workbench-eval-path input").fill("browser.evals.json")
    playground.locator(".workbench-eval-path input").press("Tab")
    page.wait_for_timeout(300)
    playground.locator("button.workbench-save-eval").click()
    playground.locator(".workbench-save-message", has_text="Saved eval case").wait_for(timeout=30_000)
    lab.add_and_run_cell(page, "from workbench.evals import load_evals\n"
                               "print('case:', load_evals('browser.evals.json').cases[-1].expected[0].to_dict())",
                         "case: {'name': 'lookup', 'arguments': {'city': ['Bergen'], 'days': [2]}}")
    _screenshots(page, _playground(page, 1), "step-done")


def test_two_models_side_by_side_sent_with_ctrl_enter(lab_page):
    page = lab_page
    playground = _playground(page, 2)
    columns = playground.locator(".workbench-chat-column")
    expect(columns).to_have_count(2)
    _send(playground, "weather?", keyboard=True)
    columns.nth(0).locator(".workbench-chat-assistant", has_text="Lima: 21 degrees").wait_for(timeout=60_000)
    columns.nth(1).locator(".workbench-chat-assistant", has_text="Quito: 21 degrees").wait_for(timeout=60_000)
    left_box, right_box = columns.nth(0).bounding_box(), columns.nth(1).bounding_box()
    assert right_box["x"] >= left_box["x"] + left_box["width"] - 1  # beside, not below
    assert abs(right_box["y"] - left_box["y"]) < 5
    _screenshots(page, playground, "side-by-side")
