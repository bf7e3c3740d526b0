"""The client connection behind an MCP request, for what outlives one request (subscriptions, peers)."""

from __future__ import annotations

from typing import Any


def connection_of(session: Any) -> Any:
    """The client connection behind a request's ``ServerSession``. The SDK builds a new
    ``ServerSession`` for every request (over streamable HTTP nothing holds it once the request is
    answered), while its ``Connection`` lives as long as the client's session and sends on the
    session's standalone stream; the SDK offers it on the session only as ``_connection``."""
    return getattr(session, "_connection", None) or session
