"""What a run shows and keeps of its calls: the secret parameters of the offered tools (a ``SecretStr``:
schema ``format: password`` / ``writeOnly``) are ``***``, and the values the model gave them are masked
wherever else they show up — its raw request and response, a result that echoes one, the prompt.

The loop and the tools work with the real values; these functions make the copies that leave it (the
log's turn rows, the ``on_step`` listener, a saved transcript, its HTML and views).
"""

from __future__ import annotations

import copy
from typing import Any

from workbench.agent._steps import ModelStep, Step, ToolStep
from workbench.models import ModelTurn
from workbench.secrets import SecretCalls
from workbench.types import ToolResult

__all__ = ["learn_step", "masked_message", "masked_step"]


def learn_step(step: Step, calls: SecretCalls) -> None:
    """Note the secret values ``step``'s calls give (before anything is masked with them)."""
    if isinstance(step, ModelStep):
        for call in step.turn.tool_calls:
            calls.learn(call)
    else:
        calls.learn(step.tool_use)
        if step.original is not None:
            calls.learn(step.original)


def masked_step(step: Step, calls: SecretCalls) -> Step:
    """``step`` with its calls' secret arguments ``***`` and the known secret values masked — ``step``
    itself when no offered tool has a secret parameter."""
    if not calls:
        return step
    learn_step(step, calls)
    if isinstance(step, ModelStep):
        return ModelStep(
            _masked_turn(step.turn, calls), step.index, calls.values(step.error), step.error_kind, step.started_at
        )
    original = None if step.original is None else calls.call(step.original)
    return ToolStep(calls.call(step.tool_use), calls.result(step.result), step.turn_index, original)


def _masked_turn(turn: ModelTurn, calls: SecretCalls) -> ModelTurn:
    shown = copy.copy(turn)  # keeps what a wrapper set on the turn (a cache's ``cached``)
    shown.tool_calls = [calls.call(call) for call in turn.tool_calls]
    shown.text, shown.request, shown.response = (
        calls.values(part) for part in (turn.text, turn.request, turn.response)
    )
    return shown


def masked_message(message: dict[str, Any], calls: SecretCalls) -> dict[str, Any]:
    """A conversation message with its calls' secret arguments ``***`` and the known values masked."""
    if not calls:
        return message
    if message.get("role") == "assistant" and message.get("tool_calls"):
        message = {**message, "tool_calls": [calls.call(call) for call in message["tool_calls"]]}
    elif message.get("role") == "tool" and isinstance(message.get("results"), list):
        message = {
            **message,
            "results": [calls.result(r) if isinstance(r, ToolResult) else calls.values(r) for r in message["results"]],
        }
    return calls.values(message)
