"""``print(transcript)``: the run as a chat in plain text — the prompt, each model turn with the calls
it made, each call's result under it — for a terminal, a script's output or a test failure."""

from __future__ import annotations

import json
from typing import Any

from workbench._text import indent, result_text
from workbench.agent._steps import ModelStep, ToolStep
from workbench.types import ToolUse


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _content(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return "" if content is None else str(content)


def _said(role: str, text: str) -> list[str]:
    """``role: text``, a text of several lines continued under it, indented."""
    first, *rest = text.splitlines() or [""]
    return [f"{role}: {first}".rstrip()] + [indent(line) for line in rest]


def _call(call: ToolUse) -> str:
    return f"→ {call.get('name')}({json.dumps(call.get('input'), ensure_ascii=False, default=repr)})"


def _model_turn(step: ModelStep) -> list[str]:
    if step.error is not None:
        return _said("assistant", f"model error ({step.error_kind or 'unknown'}): {step.error}")
    calls = [_call(call) for call in step.turn.tool_calls]
    text = step.turn.text or ""
    if not text and calls:  # a turn of calls only: the first call on the assistant's line
        return [f"assistant: {calls[0]}"] + [indent(call) for call in calls[1:]]
    return _said("assistant", text) + [indent(call) for call in calls]


def _tool_result(step: ToolStep) -> list[str]:
    heading, *body = result_text(step.result).splitlines()
    status = heading.split("): ", 1)[-1]  # "success", or "error ToolInputError"
    edited = " (edited)" if step.edited else ""
    return [indent(f"tool {step.name}{edited}: {status}")] + [indent(line) for line in body]


def transcript_text(transcript: Any) -> str:
    """The masked transcript as a chat: a heading line (run id, model, counts, how it stopped), the
    prompt's messages, then every step in order."""
    shown = transcript.masked()
    heading = (
        f"Transcript {shown.run_id} · {shown.model} · {_count(len(shown.model_steps), 'model turn')}, "
        f"{_count(len(shown.tool_steps), 'tool call')} · stopped: {shown.stopped_because}"
    )
    lines = [heading]
    for message in shown.prompt:
        lines += _said(str(message.get("role")), _content(message.get("content")))
    for step in shown.steps:
        lines += _model_turn(step) if isinstance(step, ModelStep) else _tool_result(step)
    return "\n".join(lines)
