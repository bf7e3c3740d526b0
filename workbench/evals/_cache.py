"""A model wrapper that answers an identical request from a SQLite cache."""

from __future__ import annotations

import copy
import hashlib
import json
import sqlite3
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from workbench.models import Model, ModelTurn
from workbench.models._cassette import neutral_request


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, mode="json")
    return repr(value)


def _renumbered(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every ``toolUseId`` replaced by its order of appearance: an id only pairs a call
    with its result, and an offline model's calls get fresh random ids each run."""
    if isinstance(value, dict):
        out = {k: _renumbered(v, ids) for k, v in value.items()}
        if isinstance(out.get("toolUseId"), str):
            out["toolUseId"] = ids.setdefault(out["toolUseId"], f"call_{len(ids)}")
        return out
    if isinstance(value, list):
        return [_renumbered(v, ids) for v in value]
    return value


def request_key(model: Model, messages: Sequence[dict], tools: Any, tool_choice: Any, params: dict) -> str:
    """The cache key of a request: the model id and what is sent to it — messages (tool results by
    status and content, not their timings), offered tool specs, tool_choice and parameters."""
    request = neutral_request(messages, tools, tool_choice, params)
    payload = {"model": model.id, **_renumbered(request, {})}
    text = json.dumps(payload, sort_keys=True, default=_default, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class RequestCache:
    """Model turns by request key, in SQLite (a file, or ``":memory:"``). Safe across threads."""

    def __init__(self, path: "str | Path" = ":memory:") -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS turns (key TEXT PRIMARY KEY, model TEXT, turn TEXT)")

    def get(self, key: str) -> "ModelTurn | None":
        with self._lock:
            row = self._db.execute("SELECT turn FROM turns WHERE key = ?", (key,)).fetchone()
        return None if row is None else ModelTurn.from_dict(json.loads(row[0]))

    def put(self, key: str, model_id: str, turn: ModelTurn) -> None:
        text = json.dumps(turn.to_dict(), default=_default)
        with self._lock:  # one commit per turn: a killed kernel keeps every finished answer
            self._db.execute("INSERT OR REPLACE INTO turns VALUES (?, ?, ?)", (key, model_id, text))

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM turns").fetchone()[0]

    def close(self) -> None:
        self._db.close()


class CachedModel(Model):
    """``model`` with its answers cached: a request seen before is answered from ``cache`` without
    reaching the model. ``hits`` and ``misses`` count requests (of every conversation); a cached turn
    has ``cached = True``."""

    def __init__(self, model: Model, cache: RequestCache) -> None:
        self.model = model
        self.cache = cache
        self.provider, self.name = model.provider, model.name
        self._counts: Counter[str] = Counter()  # shared with this model's conversations
        self._repeat = 0

    @property
    def hits(self) -> int:
        return self._counts["hits"]

    @property
    def misses(self) -> int:
        return self._counts["misses"]

    def for_repeat(self, repeat: int) -> "CachedModel":
        """This model answering repeat ``repeat`` of a case: each repeat is its own request (a cached
        answer to repeat 0 does not answer repeat 1), while the provider is sent the same thing."""
        salted = copy.copy(self)
        salted._repeat = repeat
        return salted

    def fresh(self) -> "CachedModel":
        """A new conversation of the wrapped model, answered from the same cache."""
        conversation = copy.copy(self)
        conversation.model = self.model.fresh()
        return conversation

    async def acomplete(
        self, messages: Sequence[dict], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        key = request_key(
            self.model, messages, tools, tool_choice, {**params, "_repeat": self._repeat} if self._repeat else params
        )
        turn = self.cache.get(key)
        if turn is not None:
            self._counts["hits"] += 1
            turn.cached = True  # type: ignore[attr-defined]
            return turn
        self._counts["misses"] += 1
        turn = await self.model.acomplete(messages, tools=tools, tool_choice=tool_choice, **params)
        self.cache.put(key, self.model.id, turn)
        turn.cached = False  # type: ignore[attr-defined]
        return turn
