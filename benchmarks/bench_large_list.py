"""JSON → Form with a 300-item list (#22 defect 4). A plain script: ``python benchmarks/bench_large_list.py [--quick]``.

Target: the first page on screen in the browser ≤ 1 s. The browser's time grows with the widgets (each
one a model JupyterLab creates and renders) and the messages the kernel sends, so this measures, in the
kernel, what the switch costs and sends: every widget's comm is a recording comm that JSON-encodes each
message as the kernel's session would (``bench_form.RecordingComm``).

Baselines measured in the same run:

* every row built (what the form did before rows were paged, and what "show more" until the end costs);
* a page of 20 rows (the page size before it was sized by the widgets a row makes).

The browser's own numbers come from ``tests/browser/test_notebook_views.py`` (it prints ``shown_after``).
Nothing asserts on time.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ipywidgets as W  # noqa: E402
from bench_form import RecordingComm, build_and_display, recording  # noqa: E402
from ipywidgets.widgets.widget import _instances  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from workbench import tool  # noqa: E402
from workbench.jupyter._containers import ROWS_PAGE  # noqa: E402

TARGET_S = 1.0
COUNT = 300


class Line(BaseModel):
    sku: str
    qty: int


def bulk_tool() -> Any:
    @tool
    def bulk(items: list[Line]) -> int:
        """Count the items."""
        return len(items)

    return bulk


def switch(rounds: int, extra_rows: Optional[int] = None) -> dict:
    """Median ms of JSON → Form with ``COUNT`` items, and the widgets and messages it makes; ``extra_rows``:
    then build rows until that many are built (``show_more``), timed with the switch."""
    text = json.dumps({"items": [{"sku": f"s{i}", "qty": i} for i in range(COUNT)]})
    timings, widgets, messages, sent, rows = [], 0, 0, 0, 0
    with recording():
        for _ in range(rounds + 1):  # the first round warms up (imports, compiled validators)
            form = build_and_display(bulk_tool())
            form.show_json()
            form.json_mode.editor.value = text
            gc.collect()
            before = len(_instances)
            RecordingComm.messages = RecordingComm.sent_bytes = 0
            start = time.perf_counter()
            assert form.show_form()
            field = form.fields["items"]
            if extra_rows is not None:
                field.build_rows(extra_rows)
            timings.append((time.perf_counter() - start) * 1e3)
            widgets, messages, sent = len(_instances) - before, RecordingComm.messages, RecordingComm.sent_bytes
            rows = len(field.rows)
            W.Widget.close_all()
    return {
        "ms": statistics.median(timings[1:]),
        "widgets": widgets,
        "messages": messages,
        "kib": sent / 1024,
        "rows": rows,
    }


def line(name: str, result: dict, baseline: Optional[dict] = None) -> None:
    ratio = f"{result['ms'] / baseline['ms']:5.2f}x of it" if baseline else ""
    print(
        f"   {name:30s} {result['rows']:4d} rows {result['ms']:8.1f} ms {result['widgets']:6d} widgets "
        f"{result['messages']:6d} messages {result['kib']:7.0f} KiB   {ratio}"
    )


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    options = parser.parse_args(argv)
    rounds = 3 if options.quick else 7
    print(
        f"JSON → Form with a list of {COUNT} items of a two-field model, kernel side (median of {rounds}); "
        f"browser target ≤ {TARGET_S:.0f} s"
    )
    every = switch(rounds, extra_rows=COUNT)
    page20 = switch(rounds, extra_rows=ROWS_PAGE)
    page = switch(rounds)
    line("every row built (baseline)", every)
    line(f"a page of {ROWS_PAGE} rows", page20, every)
    line("the first page (as shipped)", page, every)
    per_row = (every["widgets"] - page["widgets"]) / (every["rows"] - page["rows"])
    print(
        f"\n   widgets per row: {per_row:.1f} (23 before #22 defect 4's fix, with ~1.4 messages each); "
        f"messages per widget now: {page['messages'] / page['widgets']:.2f}"
    )
    print(
        f"   the first page sends {page['messages'] / every['messages']:.1%} of the messages of every row "
        f"and {page['messages'] / page20['messages']:.0%} of a 20-row page's"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
