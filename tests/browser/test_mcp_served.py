"""Resources and prompts declared with ``@resource`` / ``@prompt``, tried in a real JupyterLab (Debian's
chromium): ``inspect(server=build_server("module.py"))`` connects in memory, and its Resources and
Prompts tabs show a text resource, an image resource, a template read through its form, a prompt's
arguments form and messages (with an image) — in the light and the dark theme."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS, ROOT

NOTEBOOK = "mcp_served.ipynb"
MODULE = ROOT / "tests" / "mcp_conformance_resources.py"


@pytest.fixture(scope="module")
def inspector(lab_server, browser):
    view = f"from workbench.mcp import build_server, inspect\nview = inspect(server=build_server({str(MODULE)!r}))"
    with lab.inspector_page(lab_server, browser, NOTEBOOK, view) as page:
        yield page


def _read(view, label: str) -> None:
    view.locator(".widget-select select").first.select_option(label=label)
    view.get_by_role("button", name="Read").click()


def test_resources_and_prompts_of_a_module_in_light_and_dark(inspector):
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    resource = view.locator(".workbench-mcp-resource")
    ARTIFACTS.mkdir(exist_ok=True)
    contrast = {}
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        lab.inspector_tab(page, "Resources")
        _read(view, "static-text — test://static-text")
        expect(resource.locator("pre").first).to_contain_text(
            "This is the content of the static text resource.", timeout=60_000
        )
        contrast[f"{theme} resource"] = resource.locator("pre").first.evaluate(lab.CONTRAST)

        _read(view, "static-binary — test://static-binary")
        image = resource.locator("img").first
        expect(image).to_be_visible(timeout=60_000)
        assert image.evaluate("(img) => img.complete && img.naturalWidth") == 1  # the PNG decoded
        assert "image/png" in resource.inner_text()

        view.locator(".widget-dropdown select").filter(
            has=page.locator("option", has_text="test://template/{id}/data")
        ).first.select_option(label="template-data — test://template/{id}/data")
        form = lab.form_of(page, "resource_test___template__id__data")
        lab.row_input(form, "id").fill("4711")
        form.locator(".workbench-run").click()
        expect(resource).to_contain_text("Data for ID: 4711", timeout=60_000)

        lab.inspector_tab(page, "Prompts")
        view.locator(".widget-dropdown select").filter(
            has=page.locator("option", has_text="test_prompt_with_arguments")
        ).first.select_option(label="test_prompt_with_arguments")
        form = lab.form_of(page, "prompt_test_prompt_with_arguments")
        expect(form).to_contain_text("First test argument")  # the argument's description, from the docstring
        lab.row_input(form, "arg1").fill(f"from {theme}")
        lab.row_input(form, "arg2").fill("the browser")
        form.locator(".workbench-run").click()
        message = view.locator(".workbench-mcp-prompt .workbench-mcp-message").first
        expect(message).to_contain_text(f"arg1='from {theme}', arg2='the browser'", timeout=60_000)
        contrast[f"{theme} prompt"] = message.locator("pre").first.evaluate(lab.CONTRAST)

        view.locator(".widget-dropdown select").filter(
            has=page.locator("option", has_text="test_prompt_with_image")
        ).first.select_option(label="test_prompt_with_image")
        lab.form_of(page, "prompt_test_prompt_with_image").locator(".workbench-run").click()
        expect(view.locator(".workbench-mcp-prompt img").first).to_be_visible(timeout=60_000)
        view.screenshot(path=str(ARTIFACTS / f"mcp-served-{theme.split()[-1].lower()}.png"))
    lab.set_theme(page, "JupyterLab Light")
    assert all(c["contrast"] >= 4.5 for c in contrast.values()), contrast
