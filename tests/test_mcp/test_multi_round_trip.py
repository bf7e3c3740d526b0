"""Multi-round-trip requests (protocol 2026-07-28, SEP-2322): a server that needs the user, the model
or the roots answers ``tools/call`` with an ``input_required`` result instead of sending requests of
its own; the handlers given to ``connect`` (``sampling=``, ``elicitation=``, ``roots=``) answer them and
the call is retried — against tests/mcp_modern_server.py (the SDK's ``MCPServer``, stdio)."""

from __future__ import annotations

import sys

import pytest

from tests.mcp_servers import ROOT, WAIT
from workbench.executor import SequentialExecutor
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry

MODERN_SERVER = [sys.executable, str(ROOT / "tests" / "mcp_modern_server.py")]


@pytest.fixture(scope="module")
def modern(tmp_path_factory):
    from workbench.mcp import connect

    asked: dict[str, list] = {"sampling": [], "elicitation": []}

    def sample(params):
        asked["sampling"].append(params)
        return "cherry blossoms fall"

    def elicit(params):
        asked["elicitation"].append(params)
        return {"name": "Ada"}

    root = tmp_path_factory.mktemp("root")
    registry, log = ToolRegistry(), ExecutionLog()
    conn = connect(
        command=MODERN_SERVER,
        registry=registry,
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
        sampling=sample,
        elicitation=elicit,
        roots=[root],
        log=log,
        connect_timeout=WAIT,
    )
    try:
        yield conn, registry, log, asked, root
    finally:
        conn.disconnect()


def _input_required(conn, tool: str) -> list:
    """The input_required results the server sent for calls of ``tool``."""
    ids = {
        m.message["id"]
        for m in conn.messages
        if m.direction == "sent" and m.method == "tools/call" and m.message["params"]["name"] == tool
    }
    return [
        m
        for m in conn.messages
        if m.direction == "received"
        and m.message.get("id") in ids
        and m.message.get("result", {}).get("resultType") == "input_required"
    ]


def test_the_connection_speaks_2026_07_28(modern):
    conn, *_ = modern
    assert conn.protocol_version == "2026-07-28"


def test_an_elicitation_input_request_is_answered_by_the_elicitation_handler(modern):
    conn, registry, log, asked, _ = modern
    result = SequentialExecutor().call(registry, "greet")
    assert result.status == "success" and result.text == "Hello, Ada!"
    assert asked["elicitation"][-1].message == "What is your name?"
    assert len(_input_required(conn, "greet")) == 1
    retry = [
        m
        for m in conn.messages
        if m.direction == "sent"
        and m.method == "tools/call"
        and m.message["params"]["name"] == "greet"
        and "inputResponses" in m.message["params"]
    ]
    assert retry and "requestState" in retry[0].message["params"]
    assert log.rows(tool="mcp:elicitation/create")[-1]["status"] == "success"


def test_a_sampling_input_request_is_answered_by_the_sampling_handler(modern):
    conn, registry, log, asked, _ = modern
    result = SequentialExecutor().call(registry, "haiku")
    assert result.status == "success" and result.text == "model said: cherry blossoms fall"
    assert asked["sampling"][-1].messages[0].content.text == "Write a haiku"
    assert _input_required(conn, "haiku")
    assert "cherry blossoms fall" in str(log.rows(tool="mcp:sampling/createMessage")[-1]["output"])


def test_a_roots_input_request_gets_the_connections_roots(modern):
    conn, registry, _log, _asked, root = modern
    result = SequentialExecutor().call(registry, "count_roots")
    assert result.status == "success" and result.text == f"1 roots: {root.as_uri()}"
    assert _input_required(conn, "count_roots")


def test_two_input_requests_in_one_round(modern):
    conn, registry, _log, asked, _ = modern
    before = (len(asked["sampling"]), len(asked["elicitation"]))
    result = SequentialExecutor().call(registry, "both")
    assert result.status == "success" and result.text == "Ada / cherry blossoms fall"
    assert (len(asked["sampling"]), len(asked["elicitation"])) == (before[0] + 1, before[1] + 1)


def test_a_declined_input_request_fails_the_call_with_the_reason(modern):
    conn, registry, log, _asked, _ = modern
    handler = conn.elicitation_handler
    conn.elicitation_handler = lambda params: "decline"
    try:
        result = SequentialExecutor().call(registry, "greet")
    finally:
        conn.elicitation_handler = handler
    assert result.status == "error"
    assert "decline" in (result.error or "").lower()


def test_without_a_handler_the_call_fails_saying_so(modern):
    conn, registry, _log, _asked, _ = modern
    handler, conn.sampling_handler = conn.sampling_handler, None
    try:
        result = SequentialExecutor().call(registry, "haiku")
    finally:
        conn.sampling_handler = handler
    assert result.status == "error" and "no sampling handler" in result.error
