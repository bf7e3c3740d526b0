"""The streamable-HTTP MCP server's bearer token and Host/Origin checks (issue 14), on real servers.

Every server is a subprocess (``python -m workbench.mcp serve ...``) or a serve_async thread;
servers bound to 0.0.0.0 are only ever sent requests at 127.0.0.1 — a foreign host is tested by
forging the ``Host`` header, never by sending traffic elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.mcp_servers import server_process
from workbench.executor import SequentialExecutor
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry

ROOT = Path(__file__).resolve().parents[2]
SERVE = [
    sys.executable,
    "-m",
    "workbench.mcp",
    "serve",
    "tests.mcp_sample_tools",
    "--transport",
    "streamable-http",
    "--port",
    "0",
]
WAIT = 30.0
TOKEN_ENV = "WORKBENCH_MCP_TOKEN"
MODERN = "2026-07-28"  # a stateless-era protocol version: one POST runs a tool, no session needed


@dataclass
class Server:
    url: str  # always http://127.0.0.1:<port>/mcp
    port: int
    stderr: str  # what it printed up to "serving …"
    log_path: Path

    def logged_sums(self) -> list[int]:
        """``a`` of every ``add`` call the server ran (each test uses distinct values)."""
        log = ExecutionLog(str(self.log_path))
        try:
            return sorted(r["input"]["a"] for r in log.rows() if r["tool_name"] == "add")
        finally:
            log.close()


@contextlib.contextmanager
def running(*args: str, env_token: str | None = None, tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    if env_token is not None:
        env[TOKEN_ENV] = env_token
    log_path = tmp_path / f"runs-{time.monotonic_ns()}.sqlite"
    with server_process(
        [*SERVE, "--log", str(log_path), *args], lambda line: "serving" in line and "http://" in line, env=env
    ) as seen:
        port = int(re.search(r"http://\S+:(\d+)/mcp", seen[-1]).group(1))
        yield Server(f"http://127.0.0.1:{port}/mcp", port, "".join(seen), log_path)


def call_add(
    server: Server,
    a: int,
    *,
    token: str | None = None,
    authorization: str | None = None,
    host: str | None = None,
    origin: str | None = None,
) -> httpx.Response:
    """One raw ``tools/call add(a, 1)`` POST (the stateless protocol era) to 127.0.0.1."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "add",
    }
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if authorization is not None:
        headers["Authorization"] = authorization
    if host is not None:
        headers["Host"] = host
    if origin is not None:
        headers["Origin"] = origin
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "add",
            "arguments": {"a": a, "b": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    return httpx.post(server.url, headers=headers, json=body, timeout=WAIT)


def initialize(server: Server, **kwargs: str) -> httpx.Response:
    """A legacy-era ``initialize`` POST (the session handshake) with extra headers."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **kwargs}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    return httpx.post(server.url, headers=headers, json=body, timeout=WAIT)


def ran(response: httpx.Response, a: int) -> bool:
    return response.status_code == 200 and response.json()["result"]["structuredContent"] == {"result": a + 1}


# -- loopback ------------------------------------------------------------------------------------------------
def test_loopback_without_token_is_open_but_checks_host_and_origin(tmp_path):
    with running("--host", "127.0.0.1", tmp_path=tmp_path) as server:
        assert "token" not in server.stderr.lower()
        assert ran(call_add(server, 1), 1)
        assert ran(call_add(server, 2, host=f"localhost:{server.port}", origin="http://localhost:5173"), 2)
        assert call_add(server, 3, host="evil.example").status_code == 421
        assert call_add(server, 4, host=f"evil.example:{server.port}").status_code == 421
        assert call_add(server, 5, origin="http://evil.example").status_code == 403
        assert initialize(server, Host="evil.example").status_code == 421
        assert initialize(server, Origin="http://evil.example").status_code == 403
        assert initialize(server).status_code == 200
        assert server.logged_sums() == [1, 2]


def test_loopback_with_a_token_requires_it(tmp_path):
    token = "s3cret-token-for-tests"
    with running("--host", "127.0.0.1", "--token", token, tmp_path=tmp_path) as server:
        assert token not in server.stderr  # a token the user gave is not echoed
        missing = call_add(server, 1)
        assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
        assert call_add(server, 2, token="wrong").status_code == 401
        assert call_add(server, 3, token=token + "x").status_code == 401
        assert call_add(server, 4, authorization=token).status_code == 401  # no "Bearer " scheme
        assert call_add(server, 5, authorization=f"Basic {token}").status_code == 401
        assert initialize(server).status_code == 401
        assert ran(call_add(server, 6, token=token), 6)
        assert call_add(server, 7, token=token, host="evil.example").status_code == 421
        assert call_add(server, 8, token=token, origin="http://evil.example").status_code == 403
        assert server.logged_sums() == [6]


def test_the_token_can_come_from_the_environment(tmp_path):
    token = "from-the-environment-123"
    with running(env_token=token, tmp_path=tmp_path) as server:
        assert token not in server.stderr
        assert call_add(server, 1).status_code == 401
        assert call_add(server, 2, token="nope").status_code == 401
        assert ran(call_add(server, 3, token=token), 3)
        assert server.logged_sums() == [3]


def test_connect_passes_the_token(tmp_path):
    from workbench.mcp import McpConnectionError, connect

    token = "client-side-token-42"
    with running("--token", token, tmp_path=tmp_path) as server:
        for how in ({"token": token}, {"headers": {"Authorization": f"Bearer {token}"}}):
            registry = ToolRegistry()
            with connect(url=server.url, registry=registry, connect_timeout=WAIT, **how):
                assert SequentialExecutor().call(registry, "add", {"a": 20, "b": 1}).value == 21
        for how in ({}, {"token": "wrong"}):
            registry = ToolRegistry()
            with pytest.raises(McpConnectionError, match=r"(?s)401.*token"):
                connect(url=server.url, registry=registry, connect_timeout=WAIT, **how)
            assert len(registry) == 0
        with pytest.raises(ValueError, match="token"):
            connect(url=server.url, registry=ToolRegistry(), token=token, headers={"Authorization": "Bearer other"})
        assert server.logged_sums() == [20, 20]


# -- beyond loopback -------------------------------------------------------------------------------------------
def test_wildcard_bind_generates_a_token_and_keeps_host_and_origin_checks(tmp_path):
    with running("--host", "0.0.0.0", tmp_path=tmp_path) as server:
        found = re.search(r"generated bearer token: (\S+)", server.stderr)
        assert found, server.stderr
        token = found.group(1)
        assert len(token) >= 32
        assert "0.0.0.0" in server.stderr and "warning" in server.stderr.lower()
        assert call_add(server, 1).status_code == 401
        assert call_add(server, 2, token="guess").status_code == 401
        assert call_add(server, 3, host="evil.example").status_code == 401
        assert ran(call_add(server, 4, token=token), 4)
        assert call_add(server, 5, token=token, host="evil.example").status_code == 421
        assert call_add(server, 6, token=token, host=f"evil.example:{server.port}").status_code == 421
        assert call_add(server, 7, token=token, origin="http://evil.example").status_code == 403
        assert initialize(server, Authorization=f"Bearer {token}", Host="evil.example").status_code == 421
        assert initialize(server, Authorization=f"Bearer {token}", Origin="http://evil.example").status_code == 403
        assert ran(call_add(server, 8, token=token, host=f"localhost:{server.port}"), 8)
        assert server.logged_sums() == [4, 8]


def test_wildcard_bind_with_a_given_token(tmp_path):
    token = "given-token-for-the-wildcard-bind"
    with running("--host", "0.0.0.0", "--token", token, tmp_path=tmp_path) as server:
        assert "generated bearer token" not in server.stderr and token not in server.stderr
        assert call_add(server, 1).status_code == 401
        assert ran(call_add(server, 2, token=token), 2)
        assert server.logged_sums() == [2]


def test_allow_lists_add_hosts_and_origins(tmp_path):
    token = "allow-list-token"
    with running(
        "--host",
        "0.0.0.0",
        "--token",
        token,
        "--allow-host",
        "evil.example",
        "--allow-host",
        "exact.example:8443",
        "--allow-origin",
        "http://evil.example",
        tmp_path=tmp_path,
    ) as server:
        assert ran(call_add(server, 1, token=token, host="evil.example"), 1)
        assert ran(call_add(server, 2, token=token, host=f"evil.example:{server.port}"), 2)  # no port given → any
        assert ran(call_add(server, 3, token=token, host="exact.example:8443"), 3)
        assert call_add(server, 4, token=token, host="exact.example:9999").status_code == 421
        assert call_add(server, 5, token=token, host="other.example").status_code == 421
        assert ran(call_add(server, 6, token=token, origin="http://evil.example"), 6)
        assert call_add(server, 7, token=token, origin="http://other.example").status_code == 403
        assert call_add(server, 8, host="evil.example").status_code == 401  # allowed host, still needs the token
        assert server.logged_sums() == [1, 2, 3, 6]


# -- the Python API ------------------------------------------------------------------------------------------------
def test_serve_async_token_and_allow_list_arguments():
    from tests import mcp_sample_tools
    from workbench.mcp import serve_async

    urls: queue.Queue = queue.Queue()
    loop = asyncio.new_event_loop()
    task_box: list = []

    async def main() -> None:
        task_box.append(asyncio.current_task())
        await serve_async(
            [mcp_sample_tools],
            "streamable-http",
            "127.0.0.1",
            0,
            token="api-token",
            allowed_hosts=["svc.internal"],
            allowed_origins=["https://app.internal"],
            ready=urls.put,
        )

    def run() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # how the test stops the server
            loop.run_until_complete(main())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        url = urls.get(timeout=WAIT)
        server = Server(url, int(url.rsplit(":", 1)[1].split("/")[0]), "", Path("unused"))
        assert call_add(server, 1).status_code == 401
        assert ran(call_add(server, 2, token="api-token"), 2)
        assert ran(call_add(server, 3, token="api-token", host="svc.internal", origin="https://app.internal"), 3)
        assert call_add(server, 4, token="api-token", host="evil.example").status_code == 421
        assert call_add(server, 5, token="api-token", origin="https://evil.example").status_code == 403
    finally:
        if task_box:
            loop.call_soon_threadsafe(task_box[0].cancel)
        thread.join(WAIT)
    assert not thread.is_alive()


def test_token_argument_errors():
    from workbench.mcp import serve_async

    for bad in ("", "has space", 42):
        with pytest.raises((ValueError, TypeError), match="token"):
            asyncio.run(serve_async([], "streamable-http", "127.0.0.1", 0, token=bad))


def test_help_warns_about_exposure(capsys):
    from workbench.mcp.__main__ import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("--token", TOKEN_ENV, "--allow-host", "--allow-origin", "0.0.0.0", "plain HTTP"):
        assert words in text, words
