"""Google Gemini (google-genai)."""

from __future__ import annotations

from typing import Any

from workbench.formats._calls import _shape_error, _use
from workbench.formats._common import Provider, _get, _plain
from workbench.formats._export import _reject_strict
from workbench.formats._gemini_schema import gemini_schema
from workbench.formats._results import _error_text, _result_text
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse


def _export_gemini(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("gemini", strict)
    out: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if spec.parameters.get("properties"):
        out["parameters"] = gemini_schema(spec.parameters, spec.name)
    return out


def _parse_gemini(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "candidates" in data:
        candidates = data.get("candidates") or []
        data = (candidates[0] or {}).get("content") or {} if candidates else {}
    if isinstance(data, dict):
        data = data.get("parts") if "parts" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("gemini", response, "a GenerateContentResponse, a Content or its parts")
    uses = []
    for part in map(_plain, data):
        call = _get(part, "functionCall", "function_call")
        if isinstance(call, dict):
            uses.append(_use(call.get("id"), call.get("name"), call.get("args") or {}))
    return uses


def _gemini_response(result: ToolResult) -> dict[str, Any]:
    name = result.metadata.get("tool_name")
    if not isinstance(name, str):  # "" is a name: the answer to a call whose name the model left empty
        raise ValueError(
            f"Tool result '{result.tool_use_id}' has no metadata['tool_name']: Gemini function "
            "responses are matched to calls by name"
        )
    if result.status == "error":
        body: dict[str, Any] = {"error": _error_text(result)}
    else:
        value = result.json
        body = {"output": value if value is not None else _result_text(result)}
    response: dict[str, Any] = {"name": name, "response": body}
    if not result.tool_use_id.startswith("tooluse_"):  # ids made up by parse_tool_calls never reach Gemini
        response["id"] = result.tool_use_id
    return {"functionResponse": response}


def _format_gemini(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"role": "user", "parts": [_gemini_response(r) for r in results]}]


#: this module's providers: name → how it exports, converts a ToolChoice, parses calls and formats results
PROVIDERS: dict[str, Provider] = {
    "gemini": Provider(
        export=_export_gemini,
        choice=lambda kind, name: {
            "function_calling_config": {"mode": "AUTO"}
            if kind == "auto"
            else {"mode": "ANY"}
            if name is None
            else {"mode": "ANY", "allowed_function_names": [name]}
        },
        parse=_parse_gemini,
        format=lambda results, specs: _format_gemini(results),
        strict=False,
    ),
}
