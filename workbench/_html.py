"""HTML escaping and the small HTML pieces every view and report builds on, and the escaped HTML
reprs of specs, tools, registries and results (used by ``_repr_html_``).

Every piece of tool-provided text goes through :func:`escape` (this module is the only caller of
``html.escape`` in the package): a tool that returns ``<script>`` shows it, never runs it.
"""

from __future__ import annotations

import html
import json
from typing import Any, Optional

from workbench._refs import resolved, siblings
from workbench._styles import STATUS_COLOURS, status_class, status_colour

#: text colour per display status (theme variables; see ``workbench._styles``)
_STATUS_COLOURS = STATUS_COLOURS


def escape(value: Any) -> str:
    """``str(value)`` made safe to put in HTML text and attributes; every tool-provided string goes through it."""
    return html.escape(str(value), quote=True)


_e = escape


def json_text(value: Any) -> str:
    """``value`` as indented JSON for a person to read (non-ASCII kept; what JSON cannot hold as its ``repr``)."""
    return json.dumps(value, ensure_ascii=False, indent=2, default=repr)


def pre(value: Any, style: str = "") -> str:
    """A ``<pre>`` block of ``value`` escaped: a string as it is, anything else as :func:`json_text`."""
    text = value if isinstance(value, str) else json_text(value)
    return f"<pre style='{_e(style)}'>{_e(text)}</pre>" if style else f"<pre>{_e(text)}</pre>"


def details(summary: str, body_html: str) -> str:
    """A collapsed block: ``summary`` (plain text, escaped here) opens ``body_html`` (already HTML)."""
    return f"<details><summary>{_e(summary)}</summary>{body_html}</details>"


def display_status(result: Any) -> str:
    """The status a person reads: ``cancelled`` for a call stopped by cancel (an ``error`` result with
    ``error_type`` ``CancelledError``), else ``result.status`` (``success``, ``error``, ``in_progress``).
    Its CSS class is ``workbench-status-<status>`` and its colour ``workbench._styles.status_colour``."""
    status = getattr(result, "status", None) or (result.get("status") if isinstance(result, dict) else None)
    metadata = getattr(result, "metadata", None)
    if metadata is None and isinstance(result, dict):
        metadata = result.get("metadata") or result
    if status == "error" and isinstance(metadata, dict) and metadata.get("error_type") == "CancelledError":
        return "cancelled"
    return str(status or "")


def status_html(status: str) -> str:
    """The status word, coloured and classed (``workbench-status workbench-status-<status>``)."""
    return (
        f"<span class='workbench-status {status_class(_e(status))}' "
        f"style='color:{status_colour(status)};font-weight:bold'>{_e(status)}</span>"
    )


def error_message(error_type: Optional[str], message: Optional[str]) -> str:
    """``message`` without a leading ``"<error_type>: "`` that a caller would print again
    (``ValueError: ValueError: boom`` → ``boom`` under the type ``ValueError``)."""
    text = str(message or "")
    if error_type:
        prefix = f"{error_type}: "
        while text.startswith(prefix):
            text = text[len(prefix) :]
    return text


def without_path(path: str, message: str) -> str:
    """``message`` without a leading ``"<path>: "`` (check_inputs messages name their field; a
    summary that lists the field first must not say it twice)."""
    prefix = f"{path}: "
    return message[len(prefix) :] if path and message.startswith(prefix) else message


#: (schema keyword, how it reads) — a parameter's bounds, in the order they are shown
_BOUNDS = (
    ("minimum", "≥ {}"),
    ("exclusiveMinimum", "> {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMaximum", "< {}"),
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
    ("pattern", "matches {}"),
    ("format", "format {}"),
)
# JupyterLab right-aligns the cells of rendered tables: descriptions read left to right
_CELL = "style='text-align:left;vertical-align:top'"


def _schema_parts(schema: dict, defs: dict) -> list[dict]:
    """The schema and the members of its ``anyOf``/``oneOf`` (an optional parameter's ``null`` left out),
    each with a local ``$ref`` resolved."""
    parts = []
    for part in [schema, *(schema.get("anyOf") or []), *(schema.get("oneOf") or [])]:
        if not isinstance(part, dict) or part.get("type") == "null":
            continue
        if "$ref" in part:
            target = resolved(part, {"$defs": defs})
            part = target if isinstance(target, dict) else siblings(part)
        parts.append(part)
    return parts


