"""Who may call a streamable-HTTP MCP server: a bearer token and Host/Origin allow-lists.

A :class:`HostPolicy` (Host → 421, Origin → 403; MCP's DNS-rebinding guidance) that parses both
headers as RFC 3986 authorities — host names compared case-insensitively, IPv6 in brackets, user
info (``127.0.0.1:80@evil.example``), bad ports and garbage refused — and the SDK's bearer-auth
backend with a :class:`StaticTokenVerifier` (missing or wrong token → 401, told apart as RFC 6750
§3.1 says). The policy (README.md, "Security notes"):

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
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from mcp.server.auth.provider import AccessToken

__all__ = [
    "TOKEN_ENV",
    "HostPattern",
    "HostPolicy",
    "OriginPattern",
    "StaticTokenVerifier",
    "allow_lists",
    "check_token_argument",
    "host_policy",
    "is_loopback",
    "parse_authority",
    "parse_origin",
    "resolve_token",
]

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
        raise ValueError(
            f"The MCP server token ({source}) must be non-empty visible ASCII without spaces "
            "(it is sent as 'Authorization: Bearer <token>')"
        )
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


_DEFAULT_PORTS = {"http": 80, "https": 443}
_PORT = r"(?::(?P<port>[0-9]{1,5}))?"
_HOST = r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?))"
_AUTHORITY = re.compile(_HOST + _PORT)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def parse_authority(text: str) -> Optional[tuple[str, Optional[int]]]:
    """``(host, port or None)`` for a ``Host``-style authority (RFC 3986 ``host [":" port]``), or
    ``None`` when ``text`` is not one: user info (``a@b``), a bad or empty port, a path, a bare
    IPv6 address, spaces or other garbage. ``host`` is compared-ready: a name in lower case without
    a trailing dot, an IPv4 address, or a bracketed IPv6 address in its compressed form (``[::1]``)."""
    found = _AUTHORITY.fullmatch(text)
    if found is None:
        return None
    port = found.group("port")
    number = int(port) if port is not None else None
    if number is not None and not 0 < number < 65536:
        return None
    if found.group("ipv6") is not None:
        try:
            return f"[{ipaddress.IPv6Address(found.group('ipv6'))}]", number
        except ValueError:
            return None
    name = found.group("name").lower()
    name = name[:-1] if name.endswith(".") else name
    try:
        return str(ipaddress.IPv4Address(name)), number
    except ValueError:
        return name, number


def parse_origin(text: str) -> Optional[tuple[str, str, Optional[int]]]:
    """``(scheme, host, port)`` of an ``Origin`` (``scheme://host[:port]``, nothing after it), the
    port being the scheme's default when omitted (``None`` for a scheme without one); ``None`` for
    anything else (``null``, user info, a path…)."""
    scheme, sep, rest = text.partition("://")
    if not sep or not _SCHEME.fullmatch(scheme):
        return None
    authority = parse_authority(rest)
    if authority is None:
        return None
    scheme = scheme.lower()
    host, port = authority
    return scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme)


@dataclass(frozen=True)
class HostPattern:
    """An allowed ``Host``: a host and one port, or any port (``port=None``)."""

    host: str
    port: Optional[int] = None

    def matches(self, host: str, port: Optional[int]) -> bool:
        return host == self.host and (self.port is None or port == self.port)

    def __str__(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class OriginPattern:
    """An allowed ``Origin``: scheme and host, and one port or any port (``port=None``)."""

    scheme: str
    host: str
    port: Optional[int] = None

    def matches(self, origin: tuple[str, str, Optional[int]]) -> bool:
        scheme, host, port = origin
        return scheme == self.scheme and host == self.host and (self.port is None or port == self.port)

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host}" + ("" if self.port is None else f":{self.port}")


def _host_pattern(value: str) -> HostPattern:
    """``name`` or ``name:*`` → any port; ``name:8443`` → that port (see :func:`parse_authority`)."""
    if not isinstance(value, str):
        raise TypeError(f"An allowed host must be a string, got {type(value).__name__}")
    text = value.strip().rstrip("/")
    any_port = text.endswith(":*")
    if any_port:
        text = text[:-2]
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address, as people write it on a command line
    parsed = parse_authority(text)
    if parsed is None or (any_port and parsed[1] is not None):
        raise ValueError(
            f"An allowed host must be a name or address, optionally with ':port' (1-65535) "
            f"or ':*' — no user info, path or scheme; got {value!r}"
        )
    return HostPattern(parsed[0], parsed[1])


def _origin_pattern(value: str) -> OriginPattern:
    """``scheme://host`` (or ``…:*``) → any port; ``scheme://host:port`` → that port."""
    if not isinstance(value, str):
        raise TypeError(f"An allowed origin must be a string, got {type(value).__name__}")
    scheme, sep, rest = value.strip().rstrip("/").partition("://")
    any_port = rest.endswith(":*")
    if any_port:
        rest = rest[:-2]
    authority = parse_authority(rest) if sep and _SCHEME.fullmatch(scheme) else None
    if authority is None or (any_port and authority[1] is not None):
        raise ValueError(
            f"An allowed origin must look like 'https://app.example' (scheme://host[:port], port "
            f"1-65535, no user info or path), got {value!r}"
        )
    return OriginPattern(scheme.lower(), *authority)


def _unique(values: Iterable) -> list:
    return list(dict.fromkeys(values))


def default_hosts(bound_address: str) -> list[str]:
    """Host names allowed without ``allowed_hosts`` (see the module docstring)."""
    hosts = list(_LOOPBACK_HOSTS)
    if not is_loopback(bound_address):
        if bound_address in _WILDCARDS:
            hosts.append(socket.gethostname().lower())
        else:
            hosts.append(bound_address.split("%", 1)[0])  # an IPv6 zone is not part of a Host header
    return hosts


def allow_lists(
    allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()
) -> tuple[list[HostPattern], list[OriginPattern]]:
    """The user's extra Host / Origin values, checked and parsed (a value without a port → any port)."""
    for label, values in (("allowed_hosts", allowed_hosts), ("allowed_origins", allowed_origins)):
        if isinstance(values, str):
            raise TypeError(f"{label} takes a list of names, got the single string {values!r}")
    hosts = [_host_pattern(value) for value in allowed_hosts or ()]
    origins = [_origin_pattern(value) for value in allowed_origins or ()]
    return hosts, origins


@dataclass(frozen=True)
class HostPolicy:
    """The ``Host`` and ``Origin`` values a server accepts (MCP's DNS-rebinding guidance)."""

    hosts: tuple[HostPattern, ...]
    origins: tuple[OriginPattern, ...]

    def allows_host(self, value: Optional[str]) -> bool:
        """Whether a ``Host`` header names this server (a missing or malformed one does not)."""
        parsed = parse_authority(value) if value else None
        return parsed is not None and any(pattern.matches(*parsed) for pattern in self.hosts)

    def allows_origin(self, value: Optional[str]) -> bool:
        """Whether an ``Origin`` header is allowed; a request without one (not a browser's) is."""
        if not value:
            return True
        parsed = parse_origin(value)
        return parsed is not None and any(pattern.matches(parsed) for pattern in self.origins)


def host_policy(
    bound_address: str, allowed_hosts: Iterable[Any] = (), allowed_origins: Iterable[Any] = ()
) -> HostPolicy:
    """The Host/Origin policy of a server bound to ``bound_address`` (always on): the defaults
    (module docstring) plus ``allowed_hosts`` / ``allowed_origins`` (strings, or the patterns
    :func:`allow_lists` made)."""
    extra_hosts = [h if isinstance(h, HostPattern) else _host_pattern(h) for h in allowed_hosts or ()]
    extra_origins = [o if isinstance(o, OriginPattern) else _origin_pattern(o) for o in allowed_origins or ()]
    defaults = []
    for value in default_hosts(bound_address):
        try:
            defaults.append(_host_pattern(value))
        except ValueError:  # a host name no Host header can carry: nothing to allow
            pass
    hosts = _unique(defaults + extra_hosts)
    origins = _unique([_origin_pattern(f"http://{value}") for value in _LOOPBACK_HOSTS] + extra_origins)
    return HostPolicy(tuple(hosts), tuple(origins))


class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` for one shared secret, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> Optional[AccessToken]:
        if hmac.compare_digest(token.encode("utf-8", "surrogateescape"), self._token):
            return AccessToken(token=token, client_id="workbench-token", scopes=[])
        return None
