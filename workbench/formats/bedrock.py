"""Amazon Bedrock Converse."""

from __future__ import annotations

import base64
import copy
from typing import Any

from workbench.formats._calls import _shape_error, _use
from workbench.formats._common import Provider, _plain
from workbench.formats._export import _reject_strict
from workbench.formats._results import _error_text, _image_bytes, rich_note
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


def _export_bedrock(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("bedrock", strict)
    return {
        "toolSpec": {
            "name": spec.name,
            "description": spec.description,
            "inputSchema": {"json": copy.deepcopy(spec.parameters)},
        }
    }


def _parse_bedrock(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "output" in data:
        data = (data.get("output") or {}).get("message") or {}
    if isinstance(data, dict):
        data = data.get("content") if "content" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("bedrock", response, "a Converse response, a message or its content blocks")
    uses = []
    for block in data:
        call = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(call, dict):
            uses.append(_use(call.get("toolUseId"), call.get("name"), call.get("input")))
    return uses


def _bedrock_blocks(result: ToolResult) -> list[dict[str, Any]]:
    if result.status == "error":
        return [{"text": _error_text(result)}]
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        if "text" in block:
            blocks.append({"text": str(block["text"])})
        elif "json" in block:
            blocks.append({"json": block["json"]})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            fmt = "jpeg" if fmt == "jpg" else fmt
            blocks.append({"image": {"format": fmt, "source": {"bytes": base64.b64decode(data)}}})
        elif (note := rich_note(block)) is not None:
            blocks.append({"text": note})
    return blocks


def _format_bedrock(results: list[ToolResult]) -> list[dict[str, Any]]:
    content = [
        {
            "toolResult": {
                "toolUseId": r.tool_use_id,
                "content": _bedrock_blocks(r),
                "status": "error" if r.status == "error" else "success",
            }
        }
        for r in results
    ]
    return [{"role": "user", "content": content}]


#: this module's providers: name → how it exports, converts a ToolChoice, parses calls and formats results
PROVIDERS: dict[str, Provider] = {
    "bedrock": Provider(
        export=_export_bedrock,
        choice=lambda kind, name: {kind: {}} if name is None else {"tool": {"name": name}},
        parse=_parse_bedrock,
        format=lambda results, specs: _format_bedrock(results),
        strict=False,
    ),
}
