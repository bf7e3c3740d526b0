"""The ``-32042`` answer of protocol 2025-11-25 (*URL elicitation required*): a server refuses a
request until the user has been through one or more browser flows (an OAuth consent, a payment),
listed in the error's ``data.elicitations``. The client shows each to the elicitation handler — as
the ``ElicitRequestURLParams`` of a URL-mode ``elicitation/create`` — and, once the handler has
accepted every one, sends the request again (once: a second ``-32042`` is the caller's to see)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, TypeVar

import mcp.types as types
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

__all__ = ["retry_after_url_elicitation"]

Result = TypeVar("Result")


async def retry_after_url_elicitation(connection: Any, send: Callable[[], Awaitable[Result]]) -> Result:
    """``await send()``; on ``-32042`` ask ``connection``'s elicitation handler about each URL
    (logged like any elicitation request) and, if it accepted them all, ``await send()`` again.
    A declined or cancelled one (or no handler) raises the server's error, saying so."""
    try:
        return await send()
    except MCPError as exc:
        if exc.code != types.URL_ELICITATION_REQUIRED:
            raise
        required = UrlElicitationRequiredError.from_error(exc.error)
    refused = []
    for params in required.elicitations:
        answer = await connection._on_elicitation(None, params)
        action = getattr(answer, "action", None)
        if action != "accept":
            why = getattr(answer, "message", None) or action or "no answer"
            refused.append(f"{params.url} ({why})")
    if refused:
        raise MCPError(
            code=types.URL_ELICITATION_REQUIRED,
            message=f"{required.error.message} — not completed: {', '.join(refused)}",
            data=required.error.data,
        )
    return await send()
