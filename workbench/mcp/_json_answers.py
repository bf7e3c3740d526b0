"""Answers that do not stream go out as one JSON body, on either protocol era.

On the handshake era (2025-11-25 and before) the SDK's streamable-HTTP transport answers every POSTed
request with an event stream, opened before the handler runs; the official SDK client refuses an
event over 1 MiB (``max_sse_event_size``), so a large tool result failed every SDK-based client. The
2026-07-28 transport already waits before committing to a stream: a handler that answers without a
notification first gets ``application/json``. :class:`JsonAnswers` does the same for every POST: it
holds the stream's start until its first event; when that event is the request's answer, the answer
goes out as a plain ``application/json`` body (no size limit on the client). A priming event (an
``id`` and a ``retry`` with empty data, which a resumable stream opens with) is held too: when the
answer follows it, the JSON body is the whole response and there is nothing to resume, so the
priming event and the answer's event ``id`` are dropped. Anything else first — a progress
notification, a keep-alive comment, a server request — commits the stream as the SDK made it
(priming event included), so progress still streams as it happens.

A call that streams sends its answer as one event after its notifications; for results over 1 MiB
to SDK clients there, serve with ``json_response=True`` (``--json-response``): every answer is JSON,
and progress notifications are not sent.
"""

from __future__ import annotations

import re
from typing import Optional

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["JsonAnswers"]

# the SDK writes a JSON-RPC answer with its fields in this order (pydantic model order); anything else
# (another shape, a notification, a request) stays an event stream
_ANSWER = re.compile(rb'\{"jsonrpc":"2\.0","id":(?:"(?:[^"\\]|\\.)*"|-?\d+),"(?:result|error)":')
# a blank line: two line ends, each CRLF, LF or a CR not followed by LF
_EVENT_END = re.compile(rb"(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))")
# headers of an event stream that a JSON body does not carry
_STREAM_ONLY = frozenset(
    {b"content-type", b"content-length", b"cache-control", b"connection", b"x-accel-buffering", b"transfer-encoding"}
)


def _event_data(event: bytes) -> Optional[bytes]:
    """The data of ``event`` (one complete server-sent event), its ``id``/``retry`` fields ignored (a
    resumable stream's; nothing resumes a response sent whole); None for a comment (a keep-alive) or
    another event type."""
    data: list[bytes] = []
    for line in event.splitlines():
        if not line:
            continue
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"data":
            data.append(value)
        elif field in (b"id", b"retry"):
            continue
        elif field != b"event" or value != b"message":
            return None  # a comment (keep-alive) or another kind of event: a stream
    return b"\n".join(data)


def _answer_data(event: bytes) -> Optional[bytes]:
    """The data of ``event`` when it is a plain JSON-RPC answer, else None."""
    body = _event_data(event)
    return body if body is not None and _ANSWER.match(body) else None


def _is_priming(event: bytes) -> bool:
    """``event`` is a resumable stream's priming event: an id (and a retry) with empty data."""
    return _event_data(event) == b"" and any(line.startswith(b"id:") for line in event.splitlines())


class _Held:
    """One POST's response: its event-stream start and first bytes held until the first event decides."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Optional[Message] = None
        self.buffer = bytearray()
        self.decided = 0  # where the first event not yet known to be a priming event starts
        self.state = "waiting"  # waiting → "stream" (passed through) or "answered" (sent as JSON)

    async def __call__(self, message: Message) -> None:
        if self.state == "stream":
            await self.send(message)
        elif self.state == "answered":
            return  # the stream's end, after its one event: already answered
        elif message["type"] == "http.response.start":
            content_type = Headers(raw=message.get("headers") or []).get("content-type", "")
            if message.get("status") == 200 and content_type.startswith("text/event-stream"):
                self.start = message
            else:
                self.state = "stream"
                await self.send(message)
        elif self.start is None:  # not a held stream (a body without a start: passed on for the server to judge)
            self.state = "stream"
            await self.send(message)
        else:
            await self._body(message)

    async def _body(self, message: Message) -> None:
        searched = max(self.decided, len(self.buffer) - 3)  # an event's end may straddle two bodies
        self.buffer += message.get("body", b"")
        more = message.get("more_body", False)
        while True:
            end = _EVENT_END.search(self.buffer, searched)
            if end is None:
                if more:
                    return  # the deciding event is not complete yet
                break
            event = bytes(self.buffer[self.decided : end.start()])
            if _is_priming(event):  # held: the next event decides
                self.decided = searched = end.end()
                continue
            if end.end() == len(self.buffer):
                answer = _answer_data(event)
                if answer is not None:
                    await self._answer(answer)
                    return
            break
        await self._commit(more)

    async def _answer(self, body: bytes) -> None:
        assert self.start is not None
        headers = [(name, value) for name, value in self.start.get("headers") or [] if name.lower() not in _STREAM_ONLY]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        self.state = "answered"
        self.buffer = bytearray()
        await self.send({"type": "http.response.start", "status": 200, "headers": headers})
        await self.send({"type": "http.response.body", "body": body, "more_body": False})

    async def _commit(self, more_body: bool) -> None:
        assert self.start is not None
        self.state = "stream"
        body, self.buffer = bytes(self.buffer), bytearray()
        await self.send(self.start)
        await self.send({"type": "http.response.body", "body": body, "more_body": more_body})

    async def close(self) -> None:
        """The app returned with the stream still held (it sent no complete event): send what it sent."""
        if self.state == "waiting" and self.start is not None:
            await self._commit(False)


class JsonAnswers:
    """ASGI middleware: a POST answered by an event stream whose first event is the answer gets that
    answer as an ``application/json`` body instead (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        held = _Held(send)
        await self.app(scope, receive, held)
        await held.close()
