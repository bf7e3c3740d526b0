"""Issue #18's MCP server-side defects, against real server processes (``python -m workbench.mcp serve``)
driven by raw HTTP requests, the Python SDK client and ``workbench.mcp.connect``."""

from __future__ import annotations

import asyncio
import base64
import json
import sys
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


def test_bytes_that_are_no_image_are_standard_base64_and_match_the_output_schema():
    from tests.mcp_server_tools import ODD_BYTES

    standard = base64.b64encode(ODD_BYTES).decode("ascii")
    assert {"+", "/"} & set(standard)

    async def main():
        async with Client(_stdio(TOOLS)) as client:  # the SDK client checks structuredContent against outputSchema
            return await client.call_tool("binary_bytes", {}), await client.call_tool("record_with_bytes", {})

    binary, record = asyncio.run(main())
    assert not binary.is_error and binary.structured_content == {"result": standard}
    assert not record.is_error and record.structured_content == {"name": "blob", "raw": standard}
    assert json.loads(record.content[0].text) == record.structured_content  # the text says the same


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


# -- 4. Host and Origin are parsed as RFC 3986 authorities ----------------------------------------------------
# raw requests (httpx) against `python -m workbench.mcp serve` on 127.0.0.1; every forged Host is only a header
def test_host_names_compare_case_insensitively_and_tricks_are_refused(tmp_path):
    from tests.test_mcp.test_auth import call_add, ran, running

    with running("--allow-host", "Exact.Example:8443", tmp_path=tmp_path) as server:
        port = server.port
        accepted = [
            f"LOCALHOST:{port}",
            "LocalHost",
            f"localhost.:{port}",
            f"127.0.0.1:{port}",
            f"[::1]:{port}",
            f"[0:0:0:0:0:0:0:1]:{port}",
            "[::1]",
            "exact.example:8443",
            "EXACT.EXAMPLE:8443",
        ]
        for a, host in enumerate(accepted, start=1):
            assert ran(call_add(server, a, host=host), a), host
        refused = [
            f"127.0.0.1:{port}@evil.com",
            f"evil.com@127.0.0.1:{port}",
            f"user:pw@localhost:{port}",
            f"localhost:{port}/",
            f"localhost:{port}#x",
            f"localhost:{port}?x",
            "localhost:",
            "localhost:0",
            "localhost:99999",
            "localhost:80:80",
            f"localhost:{port} evil",
            "localhost:+80",
            "localhost:-1",
            "local host",
            "::1",
            f"::1:{port}",
            "[::1",
            f"[::1]x:{port}",
            "[fe80::1%25eth0]",
            "[v1.x]",
            "localhost..",
            ".localhost",
            "exact.example:9999",
            "exact.example",
            "evil.com",
            "",
            "localhost%2eevil.com",
            f"127.0.0.1:{port}.evil.com",
        ]
        for b, host in enumerate(refused, start=100):
            response = call_add(server, b, host=host)
            assert response.status_code == 421, (host, response.status_code, response.text)
        assert server.logged_sums() == list(range(1, len(accepted) + 1))


def test_origins_are_parsed_and_compared_case_insensitively(tmp_path):
    from tests.test_mcp.test_auth import call_add, ran, running

    with running(
        "--allow-origin", "https://App.Example:8443", "--allow-origin", "https://any.example", tmp_path=tmp_path
    ) as server:
        accepted = [
            "http://LOCALHOST:5173",
            "HTTP://localhost",
            "http://127.0.0.1:3000",
            "http://[::1]:3000",
            "https://app.example:8443",
            "https://APP.example:8443",
            "https://any.example",
            "https://any.example:9443",
        ]
        for a, origin in enumerate(accepted, start=1):
            assert ran(call_add(server, a, origin=origin), a), origin
        refused = [
            "http://localhost:5173@evil.com",
            "http://user@localhost:5173",
            "http://localhost.evil.com",
            "http://localhost:5173/path",
            "http://localhost/",
            "http://localhost:99999",
            "http://localhost:",
            "https://localhost",
            "null",
            "localhost",
            "http://",
            "http://[::1",
            "https://app.example",
            "https://app.example:9999",
            "http://app.example:8443",
            "file://",
            "http://evil.com#localhost",
        ]
        for b, origin in enumerate(refused, start=100):
            response = call_add(server, b, origin=origin)
            assert response.status_code == 403, (origin, response.status_code, response.text)
        assert server.logged_sums() == list(range(1, len(accepted) + 1))


