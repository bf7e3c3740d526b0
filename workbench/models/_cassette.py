"""Record and replay: ``record(model, "cassette.json")`` writes every request and its turn;
``ReplayModel("cassette.json")`` answers the same requests from the file, with no network.

A cassette is JSON: ``{"version": 1, "model": "openai:gpt-4.1-mini", "interactions": [{"request":
..., "turn": ...} or {"request": ..., "error": ...}]}``. The request is the neutral one — messages,
tool specs (name, description, parameters), tool_choice, params — so a cassette does not depend on
the provider's wire format, and tool results are compared by id, status and content (not their
timings). Secrets are masked before anything is written: the model's keys, secret-named fields, and
the secret parameters of the offered tools (``SecretStr``) in the calls — ``***`` in the request key on
recording and on replay alike (a replayed call's secret is ``***``: the tool gets no secret from a
cassette), and the values the model gave them in tool results, the turn and its raw request/response.
An interaction made in a named conversation (each job of ``run_evals``) carries its
``"conversation"``, so a replay answers every conversation of a recorded run — each repeat included —
with its own turns.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from workbench._json_text import MAX_JSON_DEPTH, loads
from workbench._unicode import replace_surrogates
from workbench.models._base import Message, Model, as_messages, conversation_key, tool_specs
from workbench.models._secrets import mask
from workbench.models._turn import ModelError, ModelTurn, without_surrogates
from workbench.secrets import SecretCalls
from workbench.types import ToolResult

CASSETTE_VERSION = 1
#: a cassette nests requests a few levels around messages and tool arguments of up to MAX_JSON_DEPTH levels
MAX_CASSETTE_DEPTH = 2 * MAX_JSON_DEPTH

PathLike = Union[str, "os.PathLike[str]"]


def _message(message: Message) -> dict[str, Any]:
    """A message as cassette JSON: tool results reduced to what a model sees."""
    if message["role"] != "tool":
        out = {k: v for k, v in message.items() if k != "tool_calls"}
        if message.get("tool_calls"):
            out["tool_calls"] = [
                {"toolUseId": c.get("toolUseId"), "name": c.get("name"), "input": c.get("input")}
                for c in message["tool_calls"]
            ]
        return out
    results = []
    for item in message.get("results") or []:
        result = item if isinstance(item, ToolResult) else ToolResult.model_validate(item)
        entry: dict[str, Any] = {"toolUseId": result.tool_use_id, "status": result.status, "content": result.content}
        if result.status == "error" and result.error:
            entry["error"] = result.error
        results.append(entry)
    return {"role": "tool", "results": results}


def secret_calls(messages: Sequence[Message], tools: Any) -> SecretCalls:
    """The offered tools' secret parameters, with the values the calls in ``messages`` gave them."""
    calls = SecretCalls.of(tool_specs(tools))
    if calls:
        for message in as_messages(messages):
            if message["role"] == "assistant":
                for call in message.get("tool_calls") or ():
                    calls.learn(call)
    return calls


def neutral_request(
    messages: Sequence[Message], tools: Any, tool_choice: Any, params: dict[str, Any], secrets: Sequence[str] = ()
) -> dict[str, Any]:
    """The provider-neutral request a cassette keys on (JSON, secrets masked — the same way on
    recording and on replay, so that the keys match)."""
    specs = [{"name": s.name, "description": s.description, "parameters": s.parameters} for s in tool_specs(tools)]
    calls = secret_calls(messages, tools)
    shown = [_masked_message(_message(m), calls) for m in as_messages(messages)]
    request = {"messages": shown, "tools": specs, "tool_choice": tool_choice, "params": params}
    return mask(request, secrets)


def _masked_message(message: dict[str, Any], calls: SecretCalls) -> dict[str, Any]:
    """The calls' secret arguments ``***``; in tool results, the values they had (a tool that echoes its
    secret answers ``***`` on replay, where it gets ``***``). The user's own text is kept as written."""
    if not calls:
        return message
    if message.get("tool_calls"):
        return {**message, "tool_calls": [calls.call(c) for c in message["tool_calls"]]}
    if message["role"] == "tool":
        return calls.values(message)
    return message


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, default=str).splitlines()


class RecordingModel(Model):
    """Wraps ``model``: every turn (or failure) it answers is appended to the cassette at ``path``.
    The id is the wrapped model's; the file is rewritten after each turn, so it is never half-written.
    Each conversation (:meth:`fresh`) records into the same cassette."""

    def __init__(self, model: Model, path: PathLike):
        self.model = model
        self.path = Path(path)
        self.provider = model.provider
        self.name = model.name
        self.interactions: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._conversation: Optional[str] = None
        self._write()

    def fresh(self) -> "RecordingModel":
        """A new conversation of the wrapped model, written into this cassette (named by the running
        conversation's key, when there is one)."""
        conversation = copy.copy(self)  # shallow: the interactions, the file and the lock are shared
        conversation.model = self.model.fresh()
        conversation._conversation = conversation_key.get()
        return conversation

    def _secrets(self) -> list[str]:
        secrets = getattr(self.model, "_secrets", None)
        return list(secrets()) if callable(secrets) else []

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        request = neutral_request(messages, tools, tool_choice, params, self._secrets())
        try:
            turn = self.model.complete(messages, tools=tools, tool_choice=tool_choice, **params)
        except ModelError as error:
            self._add(request, error=error)
            raise
        turn = without_surrogates(turn)  # a cassette file holds valid Unicode only
        self._add(request, turn=turn, calls=secret_calls(messages, tools))
        return turn

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        request = neutral_request(messages, tools, tool_choice, params, self._secrets())
        try:
            turn = await self.model.acomplete(messages, tools=tools, tool_choice=tool_choice, **params)
        except ModelError as error:
            self._add(request, error=error)
            raise
        turn = without_surrogates(turn)  # a cassette file holds valid Unicode only
        self._add(request, turn=turn, calls=secret_calls(messages, tools))
        return turn

    def _add(
        self,
        request: dict[str, Any],
        *,
        turn: Optional[ModelTurn] = None,
        error: Optional[ModelError] = None,
        calls: Optional[SecretCalls] = None,
    ) -> None:
        entry: dict[str, Any] = {"request": request}
        if self._conversation is not None:
            entry["conversation"] = self._conversation
        if turn is not None:
            entry["turn"] = turn.to_dict()
            if calls:  # the turn's own calls, and every secret value seen, in its raw request and response
                for call in turn.tool_calls:
                    calls.learn(call)
                entry["turn"] = calls.values({**entry["turn"], "tool_calls": [calls.call(c) for c in turn.tool_calls]})
        else:
            assert error is not None
            entry["error"] = {
                "kind": error.kind,
                "message": replace_surrogates(str(error)),
                "status_code": error.status_code,
            }
        with self._lock:  # conversations in threads append to one list and one file
            self.interactions.append(mask(entry, self._secrets()))
            self._write()

    def _write(self) -> None:
        data = {"version": CASSETTE_VERSION, "model": self.model.id, "interactions": self.interactions}
        text = json.dumps(mask(data, self._secrets()), indent=1, ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, self.path)

    def __repr__(self) -> str:
        return f"<RecordingModel {self.id} → {self.path}>"


