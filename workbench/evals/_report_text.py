"""``print(report)``: an evaluation's summary table and its failures, as plain text for a terminal
or a CI log (the notebook shows the HTML view; ``workbench eval`` prints its own table)."""

from __future__ import annotations

import math
from typing import Any

# (heading, summary column, format): the columns a reader compares first; the rest are in summary()
_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("model", "model", "text"),
    ("variant", "variant", "text"),
    ("cases", "cases", "int"),
    ("runs", "runs", "int"),
    ("accuracy", "accuracy", "percent"),
    ("95% low", "accuracy_low", "percent"),
    ("95% high", "accuracy_high", "percent"),
    ("precision", "precision", "ratio"),
    ("recall", "recall", "ratio"),
    ("f1", "f1", "ratio"),
    ("args ok", "argument_accuracy", "percent"),
)
_MAX_FAILURES = 20


def _cell(value: Any, kind: str) -> str:
    if kind == "text":
        return str(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"  # nothing to measure (a ratio over nothing), as the HTML report shows it
    return {"int": f"{int(value)}", "percent": f"{value:.1%}", "ratio": f"{value:.2f}", "ms": f"{value:.0f}"}[kind]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in [header, *rows]]


def report_text(report: Any) -> str:
    """A heading line (runs done, cache hits, interrupted), the summary per model and variant, then each
    failed run with its one-line reason (the first 20, and how many more)."""
    state = " (interrupted)" if report.interrupted else ""
    lines = [f"EvalReport: {len(report.results)}/{report.total_jobs} runs{state}, {report.cache_hits} cache hits"]
    if len(report.results):
        summary = report.summary()
        rows = [[_cell(row[column], kind) for _, column, kind in _COLUMNS] for _, row in summary.iterrows()]
        lines += _table([heading for heading, _, _ in _COLUMNS], rows)
    failures = report.failures()
    if len(failures):
        lines.append(f"failures: {len(failures)}")
        for _, row in failures.head(_MAX_FAILURES).iterrows():
            lines.append(f"  {row['case']} · {row['model']} [{row['variant']}] #{row['repeat']}: {row['reason']}")
        if len(failures) > _MAX_FAILURES:
            lines.append(f"  … {len(failures) - _MAX_FAILURES} more: report.failures()")
    return "\n".join(lines)