def parameter_allowed(schema: dict, defs: dict) -> str:
    """What a parameter accepts beyond its type: its enum values and bounds (``≥ 0, ≤ 150``)."""
    notes: list[str] = []
    for part in _schema_parts(schema, defs):
        if "enum" in part:
            notes.append("one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in part["enum"]))
        elif "const" in part:
            notes.append("exactly " + json.dumps(part["const"], ensure_ascii=False))
        notes += [text.format(part[key]) for key, text in _BOUNDS if key in part]
    return "; ".join(dict.fromkeys(notes))


def _params_table(spec: Any) -> str:
    properties = spec.parameters.get("properties") or {}
    defs = spec.parameters.get("$defs") or {}
    rows = []
    for p in spec.inputs:
        found = properties.get(p.name)
        schema: dict = found if isinstance(found, dict) else {}
        default = (
            f"<code>{_e(json.dumps(schema['default'], ensure_ascii=False, default=repr))}</code>"
            if "default" in schema
            else ""
        )
        rows.append(
            f"<tr><td {_CELL}><code>{_e(p.name)}</code>{'' if not p.required else ' <span title=required>*</span>'}</td>"
            f"<td {_CELL}>{_e(p.type)}</td><td {_CELL}>{default}</td><td {_CELL}>{_e(parameter_allowed(schema, defs))}</td>"
            f"<td {_CELL}>{_e(p.description)}</td></tr>"
        )
    body = "".join(rows) or f"<tr><td colspan=5 {_CELL}><i>no parameters</i></td></tr>"
    head = "".join(f"<th {_CELL}>{label}</th>" for label in ("parameter", "type", "default", "allowed", "description"))
    return f"<table class='workbench-params'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def spec_html(spec: Any) -> str:
    returns = json.dumps(spec.returns) if spec.returns else "any"
    return (
        f"<div class='workbench-spec'><b>{_e(spec.name)}</b> — {_e(spec.description)}"
        f"{_params_table(spec)}<div>returns: <code>{_e(returns)}</code></div></div>"
    )


def tool_html(tool: Any) -> str:
    props = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in tool.get_display_properties().items())
    return f"<div class='workbench-tool'><table>{props}</table>{_params_table(tool.spec)}</div>"


def registry_html(registry: Any) -> str:
    rows = (
        "".join(
            f"<tr><td><code>{_e(t.tool_name)}</code></td><td>{_e(t.tool_type)}</td><td>{_e(t.spec.description)}</td></tr>"
            for t in registry
        )
        or "<tr><td colspan=3><i>no tools</i></td></tr>"
    )
    return f"<table class='workbench-registry'><thead><tr><th>tool</th><th>type</th><th>description</th></tr></thead><tbody>{rows}</tbody></table>"


def content_html(content: list[dict[str, Any]]) -> str:
    parts = []
    for block in content:
        if "text" in block:
            parts.append(f"<pre style='white-space:pre-wrap;margin:0'>{_e(block['text'])}</pre>")
        elif "json" in block:
            parts.append(f"<pre style='margin:0'>{_e(json.dumps(block['json'], indent=2, default=repr))}</pre>")
        elif "image" in block:
            image = block["image"]
            fmt = _e(image.get("format", "png"))
            data = _e(image.get("source", {}).get("bytes", ""))
            parts.append(f"<img alt='tool image' src='data:image/{fmt};base64,{data}'/>")
    return "".join(parts)


def result_html(result: Any) -> str:
    name = result.metadata.get("tool_name", "")
    latency = result.metadata.get("latency_ms")
    timing = f" · {latency:.1f} ms" if isinstance(latency, (int, float)) else ""
    body = (
        _e(result.error)
        if result.status == "error"
        else content_html([b for b in result.content if "text" in b or "image" in b] or result.content)
    )
    return (
        f"<div class='workbench-result'>{status_html(display_status(result))} "
        f"<code>{_e(name)}</code>{_e(timing)}<div>{body}</div></div>"
    )
