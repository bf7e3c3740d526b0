"""The ASGI app of a streamable-HTTP MCP server: the SDK's app behind a bearer-token gate and a
Host/Origin guard (``workbench.mcp._security`` decides; this module answers).

Order, outermost first: the SDK's ``AuthenticationMiddleware`` (reads ``Authorization: Bearer``)
and ``AuthContextMiddleware``, the SDK's ``RequireAuthMiddleware`` (401), :class:`HostOriginGuard` (421 / 403),
then the SDK's Starlette app (its own Host/Origin check is off: it compares strings).
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from workbench.mcp._security import HostPolicy, StaticTokenVerifier

__all__ = ["HostOriginGuard", "streamable_http_app"]

logger = logging.getLogger("workbench.mcp")

async def _answer(send: Send, status: int, body: bytes, content_type: bytes,
                  extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *extra]})
    await send({"type": "http.response.body", "body": body})


def _shown(value: str) -> str:
    """A header value as quoted in a refusal (bounded: it is the client's text)."""
    return repr(value if len(value) <= 120 else value[:117] + "...")


class HostOriginGuard:
    """Answer 421 to a ``Host`` and 403 to an ``Origin`` the policy does not allow (every HTTP request)."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            host, origin = headers.get("host"), headers.get("origin")
            if not self.policy.allows_host(host):
                logger.warning("refused a request with Host %s (421)", _shown(host or ""))
                message = (f"Invalid Host header {_shown(host or '')}: this server answers to "
                           f"{', '.join(map(str, self.policy.hosts))} (add names with --allow-host / allowed_hosts=)")
                await _answer(send, 421, message.encode(), b"text/plain; charset=utf-8")
                return
            if not self.policy.allows_origin(origin):
                logger.warning("refused a request with Origin %s (403)", _shown(origin or ""))
                message = (f"Invalid Origin header {_shown(origin or '')} "
                           "(add browser origins with --allow-origin / allowed_origins=)")
                await _answer(send, 403, message.encode(), b"text/plain; charset=utf-8")
                return
        await self.app(scope, receive, send)


def streamable_http_app(server: Any, *, path: str, json_response: bool, stateless: bool, host: str,
                        policy: HostPolicy, token: Optional[str]) -> ASGIApp:
    """The ASGI app serving ``server`` (the SDK's low-level ``Server``) at ``path``: the SDK's
    streamable-HTTP app, behind :class:`HostOriginGuard` and, with a ``token``, the bearer check."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.middleware.authentication import AuthenticationMiddleware

    # the SDK still checks Content-Type; Host and Origin are HostOriginGuard's
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=path, json_response=json_response,
                                              stateless_http=stateless, host=host, transport_security=unchecked)
    app = HostOriginGuard(app, policy)
    if token is not None:
        gate, inner = RequireAuthMiddleware(app, []), app

        async def app(scope: Scope, receive: Receive, send: Send) -> None:  # lifespan events pass the gate
            await (gate if scope["type"] == "http" else inner)(scope, receive, send)
        app = AuthContextMiddleware(app)
        app = AuthenticationMiddleware(app, backend=BearerAuthBackend(StaticTokenVerifier(token)))
    return app
