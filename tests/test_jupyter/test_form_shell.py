"""The form shell's defects of issue 9 (everything around the fields), with real widgets.

4 a new attempt clears the old outcome, Reset during a run keeps the running state · 6 messages say
things once, tracebacks show the user's frames first · 7 a cancelled call is *cancelled*, not an
error · 8 no empty progress bar, no emoji clock, the timing once · 9 docstrings as (safe) markdown,
collapsed past a few lines, long words wrap · 10 theme colours only · 12 a form of a disconnected
MCP server says so · 14 a static ``text/html`` summary next to the widget view.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from tests.form_catalogue import wait_until, wb  # noqa: F401 - wb is a fixture
from workbench import ToolContext, tool
from workbench.jupyter import ToolForm

ROOT = Path(__file__).resolve().parents[2]
RELEASE = threading.Event()


class Customer(BaseModel):
    name: str


@tool
def echo(text: str, times: int = 1) -> str:
    """Echo the text (``boom`` raises)."""
    if text == "boom":
        raise ValueError("boom")
    return text * times


@tool
def order(customer: Customer) -> str:
    """Place an order."""
    return customer.name


@tool(long_running=True)
def waiter(ctx: ToolContext, seconds: float = 20.0) -> str:
    """Wait until released or cancelled."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not RELEASE.is_set():
        if ctx.cancelled:
            return "stopped"
        time.sleep(0.01)
    return "released"


@tool
def stepper(ctx: ToolContext, n: int = 3) -> str:
    """Report progress."""
    for i in range(1, n + 1):
        ctx.report_progress(i / n, f"step {i}")
    return "ok"


LONG_DOC = """Search the catalogue.

The **query** is matched against `title` and `body`; <script>window.__x = 1</script> stays text.

- one
- two
- three

A very long identifier: supercalifragilisticexpialidocious_supercalifragilisticexpialidocious_x.

More text at the end."""


def documented(query: str) -> str:
    return query


documented.__doc__ = LONG_DOC
documented = tool(documented)


def _form(wb, fn) -> ToolForm:
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


def _widgets(root):
    """Every widget in the tree under ``root``."""
    seen, stack = [], [root]
    while stack:
        widget = stack.pop()
        seen.append(widget)
        stack.extend(getattr(widget, "children", ()) or ())
    return seen


def _visible_text(form: ToolForm) -> str:
    """The string values of every displayed widget of the form (hidden ones left out)."""
    parts = []
    for widget in _widgets(form):
        layout = getattr(widget, "layout", None)
        if layout is not None and layout.display == "none":
            continue
        for trait in ("value", "description"):
            value = getattr(widget, trait, None)
            if isinstance(value, str):
                parts.append(value)
    return "\n".join(parts)


def _hidden(widget) -> bool:
    return widget.layout.display == "none"


# -- 4: a new attempt clears the previous outcome ----------------------------------------------------------
def test_a_rejected_run_clears_the_previous_result(wb):
    form = _form(wb, echo)
    assert form.set_values({"text": "first"}).run().ok
    assert "first" in form.result_html.value and form.elapsed.value
    form.fields["text"].clear()  # required and now missing: rejected
    result = form.run()
    assert result.status == "error" and form.errors
    assert "first" not in form.result_html.value and "success" not in form.result_html.value
    assert form.elapsed.value == ""
    assert _hidden(form.progress_box)
    assert "first" not in form.request_html.value and "first" not in form.response_html.value


def test_reset_when_idle_clears_the_outcome(wb):
    form = _form(wb, echo)
    form.set_values({"text": "hello"}).run()
    form.reset()
    assert form.result_html.value == "" and form.elapsed.value == "" and _hidden(form.progress_box)
    assert form.result is None


def test_reset_during_a_run_keeps_the_running_state(wb):
    RELEASE.clear()
    form = _form(wb, waiter)
    done = form.submit()
    assert wait_until(lambda: form.elapsed.value != "", 5)
    form.reset()
    assert form.running and "running" in form.result_html.value
    assert not _hidden(form.progress_box) and form.elapsed.value != ""
    assert form.run_button.disabled and not form.cancel_button.disabled
    RELEASE.set()
    result = done.result(timeout=10)
    assert result.ok and "released" in form.result_html.value


