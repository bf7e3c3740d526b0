"""Escaped HTML and plain text of a transcript: a chat view, a trace view and the raw requests.

Pure functions of a :class:`~workbench.agent.Transcript` (or of a prompt and steps, for a live view
that grows step by step). Every model- or tool-provided string goes through ``escape``, so a tool
that returns ``<script>`` shows it, never runs it. Inline styles only, with JupyterLab's ``--jp-*``
variables and fallbacks: the same HTML serves the notebook view and a saved notebook's copy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Iterable, Optional

from workbench._html import escape as _e
from workbench._styles import status_colour
from workbench.agent._steps import ModelStep, Step

__all__ = ["transcript_html", "chat_html", "trace_html", "raw_html", "summary_html"]

# the muted font colour pushed towards the main one: --jp-ui-font-color2 alone is under 4.5:1 on the
# grey bubbles (--jp-layout-color2) of the light theme
_MUTED = "color:color-mix(in srgb, var(--jp-ui-font-color2, #57606a) 65%, var(--jp-ui-font-color0, #000))"
_BORDER = "border:1px solid var(--jp-border-color2, #d0d7de)"
_CELL = "padding:3px 8px;text-align:left;vertical-align:top;border-bottom:1px solid var(--jp-border-color2, #d0d7de)"
# headers and short cells stay on one line ("tokens in" never breaks into a tall two-line header)
_HEAD = _CELL + ";white-space:nowrap"
# the trace's cells by column: short values on one line; the summary wide enough not to stack word by word
_CELL_EXTRA = {**{i: ";white-space:nowrap" for i in range(8)}, 8: ";min-width:16em"}
_BUBBLE = (
    f"margin:4px 0;padding:6px 10px;border-radius:6px;{_BORDER};max-width:100%;overflow-x:auto;"
    "color:var(--jp-content-font-color1, #1f2328)"
)
# backgrounds made of the theme's own layout colours (a brand tint mixed into the page colour for the
# user), so the theme's text colour reads on each in light and dark; --jp-brand-color3 stays light
# in the dark theme (white text on it measured 1.4:1)
_ROLE_BACKGROUND = {
    "system": "var(--jp-layout-color2, #f6f8fa)",
    "user": "color-mix(in srgb, var(--jp-brand-color1, #0969da) 14%, var(--jp-layout-color1, #ffffff))",
    "assistant": "var(--jp-layout-color1, #ffffff)",
    "tool": "var(--jp-layout-color2, #f6f8fa)",
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=repr)


def _pre(value: Any) -> str:
    text = value if isinstance(value, str) else _json(value)
    return f"<pre style='margin:2px 0;white-space:pre-wrap'>{_e(text)}</pre>"


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ms(value: Optional[float]) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def _result_text(result: Any) -> str:
    if result.status == "error":
        return str(result.error or result.text)
    text = result.text
    if text:
        return text
    value = result.json
    return "" if value is None else _json(value)


def _bubble(role: str, body: str, label: Optional[str] = None) -> str:
    head = f"<div style='font-size:0.8em;{_MUTED}'>{_e(label or role)}</div>"
    return (
        f"<div class='workbench-chat-{_e(role)}' style='{_BUBBLE};background:{_ROLE_BACKGROUND.get(role, 'none')}'>"
        f"{head}{body}</div>"
    )


def _call_html(step_call: Mapping[str, Any], original: Optional[Mapping[str, Any]] = None) -> str:
    name = step_call.get("name") or "?"
    edited = ""
    if original is not None:
        edited = (
            f"<div style='{_MUTED}'>edited by the user; the model asked for "
            f"<code>{_e(original.get('name'))}</code></div>{_pre(original.get('input'))}"
        )
    return (
        f"<div>→ <code>{_e(name)}</code> <span style='{_MUTED}'>{_e(step_call.get('toolUseId') or '')}</span>"
        f"{_pre(step_call.get('input'))}{edited}</div>"
    )


def chat_html(prompt: Iterable[dict], steps: Iterable[Step]) -> str:
    """The conversation as chat bubbles: the prompt's messages, each model turn (its text and
    calls), each tool result."""
    parts = [_bubble(str(m.get("role")), _pre(_content_text(m.get("content")))) for m in prompt]
    for step in steps:
        if isinstance(step, ModelStep):
            turn = step.turn
            if step.error is not None:
                parts.append(
                    _bubble(
                        "assistant",
                        f"<b style='color:{status_colour('error')}'>model error"
                        f" ({_e(step.error_kind or 'unknown')})</b>{_pre(step.error)}",
                        f"turn {step.index} · {turn.model or ''}",
                    )
                )
                continue
            body = _pre(turn.text) if turn.text else ""
            body += "".join(_call_html(call) for call in turn.tool_calls)
            parts.append(
                _bubble(
                    "assistant",
                    body or f"<i style='{_MUTED}'>(empty answer)</i>",
                    f"turn {step.index} · {turn.model or ''}",
                )
            )
        else:
            result = step.result
            colour = status_colour("success" if result.status == "success" else "error")
            head = (
                f"<code>{_e(step.name)}</code> <span style='color:{colour};font-weight:bold'>{_e(result.status)}</span>"
            )
            edited = _call_html(step.tool_use, step.original) if step.original is not None else ""
            parts.append(
                _bubble("tool", f"{head}{edited}{_pre(_result_text(result))}", f"tool result · {result.tool_use_id}")
            )
    return f"<div class='workbench-chat'>{''.join(parts)}</div>"


def trace_html(steps: Iterable[Step]) -> str:
    """A table with a row per step: kind, turn, name, status, latency and tokens."""
    head = "".join(
        f"<th style='{_HEAD}'>{_e(h)}</th>"
        for h in ("#", "step", "turn", "name", "status", "ms", "tokens in", "tokens out", "summary")
    )
    rows = []
    for number, step in enumerate(steps):
        if isinstance(step, ModelStep):
            turn = step.turn
            status = "error" if step.error else (turn.stop_reason or "")
            summary = step.error or turn.text or ", ".join(c.get("name", "?") for c in turn.tool_calls)
            cells: tuple[Any, ...] = (
                number,
                "model",
                step.index,
                turn.model or "",
                status,
                _ms(turn.latency_ms),
                turn.usage.input_tokens,
                turn.usage.output_tokens,
                _short(summary),
            )
            colour = status_colour("error") if step.error else "inherit"
        else:
            status = step.result.status + (" (edited)" if step.edited else "")
            cells = (
                number,
                "tool",
                step.turn_index,
                step.name,
                status,
                _ms(step.latency_ms),
                "",
                "",
                _short(_result_text(step.result)),
            )
            colour = status_colour("success" if step.ok else "error")
        tds = "".join(
            f"<td style='{_CELL}{_CELL_EXTRA.get(i, '')}{';color:' + colour if i == 4 else ''}'>{_e(value)}</td>"
            for i, value in enumerate(cells)
        )
        rows.append(f"<tr class='workbench-trace-{_e(step.kind)}'>{tds}</tr>")
    body = "".join(rows) or f"<tr><td colspan='9' style='{_CELL}'><i>no steps yet</i></td></tr>"
    # the table scrolls sideways in its own box (the tab would cut it); the box takes the focus, so the
    # keyboard scrolls it too, and keeps its keys from the notebook's command-mode shortcuts
    return (
        f"<div class='workbench-trace-box' style='overflow-x:auto;max-width:100%' tabindex='0' role='region' "
        f"aria-label='trace' data-lm-suppress-shortcuts='true'>"
        f"<table class='workbench-trace' style='border-collapse:collapse'><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def raw_html(steps: Iterable[Step]) -> str:
    """Each model turn's request and response JSON as the provider saw them (secrets masked by the
    model), folded; offline models that send nothing show the turn itself."""
    parts = []
    for step in steps:
        if not isinstance(step, ModelStep):
            continue
        turn = step.turn
        request = turn.request if turn.request is not None else "(no request: an offline model)"
        response = turn.response if turn.response is not None else turn.to_dict() | {"request": None}
        parts.append(
            f"<details><summary>turn {step.index} · {_e(turn.model or '')} · {_ms(turn.latency_ms)} ms</summary>"
            f"<div><b>request</b>{_pre(request)}</div><div><b>response</b>{_pre(response)}</div></details>"
        )
    return f"<div class='workbench-raw'>{''.join(parts) or '<i>no model turns</i>'}</div>"


def summary_html(transcript: Any) -> str:
    """One line: model, run id, how it ended, turns, calls, tokens and duration."""
    usage = transcript.usage
    stopped = transcript.stopped_because or "running"
    colour = status_colour("success" if stopped == "end_turn" else "error")
    error = f" — {_e(transcript.error)}" if transcript.error else ""
    return (
        f"<div class='workbench-transcript-summary'><b>{_e(transcript.model)}</b> "
        f"<span style='{_MUTED}'>{_e(transcript.run_id)}</span> · "
        f"<span style='color:{colour};font-weight:bold'>{_e(stopped)}</span>{error} · "
        f"{len(transcript.model_steps)} turns · {len(transcript.tool_steps)} tool calls · "
        f"{usage.input_tokens}+{usage.output_tokens} tokens · {transcript.duration_ms:.0f} ms</div>"
    )


def transcript_html(transcript: Any) -> str:
    """The static view: summary, chat, trace and (folded) raw requests — what a saved notebook keeps."""
    return (
        f"<div class='workbench-transcript'>{summary_html(transcript)}"
        f"{chat_html(transcript.prompt, transcript.steps)}"
        f"<details><summary>trace</summary>{trace_html(transcript.steps)}</details>"
        f"<details><summary>raw requests and responses</summary>{raw_html(transcript.steps)}</details></div>"
    )
