"""Plain-text renderings for a terminal: a tool's ``repr`` and ``print(result)``.

The notebook shows these objects as HTML (``workbench._html``); a terminal, a log file or a test
failure shows this text, so it reads as lines of its own rather than one long constructor call.
"""

from __future__ import annotations

import json
from typing import Any

INDENT = "  "


def indent(text: str, prefix: str = INDENT) -> str:
    """Every line of ``text`` indented by ``prefix``."""
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def json_text(value: Any) -> str:
    """``value`` as indented JSON (what JSON has no type for shown by its repr)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


def _parameter_line(name: str, schema: dict[str, Any], type_name: str, required: bool, description: str) -> str:
    if required:
        state = "required"
    elif "default" in schema:
        state = f"default {json.dumps(schema['default'], ensure_ascii=False, default=repr)}"
    else:
        state = "optional"
    line = f"{name}: {type_name}, {state}"
    return f"{line} — {' '.join(description.split())}" if description else line


def tool_text(first_line: str, tool: Any) -> str:
    """A tool as text: ``first_line`` (its signature), then its description's summary and one line per
    top-level parameter (type, required or default, description). A repr never raises: a tool whose
    spec cannot be built is its first line."""
    try:
        spec = tool.spec
    except Exception:  # noqa: BLE001 - the error belongs to the code that uses the tool, not to its repr
        return first_line
    lines = [first_line]
    summary = (spec.description or "").strip().split("\n\n")[0]
    if summary:
        lines.append(indent(" ".join(summary.split())))
    properties = (spec.parameters or {}).get("properties") or {}
    for param in spec.inputs:
        schema = properties.get(param.name)
        lines.append(
            INDENT
            + _parameter_line(
                param.name, schema if isinstance(schema, dict) else {}, param.type, param.required, param.description
            )
        )
    return "\n".join(lines)


def _block_text(block: dict[str, Any]) -> str:
    if "text" in block:
        return str(block["text"])
    if "json" in block:
        return json_text(block["json"])
    kind = next(iter(block), "block")
    inner = block.get(kind)
    media = inner.get("format") or inner.get("mimeType") or "" if isinstance(inner, dict) else ""
    return f"<{kind}{' ' + str(media) if media else ''}>"


def result_text(result: Any) -> str:
    """``print(result)``: a heading line (tool, call id, status, error type), then the error message or
    every content block, indented — text as it is, JSON indented, other blocks by kind."""
    name = result.metadata.get("tool_name", "?")
    heading = f"ToolResult {name!r} ({result.tool_use_id}): {result.status}"
    if result.status == "error":
        error_type = result.metadata.get("error_type")
        body = str(result.error or result.text)
        return f"{heading}{' ' + error_type if error_type else ''}\n{indent(body)}"
    # a JSON value is also sent as its text (for providers that read text only): show it once, indented
    has_json = any("json" in block for block in result.content)
    blocks = [_block_text(block) for block in result.content if not (has_json and "text" in block)]
    return heading + "".join("\n" + indent(text) for text in blocks)
