"""A raw MCP server for client tests: JSON-RPC over stdio written by hand (no SDK), so it can misbehave
in ways a real SDK server cannot be made to — run as ``python tests/mcp_raw_server.py [flags]``.

It speaks the handshake era (``initialize``; ``server/discover`` is answered "Method not found", so
clients fall back to the handshake) and declares only the ``tools`` capability. Tools: ``echo``
(text) and ``client_capabilities`` (the capabilities the client declared in ``initialize``, as JSON).

Flags:
    --pid-file PATH   write the process id there once it is up
    --bad-tool        also list ``broken``, a tool without ``inputSchema`` (MCP requires one)
    --ignore-term     ignore SIGTERM, and keep running after stdin closes (only SIGKILL ends it)
    --spin            burn 100 % of a CPU the whole time (a busy thread; the main loop still answers)
    --silent          read requests and never answer any (a server hung from the start)
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ECHO = {
    "name": "echo",
    "description": "Echo the text back.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
CAPS = {
    "name": "client_capabilities",
    "description": "The capabilities the client declared.",
    "inputSchema": {"type": "object", "properties": {}},
}
BROKEN = {"name": "broken", "description": "A tool whose listing lacks the required inputSchema."}


def _spin() -> None:
    while True:
        pass


def _send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}]}


def main(argv: list[str]) -> None:
    flags = set(argv)
    if "--pid-file" in argv:
        path = argv[argv.index("--pid-file") + 1]
        with open(path + ".tmp", "w", encoding="ascii") as out:
            out.write(str(os.getpid()))
        os.replace(path + ".tmp", path)
    if "--ignore-term" in flags:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "--spin" in flags:
        threading.Thread(target=_spin, daemon=True).start()
    tools = [ECHO, CAPS] + ([BROKEN] if "--bad-tool" in flags else [])
    client_capabilities: dict = {}
    for line in sys.stdin:
        if not line.strip() or "--silent" in flags:
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or a response to nothing we asked
        method, params, request_id = message["method"], message.get("params") or {}, message["id"]
        result: dict | None = None
        if method == "initialize":
            client_capabilities = params.get("capabilities") or {}
            asked = params.get("protocolVersion")
            result = {
                "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw-test-server", "version": "1"},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call" and params.get("name") == "echo":
            result = _text(str((params.get("arguments") or {}).get("text", "")))
        elif method == "tools/call" and params.get("name") == "client_capabilities":
            result = _text(json.dumps(client_capabilities, sort_keys=True))
        if result is None:
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"Method not found: {method}"},
                }
            )
        else:
            _send({"jsonrpc": "2.0", "id": request_id, "result": result})
    if "--ignore-term" in flags:  # stdin closed: a well-behaved server exits here; this one stays
        if "--spin" in flags:
            _spin()
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
