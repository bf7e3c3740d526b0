"""``workbench.mcp.inspect``: the notebook view of one MCP connection, driven through its widgets
against real servers (server-everything over stdio; the project's own server)."""

from __future__ import annotations

import threading

import pytest

from tests.mcp_servers import EVERYTHING, ROOT, WAIT, eventually, npm_server, serve_command
from workbench.jupyter._mcp_inspector import TABS, expand_uri_template
from workbench.jupyter._mcp_render import contents_html, protocol_html


@pytest.fixture(scope="module")
def view():
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    workbench = Workbench()
    view = inspect(command=[npm_server(EVERYTHING)], workbench=workbench, roots=[str(ROOT)], connect_timeout=WAIT)
    yield view
    view.connection.disconnect()


def test_the_view_has_the_inspector_tabs_and_the_server_tab_describes_the_server(view):
    assert view.tabs.titles == TABS
    assert "Everything Reference Server" in view.server_html.value
    assert "Capabilities" in view.server_html.value and "Instructions" in view.server_html.value
    assert ROOT.as_uri() in view.roots_text.value


def test_tools_tab_has_a_form_per_tool_and_lists_uncallable_ones(view):
    assert "echo" in view.tool_picker.options
    view.tool_picker.value = "echo"
    form = view.tool_forms["echo"]
    form.set_values({"message": "from the inspector"})
    result = form.run()
    assert result.status == "success" and result.text == "Echo: from the inspector"
    assert "simulate-research-query" in view.tool_picker.options and view.skipped_html.value == ""
    rows = view.workbench.log.rows(tool="echo")
    assert rows and rows[-1]["status"] == "success"


def test_resources_tab_reads_by_mime_type_and_follows_a_subscription(view):
    uris = [value for _label, value in view.resource_picker.options]
    markdown = next(uri for uri in uris if uri.endswith(".md"))
    view.resource_picker.value = markdown
    view.read_button.click()
    assert "text/markdown" in view.resource_html.value and "<pre" in view.resource_html.value
    view.subscribe_button.value = True
    assert markdown in view.updates_html.value and "0 update(s)" in view.updates_html.value
    view.subscribe_button.value = False
    assert view.updates_html.value == ""


def test_a_resource_template_gets_a_form_for_its_parameters(view):
    template = next(v for _l, v in view.template_picker.options if v.endswith("/text/{resourceId}"))
    view.template_picker.value = template
    assert list(view.template_form.fields) == ["resourceId"]
    assert view.template_form.run().status == "error"  # the parameter is required
    view.template_form.set_values({"resourceId": "7"})
    assert view.template_form.run().status == "success"
    assert "demo://resource/dynamic/text/7" in view.resource_html.value


def test_prompts_tab_has_an_argument_form_and_renders_the_messages(view):
    view.prompt_picker.value = "args-prompt"
    form = view.prompt_form
    assert "city" in form.fields
    form.set_values({"city": "Bergen"})
    assert form.run().status == "success"
    assert "workbench-mcp-message" in view.prompt_html.value and "Bergen" in view.prompt_html.value


def test_sampling_waits_for_the_approve_prompt_with_the_edited_answer(view):
    registry, executor = view.workbench.registry, view.workbench.executor

    def user():
        assert view.sampling_prompt.asked.wait(WAIT)
        assert "hello from the test" in view.sampling_prompt.request_html.value
        view.sampling_prompt.answer.value = "an answer the user typed"
        view.sampling_prompt.approve_button.click()

    helper = threading.Thread(target=user)
    helper.start()
    result = executor.call(registry, "trigger-sampling-request", {"prompt": "hello from the test", "maxTokens": 5})
    helper.join(WAIT)
    assert "an answer the user typed" in result.text
    assert view.workbench.log.rows(tool="mcp:sampling/createMessage")[-1]["status"] == "success"


def test_a_rejected_sampling_request_is_an_error_for_the_server(view):
    registry, executor = view.workbench.registry, view.workbench.executor
    helper = threading.Thread(
        target=lambda: view.sampling_prompt.asked.wait(WAIT) and view.sampling_prompt.reject_button.click()
    )
    helper.start()
    result = executor.call(registry, "trigger-sampling-request", {"prompt": "no", "maxTokens": 5})
    helper.join(WAIT)
    assert "rejected" in (result.text + str(result.metadata.get("error")))


def test_elicitation_builds_a_form_from_the_requested_schema(view):
    registry, executor = view.workbench.registry, view.workbench.executor
    seen = {}

    def user():
        assert view.elicitation_prompt.asked.wait(WAIT)
        form = view.elicitation_prompt.form
        seen["fields"] = list(form.fields)
        view.elicitation_prompt.accept_button.click()  # "name" is required and empty: refused, form shows why
        seen["errors"] = dict(form.errors)
        form.set_values({"name": "Ada"})
        view.elicitation_prompt.accept_button.click()

    helper = threading.Thread(target=user)
    helper.start()
    result = executor.call(registry, "trigger-elicitation-request", {})
    helper.join(WAIT)
    assert "name" in seen["fields"] and "email" in seen["fields"]
    assert "name" in seen["errors"]
    assert "Ada" in result.text


