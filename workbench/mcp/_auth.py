"""OAuth 2.1 for ``connect(url, auth=OAuth(...))``: the authorization code with PKCE (a user in a
browser), and the client-credentials and SEP-990 identity-assertion grants (``workbench.mcp._grants``).

The protocol — discovery of the authorization server, dynamic client registration or a URL-based
client id (Client ID Metadata Document) or a pre-registered client, PKCE, the token exchange and
refresh — is the official SDK's ``OAuthClientProvider``. This module adds what a notebook user needs
around it: a local callback on ``127.0.0.1`` that receives the authorization code, a browser to open
(or a function of the user's), and token storage in memory or in a JSON file only the user can read.
"""

from __future__ import annotations

import inspect
import json
import os
import queue
import sys
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Optional, Sequence
from urllib.parse import parse_qs, urlparse

from workbench._html import escape
from workbench.mcp._errors import OAuthError

__all__ = ["OAuth", "OAuthError", "oauth_failure"]

_CALLBACK_PATH = "/callback"


def oauth_failure(exc: BaseException) -> Optional[BaseException]:
    """The OAuth error (the SDK's ``OAuthFlowError`` and kin, or :class:`OAuthError`) that ``exc``
    carries — itself, inside an exception group, or as its cause — or ``None``."""
    from mcp.client.auth import OAuthFlowError

    seen: set[int] = set()
    pending: list[Optional[BaseException]] = [exc]
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, (OAuthFlowError, OAuthError)):
            return current
        pending.extend([*getattr(current, "exceptions", ()), current.__cause__, current.__context__])
    return None


