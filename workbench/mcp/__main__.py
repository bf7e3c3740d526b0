"""``python -m workbench.mcp serve module.path [--transport stdio|streamable-http] [--host H] [--port P] [--log runs.sqlite]``."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m workbench.mcp", description="MCP tools for the workbench.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the tools of modules over MCP",
                                description="Serve every tool of the given modules (or module:function refs, "
                                            "or .py files) over MCP.")
    serve.add_argument("modules", nargs="+", metavar="module.path", help="tools to serve (module, module:function or file.py)")
    serve.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="streamable-http: interface to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="streamable-http: port (0 picks a free one; default 8000)")
    serve.add_argument("--path", default="/mcp", help="streamable-http: endpoint path (default /mcp)")
    serve.add_argument("--log", metavar="runs.sqlite", help="append every call to this execution log")
    serve.add_argument("--timeout", type=float, help="default per-call timeout in seconds")
    serve.add_argument("--name", default="workbench", help="server name reported to clients")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        import os

        from workbench.mcp._server import serve
        from workbench.registry import ToolRegistry

        if "" not in sys.path and os.getcwd() not in sys.path:  # `python -m` puts the cwd first; keep it for entry points
            sys.path.insert(0, os.getcwd())
        registry = ToolRegistry()
        try:
            registry.process_tools(list(args.modules))
        except (ValueError, ImportError) as exc:
            print(f"workbench.mcp: {exc}", file=sys.stderr)
            return 2
        try:
            serve(registry, args.transport, args.host, args.port, log=args.log, path=args.path,
                  timeout=args.timeout, name=args.name)
        except KeyboardInterrupt:
            pass
        return 0
    return 2  # pragma: no cover - argparse rejects other commands


if __name__ == "__main__":
    sys.exit(main())
