"""The report's HTML: a summary table, bar charts (accuracy per model/variant, failures by reason) as
inline SVG — so the same view renders live and in a saved notebook — and the failures, all escaped."""

from __future__ import annotations

import html
from typing import Any

_BAR_W, _ROW_H = 260, 22


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _bars(title: str, items: list[tuple[str, float, str]], maximum: float) -> str:
    height = _ROW_H * max(1, len(items)) + 8
    rows = []
    for i, (label, value, text) in enumerate(items):
        y = 4 + i * _ROW_H
        width = 0 if maximum <= 0 else _BAR_W * value / maximum
        rows.append(f'<text x="0" y="{y + 15}" class="wb-eval-label">{_esc(label)}</text>'
                    f'<rect x="230" y="{y + 3}" width="{width:.1f}" height="{_ROW_H - 8}" rx="2" class="wb-eval-bar"/>'
                    f'<text x="{236 + width:.1f}" y="{y + 15}" class="wb-eval-label">{_esc(text)}</text>')
    return (f'<figure class="wb-eval-chart"><figcaption>{_esc(title)}</figcaption>'
            f'<svg role="img" aria-label="{_esc(title)}" width="{230 + _BAR_W + 80}" height="{height}">{"".join(rows)}</svg></figure>')


def report_html(report: Any) -> str:
    summary = report.summary()
    head = (f"<strong>Evaluation</strong>: {len(report.results)}/{report.total_jobs} runs"
            f"{' — interrupted' if report.interrupted else ''}, {report.cache_hits} answered from the cache")
    columns = [c for c in summary.columns if c not in ("k",)]
    table = ["<table class='wb-eval-table'><thead><tr>" + "".join(f"<th>{_esc(c)}</th>" for c in columns) + "</tr></thead><tbody>"]
    for row in summary.to_dict("records"):
        table.append("<tr>" + "".join(f"<td>{_esc(_fmt(row[c], c))}</td>" for c in columns) + "</tr>")
    table.append("</tbody></table>")
    accuracy = _bars("Accuracy per model and variant",
                     [(f"{r['model']} [{r['variant']}]", r["accuracy"], f"{r['accuracy']:.0%}") for r in summary.to_dict("records")], 1.0)
    reasons = report.failure_reasons()
    failures = _bars("Failures by reason",
                     [(f"{r['error_type'] or 'other'} — {r['model']} [{r['variant']}]", r["failures"], str(r["failures"]))
                      for r in reasons.to_dict("records")], float(reasons["failures"].max()) if len(reasons) else 1.0)
    diffs = "".join(f"<details><summary>Spec changes {_esc(a)} → {_esc(b)}</summary><pre>{_esc(diff)}</pre></details>"
                    for (a, b), diff in report.spec_diffs.items())
    failed = report.failures().head(50)
    fail_rows = "".join(f"<tr><td>{_esc(r['case'])}</td><td>{_esc(r['model'])}</td><td>{_esc(r['variant'])}</td>"
                        f"<td>{_esc(r['reason'])}</td></tr>" for r in failed.to_dict("records"))
    fail_table = (f"<details><summary>Failures ({len(report.failures())})</summary><table class='wb-eval-table'>"
                  f"<thead><tr><th>case</th><th>model</th><th>variant</th><th>reason</th></tr></thead>"
                  f"<tbody>{fail_rows}</tbody></table></details>") if len(failed) else ""
    style = ("<style>.wb-eval{font-family:var(--jp-ui-font-family,sans-serif);color:var(--jp-ui-font-color1,#222)}"
             ".wb-eval-table{border-collapse:collapse;margin:6px 0}.wb-eval-table td,.wb-eval-table th{padding:2px 8px;"
             "border-bottom:1px solid var(--jp-border-color2,#ddd);text-align:left}"
             ".wb-eval-bar{fill:var(--jp-brand-color1,#1976d2)}.wb-eval-label{fill:var(--jp-ui-font-color1,#222);font-size:12px}"
             ".wb-eval-chart{display:inline-block;margin:4px 16px 4px 0}</style>")
    return f"<div class='wb-eval'>{style}<p>{head}</p>{''.join(table)}{accuracy}{failures}{diffs}{fail_table}</div>"


def _fmt(value: Any, column: str = "") -> str:
    if column.endswith("_ms") and isinstance(value, float):
        return f"{value:.1f} ms"
    if isinstance(value, float):
        return "–" if value != value else f"{value:.3g}"
    return str(value)
