"""Escaped HTML for the reports of ``check_tool``/``fuzz_inputs`` and ``spec_diff`` (``_repr_html_``).

Every tool-provided text (inputs, messages, tracebacks, descriptions) is escaped (``workbench._html``).
"""

from __future__ import annotations

from typing import Any

from workbench._html import details, pre
from workbench._html import escape as _e


def check_report_html(report: Any) -> str:
    """A summary line, then one block per failure: kind, message, shrunk input, traceback (collapsed)."""
    state = "ok" if report.ok else "failed"
    parts = [f"<div class='workbench-check workbench-check-{state}'>", f"<div><b>{_e(report.summary())}</b></div>"]
    for failure in report.failures:
        parts.append("<div class='workbench-check-failure'>")
        parts.append(f"<div><code>{_e(failure.kind)}</code> {_e(failure.message)}</div>")
        if failure.mutation:
            parts.append(f"<div>broken: {_e(failure.mutation)}</div>")
        parts.append(pre(failure.input))
        if failure.traceback:
            parts.append(details("traceback", pre(str(failure.traceback))))
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def spec_diff_html(diff: Any) -> str:
    """A table of changes: severity, tool, JSON pointer, explanation; breaking rows first."""
    rows = (
        "".join(
            f"<tr class='workbench-spec-{c.severity}'><td><b>{_e(c.severity)}</b></td><td><code>{_e(c.tool)}</code></td>"
            f"<td><code>{_e(c.pointer or '/')}</code></td><td>{_e(c.message)}</td></tr>"
            for c in diff.changes
        )
        or "<tr><td colspan=4><i>no changes</i></td></tr>"
    )
    return (
        f"<table class='workbench-spec-diff'><caption>{_e(diff.summary())}</caption>"
        "<thead><tr><th>severity</th><th>tool</th><th>where</th><th>change</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
