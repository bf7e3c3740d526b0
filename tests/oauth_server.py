"""An OAuth-protected MCP server for tests: the official SDK's MCPServer with its authorization-server
routes (metadata, dynamic client registration, /authorize, /token; PKCE checked by the SDK's token
handler) and a minimal in-memory provider that approves every authorization at once.

usage: python tests/oauth_server.py <port> [access token lifetime in seconds]
Every issued access token and every exchanged code is appended to $OAUTH_EVENTS (a file) when set,
and every request to the authorization server's endpoints (kind "request": method, path), so tests
can see what happened on the server side."""

from __future__ import annotations

import json
import os
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

PORT = int(sys.argv[1])
LIFETIME = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
BASE = f"http://127.0.0.1:{PORT}"


def event(**data: object) -> None:
    path = os.environ.get("OAUTH_EVENTS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(data) + "\n")


class AutoApprovingProvider:
    """In memory; ``authorize`` redirects straight back with a code (no login page)."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info
        event(kind="register", client_id=client_info.client_id)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["tools"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        event(kind="authorize", code_challenge=params.code_challenge, redirect_uri=str(params.redirect_uri))
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        event(kind="exchange")  # the SDK checked the PKCE code_verifier before calling this
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        event(kind="refresh")
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str):
        access = self.tokens.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token) -> None:
        self.tokens.pop(getattr(token, "token", ""), None)

    def _issue(self, client_id: str, scopes: list[str], resource) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + LIFETIME, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        event(kind="token", access_token=access)
        return OAuthToken(
            access_token=access, token_type="Bearer", expires_in=LIFETIME, refresh_token=refresh, scope=" ".join(scopes)
        )


server = MCPServer(
    "oauth-protected",
    auth_server_provider=AutoApprovingProvider(),
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        validate_token_resource=False,
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["tools"], default_scopes=["tools"]
        ),
        required_scopes=["tools"],
    ),
)


@server.tool()
def whoami() -> str:
    """Answers only an authorized client."""
    return "authorized"


def recorded(app):
    """The ASGI app, noting each request outside /mcp (the authorization server's endpoints)."""

    async def asgi(scope, receive, send):
        if scope["type"] == "http" and not scope["path"].startswith("/mcp"):
            event(kind="request", method=scope["method"], path=scope["path"])
        await app(scope, receive, send)

    return asgi


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(recorded(server.streamable_http_app(host="127.0.0.1")), host="127.0.0.1", port=PORT, log_level="info")
