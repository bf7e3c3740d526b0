"""``python -m workbench.mcp serve module.path [--transport stdio|streamable-http] [--host H] [--port P] [--log runs.sqlite]
[--token T] [--allow-host H]... [--allow-origin O]... [--json-response]``."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from workbench.mcp._security import TOKEN_ENV

_SECURITY_NOTE = f"""\
security (streamable-http): the server runs these tools for whoever can reach it.
  - The default --host 127.0.0.1 is reachable from this machine only; a bearer token is
    optional there (on when --token or ${TOKEN_ENV} is given).
  - WARNING: --host 0.0.0.0 (or any non-loopback address) exposes the tools to the network.
    A bearer token is then required: --token, ${TOKEN_ENV}, or a random one printed at
    start. Clients send 'Authorization: Bearer <token>' (workbench.mcp.connect(url, token=...)).
    The traffic is plain HTTP: anyone on the path can read the token; use a TLS proxy on
    untrusted networks.
  - Host and Origin headers are checked on every bind (DNS-rebinding protection): loopback
    names, plus the bound address (or on 0.0.0.0 this machine's host name) are allowed; add
    the names or IP addresses clients use with --allow-host, browser origins with --allow-origin.
    Names compare case-insensitively; a Host with user info (a@b), a bad port or anything but
    host[:port] gets 421, such an Origin 403.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workbench.mcp", description="MCP tools for the workbench.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve the tools, resources and prompts of modules over MCP",
        description="Serve every tool, @resource and @prompt of the given modules (or "
        "module:function refs, or .py files) over MCP.",
        epilog=_SECURITY_NOTE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "modules", nargs="+", metavar="module.path", help="tools to serve (module, module:function or file.py)"
    )
    serve.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="streamable-http: interface to listen on (default 127.0.0.1; anything beyond loopback, "
        "e.g. 0.0.0.0, requires a bearer token — see below)",
    )
    serve.add_argument(
        "--port", type=int, default=8000, help="streamable-http: port (0 picks a free one; default 8000)"
    )
    serve.add_argument("--path", default="/mcp", help="streamable-http: endpoint path (default /mcp)")
    serve.add_argument("--log", metavar="runs.sqlite", help="append every call to this execution log")
    serve.add_argument("--timeout", type=float, help="default per-call timeout in seconds")
    serve.add_argument("--name", default="workbench", help="server name reported to clients")
    serve.add_argument(
        "--json-response",
        action="store_true",
        help="streamable-http: answer every request with one JSON body, even a call that reports "
        "progress (its progress is then not sent). Without it only calls that stream progress "
        "are answered as an event stream, whose one answer event MCP SDK clients cap at "
        "1 MiB by default",
    )
    serve.add_argument(
        "--token",
        help=f"streamable-http: bearer token clients must send (default ${TOKEN_ENV}; "
        "prefer the variable: arguments are visible to other local users)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="streamable-http: also accept this Host header (repeatable; no port = any port)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="SCHEME://HOST[:PORT]",
        help="streamable-http: also accept this Origin header (repeatable; no port = any port)",
    )
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        import os

        from workbench.mcp._discover import collect
        from workbench.mcp._server import serve

        if (
            "" not in sys.path and os.getcwd() not in sys.path
        ):  # `python -m` puts the cwd first; keep it for entry points
            sys.path.insert(0, os.getcwd())
        try:
            registry, served = collect(list(args.modules))
        except (ValueError, ImportError) as exc:
            print(f"workbench.mcp: {exc}", file=sys.stderr)
            return 2
        try:
            serve(
                registry,
                args.transport,
                args.host,
                args.port,
                log=args.log,
                path=args.path,
                timeout=args.timeout,
                name=args.name,
                token=args.token,
                allowed_hosts=args.allow_host,
                allowed_origins=args.allow_origin,
                json_response=args.json_response,
                served=served,
            )
        except KeyboardInterrupt:
            pass
        return 0
    return 2  # pragma: no cover - argparse rejects other commands


if __name__ == "__main__":
    sys.exit(main())
