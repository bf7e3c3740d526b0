"""Issue #12's server-side defects, against real server processes (``python -m workbench.mcp serve``),
driven by the Python SDK client, ``workbench.mcp.connect`` and the TypeScript SDK client."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_servers import ROOT, WAIT, http_server, serve_command
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry

MODULE = "tests.mcp_defect_tools"


def _stdio(log_path):
    argv = serve_command(MODULE, "--log", str(log_path))
    return stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT)))


def _rows(log_path, tool):
    log = ExecutionLog(str(log_path))
    try:
        return log.rows(tool=tool)
    finally:
        log.close()


def _wait_for_rows(log_path, tool, count=1, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log_path.exists():
            rows = _rows(log_path, tool)
            if len(rows) >= count:
                return rows
        time.sleep(0.1)
    return _rows(log_path, tool) if log_path.exists() else []


async def _call_and_cancel(transport, after=0.5):
    async with Client(transport) as client:
        task = asyncio.ensure_future(
            client.call_tool("slow_progress", {"seconds": 5.0}, progress_callback=_ignore_progress)
        )
        await asyncio.sleep(after)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(1.0)  # the session stays open while the server winds the call down


async def _ignore_progress(progress, total, message):
    return None


def _assert_one_cancelled_row(log_path):
    rows = _wait_for_rows(log_path, "slow_progress")
    assert len(rows) == 1, rows
    row = rows[0]
    assert row["status"] == "error"
    assert row["error_type"] == "CancelledError"
    time.sleep(0.5)
    assert len(_rows(log_path, "slow_progress")) == 1  # exactly one row, not one per layer


# -- 1. cancelled calls reach the server's log -------------------------------------------------------------
def test_a_call_cancelled_by_the_python_sdk_client_over_stdio_gets_one_log_row(tmp_path):
    log_path = tmp_path / "server.sqlite"
    asyncio.run(_call_and_cancel(_stdio(log_path)))
    _assert_one_cancelled_row(log_path)


def test_a_call_cancelled_over_streamable_http_gets_one_log_row(tmp_path):
    log_path = tmp_path / "server.sqlite"
    argv = serve_command(MODULE, "--transport", "streamable-http", "--port", "0", "--log", str(log_path))
    with http_server(argv) as url:
        asyncio.run(_call_and_cancel(streamable_http_client(url)))
        _assert_one_cancelled_row(log_path)


def test_a_call_cancelled_through_workbench_connect_gets_one_server_log_row(tmp_path):
    from workbench.executor import ConcurrentExecutor
    from workbench.mcp import connect

    log_path = tmp_path / "server.sqlite"
    registry = ToolRegistry()
    with connect(
        command=serve_command(MODULE, "--log", str(log_path)), registry=registry, cwd=str(ROOT), connect_timeout=WAIT
    ):
        executor = ConcurrentExecutor()

        async def main():
            task = asyncio.ensure_future(
                executor.execute(
                    [{"toolUseId": "slow-1", "name": "slow_progress", "input": {"seconds": 5.0}}], registry
                )
            )
            await asyncio.sleep(0.5)
            assert executor.cancel("slow-1")
            return await task

        [result] = asyncio.run(main())
        assert result.status == "error" and result.metadata["error_type"] == "CancelledError"
        _assert_one_cancelled_row(log_path)


def test_a_call_aborted_by_the_typescript_sdk_client_gets_one_log_row(tmp_path):
    node = shutil.which("node")
    assert node, "node is needed for the TypeScript SDK client (Node.js >= 18)"
    log_path = tmp_path / "server.sqlite"
    script = ROOT / "tests" / "node" / "cancel_call.mjs"
    out = subprocess.run(
        [
            node,
            str(script),
            "slow_progress",
            json.dumps({"seconds": 5.0}),
            "500",
            "--",
            *serve_command(MODULE, "--log", str(log_path)),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    outcome = json.loads(out.stdout.strip().splitlines()[-1])
    assert outcome["outcome"] == "aborted", outcome
    _assert_one_cancelled_row(log_path)


def test_a_call_that_finishes_still_gets_exactly_one_row(tmp_path):
    log_path = tmp_path / "server.sqlite"

    async def main():
        async with Client(_stdio(log_path)) as client:
            return await client.call_tool("slow_progress", {"seconds": 0.1})

    result = asyncio.run(main())
    assert not result.is_error
    rows = _wait_for_rows(log_path, "slow_progress")
    assert [row["status"] for row in rows] == ["success"]


# -- 2. structured content never breaks the tool's own outputSchema ---------------------------------------
def test_a_return_that_breaks_the_output_schema_is_an_error_result_the_client_keeps(tmp_path):
    async def main():
        async with Client(_stdio(tmp_path / "s.sqlite")) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert tools["not_an_int"].output_schema is not None
            # the SDK client validates structured content against outputSchema and raises on a mismatch
            return await client.call_tool("not_an_int", {}), await client.call_tool("an_int", {})

    broken, fine = asyncio.run(main())
    assert broken.is_error
    assert broken.structured_content is None
    message = broken.content[0].text
    assert "not_an_int" in message and "does not match its declared output schema" in message
    assert "integer" in message
    assert not fine.is_error and fine.structured_content == {"result": 7}


# -- 3. Enum parameters behind a $ref name their values ----------------------------------------------------
def test_an_enum_parameter_error_names_the_allowed_values_over_mcp(tmp_path):
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(command=serve_command(MODULE), registry=registry, cwd=str(ROOT), connect_timeout=WAIT) as conn:
        assert "$ref" in json.dumps(conn.proxies["paint"].spec.parameters)
        result = SequentialExecutor().call(registry, "paint", {"color": "purple"})
        assert result.status == "error"
        assert 'color: expected one of "red", "green", "blue", received \'purple\'' in result.metadata["error"]
        result = SequentialExecutor().call(registry, "paint", {"color": "red", "shade": "purple"})
        assert 'shade: expected one of "red", "green", "blue" or null' in result.metadata["error"]
        raw = conn.call_tool("paint", {"color": "purple"})  # the server's own answer, no client-side check
        assert raw.isError if hasattr(raw, "isError") else raw.is_error
        assert '"red", "green", "blue"' in raw.content[0].text
