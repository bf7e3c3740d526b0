"""OpenAI: Chat Completions (``openai``) and the Responses API (``openai-responses``)."""

from __future__ import annotations

from typing import Any

from workbench._content import json_text
from workbench.formats._calls import _shape_error, _use
from workbench.formats._common import Provider, _plain
from workbench.formats._export import _parameters
from workbench.formats._results import _MEDIA_TYPES, _image_bytes, _redundant_json, _result_text
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


def _export_openai(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "parameters": _parameters(spec, "openai", strict),
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _export_openai_responses(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": _parameters(spec, "openai", strict),
        "strict": bool(strict),
    }


def _parse_openai(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "choices" in data:
        choices = data.get("choices") or []
        data = _plain(choices[0]).get("message", {}) if choices else {}
    if isinstance(data, dict) and ("tool_calls" in data or "role" in data or "content" in data):
        data = data.get("tool_calls") or []
    if isinstance(data, dict) and "function" in data:
        data = [data]
    if not isinstance(data, list):
        raise _shape_error("openai", response, "a ChatCompletion, a message or a list of tool_calls")
    uses = []
    for call in map(_plain, data):
        if call.get("type", "function") != "function":
            continue  # custom / built-in tool calls are not function tools
        function = call.get("function") or {}
        uses.append(_use(call.get("id"), function.get("name"), function.get("arguments")))
    return uses


def _parse_openai_responses(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict):
        data = data.get("output") if "output" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("openai-responses", response, "a Response, or its output items")
    return [
        _use(item.get("call_id") or item.get("id"), item.get("name"), item.get("arguments"))
        for item in map(_plain, data)
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]


def _format_openai(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": r.tool_use_id, "content": _result_text(r)} for r in results]


def _responses_output(result: ToolResult) -> Any:
    """``function_call_output.output``: the text, or — when the result holds images — a list of
    ``input_text`` / ``input_image`` items (images as base64 data URLs), which the Responses API accepts."""
    if result.status == "error" or not any("image" in block for block in result.content):
        return _result_text(result)
    items: list[dict[str, Any]] = []
    texts = [b["text"] for b in result.content if "text" in b]
    for block in result.content:
        if "text" in block:
            items.append({"type": "input_text", "text": str(block["text"])})
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                items.append({"type": "input_text", "text": json_text(block["json"])})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            media = _MEDIA_TYPES.get(fmt, f"image/{fmt}")
            items.append({"type": "input_image", "image_url": f"data:{media};base64,{data}", "detail": "auto"})
    return items


def _format_openai_responses(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"type": "function_call_output", "call_id": r.tool_use_id, "output": _responses_output(r)} for r in results]


#: this module's providers: name → how it exports, converts a ToolChoice, parses calls and formats results
PROVIDERS: dict[str, Provider] = {
    "openai": Provider(
        export=_export_openai,
        choice=lambda kind, name: (
            {"auto": "auto", "any": "required"}.get(kind) or {"type": "function", "function": {"name": name}}
        ),
        parse=_parse_openai,
        format=lambda results, specs: _format_openai(results),
        strict=True,
    ),
    "openai-responses": Provider(
        export=_export_openai_responses,
        choice=lambda kind, name: {"auto": "auto", "any": "required"}.get(kind) or {"type": "function", "name": name},
        parse=_parse_openai_responses,
        format=lambda results, specs: _format_openai_responses(results),
        strict=True,
    ),
}
