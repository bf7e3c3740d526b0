"""The notebook's elicitation form in a real JupyterLab (Debian's chromium), light and dark: a server
asks for a form whose fields have defaults (SEP-1034); the form shows the defaults as the fields'
values — not "not set — default: …" — and Accept sends them to the server."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS
from tests.mcp_servers import ROOT

NOTEBOOK = "mcp_elicitation_defaults.ipynb"
DEFAULTS = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}


@pytest.fixture(scope="module")
def inspector(lab_server, browser):
    view = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from tests import mcp_defaults_asker\n"
        "from workbench.mcp import inspect\n"
        "view = inspect(server=mcp_defaults_asker.server)"
    )
    with lab.inspector_page(lab_server, browser, NOTEBOOK, view) as page:
        yield page


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_form_shows_the_defaults_and_accept_sends_them(inspector, theme):
    page = inspector
    lab.set_theme(page, theme)
    view = page.locator(".workbench-mcp-inspector").first
    view.locator(".widget-dropdown", has_text="Tool").locator("select").select_option(label="ask_profile")
    form = lab.form_of(page, "ask_profile")
    form.locator(".workbench-run").click()
    prompt = view.locator(".workbench-mcp-elicitation")
    expect(prompt).to_be_visible(timeout=60_000)
    result = form.locator(".workbench-result-area")
    expect(result).not_to_contain_text("John Doe")  # a new run shows no earlier answer while it waits
    asked = prompt
    name = lab.row_input(asked, "name")
    expect(name).to_have_value("John Doe")
    expect(lab.row_input(asked, "age")).to_have_value("30")
    expect(lab.row_input(asked, "score")).to_have_value("95.5")
    assert "not set" not in asked.inner_text()  # shown as values, not as the notes of untouched fields
    assert page.evaluate(lab.CONTRAST, name.element_handle())["contrast"] >= 4.5
    page.screenshot(path=str(ARTIFACTS / f"mcp-elicitation-defaults-{'dark' if 'Dark' in theme else 'light'}.png"))
    prompt.get_by_role("button", name="Accept").click()
    expect(result).to_contain_text("John Doe", timeout=60_000)
    expect(prompt).to_be_hidden()
    shown = result.inner_text()
    sent = json.loads(shown[shown.index("{") : shown.rindex("}") + 1])
    assert sent == DEFAULTS
