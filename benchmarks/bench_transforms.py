"""Derived-tool benchmark. A plain script: ``python benchmarks/bench_transforms.py [--quick]``.

The per-call cost of a tool made by ``derive`` (an argument renamed, one hidden) against its parent,
both through ``SequentialExecutor().run([tool_use], registry)`` (validate → call → ToolResult, log
off): the derived tool validates with the parent's validator after mapping its names back, so the
ratio is the cost of the mapping. Medians over rounds measured in this run, the two sides in
alternating rounds so a busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from workbench import Arg, SequentialExecutor, ToolRegistry, derive, tool


@tool
def search(q: str, limit: int = 5, api_key: str = "") -> int:
    """Search.

    Args:
        q: the query
        limit: how many
        api_key: the key
    """
    return len(q) + limit


find = derive(search, name="find", args={"q": Arg(name="query"), "api_key": Arg(hide=True, default="k")})


def _round(executor: SequentialExecutor, registry: ToolRegistry, uses: list, calls: int) -> float:
    start = time.perf_counter()
    for use in uses[:calls]:
        executor.run([use], registry)
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    rounds, calls = (5, 200) if args.quick else (15, 2000)
    executor = SequentialExecutor()
    plain_registry, derived_registry = ToolRegistry([search]), ToolRegistry([find])
    plain_uses = [{"toolUseId": f"p{i}", "name": "search", "input": {"q": "lamp", "limit": 3}} for i in range(calls)]
    derived_uses = [
        {"toolUseId": f"d{i}", "name": "find", "input": {"query": "lamp", "limit": 3}} for i in range(calls)
    ]
    assert (
        executor.run(plain_uses[:1], plain_registry)[0].value
        == executor.run(derived_uses[:1], derived_registry)[0].value
    )
    plain, derived = [], []
    gc.disable()
    try:
        for _ in range(rounds):
            plain.append(_round(executor, plain_registry, plain_uses, calls))
            derived.append(_round(executor, derived_registry, derived_uses, calls))
    finally:
        gc.enable()
    p, d = statistics.median(plain), statistics.median(derived)
    print(f"parent tool:  {p * 1e6:8.1f} µs/call")
    print(f"derived tool: {d * 1e6:8.1f} µs/call")
    print(f"ratio derived/parent: {d / p:.2f}x")


if __name__ == "__main__":
    main()
