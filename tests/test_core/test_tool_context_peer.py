"""``ToolContext`` logging with levels, asking (elicit) and sampling: through a peer in any executor,
a clear error where nobody can answer, and through a real MCP client when the tool is served."""

from __future__ import annotations

import asyncio
import json

import mcp.types as types
import pytest

from tests.mcp_conformance_server import RED_PIXEL, SILENCE_WAV
from tests.mcp_servers import eventually, http_server, serve_command
from workbench import Audio, EmbeddedResource, ResourceLink, ToolContext, tool
from workbench._content import to_content_blocks
from workbench._peer import PEER_KEY, Elicitation, Sampled
from workbench.executor import ConcurrentExecutor, SequentialExecutor
from workbench.registry import ToolRegistry
from workbench.types import make_tool_use


@tool(context=True)
def ask_name(tool_context: ToolContext) -> str:
    answer = tool_context.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"{answer.action}:{answer.content.get('name', '')}"


@tool(context=True)
async def ask_model(topic: str, tool_context: ToolContext) -> str:
    tool_context.log("warning", f"sampling about {topic}")
    answer = await tool_context.asample(f"Tell me about {topic}", max_tokens=50, system="be brief")
    return f"{answer.model}: {answer.text}"


class RecordingPeer:
    """A peer answering from a list, as a notebook form or the agent loop would (no loop of its own)."""

    loop = None

    def __init__(self) -> None:
        self.asked: list = []
        self.logged: list = []

    def log(self, level, message, tool_name):
        self.logged.append((level, message, tool_name))

    async def elicit(self, message, schema, tool_name):
        self.asked.append(("elicit", message, schema, tool_name))
        return Elicitation("accept", {"name": "Ada"})

    async def sample(self, messages, options, tool_name):
        self.asked.append(("sample", messages, options, tool_name))
        return Sampled("a short answer", "test-model", "endTurn")

    def release_stream(self):
        return False


def _registry(*tools) -> ToolRegistry:
    registry = ToolRegistry()
    registry.process_tools(list(tools))
    return registry


def test_log_takes_a_level_and_keeps_the_old_one_argument_form() -> None:
    ctx = ToolContext(make_tool_use("t", {}))
    ctx.log("plain line")
    ctx.log("error", "went wrong")
    assert ctx.logs == ["plain line", "[error] went wrong"]
    with pytest.raises(ValueError, match="debug, info, notice, warning"):
        ctx.log("loud", "x")


def test_asking_where_nobody_can_answer_fails_naming_the_tool() -> None:
    [result] = SequentialExecutor().run([make_tool_use("ask_name", {})], _registry(ask_name))
    assert result.status == "error"
    assert result.metadata["error_type"] == "NobodyToAsk"
    assert "Tool 'ask_name' called ToolContext.elicit() but nobody can answer here" in result.metadata["error"]


@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
def test_a_peer_in_the_invocation_state_answers_sync_and_async_tools(executor) -> None:
    peer = RecordingPeer()
    uses = [make_tool_use("ask_name", {}), make_tool_use("ask_model", {"topic": "owls"})]
    results = executor().run(uses, _registry(ask_name, ask_model), invocation_state={PEER_KEY: peer})
    assert [r.text for r in results] == ["accept:Ada", "test-model: a short answer"]
    kinds = {entry[0]: entry for entry in peer.asked}
    assert kinds["sample"][1] == [{"role": "user", "content": {"type": "text", "text": "Tell me about owls"}}]
    assert kinds["sample"][2]["max_tokens"] == 50 and kinds["sample"][2]["system_prompt"] == "be brief"
    assert peer.logged == [("warning", "sampling about owls", "ask_model")]


def test_bad_questions_are_refused_before_anyone_is_asked() -> None:
    ctx = ToolContext(make_tool_use("t", {}), peer=RecordingPeer())
    with pytest.raises(ValueError, match="schema must be a JSON Schema object"):
        ctx.elicit("?", {"type": "string"})
    with pytest.raises(ValueError, match="message 0 must be a dict with role"):
        ctx.sample([{"role": "system", "content": "x"}])


def test_a_blocking_question_inside_an_event_loop_says_to_await() -> None:
    ctx = ToolContext(make_tool_use("t", {}), peer=RecordingPeer())

    async def inside() -> None:
        ctx.elicit("?", {"type": "object", "properties": {}})

    with pytest.raises(RuntimeError, match="an async tool awaits aelicit"):
        asyncio.run(inside())


