"""Who may call a streamable-HTTP MCP server: a bearer token and Host/Origin allow-lists.

Built on the SDK's own pieces: ``TransportSecuritySettings`` (Host → 421, Origin → 403; MCP's
DNS-rebinding guidance) and its bearer-auth middleware with a :class:`StaticTokenVerifier`
(missing or wrong token → 401). The policy (DESIGN.md, MCP note):

* a token is **required** whenever the server listens beyond loopback: the one given
  (``token=`` / ``--token`` / ``$WORKBENCH_MCP_TOKEN``) or a random one printed at start;
  on loopback it is optional and on when one is given;
* Host/Origin checks stay on for **every** bind. Allowed by default: the loopback names
  (``127.0.0.1``, ``localhost``, ``[::1]``, any port), plus, when bound to one non-loopback
  address, that address, and when bound to every interface (``0.0.0.0`` / ``::``), this
  machine's host name (``socket.gethostname()``, no DNS lookup). Anything else — another
  name, an IP address clients use — is added explicitly (``allowed_hosts`` / ``--allow-host``).
  Origins default to the loopback ones (browser clients on this machine); others are added with
  ``allowed_origins`` / ``--allow-origin``. Requests without an ``Origin`` (non-browser
  clients) pass the Origin check.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
import secrets
import socket
from typing import Iterable, Optional

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

__all__ = ["TOKEN_ENV", "StaticTokenVerifier", "allow_lists", "auth_settings", "check_token_argument",
           "is_loopback", "resolve_token", "transport_security"]

#: Environment variable read for the server's bearer token when none is passed.
TOKEN_ENV = "WORKBENCH_MCP_TOKEN"

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")
_TOKEN_TEXT = re.compile(r"^[\x21-\x7e]+$")  # visible ASCII: fits an HTTP header unchanged


def is_loopback(address: str) -> bool:
    """Whether a bound address (``sock.getsockname()[0]``) is reachable from this machine only."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return address == "localhost"


def _check_token(token: object, source: str) -> str:
    if not isinstance(token, str):
        raise TypeError(f"The MCP server token ({source}) must be a string, got {type(token).__name__}")
    if not _TOKEN_TEXT.match(token):
        raise ValueError(f"The MCP server token ({source}) must be non-empty visible ASCII without spaces "
                         "(it is sent as 'Authorization: Bearer <token>')")
    return token


def check_token_argument(token: Optional[str]) -> None:
    """Raise early (before binding a port) if a ``token=`` argument cannot be used."""
    if token is not None:
        _check_token(token, "token=")


def resolve_token(token: Optional[str], bound_address: str) -> tuple[Optional[str], bool]:
    """``(token or None, generated?)``: the given token, else ``$WORKBENCH_MCP_TOKEN``, else a
    random one when the server listens beyond loopback (a loopback server without one is open)."""
    if token is not None:
        return _check_token(token, "token="), False
    from_env = os.environ.get(TOKEN_ENV)
    if from_env:
        return _check_token(from_env, f"${TOKEN_ENV}"), False
    if is_loopback(bound_address):
        return None, False
    return secrets.token_urlsafe(32), True


def _split_port(value: str) -> tuple[str, str]:
    """``"[::1]:80"`` → ``("[::1]", ":80")``; a bare IPv6 literal gets its Host-header brackets."""
    if value.startswith("["):
        end = value.find("]") + 1
        return value[:end], value[end:]
    if value.count(":") == 1:
        host, port = value.split(":")
        return host, ":" + port
    if value.count(":") > 1:
        return f"[{value}]", ""
    return value, ""


def _with_any_port(value: str) -> list[str]:
    """``name`` → ``[name, name:*]`` (any port); ``name:8443`` or ``name:*`` is kept as it is."""
    host, port = _split_port(value.strip().rstrip("/").lower())
    if not host:
        raise ValueError(f"An allowed host must be a name or address (optionally with ':port'), got {value!r}")
    return [host + port] if port else [host, f"{host}:*"]


def _origin_any_port(value: str) -> list[str]:
    value = value.strip().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if not sep or not rest:
        raise ValueError(f"An allowed origin must look like 'https://app.example' (scheme://host[:port]), got {value!r}")
    return [f"{scheme}://{v}" for v in _with_any_port(rest)]


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def default_hosts(bound_address: str) -> list[str]:
    """Host names allowed without ``allowed_hosts`` (see the module docstring)."""
    hosts = list(_LOOPBACK_HOSTS)
    if not is_loopback(bound_address):
        if bound_address in _WILDCARDS:
            hosts.append(socket.gethostname().lower())
        else:
            hosts.append(bound_address)
    return hosts


def allow_lists(allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """The user's extra Host / Origin values, checked and expanded (a value without a port → any port)."""
    for label, values in (("allowed_hosts", allowed_hosts), ("allowed_origins", allowed_origins)):
        if isinstance(values, str):
            raise TypeError(f"{label} takes a list of names, got the single string {values!r}")
    hosts = [h for value in allowed_hosts or () for h in _with_any_port(value)]
    origins = [o for value in allowed_origins or () for o in _origin_any_port(value)]
    return hosts, origins


def transport_security(bound_address: str, allowed_hosts: Iterable[str] = (),
                       allowed_origins: Iterable[str] = ()) -> TransportSecuritySettings:
    """The SDK's Host/Origin settings for a server bound to ``bound_address`` (always enabled):
    the defaults (module docstring) plus ``allowed_hosts`` / ``allowed_origins``."""
    extra_hosts, extra_origins = allow_lists(allowed_hosts, allowed_origins)
    hosts = _unique([h for value in default_hosts(bound_address) for h in _with_any_port(value)] + extra_hosts)
    origins = _unique([o for value in _LOOPBACK_HOSTS for o in _origin_any_port(f"http://{value}")] + extra_origins)
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` for one shared secret, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> Optional[AccessToken]:
        if hmac.compare_digest(token.encode("utf-8", "surrogateescape"), self._token):
            return AccessToken(token=token, client_id="workbench-token", scopes=[])
        return None


def auth_settings(url: str) -> AuthSettings:
    """Settings that switch on the SDK's bearer middleware (no OAuth endpoints: the token is shared)."""
    return AuthSettings(issuer_url=url, resource_server_url=None)
