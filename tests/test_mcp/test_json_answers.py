"""JsonAnswers (issue 26, item 14): an event stream whose first event is the answer goes out as one JSON
body; anything else first keeps the stream exactly as the app sent it. Driven as a real ASGI app."""

from __future__ import annotations

import asyncio

import pytest

from workbench.mcp._json_answers import JsonAnswers

ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":0.5}}'
STREAM_HEADERS = [(b"content-type", b"text/event-stream"), (b"mcp-session-id", b"s1"), (b"cache-control", b"no-cache")]


def _run(bodies, *, method="POST", headers=STREAM_HEADERS):
    """What reaches the server (the messages sent) when an app sends ``bodies`` after its start."""

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for body in bodies:
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    asyncio.run(JsonAnswers(app)({"type": "http", "method": method, "headers": []}, receive, send))
    return sent


def _event(data, end=b"\r\n\r\n"):
    return b"event: message\r\ndata: " + data + end


#: the event a resumable stream opens with (an id, a retry, empty data)
PRIMING = b"id: s1-1\r\nretry: 1000\r\ndata: \r\n\r\n"


@pytest.mark.parametrize(
    "bodies",
    [
        [_event(ANSWER)],
        [_event(ANSWER)[:20], _event(ANSWER)[20:]],
        [_event(ANSWER, b"\n\n").replace(b"\r\n", b"\n")],
        [b"data: " + ANSWER + b"\r\n\r\n"],
        [b"id: 1\r\n" + _event(ANSWER)],
        [PRIMING + b"id: s1-2\r\n" + _event(ANSWER)],
        [PRIMING, b"id: s1-2\r\n" + _event(ANSWER)],
        [PRIMING[:9], PRIMING[9:] + _event(ANSWER)],
    ],
    ids=["one-body", "split", "lf", "no-event-name", "with-id", "primed", "primed-then", "primed-split"],
)
def test_an_answer_first_is_sent_as_json(bodies):
    start, body = _run(bodies)
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/json" and headers[b"mcp-session-id"] == b"s1"
    assert b"cache-control" not in headers and headers[b"content-length"] == str(len(ANSWER)).encode()
    assert body == {"type": "http.response.body", "body": ANSWER, "more_body": False}


@pytest.mark.parametrize(
    "first",
    [
        _event(NOTE),
        b": ping - 2026-01-01\r\n\r\n",
        _event(ANSWER) + _event(NOTE),
        PRIMING + _event(NOTE),
        PRIMING + b": ping\r\n\r\n",
    ],
    ids=["notification", "keep-alive", "two-events", "primed-notification", "primed-keep-alive"],
)
def test_anything_else_first_keeps_the_stream_as_sent(first):
    sent = _run([first, _event(ANSWER)])
    assert sent[0]["headers"] == STREAM_HEADERS
    assert b"".join(m.get("body", b"") for m in sent[1:]) == first + _event(ANSWER)
    assert sent[-1]["more_body"] is False


def test_other_responses_pass_through():
    plain = [(b"content-type", b"application/json")]
    assert _run([ANSWER], headers=plain)[0]["headers"] == plain
    assert _run([_event(ANSWER)], method="GET")[0]["headers"] == STREAM_HEADERS
    empty = _run([])
    assert empty[0]["headers"] == STREAM_HEADERS and empty[-1] == {
        "type": "http.response.body",
        "body": b"",
        "more_body": False,
    }


def test_a_primed_stream_that_ends_without_an_answer_is_sent_as_it_was():
    """A tool that releases its stream mid-call: the client gets the priming event, to resume from."""
    sent = _run([PRIMING])
    assert sent[0]["headers"] == STREAM_HEADERS
    assert b"".join(m.get("body", b"") for m in sent[1:]) == PRIMING and sent[-1]["more_body"] is False