def test_logs_tab_sets_the_level_and_shows_server_messages_live(view):
    registry, executor = view.workbench.registry, view.workbench.executor
    view.level_picker.value = "debug"
    view.level_button.click()
    assert "debug" in view.level_status.value
    executor.call(registry, "toggle-simulated-logging", {})
    try:
        eventually(
            lambda: "message" in view.logs_html.value and "workbench-mcp-log" in view.logs_html.value,
            what="a server log line in the Logs tab",
        )
    finally:
        executor.call(registry, "toggle-simulated-logging", {})


def test_protocol_tab_lists_json_rpc_messages_newest_first(view):
    view.connection.ping()
    eventually(lambda: "ping" in view.protocol_text, what="the ping in the Protocol tab")
    html = view.protocol_text
    assert html.index("ping") < html.rindex("initialize")  # newest first
    assert "<details" in html
    shown = view.protocol_list.children
    pings = view.protocol_text.count("<b>ping</b>")
    view.connection.ping()
    eventually(lambda: view.protocol_text.count("<b>ping</b>") > pings, what="the second ping")
    # new messages are appended: the widgets already shown stay, in place (an expanded one stays open)
    assert view.protocol_list.children[: len(shown)] == shown


def test_server_text_is_escaped():
    class Message:
        def __init__(self, data):
            self.message, self.direction, self.time = data, "received", 0.0
            self.method, self.kind = data.get("method"), "notification"

    html = protocol_html([Message({"jsonrpc": "2.0", "method": "<img src=x onerror=alert(1)>"})])
    assert "<img" not in html and "&lt;img" in html

    class Text:
        uri, mime_type, text = "x://1", "text/html", "<script>alert(1)</script>"

    class Result:
        contents = [Text()]

    assert "<script>" not in contents_html(Result())


def test_uri_templates_expand_with_encoding():
    assert expand_uri_template("demo://x/{id}/{name}", {"id": 3, "name": "a b/c"}) == "demo://x/3/a%20b%2Fc"


def test_inspect_on_the_projects_own_server(tmp_path):
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    workbench = Workbench()
    view = inspect(
        command=serve_command("tests.mcp_sample_tools"), workbench=workbench, cwd=str(ROOT), connect_timeout=WAIT
    )
    try:
        assert "add" in view.tool_picker.options
        assert "no resources" in view.resource_html.value and "no prompts" in view.prompt_html.value
        view.set_level("info")  # protocol 2026-07-28: the level goes with each call
        assert "sent with each tool call" in view.level_status.value and view.connection.log_level == "info"
        view.tool_picker.value = "add"
        view.tool_forms["add"].set_values({"a": 2, "b": 3})
        assert view.tool_forms["add"].run().value == 5
    finally:
        view.connection.disconnect()
    eventually(lambda: "disconnected" in view.title.value, what="the disconnected title")


def test_a_removed_tool_shows_as_removed_and_new_tools_appear(tmp_path):
    import sys

    from tests.test_mcp.test_client_features import CHANGING_SERVER
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    script = tmp_path / "changing_server.py"
    script.write_text(CHANGING_SERVER)
    view = inspect(
        command=[sys.executable, str(script)],
        workbench=Workbench(),
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
        connect_timeout=WAIT,
    )
    try:
        view.tool_picker.value = "retire"
        form = view.tool_forms["retire"]
        assert form.run().status == "success"  # the call removes "retire" and adds "fresh"
        eventually(lambda: "fresh" in view.tool_picker.options, what="the new tool in the Tools tab")
        view.tool_picker.value = "retire"
        assert "was removed" in view.removed_banner.value and view.removed_banner.layout.display is None
        assert form.run_button.disabled
        view.tool_picker.value = "fresh"
        assert view.removed_banner.layout.display == "none"
    finally:
        view.connection.disconnect()


def test_tasks_tab_lists_tasks_with_status_and_cancels_one(view):
    registry, executor = view.workbench.registry, view.workbench.executor
    assert "no tasks yet" in view.tasks_html.value
    result = executor.call(registry, "simulate-research-query", {"topic": "moss"})
    assert result.status == "success", result.error
    html = eventually(
        lambda: (lambda h: h if "completed" in h else None)(view.tasks_html.value),
        what="the finished task in the Tasks tab",
    )
    assert "simulate-research-query" in html and "workbench-mcp-task" in html
    task = view.connection.start_task("simulate-research-query", {"topic": "<b>never</b>"})
    eventually(lambda: task.task_id in view.task_picker.options, what="the running task in the picker")
    view.task_picker.value = task.task_id
    view.cancel_task_button.click()
    assert "cancelled" in view.task_status.value
    assert task.task_id not in view.task_picker.options
    row = next(r for r in view.tasks_html.value.split("<tr") if task.task_id in r)
    assert "cancelled" in row


