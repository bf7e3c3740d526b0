"""MCP Inspector's client features on ``workbench.mcp.connect``, against real servers: the reference
``server-everything`` (npm; stdio and streamable HTTP) and the project's own server."""

from __future__ import annotations

import base64
import time

import mcp.types as types
import pytest

from tests.mcp_servers import EVERYTHING, ROOT, WAIT, eventually, everything_http, npm_server
from workbench.executor import SequentialExecutor
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry


@pytest.fixture(scope="module", params=["stdio", "streamable-http"])
def everything(request):
    """(connection, registry, log, answers) on server-everything, with sampling/elicitation handlers."""
    from workbench.mcp import connect

    answers: dict[str, list] = {"sampling": [], "elicitation": []}

    def sample(params: types.CreateMessageRequestParams) -> str:
        answers["sampling"].append(params)
        return "a sampled answer"

    def elicit(params):
        answers["elicitation"].append(params)
        if getattr(params, "mode", None) == "url":
            return "decline"
        return {"name": "Ada", "check": True}

    log = ExecutionLog()
    registry = ToolRegistry()
    options = dict(
        registry=registry, sampling=sample, elicitation=elicit, roots=[str(ROOT)], log=log, connect_timeout=WAIT
    )
    if request.param == "stdio":
        conn = connect(command=[npm_server(EVERYTHING)], **options)
        try:
            yield conn, registry, log, answers
        finally:
            conn.disconnect()
    else:
        with everything_http("streamableHttp") as url:
            conn = connect(url=url, **options)
            try:
                yield conn, registry, log, answers
            finally:
                conn.disconnect()


# -- server --------------------------------------------------------------------------------------------
def test_server_info_capabilities_and_instructions(everything):
    conn, *_ = everything
    assert conn.server_info.name == "mcp-servers/everything"
    caps = conn.server_capabilities
    assert caps.resources.subscribe and caps.prompts is not None and caps.logging is not None
    assert "Everything Server" in conn.instructions
    assert conn.ping() >= 0


# -- resources -------------------------------------------------------------------------------------------
def test_resources_list_templates_and_read_text_and_blob(everything):
    conn, *_ = everything
    resources = conn.list_resources()
    assert resources and all(isinstance(r, types.Resource) for r in resources)
    templates = {t.uri_template for t in conn.list_resource_templates()}
    assert "demo://resource/dynamic/text/{resourceId}" in templates
    text = conn.read_resource("demo://resource/dynamic/text/1").contents[0]
    assert isinstance(text, types.TextResourceContents) and "1" in text.text
    blob = conn.read_resource("demo://resource/dynamic/blob/2").contents[0]
    assert isinstance(blob, types.BlobResourceContents)
    assert base64.b64decode(blob.blob)


def test_resource_template_arguments_complete(everything):
    conn, *_ = everything
    values = conn.complete("resource:demo://resource/dynamic/text/{resourceId}", "resourceId", "1")
    assert values and all(v.startswith("1") for v in values)


def test_subscribe_gets_live_resource_updates(everything):
    conn, registry, *_ = everything
    uri = "demo://resource/dynamic/text/1"
    updates: list[str] = []
    unsubscribe = conn.subscribe_resource(uri, updates.append)
    toggle = SequentialExecutor().call(registry, "toggle-subscriber-updates")
    try:
        assert toggle.status == "success"
        eventually(lambda: updates, what="a notifications/resources/updated")
        assert updates[0] == uri
        assert any(n.method == "notifications/resources/updated" for n in conn.notifications)
    finally:
        SequentialExecutor().call(registry, "toggle-subscriber-updates")
        unsubscribe()


# -- prompts ----------------------------------------------------------------------------------------------
def test_prompts_list_get_and_complete(everything):
    conn, *_ = everything
    prompts = {p.name: p for p in conn.list_prompts()}
    assert {"simple-prompt", "args-prompt", "completable-prompt"} <= set(prompts)
    assert [a.name for a in prompts["args-prompt"].arguments][:1] == ["city"]
    got = conn.get_prompt("args-prompt", {"city": "Oslo", "state": "Viken"})
    assert got.messages and "Oslo" in got.messages[0].content.text
    assert conn.complete("prompt:completable-prompt", "department", "E") == ["Engineering"]
    with pytest.raises(TypeError, match="prompt arguments are strings"):
        conn.get_prompt("args-prompt", {"city": 3})


