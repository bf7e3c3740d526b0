"""Provider failures become readable ModelErrors (kind, provider, model, the failed request kept);
rate limits are retried honouring Retry-After; keys never show in errors, turns or reprs."""

from __future__ import annotations

import json
import socket
import traceback

import pytest

from tests.model_servers import Reply, error_reply, model_server  # noqa: F401
from tests.test_models.test_providers import ANSWER, KEY, WIRES, add, make
from workbench.models import ModelError, as_messages
from workbench.models.openai import OpenAIModel

#: wire → the shape of its error bodies (tests/model_servers.error_reply)
ERROR_WIRE = {
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
}

#: (kind, wire → (status, provider's code, provider's message)) as each provider really answers
FAILURES = {
    "authentication": {
        "openai": (401, "invalid_api_key", f"Incorrect API key provided: {KEY}."),
        "anthropic": (401, "authentication_error", "invalid x-api-key"),
        "gemini": (400, "API_KEY_INVALID", "API key not valid. Please pass a valid API key."),
        "bedrock": (403, "UnrecognizedClientException", "The security token included in the request is invalid."),
    },
    "not_found": {
        "openai": (404, "model_not_found", "The model `gpt-9` does not exist or you do not have access to it."),
        "anthropic": (404, "not_found_error", "model: claude-9"),
        "gemini": (404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta"),
        "bedrock": (400, "ValidationException", "The provided model identifier is invalid."),
    },
    "context_length": {
        "openai": (400, "context_length_exceeded", "This model's maximum context length is 128000 tokens."),
        "anthropic": (400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
        "gemini": (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        ),
        "bedrock": (400, "ValidationException", "Input is too long for requested model."),
    },
    "refusal": {
        "openai": (400, "content_policy_violation", "Your request was rejected by our safety system."),
    },
}
CASES = [(kind, wire) for kind, table in FAILURES.items() for wire in WIRES if ERROR_WIRE[wire] in table]


@pytest.mark.parametrize("kind, wire", CASES)
def test_a_provider_failure_is_a_model_error_with_its_kind(kind, wire, model_server):
    status, code, message = FAILURES[kind][ERROR_WIRE[wire]]
    model_server.script([error_reply(ERROR_WIRE[wire], status, message, code=code)])
    model = make(wire, model_server, max_retries=0)
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"), tools=[add])
    error = info.value
    assert error.kind == kind and error.provider == wire and error.model == model.name
    assert str(error).startswith(f"{wire} model '{model.name}': {kind.replace('_', ' ')} (HTTP {status})")
    assert message.replace(KEY, "***") in str(error)
    assert error.status_code == status
    assert error.turn.request == model.prepare(as_messages("hi"), tools=[add])[0]  # nothing lost
    assert KEY not in str(error) and KEY not in json.dumps(error.turn.to_dict())
    assert len(model_server.requests) == 1  # not retried


@pytest.mark.parametrize("wire", WIRES)
def test_a_rate_limit_is_retried_after_the_retry_after_delay(wire, model_server):
    limited = error_reply(
        ERROR_WIRE[wire], 429, "Rate limit reached", code="rate_limit_exceeded", headers={"Retry-After": "1"}
    )
    model_server.script([limited, ANSWER[wire]("made it")])
    turn = make(wire, model_server, max_retries=2).complete(as_messages("hi"))
    assert turn.text == "made it"
    first, second = model_server.requests
    assert 0.9 <= second.time - first.time < 3.0  # Retry-After: 1 was honoured (not the SDK's 0.5 s backoff)


@pytest.mark.parametrize("wire", WIRES)
def test_a_rate_limit_that_persists_is_reported_with_the_hint(wire, model_server):
    limited = error_reply(
        ERROR_WIRE[wire], 429, "Rate limit reached", code="rate_limit_exceeded", headers={"Retry-After": "0.05"}
    )
    model_server.script([limited, limited])
    with pytest.raises(ModelError) as info:
        make(wire, model_server, max_retries=1).complete(as_messages("hi"))
    assert info.value.kind == "rate_limit" and info.value.retry_after == 0.05
    assert len(model_server.requests) == 2 and "retried 1 time(s)" in str(info.value)


@pytest.mark.parametrize("wire", WIRES)
def test_a_slow_provider_is_a_timeout(wire, model_server):
    model_server.script([Reply(ANSWER[wire]("late"), delay=1.5)])
    model = make(wire, model_server, max_retries=0, timeout=0.3)
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"))
    assert info.value.kind == "timeout" and "0.3 s" in str(info.value)
    assert info.value.turn.request and info.value.turn.latency_ms >= 250


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("wire", WIRES)
def test_an_unreachable_server_is_a_connection_error(wire):
    class Nowhere:
        url = f"http://127.0.0.1:{_closed_port()}"

    with pytest.raises(ModelError) as info:
        make(wire, Nowhere, max_retries=0, timeout=5).complete(as_messages("hi"))
    assert info.value.kind == "connection" and "cannot reach" in str(info.value)


def test_a_missing_key_names_the_environment_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError) as info:
        OpenAIModel("gpt-4.1-mini").complete(as_messages("hi"))
    assert info.value.kind == "authentication" and "OPENAI_API_KEY" in str(info.value)


@pytest.mark.parametrize("wire", WIRES)
def test_the_key_never_shows_in_a_turn_a_repr_or_an_error(wire, model_server):
    """The server echoes the key back (in the answer and in an error) — it is masked everywhere we keep it."""
    echo = ANSWER[wire](f"your key is {KEY}")
    model_server.script([echo, error_reply(ERROR_WIRE[wire], 400, f"bad key {KEY}", code="invalid_request_error")])
    model = make(wire, model_server, max_retries=0)
    turn = (
        model.complete(as_messages("hi"), extra_headers={"x-api-key": KEY})
        if wire.startswith("openai")
        else model.complete(as_messages("hi"))
    )
    assert KEY not in json.dumps(turn.to_dict()) and "***" in json.dumps(turn.response)
    assert KEY not in repr(model) and KEY not in repr(turn)
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"))
    assert KEY not in str(info.value) and KEY not in repr(info.value) and "***" in str(info.value)
    assert KEY not in json.dumps(info.value.turn.to_dict())
    assert info.value.__cause__ is None and info.value.__context__ is None  # the SDK's own error is not chained
    assert KEY not in "".join(traceback.format_exception(info.value))


def test_the_key_from_the_environment_is_used_and_masked(monkeypatch, model_server):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model_server.script([ANSWER["openai"](f"echo {KEY}")])
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1")
    turn = model.complete(as_messages("hi"))
    assert model_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in json.dumps(turn.to_dict()) and KEY not in repr(model)


@pytest.mark.parametrize("wire", ["gemini", "bedrock"])
def test_a_retry_after_beyond_two_minutes_is_reported_at_once(wire, model_server):
    model_server.script(
        [
            error_reply(
                ERROR_WIRE[wire], 429, "quota exhausted", code="RESOURCE_EXHAUSTED", headers={"Retry-After": "3600"}
            )
        ]
    )
    with pytest.raises(ModelError) as info:
        make(wire, model_server, max_retries=3).complete(as_messages("hi"))
    assert info.value.kind == "rate_limit" and info.value.retry_after == 3600
    assert len(model_server.requests) == 1
