"""The stdio transport of ``connect(command=...)``: a server process whose end the client owns.

The SDK's ``stdio_client`` stops a server with fixed waits (close stdin, 2 s, SIGTERM, 2 s, SIGKILL,
2 s) that no caller can shorten, and it does not say which process it started — so
``disconnect(timeout=3)`` took 9 s, and a server that ignored SIGTERM outlived an interpreter that
exited mid-shutdown. :class:`ServerProcess` is the same transport (newline-delimited JSON-RPC over the
process's stdin/stdout, the process in a session of its own) with:

* a shutdown bounded by a budget the connection sets (``stop_timeout``): close stdin, wait 40 % of
  it, SIGTERM the process group, wait 30 %, SIGKILL the group, wait for the exit;
* the process id (``pid``), and :meth:`ServerProcess.kill`, a synchronous SIGKILL of the group that
  works from any thread — the connection's last resort when its loop cannot finish in time;
* every started process listed until it is gone: at interpreter exit any left is killed.

On Windows the SDK's ``stdio_client`` is used as it is.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from typing import IO, Any, AsyncIterator, Optional

import anyio
import anyio.lowlevel
from anyio.streams.text import TextReceiveStream
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

__all__ = ["DEFAULT_STOP_TIMEOUT", "ServerProcess", "stdio_transport"]

logger = logging.getLogger("workbench.mcp")

DEFAULT_STOP_TIMEOUT = 5.0  #: seconds to stop a server when the session ends by itself (not disconnect())
_SHARES = (0.4, 0.3)  # of the budget: the wait after closing stdin, then after SIGTERM; SIGKILL gets the rest
_FLUSH = 0.25  # at most this long (and 10 % of the budget) for the writer to flush accepted messages
_POLL = 0.01

_RUNNING: set["ServerProcess"] = set()
_RUNNING_LOCK = threading.Lock()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


class ServerProcess:
    """A ``command=`` server process and the transport to it (an async context manager factory)."""

    def __init__(self, params: StdioServerParameters, errlog: IO[str]) -> None:
        self.params = params
        self.errlog = errlog
        self.pid: Optional[int] = None
        self.stop_timeout = DEFAULT_STOP_TIMEOUT  #: the budget of the shutdown; the connection sets it
        self._process: Any = None

    @property
    def running(self) -> bool:
        """True from the start until the process and its group are gone."""
        return self.pid is not None and _group_alive(self.pid)

    def kill(self) -> None:
        """SIGKILL the server's process group now (any thread; the last resort)."""
        if self.pid is not None:
            _signal_group(self.pid, signal.SIGKILL)

    def __call__(self) -> Any:
        return self._transport()

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        from mcp.shared.message import SessionMessage

        params = self.params
        process = await anyio.open_process(
            [params.command, *params.args],
            env=get_default_environment() | (params.env or {}),
            stderr=self.errlog,
            cwd=params.cwd,
            start_new_session=True,
        )
        self._process, self.pid = process, process.pid
        stdout, stdin = process.stdout, process.stdin
        assert stdout is not None and stdin is not None  # opened as pipes (open_process' default)
        with _RUNNING_LOCK:
            _RUNNING.add(self)
        read_sender, read_stream = anyio.create_memory_object_stream[Any](0)
        write_stream, write_receiver = anyio.create_memory_object_stream[Any](0)
        writer_done = anyio.Event()

        async def read() -> None:
            buffer = ""
            try:
                async with read_sender:
                    async for chunk in TextReceiveStream(
                        stdout, encoding=params.encoding, errors=params.encoding_error_handler
                    ):
                        lines = (buffer + chunk).split("\n")
                        buffer = lines.pop()
                        for line in lines:
                            if line.strip():
                                await read_sender.send(_parse(line, SessionMessage))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                pass  # the server or our shutdown closed the pipe: the session sees the stream end

        async def write() -> None:
            try:
                async with write_receiver:
                    async for message in write_receiver:
                        data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                        await stdin.send(data.encode(params.encoding, params.encoding_error_handler))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_sender.aclose()  # a server that stopped reading: end the session, do not hang
            finally:
                writer_done.set()

        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(read)
                tasks.start_soon(write)
                try:
                    yield read_stream, write_stream
                finally:
                    with anyio.CancelScope(shield=True):  # the process must end even when the caller is cancelled
                        budget = max(0.1, float(self.stop_timeout))
                        read_stream.close()
                        write_stream.close()
                        with anyio.move_on_after(min(_FLUSH, budget * 0.1)):
                            await writer_done.wait()
                        await self._stop(process, budget)
                        for stream in (read_stream, write_stream, read_sender, write_receiver):
                            await stream.aclose()
                    tasks.cancel_scope.cancel()
        finally:
            self._forget_if_gone()

    async def _stop(self, process: Any, budget: float) -> None:
        """Close stdin, then SIGTERM, then SIGKILL the group — each after its share of ``budget``."""
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
        pgid = process.pid
        if await _exited(process, budget * _SHARES[0]):
            if _group_alive(pgid):  # the server left children behind: they go with it
                _signal_group(pgid, signal.SIGKILL)
        else:
            _signal_group(pgid, signal.SIGTERM)
            if not await _group_gone(process, budget * _SHARES[1]):
                _signal_group(pgid, signal.SIGKILL)
                rest = budget * (1 - sum(_SHARES))
                if not await _group_gone(process, max(rest, 0.2)):
                    logger.warning("MCP server process %d is still there after SIGKILL", pgid)
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()
        transport: Any = getattr(getattr(process, "_process", None), "_transport", None)
        with contextlib.suppress(Exception):  # the asyncio subprocess transport, else it warns at GC
            transport.close()

    def _forget_if_gone(self) -> None:
        if self._process is not None and self._process.returncode is not None:
            with _RUNNING_LOCK:
                _RUNNING.discard(self)


async def _exited(process: Any, timeout: float) -> bool:
    """Whether the process exited within ``timeout`` (polling ``returncode``, as the SDK does: a
    child that inherited the pipes makes ``wait()`` hang on an exited server)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
        return True
    return process.returncode is not None


async def _group_gone(process: Any, timeout: float) -> bool:
    """Whether the process and its group are gone within ``timeout``."""
    with anyio.move_on_after(timeout):
        while process.returncode is None or _group_alive(process.pid):
            await anyio.sleep(_POLL)
        return True
    return False


def _parse(line: str, session_message: Any) -> Any:
    import mcp_types

    try:
        return session_message(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        logger.warning("MCP server wrote a line that is not JSON-RPC: %.200s", line)
        return exc


def stdio_transport(params: StdioServerParameters, errlog: IO[str]) -> tuple[Any, Optional[ServerProcess]]:
    """(the transport, the :class:`ServerProcess` — ``None`` on Windows, where the SDK's is used)."""
    if sys.platform == "win32":  # pragma: no cover - POSIX process groups below
        return stdio_client(params, errlog=errlog), None
    process = ServerProcess(params, errlog)
    return process(), process


@atexit.register
def _kill_leftovers() -> None:
    """At interpreter exit, no server process this client started stays behind (the connections'
    own ``disconnect`` ran first — atexit runs handlers last registered first, and the client module
    registers after importing this one)."""
    with _RUNNING_LOCK:
        left = list(_RUNNING)
    for process in left:
        process.kill()