# -- 6: messages say things once; the user's frames first -------------------------------------------------
def test_the_error_summary_does_not_repeat_the_field_path(wb):
    form = _form(wb, order)
    form.run()
    assert "customer.name" in form.summary.value
    assert not re.search(r"customer\.name</code>: customer\.name", form.summary.value), form.summary.value
    assert "customer.name: customer.name" not in form.result.text


def test_the_exception_type_is_named_once(wb):
    form = _form(wb, echo)
    form.set_values({"text": "boom"}).run()
    text = re.sub(r"<[^>]+>", "", form.result_html.value)
    assert "ValueError: boom" in text
    assert "ValueError: ValueError" not in text


def test_a_traceback_starts_with_the_users_frames(wb):
    form = _form(wb, echo)
    result = form.set_values({"text": "boom"}).run()
    assert "workbench/executor/" in result.metadata["traceback"]  # internal frames exist in the raw traceback
    html = form.result_html.value
    shown, hidden = html.split("<details", 1)[0], html.split("<details", 1)[1]
    assert "in echo" in shown and "workbench/executor/" not in shown
    assert "workbench/executor/" in hidden  # kept, collapsed
    # the error is the headline, above the frames; the frames do not repeat it (#22 defect 8)
    headline, frames = shown.split("workbench-traceback", 1)
    assert "ValueError</b>: " in headline and "boom" in headline and "ValueError: boom" not in frames


def test_split_traceback_keeps_chains_and_user_frames():
    from workbench.jupyter._traceback import split_traceback

    def inner():
        raise KeyError("k")

    def outer():
        try:
            inner()
        except KeyError as exc:
            raise RuntimeError("wrapped") from exc

    import traceback

    try:
        outer()
    except RuntimeError as exc:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    internal = str(Path(__file__).resolve())  # pretend this file is internal code...
    user, hidden = split_traceback(text, internal=(internal + "-nothing",))
    assert hidden == 0 and user == text  # ...nothing internal: unchanged
    user, hidden = split_traceback(text, internal=(internal,))
    assert hidden > 0 and "in inner" not in user and "in outer" not in user
    assert "KeyError: 'k'" in user and "RuntimeError: wrapped" in user and "direct cause" in user


def test_split_traceback_without_frames_is_unchanged():
    from workbench.jupyter._traceback import split_traceback

    assert split_traceback("ValueError: x\n") == ("ValueError: x\n", 0)


# -- 7: cancelled is its own status ------------------------------------------------------------------------
def test_a_cancelled_call_is_shown_as_cancelled(wb):
    RELEASE.clear()
    form = _form(wb, waiter)
    done = form.submit()
    assert wait_until(lambda: form.cancel(), 5)
    result = done.result(timeout=10)
    assert result.metadata["error_type"] == "CancelledError"
    html = form.result_html.value
    assert "workbench-status-cancelled" in html and "workbench-status-error" not in html
    assert re.search(r">cancelled<", html)
    assert form.progress.bar_style == "warning"
    assert "--jp-error" not in html  # not painted as an error


# -- 8: progress bar, clock, timing -------------------------------------------------------------------------
def test_an_idle_form_hides_the_progress_bar(wb):
    form = _form(wb, stepper)
    assert _hidden(form.progress_box)
    form.run()
    assert not _hidden(form.progress_box)  # the call reported progress: the bar stays with its last value
    assert form.progress.value == 1.0
    plain = _form(wb, echo)
    plain.set_values({"text": "x"}).run()
    assert _hidden(plain.progress_box)  # no progress reported: no empty bar left behind


def test_no_emoji_clock_and_the_timing_is_shown_once(wb):
    form = _form(wb, echo)
    form.set_values({"text": "x"}).run()
    text = _visible_text(form)
    assert "⏱" not in text
    timings = re.findall(r"\d+(?:\.\d+)?\s?(?:ms|s)\b", re.sub(r"<[^>]+>", " ", text))
    assert len(timings) == 1, timings


# -- 9: docstrings ------------------------------------------------------------------------------------------
def test_a_long_docstring_is_markdown_collapsed_past_a_few_lines(wb):
    form = _form(wb, documented)
    html = form.header.value
    assert "<b>query</b>" in html and "<code>title</code>" in html and "<li>two</li>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    lead, rest = html.split("<details", 1)
    assert "Search the catalogue." in lead and "More text at the end." in rest
    assert "show more" in rest
    assert "overflow-wrap:anywhere" in html


def test_a_short_docstring_is_not_collapsed(wb):
    form = _form(wb, echo)
    assert "<details" not in form.header.value and "<code>boom</code>" in form.header.value


