"""Benchmark ``workbench.log.ExecutionLog`` against raw ``sqlite3`` inserts.

Plain script (no pytest)::

    python benchmarks/bench_log.py [N]

Appends N (default 100,000) results to an in-memory log and to a file log
(WAL, in a temporary directory): one by one with ``append`` (one committed
transaction each) and in one transaction with ``append_many``; then reads
everything back with ``to_dataframe()``. The baseline, measured in the same
run, is a raw ``sqlite3`` ``executemany`` of the same, already JSON-encoded
rows into the same table in one transaction. Ratios are rows/s of the
workbench operation divided by rows/s of the baseline for that storage.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from workbench.log import _DDL, _INSERT_SQL, LOG_COLUMNS, ExecutionLog
from workbench.types import ToolResult


def make_results(n: int) -> list[tuple[ToolResult, dict]]:
    pairs = []
    for i in range(n):
        use_id = f"t{i}"
        result = ToolResult(
            toolUseId=use_id,
            status="success" if i % 10 else "error",
            content=[{"text": "3"}, {"json": 3}],
            metadata={"tool_name": "add", "latency_ms": 1.2},
            started_at="2026-01-01T00:00:00.000Z",
            completed_at="2026-01-01T00:00:00.001Z",
        )
        pairs.append((result, {"toolUseId": use_id, "name": "add", "input": {"a": i, "b": 2}}))
    return pairs


def raw_rows(pairs: list[tuple[ToolResult, dict]]) -> list[tuple]:
    """The same rows, JSON-encoded up front (the baseline does no per-row work)."""
    return [
        (
            "add",
            r.tool_use_id,
            json.dumps(u["input"]),
            json.dumps(r.content),
            r.status,
            None,
            None,
            r.started_at,
            r.completed_at,
            r.metadata["latency_ms"],
            json.dumps(r.metadata),
            None,
            None,
        )  # run_id, turn: not an agent run
        for r, u in pairs
    ]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def raw_connection(target: str) -> sqlite3.Connection:
    """A raw sqlite3 connection with the log's schema and pragmas."""
    conn = sqlite3.connect(target, isolation_level=None)
    if target != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    for statement in _DDL:
        conn.execute(statement)
    return conn


def baseline(target: str, rows: list[tuple]) -> float:
    """Raw sqlite3: same schema, same pragmas, one executemany in one transaction."""
    conn = raw_connection(target)

    def run() -> None:
        conn.execute("BEGIN")
        conn.executemany(_INSERT_SQL, rows)
        conn.execute("COMMIT")

    seconds = timed(run)
    assert conn.execute("SELECT count(*) FROM calls").fetchone()[0] == len(rows)
    conn.close()
    return seconds


def baseline_autocommit(target: str, rows: list[tuple]) -> float:
    """Raw sqlite3, one committed INSERT per row: the floor for a durable one-by-one append."""
    conn = raw_connection(target)
    execute = conn.cursor().execute
    seconds = timed(lambda: [execute(_INSERT_SQL, row) for row in rows])
    assert conn.execute("SELECT count(*) FROM calls").fetchone()[0] == len(rows)
    conn.close()
    return seconds


Row = tuple[str, str, int, float, "float | None", "float | None"]


def bench_storage(
    label: str, make_log: Callable[[str], ExecutionLog], target: Callable[[str], str], pairs: list, rows: list[tuple]
) -> list[Row]:
    n = len(pairs)
    base_rate = n / baseline(target("baseline"), rows)
    auto_rate = n / baseline_autocommit(target("baseline_autocommit"), rows)
    out: list[Row] = [
        (label, "raw sqlite3 executemany (baseline)", n, base_rate, 1.0, None),
        (label, "raw sqlite3 execute, autocommit", n, auto_rate, auto_rate / base_rate, None),
    ]

    log = make_log("append")
    append = log.append
    rate = n / timed(lambda: [append(r, u) for r, u in pairs])
    assert len(log) == n
    out.append((label, "append (one by one, autocommit)", n, rate, rate / base_rate, rate / auto_rate))
    rate = n / timed(log.to_dataframe)
    out.append((label, "to_dataframe()", n, rate, None, None))
    log.close()

    log = make_log("append_many")
    rate = n / timed(lambda: log.append_many(pairs))
    assert len(log) == n
    out.append((label, "append_many (one transaction)", n, rate, rate / base_rate, rate / base_rate))
    log.close()
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    t0 = time.perf_counter()
    import pandas  # noqa: F401 - imported once up front: to_dataframe() is timed without the import

    pairs = make_results(n)
    rows = raw_rows(pairs)
    assert len(rows[0]) == len(LOG_COLUMNS) - 1
    results = bench_storage("memory", lambda _: ExecutionLog(), lambda _: ":memory:", pairs, rows)
    with tempfile.TemporaryDirectory() as tmp:
        results += bench_storage(
            "file (WAL)",
            lambda name: ExecutionLog(Path(tmp) / f"{name}.sqlite"),
            lambda name: str(Path(tmp) / f"{name}.sqlite"),
            pairs,
            rows,
        )

    print(f"ExecutionLog benchmark: {n:,} results, sqlite {sqlite3.sqlite_version}, Python {sys.version.split()[0]}")
    header = (
        f"{'storage':<11} {'operation':<36} {'rows':>8} {'rows/s':>10} {'vs baseline':>12} {'vs raw same-commit':>19}"
    )
    print(header)
    print("-" * len(header))
    for storage, operation, count, rate, ratio, same in results:
        ratio_text = "" if ratio is None else f"{ratio:.2f}x"
        same_text = "" if same is None else f"{same:.2f}x"
        print(f"{storage:<11} {operation:<36} {count:>8,} {rate:>10,.0f} {ratio_text:>12} {same_text:>19}")
    print(
        f"(total {time.perf_counter() - t0:.1f} s; 'vs baseline' = rows/s ÷ raw executemany rows/s on the same storage;"
    )
    print(" 'vs raw same-commit' compares with raw sqlite3 committing the same way: per row for append, one")
    print(" transaction for append_many)")


if __name__ == "__main__":
    main()