def test_bad_allow_host_and_allow_origin_values_are_refused_at_start():
    from workbench.mcp._security import allow_lists

    for bad in ("user@host", "host:99999", "host:abc", "a b", "[::1", "http://host"):
        with pytest.raises(ValueError, match="allowed host"):
            allow_lists([bad], [])
    for bad in ("app.example", "https://user@app.example", "https://app.example/path", "https://app.example:0"):
        with pytest.raises(ValueError, match="allowed origin"):
            allow_lists([], [bad])


# -- 15b. a missing token is told apart from a wrong one -------------------------------------------------------
def test_a_missing_token_gets_a_bearer_challenge_without_an_error_code_and_a_readable_hint(tmp_path):
    from tests.test_mcp.test_auth import call_add, initialize, running

    token = "the-right-token-15b"
    with running("--token", token, tmp_path=tmp_path) as server:
        for response in (call_add(server, 1), initialize(server), call_add(server, 2, authorization=f"Basic {token}")):
            assert response.status_code == 401
            challenge = response.headers["www-authenticate"]
            assert challenge.split()[0] == "Bearer"
            assert "error" not in challenge  # RFC 6750 §3.1: no error code when no credentials were sent
            text = response.text
            assert "needs a bearer token" in text and "connect(url, token=" in text
            assert token not in text and token not in challenge
        for response in (call_add(server, 3, token="wrong"), call_add(server, 4, authorization=f"bearer {token}-not")):
            assert response.status_code == 401
            challenge = response.headers["www-authenticate"]
            assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
            assert response.json()["error"] == "invalid_token"
            assert "not the token this server" in response.json()["error_description"]
            assert token not in response.text and token not in challenge
        assert server.logged_sums() == []


