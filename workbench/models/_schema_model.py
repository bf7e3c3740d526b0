"""``SchemaModel``: an offline model that calls the offered tools with arguments drawn from their
schemas, then answers with the results as JSON (the idea of pydantic-ai's ``TestModel``)."""

from __future__ import annotations

import json
from typing import Any, Literal, Optional, Sequence, Union

from workbench._errors import ToolSpecError
from workbench._synthetic import synthesize, synthetic_seed
from workbench.models._base import Message, Model, as_messages, tool_specs
from workbench.models._sdk_model import call_names, choice_kind
from workbench.models._turn import ModelError, ModelTurn, Usage
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


class SchemaModel(Model):
    """Calls each offered tool once with arguments generated from its parameters schema, then
    answers with text: the JSON of ``{tool name: result}`` (an error result as ``{"error": ...}``).

    Deterministic: the same ``seed`` and tools give the same arguments in any process (drawn by
    the project's synthetic value generator, valid against the schema). A round of calls is made
    once per user message: after the results come back (a ``tool`` message after the last user
    message), the model answers. ``call_tools`` is ``"all"`` or the names to call; ``tool_choice``
    narrows it further (a tool's name; ``"none"`` calls nothing). ``text`` replaces the final
    answer. With no tool to call the answer is ``"success (no tool calls)"``.
    """

    provider = "schema"

    def __init__(
        self,
        seed: int = 0,
        *,
        call_tools: Union[Literal["all"], Sequence[str]] = "all",
        text: Optional[str] = None,
        name: str = "schema",
    ):
        if call_tools != "all" and (isinstance(call_tools, str) or not all(isinstance(n, str) for n in call_tools)):
            raise ValueError(f"SchemaModel: call_tools is 'all' or a list of tool names, got {call_tools!r}")
        self.seed = seed
        self.call_tools = call_tools if call_tools == "all" else list(call_tools)
        self.text = text
        self.name = name

    def arguments(self, spec: ToolSpec) -> Any:
        """The arguments this model calls ``spec``'s tool with."""
        try:
            return synthesize(spec.parameters, synthetic_seed(spec.name, "arguments", self.seed), tool=spec.name)
        except ToolSpecError as exc:
            raise ModelError(
                f"SchemaModel: no arguments can be generated for tool '{spec.name}': {exc}",
                kind="bad_request",
                provider=self.provider,
                model=self.name,
            ) from None

    def _chosen(self, specs: list[ToolSpec], tool_choice: Any) -> list[ToolSpec]:
        what, choice = choice_kind(tool_choice)
        if what == "none":
            return []
        chosen = specs if self.call_tools == "all" else [s for s in specs if s.name in self.call_tools]
        if what == "choice" and "tool" in choice:
            chosen = [s for s in specs if s.name == choice["tool"].get("name")]
        return chosen

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        messages = as_messages(messages)
        specs = tool_specs(tools)
        since_user = _since_last_user(messages)
        chosen = self._chosen(specs, tool_choice)
        answered = any(m["role"] == "tool" for m in since_user)
        if chosen and not answered:
            round_ = sum(1 for m in messages if m["role"] == "assistant")
            calls: list[ToolUse] = [
                {"toolUseId": f"schema_{round_}_{i}", "name": s.name, "input": self.arguments(s)}
                for i, s in enumerate(chosen)
            ]
            return self._turn(messages, ModelTurn(tool_calls=calls, stop_reason="tool_use"))
        text = self.text
        if text is None:
            results = _results(since_user)
            text = json.dumps(results, ensure_ascii=False, default=str) if results else "success (no tool calls)"
        return self._turn(messages, ModelTurn(text=text, stop_reason="end_turn"))

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        return self.complete(messages, tools=tools, tool_choice=tool_choice, **params)

    def _turn(self, messages: list[Message], turn: ModelTurn) -> ModelTurn:
        said = json.dumps([turn.text, turn.tool_calls], default=str)
        turn.usage = Usage(_words(json.dumps(_visible(messages), default=str)), _words(said))
        turn.model = self.id
        return turn


def _since_last_user(messages: list[Message]) -> list[Message]:
    last = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    return messages[last + 1 :]


def _results(messages: list[Message]) -> dict[str, Any]:
    """``{tool name: result value}`` for the tool results in ``messages`` (later ones win)."""
    names = call_names(messages)
    out: dict[str, Any] = {}
    for message in (m for m in messages if m["role"] == "tool"):
        for item in message.get("results") or []:
            result = item if isinstance(item, ToolResult) else ToolResult.model_validate(item)
            name = result.metadata.get("tool_name") or names.get(result.tool_use_id) or result.tool_use_id
            if result.status == "error":
                out[name] = {"error": result.error or result.text}
            else:
                out[name] = result.json if result.json is not None else result.text
    return out


def _visible(messages: list[Message]) -> list[Any]:
    """What a model reads of ``messages``: texts, calls and result contents — not a result's metadata
    (latency, timestamps), which would make the same conversation count differently from run to run."""
    out: list[Any] = []
    for message in messages:
        out.append(message.get("content"))
        out.extend((c.get("name"), c.get("input")) for c in message.get("tool_calls") or [])
        for item in message.get("results") or []:
            out.append(item.content if isinstance(item, ToolResult) else item.get("content"))
    return out


def _words(text: str) -> int:
    """A rough token count (no tokenizer offline): about one token per four characters."""
    return max(1, len(text) // 4)
