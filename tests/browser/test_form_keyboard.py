"""Issue 28, forms by keyboard only, in a real JupyterLab (chromium), light and dark:

* Tab walks a form — fields, Run, Reset, then the *Request (ToolUse)*, *Response (ToolResult)* and *Copy as
  code* sections, which Enter or Space opens — and then leaves it;
* the focused control carries a ring of at least 3:1 against what surrounds it (measured in the page);
* Enter in a one-line field runs the form, Enter in a multi-line box starts a new line; Run's tooltip and
  a hint beside it say so.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_keyboard.ipynb"
CELLS = [
    "%load_ext workbench",
    "%%tool\n"
    "def shout(name: str, times: int = 1, excited: bool = False) -> str:\n"
    '    """Say a name loudly."""\n'
    "    return (name.upper() + ('!' if excited else '')) * times\n",
    "from typing import Annotated\nfrom pydantic import Field\n",
    "%%tool\n"
    "def note(title: str, body: Annotated[str, Field(description='Free text, multiline')] = '') -> str:\n"
    '    """Keep a note."""\n'
    "    return f'{title}: {len(body.splitlines())} line(s)'\n",
]

# what the focused element is, for a keyboard user: its role-ish tag and its accessible name
FOCUSED = """() => {
  const el = document.activeElement;
  const form = el && el.closest('.workbench-form');
  const label = el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent)
    || (el.tagName === 'BUTTON' ? el.textContent : '') || el.getAttribute('title') || '';
  return {inForm: !!form, tag: el.tagName.toLowerCase(), type: el.type || '', name: label.trim(),
          expanded: el.getAttribute('aria-expanded')};
}"""

# the focus ring of the active element: style, width, and its contrast against the first opaque background
# behind it (the ring is drawn outside the control, over that background)
FOCUS_RING = """() => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number), k = c.startsWith('color(') ? 255 : 1;
                         return {r: m[0] * k, g: m[1] * k, b: m[2] * k, a: m.length > 3 ? m[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const el = document.activeElement, style = getComputedStyle(el);
  let node = el.parentElement, bg = null;
  while (node && node.nodeType === 1) { const c = parse(getComputedStyle(node).backgroundColor); if (c.a > 0.5) { bg = c; break; } node = node.parentElement; }
  bg = bg || {r: 255, g: 255, b: 255, a: 1};
  const ring = parse(style.outlineColor);
  const [hi, lo] = [lum(ring), lum(bg)].sort((a, b) => b - a);
  return {style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor,
          contrast: (hi + 0.05) / (lo + 0.05)};
}"""


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-note") as page:
        yield page


def _walk(page, steps: int = 30) -> list[dict]:
    """Press Tab until focus leaves the form; the focused elements in order (the last one outside)."""
    seen = []
    for _ in range(steps):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        seen.append(focused)
        if not focused["inForm"]:
            break
    return seen


def test_tab_reaches_every_control_and_section_and_enter_or_space_opens_them(lab_page):
    page = lab_page
    form = lab.form_of(page, "shout")
    lab.row_input(form, "name").focus()
    walk = _walk(page)
    names = [step["name"] for step in walk if step["inForm"]]
    assert not walk[-1]["inForm"], f"Tab never left the form: {names}"
    order = ["times", "excited", "Run", "Reset", "Request (ToolUse)", "Response (ToolResult)", "Copy as code"]
    positions = [next((i for i, name in enumerate(names) if want in name), None) for want in order]
    assert None not in positions and positions == sorted(positions), names
    # the sections are disclosure buttons: Enter opens one, Space another, and Tab then reaches their Copy buttons
    request = form.get_by_role("button", name="Request (ToolUse)")
    request.focus()
    page.keyboard.press("Enter")
    expect(request).to_have_attribute("aria-expanded", "true")
    code = form.get_by_role("button", name="Copy as code")
    code.focus()
    page.keyboard.press("Space")
    expect(code).to_have_attribute("aria-expanded", "true")
    expect(form.locator(".workbench-copy-button", has_text="Copy code")).to_be_visible()
    request.focus()
    after = [step["name"] for step in _walk(page)]
    # Copy JSON is disabled until a call was sent; the open Copy as code section's button is reached
    assert any("Copy the code" in name for name in after[:4]), after
    page.keyboard.press("Shift+Tab")
    page.screenshot(path=str(ARTIFACTS / "form-keyboard-sections.png"))


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_focus_ring_stands_out_3_to_1_in_both_themes(lab_page, theme):
    page = lab_page
    lab.set_theme(page, theme)
    try:
        form = lab.form_of(page, "shout")
        form.get_by_role("button", name="Run").click()  # a clicked button keeps a ring as clear (empty name: refused)
        clicked = page.evaluate(FOCUS_RING)
        assert clicked["width"] >= 2 and clicked["contrast"] >= 3.0, (theme, "Run clicked", clicked)
        lab.row_input(form, "name").focus()
        rings = {}
        for step in _walk(page):
            if step["inForm"] and step["name"] in ("Run", "Reset", "Request (ToolUse)") or step["type"] == "checkbox":
                rings[step["name"] or step["type"]] = page.evaluate(FOCUS_RING)
        assert {"Run", "Reset", "Request (ToolUse)"} <= set(rings), rings
        for name, ring in rings.items():
            assert ring["style"] != "none" and ring["width"] >= 2, (theme, name, ring)
            assert ring["contrast"] >= 3.0, (theme, name, ring)
        form.get_by_role("button", name="Run").focus()
        page.screenshot(path=str(ARTIFACTS / f"form-focus-ring-{theme.split()[-1].lower()}.png"))
    finally:
        lab.set_theme(page, "JupyterLab Light")


def test_enter_in_a_one_line_field_runs_and_in_a_multi_line_box_starts_a_line(lab_page):
    page = lab_page
    form = lab.form_of(page, "note")
    run = form.locator(".workbench-run")
    assert "Enter" in (run.get_attribute("title") or ""), run.get_attribute("title")
    expect(form.locator(".workbench-key-hint")).to_contain_text("Enter runs")
    lab.row_input(form, "title").fill("shop")
    body = lab.row_input(form, "body")
    assert body.evaluate("el => el.tagName") == "TEXTAREA"
    body.click()
    page.keyboard.type("first")
    page.keyboard.press("Enter")
    page.keyboard.type("second")
    assert body.input_value() == "first\nsecond"
    page.keyboard.press("Control+Enter")  # runs from any box
    lab.wait_visible(form.locator(".workbench-result-area").get_by_text("shop: 2 line(s)"), form, "form-ctrl-enter")
    # one call: the Enter in the multi-line box ran nothing (its call, sent first, would be logged first)
    lab.add_and_run_cell(
        page,
        "from workbench.jupyter import get_workbench\n"
        "print('calls:', [r['input'] for r in get_workbench().log.rows(tool='note')])",
        "calls: [{'title': 'shop', 'body': 'first\\nsecond'}]",
    )
    title = lab.row_input(form, "title")
    title.fill("market")
    title.press("Enter")
    lab.wait_visible(form.locator(".workbench-result-area").get_by_text("market: 2 line(s)"), form, "form-enter-runs")