# -- rich content -------------------------------------------------------------------------------------
def test_audio_bytes_resources_and_mixed_lists_become_their_own_blocks() -> None:
    [audio] = to_content_blocks(SILENCE_WAV)
    assert audio["audio"]["mimeType"] == "audio/wav"
    mixed = to_content_blocks(
        [
            "look:",
            RED_PIXEL,
            EmbeddedResource("memo://1", text="hi", mime_type="text/plain"),
            ResourceLink("memo://2", "second memo"),
        ]
    )
    assert [next(iter(b)) for b in mixed] == ["text", "image", "resource", "resourceLink"]
    assert mixed[2]["resource"] == {"uri": "memo://1", "mimeType": "text/plain", "text": "hi"}
    assert to_content_blocks(["a", "b"]) == [{"text": '["a", "b"]'}, {"json": ["a", "b"]}]  # still a JSON list
    with pytest.raises(ValueError, match="exactly one of text= or blob="):
        EmbeddedResource("memo://3")
    assert Audio(b"ID3\x03rest").block()["audio"]["mimeType"] == "audio/mpeg"


# -- served ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def served():
    from workbench.mcp import connect

    asked: dict[str, list] = {"sampling": [], "elicitation": []}

    def sample(params: types.CreateMessageRequestParams) -> str:
        asked["sampling"].append(params)
        return "forty-two"

    def elicit(params):
        asked["elicitation"].append(params)
        return {"username": "ann", "email": "ann@example.com"}

    with http_server(
        serve_command("tests/mcp_conformance_server.py", "--transport", "streamable-http", "--port", "0")
    ) as url:
        conn = connect(url=url, registry=ToolRegistry(), sampling=sample, elicitation=elicit)
        bare = connect(url=url, registry=ToolRegistry())
        try:
            yield conn, bare, asked
        finally:
            bare.disconnect()
            conn.disconnect()


def test_served_tools_asking_a_2026_client_fail_clearly(served) -> None:
    """The workbench client speaks 2026-07-28, where servers ask through input_required results; the
    2025-era path (server requests) is exercised by the conformance suite
    (tests/test_mcp/test_conformance_server.py: tools-call-sampling, tools-call-elicitation…)."""
    conn, _bare, asked = served
    assert conn.protocol_version == "2026-07-28"
    result = conn.call_tool("test_sampling", {"prompt": "the answer?"})
    assert result.is_error and "has no channel for server requests" in result.content[0].text
    assert "input_required" in result.content[0].text and not asked["sampling"]


def test_log_lines_reach_the_client_at_the_level_it_set(served) -> None:
    _conn, bare, _asked = served
    bare.set_logging_level("warning")
    bare.call_tool("test_tool_with_logging")  # info lines: below warning, not sent
    bare.set_logging_level("debug")
    bare.call_tool("test_tool_with_logging")
    logs = eventually(lambda: bare.server_logs if len(bare.server_logs) >= 3 else None, what="three log lines")
    bare.call_tool("test_simple_text")  # a later round trip: anything else sent would be here by now
    assert [(log.level, log.logger, log.data) for log in bare.server_logs] == [
        ("info", "test_tool_with_logging", "Tool execution started"),
        ("info", "test_tool_with_logging", "Tool processing data"),
        ("info", "test_tool_with_logging", "Tool execution completed"),
    ]
    assert len(logs) == 3


def test_rich_results_cross_mcp_as_their_own_blocks(served) -> None:
    conn, _bare, _asked = served
    mixed = conn.call_tool("test_multiple_content_types")
    assert [c.type for c in mixed.content] == ["text", "image", "resource"]
    assert json.loads(mixed.content[2].resource.text) == {"test": "data", "value": 123}
    audio = conn.call_tool("test_audio_content")
    assert [c.type for c in audio.content] == ["audio"] and audio.content[0].mime_type == "audio/wav"
    # and back through a proxy tool: the blocks a workbench ToolResult carries
    value = conn.proxies["test_audio_and_text"]()
    assert [next(iter(b)) for b in value.content] == ["text", "audio"]


# -- provider formats --------------------------------------------------------------------------------------
def _rich_result():
    from workbench.types import ToolResult

    blocks = to_content_blocks(
        [
            "see:",
            Audio(SILENCE_WAV, "audio/wav"),
            EmbeddedResource("memo://1", text="the memo", mime_type="text/plain"),
            ResourceLink("memo://2", "memo two"),
        ]
    )
    return ToolResult(tool_use_id="t1", status="success", content=blocks, metadata={"tool_name": "rich"})


def test_every_provider_format_carries_rich_blocks_or_says_what_it_left_out() -> None:
    from workbench.providers import PROVIDERS, format_tool_results

    for provider in PROVIDERS:
        text = json.dumps(format_tool_results(provider, [_rich_result()]))
        if provider == "mcp":
            continue
        assert "the memo" in text and "memo://2" in text, provider
        assert "not sent: this format carries no audio" in text, provider
    [mcp] = format_tool_results("mcp", [_rich_result()])
    assert [c["type"] for c in mcp["content"]] == ["text", "audio", "resource", "resource_link"]
    assert mcp["content"][0]["text"] == "see:"
