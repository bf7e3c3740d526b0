"""The agent loop through the real OpenAI SDK against the local wire-format server (no network)."""

import json

import openai  # noqa: F401 - in the test extra: a missing SDK fails the module, never skips it

from tests.model_servers import error_reply, model_server, openai_chat  # noqa: F401 - model_server is a fixture
from workbench import ExecutionLog, tool
from workbench.agent import Transcript, run_agent
from workbench.models.openai import OpenAIModel

KEY = "sk-FAKE-agent-loop-key"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def test_the_second_request_carries_the_tool_results_in_openais_format(model_server, tmp_path):
    model_server.script(
        [
            openai_chat(
                tool_calls=[("add", {"a": 1, "b": 2}, "call_add"), ("shout", '{"text": "hi', "call_bad")],
                usage=(30, 12),
            ),
            openai_chat(text="1 + 2 = 3", usage=(50, 6)),
        ]
    )
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key=KEY)
    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(model, "add 1 and 2, shout hi", tools=[add, shout], log=log, temperature=0)

    assert transcript.stopped_because == "end_turn" and transcript.final_text == "1 + 2 = 3"
    assert transcript.model == "openai:gpt-4.1-mini"
    assert (transcript.usage.input_tokens, transcript.usage.output_tokens) == (80, 18)
    first, second = (r.json for r in model_server.requests)
    assert [t["function"]["name"] for t in first["tools"]] == ["add", "shout"] and first["temperature"] == 0
    messages = second["messages"]
    assert messages[0] == {"role": "user", "content": "add 1 and 2, shout hi"}
    assert messages[1]["role"] == "assistant"
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["call_add", "call_bad"]
    assert messages[1]["tool_calls"][0]["function"] == {"name": "add", "arguments": json.dumps({"a": 1, "b": 2})}
    results = messages[2:]
    assert [(m["role"], m["tool_call_id"]) for m in results] == [("tool", "call_add"), ("tool", "call_bad")]
    assert results[0]["content"] == "3"
    assert "not valid JSON" in results[1]["content"]  # the malformed call answered, not raised

    # the key was sent, and is nowhere in what the run kept
    assert model_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert transcript.steps[0].turn.request is not None and transcript.steps[0].turn.response is not None
    log.close()
    assert KEY not in transcript.to_json()
    assert KEY.encode() not in (tmp_path / "runs.sqlite").read_bytes()
    assert (
        Transcript.from_log(ExecutionLog(tmp_path / "runs.sqlite"), transcript.run_id).to_dict() == transcript.to_dict()
    )


def test_an_sdk_error_ends_the_run_as_a_model_error(model_server):
    model_server.script(
        [
            openai_chat(tool_calls=[("add", {"a": 1, "b": 2}, "c1")]),
            error_reply("openai", 401, "Incorrect API key provided: sk-test-***"),
        ]
    )
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key=KEY, max_retries=0)
    transcript = run_agent(model, "add", tools=[add])
    assert transcript.stopped_because == "model_error" and transcript.steps[-1].error_kind == "authentication"
    assert transcript.tool_results[0].text == "3" and KEY not in transcript.to_json()


def test_the_same_loop_through_the_anthropic_sdk_sends_tool_result_blocks(model_server):
    import anthropic  # noqa: F401 - in the test extra

    from tests.model_servers import anthropic_message
    from workbench.models.anthropic import AnthropicModel

    model_server.script(
        [anthropic_message(tool_calls=[("add", {"a": 2, "b": 5}, "toolu_1")]), anthropic_message(text="7")]
    )
    model = AnthropicModel("claude-test", base_url=model_server.url, api_key=KEY)
    transcript = run_agent(model, "add 2 and 5", tools=[add], approver=lambda *a: True)
    assert transcript.stopped_because == "end_turn" and transcript.final_text == "7"
    messages = model_server.requests[1].json["messages"]
    assert messages[1]["role"] == "assistant" and messages[1]["content"][-1]["type"] == "tool_use"
    [block] = messages[2]["content"]
    assert messages[2]["role"] == "user" and block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1"
    assert "7" in json.dumps(block["content"]) and KEY not in transcript.to_json()
