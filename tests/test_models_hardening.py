"""Model-layer hardening (issue 26): executor results copy.

Every path runs the real SDK against the local wire-format server (tests/model_servers.py)."""

from __future__ import annotations

import json

import pytest

from workbench import tool
from workbench.executor import SequentialExecutor
from workbench.models.anthropic import AnthropicModel
from workbench.models.gemini import GeminiModel
from workbench.models.openai import OpenAIModel, OpenAIResponsesModel
from workbench.registry import ToolRegistry
from workbench.types import ToolResult

KEYS = {"groq": "gsk_" + "Q7rT2mX9pL4vW8nB3kD6" * 2}


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


# -- item 11: copying an executor's result --------------------------------------------------------

def test_an_executor_result_copies_with_an_update_and_takes_assignment():
    registry = ToolRegistry([shout])
    [result] = SequentialExecutor().run([{"toolUseId": "c1", "name": "shout", "input": {"text": "hi"}}], registry)
    copy = result.model_copy(update={"metadata": {**result.metadata, "note": 1}})
    assert copy.metadata["note"] == 1 and "note" not in result.metadata and copy.text == "HI"
    result.status = "error"
    assert result.status == "error" and "status" in result.model_fields_set
    assert ToolResult.model_validate(copy.to_dict()).to_dict() == copy.to_dict()


@pytest.mark.parametrize("cls", [OpenAIModel, GeminiModel, OpenAIResponsesModel, AnthropicModel])
def test_a_hand_written_loop_prepares_the_answer_to_a_call_with_an_empty_name(cls):
    registry = ToolRegistry([shout])
    call = {"toolUseId": "c1", "name": "", "input": {}}
    [result] = SequentialExecutor().run([call], registry)
    assert result.status == "error"
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "results": [result]}]
    request, _ = cls("m", api_key=KEYS["groq"]).prepare(messages, tools=[shout])
    assert "empty 'name'" in json.dumps(request)
