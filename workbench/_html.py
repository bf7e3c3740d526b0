"""Escaped HTML reprs for specs, tools, registries and results (used by ``_repr_html_``).

Every piece of tool-provided text goes through ``html.escape``: a tool that
returns ``<script>`` shows it, never runs it.
"""

from __future__ import annotations

import html
import json
from typing import Any

_STATUS_COLOURS = {"success": "#1a7f37", "error": "#cf222e", "in_progress": "#9a6700"}


def escape(value: Any) -> str:
    """``str(value)`` made safe to put in HTML text and attributes; every tool-provided string goes through it."""
    return html.escape(str(value), quote=True)


_e = escape


def _params_table(spec: Any) -> str:
    rows = "".join(
        f"<tr><td><code>{_e(p.name)}</code>{'' if not p.required else ' <span title=required>*</span>'}</td>"
        f"<td>{_e(p.type)}</td><td>{_e(p.description)}</td></tr>"
        for p in spec.inputs
    ) or "<tr><td colspan=3><i>no parameters</i></td></tr>"
    return f"<table><thead><tr><th>parameter</th><th>type</th><th>description</th></tr></thead><tbody>{rows}</tbody></table>"


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
    rows = "".join(
        f"<tr><td><code>{_e(t.tool_name)}</code></td><td>{_e(t.tool_type)}</td><td>{_e(t.spec.description)}</td></tr>"
        for t in registry
    ) or "<tr><td colspan=3><i>no tools</i></td></tr>"
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
    colour = _STATUS_COLOURS.get(result.status, "#57606a")
    name = result.metadata.get("tool_name", "")
    latency = result.metadata.get("latency_ms")
    timing = f" · {latency:.1f} ms" if isinstance(latency, (int, float)) else ""
    body = _e(result.error) if result.status == "error" else content_html(
        [b for b in result.content if "text" in b or "image" in b] or result.content)
    return (
        f"<div class='workbench-result'><span style='color:{colour};font-weight:bold'>{_e(result.status)}</span> "
        f"<code>{_e(name)}</code>{_e(timing)}<div>{body}</div></div>"
    )
