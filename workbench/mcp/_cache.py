"""Cache hints of protocol 2026-07-28 (SEP-2549): a server may say how long a list result stays fresh
(``ttlMs``) and whether it may be shared across users (``cacheScope``).

The SDK's client keeps the cache itself (``mcp.client.caching``: an entry is served while its
``ttlMs`` lasts, refetched after, evicted when the server announces the list changed); the
connection's list methods go through it. This module records the hints the server *sent* —
read off the raw JSON-RPC history, so what is shown is what came over the wire — for
``connection.cache_hints`` and the inspect view's Server tab.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["CACHEABLE_LISTS", "CacheHintSeen", "CacheHints"]

#: the list methods whose results carry cache hints (``resources/read`` does too, per URI: not shown)
CACHEABLE_LISTS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")


@dataclass(frozen=True)
class CacheHintSeen:
    """The hints of the last result of one list method that came over the wire."""

    method: str
    ttl_ms: Optional[int]  #: ``ttlMs`` (``None``: the server sent none — the result is not cached)
    cache_scope: Optional[str]  #: ``"public"`` or ``"private"`` (``None``: not sent, i.e. private)
    received: float  #: ``time.time()`` when the result arrived
    fetches: int  #: how many times this list was fetched from the server on this connection

    @property
    def expires(self) -> Optional[float]:
        """When the cached result goes stale (``time.time()`` scale), ``None`` without a ``ttlMs``."""
        return None if self.ttl_ms is None else self.received + self.ttl_ms / 1000.0

    @property
    def fresh(self) -> bool:
        """True while a list call is served from the client's cache instead of the server."""
        expires = self.expires
        return expires is not None and time.time() < expires


class CacheHints:
    """Mixed into :class:`~workbench.mcp.McpConnection`; relies on its ``_messages`` record and
    ``protocol_version``."""

    def _init_cache_hints(self) -> None:
        self._hint_requests: dict[Any, str] = {}  # JSON-RPC id of a cursor-less list request -> method
        self._hints: dict[str, CacheHintSeen] = {}
        self._messages.subscribe(self._watch_cache_hints)  # type: ignore[attr-defined]

    @property
    def cache_hints(self) -> dict[str, CacheHintSeen]:
        """The cache hints of the list results received so far, by method (``"tools/list"``…)."""
        return dict(self._hints)

    def _watch_cache_hints(self, message: Any) -> None:
        data = message.message
        if message.direction == "sent":
            if data.get("method") in CACHEABLE_LISTS and "id" in data and not (data.get("params") or {}).get("cursor"):
                self._hint_requests[data["id"]] = data["method"]
            return
        method = self._hint_requests.pop(data.get("id"), None) if "id" in data else None
        result = data.get("result")
        if method is None or not isinstance(result, dict):
            return
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        previous = self._hints.get(method)
        self._hints[method] = CacheHintSeen(
            method=method,
            ttl_ms=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
            cache_scope=scope if scope in ("public", "private") else None,
            received=message.time,
            fetches=(previous.fetches if previous else 0) + 1,
        )
