"""Transport objects: how :func:`workbench.mcp.connect` reaches a server, as one value.

``connect(StdioTransport([...], env=..., cwd=...))``, ``connect(HttpTransport(url, token=...))`` and
``connect(InProcessTransport(server))`` say where the server is; the session's own settings
(``registry=``, ``prefix=``, timeouts, handlers, ``log=``…) stay keywords of ``connect()``. The older
keywords (``command=``, ``url=``, ``env=``, ``cwd=``, ``headers=``, ``token=``, ``auth=``,
``transport="sse"``, ``server=``, ``config=``) still work: :func:`transport_of` builds the object from
them. Each object's :meth:`open` makes the SDK transport (``workbench.mcp._transports``); its repr
masks credentials (``workbench.secrets``), so it can be shown and saved with a notebook.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence, Union, runtime_checkable

from workbench.mcp._config import read_server_config
from workbench.mcp._transports import HTTP_TRANSPORTS, OpenedTransport, command_label, open_transport
from workbench.secrets import MASK, mask_header, mask_url

__all__ = ["HttpTransport", "InProcessTransport", "McpTransport", "StdioTransport", "transport_of"]


@runtime_checkable
class McpTransport(Protocol):
    """What ``connect()`` takes as its first argument: anything that opens a transport to a server."""

    def open(self) -> OpenedTransport:
        """The SDK transport (opened later, on the connection's loop) and what the connection keeps of it."""
        ...

    def connect_arguments(self) -> dict[str, Any]:
        """The same server as ``connect()`` keywords (``connection.config()`` writes them as an entry)."""
        ...


def _argv(command: Union[str, os.PathLike, Sequence[Any]], args: Sequence[Any]) -> list[str]:
    if isinstance(command, (str, os.PathLike)) and not args:
        return shlex.split(os.fspath(command)) if isinstance(command, str) else [os.fspath(command)]
    if isinstance(command, (str, os.PathLike)):
        return [os.fspath(command), *(os.fspath(a) for a in args)]
    if isinstance(command, (list, tuple)):
        return [os.fspath(part) for part in (*command, *args)]
    raise TypeError(
        f"StdioTransport(command=...): expected a program (a string) or a command line (a list of "
        f"strings), not {type(command).__name__}"
    )


@dataclass(frozen=True, repr=False)
class StdioTransport:
    """A server started as a subprocess, spoken to over its stdin/stdout.

    Args:
        command: the program (``"python"``) with ``args``, or a whole command line (a list, or a
            string split with ``shlex``).
        args: the program's arguments.
        env: variables added to the minimal environment the process gets (the SDK's default:
            ``PATH``, ``HOME``…).
        cwd: the directory it runs in.
    """

    command: Union[str, os.PathLike, Sequence[str]] = field(compare=False)
    args: Sequence[str] = field(default=(), compare=False)
    env: Optional[dict[str, str]] = None
    cwd: Optional[Union[str, os.PathLike]] = None
    argv: list[str] = field(init=False)  #: the whole command line (what two transports are compared by)

    def __post_init__(self) -> None:
        argv = _argv(self.command, self.args)
        if not argv:
            raise ValueError("StdioTransport(command=...) needs a program to run")
        object.__setattr__(self, "argv", argv)

    def open(self) -> OpenedTransport:
        """Start the server process (see ``workbench.mcp._stdio``)."""
        return open_transport(command=self.argv, url=None, env=self.env, cwd=self.cwd, headers=None)

    def connect_arguments(self) -> dict[str, Any]:
        return {"command": self.argv, "env": self.env, "cwd": self.cwd}

    def __repr__(self) -> str:
        shown = [repr(command_label(self.argv))]
        if self.env:
            shown.append(f"env={ {name: MASK for name in self.env}!r}")  # as config() exports them: names only
        if self.cwd is not None:
            shown.append(f"cwd={os.fspath(self.cwd)!r}")
        return f"StdioTransport({', '.join(shown)})"


@dataclass(frozen=True, repr=False)
class HttpTransport:
    """A server at a URL: Streamable HTTP (``kind="streamable-http"``, the default) or the older
    HTTP+SSE (``kind="sse"``).

    Args:
        url: the endpoint (``http://127.0.0.1:8000/mcp``).
        headers: sent with every request.
        token: the server's bearer token (sent as ``Authorization: Bearer <token>``).
        auth: :class:`workbench.mcp.OAuth` or any ``httpx.Auth``.
        kind: ``"streamable-http"`` or ``"sse"``.
    """

    url: str
    headers: Optional[dict[str, str]] = None
    token: Optional[str] = None
    auth: Any = None
    kind: str = "streamable-http"

    def __post_init__(self) -> None:
        if not isinstance(self.url, str) or not self.url.startswith(("http://", "https://")):
            raise ValueError(
                f"HttpTransport(url=...): expected an http:// or https:// URL, got "
                f"{mask_url(self.url) if isinstance(self.url, str) else type(self.url).__name__!r}"
            )
        if self.kind not in HTTP_TRANSPORTS:
            raise ValueError(f"connect(transport={self.kind!r}): expected one of {sorted(HTTP_TRANSPORTS)}")
        if self.token is not None and any(key.lower() == "authorization" for key in self.headers or {}):
            raise ValueError("connect() got both token= and an Authorization header: pass the token once")

    def sent_headers(self) -> Optional[dict[str, str]]:
        """The headers every request carries (the token as ``Authorization``)."""
        if self.token is None:
            return self.headers
        return {**(self.headers or {}), "Authorization": f"Bearer {self.token}"}

    def open(self) -> OpenedTransport:
        """The SDK's HTTP transport for the URL (it connects when the session starts)."""
        return open_transport(
            command=None,
            url=self.url,
            env=None,
            cwd=None,
            headers=self.sent_headers(),
            transport=self.kind,
            auth=self.auth,
        )

    def connect_arguments(self) -> dict[str, Any]:
        return {"url": self.url, "headers": self.sent_headers(), "transport": self.kind, "auth": self.auth}

    def __repr__(self) -> str:
        shown = [repr(mask_url(self.url))]
        if self.headers:
            shown.append(f"headers={ {name: mask_header(name, str(value)) for name, value in self.headers.items()}!r}")
        if self.token is not None:
            shown.append("token='***'")
        if self.auth is not None:
            shown.append(f"auth={type(self.auth).__name__}")
        if self.kind != "streamable-http":
            shown.append(f"kind={self.kind!r}")
        return f"HttpTransport({', '.join(shown)})"


@dataclass(frozen=True)
class InProcessTransport:
    """An MCP server object in this process (``MCPServer``/FastMCP, ``mcp.server.Server``,
    ``workbench.mcp.build_server(registry)``), connected in memory: no subprocess, no port."""

    server: Any

    def __post_init__(self) -> None:
        from workbench.mcp._memory import SERVER_CLASSES

        if not isinstance(self.server, SERVER_CLASSES):
            raise TypeError(
                f"connect(server=...) takes an MCP server object in this process (an "
                f"mcp.server.mcpserver.MCPServer, an mcp.server.Server or workbench.mcp.build_server(...)), "
                f"not {type(self.server).__module__}.{type(self.server).__qualname__}"
            )

    def open(self) -> OpenedTransport:
        from workbench.mcp._memory import open_in_memory

        return open_in_memory(self.server)

    def connect_arguments(self) -> dict[str, Any]:
        return {"server": self.server, "command": None, "url": None}


def _given(**options: Any) -> list[str]:
    return [f"{name}=" for name, value in options.items() if value is not None]


def transport_of(
    command: Any = None,
    *,
    url: Optional[str] = None,
    env: Optional[dict[str, str]] = None,
    cwd: Any = None,
    headers: Optional[dict[str, str]] = None,
    token: Optional[str] = None,
    transport: Any = None,
    auth: Any = None,
    config: Any = None,
    server: Any = None,
) -> McpTransport:
    """The transport object ``connect()``'s arguments name: a transport object given as the first
    argument or as ``transport=``, or one built from the keywords (a command line, a URL, a server
    object, a config entry). Conflicting or missing arguments are a ``ValueError`` naming them."""
    if isinstance(transport, McpTransport) or isinstance(command, McpTransport):
        given = transport if isinstance(transport, McpTransport) else command
        others = _given(
            url=url,
            env=env,
            cwd=cwd,
            headers=headers,
            token=token,
            auth=auth,
            config=config,
            server=server,
            command=command if given is transport else None,
            transport=transport if given is command else None,
        )
        if others:
            raise ValueError(
                f"connect() got the transport {given!r} and also {', '.join(others)}: give those to "
                f"the transport object"
            )
        return given
    if command is not None and not isinstance(command, (str, os.PathLike, list, tuple)):
        server, command = _server_given_as_command(command, server)
    if config is not None:
        if command is not None or url is not None:
            raise ValueError("connect() got config= and also command=/url=: the server comes from the config entry")
        entry = read_server_config(config, server)
        command, url = entry.get("command"), entry.get("url")
        if entry.get("env"):
            env = {**entry["env"], **(env or {})}
        if entry.get("headers"):
            headers = {**entry["headers"], **(headers or {})}
        cwd = cwd if cwd is not None else entry.get("cwd")
        transport = transport or (entry.get("transport") if url is not None else None)
        server = None
    elif isinstance(server, str):
        raise ValueError(
            f"connect(server={server!r}) names an entry of config=; pass config= too "
            "(an MCP server object in this process is connected in memory)"
        )
    if url is None and isinstance(command, str) and command.startswith(("http://", "https://")):
        url, command = command, None  # connect("http://…/mcp")
    if server is not None:
        given = _given(
            command=command, url=url, token=token, env=env, cwd=cwd, headers=headers, transport=transport, auth=auth
        )
        if given:
            InProcessTransport(server)  # a server of the wrong kind is named first
            raise ValueError(
                f"connect(server=...) connects in memory; {', '.join(given)} is for a server process or URL"
            )
        return InProcessTransport(server)
    if (command is None) == (url is None):
        raise ValueError(
            "connect() needs exactly one of command=[...] (stdio), url='http://…' (streamable HTTP) "
            "or server=<an MCP server object> (in memory)"
        )
    if command is not None:
        if token is not None:
            raise ValueError("connect(token=...) is for url= (streamable HTTP) servers; a command= server needs none")
        if transport not in (None, "stdio"):
            raise ValueError(f"connect(command=...) talks stdio; transport={transport!r} is for url= servers")
        if auth is not None:
            raise ValueError("connect(auth=...) is for url= servers; a command= server needs none")
        try:
            return StdioTransport(command, env=env, cwd=cwd)
        except ValueError:
            raise ValueError("connect(command=...) needs a program to run") from None
    assert url is not None  # exactly one of command and url, and command is None
    return HttpTransport(url, headers=headers, token=token, auth=auth, kind=transport or "streamable-http")


def _server_given_as_command(command: Any, server: Any) -> tuple[Any, None]:
    """``connect(server_object)``: the object is the server (in memory); anything else that is no
    command line is refused, naming what ``connect()`` takes."""
    from workbench.mcp._memory import SERVER_CLASSES

    if isinstance(command, SERVER_CLASSES):
        if server is not None:
            raise ValueError(
                "connect() got an MCP server object given both as the first argument and as server=: pass it once"
            )
        return command, None
    raise TypeError(
        f"connect() takes a command line (a string or a list of strings), a transport object "
        f"(StdioTransport, HttpTransport, InProcessTransport), url=, config= or server= "
        f"(an MCP server object in this process), not {type(command).__module__}."
        f"{type(command).__qualname__}"
    )
