"""Non-JSON returns become the best content block, never an exception."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import io
import uuid

import pandas as pd
import pytest
from PIL import Image

from workbench import SequentialExecutor, ToolRegistry, ToolResult, tool
from workbench._content import to_content_blocks


@dataclasses.dataclass
class Row:
    name: str
    when: dt.date


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), "red").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "value, expected",
    [
        ("hi", [{"text": "hi"}]),
        (3, [{"text": "3"}, {"json": 3}]),
        (True, [{"text": "true"}, {"json": True}]),
        (None, [{"text": "null"}, {"json": None}]),
        ({"a": [1, 2]}, [{"text": '{"a": [1, 2]}'}, {"json": {"a": [1, 2]}}]),
        (
            Row("x", dt.date(2026, 1, 2)),
            [{"text": '{"name": "x", "when": "2026-01-02"}'}, {"json": {"name": "x", "when": "2026-01-02"}}],
        ),
        ((1, 2), [{"text": "[1, 2]"}, {"json": [1, 2]}]),
        (
            uuid.UUID(int=1),
            [{"text": '"00000000-0000-0000-0000-000000000001"'}, {"json": "00000000-0000-0000-0000-000000000001"}],
        ),
        (b"plain text", [{"text": "plain text"}]),
    ],
)
def test_blocks(value, expected):
    assert to_content_blocks(value) == expected


def test_binary_bytes_and_images():
    blob = to_content_blocks(b"\xff\x00\xfe")
    assert (
        blob[0] == {"text": "<3 bytes of binary data>"}
        and base64.b64decode(blob[1]["json"]["base64"]) == b"\xff\x00\xfe"
    )
    image = to_content_blocks(png_bytes())[0]["image"]
    assert image["format"] == "png" and base64.b64decode(image["source"]["bytes"]) == png_bytes()
    pil = to_content_blocks(Image.new("RGB", (3, 3)))[0]["image"]
    assert pil["format"] == "png" and base64.b64decode(pil["source"]["bytes"]).startswith(b"\x89PNG")


def test_dataframe():
    frame = pd.DataFrame({"a": [1, 2], "when": pd.to_datetime(["2026-01-01", "2026-01-02"])})
    blocks = to_content_blocks(frame)
    assert "a" in blocks[0]["text"] and blocks[1]["json"][0]["a"] == 1
    assert blocks[1]["json"][1]["when"].startswith("2026-01-02")


def test_unserialisable_object_falls_back_to_repr():
    class Weird:
        def __repr__(self):
            return "<weird>"

    blocks = to_content_blocks(Weird())
    assert blocks[0]["text"] in ('"<weird>"', "<weird>")


def test_structured_result_through_executor_keeps_raw_value_and_checks_returns():
    @tool
    def frame() -> dict:
        """Returns a frame although it promises a dict."""
        return pd.DataFrame({"a": [1]})

    result = SequentialExecutor().call(ToolRegistry([frame]), "frame", {})
    assert isinstance(result.value, pd.DataFrame)
    assert result.status == "success" and "returns_mismatch" in result.metadata
    dumped = result.model_dump(by_alias=True)
    assert "value" not in dumped and set(dumped) == {
        "toolUseId",
        "status",
        "content",
        "metadata",
        "started_at",
        "completed_at",
        "progress",
    }
    assert ToolResult.model_validate(result.to_dict()).content == result.content


def test_returned_tool_result_is_checked_by_its_value():
    from workbench import ToolResult as TR

    @tool
    def wrapped() -> int:
        """Returns a ready-made result carrying an image and the value."""
        return TR(toolUseId="x", status="success", content=[{"text": "7"}], value=7)

    result = SequentialExecutor().call(ToolRegistry([wrapped]), "wrapped", {})
    assert result.text == "7" and "returns_mismatch" not in result.metadata
