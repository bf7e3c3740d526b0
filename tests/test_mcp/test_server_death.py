"""Issue 9, defect 12 (continued): an MCP server process that dies without ``disconnect()`` ends the
connection — ``connected`` turns false, disconnect listeners run once, and a form of one of its tools
shows the disconnected banner with Run disabled. Real stdio server subprocesses, killed with SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

from tests.form_catalogue import wait_until, wb  # noqa: F401 - wb is a fixture
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
WAIT = 60.0  # a loaded machine can be slow to start a Python server; nothing here is timed


def _gone(pid: int) -> bool:
    """The process no longer exists (a zombie left for its parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_a_killed_server_ends_the_connection_and_its_listeners_run_once():
    from workbench.mcp import connect

    registry = ToolRegistry()
    conn = connect(command=SERVE, registry=registry, cwd=str(ROOT), connect_timeout=WAIT)
    pid = None
    try:
        proxy = registry.get_tool("add")
        ended: list[str] = []
        proxy.on_disconnect(lambda: ended.append("proxy"))
        conn.on_disconnect(lambda: ended.append("connection"))
        pid = SequentialExecutor().call(registry, "server_pid").value
        assert conn.connected and proxy.connected and ended == []

        _kill(pid)
        assert wait_until(lambda: not conn.connected, WAIT), "the connection still looks live after its server died"
        assert wait_until(lambda: len(ended) == 2, WAIT)
        assert sorted(ended) == ["connection", "proxy"] and not proxy.connected
        late: list[str] = []
        conn.on_disconnect(lambda: late.append("late"))  # subscribing after the end calls back at once
        assert late == ["late"]

        result = SequentialExecutor().call(registry, "add", {"a": 1, "b": 2})
        assert result.status == "error" and "closed" in result.error
        assert wait_until(lambda: _gone(pid), WAIT)
    finally:
        conn.disconnect()
        if pid is not None:
            _kill(pid)
    assert ended.count("proxy") == 1 and ended.count("connection") == 1  # disconnect() does not notify again
    assert len(registry) == 0 and not conn._thread.is_alive()


def test_a_form_of_a_killed_server_shows_it_as_disconnected(wb):
    from workbench.jupyter import ToolForm
    from workbench.mcp import connect

    conn = connect(command=SERVE, registry=wb.registry, cwd=str(ROOT), connect_timeout=WAIT)
    pid = None
    try:
        form = ToolForm(wb.registry.get_tool("add"), wb)
        assert form.set_values({"a": 2, "b": 3}).run().status == "success"
        assert not form.disconnected and not form.run_button.disabled
        pid = SequentialExecutor().call(wb.registry, "server_pid").value

        _kill(pid)
        assert wait_until(lambda: form.disconnected, WAIT), "the form still looks live after its server died"
        assert form.disconnected_banner.layout.display != "none"
        assert "disconnected" in form.disconnected_banner.value and form.run_button.disabled
        assert form.run_button.button_style == ""  # no longer the primary (blue) button
        result = form.run()
        assert result.status == "error" and "closed" in result.error
        assert "McpConnectionError" in re.sub(r"<[^>]+>", "", form.result_html.value)
        assert form.run_button.disabled
    finally:
        conn.disconnect()
        if pid is not None:
            _kill(pid)


def test_reconnect_after_the_server_died_brings_the_tools_back_under_their_names(wb):
    from workbench.mcp import connect

    seen: list[str] = []
    conn = connect(
        command=SERVE,
        registry=wb.registry,
        cwd=str(ROOT),
        connect_timeout=WAIT,
        prefix="srv_",
        elicitation=lambda params: seen.append("elicited") or "decline",
    )
    fresh = None
    pids: list[int] = []
    try:
        old_proxy = wb.registry.get_tool("srv_add")
        old_form = wb.form("srv_add")
        pids.append(SequentialExecutor().call(wb.registry, "srv_server_pid").value)
        _kill(pids[0])
        assert wait_until(lambda: not conn.connected, WAIT)
        assert wait_until(
            lambda: "connection.reconnect()" in re.sub(r"<[^>]+>", "", old_form.disconnected_banner.value), WAIT
        )

        fresh = conn.reconnect(connect_timeout=WAIT)
        assert fresh is not conn and fresh.connected and conn.closed
        assert sorted(fresh.tools) == sorted(name for name in wb.registry.list_tools() if name.startswith("srv_"))
        new_proxy = wb.registry.get_tool("srv_add")
        assert new_proxy is not old_proxy and new_proxy.connection is fresh and not old_proxy.connected
        assert fresh.elicitation_handler is conn.elicitation_handler and fresh.prefix == "srv_"
        pids.append(SequentialExecutor().call(wb.registry, "srv_server_pid").value)
        assert pids[1] != pids[0]  # a new server process
        form = wb.form("srv_add")  # rebuilt for the new proxy
        assert form is not old_form and not form.disconnected
        assert form.set_values({"a": 2, "b": 3}).run().value == 5
        assert old_form.disconnected and old_form.run_button.disabled
    finally:
        conn.disconnect()
        if fresh is not None:
            fresh.disconnect()
        for pid in pids:
            _kill(pid)
    assert not [name for name in wb.registry.list_tools() if name.startswith("srv_")]


def test_reconnect_of_a_connection_closed_on_purpose_also_works():
    from workbench.mcp import connect

    registry = ToolRegistry()
    conn = connect(command=SERVE, registry=registry, cwd=str(ROOT), connect_timeout=WAIT)
    names = sorted(conn.tools)
    conn.disconnect()
    assert len(registry) == 0
    fresh = conn.reconnect(connect_timeout=WAIT)
    try:
        assert sorted(fresh.tools) == names and SequentialExecutor().call(registry, "add", {"a": 1, "b": 2}).value == 3
    finally:
        fresh.disconnect()