# -- 10: theme colours only ---------------------------------------------------------------------------------
SHELL_FILES = [
    "workbench/jupyter/_form.py",
    "workbench/jupyter/_render.py",
    "workbench/jupyter/_content_html.py",
    "workbench/jupyter/_approval.py",
    "workbench/_html.py",
    "workbench/_styles.py",
]


@pytest.mark.parametrize("path", SHELL_FILES)
def test_form_shell_files_use_theme_colours_only(path):
    text = (ROOT / path).read_text()
    fixed = re.findall(r"#[0-9a-fA-F]{3,8}\b(?![\w-])|\brgba?\(|\bhsla?\(", text)
    assert fixed == [], f"{path} has fixed colours: {fixed}"


def test_badges_and_description_use_theme_variables(wb):
    @tool(long_running=True)
    async def slow_badges(x: int) -> int:
        """Badges."""
        return x

    form = _form(wb, slow_badges)
    badges = re.findall(
        r"<span class='workbench-badge'[^>]*style='([^']*)'>(async|long-running)</span>", form.header.value
    )
    assert {name for _, name in badges} == {"async", "long-running"}
    for style, _ in badges:
        assert "var(--jp-layout-color2" in style and "var(--jp-ui-font-color1" in style


# -- 14: a static text/html fallback ------------------------------------------------------------------------
def test_the_form_has_a_static_html_summary_next_to_the_widget_view(wb):
    @tool
    def greet(name: str, times: int = 2) -> str:
        """Greet <b>someone</b>."""
        return name * times

    form = _form(wb, greet)
    bundle = form._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    html = bundle["text/html"]
    assert "greet" in html and "&lt;b&gt;someone&lt;/b&gt;" in html and "<b>someone</b>" not in html
    assert re.search(r"<td[^>]*><code>name</code>[^<]*<small>\(required\)</small></td>\s*<td[^>]*>string</td>", html)
    assert re.search(r"<td[^>]*><code>times</code></td><td[^>]*>integer</td><td[^>]*>2</td>", html)
    assert "ToolForm" not in bundle["text/plain"] or "greet" in bundle["text/plain"]


# -- 12: a form of a disconnected MCP server ----------------------------------------------------------------
def test_a_form_of_a_disconnected_mcp_server_says_so(wb):
    from workbench.mcp import connect

    serve = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
    conn = connect(command=serve, registry=wb.registry, cwd=str(ROOT), connect_timeout=30)
    try:
        proxy = wb.registry.get_tool("add")
        form = ToolForm(proxy, wb)
        assert _hidden(form.disconnected_banner) and not form.run_button.disabled
        assert form.set_values({"a": 2, "b": 3}).run().json == 5 or form.result.text == "5"
    finally:
        conn.disconnect()
    assert wait_until(lambda: form.disconnected, 10)
    assert not _hidden(form.disconnected_banner) and "disconnected" in form.disconnected_banner.value
    assert form.run_button.disabled
    result = form.run()  # the programmatic path says why, once
    assert result.status == "error" and "closed" in result.error
    text = re.sub(r"<[^>]+>", "", form.result_html.value)
    assert "McpConnectionError: McpConnectionError" not in text and "McpConnectionError" in text
    assert form.run_button.disabled  # still disconnected after the failed run
    later = ToolForm(proxy, wb)  # a form made after the disconnect shows it at once
    assert later.disconnected and later.run_button.disabled and not _hidden(later.disconnected_banner)


# -- features: keyboard, copy buttons, JSON mode (programmatic side; the browser tests drive the front end) ---
def test_shortcuts_run_and_cancel(wb):
    form = _form(wb, echo)
    form.set_values({"text": "key"})
    form.shortcuts.press("run")  # as the Run button: a non-blocking submit
    assert form.wait(timeout=10).text == "key"
    assert form.shortcuts.busy is False
    RELEASE.clear()
    slow = _form(wb, waiter)
    done = slow.submit()
    assert slow.shortcuts.busy is True
    slow.shortcuts.press("run")  # ignored while a call runs (no "already running" error)
    assert not slow.errors
    assert wait_until(lambda: (slow.shortcuts.press("cancel"), done.done())[1], 10)
    assert done.result(timeout=10).metadata["error_type"] == "CancelledError"
    assert slow.shortcuts.busy is False