# -- logging and the protocol ---------------------------------------------------------------------------
def test_server_logging_arrives_live_and_respects_the_level(everything):
    conn, registry, log, _answers = everything
    seen = []
    unsubscribe = conn.on_server_log(seen.append)
    conn.set_logging_level("debug")
    result = SequentialExecutor().call(registry, "toggle-simulated-logging")
    try:
        assert result.status == "success"
        eventually(
            lambda: [entry for entry in seen if entry.logger != "everything-server"] or None,
            what="a simulated log message",
        )
        assert all(
            entry.level in ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
            for entry in conn.server_logs
        )
        rows = eventually(
            lambda: log.rows(tool="mcp:notifications/message") or None, what="log rows of server messages"
        )
        assert rows[0]["status"] == "success" and rows[0]["input"]["level"] in {
            entry.level for entry in conn.server_logs
        }
    finally:
        SequentialExecutor().call(registry, "toggle-simulated-logging")
        unsubscribe()
    with pytest.raises(ValueError, match="expected one of debug"):
        conn.set_logging_level("loud")


def test_raw_protocol_history_is_newest_first_and_json_rpc(everything):
    conn, *_ = everything
    conn.ping()
    messages = conn.messages
    assert messages[0].time >= messages[-1].time
    assert {m.direction for m in messages} == {"sent", "received"}
    assert all(m.message.get("jsonrpc") == "2.0" for m in messages)
    assert any(m.direction == "sent" and m.method == "initialize" and m.kind == "request" for m in messages)
    pings = [m for m in messages if m.method == "ping" and m.direction == "sent"]
    assert pings and any(m.kind == "response" and m.message.get("id") == pings[0].message["id"] for m in messages)


# -- client-side requests ----------------------------------------------------------------------------------
def test_sampling_requests_are_answered_by_the_handler_and_logged(everything):
    conn, registry, log, answers = everything
    result = SequentialExecutor().call(registry, "trigger-sampling-request", {"prompt": "hello", "maxTokens": 20})
    assert result.status == "success" and "a sampled answer" in result.text
    assert answers["sampling"] and "hello" in answers["sampling"][-1].messages[0].content.text
    rows = log.rows(tool="mcp:sampling/createMessage")
    assert rows and rows[-1]["status"] == "success"
    assert "hello" in str(rows[-1]["input"]) and "a sampled answer" in str(rows[-1]["output"])


def test_form_elicitation_is_answered_by_the_handler_and_logged(everything):
    conn, registry, log, answers = everything
    result = SequentialExecutor().call(registry, "trigger-elicitation-request")
    assert result.status == "success" and "Ada" in result.text
    params = answers["elicitation"][-1]
    assert params.requested_schema["type"] == "object" and "name" in params.requested_schema["properties"]
    rows = log.rows(tool="mcp:elicitation/create")
    assert rows and rows[-1]["status"] == "success" and "accept" in str(rows[-1]["output"])


def test_url_elicitation_reaches_the_handler_with_its_url(everything):
    conn, registry, log, answers = everything
    before = len(answers["elicitation"])
    result = SequentialExecutor().call(registry, "trigger-url-elicitation", _url_elicitation_args(conn))
    assert len(answers["elicitation"]) == before + 1
    params = answers["elicitation"][-1]
    assert params.mode == "url" and params.url.startswith("http")
    assert result.status in ("success", "error")  # the server's own answer to a decline
    assert "decline" in str(log.rows(tool="mcp:elicitation/create")[-1]["output"])


def _url_elicitation_args(conn):
    spec = conn.proxies["trigger-url-elicitation"].spec
    required = spec.parameters.get("required", [])
    values = {"url": "https://example.com/authorize", "message": "Open this page", "elicitationId": "e-1"}
    return {name: values.get(name, "x") for name in required}


