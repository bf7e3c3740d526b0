"""Cache hints (protocol 2026-07-28): list results carrying ``ttlMs`` are served from the client's cache
while fresh, fetched again once expired or once the server announces the list changed; the hints are on
``connection.cache_hints`` — against tests/mcp_modern_server.py (the SDK's ``MCPServer``, stdio)."""

from __future__ import annotations

import sys
import time

import pytest

from tests.mcp_servers import ROOT, WAIT, eventually
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry

MODERN_SERVER = [sys.executable, str(ROOT / "tests" / "mcp_modern_server.py")]


def _connect(ttl_ms: int):
    from workbench.mcp import connect

    return connect(
        command=MODERN_SERVER,
        registry=ToolRegistry(),
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "TTL_MS": str(ttl_ms)},
        connect_timeout=WAIT,
    )


def _fetches(conn, method: str) -> int:
    return sum(1 for m in conn.messages if m.direction == "sent" and m.method == method)


@pytest.fixture()
def long_ttl():
    conn = _connect(60_000)
    try:
        yield conn
    finally:
        conn.disconnect()


def test_a_list_within_its_ttl_is_served_from_the_cache(long_ttl):
    conn = long_ttl
    first = conn.list_resources()
    assert [str(r.uri) for r in first] == ["notes://first"]
    assert [str(r.uri) for r in conn.list_resources()] == ["notes://first"]
    assert _fetches(conn, "resources/list") == 1
    hint = conn.cache_hints["resources/list"]
    assert (hint.ttl_ms, hint.cache_scope, hint.fetches) == (60_000, "private", 1) and hint.fresh
    conn.list_prompts()
    conn.list_prompts()
    assert _fetches(conn, "prompts/list") == 1 and conn.cache_hints["prompts/list"].cache_scope == "public"
    conn.list_resources(refresh=True)
    assert _fetches(conn, "resources/list") == 2 and conn.cache_hints["resources/list"].fetches == 2


def test_the_tool_list_is_cached_too_but_refresh_fetches_it(long_ttl):
    conn = long_ttl
    before = _fetches(conn, "tools/list")
    assert {t.name for t in conn.list_mcp_tools()} >= {"greet", "add_note"}
    assert _fetches(conn, "tools/list") == before  # connect() fetched it a moment ago, with ttlMs 60 s
    conn.refresh()
    assert _fetches(conn, "tools/list") == before + 1


def test_list_changed_invalidates_the_cached_list(long_ttl):
    conn = long_ttl
    conn.list_resources()
    changes: list[str] = []
    conn.on_change(changes.append)
    assert SequentialExecutor().call(conn.registry, "add_note", {"name": "second"}).status == "success"
    eventually(lambda: "resources" in changes, what="the resources list_changed event")
    assert [str(r.uri) for r in conn.list_resources()] == ["notes://first", "notes://second"]
    assert _fetches(conn, "resources/list") == 2


def test_an_expired_list_is_fetched_again():
    conn = _connect(300)
    try:
        conn.list_resources()
        conn.list_resources()
        assert _fetches(conn, "resources/list") == 1
        time.sleep(0.4)
        assert not conn.cache_hints["resources/list"].fresh
        conn.list_resources()
        assert _fetches(conn, "resources/list") == 2
    finally:
        conn.disconnect()


def test_a_server_before_2026_sends_no_hints_and_nothing_is_cached():
    from tests.mcp_servers import EVERYTHING, npm_server
    from workbench.mcp import connect

    with connect(command=[npm_server(EVERYTHING)], registry=ToolRegistry(), connect_timeout=WAIT) as conn:
        conn.list_prompts()
        conn.list_prompts()
        assert _fetches(conn, "prompts/list") == 2
        assert conn.cache_hints["prompts/list"].ttl_ms is None and not conn.cache_hints["prompts/list"].fresh
