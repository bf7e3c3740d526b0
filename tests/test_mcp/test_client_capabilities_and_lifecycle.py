"""Issue #18's MCP client-side defects, against real server processes: the project's own server,
``server-everything`` (npm), ``mcp-server-time`` (PyPI) and ``tests/mcp_raw_server.py`` (a hand-written
JSON-RPC server that can misbehave: ignore SIGTERM, spin, hang, list a malformed tool)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.form_catalogue import wb  # noqa: F401 - a fixture
from tests.mcp_servers import EVERYTHING, ROOT, WAIT, eventually, npm_server, serve_command
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry

RAW = str(ROOT / "tests" / "mcp_raw_server.py")


def raw_server(*flags: str) -> list[str]:
    """The argv of tests/mcp_raw_server.py with ``flags``."""
    return [sys.executable, RAW, *flags]


def time_server() -> list[str]:
    """The argv of PyPI's ``mcp-server-time`` (a ``test`` extra of pyproject.toml)."""
    if importlib.util.find_spec("mcp_server_time") is None:
        raise AssertionError("mcp-server-time is missing: pip install -e '.[test]' installs it")
    return [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def own_server() -> list[str]:
    return serve_command("tests.mcp_sample_tools")


def _connect(command, **options):
    from workbench.mcp import connect

    options.setdefault("registry", ToolRegistry())
    options.setdefault("connect_timeout", WAIT)
    return connect(command=command, cwd=str(ROOT), **options)


# -- 13. listing what the server does not offer; "received null" ---------------------------------------------
@pytest.mark.parametrize("command", [raw_server, own_server], ids=["raw-handshake-era", "own-2026-era"])
def test_lists_of_features_the_server_lacks_are_empty(command):
    with _connect(command()) as conn:
        caps = conn.server_capabilities
        assert caps.resources is None and caps.prompts is None
        assert conn.list_resources() == []
        assert conn.list_resource_templates() == []
        assert conn.list_prompts() == []
        assert not [m for m in conn.messages if m.method in ("resources/list", "prompts/list")]


def test_lists_of_a_server_with_the_features_still_come_from_the_server():
    with _connect([npm_server(EVERYTHING)]) as conn:
        assert conn.list_resources() and conn.list_prompts() and conn.list_resource_templates()
    with _connect(time_server()) as conn:  # declares resources and prompts, and has none
        assert conn.server_capabilities.resources is not None
        assert conn.list_resources() == [] and conn.list_prompts() == []
        assert [m for m in conn.messages if m.method == "resources/list"]


def test_a_null_where_a_value_is_expected_reads_received_null():
    from workbench import tool

    @tool
    def needs_int(a: int) -> int:
        """Needs an int."""
        return a

    registry = ToolRegistry()
    registry.register_tool(needs_int)
    error = SequentialExecutor().call(registry, "needs_int", {"a": None}).metadata["error"]
    assert "a: expected integer, received null" in error and "None" not in error


# -- 15a. the client declares only the capabilities it has handlers for --------------------------------------
def _declared(conn) -> dict:
    return json.loads(conn.call_tool("client_capabilities").content[0].text)


def test_without_handlers_the_server_sees_no_sampling_elicitation_or_roots():
    with _connect(raw_server()) as conn:
        declared = _declared(conn)
        assert "sampling" not in declared and "elicitation" not in declared and "roots" not in declared


def test_each_handler_given_declares_its_capability():
    with _connect(raw_server(), sampling=lambda params: "hi") as conn:
        declared = _declared(conn)
        assert "sampling" in declared and "elicitation" not in declared and "roots" not in declared
    with _connect(raw_server(), elicitation=lambda params: "decline", roots=[str(ROOT)]) as conn:
        declared = _declared(conn)
        assert "sampling" not in declared and "elicitation" in declared and "roots" in declared


def test_server_everything_offers_sampling_only_to_a_client_with_a_handler():
    with _connect([npm_server(EVERYTHING)]) as conn:
        assert "trigger-sampling-request" not in conn.tools and "get-roots-list" not in conn.tools
    with _connect([npm_server(EVERYTHING)], sampling=lambda params: "a sampled answer") as conn:
        assert "trigger-sampling-request" in conn.tools and "get-roots-list" not in conn.tools
        result = SequentialExecutor().call(conn.registry, "trigger-sampling-request", {"prompt": "x", "maxTokens": 5})
        assert result.status == "success" and "a sampled answer" in result.text


def test_on_the_2026_era_the_capabilities_in_each_request_follow_the_handlers():
    meta_key = "io.modelcontextprotocol/clientCapabilities"
    with _connect(own_server()) as conn:
        assert conn.protocol_version == "2026-07-28"
        sent = [
            m.message["params"]["_meta"][meta_key]
            for m in conn.messages
            if m.direction == "sent"
            and m.kind == "request"
            and meta_key in (m.message.get("params") or {}).get("_meta", {})
        ]
        assert sent and all("sampling" not in caps and "elicitation" not in caps for caps in sent)


def test_set_roots_on_a_connection_without_roots_says_how_to_offer_them():
    from workbench.mcp import McpConnectionError

    with _connect(raw_server()) as conn:
        with pytest.raises(McpConnectionError, match=r"roots=\["):
            conn.set_roots([str(ROOT)])
        assert conn.roots == []


# -- 11. one malformed tool does not break connect() -----------------------------------------------------------
def test_a_tool_without_input_schema_is_skipped_with_the_reason_and_the_others_work():
    with _connect(raw_server("--bad-tool")) as conn:
        assert sorted(conn.tools) == ["client_capabilities", "echo"]
        assert "inputSchema" in conn.skipped["broken"] and "required" in conn.skipped["broken"]
        assert SequentialExecutor().call(conn.registry, "echo", {"text": "still here"}).value == "still here"
        assert [t.name for t in conn.list_mcp_tools()] == ["echo", "client_capabilities"]
        conn.refresh()
        assert sorted(conn.tools) == ["client_capabilities", "echo"] and "inputSchema" in conn.skipped["broken"]
        assert any(
            m.direction == "received" and '"broken"' in json.dumps(m.message) for m in conn.messages
        )  # the raw history keeps what the server really sent


def test_a_valid_listing_on_the_2026_era_is_kept_whole():
    with _connect(own_server()) as conn:
        assert conn.protocol_version == "2026-07-28"
        assert conn.skipped == {} and "add" in conn.tools


# -- 9. ping and resource subscriptions on both protocol eras ----------------------------------------------------
def resource_server() -> list[str]:
    return [sys.executable, str(ROOT / "tests" / "mcp_resource_server.py")]


def _sent_methods(conn) -> list[str]:
    return [m.method for m in conn.messages if m.direction == "sent" and m.kind == "request"]


@pytest.mark.parametrize(
    "command, era",
    [
        (own_server, "2026-07-28"),
        (time_server, "2026-07-28"),
        (lambda: [npm_server(EVERYTHING)], "2025-11-25"),
        (raw_server, "2025-11-25"),
    ],
    ids=["own", "mcp-server-time", "server-everything", "raw"],
)
def test_ping_answers_on_both_eras(command, era):
    with _connect(command()) as conn:
        assert conn.protocol_version == era
        assert conn.ping() >= 0
        probe = "server/discover" if era == "2026-07-28" else "ping"
        assert (
            _sent_methods(conn)[0] == probe
        )  # newest first; the 2026-07-28 era has no ping: server/discover replaces it
        assert conn.connected


def test_subscribe_on_the_2026_era_listens_for_the_resource():
    updates: list[str] = []
    with _connect(resource_server()) as conn:
        assert conn.protocol_version == "2026-07-28"
        unsubscribe = conn.subscribe_resource("memo://note", updates.append)
        assert "subscriptions/listen" in _sent_methods(conn) and "resources/subscribe" not in _sent_methods(conn)
        assert conn.call_tool("touch").structured_content == {"result": 1}
        eventually(lambda: updates, what="a resource update on the listen stream")
        assert updates[0] == "memo://note"
        assert "note version 1" in conn.read_resource("memo://note").contents[0].text
        unsubscribe()
        time.sleep(0.3)
        count = len(updates)
        conn.call_tool("touch")
        time.sleep(0.5)
        assert len(updates) == count  # unsubscribed: the listener is gone


def test_subscribe_on_the_handshake_era_still_uses_resources_subscribe():
    updates: list[str] = []
    with _connect([npm_server(EVERYTHING)]) as conn:
        unsubscribe = conn.subscribe_resource("demo://resource/dynamic/text/1", updates.append)
        assert "resources/subscribe" in _sent_methods(conn)
        conn.call_tool("toggle-subscriber-updates")
        try:
            eventually(lambda: updates, what="a notifications/resources/updated")
        finally:
            conn.call_tool("toggle-subscriber-updates")
            unsubscribe()
        assert "resources/unsubscribe" in _sent_methods(conn)


@pytest.mark.parametrize("command", [own_server, time_server, raw_server], ids=["own", "mcp-server-time", "raw"])
def test_a_failed_subscribe_leaves_no_callback_and_fails_again_the_second_time(command):
    from mcp.shared.exceptions import MCPError

    from workbench.mcp import McpConnectionError

    with _connect(command()) as conn:
        for _attempt in range(2):
            with pytest.raises((McpConnectionError, MCPError)) as caught:
                conn.subscribe_resource("memo://nothing", lambda uri: None)
            assert conn._resource_listeners == {}
        if conn.server_capabilities.resources is None:
            assert "resources" in str(caught.value) and conn.label in str(caught.value)
        assert conn.connected and conn.ping() >= 0


# -- 8. disconnect and interpreter exit always end the server process ------------------------------------------
def _gone(pid: int) -> bool:
    """The process no longer exists (a zombie not yet reaped by its parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _read_pid(path) -> int:
    return int(eventually(lambda: path.exists() and path.read_text().strip(), what=f"the pid in {path}"))


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("flags", [("--ignore-term",), ("--ignore-term", "--spin")], ids=["ignores-sigterm", "spins"])
def test_disconnect_ends_a_server_that_ignores_sigterm_within_the_timeout(tmp_path, flags):
    pid_file = tmp_path / "pid"
    conn = _connect(raw_server("--pid-file", str(pid_file), *flags))
    pid = _read_pid(pid_file)
    try:
        assert not _gone(pid)
        started = time.monotonic()
        conn.disconnect(timeout=3)
        took = time.monotonic() - started
        assert took < 6.0, f"disconnect(timeout=3) took {took:.1f} s"
        assert _gone(pid), "the server process outlived disconnect()"
        assert not conn._thread.is_alive()
    finally:
        _kill(pid)


CHILD = """
import sys
sys.path.insert(0, {root!r})
from workbench.mcp import connect
from workbench.registry import ToolRegistry
conn = connect(command={argv!r}, registry=ToolRegistry(), connect_timeout=60)
print("connected", conn.call_tool("echo", {{"text": "hi"}}).content[0].text, flush=True)
{ending}
"""


@pytest.mark.parametrize(
    "ending", ["", "raise SystemExit(3)", "del conn"], ids=["falls-off-the-end", "sys-exit", "drops-it"]
)
def test_an_interpreter_that_exits_without_disconnecting_leaves_no_server(tmp_path, ending):
    pid_file = tmp_path / "pid"
    argv = raw_server("--pid-file", str(pid_file), "--ignore-term", "--spin")
    script = CHILD.format(root=str(ROOT), argv=argv, ending=ending)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    pid = _read_pid(pid_file)
    try:
        assert "connected hi" in child.stdout, child.stderr
        assert eventually(lambda: _gone(pid), timeout=10, what="the server to be gone after its client exited")
    finally:
        _kill(pid)


# -- 12. a hung server: a bounded handshake, check_alive() and keepalive= ----------------------------------------
def test_connect_to_a_server_that_never_answers_fails_within_connect_timeout(tmp_path):
    from workbench.mcp import connect

    pid_file = tmp_path / "pid"
    argv = raw_server("--pid-file", str(pid_file), "--silent")
    started = time.monotonic()
    with pytest.raises(ConnectionError) as caught:
        connect(command=argv, registry=ToolRegistry(), connect_timeout=3)
    took = time.monotonic() - started
    pid = _read_pid(pid_file)
    try:
        assert took < 6.0, f"connect(connect_timeout=3) took {took:.1f} s"
        message = str(caught.value)
        assert "mcp_raw_server.py" in message and "connect_timeout=3" in message
        assert isinstance(caught.value, TimeoutError)
        assert eventually(lambda: _gone(pid), timeout=5, what="the silent server to be stopped")
    finally:
        _kill(pid)


def _stopped(pid: int) -> None:
    os.kill(pid, signal.SIGSTOP)  # the process stays, and answers nothing: a hung server


def test_check_alive_of_a_live_server_is_true_and_changes_nothing():
    with _connect(own_server()) as conn:
        assert conn.check_alive(timeout=WAIT) is True
        assert conn.connected


@pytest.mark.parametrize("command", [raw_server, own_server], ids=["handshake-era", "2026-era"])
def test_check_alive_marks_a_hung_server_as_disconnected(tmp_path, command):
    conn = _connect(command())
    pid = conn._process.pid
    ended: list[str] = []
    conn.on_disconnect(lambda: ended.append("ended"))
    try:
        _stopped(pid)
        started = time.monotonic()
        assert conn.check_alive(timeout=1.0) is False
        assert time.monotonic() - started < 4.0
        assert not conn.connected and ended == ["ended"]
        proxy = conn.proxies.get("client_capabilities") or conn.proxies["server_pid"]  # tools without arguments
        assert not proxy.connected
        result = SequentialExecutor().call(conn.registry, proxy.tool_name, {})
        assert result.status == "error" and "did not answer" in result.error
        assert conn.check_alive(timeout=1.0) is False  # still gone; listeners ran once
        assert ended == ["ended"]
    finally:
        conn.disconnect(timeout=3)
        _kill(pid)
    assert eventually(lambda: _gone(pid), timeout=10, what="the hung server to be stopped")


def test_keepalive_notices_a_hung_server_and_its_form_shows_the_banner(wb):
    from tests.form_catalogue import wait_until
    from workbench.jupyter import ToolForm

    conn = _connect(raw_server(), registry=wb.registry, keepalive=0.5)
    pid = conn._process.pid
    try:
        form = ToolForm(wb.registry.get_tool("echo"), wb)
        assert form.set_values({"text": "hi"}).run().value == "hi"
        time.sleep(1.2)
        assert conn.connected  # the keepalive probes of a live server pass
        _stopped(pid)
        assert wait_until(lambda: not conn.connected, 15.0), "keepalive did not notice the hung server"
        assert wait_until(lambda: form.disconnected, 10.0)
        assert "disconnected" in form.disconnected_banner.value and form.run_button.disabled
    finally:
        conn.disconnect(timeout=3)
        _kill(pid)


@pytest.mark.parametrize("value", [0, -1, float("nan"), "30"])
def test_keepalive_must_be_a_positive_number_of_seconds(value):
    from workbench.mcp import connect

    with pytest.raises(ValueError, match="keepalive=.*positive number of seconds"):
        connect(command=raw_server(), registry=ToolRegistry(), keepalive=value)
