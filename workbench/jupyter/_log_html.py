"""HTML of the log view: one page of the table, the details of one call, and a plain-text version.

Pure functions of row dicts (as ``ExecutionLog.rows`` / ``ExecutionLog.page`` give them). Every
tool-provided string is escaped. The live view styles the table with ``_static/workbench.css``
(JupyterLab ``--jp-*`` variables); ``static=True`` adds inline styles instead, for the ``text/html``
fallback a notebook saves (GitHub, nbviewer, a notebook opened before it runs).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from workbench._content import json_text
from workbench._html import details, pre
from workbench._html import escape as _e
from workbench._styles import level_colour, status_colour
from workbench.log import _output_summary

__all__ = ["COLUMNS", "outcome", "call_logs", "log_line_text", "table_html", "details_html", "row_json", "plain_text"]

#: (header, sort column in ``ExecutionLog.page`` or None, numeric?) — the table's columns in order
COLUMNS: tuple[tuple[str, Optional[str], bool], ...] = (
    ("id", "id", True),
    ("time", "completed_at", False),
    ("tool", "tool_name", False),
    ("status", "status", False),
    ("input", None, False),
    ("output / error", None, False),
    ("ms", "latency_ms", True),
)

_CELL_STATIC = (
    "padding:4px 10px;text-align:left;vertical-align:top;border-bottom:1px solid var(--jp-border-color2, #d0d7de)"
)


def outcome(row: dict) -> str:
    """``success``, ``error`` or ``cancelled`` (an error whose type is ``CancelledError``)."""
    status = str(row.get("status") or "")
    if status == "error" and row.get("error_type") == "CancelledError":
        return "cancelled"
    return status


def call_logs(row: dict) -> list[dict]:
    """What the call's tool logged and asked (``ToolContext.log`` / ``elicit`` / ``sample``), in order:
    the entries the executor keeps in the row's ``metadata["logs"]``."""
    metadata = row.get("metadata")
    entries = metadata.get("logs") if isinstance(metadata, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


#: the label of each kind of entry, in the table's tool column
_KINDS = {"log": "log", "elicitation": "asked", "sampling": "sampled"}


def log_line_text(entry: dict) -> str:
    """One entry as a line: a log message as it is; a question with what came back (``→ accept
    {...}``, ``→ model: answer``) or why nobody answered."""
    text = str(entry.get("message", ""))
    kind = entry.get("kind", "log")
    if entry.get("error"):
        return f"{text} → {entry['error']}"
    if kind == "elicitation":
        content = entry.get("content")
        return f"{text} → {entry.get('action', '?')}" + (f" {json_text(content)}" if content else "")
    if kind == "sampling":
        return f"{text} → {entry.get('model') or 'model'}: {entry.get('answer', '')}"
    return text


def _log_rows(row: dict, cell_style: str, fit_style: str, truncate: int, static: bool) -> list[str]:
    """A row under the call for each entry of its log (a click opens the call, as its own row does)."""
    lines = []
    for entry in call_logs(row):
        level = str(entry.get("level") or "info")
        kind = _KINDS.get(str(entry.get("kind", "log")), "log")
        level_style = f" style='color:{level_colour(level)};font-weight:bold'" if static else ""
        text = log_line_text(entry)
        lines.append(
            f"<tr class='workbench-log-line workbench-log-line-{_e(kind)}' data-key='{_e(row.get('id'))}'>"
            f"<td class='workbench-log-fit'{fit_style}></td>"
            f"<td class='workbench-log-fit' title='{_e(entry.get('at') or '')} (UTC)'{fit_style}>{_e(_time(entry.get('at')))}</td>"
            f"<td class='workbench-log-fit workbench-log-kind'{fit_style}>↳ {_e(kind)}</td>"
            f"<td class='workbench-log-fit'{fit_style}><span class='workbench-log-level workbench-log-level-{_e(level)}'"
            f"{level_style}>{_e(level)}</span></td>"
            f"{_cell(text, truncate * 2, 'workbench-log-line-text', cell_style).replace('<td', '<td colspan=3', 1)}"
            "</tr>"
        )
    return lines


def status_html(row_outcome: str, *, static: bool = False) -> str:
    style = f" style='color:{status_colour(row_outcome)};font-weight:bold'" if static else ""
    return f"<span class='workbench-status workbench-status-{_e(row_outcome)}'{style}>{_e(row_outcome)}</span>"


def _json(value: Any) -> str:
    return "" if value is None else json_text(value)


def _cell(text: str, limit: int, cls: str = "", style: str = "") -> str:
    """A cell showing ``text`` cut to ``limit`` characters; the full value is in the tooltip."""
    short = text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
    title = f' title="{_e(text)}"' if short != text else ""
    klass = f" class='{cls}'" if cls else ""
    return f"<td{title}{klass}{style}><code>{_e(short)}</code></td>"


def _time(value: Any) -> str:
    """``HH:MM:SS`` (UTC) of an ISO 8601 timestamp."""
    text = "" if value is None else str(value)
    return text[11:19] if len(text) >= 19 and text[10] in "T " else text


def _latency(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value else ""


def _header(label: str, column: Optional[str], numeric: bool, sort: str, descending: bool, style: str) -> str:
    klass = " class='workbench-num'" if numeric else ""
    if column is None:
        return f"<th{klass}{style}>{_e(label)}</th>"
    active = column == sort
    mark = f"<span class='workbench-sort-mark'>{'▼' if descending else '▲'}</span>" if active else ""
    aria = f" aria-sort='{'descending' if descending else 'ascending'}'" if active else ""
    return (
        f"<th data-sort='{_e(column)}' tabindex='0' role='button' title='Sort by {_e(label)}'{aria}{klass}{style}>"
        f"{_e(label)}{mark}</th>"
    )


def _caption(total: int, matching: int, offset: int, shown: int, sort: str, descending: bool) -> str:
    text = f"{total:,} call{'s' if total != 1 else ''} logged"
    if matching != total:
        text += f" · {matching:,} match{'es' if matching != 1 else ''}"
    if shown and shown != matching:
        text += f" · showing {offset + 1:,}–{offset + shown:,}"
    if sort == "id" and descending:
        text += " · newest first"
    return text


def table_html(
    rows: list[dict],
    *,
    total: int,
    matching: Optional[int] = None,
    offset: int = 0,
    sort: str = "id",
    descending: bool = True,
    selected: Optional[int] = None,
    truncate: int = 60,
    static: bool = False,
) -> str:
    """One page of the log as a table: a header per column (sortable ones carry ``data-sort``), a row per
    call (``data-key`` = its id), the outcome as a ``workbench-status-*`` class."""
    matching = total if matching is None else matching
    cell_style = f" style='{_CELL_STATIC}'" if static else ""
    # short values and identifiers (id, time, tool name, status, ms) are never broken: their columns
    # take their content's width, and the input and output columns share the rest
    fit_style = f" style='{_CELL_STATIC};white-space:nowrap'" if static else ""
    body = []
    for row in rows:
        row_outcome = outcome(row)
        if row_outcome == "success":
            result = _cell(_output_summary(row.get("output")), truncate, "workbench-log-output", cell_style)
        else:
            result = _cell(
                str(row.get("error") or ""),
                truncate,
                "workbench-log-output workbench-log-error",
                f" style='{_CELL_STATIC};color:{status_colour(row_outcome)}'" if static else "",
            )
        row_id = row.get("id")
        chosen = " workbench-selected" if selected is not None and row_id == selected else ""
        completed = row.get("completed_at")
        body.append(
            f"<tr class='workbench-log-row{chosen}' data-key='{_e(row_id)}' tabindex='0'>"
            f"<td class='workbench-num workbench-log-fit'{fit_style}>{_e(row_id)}</td>"
            f"<td class='workbench-log-fit' title='{_e(completed or '')} (UTC)'{fit_style}>{_e(_time(completed))}</td>"
            f"<td class='workbench-log-fit workbench-log-tool'{fit_style}><code>{_e(row.get('tool_name') or '')}</code></td>"
            f"<td class='workbench-log-fit'{fit_style}>{status_html(row_outcome, static=static)}</td>"
            f"{_cell(_json(row.get('input')), truncate, 'workbench-log-input', cell_style)}"
            f"{result}"
            f"<td class='workbench-num workbench-log-fit'{fit_style}>{_e(_latency(row.get('latency_ms')))}</td>"
            "</tr>"
        )
        body.extend(_log_rows(row, cell_style, fit_style, truncate, static))
    if not body:
        empty = "no calls yet" if total == 0 else "no calls match the filters"
        body.append(
            f"<tr class='workbench-log-empty'><td colspan='{len(COLUMNS)}'{cell_style}><i>{empty}</i></td></tr>"
        )
    head_style = f" style='{_CELL_STATIC};font-weight:bold'" if static else ""
    header = "".join(
        _header(label, column, numeric, sort, descending, head_style) for label, column, numeric in COLUMNS
    )
    caption = _caption(total, matching, offset, len(rows), sort, descending)
    table_style = " style='border-collapse:collapse'" if static else ""
    return (
        f"<table class='workbench-log-table'{table_style}>"
        f"<caption>{_e(caption)}</caption>"
        f"<thead><tr>{header}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def row_json(row: dict) -> str:
    """The call as indented JSON — the row dict, as ``ExecutionLog.export`` writes it to JSONL."""
    return json.dumps(row, indent=2, ensure_ascii=False, default=repr)


_pre = pre


def details_html(row: dict) -> str:
    """The full request and result of one call (nothing truncated), its metadata folded."""
    row_outcome = outcome(row)
    latency = _latency(row.get("latency_ms"))
    facts = [
        f"<b>#{_e(row.get('id'))}</b>",
        f"<code>{_e(row.get('tool_name') or '?')}</code>",
        status_html(row_outcome),
    ]
    if row.get("completed_at"):
        facts.append(f"completed {_e(row['completed_at'])}")
    if latency:
        facts.append(f"{_e(latency)} ms")
    if row.get("tool_use_id"):
        facts.append(f"toolUseId <code>{_e(row['tool_use_id'])}</code>")
    if row_outcome == "success":
        result = _pre(row.get("output"))
    else:
        result = (
            f"<div class='workbench-status-{_e(row_outcome)}'><b>{_e(row.get('error_type') or 'Error')}</b></div>"
            f"{_pre(str(row.get('error') or ''))}"
        )
    metadata = row.get("metadata") or {}
    trace = metadata.get("traceback") if isinstance(metadata, dict) else None
    extra = details("traceback", _pre(str(trace))) if trace else ""
    logs = call_logs(row)
    if logs:
        lines = "\n".join(f"{_time(e.get('at'))} {e.get('level', 'info')} {log_line_text(e)}" for e in logs)
        extra += f"<div class='workbench-log-details-label'>Tool log</div>{_pre(lines)}"
    extra += details("metadata", _pre(metadata))
    return (
        "<div class='workbench-log-details-body'>"
        f"<div class='workbench-log-details-head'>{' · '.join(facts)}</div>"
        "<div class='workbench-log-details-grid'>"
        f"<div><div class='workbench-log-details-label'>Request (input)</div>{_pre(row.get('input'))}</div>"
        f"<div><div class='workbench-log-details-label'>Result</div>{result}</div>"
        f"</div>{extra}</div>"
    )


def plain_text(rows: list[dict], total: int, truncate: int = 40) -> str:
    """The page as plain text (the ``text/plain`` of a saved notebook)."""
    lines = [f"Execution log: {total:,} call{'s' if total != 1 else ''} logged, newest first"]
    for row in rows:
        text = str(row.get("error") or "") if outcome(row) != "success" else _output_summary(row.get("output"))
        text = text if len(text) <= truncate else text[: truncate - 1] + "…"
        lines.append(
            f"  #{row.get('id')} {_time(row.get('completed_at'))} {row.get('tool_name') or '?'} "
            f"{outcome(row)} {_json(row.get('input'))[:truncate]} → {text}"
        )
        lines.extend(f"      {_time(e.get('at'))} {e.get('level', 'info')} {log_line_text(e)}" for e in call_logs(row))
    return "\n".join(lines)
