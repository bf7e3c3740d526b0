"""Issue #18's MCP server-side defects, against real server processes (``python -m workbench.mcp serve``)
driven by raw HTTP requests, the Python SDK client and ``workbench.mcp.connect``."""

from __future__ import annotations

import asyncio
import base64
import time

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.mcp_servers import ROOT, WAIT, serve_command
from workbench.log import ExecutionLog

DEFECT_TOOLS = "tests.mcp_defect_tools"
TOOLS = "tests.mcp_server_tools"


def _stdio(module, *args):
    argv = serve_command(module, *args)
    return stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT)))


def _rows(log_path):
    log = ExecutionLog(str(log_path))
    try:
        return log.rows()
    finally:
        log.close()


def _wait_for_rows(log_path, count, timeout=WAIT):
    deadline = time.monotonic() + timeout
    rows = []
    while time.monotonic() < deadline:
        rows = _rows(log_path) if log_path.exists() else []
        if len(rows) >= count:
            return rows
        time.sleep(0.1)
    return rows


# -- 10. the server's log row and its reply agree ----------------------------------------------------------
def test_a_return_that_breaks_the_output_schema_is_logged_as_the_error_the_client_got(tmp_path):
    log_path = tmp_path / "server.sqlite"

    async def main():
        async with Client(_stdio(DEFECT_TOOLS, "--log", str(log_path))) as client:
            return await client.call_tool("not_an_int", {}), await client.call_tool("an_int", {})

    broken, fine = asyncio.run(main())
    assert broken.is_error and not fine.is_error
    rows = {row["tool_name"]: row for row in _wait_for_rows(log_path, 2)}
    assert rows["an_int"]["status"] == "success"
    row = rows["not_an_int"]
    assert row["status"] == "error", row
    assert row["error_type"] == "ReturnsMismatch"
    assert "does not match its declared output schema" in row["error"]
    assert row["error"] == broken.content[0].text  # the row says what the client was told


def test_a_call_of_an_unknown_tool_gets_its_log_row(tmp_path):
    log_path = tmp_path / "server.sqlite"

    async def main():
        async with Client(_stdio(DEFECT_TOOLS, "--log", str(log_path))) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("no_such_tool", {"x": 1})
            return caught.value

    error = asyncio.run(main())
    assert "Unknown tool 'no_such_tool'" in str(error)
    [row] = _wait_for_rows(log_path, 1)
    assert row["tool_name"] == "no_such_tool" and row["status"] == "error"
    assert row["error_type"] == "ToolNotFoundError"
    assert row["input"] == {"x": 1}
    time.sleep(0.3)
    assert len(_rows(log_path)) == 1  # one row per call


# -- 16. one base64 alphabet for images -------------------------------------------------------------------
def test_an_image_tool_sends_standard_base64_in_content_and_structured_content():
    from tests.mcp_server_tools import ODD_PNG

    async def main():
        async with Client(_stdio(TOOLS)) as client:
            return await client.call_tool("png_bytes", {}), await client.call_tool("pil_square", {})

    png, pil = asyncio.run(main())
    [image] = png.content
    assert image.type == "image" and image.mime_type == "image/png"
    assert image.data == base64.b64encode(ODD_PNG).decode("ascii")
    assert png.structured_content == {"result": image.data}  # the same standard base64, not URL-safe
    assert base64.b64decode(png.structured_content["result"], validate=True) == ODD_PNG
    [picture] = pil.content
    assert picture.type == "image"
    data = base64.b64decode(picture.data, validate=True)
    assert data.startswith(b"\x89PNG")
    assert pil.structured_content in (None, {"result": picture.data})


def test_connect_gets_the_png_bytes_back():
    from tests.mcp_server_tools import ODD_PNG
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect
    from workbench.registry import ToolRegistry

    registry = ToolRegistry()
    with connect(command=serve_command(TOOLS), registry=registry, cwd=str(ROOT), connect_timeout=WAIT):
        result = SequentialExecutor().call(registry, "png_bytes")
        assert result.status == "success", result.metadata
        assert result.value == ODD_PNG
