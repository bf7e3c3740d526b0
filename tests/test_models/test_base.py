"""The model interface's base: turns, messages, ScriptedModel, and model names."""

import asyncio

import pytest

from workbench import tool
from workbench.models import ModelError, ModelTurn, ScriptedModel, Usage, as_messages, get, tool_specs


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_scripted_model_answers_in_order_and_records_requests():
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 1, "b": 2}}]}, "3"])
    first = model.complete(as_messages("add 1 and 2"), tools=[add])
    assert [c["name"] for c in first.tool_calls] == ["add"] and first.stop_reason == "tool_use"
    assert first.tool_calls[0]["input"] == {"a": 1, "b": 2} and first.tool_calls[0]["toolUseId"]
    second = asyncio.run(model.acomplete(as_messages("again")))
    assert second.text == "3" and second.stop_reason == "end_turn" and second.model == "scripted:scripted"
    assert model.calls[0]["tools"] == ["add"]
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("once more"))
    assert info.value.kind == "script_exhausted" and "2 turn(s)" in str(info.value)


def test_scripted_turn_function_sees_messages_and_tool_specs():
    model = ScriptedModel([lambda messages, tools: f"{len(messages)} messages, tools {[t.name for t in tools]}"])
    assert model.complete(as_messages("hi", system="be brief"), tools=[add]).text == "2 messages, tools ['add']"


def test_turn_round_trips_through_a_dict():
    turn = ModelTurn(
        text="x",
        tool_calls=[{"toolUseId": "1", "name": "add", "input": {"a": 1}}],
        stop_reason="tool_use",
        usage=Usage(3, 4),
        latency_ms=1.5,
        model="m:n",
    )
    assert ModelTurn.from_dict(turn.to_dict()) == turn
    assert (Usage(1, 2) + Usage(3, 4)).total_tokens == 10


def test_messages_and_specs_are_checked():
    assert as_messages([{"role": "user", "content": "q"}], system="s")[0] == {"role": "system", "content": "s"}
    with pytest.raises(ValueError, match="message 0"):
        as_messages([{"role": "robot"}])
    assert [s.name for s in tool_specs([add, add.spec, add.spec.to_json()])] == ["add"] * 3
    with pytest.raises(TypeError, match="cannot offer"):
        tool_specs([42])


def test_get_names_the_known_providers():
    with pytest.raises(ValueError, match="provider:model"):
        get("gpt-4")
    with pytest.raises(ValueError, match="unknown model provider 'nope'"):
        get("nope:x")
    model = ScriptedModel(["hi"])
    assert get(model) is model
