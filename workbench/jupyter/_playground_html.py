"""The playground's static pieces as escaped HTML: a chat message, a model turn's footer, a run's error.

Every model- or tool-provided string goes through ``escape``: a model that answers ``<script>`` shows it.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from workbench._html import escape as _e
from workbench._styles import BADGE_STYLE, ERROR_BOX_STYLE, MUTED, TEXT, WRAP

__all__ = ["message_html", "turn_meta_html", "error_html", "usage_text", "ROLE_STYLES", "playground_summary_html"]

_BUBBLE = (
    "border-radius:6px;padding:4px 8px;margin:4px 0;white-space:pre-wrap;color:var(--jp-ui-font-color1, black);" + WRAP
)
#: the look of each role's message (theme colours only)
ROLE_STYLES: dict[str, str] = {
    "user": _BUBBLE + ";background:var(--jp-layout-color2, whitesmoke);margin-left:15%",
    "assistant": _BUBBLE
    + ";background:var(--jp-layout-color1, white);border:1px solid var(--jp-border-color2, silver)",
    "system": _BUBBLE + f";color:{MUTED};font-style:italic;border:1px dashed var(--jp-border-color2, silver)",
}
_ROLE_NAMES = {"user": "you", "assistant": "model", "system": "system"}


def message_html(role: str, text: str, *, who: Optional[str] = None) -> str:
    """One chat message: who speaks, then the text (escaped, line breaks kept)."""
    name = who or _ROLE_NAMES.get(role, role)
    return (
        f"<div class='workbench-chat-message workbench-chat-{_e(role)}' style='{ROLE_STYLES.get(role, _BUBBLE)}'>"
        f"<div class='workbench-chat-who' style='color:{TEXT};font-size:0.8em;font-style:normal;font-weight:600'>{_e(name)}</div>"
        f"{_e(text)}</div>"
    )


def usage_text(usage: Any) -> str:
    """``"12 in · 5 out tokens"`` of a ``Usage`` (or ``""`` when it counted nothing)."""
    if usage is None:
        return ""
    tokens_in, tokens_out = getattr(usage, "input_tokens", 0), getattr(usage, "output_tokens", 0)
    if not (tokens_in or tokens_out):
        return ""
    return f"{tokens_in} in · {tokens_out} out tokens"


def turn_meta_html(turn: Any) -> str:
    """The badges under a model turn: why it stopped, tokens, latency."""
    badges = []
    if getattr(turn, "stop_reason", None):
        badges.append(f"stop: {turn.stop_reason}")
    if usage_text(getattr(turn, "usage", None)):
        badges.append(usage_text(turn.usage))
    latency = getattr(turn, "latency_ms", 0.0) or 0.0
    if latency:
        badges.append(f"{latency:.1f} ms")
    spans = "".join(f"<span class='workbench-turn-badge' style='{BADGE_STYLE}'>{_e(b)}</span>" for b in badges)
    return f"<div class='workbench-turn-meta' style='margin:0 0 4px 0'>{spans}</div>" if spans else ""


def error_html(title: str, message: str) -> str:
    """A run that failed (a model error, a script that ran out): its title and message, escaped."""
    return (
        f"<div class='workbench-chat-error' style='{ERROR_BOX_STYLE}'><b>{_e(title)}</b>: "
        f"<span style='white-space:pre-wrap'>{_e(message)}</span></div>"
    )


def _conversation_html(messages: list) -> str:
    parts = []
    for message in messages:
        role = message.get("role")
        if role in ("user", "assistant") and message.get("content"):
            parts.append(message_html(role, str(message["content"])))
        for call in message.get("tool_calls") or ():
            parts.append(
                f"<div style='color:{MUTED};{WRAP}'>→ <code>{_e(call.get('name'))}</code> "
                f"<code>{_e(json.dumps(call.get('input'), ensure_ascii=False, default=repr))}</code></div>"
            )
    return "".join(parts)


def playground_summary_html(columns: list, tools: list, mode: str) -> str:
    """A static, escaped picture of a playground for readers without the live widget (a saved
    notebook on GitHub): its models, tools and mode, and each column's conversation so far."""
    cells = (
        "".join(
            f"<td style='vertical-align:top;padding:4px;{WRAP}'><b>{_e(c.label)}</b>{_conversation_html(c.messages)}</td>"
            for c in columns
        )
        or "<td><i>no model picked</i></td>"
    )
    tool_names = ", ".join(f"<code>{_e(t)}</code>" for t in tools) or "<i>none</i>"
    return (
        f"<div class='workbench-playground-static' style='{WRAP}'><div><b>Model playground</b> · "
        f"mode: {_e(mode)} · tools: {tool_names}</div><table style='width:100%;table-layout:fixed'>"
        f"<tr>{cells}</tr></table></div>"
    )
