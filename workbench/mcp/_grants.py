"""The OAuth grants :class:`workbench.mcp.OAuth` runs besides the authorization code: the official
SDK's providers for them, built from ``OAuth``'s arguments, and the identity-provider leg of
enterprise-managed authorization (SEP-990).

* ``client_credentials`` — machine to machine, no user: a client id with a secret
  (``client_secret_basic`` / ``client_secret_post``) or a private key that signs a JWT assertion
  (``private_key_jwt``, RFC 7523) — the SDK's ``ClientCredentialsOAuthProvider`` /
  ``PrivateKeyJWTOAuthProvider``.
* ``jwt_bearer`` — SEP-990: an Identity Assertion Authorization Grant (ID-JAG) from the enterprise
  identity provider is traded at the MCP server's authorization server for an access token — the
  SDK's ``IdentityAssertionOAuthProvider``. :func:`identity_assertion` gets the ID-JAG from the
  identity provider (RFC 8693 token exchange of the user's ID token).

Each needs ``issuer``: the credentials go only to that authorization server, never to one the MCP
server names (the SDK's rule for these grants).
"""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable, Optional

__all__ = ["GRANTS", "identity_assertion", "check_grant"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
SECRET_METHODS = ("client_secret_basic", "client_secret_post")


def _client_credentials(oauth: Any, server_url: str) -> Any:
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    scope = " ".join(oauth.scopes) if oauth.scopes else None
    if oauth.private_key is not None:
        signer = SignedJWTParameters(
            issuer=oauth.client_id,
            subject=oauth.client_id,
            signing_key=oauth.private_key,
            signing_algorithm=oauth.signing_algorithm,
        )
        return PrivateKeyJWTOAuthProvider(
            server_url=server_url,
            storage=oauth.storage,
            client_id=oauth.client_id,
            assertion_provider=signer.create_assertion_provider(),
            scope=scope,
            issuer=oauth.issuer,
        )
    return ClientCredentialsOAuthProvider(
        server_url=server_url,
        storage=oauth.storage,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        scope=scope,
        issuer=oauth.issuer,
        token_endpoint_auth_method=oauth.token_endpoint_auth_method or "client_secret_basic",
    )


def _jwt_bearer(oauth: Any, server_url: str) -> Any:
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    return IdentityAssertionOAuthProvider(
        server_url=server_url,
        storage=oauth.storage,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        issuer=oauth.issuer,
        assertion_provider=_assertion_provider(oauth.assertion),
        scope=" ".join(oauth.scopes) if oauth.scopes else None,
        token_endpoint_auth_method=oauth.token_endpoint_auth_method or "client_secret_post",
    )


#: grant -> the SDK provider for it (the authorization code, with its local callback, is OAuth's own)
GRANTS: dict[str, Optional[Callable[[Any, str], Any]]] = {
    "authorization_code": None,
    "client_credentials": _client_credentials,
    "jwt_bearer": _jwt_bearer,
}

#: grant -> (the arguments it needs, the arguments it has no use for)
_ARGUMENTS = {
    "authorization_code": ((), ("private_key", "issuer", "assertion")),
    "client_credentials": (("client_id", "issuer"), ("client_metadata_url", "assertion", "open_url")),
    "jwt_bearer": (
        ("client_id", "client_secret", "issuer", "assertion"),
        ("client_metadata_url", "private_key", "open_url"),
    ),
}


def check_grant(oauth: Any) -> None:
    """Raise ``ValueError``/``TypeError`` naming the argument when ``OAuth(...)``'s arguments do not fit its grant."""
    grant = oauth.grant
    if grant not in GRANTS:
        raise ValueError(f"OAuth(grant={grant!r}): expected one of {', '.join(map(repr, GRANTS))}")
    needed, unused = _ARGUMENTS[grant]
    missing = [name for name in needed if getattr(oauth, name) is None]
    if missing:
        raise ValueError(
            f"OAuth(grant={grant!r}) needs {', '.join(name + '=' for name in missing)}"
            + (
                " (issuer: the authorization server the credentials belong to; they are only sent there)"
                if "issuer" in missing
                else ""
            )
        )
    stray = [name for name in unused if getattr(oauth, name) is not None]
    if stray:
        raise ValueError(f"OAuth(grant={grant!r}) has no use for {', '.join(name + '=' for name in stray)}")
    if oauth.client_secret is not None and oauth.client_id is None:
        raise ValueError("OAuth(client_secret=...) needs the client_id= it was issued with")
    method = oauth.token_endpoint_auth_method
    if grant == "client_credentials":
        if (oauth.client_secret is None) == (oauth.private_key is None):
            raise ValueError(
                "OAuth(grant='client_credentials') needs exactly one of client_secret= "
                "(client_secret_basic/_post) or private_key= (a PEM key signing a JWT, private_key_jwt)"
            )
        if oauth.private_key is not None and method not in (None, "private_key_jwt"):
            raise ValueError(
                f"OAuth(private_key=...) authenticates with private_key_jwt, not token_endpoint_auth_method={method!r}"
            )
    if method is not None and method not in (*SECRET_METHODS, "none", "private_key_jwt"):
        raise ValueError(
            f"OAuth(token_endpoint_auth_method={method!r}): expected one of "
            "'client_secret_basic', 'client_secret_post', 'none'"
        )
    if method in SECRET_METHODS and oauth.client_secret is None:
        raise ValueError(f"OAuth(token_endpoint_auth_method={method!r}) needs client_secret=")
    if oauth.assertion is not None and not (isinstance(oauth.assertion, str) or callable(oauth.assertion)):
        raise TypeError(
            "OAuth(assertion=...) is the ID-JAG (a str) or a function (audience, resource) -> ID-JAG, "
            f"got {type(oauth.assertion).__name__}"
        )


def _assertion_provider(assertion: Any) -> Callable[[str, str], Awaitable[str]]:
    """An async ``(audience, resource) -> ID-JAG`` from a fixed ID-JAG or a sync/async function."""
    import anyio

    async def provide(audience: str, resource: str) -> str:
        if isinstance(assertion, str):
            return assertion
        if inspect.iscoroutinefunction(assertion):
            return await assertion(audience, resource)
        value = await anyio.to_thread.run_sync(assertion, audience, resource)
        return await value if inspect.isawaitable(value) else value

    return provide


def identity_assertion(
    token_endpoint: str,
    id_token: str,
    *,
    client_id: Optional[str] = None,
    client_secret: Optional[str] = None,
    timeout: float = 30.0,
) -> Callable[[str, str], Awaitable[str]]:
    """The identity-provider leg of SEP-990, for ``OAuth(grant="jwt_bearer", assertion=...)``: an
    async ``(audience, resource) -> ID-JAG`` that trades the user's OpenID Connect ``id_token`` at
    the identity provider's ``token_endpoint`` (RFC 8693 token exchange, ``requested_token_type``
    ID-JAG) for an assertion for that authorization server and MCP server. ``client_id`` /
    ``client_secret`` are this client's registration at the identity provider."""
    from workbench.mcp._errors import OAuthError

    async def exchange(audience: str, resource: str) -> str:
        import httpx

        form = {
            "grant_type": TOKEN_EXCHANGE,
            "subject_token": id_token,
            "subject_token_type": ID_TOKEN,
            "requested_token_type": ID_JAG,
            "audience": audience,
            "resource": resource,
        }
        if client_id is not None:
            form["client_id"] = client_id
        auth = (
            httpx.BasicAuth(client_id, client_secret)
            if client_id is not None and client_secret
            else httpx.USE_CLIENT_DEFAULT
        )  # this client has no auth of its own: none
        async with httpx.AsyncClient(timeout=timeout) as http:
            response = await http.post(token_endpoint, data=form, auth=auth)
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code != 200 or not isinstance(body, dict) or not body.get("access_token"):
            why = (
                f"{body.get('error')}" + (f" ({body['error_description']})" if body.get("error_description") else "")
                if isinstance(body, dict) and body.get("error")
                else response.text[:200] or "no ID-JAG in the answer"
            )
            raise OAuthError(
                f"the identity provider at {token_endpoint} refused the token exchange "
                f"(HTTP {response.status_code}): {why}"
            )
        return str(body["access_token"])

    return exchange
