"""Every provider model, through its real SDK, against the local scripted server (tests/model_servers.py):
what the SDK sent (tools in the provider's format, tool_choice, tool results in the next request)
and what came back (calls, text, stop reason, usage, the provider's JSON)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.model_servers import (  # noqa: F401
    anthropic_message,
    bedrock_converse,
    gemini_response,
    model_server,
    openai_chat,
    openai_responses,
)
from workbench import tool
from workbench.models import ModelTurn, as_messages, get
from workbench.models.anthropic import AnthropicModel
from workbench.models.bedrock import BedrockModel
from workbench.models.gemini import GeminiModel
from workbench.models.openai import OllamaModel, OpenAIModel, OpenAIResponsesModel
from workbench.providers import format_tool_results, to_provider_format, tool_choice_to_provider
from workbench.types import ToolResult

KEY = "sk-SECRET-4f9c2b7e1d"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def greet(name: str, excited: bool = False) -> str:
    """Greet someone."""
    return f"hello {name}" + ("!" if excited else "")


def make(wire: str, server, **options):
    """The model for ``wire`` pointed at ``server`` with the fake key."""
    if wire == "openai":
        return OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key=KEY, **options)
    if wire == "openai-responses":
        return OpenAIResponsesModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key=KEY, **options)
    if wire == "anthropic":
        return AnthropicModel("claude-test", base_url=server.url, api_key=KEY, **options)
    if wire == "gemini":
        return GeminiModel("gemini-2.5-flash", base_url=server.url, api_key=KEY, **options)
    return BedrockModel(
        "anthropic.claude-3-haiku",
        base_url=server.url,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key=KEY,
        region="us-east-1",
        **options,
    )


#: wire → the builder of that provider's answer body
ANSWER = {
    "openai": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic_message,
    "gemini": gemini_response,
    "bedrock": bedrock_converse,
}
WIRES = list(ANSWER)

#: wire → (path the SDK posts to, where the tools are in the body, where the conversation is)
PATHS = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/models/gemini-2.5-flash:generateContent",
    "bedrock": "/model/anthropic.claude-3-haiku/converse",
}


def sent_tools(wire, body):
    if wire == "gemini":
        return _lower_types(body["tools"][0]["functionDeclarations"])
    if wire == "bedrock":
        return body["toolConfig"]["tools"]
    return body["tools"]


def sent_choice(wire, body):
    if wire == "gemini":
        config = body["toolConfig"]["functionCallingConfig"]
        return {
            "function_calling_config": {
                {"allowedFunctionNames": "allowed_function_names"}.get(k, k): v for k, v in config.items()
            }
        }
    if wire == "bedrock":
        return body["toolConfig"]["toolChoice"]
    return body["tool_choice"]


def conversation(wire, body):
    return body.get(
        {
            "openai": "messages",
            "openai-responses": "input",
            "anthropic": "messages",
            "gemini": "contents",
            "bedrock": "messages",
        }[wire]
    )


def _lower_types(value):
    if isinstance(value, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else _lower_types(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_lower_types(v) for v in value]
    return value


@pytest.mark.parametrize("wire", WIRES)
def test_a_tool_round_trip_goes_out_and_comes_back_in_the_providers_format(wire, model_server):
    model_server.script([ANSWER[wire](None, [("add", {"a": 1, "b": 2}, "call-7")]), ANSWER[wire]("It is 3.")])
    model = make(wire, model_server)
    messages = as_messages("add 1 and 2", system="Be brief.")
    first = model.complete(messages, tools=[add, greet])

    assert first.tool_calls == [
        {
            "toolUseId": "call-7" if wire != "gemini" else first.tool_calls[0]["toolUseId"],
            "name": "add",
            "input": {"a": 1, "b": 2},
        }
    ]
    assert first.stop_reason == "tool_use" and first.usage.input_tokens == 10 and first.usage.output_tokens == 5
    assert first.model == f"{wire}:{model.name}" and first.latency_ms > 0
    sent = model_server.requests[0]
    assert sent.path.endswith(PATHS[wire])
    expected = [to_provider_format(t, wire) for t in (add, greet)]
    assert sent_tools(wire, sent.json) == (_lower_types(expected) if wire == "gemini" else expected)
    assert first.request == json.loads(json.dumps(first.request))  # JSON, as sent
    assert first.response and isinstance(first.response, dict)

    result = ToolResult(
        toolUseId=first.tool_calls[0]["toolUseId"],
        status="success",
        content=[{"json": 3}],
        metadata={"tool_name": "add"},
    )
    messages += [
        {"role": "assistant", "content": first.text, "tool_calls": first.tool_calls},
        {"role": "tool", "results": [result]},
    ]
    second = model.complete(messages, tools=[add, greet])
    assert second.text == "It is 3." and second.stop_reason == "end_turn" and second.tool_calls == []
    last = conversation(wire, model_server.requests[1].json)[-1]
    assert last == format_tool_results(wire, [result])[0]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("choice", ["any", "greet", {"tool": {"name": "add"}}])
def test_tool_choice_is_sent_in_the_providers_form(wire, choice, model_server):
    model_server.script([ANSWER[wire]("ok")])
    make(wire, model_server).complete(as_messages("hi"), tools=[add, greet], tool_choice=choice)
    spark = {"any": {"any": {}}, "greet": {"tool": {"name": "greet"}}}[choice] if isinstance(choice, str) else choice
    assert sent_choice(wire, model_server.requests[0].json) == tool_choice_to_provider(spark, wire)


@pytest.mark.parametrize("wire", ["openai", "openai-responses"])
def test_a_call_with_broken_json_arguments_stays_a_call_with_the_raw_text(wire, model_server):
    model_server.script([ANSWER[wire](None, [("add", '{"a": 1, "b": ', "c1"), ("greet", {"name": "Ada"}, "c2")])])
    turn = make(wire, model_server).complete(as_messages("go"), tools=[add, greet])
    assert turn.tool_calls[0] == {"toolUseId": "c1", "name": "add", "input": '{"a": 1, "b": '}
    assert turn.tool_calls[1]["input"] == {"name": "Ada"} and turn.stop_reason == "tool_use"


def test_a_malformed_call_goes_back_to_the_model_as_it_came(model_server):
    """The assistant message holding a raw-string call is sent back verbatim, with its error result."""
    model_server.script([openai_chat("sorry")])
    messages = as_messages("go") + [
        {"role": "assistant", "content": "", "tool_calls": [{"toolUseId": "c1", "name": "add", "input": '{"a": 1,'}]},
        {
            "role": "tool",
            "results": [
                {
                    "toolUseId": "c1",
                    "status": "error",
                    "content": [{"text": "bad JSON"}],
                    "metadata": {"error": "arguments are not valid JSON"},
                }
            ],
        },
    ]
    make("openai", model_server).complete(messages, tools=[add])
    sent = model_server.requests[0].json["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == '{"a": 1,'
    assert sent[2]["role"] == "tool" and "not valid JSON" in sent[2]["content"]


#: (wire, the provider's way of stopping, the normalised stop reason)
STOPS = [
    ("openai", dict(finish_reason="length"), "max_tokens"),
    ("openai", dict(finish_reason="content_filter"), "content_filter"),
    ("openai", dict(refusal="I can't help with that."), "refusal"),
    ("openai-responses", dict(status="incomplete", incomplete_reason="max_output_tokens"), "max_tokens"),
    ("openai-responses", dict(refusal="No."), "refusal"),
    ("anthropic", dict(stop_reason="max_tokens"), "max_tokens"),
    ("anthropic", dict(stop_reason="refusal"), "refusal"),
    ("anthropic", dict(stop_reason="stop_sequence"), "end_turn"),
    ("gemini", dict(finish_reason="MAX_TOKENS"), "max_tokens"),
    ("gemini", dict(finish_reason="SAFETY"), "content_filter"),
    ("gemini", dict(block_reason="PROHIBITED_CONTENT"), "content_filter"),
    ("bedrock", dict(stop_reason="max_tokens"), "max_tokens"),
    ("bedrock", dict(stop_reason="guardrail_intervened"), "content_filter"),
]


@pytest.mark.parametrize("wire, how, expected", STOPS)
def test_stop_reasons_are_normalised_and_the_raw_one_kept(wire, how, expected, model_server):
    text = None if "refusal" in how or "block_reason" in how else "partial"
    model_server.script([ANSWER[wire](text, **how)])
    turn = make(wire, model_server).complete(as_messages("hi"))
    assert turn.stop_reason == expected
    raw = next(iter(how.values()))
    assert raw in json.dumps(turn.response)
    if "refusal" in how:
        assert turn.text == how["refusal"]


@pytest.mark.parametrize("wire", WIRES)
def test_async_complete_goes_through_the_same_path(wire, model_server):
    model_server.script([ANSWER[wire](None, [("greet", {"name": "Ada"}, "g1")]), ANSWER[wire]("hi")])
    model = make(wire, model_server)

    async def two_turns():
        first = await model.acomplete(as_messages("greet Ada"), tools=[greet])
        return first, await model.acomplete(as_messages("again"), tools=[greet])

    first, second = asyncio.run(two_turns())
    assert first.tool_calls[0]["input"] == {"name": "Ada"} and second.text == "hi"
    assert len(model_server.requests) == 2


@pytest.mark.parametrize("wire", WIRES)
def test_params_default_on_the_model_and_turn_params_override(wire, model_server):
    model_server.script([ANSWER[wire]("a"), ANSWER[wire]("b")])
    model = make(wire, model_server, temperature=0.0, max_tokens=50)
    model.complete(as_messages("x"))
    model.complete(as_messages("y"), max_tokens=7)
    first, second = (r.json for r in model_server.requests)
    read = {
        "openai": lambda b: (b["temperature"], b["max_tokens"]),
        "openai-responses": lambda b: (b["temperature"], b["max_output_tokens"]),
        "anthropic": lambda b: (b["temperature"], b["max_tokens"]),
        "gemini": lambda b: (b["generationConfig"]["temperature"], b["generationConfig"]["maxOutputTokens"]),
        "bedrock": lambda b: (b["inferenceConfig"]["temperature"], b["inferenceConfig"]["maxTokens"]),
    }[wire]
    assert read(first) == (0.0, 50) and read(second) == (0.0, 7)


def test_system_messages_go_where_each_provider_wants_them(model_server):
    bodies = {}
    for wire in WIRES:
        model_server.reset()
        model_server.script([ANSWER[wire]("ok")])
        make(wire, model_server).complete(as_messages("q", system="S"))
        bodies[wire] = model_server.requests[0].json
    assert bodies["openai"]["messages"][0] == {"role": "system", "content": "S"}
    assert bodies["openai-responses"]["instructions"] == "S"
    assert bodies["anthropic"]["system"] == "S"
    assert bodies["gemini"]["systemInstruction"]["parts"] == [{"text": "S"}]
    assert bodies["bedrock"]["system"] == [{"text": "S"}]


def test_model_strings_name_the_classes_and_ollama_is_an_openai_compatible_server(model_server, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    expected = {
        "openai": OpenAIModel,
        "openai-responses": OpenAIResponsesModel,
        "anthropic": AnthropicModel,
        "gemini": GeminiModel,
        "bedrock": BedrockModel,
        "ollama": OllamaModel,
    }
    for prefix, cls in expected.items():
        model = get(f"{prefix}:some-model")
        assert type(model) is cls and model.id == f"{prefix}:some-model"
    ollama = get("ollama:llama3.2")
    assert (
        ollama.base_url == "http://localhost:11434/v1"
        and repr(ollama) == "<OllamaModel ollama:llama3.2 at http://localhost:11434/v1>"
    )
    monkeypatch.setenv("OLLAMA_HOST", model_server.url.removeprefix("http://"))
    model_server.script([openai_chat("from llama")])
    turn = get("ollama:llama3.2").complete(as_messages("hi"))
    assert turn.text == "from llama" and turn.model == "ollama:llama3.2"
    assert model_server.requests[0].path == "/v1/chat/completions"
    assert model_server.requests[0].headers["authorization"] == "Bearer ollama"


def test_strict_mode_sends_strict_tools_and_reads_nulls_back_as_absent(model_server):
    model_server.script([openai_chat(None, [("greet", {"name": "Ada", "excited": None}, "s1")])])
    turn = make("openai", model_server, strict=True).complete(as_messages("hi"), tools=[greet])
    sent = model_server.requests[0].json["tools"][0]
    assert sent == to_provider_format(greet, "openai", strict=True) and sent["function"]["strict"] is True
    assert turn.tool_calls[0]["input"] == {"name": "Ada"}


def test_a_turn_round_trips_through_its_dict(model_server):
    model_server.script([openai_chat(None, [("add", {"a": 1, "b": 2}, "x")])])
    turn = make("openai", model_server).complete(as_messages("hi"), tools=[add])
    again = ModelTurn.from_dict(json.loads(json.dumps(turn.to_dict())))
    assert again == turn


def test_gemini_thought_signatures_go_back_with_their_calls(model_server):
    """Gemini (2.5+, required by 3) signs function calls; the signature must come back with the call."""
    answer = gemini_response(None, [("add", {"a": 1, "b": 2})])
    answer["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "c2lnbmF0dXJlLTE="
    model_server.script([answer, gemini_response("3")])
    model = make("gemini", model_server)
    first = model.complete(as_messages("add"), tools=[add])
    result = ToolResult(toolUseId=first.tool_calls[0]["toolUseId"], status="success", content=[{"json": 3}])
    model.complete(
        as_messages("add")
        + [{"role": "assistant", "content": "", "tool_calls": first.tool_calls}, {"role": "tool", "results": [result]}],
        tools=[add],
    )
    call_part = model_server.requests[1].json["contents"][1]["parts"][0]
    assert call_part["functionCall"]["name"] == "add" and call_part["thoughtSignature"] == "c2lnbmF0dXJlLTE="
    assert model_server.requests[1].json["contents"][2]["parts"][0]["functionResponse"]["name"] == "add"


def test_importing_the_models_imports_no_sdk_and_a_missing_sdk_says_what_to_install():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['openai'] = None; import workbench.models as m;"
        "model = m.get('openai:gpt-4.1-mini', api_key='k');"
        "print([s for s in ('anthropic', 'google.genai', 'boto3') if s in sys.modules]);"
        "\ntry:\n model.complete('hi')\nexcept ImportError as e:\n print(e)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "the openai models need the 'openai' package: pip install openai"]


def test_bedrock_refuses_an_api_key_and_says_what_it_takes():
    with pytest.raises(TypeError, match="aws_access_key_id="):
        get("bedrock:anthropic.claude-3-haiku", api_key=KEY)


def test_anthropic_thinking_blocks_go_back_with_their_calls(model_server):
    """With extended thinking, the thinking blocks of a tool-use turn must be sent back unchanged."""
    answer = anthropic_message("Adding.", [("add", {"a": 1, "b": 2}, "t1")])
    thought = {"type": "thinking", "thinking": "1 + 2, use add", "signature": "sig-1"}
    answer["content"].insert(0, thought)
    model_server.script([answer, anthropic_message("3")])
    model = make("anthropic", model_server, thinking={"type": "enabled", "budget_tokens": 1024})
    first = model.complete(as_messages("add"), tools=[add])
    assert first.text == "Adding." and first.tool_calls[0]["toolUseId"] == "t1"
    result = ToolResult(toolUseId="t1", status="success", content=[{"json": 3}])
    model.complete(
        as_messages("add")
        + [
            {"role": "assistant", "content": first.text, "tool_calls": first.tool_calls},
            {"role": "tool", "results": [result]},
        ],
        tools=[add],
    )
    sent = model_server.requests[1].json
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert [b["type"] for b in sent["messages"][1]["content"]] == ["thinking", "text", "tool_use"]
    assert sent["messages"][1]["content"][0] == thought


@pytest.mark.parametrize("wire", WIRES)
def test_a_tool_choice_without_tools_is_not_sent(wire, model_server):
    model_server.script([ANSWER[wire]("ok")])
    make(wire, model_server).complete(as_messages("hi"), tool_choice="any")
    body = json.dumps(model_server.requests[0].json)
    assert "tool_choice" not in body and "toolConfig" not in body and "toolChoice" not in body


def test_responses_reasoning_items_go_back_with_their_calls(model_server):
    """A reasoning model's function calls go back after the reasoning items that preceded them."""
    answer = openai_responses(None, [("add", {"a": 1, "b": 2}, "call_r")])
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"}
    answer["output"].insert(0, reasoning)
    model_server.script([answer, openai_responses("3")])
    model = make("openai-responses", model_server)
    first = model.complete(as_messages("add"), tools=[add])
    result = ToolResult(toolUseId="call_r", status="success", content=[{"json": 3}])
    model.complete(
        as_messages("add")
        + [{"role": "assistant", "content": "", "tool_calls": first.tool_calls}, {"role": "tool", "results": [result]}],
        tools=[add],
    )
    sent = model_server.requests[1].json["input"]
    assert [item.get("type", item.get("role")) for item in sent] == [
        "user",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert sent[1] == reasoning


@pytest.mark.parametrize("wire", ["gemini", "bedrock"])
def test_strict_is_refused_where_the_provider_has_no_strict_tools(wire, model_server):
    with pytest.raises(ValueError, match="strict=True is for openai, openai-responses, anthropic"):
        make(wire, model_server, strict=True)