class ReplayModel(Model):
    """Answers requests from a cassette written by :func:`record`, with no network.

    A request matching a recorded one (same messages, tools, tool_choice and params) gets that
    interaction's turn — or its error, raised again as a :class:`ModelError`. Equal requests are
    answered in recorded order, the last one again when they run out. A request that matches none
    raises ``ModelError(kind="replay_mismatch")`` holding a unified diff of the closest recorded
    request against it. The id is the recorded model's. Each conversation (:meth:`fresh`) is
    answered from the start of the cassette — from its own recorded interactions when the cassette
    names conversations — so runs replay alike in any order, thread or process.
    """

    def __init__(self, path: PathLike):
        self.path = Path(path)
        try:
            data = loads(self.path.read_text(encoding="utf-8"), max_depth=MAX_CASSETTE_DEPTH)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"ReplayModel: no cassette at {self.path} (write one with workbench.models.record(model, path))"
            ) from None
        except ValueError as exc:  # malformed or too deep JSON, or text that is not UTF-8
            raise ValueError(f"ReplayModel: {self.path} is not a cassette: not JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("version") != CASSETTE_VERSION:
            raise ValueError(f"ReplayModel: {self.path} is not a version-{CASSETTE_VERSION} cassette")
        if not isinstance(data.get("interactions", []), list) or not all(
            isinstance(i, dict) and isinstance(i.get("request"), dict) for i in data.get("interactions") or []
        ):
            raise ValueError(
                f"ReplayModel: {self.path}: 'interactions' must be a list of objects, each with a 'request' object"
            )
        self.provider, _, self.name = str(data.get("model") or "replay:replay").partition(":")
        self.interactions: list[dict[str, Any]] = data.get("interactions") or []
        self._keys = [_canonical(i["request"]) for i in self.interactions]
        self._used: set[int] = set()
        self._conversation: Optional[str] = None

    def fresh(self) -> "ReplayModel":
        """A new conversation: equal requests are answered from the first recorded one again."""
        conversation = copy.copy(self)  # shallow: the interactions are shared, read-only
        conversation._used = set()
        conversation._conversation = conversation_key.get()
        return conversation

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        request = neutral_request(messages, tools, tool_choice, params)
        key = _canonical(request)
        matches = [i for i, k in enumerate(self._keys) if k == key]
        if not matches:
            raise self._mismatch(request)
        own = [
            i
            for i in matches
            if self._conversation is not None and self.interactions[i].get("conversation") == self._conversation
        ]
        matches = own or matches
        index = next((i for i in matches if i not in self._used), matches[-1])
        self._used.add(index)
        interaction = self.interactions[index]
        if "error" in interaction:
            error = interaction["error"]
            raise ModelError(
                error.get("message", "recorded failure"),
                kind=error.get("kind", "unknown"),
                provider=self.provider,
                model=self.name,
                status_code=error.get("status_code"),
            )
        return ModelTurn.from_dict(interaction["turn"])

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        return self.complete(messages, tools=tools, tool_choice=tool_choice, **params)

    def _mismatch(self, request: dict[str, Any]) -> ModelError:
        actual = _pretty(request)
        if not self.interactions:
            return ModelError(
                f"ReplayModel: the cassette {self.path} records no requests",
                kind="replay_mismatch",
                provider=self.provider,
                model=self.name,
            )
        scores = [difflib.SequenceMatcher(None, _pretty(i["request"]), actual).ratio() for i in self.interactions]
        best = max(range(len(scores)), key=scores.__getitem__)
        diff = list(
            difflib.unified_diff(
                _pretty(self.interactions[best]["request"]),
                actual,
                f"recorded request #{best + 1}",
                "actual request",
                lineterm="",
                n=2,
            )
        )
        shown = "\n".join(diff[:80]) + (f"\n… {len(diff) - 80} more diff lines" if len(diff) > 80 else "")
        return ModelError(
            f"ReplayModel: no request in {self.path} ({len(self.interactions)} recorded) matches "
            f"this one; the closest is #{best + 1}:\n{shown}",
            kind="replay_mismatch",
            provider=self.provider,
            model=self.name,
        )

    def __repr__(self) -> str:
        return f"<ReplayModel {self.id} ← {self.path}>"
