"""How an execution log shows itself in a notebook: a table of its most recent calls."""

from __future__ import annotations

from typing import Any

from workbench._html import escape
from workbench.log._rows import _dumps

__all__ = ["log_table_html"]


def _short(text: Any, limit: int = 80) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _latency_text(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) else ""


def _output_summary(output: Any) -> str:
    """A one-line view of the content blocks: text, else JSON, else ``[image png]``."""
    if not isinstance(output, list):
        return "" if output is None else _dumps(output)
    texts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
    if texts:
        return " ".join(texts)
    parts = []
    for block in output:
        if isinstance(block, dict) and "json" in block:
            parts.append(_dumps(block["json"]))
        elif isinstance(block, dict) and "image" in block:
            image = block["image"] if isinstance(block["image"], dict) else {}
            parts.append(f"[image {image.get('format', '?')}]")
    return " ".join(parts)


def log_table_html(where: str, total: int, rows: list[dict[str, Any]]) -> str:
    """An HTML table of ``rows`` (the most recent calls of a log of ``total`` calls at ``where``); every value escaped."""
    e = escape
    body = (
        "".join(
            "<tr>"
            f"<td>{e(str(r['id']))}</td>"
            f"<td><code>{e(_short(r['tool_name']))}</code></td>"
            f"<td>{e(str(r['status']))}</td>"
            f"<td><code>{e(_short(_dumps(r['input']) if r['input'] is not None else ''))}</code></td>"
            f"<td>{e(_short(r['error'] if r['status'] == 'error' else _output_summary(r['output'])))}</td>"
            f"<td>{_latency_text(r['latency_ms'])}</td>"
            f"<td>{e(str(r['completed_at'] or ''))}</td>"
            "</tr>"
            for r in rows
        )
        or "<tr><td colspan=7><i>no calls logged</i></td></tr>"
    )
    caption = f"{total} calls" + (f", last {len(rows)} shown" if total > len(rows) else "")
    return (
        "<table class='workbench-log'>"
        f"<caption>{e(where)} · {e(caption)}</caption>"
        "<thead><tr><th>id</th><th>tool</th><th>status</th><th>input</th><th>output / error</th>"
        "<th>latency ms</th><th>completed</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
