"""HTML for what an MCP server sends: resource contents by MIME type, prompt messages, the raw
protocol history, server logs and the server's description. Every server-controlled string is
escaped (a server is not trusted to write the notebook's HTML)."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
import re
import time
from typing import Any, Callable, Iterable, Optional

from workbench._html import escape
from workbench._json_text import loads as load_json
from workbench._styles import BORDER, MUTED, STATUS_COLOURS, WRAP
from workbench.jupyter._render import json_html

__all__ = [
    "contents_html",
    "messages_html",
    "protocol_entry_html",
    "protocol_html",
    "server_logs_html",
    "server_html",
    "tasks_html",
    "icons_html",
    "safe_icon_src",
    "cache_hints_html",
    "clock",
]

_PRE = f"white-space:pre-wrap;margin:0;font-family:var(--jp-code-font-family,monospace);font-size:0.9em;{WRAP}"
_BOX = f"border:1px solid {BORDER};border-radius:3px;padding:4px 8px;margin:4px 0"
_PREVIEW_BYTES = 32


def clock(timestamp: float) -> str:
    """``HH:MM:SS.mmm`` local time of an epoch timestamp."""
    return _dt.datetime.fromtimestamp(timestamp).strftime("%H:%M:%S.%f")[:-3]


def _text_html(text: str, mime: str) -> str:
    if mime == "application/json" or mime.endswith("+json"):
        try:
            return json_html(load_json(text))
        except ValueError:
            pass
    return f"<pre style='{_PRE}'>{escape(text)}</pre>"


def _blob_bytes(blob: str) -> bytes:
    try:
        return base64.b64decode(blob, validate=False)
    except (binascii.Error, ValueError):
        return b""


def _image_html(blob: str, mime: str) -> str:
    return (
        f"<img alt='{escape(mime)} resource' style='max-width:100%;max-height:320px' "
        f"src='data:{escape(mime)};base64,{escape(blob)}'>"
    )


def _binary_html(blob: str, mime: str) -> str:
    data = _blob_bytes(blob)
    preview = " ".join(f"{byte:02x}" for byte in data[:_PREVIEW_BYTES])
    more = " …" if len(data) > _PREVIEW_BYTES else ""
    return (
        f"<div>binary, {len(data):,} bytes{', ' + escape(mime) if mime else ''}</div>"
        f"<pre style='{_PRE};color:{MUTED}'>{preview}{more}</pre>"
    )


#: (applies to (kind, mime), renderer(payload, mime)) — the first match renders a content item
CONTENT_RENDERERS: list[tuple[Callable[[str, str], bool], Callable[[str, str], str]]] = [
    (lambda kind, mime: kind == "text", _text_html),
    (lambda kind, mime: kind == "blob" and mime.startswith("image/"), _image_html),
    (
        lambda kind, mime: kind == "blob" and (mime.startswith("text/") or mime == "application/json"),
        lambda blob, mime: _text_html(_blob_bytes(blob).decode("utf-8", "replace"), mime),
    ),
    (lambda kind, mime: kind == "blob", _binary_html),
]


def _content_item_html(item: Any) -> str:
    mime = str(getattr(item, "mime_type", None) or "")
    kind, payload = ("text", item.text) if hasattr(item, "text") else ("blob", getattr(item, "blob", ""))
    for applies, render in CONTENT_RENDERERS:
        if applies(kind, mime):
            body = render(payload, mime)
            break
    else:  # pragma: no cover - the last rule matches every blob
        body = ""
    header = f"<div style='color:{MUTED};font-size:0.85em'>{escape(str(item.uri))} · {escape(mime or kind)}</div>"
    return f"<div style='{_BOX}'>{header}{body}</div>"


def contents_html(result: Any) -> str:
    """A ``ReadResourceResult``: each content item by its MIME type."""
    items = list(getattr(result, "contents", []) or [])
    if not items:
        return f"<i style='color:{MUTED}'>(no contents)</i>"
    return "".join(_content_item_html(item) for item in items)


def _message_content_html(content: Any) -> str:
    kind = getattr(content, "type", None)
    if kind == "text":
        return f"<pre style='{_PRE}'>{escape(content.text)}</pre>"
    if kind == "image":
        return _image_html(content.data, content.mime_type)
    if kind == "resource":
        return _content_item_html(content.resource)
    if kind == "audio":
        return f"<div>audio, {escape(content.mime_type)}</div>"
    return json_html(content.model_dump(mode="json", exclude_none=True) if hasattr(content, "model_dump") else content)


def messages_html(result: Any) -> str:
    """A ``GetPromptResult``'s messages, one box per message with its role."""
    parts = []
    if getattr(result, "description", None):
        parts.append(f"<div style='color:{MUTED}'>{escape(result.description)}</div>")
    for message in getattr(result, "messages", []) or []:
        contents = message.content if isinstance(message.content, list) else [message.content]
        body = "".join(_message_content_html(c) for c in contents)
        parts.append(f"<div style='{_BOX}' class='workbench-mcp-message'><b>{escape(message.role)}</b>{body}</div>")
    return "".join(parts) or f"<i style='color:{MUTED}'>(no messages)</i>"


