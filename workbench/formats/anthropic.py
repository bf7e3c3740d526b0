"""Anthropic Messages API."""

from __future__ import annotations

from typing import Any

from workbench._content import json_text
from workbench.formats._calls import _shape_error, _use
from workbench.formats._common import Provider, _plain
from workbench.formats._export import _parameters
from workbench.formats._results import _MEDIA_TYPES, _error_text, _image_bytes, _image_note, _redundant_json, rich_note
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


def _export_anthropic(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "input_schema": _parameters(spec, "anthropic", strict),
    }
    if strict:
        out["strict"] = True
    return out


def _parse_anthropic(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict):
        data = data.get("content") if "content" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("anthropic", response, "a Message, or its content blocks")
    return [
        _use(block.get("id"), block.get("name"), block.get("input"))
        for block in map(_plain, data)
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def _anthropic_blocks(result: ToolResult) -> list[dict[str, Any]]:
    if result.status == "error":
        return [{"type": "text", "text": _error_text(result)}]
    texts = [b["text"] for b in result.content if "text" in b]
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        if "text" in block:
            blocks.append({"type": "text", "text": str(block["text"])})
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                blocks.append({"type": "text", "text": json_text(block["json"])})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            media = _MEDIA_TYPES.get(fmt)
            if media is None:
                blocks.append({"type": "text", "text": _image_note(block)})
            else:
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}})
        elif (note := rich_note(block)) is not None:
            blocks.append({"type": "text", "text": note})
    return blocks


def _format_anthropic(results: list[ToolResult]) -> list[dict[str, Any]]:
    content = [
        {
            "type": "tool_result",
            "tool_use_id": r.tool_use_id,
            "content": _anthropic_blocks(r),
            "is_error": r.status == "error",
        }
        for r in results
    ]
    return [{"role": "user", "content": content}]


#: this module's providers: name → how it exports, converts a ToolChoice, parses calls and formats results
PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider(
        export=_export_anthropic,
        choice=lambda kind, name: {"type": kind} if name is None else {"type": "tool", "name": name},
        parse=_parse_anthropic,
        format=lambda results, specs: _format_anthropic(results),
        strict=True,
    ),
}
