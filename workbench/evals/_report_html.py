"""The report's HTML: a summary table, bar charts (accuracy per model/variant with its 95 % interval,
failures by reason) as inline SVG — so the same view renders live, in a saved notebook and in a
saved page (:func:`report_page`, no script and no network) — the paired comparisons and the
failures, all escaped."""

from __future__ import annotations

from typing import Any, Iterable, Optional

from workbench._html import details, pre
from workbench._html import escape as _esc

_BAR_W, _ROW_H = 260, 22
# on every element that takes the focus: its keys are its own, not the notebook's command-mode shortcuts
# (an arrow would leave for the next cell instead of scrolling the box, D D would delete the cell);
# JupyterLab honours it on the focused element itself
_OWN_KEYS = "data-lm-suppress-shortcuts='true'"
_VALUE_W = 80  # room right of the bar for its value (and a whisker past 100 %)
#: failures listed per model and variant (the rest: ``report.failures()``)
FAILURES_PER_GROUP = 50


def _bars(
    title: str,
    items: list[tuple[str, float, str]],
    maximum: float,
    intervals: Optional[list[tuple[float, float]]] = None,
) -> str:
    """A bar per item (label, value, value text): the label as HTML (cut with an ellipsis, whole in its
    tooltip), then the bar on its track (the track shows the scale, so a 0 % bar is still seen)."""
    rows = []
    middle = _ROW_H / 2 - 1
    for i, (label, value, text) in enumerate(items):
        width = 0 if maximum <= 0 or value != value else _BAR_W * value / maximum
        whisker, end = "", width
        if intervals and all(b == b for b in intervals[i]) and maximum > 0:
            low, high = (_BAR_W * b / maximum for b in intervals[i])
            whisker = (
                f'<path d="M{low:.1f} {middle}H{high:.1f}M{low:.1f} {middle - 4}v8M{high:.1f} {middle - 4}v8" '
                f'class="wb-eval-interval"><title>95% interval {intervals[i][0]:.1%}–{intervals[i][1]:.1%}</title></path>'
            )
            end = max(width, high)
        rows.append(
            f'<div class="wb-eval-bar-row"><span class="wb-eval-label" title="{_esc(label)}">{_esc(label)}</span>'
            f'<svg role="img" aria-label="{_esc(label)}: {_esc(text)}" width="{_BAR_W + _VALUE_W}" height="{_ROW_H}">'
            f'<rect x="0.5" y="3.5" width="{_BAR_W - 1}" height="{_ROW_H - 9}" rx="2" class="wb-eval-track"/>'
            f'<rect x="0" y="3" width="{width:.1f}" height="{_ROW_H - 8}" rx="2" class="wb-eval-bar"/>'
            f'{whisker}<text x="{6 + max(end, _BAR_W):.1f}" y="15" class="wb-eval-value">{_esc(text)}</text></svg></div>'
        )
    return f'<figure class="wb-eval-chart"><figcaption>{_esc(title)}</figcaption>{"".join(rows)}</figure>'


