"""Benchmark the notebook log view (``LogTable``) on a large execution log.

Plain script (no pytest)::

    python benchmarks/bench_log_view.py [N]

Fills an in-memory ``ExecutionLog`` with N calls (default 100,000; 5 tools, 1 in 10 an error, 1 in
50 cancelled), then times, as the median of several runs:

* open: building a ``LogTable`` (first page rendered);
* refresh: redrawing after a new call (what each throttled update costs);
* page: jumping to the middle page; sort: sorting by latency; filter: a text search and a
  tool + outcome filter; click: opening a row's details.

The baseline, measured in the same run, is what a view built on the whole log would pay per
update: ``log.to_dataframe()`` of all N rows. Ratios are baseline time / view time (higher = faster).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable

from workbench.log import ExecutionLog
from workbench.types import ToolResult

TOOLS = ("add", "search_docs", "fetch_page", "summarise", "translate")


def fill(log: ExecutionLog, n: int) -> None:
    batch = []
    for i in range(n):
        status = "error" if i % 10 == 0 else "success"
        metadata = {"tool_name": TOOLS[i % len(TOOLS)], "latency_ms": float(i % 997) / 10}
        if status == "error":
            kind = "CancelledError" if i % 50 == 0 else "ValueError"
            metadata.update(error_type=kind, error=f"{kind}: failure {i}")
        result = ToolResult(
            toolUseId=f"t{i}",
            status=status,
            content=[{"text": f"result {i}"}, {"json": i}],
            metadata=metadata,
            started_at="2026-01-01T00:00:00.000Z",
            completed_at="2026-01-01T00:00:00.001Z",
        )
        batch.append(
            (result, {"toolUseId": f"t{i}", "name": metadata["tool_name"], "input": {"query": f"q{i}", "n": i}})
        )
        if len(batch) == 10_000:
            log.append_many(batch)
            batch = []
    if batch:
        log.append_many(batch)


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(n: int) -> None:
    from workbench.jupyter import LogTable

    log = ExecutionLog()
    t0 = time.perf_counter()
    fill(log, n)
    print(f"log: {n:,} calls (filled in {time.perf_counter() - t0:.1f} s)")

    baseline = median_time(lambda: log.to_dataframe(), 3)
    print(f"baseline  to_dataframe() of {n:,} rows: {baseline * 1000:9.1f} ms")

    tables: list = []
    open_time = median_time(lambda: tables.append(LogTable(log, interval=0.0)), 5)
    table = tables[-1]
    for extra in tables[:-1]:
        extra.close()

    def new_call_then_refresh() -> None:
        log.append(
            ToolResult(
                toolUseId="new",
                status="success",
                content=[{"text": "new"}],
                metadata={"tool_name": "add", "latency_ms": 1.0},
            ),
            {"name": "add", "input": {}},
        )
        table.flush()

    def middle_page() -> None:
        table.page_index = (table.matching // table.max_rows) // 2
        table.refresh()

    def sort_latency() -> None:
        table.sort_by("latency_ms", descending=True)

    def text_filter() -> None:
        table.search.value = "q4242" if table.search.value != "q4242" else "q4243"
        table.flush()

    def tool_outcome_filter() -> None:
        table.search.value = ""
        table.tool_filter.value = "fetch_page"
        table.status_filter.value = "cancelled"
        table.tool_filter.value = "(all tools)"
        table.status_filter.value = "any status"

    def click_row() -> None:
        table.select(None)
        table.select(n // 2)

    cases = [
        ("open (first page)", open_time, 1),
        ("refresh after a new call", median_time(new_call_then_refresh, 10), 1),
        ("jump to the middle page", median_time(middle_page, 10), 1),
        ("sort by latency", median_time(sort_latency, 5), 1),
        ("text search", median_time(text_filter, 5), 1),
        ("tool + outcome filters (4 refreshes)", median_time(tool_outcome_filter, 5), 4),
        ("click a row (details)", median_time(click_row, 10), 1),
    ]
    print(f"{'log view operation':40} {'ms':>9} {'ms/refresh':>11} {'vs to_dataframe':>16}")
    for label, seconds, refreshes in cases:
        per = seconds / refreshes
        print(f"{label:40} {seconds * 1000:9.2f} {per * 1000:11.2f} {baseline / per:15.0f}x")
    table.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
