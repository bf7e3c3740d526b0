"""The tools the official MCP conformance suite's server scenarios call (tools-*, logging, elicitation,
sampling, json-schema-2020-12, server-sse-*), written as any workbench tool author would: ``@tool``
functions, with a ``ToolContext`` for logging, asking the client and sampling.

Served by tests/test_mcp/test_conformance_server.py with ``python -m workbench.mcp serve``.
"""

from __future__ import annotations

import json
import struct
import time
import zlib

from workbench import Audio, EmbeddedResource, ToolContext, tool


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


#: a 1×1 red PNG
RED_PIXEL = (
    b"\x89PNG\r\n\x1a\n"
    + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    + _chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
    + _chunk(b"IEND", b"")
)


def _wav(samples: int = 8, rate: int = 8000) -> bytes:
    """A tiny mono 8-bit PCM WAV file of silence."""
    data = b"\x80" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    return (
        b"RIFF"
        + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


#: a WAV file the tools return as bytes (the server recognises audio by its header)
SILENCE_WAV = _wav()


@tool
def test_simple_text() -> str:
    """Returns a fixed text."""
    return "This is a simple text response for testing."


@tool
def test_image_content() -> bytes:
    """Returns a 1×1 red PNG."""
    return RED_PIXEL


@tool
def test_audio_content():
    """Returns a short WAV file (no declared return type: audio, not a base64 string, is the result)."""
    return SILENCE_WAV


@tool
def test_embedded_resource():
    """Returns a text resource embedded in the result."""
    return EmbeddedResource(
        "test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain"
    )


@tool
def test_multiple_content_types():
    """Returns text, an image and an embedded JSON resource together."""
    return [
        "Multiple content types test:",
        RED_PIXEL,
        EmbeddedResource(
            "test://mixed-content-resource",
            text=json.dumps({"test": "data", "value": 123}),
            mime_type="application/json",
        ),
    ]


@tool
def test_audio_and_text():
    """Audio beside text (the Audio helper with an explicit MIME type)."""
    return ["a beep:", Audio(SILENCE_WAV, "audio/wav")]


@tool(context=True)
def test_tool_with_logging(tool_context: ToolContext) -> str:
    """Logs three lines at info level, 50 ms apart."""
    tool_context.log("info", "Tool execution started")
    time.sleep(0.05)
    tool_context.log("info", "Tool processing data")
    time.sleep(0.05)
    tool_context.log("info", "Tool execution completed")
    return "Logging test completed"


@tool
def test_error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@tool(context=True)
def test_tool_with_progress(tool_context: ToolContext) -> str:
    """Reports progress 0, 0.5 and 1, 50 ms apart."""
    for step in (0.0, 0.5, 1.0):
        tool_context.report_progress(step)
        if step < 1.0:
            time.sleep(0.05)
    return "Progress test completed"


@tool(context=True)
def test_sampling(prompt: str, tool_context: ToolContext) -> str:
    """Asks the client's model to answer ``prompt``."""
    answer = tool_context.sample(prompt, max_tokens=100)
    return f"LLM response: {answer.text}"


@tool(context=True)
def test_elicitation(message: str, tool_context: ToolContext) -> str:
    """Asks the user for a username and an email address."""
    answer = tool_context.elicit(
        message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


@tool(context=True)
async def test_elicitation_sep1034_defaults(tool_context: ToolContext) -> str:
    """Asks with a default for every primitive type (an async tool: it awaits ``aelicit``)."""
    answer = await tool_context.aelicit(
        "Please review your profile",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": True},
            },
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@tool(context=True)
def test_elicitation_sep1330_enums(tool_context: ToolContext) -> str:
    """Asks with the five enum forms of SEP-1330."""
    answer = tool_context.elicit(
        "Pick some options",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {
                    "type": "string",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]
                    },
                },
            },
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@tool(
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    parameters={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    },
)
def json_schema_2020_12_tool(name: str = "", address: dict | None = None) -> str:
    """Echoes what it was given."""
    return json.dumps({"name": name, "address": address})


@tool(context=True)
def test_reconnection(tool_context: ToolContext) -> str:
    """Closes its response stream mid-call (the client resumes with ``Last-Event-ID``), then answers."""
    tool_context.release_stream()
    time.sleep(0.2)
    return "Reconnection test completed"
