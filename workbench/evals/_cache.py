"""A model wrapper that answers an identical request from a SQLite cache."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Sequence

from workbench.models import Model, ModelTurn, tool_specs


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, mode="json")
    return repr(value)


def request_key(model: Model, messages: Sequence[dict], tools: Any, tool_choice: Any, params: dict) -> str:
    """The cache key of a request: model id, messages, offered tool specs, tool_choice and parameters."""
    payload = {"model": model.id, "messages": list(messages), "tools": [s.to_schema() for s in tool_specs(tools)],
               "tool_choice": tool_choice, "params": params}
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
    reaching the model. ``hits`` and ``misses`` count requests; a cached turn has ``cached = True``."""

    def __init__(self, model: Model, cache: RequestCache) -> None:
        self.model = model
        self.cache = cache
        self.provider, self.name = model.provider, model.name
        self.hits = 0
        self.misses = 0

    async def acomplete(self, messages: Sequence[dict], *, tools: Any = None, tool_choice: Any = None,
                        **params: Any) -> ModelTurn:
        salt = params.pop("_cache_salt", None)  # run_evals' repeat number: each repeat is its own request
        key = request_key(self.model, messages, tools, tool_choice, {**params, "_repeat": salt} if salt else params)
        turn = self.cache.get(key)
        if turn is not None:
            self.hits += 1
            turn.cached = True  # type: ignore[attr-defined]
            return turn
        self.misses += 1
        turn = await self.model.acomplete(messages, tools=tools, tool_choice=tool_choice, **params)
        self.cache.put(key, self.model.id, turn)
        turn.cached = False  # type: ignore[attr-defined]
        return turn
