"""The model playground in a real JupyterLab (chromium), light and dark: a prompt to a ScriptedModel shows
a compact tool card and its result; step mode: edit an argument in the card's form, Approve, and the tool
gets the edited value (and the model's next request carries its result); two models side by side; the
whole playground by keyboard alone (focus follows Approve / Deny); three columns that line up turn by
turn and fit; text and focus indicators readable (WCAG AA) in both themes.

One notebook holds the five playgrounds (one JupyterLab server and one kernel for the module).
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
    '    """The weather forecast of a city."""\n'
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
    "kb_a, kb_b = weather('kb-a', 'Rome'), weather('kb-b', 'Turin')\nkb = workbench.playground([kb_a, kb_b])\n"
    "kb.step_mode = True\nkb",
    "t1, t2, t3 = weather('t1', 'Oslo'), weather('t2', 'Lima'), weather('t3', 'Quito')\n"
    "three = workbench.playground([t1, t2, t3])\nthree.step_mode = True\nthree",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(
        lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-playground", width=1400, height=1100
    ) as page:
        page.locator(".workbench-playground").nth(4).wait_for(state="visible", timeout=60_000)
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
READABLE = (
    ".workbench-chat-user",
    ".workbench-chat-assistant",
    ".workbench-tool-card .workbench-status",
    ".workbench-turn-badge",
    ".workbench-chat-who",
    ".workbench-card-state",
    ".workbench-card-id",
    ".workbench-card-args th",
    ".workbench-card-args td",
    ".workbench-card-badge",
    ".workbench-chat-title",
    ".workbench-chat-totals div",
    ".workbench-chat-placeholder",
    ".workbench-save-message div",
    ".workbench-mode button.mod-active",
)

# an element's background against the first opaque background behind it (WCAG 2.1 AA for UI parts: 3:1)
PART_CONTRAST = """(el) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number), k = c.startsWith('color(') ? 255 : 1;
                         return {r: m[0] * k, g: m[1] * k, b: m[2] * k, a: m.length > 3 ? m[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                                return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let node = el.parentElement, bg = null;
  while (node && node.nodeType === 1) { const c = parse(getComputedStyle(node).backgroundColor); if (c.a > 0.5) { bg = c; break; } node = node.parentElement; }
  bg = bg || {r: 255, g: 255, b: 255, a: 1};
  const [hi, lo] = [lum(parse(getComputedStyle(el).backgroundColor)), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}"""

# the focused element's outline against what is behind it: {style, width, contrast} (WCAG 2.1 AA: 3:1)
FOCUS_RING = """(el) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number), k = c.startsWith('color(') ? 255 : 1;
                         return {r: m[0] * k, g: m[1] * k, b: m[2] * k, a: m.length > 3 ? m[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                                return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let node = el.parentElement, bg = null;
  while (node && node.nodeType === 1) { const c = parse(getComputedStyle(node).backgroundColor); if (c.a > 0.5) { bg = c; break; } node = node.parentElement; }
  bg = bg || {r: 255, g: 255, b: 255, a: 1};
  const style = getComputedStyle(el), ring = parse(style.outlineColor);
  const [hi, lo] = [lum(ring), lum(bg)].sort((a, b) => b - a);
  return {style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor,
          contrast: (hi + 0.05) / (lo + 0.05)};
}"""


def _screenshots(page, playground, name: str) -> None:
    """Light and dark pictures of ``playground``, checking on each that its text is readable."""
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for theme, suffix in (("JupyterLab Light", ""), ("JupyterLab Dark", "-dark")):
            lab.set_theme(page, theme)
            playground.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            playground.screenshot(path=str(ARTIFACTS / f"playground-{name}{suffix}.png"))
            # the picked mode stands out from the page behind it (a UI part: 3:1)
            picked = playground.locator(".workbench-mode button.mod-active").evaluate(PART_CONTRAST)
            assert picked >= 3, (theme, "picked mode", picked)
            present = [selector for selector in READABLE if playground.locator(selector).count()]
            assert len(present) >= 2, present
            for selector in present:
                for element in playground.locator(selector).all()[:6]:
                    measured = element.evaluate(lab.CONTRAST)
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
    # auto mode asks nothing: the card is compact, its arguments a small table (no form, no History)
    args = card.locator(".workbench-card-args")
    expect(args.locator("tr", has_text="city")).to_contain_text("Oslo")
    expect(args.locator("tr", has_text="days")).to_contain_text("2")
    assert card.locator("input, select, textarea").count() == 0
    expect(card.locator("button.workbench-approve")).to_be_hidden()
    expect(card.locator(".workbench-card-header")).to_contain_text("took")
    expect(card.locator(".workbench-card-header")).not_to_contain_text("tokens")
    height = card.bounding_box()["height"]
    assert height <= 170, height  # 153 px; the whole form made it 250 px for these two arguments
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
        timeout=30_000
    )
    expect(card).to_contain_text("edited")
    lab.add_and_run_cell(
        page,
        "print('sent:', step_model.calls[1]['messages'][-1]['results'][0]['content'][0]['text'])",
        "sent: Bergen: 21 degrees for 2 day(s)",
    )
    # Save as eval case: the prompt and the call as the user edited it become a case of the suite file
    playground = _playground(page, 1)
    playground.locator(".workbench-eval-path input").fill("browser.evals.json")
    playground.locator(".workbench-eval-path input").press("Tab")
    page.wait_for_timeout(300)
    playground.locator("button.workbench-save-eval").click()
    playground.locator(".workbench-save-message", has_text="Saved eval case").wait_for(timeout=30_000)
    lab.add_and_run_cell(
        page,
        "from workbench.evals import load_evals\n"
        "print('case:', load_evals('browser.evals.json').cases[-1].expected[0].to_dict())",
        "case: {'name': 'lookup', 'arguments': {'city': ['Bergen'], 'days': [2]}}",
    )
    _screenshots(page, _playground(page, 1), "step-done")


def test_two_models_side_by_side_sent_with_ctrl_enter(lab_page):
    page = lab_page
    playground = _playground(page, 2)
    expect(playground.locator(".workbench-chat-head")).to_have_count(2)
    _send(playground, "weather?", keyboard=True)
    columns = playground.locator(".workbench-turn-row").first.locator(".workbench-chat-cell")
    expect(columns).to_have_count(2)
    columns.nth(0).locator(".workbench-chat-assistant", has_text="Lima: 21 degrees").wait_for(timeout=60_000)
    columns.nth(1).locator(".workbench-chat-assistant", has_text="Quito: 21 degrees").wait_for(timeout=60_000)
    left_box, right_box = columns.nth(0).bounding_box(), columns.nth(1).bounding_box()
    assert right_box["x"] >= left_box["x"] + left_box["width"] - 1  # beside, not below
    assert abs(right_box["y"] - left_box["y"]) < 5
    _screenshots(page, playground, "side-by-side")


def _focus_name(playground) -> str:
    """What has the keyboard focus, named by the playground control it is (``outside``: not in it)."""
    return playground.evaluate("""(root) => {
      const el = document.activeElement, table = [
        ['model', '.workbench-model-picker input'],
        ['system', '.workbench-system-prompt textarea'], ['tools', '.workbench-tool-picker select'],
        ['tool_choice', '.workbench-tool-choice select'], ['temperature', 'input[type=checkbox]'],
        ['max turns', '.widget-inline-hbox input[type=number]'], ['mode', '.workbench-mode button'],
        ['prompt', '.workbench-prompt textarea'], ['send', 'button.workbench-send'],
        ['stop', 'button.workbench-stop'], ['new chat', 'button.workbench-new-chat'],
        ['approve', 'button.workbench-approve'], ['deny', 'button.workbench-deny'],
        ['path', '.workbench-save-path input'],
        ['suite', '.workbench-eval-path input'], ['save', 'button.workbench-save-transcript'],
        ['save eval', 'button.workbench-save-eval'], ['settings', '.workbench-disclosure-section button']];
      if (!root.contains(el)) return 'outside';
      for (const [name, selector] of table) if ([...root.querySelectorAll(selector)].includes(el)) return name;
      return el.tagName.toLowerCase();
    }""")


def _tab_until(page, playground, name: str, *, limit: int = 40, back: bool = False) -> list[str]:
    """Press Tab (Shift+Tab) until ``name`` has the focus; returns the names passed on the way."""
    seen = [_focus_name(playground)]
    for _ in range(limit):
        if seen[-1] == name:
            return seen
        page.keyboard.press("Shift+Tab" if back else "Tab")
        seen.append(_focus_name(playground))
    raise AssertionError(f"{name} never got the focus: {seen}")


def _wait_focus(page, locator, label: str) -> None:
    try:
        page.wait_for_function("(el) => el === document.activeElement", arg=locator.element_handle(), timeout=30_000)
    except Exception:  # noqa: BLE001 - the failure says where the focus went instead
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"playground-focus-{label}.png"))
        where = page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
        raise AssertionError(f"{label}: the focus is on {where}") from None


def _focus_ring(page, locator, theme: str) -> None:
    ring = locator.evaluate(FOCUS_RING)
    assert ring["style"] != "none" and ring["width"] >= 1 and ring["contrast"] >= 3, (theme, ring)


def test_the_whole_playground_by_keyboard_focus_follows_approve_and_deny(lab_page):
    page = lab_page
    playground = _playground(page, 3)
    playground.locator(".workbench-disclosure-section button").first.focus()  # where a Tab from above lands
    # every control in a sensible order: settings, prompt and its buttons, then saving
    walk = _tab_until(page, playground, "suite")
    order = [name for i, name in enumerate(walk) if i == 0 or name != walk[i - 1]]
    expected = [
        "settings",
        "model",
        "system",
        "tools",
        "tool_choice",
        "temperature",
        "max turns",
        "mode",
        "prompt",
        "send",
        "new chat",
        "path",
        "suite",
    ]
    assert [n for n in order if n in expected] == expected, walk
    # add a model by typing its name in "model 2": its column joins
    _tab_until(page, playground, "model", back=True)  # "model 3", coming from below
    page.keyboard.press("Shift+Tab")
    page.keyboard.type("scripted:kb-b")
    page.keyboard.press("Tab")
    expect(playground.locator(".workbench-chat-head")).to_have_count(2)
    # the prompt, typed; Send pressed with Enter
    _tab_until(page, playground, "prompt")
    page.keyboard.type("weather?")
    page.keyboard.press("Tab")
    assert _focus_name(playground) == "send"
    page.keyboard.press("Enter")
    approves = playground.locator("button.workbench-approve")
    approves.nth(1).wait_for(state="visible", timeout=60_000)
    # the card that waited first has the focus (the two columns run at once: either may ask first); Enter
    # approves it and the focus moves to the other waiting card
    page.wait_for_function(
        "(buttons) => buttons.includes(document.activeElement)",
        arg=[b.element_handle() for b in approves.all()],
        timeout=30_000,
    )
    first = 0 if approves.nth(0).evaluate("(el) => el === document.activeElement") else 1
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        _focus_ring(page, approves.nth(first), theme)
    lab.set_theme(page, "JupyterLab Light")
    approves.nth(first).focus()  # a theme change may move the focus: give it back where it was
    page.keyboard.press("Enter")
    _wait_focus(page, approves.nth(1 - first), "second-card")
    page.keyboard.press("Tab")
    assert _focus_name(playground) == "deny"
    page.keyboard.press("Enter")
    _wait_focus(page, playground.locator(".workbench-prompt textarea"), "prompt-after-deny")
    cards = playground.locator(".workbench-tool-card")
    approved, denied = cards.nth(first), cards.nth(1 - first)
    approved.locator(".workbench-result-area").get_by_text(" 21 degrees").wait_for(timeout=60_000)
    expect(denied.locator(".workbench-card-header")).to_contain_text("denied")
    expect(denied.locator(".workbench-card-header")).not_to_contain_text("took")
    # the call's raw JSON: a <details> that Tab reaches and Enter opens, with its focus ring
    raw = approved.locator(".workbench-raw-call details")
    raw.locator("summary").focus()
    _focus_ring(page, raw.locator("summary"), "JupyterLab Light")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    _wait_focus(page, raw.locator("summary"), "raw-call-summary")
    page.keyboard.press("Enter")
    expect(raw).to_have_attribute("open", "")
    expect(raw).to_contain_text("Response (ToolResult)")
    _screenshots(page, playground, "keyboard")
    # New chat from the keyboard clears the turns and the run counts
    expect(playground.locator("button.workbench-send")).to_be_enabled(timeout=30_000)
    playground.locator(".workbench-prompt textarea").focus()
    _tab_until(page, playground, "new chat", limit=4)
    _focus_ring(page, playground.locator("button.workbench-new-chat"), "JupyterLab Light")
    page.keyboard.press("Enter")
    expect(playground.locator(".workbench-turn-row")).to_have_count(0)
    expect(playground.locator(".workbench-chat-totals")).to_have_text(["", ""])


def _inside(outer: dict, inner: dict) -> bool:
    return inner["x"] >= outer["x"] - 1 and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1


def test_three_columns_line_up_turn_by_turn_and_their_forms_fit(lab_page):
    page = lab_page
    playground = _playground(page, 4)
    _send(playground, "weather in Oslo?")
    approve = playground.locator("button.workbench-approve")
    approve.first.wait_for(state="visible", timeout=60_000)
    approve.first.click()
    playground.locator(".workbench-chat-assistant", has_text="Oslo: 21 degrees").wait_for(timeout=60_000)
    lab.add_and_run_cell(page, "three.select(t1, t2, t3)\nprint('picked', len(three.columns))", "picked 3")
    playground = _playground(page, 4)
    expect(playground.locator(".workbench-chat-head")).to_have_count(3)
    _send(playground, "and now?")
    rows = playground.locator(".workbench-turn-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(1).locator("button.workbench-approve")).to_have_count(3, timeout=60_000)
    expect(rows.nth(0).locator(".workbench-chat-placeholder")).to_have_count(2)  # joined later
    # the second prompt spans the three columns: every column's turn starts at the same height
    grid = playground.locator(".workbench-playground-columns").bounding_box()
    prompt = playground.locator(".workbench-prompt-row").nth(1).bounding_box()
    assert prompt["width"] >= grid["width"] - 40, (prompt, grid)
    tops = [c.bounding_box()["y"] for c in rows.nth(1).locator(":scope > .workbench-chat-cell").all()]
    assert len(tops) == 3 and max(tops) - min(tops) <= 1, tops
    # each card's form fits its column: nothing sticks out, no label is cut short
    for card in rows.nth(1).locator(".workbench-tool-card").all():
        box = card.bounding_box()
        for part in card.locator("input, select, textarea, button, .widget-label, label").all():
            if not part.is_visible():
                continue
            inner = part.bounding_box()
            assert _inside(box, inner), (part.evaluate("(el) => el.outerHTML.slice(0, 160)"), box, inner)
            cut = part.evaluate(
                "(el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== 'visible'"
                " && el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA'"
            )
            assert not cut, part.evaluate("(el) => el.outerHTML.slice(0, 160)")
    _screenshots(page, playground, "three-columns")
    for button in rows.nth(1).locator("button.workbench-approve").all():
        button.click()
    expect(playground.locator("button.workbench-send")).to_be_enabled(timeout=60_000)
