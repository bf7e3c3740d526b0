"""Tools served by ``python -m workbench.mcp serve tests.mcp_sample_tools`` in tests/test_mcp/test_mcp.py."""

from __future__ import annotations

import asyncio
import struct
import time
import zlib
from typing import Literal, Optional

from typing_extensions import TypedDict

from workbench import ToolContext, tool


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG, built without PIL."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


RED_PNG = _png(2, 2, (255, 0, 0))


class Stats(TypedDict):
    count: int
    mean: float
    label: str


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


@tool
def greet(name: str, punctuation: Literal["!", "."] = "!") -> str:
    """Greet someone by name."""
    return f"Hello, {name}{punctuation}"


@tool
def shout(text: str):
    """Upper-case a text (no return annotation: no output schema)."""
    return text.upper()


@tool
def stats(values: list[float], label: Optional[str] = None) -> Stats:
    """Count and average some numbers."""
    return {"count": len(values), "mean": sum(values) / len(values) if values else 0.0, "label": label or "values"}


@tool
def pair(x: int):
    """A list without a return annotation (structured content is wrapped and marked)."""
    return [x, x * 2]


@tool
def red_square() -> bytes:
    """A small red PNG image."""
    return RED_PNG


@tool
def fail(message: str) -> str:
    """Always raise ValueError with the message."""
    raise ValueError(message)


@tool(timeout=0.5)
async def slow(seconds: float) -> str:
    """Sleep longer than the tool's 0.5 s timeout allows."""
    await asyncio.sleep(seconds)
    return "finished"


@tool(context=True)
async def countdown(steps: int, tool_context: ToolContext) -> str:
    """Report progress in ``steps`` equal steps."""
    for i in range(1, steps + 1):
        await asyncio.sleep(0.01)
        tool_context.report_progress(i / steps, f"step {i}/{steps}")
    return f"done after {steps} steps"


@tool(context=True)
def sync_countdown(steps: int, tool_context: ToolContext) -> int:
    """A sync tool (it runs in a worker thread) reporting progress."""
    for i in range(1, steps + 1):
        time.sleep(0.01)
        tool_context.report_progress(i / steps, f"sync {i}")
    return steps


@tool(permission="ask")
def guarded(x: int) -> int:
    """Needs approval: denied when nobody approves."""
    return x


@tool
def server_pid() -> int:
    """The process id of the process running the tools."""
    import os

    return os.getpid()
