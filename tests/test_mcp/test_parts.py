"""``McpConnection`` is made of parts with one job each, none of them large; ``connect()``'s
keywords all still work beside the transport objects (their tests: test_mcp_transport_objects.py)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import workbench.mcp
from tests.test_log.test_log_parts import MAX_CLASS_CODE_LINES, _code_lines
from workbench.mcp import McpConnection, connect

# part (module) -> the class of McpConnection it holds
PARTS = {
    "_loop": "LoopThread",
    "_session": "Session",
    "_proxies": "ProxyTools",
    "_server_requests": "ServerRequests",
    "_features": "ClientFeatures",
    "_tasks": "TaskFeatures",
    "_cache": "CacheHints",
    "_config": "ConfigExport",
    "_client": "McpConnection",
}
KEYWORDS = {
    "url",
    "registry",
    "prefix",
    "replace",
    "env",
    "cwd",
    "headers",
    "token",
    "timeout",
    "connect_timeout",
    "read_timeout",
    "transport",
    "keepalive",
    "auth",
    "sampling",
    "elicitation",
    "roots",
    "log",
    "use_tasks",
    "config",
    "server",
    "protocol_version",
}


def test_the_connection_is_its_parts():
    classes = {f"{cls.__module__.rpartition('.')[2]}": cls.__name__ for cls in McpConnection.__mro__[:-1]}
    assert classes == PARTS


def test_no_part_of_the_connection_is_large():
    folder = Path(workbench.mcp.__file__).parent
    sizes = {}
    for module, name in PARTS.items():
        for node in ast.walk(ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name == name:
                sizes[name] = _code_lines(node)
    assert set(sizes) == set(PARTS.values())
    assert {name: size for name, size in sizes.items() if size > MAX_CLASS_CODE_LINES} == {}


def test_connect_keeps_its_keywords():
    parameters = inspect.signature(connect).parameters
    assert next(iter(parameters)) == "command" and KEYWORDS <= set(parameters)
