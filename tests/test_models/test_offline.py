"""Offline models: SchemaModel (schema-drawn calls), record() and ReplayModel (cassettes)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.model_servers import model_server, openai_chat  # noqa: F401
from tests.test_models.test_providers import KEY, add, greet, make
from workbench import tool
from workbench.executor import SequentialExecutor
from workbench.models import ModelError, ReplayModel, SchemaModel, ScriptedModel, as_messages, record
from workbench.registry import ToolRegistry


@tool
def book(city: str, nights: int, guests: list[str], when: dict) -> str:
    """Book a hotel."""
    return f"{city} for {nights}"


def _results(turn, tools):
    return SequentialExecutor().run(turn.tool_calls, ToolRegistry(tools))


def test_schema_model_calls_every_offered_tool_with_valid_arguments_then_answers():
    model = SchemaModel(seed=3)
    tools = [add, greet, book]
    messages = as_messages("do things")
    first = model.complete(messages, tools=tools)
    assert [c["name"] for c in first.tool_calls] == ["add", "greet", "book"] and first.stop_reason == "tool_use"
    for call, t in zip(first.tool_calls, tools):
        jsonschema.validate(call["input"], t.spec.parameters)
    results = _results(first, tools)
    assert all(r.ok for r in results)
    messages += [
        {"role": "assistant", "content": "", "tool_calls": first.tool_calls},
        {"role": "tool", "results": results},
    ]
    second = model.complete(messages, tools=tools)
    assert second.stop_reason == "end_turn" and not second.tool_calls
    answer = json.loads(second.text)
    assert answer["add"] == first.tool_calls[0]["input"]["a"] + first.tool_calls[0]["input"]["b"]
    assert set(answer) == {"add", "greet", "book"}
    assert second.model == "schema:schema" and second.usage.input_tokens > 0


def test_schema_model_is_deterministic_across_processes():
    model = SchemaModel(seed=7)
    here = model.complete(as_messages("x"), tools=[add, greet]).tool_calls
    code = (
        "from tests.test_models.test_providers import add, greet; from workbench.models import SchemaModel, as_messages;"
        "import json; print(json.dumps(SchemaModel(seed=7).complete(as_messages('x'), tools=[add, greet]).tool_calls))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    assert json.loads(there) == here
    assert SchemaModel(seed=8).complete(as_messages("x"), tools=[add, greet]).tool_calls != here


def test_schema_model_call_tools_and_tool_choice_narrow_the_calls():
    assert [
        c["name"] for c in SchemaModel(call_tools=["greet"]).complete(as_messages("x"), tools=[add, greet]).tool_calls
    ] == ["greet"]
    assert [
        c["name"] for c in SchemaModel().complete(as_messages("x"), tools=[add, greet], tool_choice="add").tool_calls
    ] == ["add"]
    none = SchemaModel().complete(as_messages("x"), tools=[add, greet], tool_choice="none")
    assert none.tool_calls == [] and none.text == "success (no tool calls)"
    assert SchemaModel(text="fixed").complete(as_messages("x")).text == "fixed"
    with pytest.raises(ValueError, match="call_tools"):
        SchemaModel(call_tools="add")


def test_schema_model_reports_an_error_result_and_calls_again_for_a_new_question():
    model = SchemaModel()
    first = model.complete(as_messages("x"), tools=[add])
    failed = {
        "toolUseId": first.tool_calls[0]["toolUseId"],
        "status": "error",
        "content": [{"text": "boom"}],
        "metadata": {"error": "boom"},
    }
    messages = as_messages("x") + [
        {"role": "assistant", "content": "", "tool_calls": first.tool_calls},
        {"role": "tool", "results": [failed]},
    ]
    assert json.loads(model.complete(messages, tools=[add]).text) == {"add": {"error": "boom"}}
    again = model.complete(
        messages + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}], tools=[add]
    )
    assert again.tool_calls and again.tool_calls[0]["toolUseId"] != first.tool_calls[0]["toolUseId"]
    assert asyncio.run(model.acomplete(as_messages("x"), tools=[add])).tool_calls == first.tool_calls


def _conversation(model, tools):
    messages = as_messages("add 2 and 3", system="brief")
    first = model.complete(messages, tools=tools, temperature=0)
    results = _results(first, tools)
    messages += [
        {"role": "assistant", "content": first.text, "tool_calls": first.tool_calls},
        {"role": "tool", "results": results},
    ]
    return first, model.complete(messages, tools=tools, temperature=0), messages


def test_record_then_replay_gives_the_same_turns_without_the_network(model_server, tmp_path):
    cassette = tmp_path / "cassette.json"
    model_server.script([openai_chat(None, [("add", {"a": 2, "b": 3}, "c1")]), openai_chat("5")])
    recorder = record(make("openai", model_server), cassette)
    live_first, live_second, _ = _conversation(recorder, [add])
    assert recorder.id == "openai:gpt-4.1-mini" and len(model_server.requests) == 2

    replay = ReplayModel(cassette)
    assert replay.id == "openai:gpt-4.1-mini"
    first, second, _ = _conversation(replay, [add])
    assert first == live_first and second == live_second
    assert len(model_server.requests) == 2  # nothing more was sent


def test_a_cassette_never_holds_the_key(model_server, tmp_path):
    cassette = tmp_path / "c.json"
    model_server.script([openai_chat(f"the key {KEY}")])
    recorder = record(make("openai", model_server), cassette)
    recorder.complete(as_messages(f"my key is {KEY}"), extra_headers={"Authorization": f"Bearer {KEY}"})
    text = cassette.read_text()
    assert KEY not in text and "***" in text
    assert KEY not in repr(recorder)


def test_a_recorded_failure_is_raised_again_on_replay(model_server, tmp_path):
    from tests.model_servers import error_reply

    cassette = tmp_path / "c.json"
    model_server.script([error_reply("openai", 404, "no such model", code="model_not_found")])
    with pytest.raises(ModelError):
        record(make("openai", model_server, max_retries=0), cassette).complete(as_messages("hi"))
    with pytest.raises(ModelError) as info:
        ReplayModel(cassette).complete(as_messages("hi"))
    assert info.value.kind == "not_found" and "no such model" in str(info.value)


def test_a_request_the_cassette_does_not_hold_is_a_mismatch_with_a_diff(tmp_path):
    cassette = tmp_path / "c.json"
    recorder = record(ScriptedModel(["one", "two"]), cassette)
    recorder.complete(as_messages("first question"), tools=[add])
    recorder.complete(as_messages("second question"), tools=[add], temperature=0)
    replay = ReplayModel(cassette)
    with pytest.raises(ModelError) as info:
        replay.complete(as_messages("second questoin"), tools=[add], temperature=0)
    error = info.value
    assert error.kind == "replay_mismatch" and "closest is #2" in str(error)
    assert '-      "content": "second question",' in str(error)
    assert '+      "content": "second questoin",' in str(error)
    assert replay.complete(as_messages("first question"), tools=[add]).text == "one"
    assert replay.complete(as_messages("first question"), tools=[add]).text == "one"  # repeats allowed


def test_equal_requests_replay_in_recorded_order(tmp_path):
    cassette = tmp_path / "c.json"
    recorder = record(ScriptedModel(["a", "b"]), cassette)
    assert [recorder.complete(as_messages("same")).text for _ in range(2)] == ["a", "b"]
    replay = ReplayModel(cassette)
    assert [replay.complete(as_messages("same")).text for _ in range(3)] == ["a", "b", "b"]


def test_replay_tells_what_is_wrong_with_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="record"):
        ReplayModel(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a version-1 cassette"):
        ReplayModel(tmp_path / "bad.json")


def test_record_and_replay_async(tmp_path):
    cassette = tmp_path / "c.json"

    async def both():
        recorder = record(SchemaModel(seed=1), cassette)
        live = await recorder.acomplete(as_messages("x"), tools=[add])
        return live, await ReplayModel(cassette).acomplete(as_messages("x"), tools=[add])

    live, replayed = asyncio.run(both())
    assert replayed == live and replayed.model == "schema:schema"
    assert json.loads(cassette.read_text())["model"] == "schema:schema"


def test_schema_model_counts_only_what_a_model_reads():
    """Its token estimate ignores a result's latency and timestamps (the same conversation, the same count)."""
    from workbench.models import SchemaModel
    from workbench.types import ToolResult

    def conversation(latency, stamp):
        result = ToolResult(
            toolUseId="1",
            status="success",
            content=[{"text": "21 degrees"}],
            metadata={"tool_name": "w", "latency_ms": latency},
            started_at=stamp,
            completed_at=stamp,
        )
        return [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": "", "tool_calls": [{"toolUseId": "1", "name": "w", "input": {}}]},
            {"role": "tool", "results": [result.model_dump(by_alias=True)]},
        ]

    model = SchemaModel(seed=0)
    first = model.complete(conversation(1.5, "2026-01-01T00:00:00.000Z")).usage.input_tokens
    again = model.complete(conversation(1234.56789, "2026-12-31T23:59:59.999Z")).usage.input_tokens
    assert first == again