def _summary(message: Any) -> str:
    data = message.message
    ident = data.get("id")
    what = message.method or ("error" if "error" in data else "result")
    arrow = "→" if message.direction == "sent" else "←"
    ident_text = f" #{escape(str(ident))}" if ident is not None else ""
    return (
        f"<span style='color:{MUTED}'>{clock(message.time)}</span> {arrow} <b>{escape(what)}</b>{ident_text} "
        f"<span style='color:{MUTED}'>{escape(message.kind)}</span>"
    )


def protocol_entry_html(message: Any) -> str:
    """One JSON-RPC message, expandable (``<details>``): a one-line summary, the JSON inside."""
    body = escape(json.dumps(message.message, indent=2, ensure_ascii=False))
    return (
        f"<details class='workbench-mcp-protocol'><summary>{_summary(message)}</summary>"
        f"<pre style='{_PRE}'>{body}</pre></details>"
    )


def protocol_html(messages: Iterable[Any], limit: int = 200) -> str:
    """The JSON-RPC history, newest first, each message expandable."""
    rows = []
    for index, message in enumerate(messages):
        if index >= limit:
            rows.append(f"<div style='color:{MUTED}'>… older messages not shown</div>")
            break
        rows.append(protocol_entry_html(message))
    return "".join(rows) or f"<i style='color:{MUTED}'>(no messages yet)</i>"


def server_logs_html(entries: Iterable[Any], limit: int = 300) -> str:
    """Server log entries and notifications, newest first."""
    rows = []
    for index, entry in enumerate(entries):
        if index >= limit:
            break
        if hasattr(entry, "level"):
            data = entry.data if isinstance(entry.data, str) else json.dumps(entry.data, ensure_ascii=False)
            source = f" {escape(entry.logger)}:" if entry.logger else ""
            text = f"<b>{escape(entry.level)}</b>{source} {escape(data)}"
        else:
            text = f"<b>{escape(entry.method)}</b> {escape(json.dumps(entry.params, ensure_ascii=False))}"
        rows.append(
            f"<div class='workbench-mcp-log'><span style='color:{MUTED}'>{clock(entry.time)}</span> {text}</div>"
        )
    return "".join(rows) or f"<i style='color:{MUTED}'>(nothing yet)</i>"


#: icon sources shown: https URLs and data: URLs of images (never http:, javascript:, data:text/html…)
_SAFE_ICON = re.compile(r"^(?:https://[^\s]+|data:image/[a-z0-9.+-]+(?:;[a-z0-9=.+-]+)*,[a-z0-9+/=%._-]*)$", re.I)


def safe_icon_src(src: Any) -> Optional[str]:
    """``src`` when it is an https: URL or a data:image/… URL, else ``None`` (not shown)."""
    return src if isinstance(src, str) and len(src) <= 200_000 and _SAFE_ICON.match(src) else None


def icons_html(icons: Any, size: int = 20, label: str = "") -> str:
    """The ``icons`` of a tool, resource, prompt or server as ``<img>`` tags — only those with a safe
    ``src`` (:func:`safe_icon_src`), every attribute escaped; ``""`` when there is none to show."""
    tags = []
    for icon in icons or ():
        src = safe_icon_src(getattr(icon, "src", None))
        if src is None:
            continue
        tags.append(
            f"<img class='workbench-mcp-icon' src='{escape(src)}' alt='{escape(label)} icon' "
            f"referrerpolicy='no-referrer' style='width:{size}px;height:{size}px;vertical-align:middle;"
            "margin-right:4px;object-fit:contain'>"
        )
    return "".join(tags)


