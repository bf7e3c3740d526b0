"""URL elicitation's error path (protocol 2025-11-25, ``-32042``): a tool call the server refuses until
the user went through a browser flow is shown to the elicitation handler (with the URL) and sent again
once the handler accepts — against server-everything's ``trigger-url-elicitation`` (``errorPath``)."""

from __future__ import annotations

import uuid

import pytest

from tests.mcp_servers import EVERYTHING, WAIT, npm_server
from workbench.executor import SequentialExecutor
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry


@pytest.fixture(scope="module")
def server():
    from workbench.mcp import connect

    state = {"answer": "accept", "seen": []}

    def elicit(params):
        state["seen"].append(params)
        return state["answer"]

    registry, log = ToolRegistry(), ExecutionLog()
    conn = connect(
        command=[npm_server(EVERYTHING)], registry=registry, elicitation=elicit, log=log, connect_timeout=WAIT
    )
    try:
        yield conn, registry, log, state
    finally:
        conn.disconnect()


def _arguments() -> dict:
    # the server remembers an issued prerequisite per (session, url): a fresh url per test
    return {"url": f"https://example.com/authorize/{uuid.uuid4().hex}", "message": "Sign in", "errorPath": True}


def test_an_accepted_url_elicitation_retries_the_call_once(server):
    conn, registry, log, state = server
    state["answer"], state["seen"] = "accept", []
    arguments = _arguments()
    result = SequentialExecutor().call(registry, "trigger-url-elicitation", arguments)
    assert result.status == "success", result.error
    assert "User completed the URL elicitation flow" in result.text
    prerequisite, request = state["seen"]  # the -32042 prerequisite, then the retried call's own request
    assert prerequisite.mode == "url" and prerequisite.url == "https://modelcontextprotocol.io"
    assert request.url == arguments["url"]
    errors = [m for m in conn.messages if m.kind == "error" and m.message["error"]["code"] == -32042]
    assert errors
    calls = [
        m
        for m in conn.messages
        if m.direction == "sent"
        and m.method == "tools/call"
        and m.message["params"]["arguments"].get("url") == arguments["url"]
    ]
    assert len(calls) == 2
    rows = log.rows(tool="mcp:elicitation/create")
    assert any("modelcontextprotocol.io" in str(row["input"]) for row in rows)


def test_a_declined_url_elicitation_is_an_error_naming_the_url_and_no_retry(server):
    conn, registry, _log, state = server
    state["answer"], state["seen"] = "decline", []
    arguments = _arguments()
    result = SequentialExecutor().call(registry, "trigger-url-elicitation", arguments)
    assert result.status == "error"
    assert "browser-based authorization" in result.error and "https://modelcontextprotocol.io (decline)" in result.error
    assert len(state["seen"]) == 1
    calls = [
        m
        for m in conn.messages
        if m.direction == "sent"
        and m.method == "tools/call"
        and m.message["params"]["arguments"].get("url") == arguments["url"]
    ]
    assert len(calls) == 1
