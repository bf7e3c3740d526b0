"""Tools served by tests/test_mcp/test_server_http_results_and_checks.py (issue #18's server-side defects)."""

from __future__ import annotations

import base64
import struct
import zlib

from workbench import ToolContext, tool


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png_with_text(text: bytes) -> bytes:
    """A 1×1 PNG carrying ``text`` in a tEXt chunk (so its base64 can be made to hold ``+`` and ``/``)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"tEXt", b"note\x00" + text)
        + _chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + _chunk(b"IEND", b"")
    )


#: a PNG whose standard base64 differs from its URL-safe base64 (it holds ``+`` and ``/``)
ODD_PNG = _png_with_text(bytes([0xFB, 0xFF, 0xBF, 0xFE, 0xFB, 0xEF]) * 4)
assert {"+", "/"} <= set(base64.b64encode(ODD_PNG).decode("ascii"))


@tool
def png_bytes() -> bytes:
    """A PNG as bytes (declared ``bytes``: it has an output schema)."""
    return ODD_PNG


@tool
def pil_square():
    """A PIL image."""
    import PIL.Image

    return PIL.Image.new("RGB", (3, 3), (0, 128, 255))


@tool
def big_text(megabytes: float) -> str:
    """A string of ``megabytes`` MB (a digit pattern, so the client can check every byte)."""
    size = int(megabytes * 1_000_000)
    return ("0123456789" * (size // 10 + 1))[:size]


@tool
def big_record(megabytes: float) -> dict:
    """An object holding a ``megabytes`` MB string and its length."""
    text = big_text(megabytes)
    return {"size": len(text), "text": text}


@tool(context=True)
def big_text_after_progress(megabytes: float, tool_context: ToolContext) -> str:
    """Reports progress, then returns what ``big_text`` does (the answer then rides an event stream)."""
    tool_context.report_progress(0.5, "half way")
    return big_text(megabytes)


#: bytes that are no image, whose standard and URL-safe base64 differ
ODD_BYTES = bytes([0, 1, 2, 0xFA, 0xFB, 0xFF])


@tool
def binary_bytes() -> bytes:
    """Bytes that are not an image (declared ``bytes``)."""
    return ODD_BYTES


@tool
def record_with_bytes() -> dict:
    """An object holding bytes."""
    return {"name": "blob", "raw": ODD_BYTES}