# -- 14. a large structured result crosses streamable HTTP whole -------------------------------------------------
def _expected_text(megabytes):
    size = int(megabytes * 1_000_000)
    return ("0123456789" * (size // 10 + 1))[:size]


def _raw_calls(url, mode, calls, **transport):
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with Client(streamable_http_client(url, **transport), mode=mode) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(main())


def _sent_once(result):
    """The value is in structuredContent only: the text block is a short pointer to it."""
    assert sum(len(getattr(block, "text", "") or "") for block in result.content) < 1000
    assert "structuredContent" in result.content[0].text
    return True


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_large_result_is_sent_once_and_fits_the_sdk_clients_default_event_limit(tmp_path, mode):
    """0.6 MB twice (text + structuredContent) broke the SDK client's 1 MiB SSE event limit."""
    from tests.mcp_servers import http_server

    expected = _expected_text(0.6)
    with http_server(serve_command(TOOLS, "--transport", "streamable-http", "--port", "0")) as url:
        text, record, small = _raw_calls(
            url,
            mode,
            [
                ("big_text", {"megabytes": 0.6}),
                ("big_record", {"megabytes": 0.6}),
                ("big_record", {"megabytes": 0.001}),
            ],
        )
    assert text.structured_content == {"result": expected} and _sent_once(text)
    assert record.structured_content == {"size": len(expected), "text": expected} and _sent_once(record)
    assert json.loads(small.content[0].text) == small.structured_content  # small values keep their JSON text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_5_mb_result_reaches_the_raw_sdk_client_over_streamable_http(tmp_path, mode):
    """The official SDK client with its default 1 MiB limit on one server-sent event, on both protocol eras
    (issue 26, item 14): an answer that does not stream is one JSON body, whatever its size."""
    from tests.mcp_servers import http_server

    expected = _expected_text(5)
    with http_server(serve_command(TOOLS, "--transport", "streamable-http", "--port", "0")) as url:
        text, record, small = _raw_calls(
            url,
            mode,
            [("big_text", {"megabytes": 5}), ("big_record", {"megabytes": 5}), ("big_text", {"megabytes": 0.001})],
        )
    assert text.structured_content == {"result": expected} and _sent_once(text)
    assert record.structured_content == {"size": len(expected), "text": expected} and _sent_once(record)
    assert small.structured_content == {"result": expected[:1000]}


def _posted_answers(url, mode, calls):
    """The Content-Type of each answer to a POSTed tools/call, as the SDK client received it."""
    import httpx2

    seen = []

    async def note(response):
        if response.request.method == "POST" and b'"tools/call"' in (response.request.content or b""):
            seen.append(response.headers.get("content-type", "").split(";")[0])

    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(event_hooks={"response": [note]}) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                for name, arguments, progress in calls:
                    await client.call_tool(name, arguments, progress_callback=progress)
        return seen

    return asyncio.run(main())


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_only_answers_that_stream_are_event_streams(tmp_path, mode):
    """A call that reports progress to a client that asked for it streams (its progress, then its answer);
    one that does not is answered with plain JSON."""
    from tests.mcp_servers import http_server

    heard = []

    async def progress(value, total, message):
        heard.append(message)

    with http_server(serve_command(TOOLS, "--transport", "streamable-http", "--port", "0")) as url:
        kinds = _posted_answers(
            url,
            mode,
            [
                ("big_text", {"megabytes": 0.001}, None),
                ("big_text_after_progress", {"megabytes": 0.001}, progress),
                ("big_text_after_progress", {"megabytes": 0.001}, None),
            ],
        )
    assert kinds == ["application/json", "text/event-stream", "application/json"]
    assert heard == ["half way"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_json_response_serves_every_answer_as_json(tmp_path, mode):
    """``serve --json-response``: even a call that reports progress answers with one JSON body, so a 5 MB
    result after progress reaches the SDK client's default limits (its progress is not sent)."""
    from tests.mcp_servers import http_server

    heard = []

    async def progress(value, total, message):
        heard.append(message)

    expected = _expected_text(5)
    argv = serve_command(TOOLS, "--transport", "streamable-http", "--port", "0", "--json-response")
    with http_server(argv) as url:
        [streamed] = _raw_calls_with_progress(url, mode, "big_text_after_progress", {"megabytes": 5}, progress)
        kinds = _posted_answers(url, mode, [("big_text_after_progress", {"megabytes": 0.001}, progress)])
    assert streamed.structured_content == {"result": expected}
    assert kinds == ["application/json"] and heard == []


def _raw_calls_with_progress(url, mode, name, arguments, progress):
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with Client(streamable_http_client(url), mode=mode) as client:
            return [await client.call_tool(name, arguments, progress_callback=progress)]

    return asyncio.run(main())


def test_a_5_mb_result_reaches_connect_over_streamable_http(tmp_path):
    from tests.mcp_servers import http_server
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect
    from workbench.registry import ToolRegistry

    argv = serve_command(TOOLS, "--transport", "streamable-http", "--port", "0")
    expected = _expected_text(5)
    with http_server(argv) as url:
        registry = ToolRegistry()
        with connect(url=url, registry=registry, connect_timeout=WAIT):
            text = SequentialExecutor().call(registry, "big_text", {"megabytes": 5})
            record = SequentialExecutor().call(registry, "big_record", {"megabytes": 5})
            small = SequentialExecutor().call(registry, "big_text", {"megabytes": 0.001})
            streamed = SequentialExecutor().call(registry, "big_text_after_progress", {"megabytes": 5})
    assert text.status == "success", text.metadata
    assert text.value == expected
    assert record.status == "success", record.metadata
    assert record.value == {"size": len(expected), "text": expected}
    assert small.value == expected[:1000]
    assert streamed.status == "success", streamed.metadata
    assert streamed.value == expected


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_connect_speaks_the_protocol_era_asked_for(tmp_path, era):
    """``connect(protocol_version=...)``: a server author sees their server as a 2025-11-25 client does
    (issue 26, item 14), and the connection says which era it speaks; reconnect() keeps it."""
    from tests.mcp_servers import http_server
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect
    from workbench.registry import ToolRegistry

    expected = _expected_text(5)
    with http_server(serve_command(TOOLS, "--transport", "streamable-http", "--port", "0")) as url:
        registry = ToolRegistry()
        with connect(url=url, registry=registry, connect_timeout=WAIT, protocol_version=era) as connection:
            assert connection.protocol_version == era
            text = SequentialExecutor().call(registry, "big_text", {"megabytes": 5})
            streamed = SequentialExecutor().call(registry, "big_text_after_progress", {"megabytes": 5})
            again = connection.reconnect(connect_timeout=WAIT)
            try:
                assert again.protocol_version == era
            finally:
                again.disconnect()
    assert text.status == "success" and text.value == expected
    assert streamed.status == "success" and streamed.value == expected


def test_connect_names_the_protocol_versions_it_speaks():
    from workbench.mcp import connect

    for bad in ("2025-06-18", "newest", 2025):
        with pytest.raises(ValueError, match=r"protocol_version=.*expected one of None, '2025-11-25', '2026-07-28'"):
            connect(url="http://127.0.0.1:9/mcp", protocol_version=bad)


# -- 7. every connected client hears every tool-list change ----------------------------------------------------
CHANGING = [sys.executable, "-m", "tests.mcp_changing_server"]


class _Listener:
    """A raw SDK client (protocol 2025-11-25 with ``mode="legacy"``, 2026-07-28 through
    ``subscriptions/listen``) in a background task, counting the tool-list changes it hears."""

    def __init__(self, transport, mode, list_first=True):
        self.transport, self.mode, self.list_first = transport, mode, list_first
        self.changes = 0
        self.changed = asyncio.Event()
        self.ready = asyncio.Event()
        self.client = None

    async def _message(self, message):
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._heard()

    def _heard(self):
        self.changes += 1
        self.changed.set()

    async def run(self, stop):
        async with Client(self.transport, mode=self.mode, message_handler=self._message) as client:
            self.client = client
            if self.list_first:
                await client.list_tools()
            if self.mode == "legacy":
                assert client.protocol_version == "2025-11-25"
                self.ready.set()
                await stop.wait()
            else:
                assert client.protocol_version == "2026-07-28"
                async with client.listen(tools_list_changed=True) as subscription:
                    self.ready.set()
                    waiting = asyncio.ensure_future(stop.wait())
                    events = subscription.__aiter__()
                    while not stop.is_set():
                        event = asyncio.ensure_future(events.__anext__())
                        done, _ = await asyncio.wait({event, waiting}, return_when=asyncio.FIRST_COMPLETED)
                        if event in done:
                            event.result()
                            self._heard()
                        else:
                            event.cancel()

    async def tools(self):
        return sorted(tool.name for tool in (await self.client.list_tools(cache_mode="bypass")).tools)


async def _all_heard(listeners, before, timeout=WAIT):
    """Wait until each listener heard more changes than ``before[name]``; fail naming those that did not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(listener.changes > before[name] for name, listener in listeners.items()):
            return
        await asyncio.sleep(0.05)
    deaf = sorted(name for name, listener in listeners.items() if listener.changes <= before[name])
    raise AssertionError(f"no notifications/tools/list_changed reached: {deaf}")


def test_every_connected_client_hears_every_tool_list_change(tmp_path):
    from mcp.client.streamable_http import streamable_http_client

    from tests.mcp_servers import eventually, http_server
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect
    from workbench.registry import ToolRegistry

    def stdio_changing():
        return stdio_client(StdioServerParameters(command=CHANGING[0], args=[*CHANGING[1:], "stdio"], cwd=str(ROOT)))

    with http_server([*CHANGING, "streamable-http"]) as url:
        http_registry, stdio_registry = ToolRegistry(), ToolRegistry()
        with (
            connect(url=url, registry=http_registry, connect_timeout=WAIT) as http_conn,
            connect(
                command=[*CHANGING, "stdio"], registry=stdio_registry, cwd=str(ROOT), connect_timeout=WAIT
            ) as stdio_conn,
        ):

            async def main():
                listeners = {
                    "http 2025-11-25 a": _Listener(streamable_http_client(url), "legacy"),
                    "http 2025-11-25 b": _Listener(streamable_http_client(url), "legacy"),
                    "http 2026-07-28": _Listener(streamable_http_client(url), "2026-07-28"),
                    "stdio 2025-11-25": _Listener(stdio_changing(), "legacy"),
                    "stdio 2026-07-28": _Listener(stdio_changing(), "2026-07-28"),
                }
                stop = asyncio.Event()
                tasks = [asyncio.ensure_future(listener.run(stop)) for listener in listeners.values()]
                try:
                    await asyncio.wait_for(
                        asyncio.gather(*(listener.ready.wait() for listener in listeners.values())), WAIT
                    )
                    await asyncio.sleep(0.5)  # let the listen streams settle
                    # a change made through one HTTP client reaches every other HTTP client
                    done = await asyncio.to_thread(SequentialExecutor().call, http_registry, "grow", {"name": "fresh"})
                    assert done.status == "success", done.metadata
                    http = {name: listener for name, listener in listeners.items() if name.startswith("http")}
                    await _all_heard(http, dict.fromkeys(http, 0))
                    for name, listener in http.items():
                        assert "fresh" in await listener.tools(), name
                    # each stdio client changes its own server's list (one process per client) and hears it
                    for name, listener in listeners.items():
                        if name.startswith("stdio"):
                            await listener.client.call_tool("grow", {"name": "fresh"})
                            await _all_heard({name: listener}, {name: 0})
                            assert "fresh" in await listener.tools(), name
                    # a second change is heard again (the sessions are still known to the server)
                    before = {name: listener.changes for name, listener in listeners.items()}
                    done = await asyncio.to_thread(SequentialExecutor().call, http_registry, "grow", {"name": "again"})
                    assert done.status == "success"
                    await _all_heard(http, before)
                    return {name: listener.changes for name, listener in listeners.items()}
                finally:
                    stop.set()
                    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), WAIT)

            heard = asyncio.run(main())
            assert all(count >= 1 for count in heard.values()), heard
            eventually(lambda: "again" in http_registry.list_tools(), what="connect(url=...) to register the new tool")
            assert SequentialExecutor().call(http_registry, "fresh", {"x": 1}).value == 2
            assert http_conn.protocol_version == "2026-07-28"
            assert SequentialExecutor().call(stdio_registry, "grow", {"name": "fresh"}).status == "success"
            eventually(lambda: "fresh" in stdio_registry.list_tools(), what="connect(command=...) to register it")
            assert stdio_conn.protocol_version == "2026-07-28"


def test_a_tool_registered_on_a_running_in_process_server_reaches_clients_that_never_listed_tools():
    """serve_async in a thread (as in a notebook); the registry changes outside any request."""
    import queue
    import threading

    from mcp.client.streamable_http import streamable_http_client

    from tests.mcp_servers import eventually
    from workbench import tool
    from workbench.mcp import connect, serve_async
    from workbench.registry import ToolRegistry

    @tool
    def first(x: int) -> int:
        """The tool the server starts with."""
        return x

    @tool
    def later(x: int) -> int:
        """Registered while the server runs."""
        return x * 3

    served = ToolRegistry()
    served.register_tool(first)
    urls: queue.Queue = queue.Queue()
    loop = asyncio.new_event_loop()
    task_box: list = []

    async def serve_main():
        task_box.append(asyncio.current_task())
        await serve_async(served, "streamable-http", "127.0.0.1", 0, ready=urls.put)

    def run():
        try:
            loop.run_until_complete(serve_main())
        except asyncio.CancelledError:  # how the test stops the server
            pass
        leftover = asyncio.all_tasks(loop)  # e.g. sse-starlette's shutdown watcher of the GET streams
        for task in leftover:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        url = urls.get(timeout=WAIT)

        async def main():
            modern = _Listener(streamable_http_client(url), "2026-07-28", list_first=False)
            legacy = _Listener(streamable_http_client(url), "legacy", list_first=False)
            stop = asyncio.Event()
            tasks = [asyncio.ensure_future(modern.run(stop))]
            try:
                # the first client only opened subscriptions/listen: no request of it went through tools/*
                await asyncio.wait_for(modern.ready.wait(), WAIT)
                await asyncio.sleep(0.5)
                served.register_tool(later)  # from this thread, outside any request
                await _all_heard({"2026-07-28": modern}, {"2026-07-28": 0})
                assert "later" in await modern.tools()
                # a 2025-11-25 client that only did its handshake hears the next change
                tasks.append(asyncio.ensure_future(legacy.run(stop)))
                await asyncio.wait_for(legacy.ready.wait(), WAIT)
                await asyncio.sleep(0.5)
                served.unregister("later")
                await _all_heard({"2026-07-28": modern, "2025-11-25": legacy}, {"2026-07-28": 1, "2025-11-25": 0})
                assert "later" not in await legacy.tools()
            finally:
                stop.set()
                await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), WAIT)

        asyncio.run(main())
        registry = ToolRegistry()
        with connect(url=url, registry=registry, connect_timeout=WAIT):
            served.register_tool(later)
            eventually(lambda: "later" in registry.list_tools(), what="connect() to register the new tool")
    finally:
        if task_box:
            loop.call_soon_threadsafe(task_box[0].cancel)
        thread.join(WAIT)
    assert not thread.is_alive()


def test_help_says_how_host_and_origin_are_compared(capsys):
    from workbench.mcp.__main__ import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "case-insensitively" in text and "user info" in text and "421" in text


def test_one_tool_list_change_is_one_re_list_on_2026_07_28():
    """The SDK hands listen-stream events to the message handler: handling them again listed twice."""
    from tests.mcp_servers import eventually
    from workbench.executor import SequentialExecutor
    from workbench.mcp import connect
    from workbench.registry import ToolRegistry

    registry = ToolRegistry()
    with connect(command=[*CHANGING, "stdio"], registry=registry, cwd=str(ROOT), connect_timeout=WAIT) as conn:
        assert conn.protocol_version == "2026-07-28"

        def lists() -> int:
            return sum(1 for m in conn.messages if m.direction == "sent" and m.message.get("method") == "tools/list")

        before = lists()
        assert SequentialExecutor().call(registry, "grow", {"name": "fresh"}).status == "success"
        eventually(lambda: "fresh" in registry.list_tools(), what="the new tool to register")
        time.sleep(1.0)  # a second, duplicate re-list would have been sent by now
        assert lists() - before == 1