# -- a 2026-07-28 server: icons and cache hints ---------------------------------------------------------
@pytest.fixture(scope="module")
def modern_view():
    import sys

    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    view = inspect(
        command=[sys.executable, str(ROOT / "tests" / "mcp_modern_server.py")],
        workbench=Workbench(),
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
        connect_timeout=WAIT,
    )
    yield view
    view.connection.disconnect()


def test_icons_of_tools_resources_prompts_and_the_server_are_shown_with_safe_sources_only(modern_view):
    from tests.mcp_modern_server import PIXEL

    view = modern_view
    view.tool_picker.value = "greet"
    assert view.tool_icons.value.count("<img") == 1  # its javascript: icon is dropped
    assert f"src='{PIXEL}'" in view.tool_icons.value and "javascript" not in view.tool_icons.value
    view.tool_picker.value = "haiku"
    assert view.tool_icons.value == ""
    view.resource_picker.value = "notes://first"
    assert f"src='{PIXEL}'" in view.resource_icons.value
    view.prompt_picker.value = "poem"
    assert "src='https://example.com/prompt.png'" in view.prompt_icons.value
    assert f"src='{PIXEL}'" in view.server_html.value


def test_the_server_tab_shows_the_cache_hints_of_the_lists(modern_view):
    view = modern_view
    view.refresh()
    html = eventually(
        lambda: (lambda h: h if "resources/list" in h else None)(view.server_html.value),
        what="the cache hints in the Server tab",
    )
    assert "Cache hints" in html and "60,000 ms" in html and "public" in html and "private" in html
    assert "cached, fresh for" in html
    fetches = view.connection.cache_hints["resources/list"].fetches
    view._refresh_resources()  # what a list_changed-free redraw does: the fresh list comes from the cache
    assert view.connection.cache_hints["resources/list"].fetches == fetches
    view.refresh()  # the user's refresh goes to the server
    assert view.connection.cache_hints["resources/list"].fetches == fetches + 1


def test_icon_sources_other_than_https_and_data_images_are_never_rendered():
    from mcp.types import Icon

    from workbench.jupyter._mcp_render import icons_html, safe_icon_src

    bad = [
        "javascript:alert(1)",
        "http://example.com/i.png",
        "data:text/html;base64,PHNjcmlwdD4=",
        "https://x/'onerror='alert(1)",
        "vbscript:x",
        " https://x.png",
        "data:image/png;base64,AA AA",
        "https://x/a b.png",
    ]
    assert [safe_icon_src(src) for src in bad] == [
        None,
        None,
        None,
        "https://x/'onerror='alert(1)",
        None,
        None,
        None,
        None,
    ]
    html = icons_html([Icon(src=src) for src in bad], label="<b>t</b>")
    assert html.count("<img") == 1 and "'onerror=" not in html and "&#x27;onerror=&#x27;" in html
    assert "<b>" not in html


def test_the_server_tab_exports_the_config_entry_and_file(view):
    import json

    entry = json.loads(view.copy_entry_button.text)
    assert entry == view.connection.config() and entry["command"] == npm_server(EVERYTHING)
    assert json.loads(view.copy_file_button.text) == {"mcpServers": {"mcp-servers-everything": entry}}
    assert "mcpServers entry" in view.config_html.value


def test_the_view_is_final_when_disconnect_returns():
    """Traffic just before and during ``disconnect()`` is drawn before it returns, not by a redraw held
    back for later: a widget made after the user saved the notebook would mark it changed again (the
    "Save your work" prompt on closing a just-saved notebook)."""
    import time

    import ipywidgets as W

    from tests import mcp_defaults_asker
    from workbench.jupyter._mcp_tab import REFRESH
    from workbench.mcp import inspect

    view = inspect(server=mcp_defaults_asker.server)
    view.connection.ping()  # a redraw at once (the throttle's leading edge)…
    view.connection.ping()  # …so this one's is held back for REFRESH seconds
    late: list[str] = []
    previous = W.Widget._widget_construction_callback
    W.Widget.on_widget_constructed(lambda widget: late.append(type(widget).__name__))
    try:
        view.connection.disconnect()
        drawn = view.protocol_text
        late.clear()  # what the disconnect itself drew is fine; what comes after it is not
        time.sleep(3 * REFRESH)
    finally:
        W.Widget._widget_construction_callback = previous
    assert late == []
    assert view.protocol_text == drawn
    assert drawn.count("server/discover") + drawn.count("<b>ping</b>") >= 2 + 1  # the probes and the connect
    assert len(view.protocol_list.children) == len(view.connection.messages)
