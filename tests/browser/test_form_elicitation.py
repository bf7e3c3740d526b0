"""``ctx.elicit`` from a tool run in its form, in a real JupyterLab (Debian's chromium), light and dark:
Run → the elicitation form appears inside the tool's form, saying the tool asks → the user fills it
and accepts → the result shows the answer; or declines → the result says so. The prompt's text and
field are readable (WCAG contrast ≥ 4.5, measured in the page) and it hides once answered."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_elicitation.ipynb"
CELLS = [
    "%load_ext workbench",
    "from workbench import ToolContext, get_workbench, tool\n\n"
    "@tool(context=True)\n"
    "def greet_user(greeting: str, tool_context: ToolContext) -> str:\n"
    '    """Greet the user by the name they give when asked."""\n'
    "    answer = tool_context.elicit('Your name?', {'type': 'object', 'required': ['name'],\n"
    "                                                'properties': {'name': {'type': 'string'}}})\n"
    "    return f'{greeting}, {answer.content[\"name\"]}!' if answer.accepted else f'no name ({answer.action})'\n\n"
    "wb = get_workbench()\n"
    "wb.registry.register_tool(greet_user, replace=True)\n"
    "wb.form(greet_user)",
]


@pytest.fixture(scope="module")
def form_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-greet_user") as page:
        yield page
        lab.close_notebook(page, lab_server)


def _run_until_asked(page, greeting: str):
    form = lab.form_of(page, "greet_user")
    lab.row_input(form, "greeting").fill(greeting)
    form.locator(".workbench-run").click()
    prompt = form.locator(".workbench-mcp-elicitation")  # inside the tool's own form
    lab.wait_visible(prompt, form, "form-elicitation-prompt", timeout=60_000)
    expect(prompt).to_contain_text("The tool greet_user asks: Your name?")
    return form, prompt


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_tool_asks_in_its_form_and_gets_the_answer(form_page, theme):
    page = form_page
    lab.set_theme(page, theme)
    form, prompt = _run_until_asked(page, "Hello")
    name = lab.row_input(prompt, "name")
    name.fill("Ada Lovelace")
    looks = {"field": name.evaluate(lab.CONTRAST), "question": prompt.get_by_text("Your name?").evaluate(lab.CONTRAST)}
    page.screenshot(path=str(ARTIFACTS / f"form-elicitation-{'dark' if 'Dark' in theme else 'light'}.png"))
    assert all(look["contrast"] >= 4.5 for look in looks.values()), looks
    assert (looks["field"]["background"] == "rgb(255, 255, 255)") == ("Light" in theme), looks
    prompt.get_by_role("button", name="Accept").click()
    result = form.locator(".workbench-result-area")
    expect(result).to_contain_text("Hello, Ada Lovelace!", timeout=60_000)
    expect(prompt).to_be_hidden()


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_declining_tells_the_tool(form_page, theme):
    page = form_page
    lab.set_theme(page, theme)
    form, prompt = _run_until_asked(page, "Hi")
    result = form.locator(".workbench-result-area")
    expect(result).not_to_contain_text("Ada Lovelace")  # the earlier answer is not shown while it waits
    prompt.get_by_role("button", name="Decline").click()
    expect(result).to_contain_text("no name (decline)", timeout=60_000)
    expect(prompt).to_be_hidden()
    lab.set_theme(page, "JupyterLab Light")
