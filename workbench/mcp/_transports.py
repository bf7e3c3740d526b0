"""The transports :func:`workbench.mcp.connect` opens: stdio (a server process) and HTTP.

:func:`open_transport` turns ``connect()``'s arguments into the SDK transport (an async context
manager yielding the read/write streams), a label for messages (credentials masked), the credentials
to keep out of messages, the server's stderr file (stdio) and a list where HTTP 401/403 answers are noted.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from mcp.client.stdio import StdioServerParameters

from workbench.mcp._stdio import ServerProcess, stdio_transport
from workbench.secrets import command_secrets, header_secrets, mask_command, mask_url, url_secrets

__all__ = [
    "AUTH_REFUSALS",
    "HTTP_TRANSPORTS",
    "MAX_SSE_EVENT_SIZE",
    "OpenedTransport",
    "REFUSALS",
    "open_transport",
    "refusal_note",
]

#: The largest server-sent event a streamable-HTTP connection accepts (the SDK's default, 1 MiB, fails a
#: tool result above it: a result answered on an event stream — a call that reports progress, or any
#: call to a server that streams every answer — is one event). JSON answers have no such cap.
MAX_SSE_EVENT_SIZE = 64 * 1024 * 1024

REFUSALS = {
    401: "HTTP 401: the server wants a bearer token — connect(url, token='...') (a workbench server prints a "
    "generated one at start, or uses its --token / $WORKBENCH_MCP_TOKEN)",
    403: "HTTP 403: the server refused the request (a wrong token, or an Origin it does not allow)",
}
#: the same answers on a connection whose ``auth=`` (``OAuth``…) was to get the credentials: a token is not the fix
AUTH_REFUSALS = {
    401: "HTTP 401: the server did not accept the access token the auth= provider got for it",
    403: "HTTP 403: the server refused the access token (a scope it lacks) or the request's Origin",
}


def refusal_note(status: int, *, auth: bool) -> str:
    """What an HTTP 401/403 answer means for a connection with or without ``auth=``."""
    return (AUTH_REFUSALS if auth else REFUSALS).get(status, f"HTTP {status}")


@dataclass
class OpenedTransport:
    """What :func:`open_transport` made: the SDK transport and what the connection keeps of it."""

    transport: Any
    label: str  #: the command or URL, credentials masked (it is shown in reprs, errors and the inspector)
    stderr_file: Any = None
    refused: list[int] = field(default_factory=list)
    process: Optional[ServerProcess] = None  #: the server process of a command= connection
    secrets: list[str] = field(default_factory=list)  #: the credentials the label masks, and the headers'


@contextlib.asynccontextmanager
async def _streamable_http(url: str, headers: Optional[dict[str, str]], auth: Any, refused: list[int]) -> Any:
    """The SDK's streamable-HTTP transport; 401/403 answers are noted in ``refused`` (the SDK
    reports them only as "Server returned an error response")."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def note_refusal(response: Any) -> None:
        if response.status_code in (401, 403):
            refused.append(response.status_code)

    async with create_mcp_http_client(headers=headers or None, auth=auth) as http:
        http.event_hooks["response"].append(note_refusal)
        async with streamable_http_client(url, http_client=http, max_sse_event_size=MAX_SSE_EVENT_SIZE) as streams:
            yield streams


@contextlib.asynccontextmanager
async def _sse(url: str, headers: Optional[dict[str, str]], auth: Any, refused: list[int]) -> Any:
    """The SDK's HTTP+SSE transport (protocol 2024-11-05 servers: a GET event stream plus POSTed
    messages); 401/403 answers are noted as for streamable HTTP."""
    from mcp.client.sse import sse_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def note_refusal(response: Any) -> None:
        if response.status_code in (401, 403):
            refused.append(response.status_code)

    def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
        http = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        http.event_hooks["response"].append(note_refusal)
        return http

    async with sse_client(url, headers=headers or None, auth=auth, httpx_client_factory=factory) as streams:
        yield streams


# transport name -> a factory of the SDK transport for a URL (data-driven, like the provider table)
HTTP_TRANSPORTS = {
    "streamable-http": _streamable_http,
    "sse": _sse,
}


def command_label(argv: Sequence[str]) -> str:
    """A command line as people read it: credentials masked, and the kernel's own interpreter
    (``sys.executable``) as ``python`` — its path is this machine's, and would be saved with notebooks."""
    shown = ["python" if index == 0 and part == sys.executable else part for index, part in enumerate(argv)]
    return shlex.join(mask_command(shown))


def open_transport(
    *,
    command: Optional[Sequence[str] | str],
    url: Optional[str],
    env: Optional[dict[str, str]],
    cwd: Any,
    headers: Optional[dict[str, str]],
    transport: Optional[str] = None,
    auth: Any = None,
) -> OpenedTransport:
    """The SDK transport for ``command=`` (stdio) or ``url=`` (HTTP, ``transport`` picks the kind)."""
    if command is not None:
        if transport not in (None, "stdio"):
            raise ValueError(f"connect(command=...) talks stdio; transport={transport!r} is for url= servers")
        if auth is not None:
            raise ValueError("connect(auth=...) is for url= servers; a command= server needs none")
        argv = shlex.split(command) if isinstance(command, str) else [os.fspath(part) for part in command]
        if not argv:
            raise ValueError("connect(command=...) needs a program to run")
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
        stderr_file = tempfile.NamedTemporaryFile(
            "w+", prefix="workbench-mcp-", suffix=".stderr", delete=False, encoding="utf-8"
        )
        transport, process = stdio_transport(params, stderr_file)
        return OpenedTransport(
            transport, command_label(argv), stderr_file, process=process, secrets=command_secrets(argv)
        )
    assert url is not None
    kind = transport or "streamable-http"
    factory = HTTP_TRANSPORTS.get(kind)
    if factory is None:
        raise ValueError(f"connect(transport={kind!r}): expected one of {sorted(HTTP_TRANSPORTS)}")
    if auth is not None and hasattr(auth, "provider"):  # workbench.mcp.OAuth: the SDK provider for this URL
        auth = auth.provider(url)
    refused: list[int] = []
    return OpenedTransport(
        factory(url, headers, auth, refused),
        mask_url(url),
        None,
        refused,
        secrets=url_secrets(url) + header_secrets(headers),
    )