class _MemoryStorage:
    """Tokens and the registered client, for this process only."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client_info: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


class _FileStorage(_MemoryStorage):
    """Tokens and the registered client in a JSON file created readable by its owner only (0600)."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__()
        self.path = Path(path).expanduser()
        if self.path.exists():
            from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
            if data.get("tokens"):
                self.tokens = OAuthToken.model_validate(data["tokens"])
            if data.get("client_info"):
                self.client_info = OAuthClientInformationFull.model_validate(data["client_info"])

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens
        self._save()

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info
        self._save()

    def _save(self) -> None:
        data = {
            key: value.model_dump(mode="json", exclude_none=True)
            for key, value in (("tokens", self.tokens), ("client_info", self.client_info))
            if value is not None
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.chmod(self.path, 0o600)  # also when the file existed with wider permissions


class _CallbackServer:
    """A one-page HTTP server on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self, port: int) -> None:
        results: "queue.Queue[dict[str, str]]" = queue.Queue()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                url = urlparse(self.path)
                if url.path != _CALLBACK_PATH:
                    self.send_error(404)
                    return
                query = {key: values[0] for key, values in parse_qs(url.query).items()}
                results.put(query)
                ok = "code" in query
                self.send_response(200 if ok else 400)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                text = (
                    "Authorized: you can close this tab and go back to the notebook."
                    if ok
                    else f"Authorization failed: {query.get('error', 'no code')} {query.get('error_description', '')}"
                )
                self.wfile.write(f"<!doctype html><title>Tool Workbench</title><p>{escape(text)}</p>".encode())

            def log_message(self, *args: Any) -> None:  # keep the notebook quiet
                pass

        self.results = results
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, name="workbench-oauth-callback", daemon=True).start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{_CALLBACK_PATH}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class OAuth:
    """OAuth 2.1 for an MCP server that asks for it: ``connect(url, auth=OAuth())``.

    By default a user authorizes in a browser (authorization code with PKCE) and the client
    registers itself (dynamic client registration), or uses ``client_metadata_url`` as its client id
    where the authorization server accepts one, or the ``client_id`` it was given.

    Args:
        scopes: the scopes to ask for (default: what the server advertises).
        token_file: keep the tokens and the registered client in this JSON file (created 0600), so
            the next connection — in another kernel too — skips the browser while they are valid
            (refresh tokens are used when the access token expired). Default: in memory only.
        open_url: ``open_url(authorization_url)`` — sync or async — sends the user to the
            authorization page. Default: open the system browser and print the URL.
        client_name: the name this client registers under.
        callback_port: the port of the local callback (``http://127.0.0.1:<port>/callback``);
            0 picks a free one.
        timeout: seconds to wait for the user to finish authorizing.
        client_id: a client registered beforehand with the authorization server (no dynamic
            registration); ``client_secret`` with it for a confidential client.
        client_metadata_url: an ``https://`` URL of this client's metadata document, used as the
            client id by authorization servers that support Client ID Metadata Documents (others
            get dynamic registration).
        grant: ``"authorization_code"`` (a user, the default), ``"client_credentials"`` (machine to
            machine: ``client_id`` with ``client_secret`` or ``private_key``) or ``"jwt_bearer"``
            (SEP-990 enterprise-managed: an ID-JAG from ``assertion``, with ``client_id`` and
            ``client_secret``).
        token_endpoint_auth_method: how the client authenticates at the token endpoint:
            ``"client_secret_basic"`` (the default with a secret; ``"client_secret_post"`` for
            ``jwt_bearer``), ``"client_secret_post"`` or ``"none"``.
        private_key: ``client_credentials`` with ``private_key_jwt``: the PEM private key that signs
            the client assertion (``signing_algorithm``, default ``"RS256"``; ``"ES256"`` for EC keys).
        issuer: ``client_credentials`` / ``jwt_bearer``: the authorization server the credentials
            belong to — they are only ever sent to it, whatever the MCP server names.
        assertion: ``jwt_bearer``: the ID-JAG, or a function ``(audience, resource) -> ID-JAG``
            (sync or async), e.g. :func:`workbench.mcp.identity_assertion`.
    """

    def __init__(
        self,
        *,
        scopes: Optional[Sequence[str]] = None,
        token_file: Optional[str | os.PathLike] = None,
        open_url: Optional[Callable[[str], Any]] = None,
        client_name: str = "Tool Workbench",
        callback_port: int = 0,
        timeout: float = 300.0,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        client_metadata_url: Optional[str] = None,
        grant: str = "authorization_code",
        token_endpoint_auth_method: Optional[str] = None,
        private_key: Optional[str] = None,
        signing_algorithm: str = "RS256",
        issuer: Optional[str] = None,
        assertion: Any = None,
    ) -> None:
        from workbench.mcp._grants import check_grant

        if isinstance(scopes, str):
            raise TypeError("OAuth(scopes=...) is a list of scope names, e.g. ['tools'], not one string")
        self.client_id = client_id
        self.client_secret = client_secret
        self.client_metadata_url = client_metadata_url
        self.grant = grant
        self.token_endpoint_auth_method = token_endpoint_auth_method
        self.private_key = private_key
        self.signing_algorithm = signing_algorithm
        self.issuer = issuer
        self.assertion = assertion
        self.scopes = list(scopes) if scopes is not None else None
        self.token_file = token_file
        self.open_url = open_url
        self.client_name = client_name
        self.callback_port = callback_port
        self.timeout = timeout
        check_grant(self)
        if client_metadata_url is not None:
            from mcp.client.auth.utils import is_valid_client_metadata_url

            if not is_valid_client_metadata_url(client_metadata_url):
                raise ValueError(
                    f"OAuth(client_metadata_url={client_metadata_url!r}): expected an https:// URL "
                    "with a path (the client's metadata document), e.g. https://example.com/client.json"
                )
        self.storage = _FileStorage(token_file) if token_file is not None else _MemoryStorage()
        self._callback: Optional[_CallbackServer] = None

    @property
    def tokens(self) -> Any:
        """The current ``OAuthToken`` (``None`` before authorizing)."""
        return self.storage.tokens

    def provider(self, server_url: str) -> Any:
        """The SDK's provider for this grant (an ``httpx.Auth``) for ``server_url``."""
        from workbench.mcp._grants import GRANTS

        build = GRANTS[self.grant]
        return build(self, server_url) if build is not None else self._authorization_code(server_url)

    def _authorization_code(self, server_url: str) -> Any:
        from mcp.client.auth import OAuthClientProvider
        from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

        if self._callback is None:
            self._callback = _CallbackServer(self.callback_port)
        method = self.token_endpoint_auth_method or ("client_secret_basic" if self.client_secret else "none")
        grant_types = ["authorization_code", "refresh_token"]
        metadata = OAuthClientMetadata.model_validate(
            dict(  # validated: the URI and the method are checked
                client_name=self.client_name,
                redirect_uris=[self._callback.redirect_uri],
                grant_types=grant_types,
                response_types=["code"],
                token_endpoint_auth_method=method,
                scope=" ".join(self.scopes) if self.scopes else None,
            )
        )
        if self.client_id is not None:  # pre-registered: no registration
            self.storage.client_info = OAuthClientInformationFull(
                client_id=self.client_id,
                client_secret=self.client_secret,
                redirect_uris=metadata.redirect_uris,
                grant_types=grant_types,
                response_types=["code"],
                token_endpoint_auth_method=method,
            )
        return OAuthClientProvider(
            server_url=server_url,
            client_metadata=metadata,
            storage=self.storage,
            redirect_handler=self._redirect,
            callback_handler=self._wait_for_code,
            client_metadata_url=self.client_metadata_url,
        )

    async def _redirect(self, authorization_url: str) -> None:
        import anyio

        if self.open_url is None:
            print(f"workbench.mcp: authorize in your browser: {authorization_url}", file=sys.stderr, flush=True)
            await anyio.to_thread.run_sync(webbrowser.open, authorization_url)
            return
        if inspect.iscoroutinefunction(self.open_url):
            await self.open_url(authorization_url)
        else:
            await anyio.to_thread.run_sync(self.open_url, authorization_url)

    async def _wait_for_code(self) -> Any:
        import anyio
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._callback is not None
        callback = self._callback

        def wait() -> dict[str, str]:
            try:
                return callback.results.get(timeout=self.timeout)
            except queue.Empty:
                raise OAuthError(
                    f"no authorization arrived at {callback.redirect_uri} within {self.timeout:g} s "
                    "(was the authorization page opened and approved?)"
                ) from None

        query = await anyio.to_thread.run_sync(wait)
        if "code" not in query:
            raise OAuthError(
                f"the authorization server refused: {query.get('error', 'no code in the redirect')}"
                + (f" ({query['error_description']})" if query.get("error_description") else "")
            )
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    def close(self) -> None:
        """Stop the local callback server."""
        if self._callback is not None:
            self._callback.close()
            self._callback = None

    def __repr__(self) -> str:
        where = f"token_file={str(self.token_file)!r}" if self.token_file is not None else "in memory"
        client = f", client_id={self.client_id!r}" if self.client_id is not None else ""
        return f"<OAuth {self.grant}{client} {where}, {'authorized' if self.tokens else 'not authorized'}>"
