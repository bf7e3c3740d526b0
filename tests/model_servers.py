"""A local HTTP server that speaks the providers' wire formats, scripted per test (no network).

The real SDKs (openai, anthropic, google-genai, boto3) are pointed at it with ``base_url`` /
``endpoint_url``; the server answers each request with the next scripted reply, whatever the path,
and records what it received::

    server.script([openai_chat(tool_calls=[("add", {"a": 1, "b": 2})]), openai_chat(text="3")])
    model = OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key="sk-test")
    ...
    server.requests[0].json["tools"]     # what the SDK sent
    server.requests[1].path              # "/v1/chat/completions"

A reply is a dict (JSON, status 200), a :class:`Reply` (any status, headers, body, a delay) or a
:class:`Stream` (server-sent events). The builders below make each provider's answer body:
:func:`openai_chat`, :func:`openai_chat_stream`, :func:`openai_responses`, :func:`anthropic_message`,
:func:`anthropic_stream`, :func:`gemini_response`, :func:`gemini_stream`, :func:`bedrock_converse_stream`, :func:`bedrock_converse`, and :func:`error_reply`
for a provider's error body. Fixture: ``model_server`` (import it into a test module).
"""

from __future__ import annotations

import json
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Optional, Union

import pytest


@dataclass
class Reply:
    """One scripted HTTP answer: ``status``, JSON ``body`` (or ``text``, or ``raw`` bytes of
    ``content_type``), ``headers``, ``delay`` seconds."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    text: Optional[str] = None
    raw: Optional[bytes] = None
    content_type: str = "application/json"


@dataclass
class Stream:
    """A server-sent-events answer: each event is ``(event_name or None, data)``; data dicts become JSON."""

    events: list[tuple[Optional[str], Any]]
    status: int = 200


@dataclass
class Received:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    time: float

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


ScriptItem = Union[dict, Reply, Stream]


class ModelServer:
    """A threaded HTTP server on 127.0.0.1 answering with scripted replies; see the module docstring."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._script: list[ScriptItem] = []
        self._always: Optional[ScriptItem] = None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK wait

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = Received(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic()
                )
                with server._lock:
                    server.requests.append(received)
                    item = (
                        server._script.pop(0)
                        if server._script
                        else server._always
                        or Reply(
                            {"error": {"message": f"model server: no scripted reply left for {self.path}"}},
                            status=500,
                            headers={"x-should-retry": "false"},
                        )
                    )
                server._answer(self, item)

            do_POST = do_GET = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, replies: Iterable[ScriptItem]) -> "ModelServer":
        """Queue ``replies``, answered in order (after any still queued)."""
        with self._lock:
            self._script.extend(replies)
        return self

    def always(self, reply: Optional[ScriptItem]) -> "ModelServer":
        """Answer with ``reply`` whenever the script is empty (a benchmark's endless answers); None stops."""
        self._always = reply
        return self

    def reset(self) -> None:
        """Forget the requests received and the replies not yet given."""
        with self._lock:
            self._script.clear()
            self.requests.clear()

    @property
    def pending(self) -> int:
        """How many scripted replies are not answered yet."""
        return len(self._script)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @staticmethod
    def _answer(handler: BaseHTTPRequestHandler, item: ScriptItem) -> None:
        if isinstance(item, Stream):
            handler.send_response(item.status)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Connection", "close")
            handler.end_headers()
            for event, data in item.events:
                text = data if isinstance(data, str) else json.dumps(data)
                chunk = (f"event: {event}\n" if event else "") + f"data: {text}\n\n"
                handler.wfile.write(chunk.encode())
                handler.wfile.flush()
            handler.close_connection = True
            return
        reply = item if isinstance(item, Reply) else Reply(item)
        if reply.delay:
            time.sleep(reply.delay)
        payload = (
            reply.raw
            if reply.raw is not None
            else (reply.text if reply.text is not None else json.dumps(reply.body)).encode()
        )
        handler.send_response(reply.status)
        handler.send_header("Content-Type", reply.content_type)
        handler.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        try:
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass


@pytest.fixture
def model_server():
    """A fresh :class:`ModelServer` for one test."""
    server = ModelServer()
    yield server
    server.close()


# -- wire-format builders ------------------------------------------------------------------------

Call = tuple  # (name, arguments dict or raw JSON text[, id])


def _call_parts(call: Call, index: int, prefix: str) -> tuple[str, Any, str]:
    name, arguments = call[0], call[1]
    return name, arguments, (call[2] if len(call) > 2 else f"{prefix}_{index}")


