"""MCP server configuration files — the ``mcpServers`` JSON of Claude Desktop, Cursor and MCP
Inspector (``{"mcpServers": {name: entry}}``; VS Code's ``{"servers": {...}}`` too):

* :meth:`ConfigExport.config` turns a connection back into its entry, as MCP Inspector's "Server
  Entry" export does — ``{"command", "args", "env"}`` for a server process, ``{"type": "http" | "sse",
  "url", "headers"}`` for a URL — with every secret replaced by a ``${NAME}`` placeholder: env values,
  ``Authorization`` and token-like headers, token-like arguments and URL query parameters, a password
  in the URL. Reading the entry back fills the placeholders from the environment.
* :func:`read_server_config` reads one entry (a path or a dict) into ``connect()``'s arguments,
  expanding ``${VAR}`` (and VS Code's ``${env:VAR}``) from ``os.environ``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any, Optional

from workbench.secrets import is_secret_name, mask_command, mask_header, mask_url

__all__ = ["ConfigExport", "is_secret_name", "read_server_config", "server_entry"]

_PLACEHOLDER = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
#: entry "type" -> connect(transport=...)
_TYPES = {
    "stdio": "stdio",
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
}


#: placeholders of secrets whose name is not a variable's (a URL's user info, the Authorization header)
_PLACEHOLDER_NAMES = {
    "authorization": "MCP_TOKEN",
    "proxy_authorization": "MCP_PROXY_TOKEN",
    "url_password": "MCP_PASSWORD",
    "url_user": "MCP_USER",
}


def _env_name(name: str) -> str:
    """``X-Api-Key`` → ``X_API_KEY`` (a placeholder's variable name)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name).upper().strip("_") or "SECRET"


def _placeholder(name: str) -> str:
    """The ``${NAME}`` that stands in for the secret called ``name`` (see ``workbench.secrets.Replace``)."""
    variable = _PLACEHOLDER_NAMES.get(re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")) or _env_name(name)
    return f"${{{variable}}}"


def server_entry(arguments: dict[str, Any]) -> dict[str, Any]:
    """The ``mcpServers`` entry for ``connect()``'s arguments, secrets masked (see the module docstring)."""
    command = arguments.get("command")
    if command is not None:
        argv = shlex.split(command) if isinstance(command, str) else [os.fspath(part) for part in command]
        entry: dict[str, Any] = {
            "command": argv[0],
            "args": mask_command(argv[1:], _placeholder),
            "env": {name: f"${{{name}}}" for name in (arguments.get("env") or {})},
        }
        if arguments.get("cwd") is not None:
            entry["cwd"] = os.fspath(arguments["cwd"])
        return entry
    kind = "sse" if arguments.get("transport") == "sse" else "http"
    entry = {"type": kind, "url": mask_url(str(arguments["url"]), _placeholder)}
    headers = {
        name: mask_header(name, str(value), _placeholder) for name, value in (arguments.get("headers") or {}).items()
    }
    if headers:
        entry["headers"] = headers
    return entry


class ConfigExport:
    """``connection.config()``; mixed into :class:`~workbench.mcp.McpConnection` (relies on its
    ``_connect_arguments`` and ``label``)."""

    def config(self, name: Optional[str] = None) -> dict[str, Any]:
        """This connection as an ``mcpServers`` entry — ``{"command", "args", "env"}`` or
        ``{"type": "http" | "sse", "url", "headers"}`` — with every secret a ``${NAME}`` placeholder
        (env values, Authorization and token-like headers, token-like arguments and query
        parameters). With ``name``: ``{"mcpServers": {name: entry}}``, a whole file's content.
        ``connect(config=..., server=name)`` reads it back, the placeholders filled from the environment."""
        arguments = getattr(self, "_connect_arguments", None)
        if arguments is None:
            raise ValueError(
                f"MCP connection to {getattr(self, 'label', '?')} was not made by connect(): no configuration to export"
            )
        transport = arguments.get("transport")
        if hasattr(transport, "connect_arguments"):  # a transport object: the server as connect() keywords
            arguments = {**arguments, **transport.connect_arguments()}
        entry = server_entry(arguments)
        return entry if name is None else {"mcpServers": {name: entry}}


def _expand(value: Any, where: str, server: str) -> Any:
    if isinstance(value, str):

        def variable(match: re.Match) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise ValueError(
                    f"MCP config server {server!r}: {where} uses ${{{name}}} but the environment variable "
                    f"{name} is not set"
                )
            return os.environ[name]

        return _PLACEHOLDER.sub(variable, value)
    if isinstance(value, list):
        return [_expand(item, f"{where}[{index}]", server) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _expand(item, f"{where}.{key}", server) for key, item in value.items()}
    return value


def _load(config: Any) -> tuple[dict[str, Any], str]:
    if isinstance(config, dict):
        return config, "the config dict"
    path = Path(os.fspath(config)).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"connect(config={str(path)!r}): cannot read it: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"connect(config={str(path)!r}): not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f'connect(config={str(path)!r}): expected a JSON object with "mcpServers"')
    return data, str(path)


def read_server_config(config: Any, server: Optional[str] = None) -> dict[str, Any]:
    """One server of a config file (a path) or dict, as ``connect()`` arguments (``command``, ``env``,
    ``cwd`` or ``url``, ``headers``, ``transport``), ``${VAR}`` expanded from the environment.

    ``config`` is ``{"mcpServers": {...}}``, VS Code's ``{"servers": {...}}``, or a single entry.
    ``server`` names the entry; it may be left out when there is only one."""
    data, source = _load(config)
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None and ("command" in data or "url" in data):
        servers = {server or "server": data}
    if not isinstance(servers, dict) or not servers:
        raise ValueError(f'connect(config=...): {source} has no "mcpServers" (or "servers") object of servers')
    if server is None:
        if len(servers) != 1:
            raise ValueError(
                f"connect(config=...): {source} has {len(servers)} servers — pick one with "
                f"server=: {', '.join(sorted(servers))}"
            )
        server = next(iter(servers))
    entry = servers.get(server)
    if entry is None:
        raise ValueError(
            f"connect(config=..., server={server!r}): {source} has no such server; it has {', '.join(sorted(servers))}"
        )
    if not isinstance(entry, dict):
        raise ValueError(f"MCP config server {server!r}: expected an object, got {type(entry).__name__}")
    entry = _expand(entry, "entry", server)
    kind = entry.get("type") or entry.get("transport") or ("stdio" if "command" in entry else "http")
    transport = _TYPES.get(kind)
    if transport is None:
        raise ValueError(f'MCP config server {server!r}: "type" is {kind!r}; expected one of {", ".join(_TYPES)}')
    if transport == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command:
            raise ValueError(f'MCP config server {server!r}: "command" must be a program name (a string)')
        args = entry.get("args") or []
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise ValueError(f'MCP config server {server!r}: "args" must be a list of strings')
        env = entry.get("env") or {}
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ValueError(f'MCP config server {server!r}: "env" must map names to strings')
        return {"command": [command, *args], "env": dict(env) or None, "cwd": entry.get("cwd")}
    url = entry.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError(f'MCP config server {server!r}: "url" must be an http:// or https:// URL')
    headers = entry.get("headers") or {}
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ValueError(f'MCP config server {server!r}: "headers" must map names to strings')
    return {"url": url, "headers": dict(headers) or None, "transport": transport}