def _table(
    headers: list[str], rows: list[list[Any]], caption: str = "", klass: str = "", numeric: Iterable[str] = ()
) -> str:
    """A table in its own scrolling box (a wide table scrolls there, not the whole report); the
    ``numeric`` columns right-aligned, text left. The box takes the keyboard focus, so its scrolling does too."""
    numbers = set(numeric)
    align = ["wb-num" if h in numbers else "wb-text" for h in headers]
    head = "".join(f"<th class='{a}'>{_esc(h)}</th>" for h, a in zip(headers, align))
    body = "".join(
        "<tr>" + "".join(f"<td class='{a}'>{cell}</td>" for cell, a in zip(row, align)) + "</tr>" for row in rows
    )
    label = caption or "table"
    caption_html = f"<caption>{_esc(caption)}</caption>" if caption else ""
    return (
        f"<div class='wb-eval-scroll' tabindex='0' role='region' aria-label='{_esc(label)}' {_OWN_KEYS}>"
        f"<table class='wb-eval-table {klass}'>{caption_html}<thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def _failures(report: Any) -> str:
    """The failures grouped by model and variant (a disclosure each), then by case with each failed
    repeat; at most :data:`FAILURES_PER_GROUP` a group, and always how many of how many are shown."""
    failed = report.failures()
    if not len(failed):
        return ""
    groups, shown = [], 0
    for (model, variant), group in failed.groupby(["model", "variant"], sort=False):
        group = group.sort_values(["case", "repeat"], kind="stable")
        listed = group.head(FAILURES_PER_GROUP)
        shown += len(listed)
        cases = group["case"].nunique()
        rows, previous = [], None
        for r in listed.to_dict("records"):
            case = "" if r["case"] == previous else _esc(r["case"])  # a case's repeats under its name
            previous = r["case"]
            rows.append([case, _esc(r["repeat"]), _esc(r["reason"])])
        more = (
            (
                f"<p class='wb-eval-note'>showing {len(listed)} of {len(group)}: all of them are in "
                "<code>report.failures()</code></p>"
            )
            if len(listed) < len(group)
            else ""
        )
        groups.append(
            f"<details class='wb-eval-failure-group'><summary {_OWN_KEYS}>{_esc(model)} [{_esc(variant)}]: "
            f"{len(group)} failure{'s' if len(group) != 1 else ''} in {cases} case{'s' if cases != 1 else ''}"
            f" (showing {len(listed)} of {len(group)})</summary>"
            f"{_table(['case', 'repeat', 'reason'], rows, f'Failures of {model} [{variant}]', numeric=['repeat'])}{more}</details>"
        )
    return (
        f"<section class='wb-eval-failures'><h3>Failures ({len(failed)})</h3>"
        f"<p class='wb-eval-note'>showing {shown} of {len(failed)}, by model and variant, then case "
        "(each failed repeat a row)</p>" + "".join(groups) + "</section>"
    )


_STYLE = (
    "<style>.wb-eval{font-family:var(--jp-ui-font-family,sans-serif);color:var(--jp-ui-font-color1,#222);max-width:100%}"
    ".wb-eval-scroll{overflow-x:auto;max-width:100%;margin:6px 0}"
    ".wb-eval-scroll:focus-visible,.wb-eval summary:focus-visible{outline:2px solid var(--jp-brand-color1,#1976d2);outline-offset:1px}"
    # JupyterLab's output tables right-align every cell and drop their borders (``:not(.jp-RenderedMarkdown)
    # .jp-RenderedHTMLCommon td``): these selectors are more specific
    ".wb-eval table.wb-eval-table{border-collapse:collapse;margin:0}"
    ".wb-eval table.wb-eval-table td,.wb-eval table.wb-eval-table th{padding:2px 8px;vertical-align:top;"
    "border:none;border-bottom:1px solid var(--jp-border-color2,#ddd);text-align:left;white-space:nowrap}"
    ".wb-eval table.wb-eval-table td.wb-num,.wb-eval table.wb-eval-table th.wb-num{text-align:right}"
    ".wb-eval .wb-eval-failures table.wb-eval-table td:last-child{white-space:normal;min-width:20em}"
    ".wb-eval table.wb-eval-table caption{text-align:left;font-weight:600;padding:2px 0}"
    ".wb-eval-chart{display:inline-block;margin:4px 16px 4px 0;vertical-align:top}"
    ".wb-eval-chart figcaption{font-weight:600;margin-bottom:2px}"
    ".wb-eval-bar-row{display:flex;align-items:center;gap:6px;height:22px}"
    ".wb-eval-label{flex:0 0 224px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12px}"
    ".wb-eval-bar{fill:var(--jp-brand-color1,#1976d2)}"
    # the track: the whole 0–100 % scale, its outline ≥ 3:1 against the page in both themes
    ".wb-eval-track{fill:var(--jp-layout-color2,#eee);stroke:currentColor;stroke-width:1;color:var(--jp-ui-font-color2,#616161)}"
    # SVG text painted in currentColor: its colour is the CSS color, as for any other text
    ".wb-eval-value{fill:currentColor;color:var(--jp-ui-font-color1,#222);font-size:12px}"
    ".wb-eval-interval{stroke:var(--jp-ui-font-color1,#222);stroke-width:1.5;fill:none}"
    ".wb-eval-failure-group summary{cursor:pointer;padding:2px 0}"
    ".wb-eval-note{margin:2px 0;color:var(--jp-ui-font-color1,#222)}"
    ".wb-eval-failures h3{font-size:1.05em;margin:10px 0 2px 0}</style>"
)


def report_html(report: Any) -> str:
    summary = report.summary()
    head = (
        f"<strong>Evaluation</strong>: {len(report.results)}/{report.total_jobs} runs"
        f"{' — interrupted' if report.interrupted else ''}, {report.cache_hits} answered from the cache"
    )
    columns = [c for c in summary.columns if c not in ("k",)]
    records = summary.to_dict("records")
    numeric = [c for c in columns if c in summary.select_dtypes("number").columns]
    table = _table(
        columns,
        [[_esc(_fmt(row[c], c)) for c in columns] for row in records],
        "Summary per model and variant",
        numeric=numeric,
    )
    accuracy = _bars(
        "Accuracy per model and variant (whiskers: 95% interval)",
        [(f"{r['model']} [{r['variant']}]", r["accuracy"], f"{r['accuracy']:.0%}") for r in records],
        1.0,
        [(r["accuracy_low"], r["accuracy_high"]) for r in records],
    )
    reasons = report.failure_reasons()
    failures = _bars(
        "Failures by reason",
        [
            (f"{r['error_type'] or 'other'} — {r['model']} [{r['variant']}]", r["failures"], str(r["failures"]))
            for r in reasons.to_dict("records")
        ],
        float(reasons["failures"].max()) if len(reasons) else 1.0,
    )
    diffs = "".join(details(f"Spec changes {a} → {b}", pre(str(diff))) for (a, b), diff in report.spec_diffs.items())
    return (
        f"<div class='wb-eval'>{_STYLE}<p>{head}</p>{table}{accuracy}{failures}{_comparisons(report)}"
        f"{diffs}{_failures(report)}</div>"
    )


def _comparisons(report: Any) -> str:
    """Consecutive variants, and consecutive models, compared by case (EvalReport.compare)."""
    results = report.results
    pairs = [
        (a, b)
        for column in ("variant", "model")
        for names in [list(dict.fromkeys(results[column]))]
        for a, b in zip(names, names[1:])
    ]
    if not pairs:
        return ""
    rows = []
    for a, b in pairs:
        c = report.compare(a, b)
        interval = "–" if c.ci_low != c.ci_low else f"[{100 * c.ci_low:+.1f}, {100 * c.ci_high:+.1f}]"
        rows.append(
            [
                f"{_esc(b)} vs {_esc(a)}",
                c.cases,
                c.wins,
                c.losses,
                c.ties,
                f"{100 * c.difference:+.1f}",
                interval,
                f"{c.p_value:.3g}",
                _esc(c.verdict),
            ]
        )
    return _table(
        [
            "comparison",
            "cases",
            "better",
            "worse",
            "unchanged",
            "difference (points)",
            "95% interval",
            "p (sign-flip)",
            "verdict",
        ],
        rows,
        "Paired by case",
        "wb-eval-comparisons",
        numeric=["cases", "better", "worse", "unchanged", "difference (points)", "p (sign-flip)"],
    )


def report_page(report: Any) -> str:
    """A whole HTML document of the report's view: inline CSS and SVG, no script, no external resource."""
    title = "Evaluation report" + (f" — {report.suite['name']}" if (report.suite or {}).get("name") else "")
    made = f"<p class='wb-eval-made'>Created {_esc(report.created_at)}</p>" if report.created_at else ""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{_esc(title)}</title><style>body{{font-family:system-ui,sans-serif;margin:16px 24px}}"
        "h1{font-size:1.4em}</style></head>"
        f"<body><h1>{_esc(title)}</h1>{made}{report_html(report)}</body></html>\n"
    )


def _fmt(value: Any, column: str = "") -> str:
    if column.endswith("_ms") and isinstance(value, float):
        return f"{value:.1f} ms"
    if isinstance(value, float):
        return "–" if value != value else f"{value:.3g}"
    return str(value)
