"""``workbench.mcp.inspect`` in a real JupyterLab (Debian's chromium): the Inspector tabs on the
reference server-everything — read a resource, get a prompt, answer a sampling request through the
approve prompt, expand a protocol message, see server logs — in the light and the dark theme."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS
from tests.mcp_servers import EVERYTHING, npm_server

NOTEBOOK = "mcp_inspect.ipynb"


@pytest.fixture(scope="module")
def inspector(lab_server, browser):
    view = (
        f"from workbench.mcp import inspect\nview = inspect(command=[{npm_server(EVERYTHING)!r}], connect_timeout=180)"
    )
    with lab.inspector_page(lab_server, browser, NOTEBOOK, view) as page:
        yield page


def test_tabs_resources_and_prompts(inspector):
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    titles = [t.strip() for t in view.locator(".lm-TabBar-tab").all_inner_texts()]
    assert titles == ["Tools", "Resources", "Prompts", "Tasks", "Logs", "Protocol", "Server"]

    lab.inspector_tab(page, "Resources")
    picker = view.locator(".widget-select select").first
    markdown = next(o for o in picker.locator("option").all_inner_texts() if o.strip().endswith(".md"))
    picker.select_option(label=markdown)
    view.get_by_role("button", name="Read").click()
    expect(view.locator(".workbench-mcp-resource pre").first).to_be_visible(timeout=60_000)
    assert "text/markdown" in view.locator(".workbench-mcp-resource").inner_text()

    lab.inspector_tab(page, "Prompts")
    view.locator(".widget-dropdown select").filter(
        has=page.locator("option", has_text="args-prompt")
    ).first.select_option(label="args-prompt")
    form = lab.form_of(page, "prompt_args-prompt")
    lab.row_input(form, "city").fill("Trondheim")
    form.locator(".workbench-run").click()
    message = view.locator(".workbench-mcp-prompt .workbench-mcp-message").first
    expect(message).to_contain_text("Trondheim", timeout=60_000)


def test_sampling_is_answered_through_the_approve_prompt(inspector):
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    lab.inspector_tab(page, "Tools")
    view.locator(".widget-dropdown select").first.select_option(label="trigger-sampling-request")
    form = lab.form_of(page, "trigger-sampling-request")
    lab.row_input(form, "prompt").fill("a question from the browser")
    form.locator(".workbench-run").click()
    prompt = view.locator(".workbench-mcp-sampling")
    expect(prompt).to_be_visible(timeout=60_000)
    assert "a question from the browser" in prompt.inner_text()
    prompt.locator("textarea").fill("the user's own answer")
    prompt.get_by_role("button", name="Approve").click()
    expect(form.locator(".workbench-result-area")).to_contain_text("the user's own answer", timeout=60_000)
    expect(prompt).to_be_hidden()


def test_protocol_and_logs_in_light_and_dark(inspector):
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    lab.inspector_tab(page, "Logs")
    view.locator(".widget-dropdown select").filter(
        has=page.locator("option", has_text="emergency")
    ).first.select_option(label="debug")
    view.get_by_role("button", name="Set level").click()
    expect(view.locator(".workbench-mcp-logs .workbench-mcp-log").first).to_be_visible(timeout=60_000)

    lab.inspector_tab(page, "Protocol")
    # the oldest entry (first in the DOM, shown last: the list is column-reverse); new traffic goes
    # after it in the DOM, so this locator keeps pointing at the same message
    oldest = view.locator(".workbench-mcp-protocol-list details").first
    expect(oldest).to_be_visible(timeout=60_000)
    oldest.locator("summary").click()
    expect(oldest.locator("pre")).to_be_visible()
    assert '"jsonrpc": "2.0"' in oldest.locator("pre").inner_text()
    before = view.locator(".workbench-mcp-protocol-list details").count()
    lab.inspector_tab(page, "Tools")  # more traffic (a call) while the entry is open
    view.locator(".widget-dropdown select").first.select_option(label="echo")
    form = lab.form_of(page, "echo")
    lab.row_input(form, "message").fill("more traffic")
    form.locator(".workbench-run").click()
    expect(form.locator(".workbench-result-area")).to_contain_text("more traffic", timeout=60_000)
    lab.inspector_tab(page, "Protocol")
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n",
        arg=[".workbench-mcp-protocol-list details", before],
        timeout=60_000,
    )
    expect(oldest.locator("pre")).to_be_visible()  # still expanded

    ARTIFACTS.mkdir(exist_ok=True)
    contrast = {}
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        lab.inspector_tab(page, "Protocol")
        summary = view.locator(".workbench-mcp-protocol-list summary b").first
        contrast[theme] = summary.evaluate(lab.CONTRAST)
        view.screenshot(path=str(ARTIFACTS / f"mcp-inspect-{theme.split()[-1].lower()}.png"))
    lab.set_theme(page, "JupyterLab Light")
    assert all(c["contrast"] >= 4.5 for c in contrast.values()), contrast


def test_a_task_tool_runs_from_its_form_and_shows_in_the_tasks_tab(inspector):
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    lab.inspector_tab(page, "Tools")
    view.locator(".widget-dropdown select").first.select_option(label="simulate-research-query")
    form = lab.form_of(page, "simulate-research-query")
    lab.row_input(form, "topic").fill("browser tides")
    form.locator(".workbench-run").click()
    expect(form.locator(".workbench-result-area")).to_contain_text("Research Report: browser tides", timeout=60_000)
    lab.inspector_tab(page, "Tasks")
    row = view.locator(".workbench-mcp-tasks .workbench-mcp-task").first
    expect(row).to_contain_text("simulate-research-query", timeout=60_000)
    expect(row).to_contain_text("completed")
    contrast = {}
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab.set_theme(page, theme)
        lab.inspector_tab(page, "Tasks")
        contrast[theme] = row.locator("td").nth(2).evaluate(lab.CONTRAST)
    lab.set_theme(page, "JupyterLab Light")
    assert all(c["contrast"] >= 4.5 for c in contrast.values()), contrast


def test_tabs_and_protocol_messages_by_keyboard(inspector):
    """Issue 28: the tab strip is reached by Tab from the tool search and moved along by the arrow keys;
    Enter opens a protocol message (a ``<summary>``) reached by Tab."""
    page = inspector
    view = page.locator(".workbench-mcp-inspector").first
    lab.inspector_tab(page, "Tools")
    view.locator("input[placeholder='Search tools…']").focus()
    focused = "() => (document.activeElement.textContent || '').trim()"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(focused) == "Tools", page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    for _ in range(5):  # Tools → Resources → … → Protocol
        page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == "Protocol"
    page.keyboard.press("Enter")
    summary = view.locator(".workbench-mcp-protocol-list summary").first
    summary.wait_for(state="visible", timeout=30_000)
    for _ in range(3):  # past the tab panel, to the first message
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.tagName") == "SUMMARY":
            break
    assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    # the first message Tab reaches is the newest, shown on top (the list is column-reverse), and Tab goes
    # on down the list (reading-flow: flex-visual)
    where = """(all) => all.map((s) => [s === document.activeElement, Math.round(s.getBoundingClientRect().top)])"""
    summaries = view.locator(".workbench-mcp-protocol-list summary")
    on_top = sorted(summaries.evaluate_all(where), key=lambda t: t[1])
    assert on_top[0][0], on_top[:3]
    page.keyboard.press("Tab")
    assert sorted(summaries.evaluate_all(where), key=lambda t: t[1])[1][0], "Tab goes down the list"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.parentElement.open === true", timeout=10_000)
    lab.inspector_tab(page, "Tools")