def test_copy_buttons_hold_the_result_the_json_and_the_code(wb):
    import json

    form = _form(wb, echo)
    assert form.copy_result.text == "" and _hidden(form.result_tools)
    result = form.set_values({"text": "ab"}).run()
    assert form.copy_result.text == "ab" and not _hidden(form.result_tools)
    assert json.loads(form.copy_request.text) == form.tool_use
    assert json.loads(form.copy_response.text)["toolUseId"] == result.tool_use_id
    assert form.copy_code.text == form.code.value and "%tool_call echo" in form.copy_code.text
    form.code.value = "edited"
    assert form.copy_code.text == "edited"
    form.set_values({"text": "boom"}).run()
    assert form.copy_result.text.startswith("ValueError: boom") and "Traceback" in form.copy_result.text
    form.fields["text"].clear()
    form.run()  # rejected: nothing to copy from the earlier call
    assert form.copy_result.text == form.copy_request.text == form.copy_response.text == ""


def test_json_mode_round_trip(wb):
    import json

    form = _form(wb, echo)
    form.set_values({"text": "json", "times": 2}).show_json()
    assert form.json_mode.active and _hidden(form.fields_box)
    assert json.loads(form.json_mode.editor.value) == {"text": "json", "times": 2}
    assert "valid input" in form.json_mode.verdict.value

    editor = form.json_mode.editor
    editor.value = '{"text": '
    assert "not valid JSON" in form.json_mode.verdict.value
    editor.value = "[1]"
    assert "must be a JSON object" in form.json_mode.verdict.value
    editor.value = '{"text": "x", "colour": 1}'
    assert "no parameter" in form.json_mode.verdict.value and "colour" in form.json_mode.verdict.value
    editor.value = '{"times": "x"}'
    verdict = form.json_mode.verdict.value
    assert "text" in verdict and "times" in verdict and "times: times" not in verdict

    editor.value = '{"text": '
    assert form.show_form() is False and form.json_mode.active  # invalid JSON: stays, nothing lost
    assert editor.value == '{"text": ' and "fix the JSON" in form.json_mode.verdict.value
    before = len(wb.log)
    result = form.run()  # a run from invalid JSON is rejected; nothing sent
    assert result.status == "error" and "not valid JSON" in result.error and len(wb.log) == before

    editor.value = '{"text": "trip"}'
    assert form.run().text == "trip"  # Run in JSON mode sends the editor's input
    assert form.values == {"text": "trip"}  # times left out: not set
    editor.value = '{"text": "back", "times": 3}'
    assert form.show_form() is True and not form.json_mode.active and not _hidden(form.fields_box)
    assert form.values == {"text": "back", "times": 3}
    assert form.json_mode.toggle.value == "Form"
    form.json_mode.toggle.value = "JSON"  # the toggle is the same switch as show_json()
    assert json.loads(editor.value) == {"text": "back", "times": 3}


# -- docstring markdown stays safe for any text -------------------------------------------------------------
_OWN_TAGS = {
    "div",
    "p",
    "br",
    "code",
    "b",
    "i",
    "a",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "blockquote",
    "pre",
    "hr",
    "details",
    "summary",
}


@pytest.mark.parametrize(
    "seed_text",
    [
        "<script>alert(1)</script>",
        "```\n<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "**<b>** `` <i> `` _<a href=x>_",
        "# <h1>\n> <q>\n- <li>",
    ],
)
def test_description_html_escapes_what_the_text_says(seed_text):
    from workbench.jupyter._render import description_html

    html = description_html(seed_text * 3 + "\n\n" + "line\n" * 10)
    assert {m.lower() for m in re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", html)} <= _OWN_TAGS
    assert 'href="javascript' not in html and not re.search(r"<[a-z]+[^>]*\son\w+=", html)


def test_description_html_only_emits_its_own_tags_for_any_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from workbench.jupyter._render import description_html

    alphabet = st.sampled_from(
        list("<>&\"'`*_#-+>[]()!/= \nabc:1.") + ["```", "script", "img", "onerror", "javascript:"]
    )

    @settings(max_examples=150, deadline=None)
    @given(st.lists(alphabet, max_size=80).map("".join))
    def check(text):
        html = description_html(text)
        assert {m.lower() for m in re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", html)} <= _OWN_TAGS, html
        for href in re.findall(r"href=\"([^\"]*)\"", html):
            assert href.startswith(("http://", "https://", "mailto:")), html
        assert not re.search(r"<[a-z]+[^>]*\son\w+=", html), html  # no event-handler attributes

    check()