def cache_hints_html(hints: dict[str, Any], now: Optional[float] = None) -> str:
    """The cache hints (``ttlMs``, ``cacheScope``) of the list results received, one row per method."""
    if not hints:
        return f"<i style='color:{MUTED}'>(no list results yet)</i>"
    now = time.time() if now is None else now
    rows = []
    for method, hint in sorted(hints.items()):
        if hint.ttl_ms is None:
            ttl, state = "—", "not cached"
        else:
            ttl = f"{hint.ttl_ms:,} ms"
            left = hint.received + hint.ttl_ms / 1000.0 - now
            state = f"cached, fresh for {left:.0f} s" if left > 0 else "expired: the next call refetches"
        rows.append(
            f"<tr class='workbench-mcp-cache-hint'><td><code>{escape(method)}</code></td><td>{ttl}</td>"
            f"<td>{escape(hint.cache_scope or '—')}</td><td>{hint.fetches}</td>"
            f"<td style='color:{MUTED}'>{clock(hint.received)}</td><td>{state}</td></tr>"
        )
    head = "".join(
        f"<th style='text-align:left'>{name}</th>"
        for name in ("List", "ttlMs", "cacheScope", "Fetches", "Received", "Now")
    )
    return (
        f"<table class='workbench-mcp-cache-hints'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def server_html(connection: Any) -> str:
    """Name, version, protocol, capabilities, cache hints and instructions of the connection's server."""
    info = connection.server_info
    name = escape(getattr(info, "title", None) or getattr(info, "name", "?")) if info else "?"
    version = escape(getattr(info, "version", "") or "") if info else ""
    caps = connection.server_capabilities
    caps_json = caps.model_dump(mode="json", exclude_none=True, by_alias=True) if caps is not None else {}
    instructions: Optional[str] = connection.instructions
    state = "connected" if connection.connected else "disconnected"
    icons = icons_html(getattr(info, "icons", None), 24, "server") if info else ""
    parts = [
        f"<div>{icons}<b>{name}</b> {version} · protocol {escape(connection.protocol_version or '?')} · {state}</div>",
        f"<div style='color:{MUTED}'>{escape(connection.label)}</div>",
        "<div><b>Capabilities</b></div>",
        json_html(caps_json),
    ]
    hints = getattr(connection, "cache_hints", None)
    if hints is not None:
        parts += [
            "<div><b>Cache hints</b> <span style='color:" + MUTED + "'>(ttlMs / cacheScope of list results, "
            "protocol 2026-07-28)</span></div>",
            cache_hints_html(hints),
        ]
    if instructions:
        parts += ["<div><b>Instructions</b></div>", f"<pre style='{_PRE}'>{escape(instructions)}</pre>"]
    return "".join(parts)


#: task status -> its colour in the Tasks tab: the workbench's readable status colours
_TASK_STATUS_COLOURS = {
    "working": STATUS_COLOURS["in_progress"],
    "input_required": STATUS_COLOURS["cancelled"],
    "completed": STATUS_COLOURS["success"],
    "failed": STATUS_COLOURS["error"],
    "cancelled": MUTED,
}


def tasks_html(tasks: Iterable[Any], tool_of: Callable[[str], Optional[str]] = lambda _id: None) -> str:
    """The connection's tasks, newest first: id, tool, status (coloured), status message, times."""
    rows = []
    for task in tasks:
        colour = _TASK_STATUS_COLOURS.get(task.status, MUTED)
        poll = f"{task.poll_interval} ms" if task.poll_interval is not None else ""
        rows.append(
            "<tr class='workbench-mcp-task'>"
            f"<td><code>{escape(task.task_id)}</code></td><td>{escape(tool_of(task.task_id) or '')}</td>"
            f"<td style='color:{colour};font-weight:bold'>{escape(task.status)}</td>"
            f"<td>{escape(task.status_message or '')}</td>"
            f"<td style='color:{MUTED}'>{escape(task.created_at)}</td>"
            f"<td style='color:{MUTED}'>{escape(task.last_updated_at)}</td><td style='color:{MUTED}'>{poll}</td></tr>"
        )
    if not rows:
        return f"<i style='color:{MUTED}'>(no tasks yet: calls of tools with execution.taskSupport run as tasks)</i>"
    head = "".join(
        f"<th style='text-align:left'>{name}</th>"
        for name in ("Task", "Tool", "Status", "Message", "Created", "Updated", "Poll")
    )
    return f"<table class='workbench-mcp-tasks'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
