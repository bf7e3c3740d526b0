"""Real MCP server processes for tests: the project's own server over HTTP, and the npm servers
that .ci/system-deps installs into tests/node (a missing one fails the test with the fix, never skips)."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
NODE_BIN = ROOT / "tests" / "node" / "node_modules" / ".bin"
WAIT = 30.0  # upper bound of any single wait on a server process


def serve_command(module: str, *args: str) -> list[str]:
    """``python -m workbench.mcp serve <module> [args]`` as an argv list."""
    return [sys.executable, "-m", "workbench.mcp", "serve", module, *args]


def npm_server(name: str) -> str:
    """The path of an npm MCP server binary from tests/node (installed by ``bash .ci/system-deps``)."""
    path = NODE_BIN / name
    if not path.exists():
        raise AssertionError(f"{path} is missing: run `bash .ci/system-deps` (npm ci --prefix tests/node)")
    return str(path)


@contextlib.contextmanager
def server_process(
    argv: Sequence[str], ready: Callable[[str], bool], *, env: Optional[dict] = None, what: str = "the server"
) -> Iterator[list[str]]:
    """Start ``argv`` (cwd: the repository), wait until a stderr line satisfies ``ready``; yield the
    stderr lines seen so far; stop the process at the end."""
    proc = subprocess.Popen(
        list(argv),
        cwd=str(ROOT),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    pumper = threading.Thread(target=pump, daemon=True)
    pumper.start()
    try:
        seen: list[str] = []
        deadline = time.monotonic() + WAIT
        while not (seen and ready(seen[-1])):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{what} did not start within {WAIT:g} s; stderr: {''.join(seen)}")
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"{what} exited ({proc.wait(5)}); stderr: {''.join(seen)}")
            seen.append(line)
        yield seen
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        pumper.join(5)
        proc.stderr.close()  # type: ignore[union-attr]


@contextlib.contextmanager
def http_server(argv: Sequence[str], *, marker: str = "serving") -> Iterator[str]:
    """Start a server process that prints its ``http://…`` URL on a stderr line containing ``marker``;
    yield the URL."""
    with server_process(argv, lambda line: marker in line and "http://" in line) as seen:
        yield seen[-1][seen[-1].index("http://") :].split()[0].strip()


def eventually(check: Callable[[], Any], timeout: float = WAIT, what: str = "the condition") -> Any:
    """Poll ``check()`` until it returns something true (returned) or ``timeout`` passes (AssertionError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (for servers that take a port but cannot pick one)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


EVERYTHING = "mcp-server-everything"
#: server-everything's HTTP transports: argument → the endpoint path
EVERYTHING_HTTP_PATHS = {"streamableHttp": "/mcp", "sse": "/sse"}


@contextlib.contextmanager
def everything_http(kind: str = "streamableHttp") -> Iterator[str]:
    """``server-everything`` over HTTP (``streamableHttp`` or ``sse``) on a free port; yields its URL."""
    import os

    port = free_port()
    with server_process(
        [npm_server(EVERYTHING), kind],
        lambda line: f"port {port}" in line,
        env={**os.environ, "PORT": str(port)},
        what=f"server-everything {kind}",
    ):
        yield f"http://127.0.0.1:{port}{EVERYTHING_HTTP_PATHS[kind]}"
