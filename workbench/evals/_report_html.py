"""The report's HTML: a summary table, bar charts (accuracy per model/variant with its 95 % interval,
failures by reason) as inline SVG — so the same view renders live, in a saved notebook and in a
saved page (:func:`report_page`, no script and no network) — the paired comparisons and the
failures, all escaped."""

from __future__ import annotations

from typing import Any, Optional

from workbench._html import details, pre
from workbench._html import escape as _esc

_BAR_W, _ROW_H = 260, 22


def _bars(title: str, items: list[tuple[str, float, str]], maximum: float,
          intervals: Optional[list[tuple[float, float]]] = None) -> str:
    height = _ROW_H * max(1, len(items)) + 8
    rows = []
    for i, (label, value, text) in enumerate(items):
        y = 4 + i * _ROW_H
        width = 0 if maximum <= 0 or value != value else _BAR_W * value / maximum
        whisker, end = "", width
        if intervals and all(b == b for b in intervals[i]) and maximum > 0:
            low, high = (230 + _BAR_W * b / maximum for b in intervals[i])
            middle = y + _ROW_H / 2 - 1
            whisker = (f'<path d="M{low:.1f} {middle}H{high:.1f}M{low:.1f} {middle - 4}v8M{high:.1f} {middle - 4}v8" '
                       f'class="wb-eval-interval"><title>95% interval {intervals[i][0]:.1%}–{intervals[i][1]:.1%}</title></path>')
            end = max(width, high - 230)
        rows.append(f'<text x="0" y="{y + 15}" class="wb-eval-label">{_esc(label)}</text>'
                    f'<rect x="230" y="{y + 3}" width="{width:.1f}" height="{_ROW_H - 8}" rx="2" class="wb-eval-bar"/>'
                    f'{whisker}<text x="{236 + end:.1f}" y="{y + 15}" class="wb-eval-label">{_esc(text)}</text>')
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
    records = summary.to_dict("records")
    accuracy = _bars("Accuracy per model and variant (whiskers: 95% interval)",
                     [(f"{r['model']} [{r['variant']}]", r["accuracy"], f"{r['accuracy']:.0%}") for r in records], 1.0,
                     [(r["accuracy_low"], r["accuracy_high"]) for r in records])
    reasons = report.failure_reasons()
    failures = _bars("Failures by reason",
                     [(f"{r['error_type'] or 'other'} — {r['model']} [{r['variant']}]", r["failures"], str(r["failures"]))
                      for r in reasons.to_dict("records")], float(reasons["failures"].max()) if len(reasons) else 1.0)
    diffs = "".join(details(f"Spec changes {a} → {b}", pre(str(diff))) for (a, b), diff in report.spec_diffs.items())
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
             ".wb-eval-interval{stroke:var(--jp-ui-font-color1,#222);stroke-width:1.5;fill:none}"
             ".wb-eval-chart{display:inline-block;margin:4px 16px 4px 0}</style>")
    return (f"<div class='wb-eval'>{style}<p>{head}</p>{''.join(table)}{accuracy}{failures}{_comparisons(report)}"
            f"{diffs}{fail_table}</div>")


def _comparisons(report: Any) -> str:
    """Consecutive variants, and consecutive models, compared by case (EvalReport.compare)."""
    results = report.results
    pairs = [(a, b) for column in ("variant", "model") for names in [list(dict.fromkeys(results[column]))]
             for a, b in zip(names, names[1:])]
    if not pairs:
        return ""
    rows = []
    for a, b in pairs:
        c = report.compare(a, b)
        interval = "–" if c.ci_low != c.ci_low else f"[{100 * c.ci_low:+.1f}, {100 * c.ci_high:+.1f}]"
        rows.append(f"<tr><td>{_esc(b)} vs {_esc(a)}</td><td>{c.cases}</td><td>{c.wins}</td><td>{c.losses}</td>"
                    f"<td>{c.ties}</td><td>{100 * c.difference:+.1f}</td><td>{interval}</td><td>{c.p_value:.3g}</td>"
                    f"<td>{_esc(c.verdict)}</td></tr>")
    return ("<table class='wb-eval-table wb-eval-comparisons'><caption>Paired by case</caption><thead><tr>"
            "<th>comparison</th><th>cases</th><th>better</th><th>worse</th><th>unchanged</th><th>difference (points)</th>"
            "<th>95% interval</th><th>p (sign-flip)</th><th>verdict</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def report_page(report: Any) -> str:
    """A whole HTML document of the report's view: inline CSS and SVG, no script, no external resource."""
    title = "Evaluation report" + (f" — {report.suite['name']}" if (report.suite or {}).get("name") else "")
    made = f"<p class='wb-eval-made'>Created {_esc(report.created_at)}</p>" if report.created_at else ""
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<title>{_esc(title)}</title><style>body{{font-family:system-ui,sans-serif;margin:16px 24px}}"
            "h1{font-size:1.4em}</style></head>"
            f"<body><h1>{_esc(title)}</h1>{made}{report_html(report)}</body></html>\n")


def _fmt(value: Any, column: str = "") -> str:
    if column.endswith("_ms") and isinstance(value, float):
        return f"{value:.1f} ms"
    if isinstance(value, float):
        return "–" if value != value else f"{value:.3g}"
    return str(value)
