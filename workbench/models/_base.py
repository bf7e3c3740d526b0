"""The one interface every model has (:class:`Model`), and the provider-neutral message format.

Messages are plain dicts, the same for every provider:

* ``{"role": "system", "content": "..."}``
* ``{"role": "user", "content": "..."}``
* ``{"role": "assistant", "content": "...", "tool_calls": [ToolUse, ...]}`` (``content`` may be ``""``)
* ``{"role": "tool", "results": [ToolResult, ...]}`` — the answers to the previous assistant
  message's calls, matched by ``toolUseId`` (a ``ToolResult`` or its ``model_dump(by_alias=True)``)

A provider adapter turns these into its wire format with the project's own exports
(``to_provider_format``, ``format_tool_results``) and reads calls back with ``parse_tool_calls``.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC
from contextvars import ContextVar
from typing import Any, Iterable, Optional, Sequence

from workbench.models._turn import ModelTurn
from workbench.protocols import ToolSource
from workbench.spec import ToolSpec

Message = dict[str, Any]

#: the name of the conversation being run, when it has one: ``run_evals`` names each job's
#: (``model/variant/case/repeat``), so a recording tags its interactions with it and a replay answers
#: each conversation from its own — the same on any thread, worker or order
conversation_key: ContextVar[Optional[str]] = ContextVar("workbench_conversation_key", default=None)


def as_messages(prompt_or_messages: "str | Sequence[Message]", system: Optional[str] = None) -> list[Message]:
    """A message list from a prompt string or messages, with ``system`` first when given."""
    if isinstance(prompt_or_messages, str):
        messages: list[Message] = [{"role": "user", "content": prompt_or_messages}]
    else:
        messages = [dict(m) for m in prompt_or_messages]
        for index, message in enumerate(messages):
            if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant", "tool"):
                raise ValueError(
                    f"message {index} must be a dict with role system, user, assistant or tool; got {message!r:.120}"
                )
    if system is not None:
        messages = [m for m in messages if m["role"] != "system"]
        messages.insert(0, {"role": "system", "content": system})
    return messages


def tool_specs(tools: Any) -> list[ToolSpec]:
    """The specs of ``tools``: a registry's, or those of ``workbench.registry.tool_list``'s items (a
    mapping of name → tool, a list of tools, specs or spec dicts, or one of them)."""
    if isinstance(tools, ToolSource):
        return list(tools.get_all_tool_specs())
    from workbench.registry import tool_list  # here: a model needs the registry module only once given tools

    specs = []
    for item in tool_list(tools):
        if isinstance(item, ToolSpec):
            specs.append(item)
        elif isinstance(item, dict):
            specs.append(ToolSpec(**item))
        elif hasattr(item, "spec"):
            specs.append(item.spec)
        else:
            raise TypeError(f"cannot offer {item!r:.80} to a model: expected a tool, a ToolSpec or a spec dict")
    return specs


class Model(ABC):  # noqa: B024 - abstract as a whole: a subclass implements either of two methods
    """A model that answers messages, possibly by calling tools.

    Subclasses implement :meth:`acomplete` (or :meth:`complete`; each defaults to the other).
    ``provider`` and ``name`` make the model's id, ``"provider:name"``.
    """

    provider: str = "model"
    name: str = "model"

    @property
    def id(self) -> str:
        """``"provider:name"``, the string :func:`workbench.models.get` takes."""
        return f"{self.provider}:{self.name}"

    def fresh(self) -> "Model":
        """This model for a new conversation. Every run (each ``run_agent`` call, each job of
        ``run_evals``) asks for one, so a model that keeps state between turns (a script's position)
        starts afresh each time. A stateless model — every provider model — returns itself; a model
        with state returns a copy that shares what should be shared (records, a cassette, counters)."""
        return self

    def with_params(self, **params: Any) -> "Model":
        """This model sending ``params`` (``temperature=0``, ``max_tokens=…``) with every request, as
        a suite file's ``{"id": …, "params": {…}}`` entry does; a request's own parameters win."""
        return BoundParamsModel(self, params) if params else self

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        """One turn: the model's answer to ``messages`` with ``tools`` offered."""
        from workbench._async import run_sync

        return run_sync(self.acomplete(messages, tools=tools, tool_choice=tool_choice, **params))

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        """The async form of :meth:`complete`. By default runs :meth:`complete` in a worker thread."""
        if type(self).complete is Model.complete:
            raise NotImplementedError(f"{type(self).__name__} implements neither complete nor acomplete")
        return await asyncio.to_thread(self.complete, messages, tools=tools, tool_choice=tool_choice, **params)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


class BoundParamsModel(Model):
    """``model`` sending ``params`` (``temperature``, ``max_tokens``…) with every request; a parameter
    given to one request overrides the bound one. Same id as ``model``, so reports and transcripts
    name the model, not the wrapper; the bound parameters are in :attr:`params`."""

    def __init__(self, model: Model, params: dict[str, Any]) -> None:
        self.model = model
        self.params = dict(params)
        self.provider, self.name = model.provider, model.name

    def fresh(self) -> "BoundParamsModel":
        return BoundParamsModel(self.model.fresh(), self.params)

    def _secrets(self) -> list[str]:
        secrets = getattr(self.model, "_secrets", None)
        return list(secrets()) if callable(secrets) else []

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        return await self.model.acomplete(messages, tools=tools, tool_choice=tool_choice, **{**self.params, **params})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {sorted(self.params)}>"


def timed(turn: ModelTurn, started: float) -> ModelTurn:
    """``turn`` with its ``latency_ms`` set from ``started`` (a ``time.perf_counter()``)."""
    turn.latency_ms = (time.perf_counter() - started) * 1000.0
    return turn


def last_user_text(messages: Iterable[Message]) -> str:
    """The text of the last user message ("" when there is none)."""
    for message in reversed(list(messages)):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""
