"""The transport's streams as the connection sees them: every message recorded, the end noticed at once.

:func:`watch` wraps an SDK transport's read and write streams. The SDK's session only fails later
requests when the read stream ends; the wrapper tells the connection at once that the server is gone
(a stdio process that exited, a dropped HTTP stream), and shows each message either way to the
connection's protocol record.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import anyio

from workbench.mcp._lenient import ToolListRepair

__all__ = ["watch"]


class _StreamWrapper:
    """A transport stream passed through, with a hook; everything else goes to the wrapped stream."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> "_StreamWrapper":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _EndWatch(_StreamWrapper):
    """A transport's read stream that calls ``on_end()`` when it ends — the server closed its side
    (a stdio server process that exited or was killed, a dropped HTTP stream) — and shows each item to
    ``on_item``. The SDK's session only fails later requests when the stream ends; this lets the
    connection say at once that it is gone."""

    def __init__(
        self,
        inner: Any,
        on_end: Callable[[], None],
        on_item: Callable[[Any], None],
        repair: Callable[[Any], Any] = lambda item: item,
    ) -> None:
        super().__init__(inner)
        self._on_end = on_end
        self._on_item = on_item
        self._repair = repair

    @property
    def last_context(self) -> Any:  # the SDK's ContextReceiveStream keeps the sender's contextvars here
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        self._on_item(item)
        return self._repair(item)

    def __aiter__(self) -> "_EndWatch":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _SendWatch(_StreamWrapper):
    """A transport's write stream that shows each message to ``on_item`` before sending it."""

    def __init__(self, inner: Any, on_item: Callable[[Any], None]) -> None:
        super().__init__(inner)
        self._on_item = on_item

    async def send(self, item: Any) -> None:
        self._on_item(item)
        await self._inner.send(item)


@contextlib.asynccontextmanager
async def watch(
    transport: Any, on_end: Callable[[], None], record: Callable[[str, Any], None], tool_lists: ToolListRepair
) -> Any:
    """``transport`` with its streams wrapped: the end of the read stream is noticed at once, every
    message either way is recorded (the connection's raw protocol history), and malformed tools are
    taken out of ``tools/list`` results (``tool_lists``) before the SDK validates them."""

    def sent(item: Any) -> None:
        tool_lists.sent(item)
        record("sent", item)

    async with transport as (read_stream, write_stream):
        yield (
            _EndWatch(read_stream, on_end, lambda item: record("received", item), tool_lists.received),
            _SendWatch(write_stream, sent),
        )
