"""Adapter benchmarks (issue #21). A plain script: ``python benchmarks/bench_adapters.py [--quick]``.

1. Adapting 1,000 LangChain tools: ``ToolRegistry(tools)`` on 1,000 ``StructuredTool``s (each
   adapted: LangChain's ``convert_to_openai_tool``, a ``ToolSpec``, registration), against
   LangChain's own ``convert_to_openai_tool`` on the same tools — the conversion every LangChain
   model binding does.
2. Per-call overhead of an adapted LangChain tool: ``SequentialExecutor().run([tool_use], registry)``
   (validate → ``tool.invoke`` → ToolResult, log off) against calling the LangChain tool's
   ``.invoke(args)`` directly. Target: ≤ 1.2×.

Every number is a median over rounds measured in this run (``time.perf_counter``), the two sides
of a ratio measured in alternating rounds so a busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any, Callable

from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from workbench import SequentialExecutor, ToolRegistry

CALL_TARGET = 1.2


def multiply(a: int, b: int) -> int:
    """Multiply two integers.

    Args:
        a: the first factor
        b: the second factor
    """
    return a * b


def _lc_tools(count: int) -> list[Any]:
    return [StructuredTool.from_function(multiply, name=f"multiply_{i}") for i in range(count)]


def _timed(fn: Callable[[], Any], n: int) -> float:
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - start


def alternating(a: Callable[[], Any], b: Callable[[], Any], n: int, rounds: int) -> tuple[float, float]:
    """Median µs per call of ``a`` and of ``b``, measured in alternating rounds of ``n`` calls."""
    for _ in range(min(n, 500)):  # warm up (lazily built validators, LangChain's caches)
        a()
        b()
    times_a, times_b = [], []
    for _ in range(rounds):
        times_a.append(_timed(a, n))
        times_b.append(_timed(b, n))
    return statistics.median(times_a) / n * 1e6, statistics.median(times_b) / n * 1e6


def bench_adapting(count: int, rounds: int) -> None:
    ToolRegistry(_lc_tools(100))  # warm up: imports, pydantic's first schema generations
    for t in _lc_tools(100):
        convert_to_openai_tool(t)
    adapt_times, convert_times = [], []
    for _ in range(rounds):
        tools = _lc_tools(count)
        gc.collect()
        start = time.perf_counter()
        registry = ToolRegistry(tools)
        adapt_times.append(time.perf_counter() - start)
        assert len(registry) == count
        tools = _lc_tools(count)
        gc.collect()
        start = time.perf_counter()
        for t in tools:
            convert_to_openai_tool(t)
        convert_times.append(time.perf_counter() - start)
    adapt_ms, convert_ms = statistics.median(adapt_times) * 1e3, statistics.median(convert_times) * 1e3
    print(
        f"adapting {count:,} LangChain tools (ToolRegistry(tools)):   {adapt_ms:8.1f} ms "
        f"({adapt_ms / count * 1e3:.0f} µs a tool)"
    )
    print(
        f"LangChain's convert_to_openai_tool on {count:,} tools:        {convert_ms:8.1f} ms "
        f"({convert_ms / count * 1e3:.0f} µs a tool)"
    )
    print(f"  ratio adapting / converting: {adapt_ms / convert_ms:.2f}x")


def bench_call(n: int, rounds: int) -> None:
    (lc,) = _lc_tools(1)
    registry = ToolRegistry([lc])
    executor = SequentialExecutor()
    use = {"toolUseId": "bench", "name": lc.name, "input": {"a": 6, "b": 7}}
    args = {"a": 6, "b": 7}
    assert executor.run([use], registry)[0].value == lc.invoke(args) == 42
    adapted_us, direct_us = alternating(lambda: executor.run([use], registry), lambda: lc.invoke(args), n, rounds)
    ratio = adapted_us / direct_us
    print(f"adapted LangChain tool through SequentialExecutor().run: {adapted_us:8.1f} µs a call")
    print(f"the LangChain tool's .invoke(args) directly:            {direct_us:8.1f} µs a call")
    verdict = "met" if ratio <= CALL_TARGET else "NOT met"
    print(
        f"  ratio: {ratio:.2f}x (target <= {CALL_TARGET}x: {verdict}); "
        f"the workbench adds {adapted_us - direct_us:.1f} µs a call"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    options = parser.parse_args()
    rounds = 3 if options.quick else 7
    bench_adapting(1000, rounds)
    bench_call(300 if options.quick else 2000, rounds)


if __name__ == "__main__":
    main()
