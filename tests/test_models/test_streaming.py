"""``stream=True``: the streamed answer is assembled into the same ModelTurn a plain call gives."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.model_servers import (  # noqa: F401
    Stream,
    anthropic_message,
    anthropic_stream,
    bedrock_converse,
    bedrock_converse_stream,
    gemini_response,
    gemini_stream,
    model_server,
    openai_chat,
    openai_chat_stream,
    openai_responses,
)
from tests.test_models.test_providers import add, greet, make
from workbench.models import as_messages


def _same_turn(streamed, plain):
    assert (streamed.text, streamed.tool_calls, streamed.stop_reason, streamed.usage) == (
        plain.text,
        plain.tool_calls,
        plain.stop_reason,
        plain.usage,
    )


def test_openai_chat_stream_assembles_text_calls_and_usage(model_server):
    calls = [("add", {"a": 1, "b": 2}, "c1"), ("greet", {"name": "Ada", "excited": True}, "c2")]
    model_server.script(
        [
            openai_chat_stream("Let me add those.", calls, usage=(12, 7)),
            openai_chat("Let me add those.", calls, usage=(12, 7)),
        ]
    )
    model = make("openai", model_server)
    streamed = model.complete(as_messages("go"), tools=[add, greet], stream=True)
    plain = model.complete(as_messages("go"), tools=[add, greet])
    _same_turn(streamed, plain)
    assert streamed.text == "Let me add those." and [c["toolUseId"] for c in streamed.tool_calls] == ["c1", "c2"]
    sent = model_server.requests[0].json
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert streamed.response["choices"][0]["finish_reason"] == "tool_calls"


def test_openai_chat_stream_keeps_broken_arguments_as_raw_text(model_server):
    model_server.script([openai_chat_stream("", [("add", '{"a": 1, "b"', "c1")])])
    turn = make("openai", model_server).complete(as_messages("go"), tools=[add], stream=True)
    assert turn.tool_calls == [{"toolUseId": "c1", "name": "add", "input": '{"a": 1, "b"'}]


def test_openai_chat_stream_async(model_server):
    model_server.script([openai_chat_stream("hello there")])
    turn = asyncio.run(make("openai", model_server).acomplete(as_messages("hi"), stream=True))
    assert turn.text == "hello there" and turn.stop_reason == "end_turn" and turn.usage.output_tokens == 5


def test_openai_responses_stream_keeps_the_final_response(model_server):
    final = openai_responses("done", [("add", {"a": 1, "b": 2}, "r1")])
    model_server.script(
        [
            Stream(
                [
                    (
                        "response.created",
                        {
                            "type": "response.created",
                            "sequence_number": 0,
                            "response": {**final, "status": "in_progress", "output": []},
                        },
                    ),
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "sequence_number": 1,
                            "item_id": "msg_1",
                            "output_index": 0,
                            "content_index": 0,
                            "delta": "done",
                            "logprobs": [],
                        },
                    ),
                    ("response.completed", {"type": "response.completed", "sequence_number": 2, "response": final}),
                ]
            )
        ]
    )
    turn = make("openai-responses", model_server).complete(as_messages("go"), tools=[add], stream=True)
    assert turn.text == "done" and turn.tool_calls[0]["toolUseId"] == "r1" and turn.stop_reason == "tool_use"
    assert model_server.requests[0].json["stream"] is True


@pytest.mark.parametrize("run", ["sync", "async"])
def test_anthropic_stream_assembles_through_the_sdk(run, model_server):
    calls = [("greet", {"name": "Ada"}, "t1")]
    model_server.script(
        [
            anthropic_stream("Greeting now.", calls, usage=(9, 4)),
            anthropic_message("Greeting now.", calls, usage=(9, 4)),
        ]
    )
    model = make("anthropic", model_server)
    if run == "sync":
        streamed = model.complete(as_messages("go"), tools=[greet], stream=True)
    else:
        streamed = asyncio.run(model.acomplete(as_messages("go"), tools=[greet], stream=True))
    plain = model.complete(as_messages("go"), tools=[greet])
    _same_turn(streamed, plain)
    assert model_server.requests[0].json["stream"] is True


@pytest.mark.parametrize("run", ["sync", "async"])
def test_gemini_stream_joins_the_chunks(run, model_server):
    calls = [("add", {"a": 1, "b": 2})]
    model_server.script(
        [
            gemini_stream("Adding them now.", calls, usage=(8, 6)),
            gemini_response("Adding them now.", calls, usage=(8, 6)),
        ]
    )
    model = make("gemini", model_server)
    if run == "sync":
        streamed = model.complete(as_messages("go"), tools=[add], stream=True)
    else:
        streamed = asyncio.run(model.acomplete(as_messages("go"), tools=[add], stream=True))
    plain = model.complete(as_messages("go"), tools=[add])
    assert (streamed.text, streamed.stop_reason, streamed.usage) == (plain.text, plain.stop_reason, plain.usage)
    assert [(c["name"], c["input"]) for c in streamed.tool_calls] == [("add", {"a": 1, "b": 2})]
    assert ":streamGenerateContent" in model_server.requests[0].path
    assert "stream" not in json.dumps(model_server.requests[0].json)


def test_bedrock_converse_stream_joins_the_events(model_server):
    calls = [("add", {"a": 1, "b": 2}, "b1"), ("greet", '{"name": "Ada"', "b2")]
    model_server.script(
        [
            bedrock_converse_stream("Adding now.", calls, usage=(7, 3)),
            bedrock_converse("Adding now.", calls[:1], usage=(7, 3)),
        ]
    )
    model = make("bedrock", model_server)
    streamed = model.complete(as_messages("go"), tools=[add, greet], stream=True)
    assert model_server.requests[0].path.endswith("/converse-stream")
    assert "stream" not in json.dumps(model_server.requests[0].json)
    assert streamed.text == "Adding now." and streamed.stop_reason == "tool_use" and streamed.usage.output_tokens == 3
    assert streamed.tool_calls == [
        {"toolUseId": "b1", "name": "add", "input": {"a": 1, "b": 2}},
        {"toolUseId": "b2", "name": "greet", "input": '{"name": "Ada"'},
    ]
    plain = model.complete(as_messages("go"), tools=[add, greet])
    assert plain.tool_calls == streamed.tool_calls[:1]
