"""A lenient ``tools/list``: one malformed tool must not cost the whole listing.

The SDK validates a ``tools/list`` result as a whole, so a single tool without ``inputSchema`` (or with
any other invalid field) fails ``connect()`` with a bare pydantic ``ValidationError``. MCP Inspector
lists the other tools; so does the workbench: :class:`ToolListRepair` sits on the connection's
transport streams, notes the ids of the ``tools/list`` requests it sends, and takes out of their
responses each tool that the negotiated protocol version's schema rejects — keeping why, for
``connection.skipped``. The raw message history still records what the server sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from pydantic import ValidationError

__all__ = ["ToolListRepair"]

_FALLBACK_VERSION = "2025-11-25"  # what the SDK validates against before a version is negotiated


def _reason(error: ValidationError) -> str:
    """``inputSchema: Field required; …`` — the pydantic errors, located inside the tool."""
    parts = []
    for item in error.errors():
        loc = [str(part) for part in item.get("loc", ())[2:]]  # drop ("tools", 0)
        parts.append(f"{'.'.join(loc) or 'the tool'}: {item.get('msg', 'invalid')}")
    return "; ".join(dict.fromkeys(parts))


def _check(result: dict[str, Any], version: str) -> None:
    """Validate a ``tools/list`` result as the SDK does (raises ``ValidationError``)."""
    import mcp.types as types
    from mcp_types import methods

    try:
        methods.validate_server_result("tools/list", version, result)
    except KeyError:  # a version without a tools/list row: the SDK checks only the generic type
        pass
    types.ListToolsResult.model_validate(result)


def _problem(result: dict[str, Any], tool: Any, version: str) -> Optional[str]:
    """Why the SDK would reject ``tool`` (a raw dict from the wire) in ``result``; ``None`` if it would not."""
    try:
        _check({**result, "tools": [tool]}, version)
    except ValidationError as exc:
        return (
            f"the server listed it without a valid MCP Tool definition ({_reason(exc)}); skipped, as MCP Inspector does"
        )
    return None


class ToolListRepair:
    """Drops the malformed tools from ``tools/list`` responses; ``rejected`` maps their names to why."""

    def __init__(self, version: Callable[[], Optional[str]]) -> None:
        self._version = version
        self._pending: set[Any] = set()  # ids of tools/list requests awaiting their response
        self.rejected: dict[str, str] = {}  # of the latest listing

    def sent(self, item: Any) -> None:
        """See an outgoing transport item (an SDK ``SessionMessage``)."""
        message: Any = getattr(item, "message", None)
        if getattr(message, "method", None) == "tools/list" and getattr(message, "id", None) is not None:
            self._pending.add(message.id)
            if not (getattr(message, "params", None) or {}).get("cursor"):
                self.rejected = {}  # a fresh listing starts from its first page

    def received(self, item: Any) -> Any:
        """An incoming transport item, with malformed tools taken out of a ``tools/list`` result."""
        message: Any = getattr(item, "message", None)
        request_id = getattr(message, "id", None)
        if request_id is None or request_id not in self._pending:
            return item
        self._pending.discard(request_id)
        result: Any = getattr(message, "result", None)
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return item
        version = self._version() or _FALLBACK_VERSION
        try:
            _check(result, version)
            return item  # the usual case: nothing to repair
        except ValidationError:
            pass
        try:
            _check({**result, "tools": []}, version)
        except ValidationError:
            return item  # the result itself is broken, not a tool of it: the SDK reports that
        kept = []
        for index, tool in enumerate(tools):
            reason = _problem(result, tool, version)
            if reason is None:
                kept.append(tool)
                continue
            name = tool.get("name") if isinstance(tool, dict) else None
            self.rejected[name if isinstance(name, str) and name else f"<tool #{index + 1}>"] = reason
        if len(kept) == len(tools):
            return item
        repaired = message.model_copy(update={"result": {**result, "tools": kept}})
        return dataclasses.replace(item, message=repaired)
