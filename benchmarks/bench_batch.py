"""Batch-run benchmarks (issue 11). A plain script: ``python benchmarks/bench_batch.py [--quick]``.

1. ``map`` of N ``add`` calls (a DataFrame in, a DataFrame out) on ``SequentialExecutor``,
   ``ConcurrentExecutor`` and ``DaskExecutor`` (2-worker LocalCluster): rows/s, against a plain
   Python loop calling the function and a loop of ``executor.run([call])``.
2. A CPU-bound tool (about 5 ms of pure-Python work per call): ``DaskExecutor`` (2 worker
   processes) speed-up over ``ConcurrentExecutor`` (threads, held by the GIL).

Every number is measured in this run (``time.perf_counter``, best of rounds); ratios compare numbers
from the same run, so they hold across machines better than the absolute figures.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import pandas as pd

from workbench import ConcurrentExecutor, SequentialExecutor, tool

TARGETS = {"sequential_rows_per_s": 100_000, "dask_speedup": 1.7, "dask_overhead_us": 50.0}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _spin(steps: int) -> int:
    total = 0
    for i in range(steps):  # pure-Python work that holds the GIL
        total += i * i % 7
    return total


def _steps_for(ms: float) -> int:
    """How many ``_spin`` steps take about ``ms`` milliseconds here."""
    steps = 10_000
    while True:
        t0 = time.perf_counter()
        _spin(steps)
        elapsed = time.perf_counter() - t0
        if elapsed > 0.02:
            return max(1, int(steps * ms / 1000.0 / elapsed))
        steps *= 2


@tool
def cpu_bound(x: int, steps: int) -> int:
    """A fixed amount of pure-Python work (``steps`` calibrated to about 5 ms)."""
    return x + 0 * _spin(steps)


def best(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds")
    args = parser.parse_args()
    n = 10_000 if args.quick else 100_000
    cpu_n = 40 if args.quick else 200
    rounds = 1 if args.quick else 3
    frame = pd.DataFrame({"a": range(n), "b": [1] * n})
    records = frame.to_dict("records")
    func = add._func

    plain = best(lambda: [func(**r) for r in records], rounds)
    sequential = SequentialExecutor()
    uses = [{"toolUseId": f"t{i}", "name": "add", "input": r} for i, r in enumerate(records)]
    one_by_one = best(lambda: [sequential.run([u], [add]) for u in uses], rounds)
    seq_map = best(lambda: sequential.map(add, frame, progress=False), rounds)
    concurrent = ConcurrentExecutor(max_concurrency=8)
    conc_map = best(lambda: concurrent.map(add, frame, progress=False), rounds)

    from workbench.dask import DaskExecutor

    with DaskExecutor(n_workers=2, threads_per_worker=1) as dask:
        dask.map(add, frame.head(1000), progress=False)  # warm the workers (imports, tool load)
        dask_map = best(lambda: dask.map(add, frame, progress=False), rounds)
        steps = _steps_for(5.0)
        cpu_inputs = [{"x": i, "steps": steps} for i in range(cpu_n)]
        cpu_threads = best(lambda: concurrent.map(cpu_bound, cpu_inputs, progress=False), 1)
        cpu_dask = best(lambda: dask.map(cpu_bound, cpu_inputs, progress=False), 1)

    rate = lambda seconds: n / seconds  # noqa: E731
    print(f"map of {n:,} add calls (DataFrame in and out)")
    print(f"  plain loop calling the function     {rate(plain):>12,.0f} rows/s")
    print(f"  loop of SequentialExecutor.run      {rate(one_by_one):>12,.0f} rows/s")
    print(
        f"  SequentialExecutor.map              {rate(seq_map):>12,.0f} rows/s   "
        f"(target ≥ {TARGETS['sequential_rows_per_s']:,}; {seq_map / plain:.1f}x the plain loop's time, "
        f"{one_by_one / seq_map:.2f}x the run loop's rate)"
    )
    print(f"  ConcurrentExecutor(8).map           {rate(conc_map):>12,.0f} rows/s")
    print(
        f"  DaskExecutor (2 workers).map        {rate(dask_map):>12,.0f} rows/s   "
        f"({dask_map / n * 1e6:.1f} µs per call amortised; target ≤ {TARGETS['dask_overhead_us']:.0f})"
    )
    print(f"CPU-bound tool (~5 ms pure Python), {cpu_n} calls")
    print(f"  ConcurrentExecutor(8) (threads)     {cpu_threads:>8.2f} s")
    print(
        f"  DaskExecutor (2 worker processes)   {cpu_dask:>8.2f} s   speed-up {cpu_threads / cpu_dask:.2f}x "
        f"(target ≥ {TARGETS['dask_speedup']})"
    )


if __name__ == "__main__":
    main()
