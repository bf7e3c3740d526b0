"""The ASGI app of a streamable-HTTP MCP server: the SDK's app behind a bearer-token gate and a
Host/Origin guard (``workbench.mcp._security`` decides; this module answers).

Order, outermost first: the SDK's ``AuthenticationMiddleware`` (reads ``Authorization: Bearer``)
and ``AuthContextMiddleware``, :class:`BearerGate` (401), :class:`HostOriginGuard` (421 / 403),
then :class:`~workbench.mcp._json_answers.JsonAnswers` (an answer that does not stream is sent as
JSON) and the SDK's Starlette app (its own Host/Origin check is off: it compares strings).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Optional

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from workbench.mcp._event_store import RETRY_MS, SessionEventStore, session_event_stores
from workbench.mcp._json_answers import JsonAnswers
from workbench.mcp._security import TOKEN_ENV, HostPolicy, StaticTokenVerifier

__all__ = ["BearerGate", "HostOriginGuard", "MISSING_TOKEN", "WRONG_TOKEN", "streamable_http_app"]

logger = logging.getLogger("workbench.mcp")

_HOW = (
    f"send 'Authorization: Bearer <token>' (in Python: workbench.mcp.connect(url, token=...)). The token is the "
    f"one the server was started with (--token, ${TOKEN_ENV}, token=) or, bound beyond loopback without one, "
    "the one it printed at start."
)
#: the 401 body's message when a request carried no bearer token
MISSING_TOKEN = f"This MCP server needs a bearer token: {_HOW}"
#: the 401 ``error_description`` when the bearer token was not the server's
WRONG_TOKEN = "The bearer token sent is not the token this server was started with."


async def _answer(
    send: Send, status: int, body: bytes, content_type: bytes, extra: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *extra],
        }
    )
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
                logger.warning(
                    "refused a request with Host %s (421): allowed are %s (add names with --allow-host)",
                    _shown(host or ""),
                    ", ".join(map(str, self.policy.hosts)),
                )
                message = (
                    f"Invalid Host header {_shown(host or '')}: not a name this server answers to "
                    "(its operator can add one with --allow-host / allowed_hosts=)"
                )
                await _answer(send, 421, message.encode(), b"text/plain; charset=utf-8")
                return
            if not self.policy.allows_origin(origin):
                logger.warning("refused a request with Origin %s (403)", _shown(origin or ""))
                message = (
                    f"Invalid Origin header {_shown(origin or '')}: not an origin this server allows "
                    "(its operator can add one with --allow-origin / allowed_origins=)"
                )
                await _answer(send, 403, message.encode(), b"text/plain; charset=utf-8")
                return
        await self.app(scope, receive, send)


class BearerGate:
    """Let through requests the SDK's bearer backend authenticated; answer the others 401 as RFC 6750
    §3.1 and the MCP authorization spec say: no credentials (no ``Authorization``, or another
    scheme) → a bare ``WWW-Authenticate: Bearer`` challenge without an error code; a wrong bearer
    token → ``error="invalid_token"``. The body tells a human what to do; it never repeats the token."""

    def __init__(self, app: ASGIApp, resource_metadata_url: Optional[str] = None) -> None:
        self.app = app
        self.resource_metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

        if scope["type"] != "http" or isinstance(scope.get("user"), AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        params = [] if self.resource_metadata_url is None else [f'resource_metadata="{self.resource_metadata_url}"']
        authorization = Headers(scope=scope).get("authorization") or ""
        sent_bearer = authorization.split(" ", 1)[0].lower() == "bearer"
        if sent_bearer:
            params[:0] = ['error="invalid_token"', f'error_description="{WRONG_TOKEN}"']
            body: dict[str, Any] = {
                "error": "invalid_token",
                "error_description": WRONG_TOKEN,
                "message": f"{WRONG_TOKEN} To connect, {_HOW}",
            }
        else:
            body = {"message": MISSING_TOKEN}
        challenge = "Bearer" + (" " + ", ".join(params) if params else "")
        await _answer(
            send, 401, json.dumps(body).encode(), b"application/json", ((b"www-authenticate", challenge.encode()),)
        )


def streamable_http_app(
    server: Any, *, path: str, json_response: bool, stateless: bool, host: str, policy: HostPolicy, token: Optional[str]
) -> ASGIApp:
    """The ASGI app serving ``server`` (the SDK's low-level ``Server``) at ``path``: the SDK's
    streamable-HTTP app — answers that do not stream sent as JSON (:class:`JsonAnswers`; every answer
    with ``json_response``) — behind :class:`HostOriginGuard` and, with a ``token``, :class:`BearerGate`."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.middleware.authentication import AuthenticationMiddleware

    # the SDK still checks Content-Type; Host and Origin are HostOriginGuard's
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    # stateful sessions resume dropped streams (priming events, retry, Last-Event-ID replay)
    resumable = None if stateless else SessionEventStore(0)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=path,
        json_response=json_response,
        stateless_http=stateless,
        host=host,
        transport_security=unchecked,
        event_store=resumable,
        retry_interval=RETRY_MS,
    )
    if resumable is not None:
        session_event_stores(server._session_manager)
    if not json_response:
        app = JsonAnswers(app)
    app = HostOriginGuard(app, policy)
    if token is not None:
        app = BearerGate(app)
        app = AuthContextMiddleware(app)
        app = AuthenticationMiddleware(app, backend=BearerAuthBackend(StaticTokenVerifier(token)))
    return app