def test_roots_are_offered_and_a_change_is_notified(everything, tmp_path):
    conn, registry, *_ = everything
    text = SequentialExecutor().call(registry, "get-roots-list").text
    assert ROOT.as_uri() in text
    conn.set_roots([tmp_path, {"uri": "file:///data", "name": "data"}])
    assert [r.name for r in conn.roots] == [tmp_path.name, "data"]
    assert any(m.method == "notifications/roots/list_changed" for m in conn.messages)
    text = eventually(
        lambda: (lambda t: t if "file:///data" in t else None)(
            SequentialExecutor().call(registry, "get-roots-list").text
        ),
        what="the new roots",
    )
    assert tmp_path.as_uri() in text
    conn.set_roots([str(ROOT)])


def test_without_a_handler_the_server_gets_an_error_that_says_so(everything):
    conn, registry, log, _ = everything
    handler, conn.sampling_handler = conn.sampling_handler, None
    try:
        result = SequentialExecutor().call(registry, "trigger-sampling-request", {"prompt": "x", "maxTokens": 5})
        assert "no sampling handler" in (result.text + str(result.metadata.get("error")))
        assert log.rows(tool="mcp:sampling/createMessage")[-1]["status"] == "error"
    finally:
        conn.sampling_handler = handler


# -- tasks -------------------------------------------------------------------------------------------------
def test_a_tool_that_requires_tasks_is_a_proxy_on_a_server_with_tasks(everything):
    """server-everything declares capabilities.tasks: its task tool is registered (tests/test_mcp/test_tasks.py
    calls it); a server without that capability gets it in ``skipped``."""
    conn, registry, *_ = everything
    assert conn.supports_tasks
    assert "simulate-research-query" in registry.list_tools() and "simulate-research-query" not in conn.skipped


# -- list changed, on the project's own server ---------------------------------------------------------------
def test_tools_list_changed_refreshes_and_marks_removed_tools(tmp_path):
    import sys

    from workbench.mcp import connect

    script = tmp_path / "changing_server.py"
    script.write_text(CHANGING_SERVER)
    registry = ToolRegistry()
    changes: list[str] = []
    with connect(
        command=[sys.executable, str(script)],
        registry=registry,
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
        connect_timeout=WAIT,
    ) as conn:
        assert conn.server_capabilities.tools.list_changed
        conn.on_change(changes.append)
        old = conn.proxies["retire"]
        assert sorted(conn.tools) == ["keep", "retire"]
        assert SequentialExecutor().call(registry, "retire").status == "success"
        eventually(lambda: "fresh" in registry.list_tools(), what="the new tool to be registered")
        assert "tools" in changes
        assert any(n.method == "notifications/tools/list_changed" for n in conn.notifications)
        assert "retire" not in registry.list_tools() and old.removed
        assert SequentialExecutor().call(registry, "fresh", {"x": 2}).value == 4


CHANGING_SERVER = '''
"""A workbench MCP server whose tool list changes: calling ``retire`` removes it and adds ``fresh``."""
from workbench import tool
from workbench.mcp import serve
from workbench.registry import ToolRegistry

registry = ToolRegistry()


@tool
def keep() -> str:
    """Stays."""
    return "ok"


@tool
def fresh(x: int) -> int:
    """Double x."""
    return 2 * x


@tool
def retire() -> str:
    """Remove this tool and add another one."""
    registry.unregister("retire")
    registry.register_tool(fresh)
    return "retired"


registry.register_tool(keep)
registry.register_tool(retire)
serve(registry)
'''


def test_log_messages_on_a_2026_07_28_connection_arrive_after_opting_in():
    """The modern protocol has no logging/setLevel: the level rides on each call's _meta."""
    import sys

    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(
        command=[sys.executable, str(ROOT / "notebooks" / "docs_server.py")], registry=registry, connect_timeout=WAIT
    ) as conn:
        assert conn.protocol_version == "2026-07-28"
        assert SequentialExecutor().call(registry, "check_docs").status == "success"
        time.sleep(0.3)
        assert conn.server_logs == []  # nobody opted in
        conn.set_logging_level("info")
        assert SequentialExecutor().call(registry, "check_docs").status == "success"
        eventually(lambda: len(conn.server_logs) >= 2, what="the tool's log messages")
        assert [entry.data for entry in conn.server_logs] == ["topic slugify: ok", "topic convert_temperature: ok"]
        assert {entry.level for entry in conn.server_logs} == {"info"}