def openai_chat(
    text: Optional[str] = None,
    tool_calls: Iterable[Call] = (),
    *,
    finish_reason: Optional[str] = None,
    refusal: Optional[str] = None,
    model: str = "gpt-4.1-mini",
    usage: tuple[int, int] = (10, 5),
) -> dict:
    """A Chat Completions response. A call's arguments may be a dict or raw (possibly broken) JSON text."""
    calls = [
        {
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for name, args, cid in (_call_parts(c, i, "call") for i, c in enumerate(tool_calls))
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": refusal}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


def openai_chat_stream(
    text: str = "",
    tool_calls: Iterable[Call] = (),
    *,
    model: str = "gpt-4.1-mini",
    usage: tuple[int, int] = (10, 5),
    pieces: int = 3,
) -> Stream:
    """A streamed Chat Completions response: the text and each call's arguments cut into ``pieces``."""

    def chunk(delta: dict, finish: Optional[str] = None) -> dict:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def cut(value: str) -> list[str]:
        step = max(1, -(-len(value) // pieces))
        return [value[i : i + step] for i in range(0, len(value), step)] or [""]

    events: list[tuple[Optional[str], Any]] = [(None, chunk({"role": "assistant", "content": ""}))]
    events += [(None, chunk({"content": piece})) for piece in cut(text)] if text else []
    calls = list(tool_calls)
    for index, call in enumerate(calls):
        name, args, cid = _call_parts(call, index, "call")
        args = args if isinstance(args, str) else json.dumps(args)
        for n, piece in enumerate(cut(args)):
            function = {"name": name, "arguments": piece} if n == 0 else {"arguments": piece}
            head = {"id": cid, "type": "function"} if n == 0 else {}
            events.append((None, chunk({"tool_calls": [{"index": index, **head, "function": function}]})))
    events.append((None, chunk({}, "tool_calls" if calls else "stop")))
    events.append(
        (
            None,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
            },
        )
    )
    events.append((None, "[DONE]"))
    return Stream(events)


def openai_responses(
    text: Optional[str] = None,
    tool_calls: Iterable[Call] = (),
    *,
    status: str = "completed",
    incomplete_reason: Optional[str] = None,
    refusal: Optional[str] = None,
    model: str = "gpt-4.1-mini",
    usage: tuple[int, int] = (10, 5),
) -> dict:
    """A Responses API response: a message item (text or refusal) and function_call items."""
    output: list[dict[str, Any]] = []
    if text is not None or refusal is not None:
        part = (
            {"type": "output_text", "text": text, "annotations": []}
            if refusal is None
            else {"type": "refusal", "refusal": refusal}
        )
        output.append({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": [part]})
    for index, call in enumerate(tool_calls):
        name, args, cid = _call_parts(call, index, "call")
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": cid,
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
                "status": "completed",
            }
        )
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "model": model,
        "status": status,
        "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": usage[0],
            "output_tokens": usage[1],
            "total_tokens": sum(usage),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def anthropic_message(
    text: Optional[str] = None,
    tool_calls: Iterable[Call] = (),
    *,
    stop_reason: Optional[str] = None,
    model: str = "claude-test",
    usage: tuple[int, int] = (10, 5),
) -> dict:
    """An Anthropic Messages response: a text block and tool_use blocks."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    calls = list(tool_calls)
    for index, call in enumerate(calls):
        name, args, cid = _call_parts(call, index, "toolu")
        content.append({"type": "tool_use", "id": cid, "name": name, "input": args})
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason or ("tool_use" if calls else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def anthropic_stream(
    text: str = "", tool_calls: Iterable[Call] = (), *, model: str = "claude-test", usage: tuple[int, int] = (10, 5)
) -> Stream:
    """A streamed Anthropic Messages response (message_start … message_stop)."""
    calls = list(tool_calls)
    events: list[tuple[Optional[str], Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": usage[0], "output_tokens": 1},
                },
            },
        )
    ]
    index = 0
    if text:
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
        )
        half = len(text) // 2
        for piece in (text[:half], text[half:]):
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for n, call in enumerate(calls):
        name, args, cid = _call_parts(call, n, "toolu")
        events.append(
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": cid, "name": name, "input": {}},
                },
            )
        )
        raw = args if isinstance(args, str) else json.dumps(args)
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": raw},
                },
            )
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": usage[1]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return Stream(events)


def gemini_response(
    text: Optional[str] = None,
    tool_calls: Iterable[Call] = (),
    *,
    finish_reason: str = "STOP",
    block_reason: Optional[str] = None,
    model: str = "gemini-2.5-flash",
    usage: tuple[int, int] = (10, 5),
    with_ids: bool = False,
) -> dict:
    """A Gemini ``generateContent`` response (REST JSON, camelCase)."""
    parts: list[dict[str, Any]] = [{"text": text}] if text is not None else []
    for index, call in enumerate(tool_calls):
        name, args, cid = _call_parts(call, index, "fc")
        function_call = {"name": name, "args": args}
        if with_ids:
            function_call["id"] = cid
        parts.append({"functionCall": function_call})
    body: dict[str, Any] = {
        "modelVersion": model,
        "responseId": "resp-1",
        "usageMetadata": {
            "promptTokenCount": usage[0],
            "candidatesTokenCount": usage[1],
            "totalTokenCount": sum(usage),
        },
    }
    if block_reason:
        body["promptFeedback"] = {"blockReason": block_reason}
        body["candidates"] = []
    else:
        body["candidates"] = [{"content": {"role": "model", "parts": parts}, "finishReason": finish_reason, "index": 0}]
    return body


def gemini_stream(
    text: str = "",
    tool_calls: Iterable[Call] = (),
    *,
    model: str = "gemini-2.5-flash",
    usage: tuple[int, int] = (10, 5),
) -> Stream:
    """A streamed Gemini answer (``streamGenerateContent?alt=sse``): the text in two chunks, then the calls."""
    half = len(text) // 2
    pieces = [{"text": piece} for piece in (text[:half], text[half:]) if piece]
    calls = [
        {"functionCall": {"name": name, "args": args}}
        for name, args, _ in (_call_parts(c, i, "fc") for i, c in enumerate(tool_calls))
    ]
    chunks = [[piece] for piece in pieces] + ([calls] if calls else [])
    events = []
    for index, parts in enumerate(chunks):
        last = index == len(chunks) - 1
        chunk: dict[str, Any] = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "index": 0, **({"finishReason": "STOP"} if last else {})}
            ],
            "modelVersion": model,
            "responseId": "resp-1",
        }
        if last:
            chunk["usageMetadata"] = {
                "promptTokenCount": usage[0],
                "candidatesTokenCount": usage[1],
                "totalTokenCount": sum(usage),
            }
        events.append((None, chunk))
    return Stream(events)


def bedrock_converse(
    text: Optional[str] = None,
    tool_calls: Iterable[Call] = (),
    *,
    stop_reason: Optional[str] = None,
    usage: tuple[int, int] = (10, 5),
) -> dict:
    """A Bedrock ``Converse`` response."""
    content: list[dict[str, Any]] = [{"text": text}] if text is not None else []
    calls = list(tool_calls)
    for index, call in enumerate(calls):
        name, args, cid = _call_parts(call, index, "tooluse")
        content.append({"toolUse": {"toolUseId": cid, "name": name, "input": args}})
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason or ("tool_use" if calls else "end_turn"),
        "usage": {"inputTokens": usage[0], "outputTokens": usage[1], "totalTokens": sum(usage)},
        "metrics": {"latencyMs": 12},
    }


def _event_message(event_type: str, payload: dict) -> bytes:
    """One AWS event-stream message (prelude, CRCs, string headers, JSON payload), as botocore reads it."""
    headers = b""
    for name, value in ((":event-type", event_type), (":content-type", "application/json"), (":message-type", "event")):
        headers += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value.encode()
    body = json.dumps(payload).encode()
    prelude = struct.pack(">II", 12 + len(headers) + len(body) + 4, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def bedrock_converse_stream(
    text: str = "", tool_calls: Iterable[Call] = (), *, usage: tuple[int, int] = (10, 5)
) -> Reply:
    """A Bedrock ``ConverseStream`` answer: AWS event-stream messages (text in two deltas, each call's
    input as JSON text), ``messageStop`` and ``metadata``."""
    calls = list(tool_calls)
    events: list[tuple[str, dict]] = [("messageStart", {"role": "assistant"})]
    index = 0
    if text:
        half = len(text) // 2
        events += [
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": piece}})
            for piece in (text[:half], text[half:])
            if piece
        ]
        events.append(("contentBlockStop", {"contentBlockIndex": 0}))
        index = 1
    for n, call in enumerate(calls):
        name, args, cid = _call_parts(call, n, "tooluse")
        events.append(
            ("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": cid, "name": name}}})
        )
        raw = args if isinstance(args, str) else json.dumps(args)
        events.append(("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": raw}}}))
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
        index += 1
    events.append(("messageStop", {"stopReason": "tool_use" if calls else "end_turn"}))
    events.append(
        (
            "metadata",
            {
                "usage": {"inputTokens": usage[0], "outputTokens": usage[1], "totalTokens": sum(usage)},
                "metrics": {"latencyMs": 12},
            },
        )
    )
    return Reply(
        raw=b"".join(_event_message(kind, payload) for kind, payload in events),
        content_type="application/vnd.amazon.eventstream",
    )


#: error bodies per wire format: (status, kind of error) → what that provider sends
def error_reply(
    wire: str, status: int, message: str, *, code: Optional[str] = None, headers: Optional[dict[str, str]] = None
) -> Reply:
    """A provider's error answer in its own shape: ``wire`` is openai, anthropic, gemini or bedrock;
    ``code`` is the provider's error code/type (OpenAI ``code``, Anthropic ``type``, Gemini reason,
    Bedrock exception name)."""
    headers = dict(headers or {})
    if wire == "openai":
        body: Any = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}
    elif wire == "anthropic":
        body = {"type": "error", "error": {"type": code or "invalid_request_error", "message": message}}
    elif wire == "gemini":
        body = {
            "error": {
                "code": status,
                "message": message,
                "status": code or "INVALID_ARGUMENT",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": code or "",
                        "domain": "googleapis.com",
                    }
                ],
            }
        }
    elif wire == "bedrock":
        body = {"message": message}
        headers.setdefault("x-amzn-errortype", f"{code or 'ValidationException'}:http://internal.amazon.com/")
    else:
        raise ValueError(f"unknown wire format {wire!r}")
    return Reply(body, status=status, headers=headers)
