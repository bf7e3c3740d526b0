"""MCP: Tool definitions, tools/call requests, CallToolResult."""

from __future__ import annotations

import copy
from typing import Any, Mapping, Optional

from workbench.formats._calls import _shape_error, _use
from workbench.formats._common import Provider, Schema, _plain
from workbench.formats._export import _reject_strict
from workbench.formats._results import _MEDIA_TYPES, _error_text, _image_bytes, _text_parts
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


def mcp_output_schema(returns: Schema) -> Optional[Schema]:
    """``returns`` as an MCP ``outputSchema``: ``None`` when unspecified, wrapped under ``result``
    when its root is not ``type: "object"`` (``$defs`` move to the wrapper so refs still resolve)."""
    if not returns:
        return None
    returns = copy.deepcopy(returns)
    if returns.get("type") == "object":
        return returns
    defs: dict[str, Any] = {k: returns.pop(k) for k in ("$defs", "definitions") if k in returns}
    return {"type": "object", "properties": {"result": returns}, "required": ["result"], **defs}


def _mcp_structured(value: Any, returns: Optional[Schema]) -> Any:
    """``structuredContent`` for a result value, wrapped exactly when ``mcp_output_schema`` wraps."""
    if returns:
        return value if returns.get("type") == "object" else {"result": value}
    return value if isinstance(value, dict) else {"result": value}


def _export_mcp(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("mcp", strict)
    out: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": copy.deepcopy(spec.parameters),
    }
    output = mcp_output_schema(spec.returns)
    if output is not None:
        out["outputSchema"] = output
    return out


def _parse_mcp(response: Any) -> list[ToolUse]:
    data = _plain(response)
    items = data if isinstance(data, list) else [data]
    uses = []
    for item in map(_plain, items):
        if not isinstance(item, dict):
            raise _shape_error("mcp", response, "a tools/call request or its params")
        params: Any = item.get("params") if "params" in item else item
        if "method" in item and item["method"] != "tools/call":
            continue
        uses.append(_use(item.get("id"), params.get("name"), params.get("arguments") or {}))
    return uses


def _format_mcp(results: list[ToolResult], specs: Mapping[str, ToolSpec]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        content: list[dict[str, Any]] = []
        if r.status == "error":
            content.append({"type": "text", "text": _error_text(r)})
        else:
            for block in r.content:
                if "image" in block:
                    fmt, data = _image_bytes(block)
                    content.append({"type": "image", "data": data, "mimeType": _MEDIA_TYPES.get(fmt, f"image/{fmt}")})
                elif "audio" in block:
                    audio = block["audio"]
                    content.append(
                        {
                            "type": "audio",
                            "data": (audio.get("source") or {}).get("bytes", ""),
                            "mimeType": audio.get("mimeType", ""),
                        }
                    )
                elif "resource" in block:
                    content.append({"type": "resource", "resource": block["resource"]})
                elif "resourceLink" in block:
                    content.append({"type": "resource_link", **block["resourceLink"]})
            text = "\n".join(_text_parts(r, carried=("image", "audio", "resource", "resourceLink")))
            if text or not content:
                content.insert(0, {"type": "text", "text": text})
        item: dict[str, Any] = {"content": content, "isError": r.status == "error"}
        if r.status != "error" and r.json is not None:
            spec = specs.get(r.metadata.get("tool_name") or "")
            item["structuredContent"] = _mcp_structured(r.json, spec.returns if spec is not None else None)
        out.append(item)
    return out


#: this module's providers: name → how it exports, converts a ToolChoice, parses calls and formats results
PROVIDERS: dict[str, Provider] = {
    "mcp": Provider(
        export=_export_mcp,
        choice=None,
        parse=_parse_mcp,
        format=_format_mcp,
        strict=False,
    ),
}
