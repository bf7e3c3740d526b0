"""Executor benchmarks (README.md, "Performance"). A plain script: ``python benchmarks/bench_executor.py [--quick]``.

1. Per-call overhead of a trivial ``add(a: int, b: int) -> int`` tool:
   direct call · ``pydantic.validate_call`` · ``SequentialExecutor().run([tool_use], registry)`` ·
   ``await executor.execute([tool_use], registry)`` for an ``async def add`` (one running loop) ·
   the MCP SDK's ``MCPServer.call_tool`` (mcp 2.x; FastMCP for mcp 1.x) on the same function, if
   installed · building a tool with ``tool(fn)`` for a fresh function (and ``validate_call(fn)``).
2. 1,000 async tools sleeping 50 ms under ``ConcurrentExecutor(max_concurrency=100)``: wall time
   vs the ideal 0.5 s.
3. Progress reporting: the cost of one ``ctx.report_progress`` with and without a listener, and a
   tool doing 100k steps of ~10 µs work (SHA-256 of 16 KiB) calling ``ctx.report_progress`` at
   every step with a listener attached, vs the same tool not reporting.

Every number is a median over rounds measured in this run (``time.perf_counter``); ratios compare
numbers from the same run, so they hold across machines better than the absolute times.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import statistics
import sys
import time
from typing import Any, Awaitable, Callable, Optional

import pydantic

from workbench import ConcurrentExecutor, SequentialExecutor, ToolContext, ToolRegistry, tool

TARGETS_US = {"run": 9.3, "execute_async": 4.2, "build": 200.0}  # the peers' figures named below


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def async_add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _median_us(timings: list[float], per: int) -> float:
    return statistics.median(timings) / per * 1e6


def bench_sync(fn: Callable[[], Any], n: int, rounds: int) -> float:
    """Median over ``rounds`` of the mean time per call of ``fn`` over ``n`` calls, in µs."""
    for _ in range(min(n, 1000)):  # warm up (caches, lazily built validators)
        fn()
    timings = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        timings.append(time.perf_counter() - start)
    return _median_us(timings, n)


async def bench_async(fn: Callable[[], Awaitable[Any]], n: int, rounds: int) -> float:
    for _ in range(min(n, 1000)):
        await fn()
    timings = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        for _ in range(n):
            await fn()
        timings.append(time.perf_counter() - start)
    return _median_us(timings, n)


def fresh_functions(count: int) -> list[Callable[..., Any]]:
    """``count`` distinct functions (own code objects), made before the timing starts."""
    functions = []
    for i in range(count):
        namespace: dict[str, Any] = {}
        exec(f"def add_{i}(a: int, b: int) -> int:\n    '''Add two integers ({i}).'''\n    return a + b\n", namespace)
        functions.append(namespace[f"add_{i}"])
    return functions


def bench_build(factory: Callable[[Callable[..., Any]], Any], count: int, rounds: int) -> float:
    timings = []
    for _ in range(rounds):
        functions = fresh_functions(count)
        gc.collect()
        start = time.perf_counter()
        for fn in functions:
            factory(fn)
        timings.append(time.perf_counter() - start)
    return _median_us(timings, count)


def mcp_server() -> tuple[Optional[Any], str]:
    """An MCP server with ``add`` registered, and its label; (None, reason) if mcp is missing."""
    try:
        from mcp.server.mcpserver import MCPServer  # mcp 2.x

        server, label = MCPServer("bench"), "mcp 2.x MCPServer.call_tool"
    except ImportError:
        try:
            from mcp.server.fastmcp import FastMCP  # mcp 1.x

            server, label = FastMCP("bench"), "mcp 1.x FastMCP.call_tool"
        except ImportError:
            return None, "mcp not installed"
    server.add_tool(add)
    return server, label


def peer_rows(n: int, rounds: int) -> list[tuple[str, float]]:
    """The same ``add`` through the peers' own call paths, when the package is installed
    (``pip install -e ".[bench]"``): openai-agents' ``on_invoke_tool`` (async, JSON arguments, as
    its runner calls it) and LangChain's ``.invoke``."""
    rows: list[tuple[str, float]] = []
    try:
        from agents import function_tool
        from agents.tool_context import ToolContext as AgentsContext
    except ImportError:
        rows.append(("openai-agents on_invoke_tool — async def add", float("nan")))
    else:
        agent_tool = function_tool(async_add)
        context = AgentsContext(
            context=None, tool_name="async_add", tool_call_id="call_1", tool_arguments='{"a": 1, "b": 2}'
        )

        async def agents_loop() -> float:
            assert await agent_tool.on_invoke_tool(context, '{"a": 1, "b": 2}') in (3, "3")
            return await bench_async(lambda: agent_tool.on_invoke_tool(context, '{"a": 1, "b": 2}'), n, rounds)

        rows.append(("openai-agents on_invoke_tool — async def add", asyncio.run(agents_loop())))
    try:
        from langchain_core.tools import tool as langchain_tool
    except ImportError:
        rows.append(("LangChain tool.invoke(args)", float("nan")))
    else:
        chain_tool = langchain_tool(add)
        args = {"a": 1, "b": 2}
        rows.append(
            ("LangChain tool.invoke(args)", bench_sync(lambda: chain_tool.invoke(args), max(200, n // 10), rounds))
        )
    return rows


def validation_rows(n: int, rounds: int, registry: ToolRegistry) -> list[tuple[str, float]]:
    """Input validation alone: ``spec.check_inputs`` vs a pydantic ``TypeAdapter`` of the same TypedDict."""
    from typing_extensions import TypedDict

    class AddArgs(TypedDict):
        a: int
        b: int

    adapter = pydantic.TypeAdapter(AddArgs)
    spec = registry.get_tool("add").spec
    args = {"a": 1, "b": 2}
    assert spec.check_inputs(args) == adapter.validate_python(args) == args
    return [
        ("validation: spec.check_inputs(args)", bench_sync(lambda: spec.check_inputs(args), n, rounds)),
        (
            "validation: TypeAdapter(TypedDict).validate_python",
            bench_sync(lambda: adapter.validate_python(args), n, rounds),
        ),
    ]


def call_pieces(n: int, rounds: int) -> list[tuple[str, float]]:
    """The pieces of work a plain ``run()`` call of ``add`` cannot skip, each timed alone: its input
    validation, the call, the two ISO timestamps and two clock reads, and the success result (content
    blocks, metadata, the returns check, the ``ToolResult``)."""
    from workbench.executor import returns_check as _returns_check
    from workbench.executor import success_result as _success_result
    from workbench.types import utc_now_iso

    add_tool = tool(add)
    spec = add_tool.spec
    args = {"a": 1, "b": 2}
    spec.check_inputs(args)
    validator = spec.input_checks()[1]
    func = add_tool._func
    check = _returns_check(spec)
    return [
        ("input validation (the spec's validator)", bench_sync(lambda: validator("add", args), n, rounds)),
        ("the call add(**arguments)", bench_sync(lambda: func(**args), n, rounds)),
        (
            "two ISO timestamps + two perf_counter reads",
            2 * bench_sync(utc_now_iso, n, rounds) + 2 * bench_sync(time.perf_counter, n, rounds),
        ),
        (
            "the success ToolResult (content, metadata, returns check)",
            bench_sync(
                lambda: _success_result("add", "tooluse_bench", 3, 0.0, "2026-01-01T00:00:00.000Z", check), n, rounds
            )
            - bench_sync(utc_now_iso, n, rounds)
            - bench_sync(time.perf_counter, n, rounds),
        ),
    ]


# -- 1. per-call overhead --------------------------------------------------------------------------
def per_call(n: int, rounds: int) -> list[tuple[str, float]]:
    registry = ToolRegistry([tool(add), tool(async_add)])
    sequential = SequentialExecutor()
    sync_use = {"toolUseId": "tooluse_bench", "name": "add", "input": {"a": 1, "b": 2}}
    async_use = {"toolUseId": "tooluse_bench", "name": "async_add", "input": {"a": 1, "b": 2}}
    checked = sequential.run([sync_use], registry)[0]
    assert checked.status == "success" and checked.json == 3, checked
    validated = pydantic.validate_call(add)
    args = {"a": 1, "b": 2}

    rows = [
        ("direct call add(1, 2)", bench_sync(lambda: add(1, 2), n, rounds)),
        ("pydantic.validate_call(add)(**args)", bench_sync(lambda: validated(**args), n, rounds)),
        (
            "SequentialExecutor().run([use], registry)",
            bench_sync(lambda: sequential.run([sync_use], registry), n, rounds),
        ),
    ]

    async def in_one_loop() -> list[tuple[str, float]]:
        result = (await sequential.execute([async_use], registry))[0]
        assert result.status == "success" and result.json == 3, result
        out = [
            (
                "await execute([use]) — async def add",
                await bench_async(lambda: sequential.execute([async_use], registry), n, rounds),
            )
        ]
        server, label = mcp_server()
        if server is None:
            out.append((f"MCP call_tool ({label})", float("nan")))
        else:
            mcp_n = max(200, n // 20)
            out.append((label, await bench_async(lambda: server.call_tool("add", {"a": 1, "b": 2}), mcp_n, rounds)))
        return out

    rows += asyncio.run(in_one_loop())
    rows += peer_rows(n, rounds)
    rows += validation_rows(n, rounds, registry)
    build_count = max(50, n // 100)
    rows.append(("build: tool(fn), fresh function", bench_build(tool, build_count, rounds)))
    rows.append(("build: pydantic.validate_call(fn)", bench_build(pydantic.validate_call, build_count, rounds)))
    return rows


# -- 2. concurrency ----------------------------------------------------------------------------------
@tool
async def nap(n: int) -> int:
    """Sleep 50 ms."""
    await asyncio.sleep(0.05)
    return n


def concurrency(calls: int, rounds: int) -> tuple[float, float]:
    registry = ToolRegistry([nap])
    uses = [{"toolUseId": f"t{i}", "name": "nap", "input": {"n": i}} for i in range(calls)]
    executor = ConcurrentExecutor(max_concurrency=100)

    async def once() -> float:
        start = time.perf_counter()
        results = await executor.execute(uses, registry)
        elapsed = time.perf_counter() - start
        assert [r.json for r in results] == list(range(calls))
        return elapsed

    timings = [asyncio.run(once()) for _ in range(rounds)]
    ideal = 0.05 * -(-calls // 100)
    return statistics.median(timings), ideal


# -- 3. progress reporting ---------------------------------------------------------------------------
BLOCK = bytes(16 * 1024)


@tool
def hash_quietly(steps: int) -> str:
    """``steps`` units of work (SHA-256 of 16 KiB), no progress reports."""
    digest = b""
    for _ in range(steps):
        digest = hashlib.sha256(BLOCK).digest()
    return digest.hex()


@tool
def hash_reporting(steps: int, ctx: ToolContext) -> str:
    """The same work, reporting progress after every unit."""
    digest = b""
    for i in range(steps):
        digest = hashlib.sha256(BLOCK).digest()
        ctx.report_progress((i + 1) / steps)
    return digest.hex()


@tool
def idle(steps: int) -> int:
    """An empty loop."""
    for _ in range(steps):
        pass
    return steps


@tool
def report_only(steps: int, ctx: ToolContext) -> int:
    """Only progress reports."""
    for i in range(steps):
        ctx.report_progress((i + 1) / steps)
    return steps


def _one_call(executor: SequentialExecutor, registry: ToolRegistry, name: str, steps: int) -> float:
    gc.collect()
    start = time.perf_counter()
    [result] = executor.run([{"toolUseId": "p", "name": name, "input": {"steps": steps}}], registry)
    elapsed = time.perf_counter() - start
    assert result.status == "success", result
    return elapsed


def progress(steps: int, rounds: int) -> dict[str, float]:
    """Per-report cost (no work between reports) and the slowdown of a working tool, as medians of
    paired rounds (each round times the variants back to back, so machine load drifts cancel out)."""
    registry = ToolRegistry([hash_quietly, hash_reporting, idle, report_only])
    plain = SequentialExecutor()
    listened = SequentialExecutor()
    seen = [0]

    def listener(event: Any) -> None:
        seen[0] += 1

    listened.on_event(listener)
    _one_call(plain, registry, "hash_quietly", steps // 10)  # warm up
    idle_t, silent_t, listened_t, quiet_w, listened_w = [], [], [], [], []
    for _ in range(rounds):
        idle_t.append(_one_call(plain, registry, "idle", steps))
        silent_t.append(_one_call(plain, registry, "report_only", steps))
        seen[0] = 0
        listened_t.append(_one_call(listened, registry, "report_only", steps))
        assert seen[0] == steps + 2, seen[0]  # start + one event per report + end
        quiet_w.append(_one_call(plain, registry, "hash_quietly", steps))
        listened_w.append(_one_call(listened, registry, "hash_reporting", steps))
    med = statistics.median
    return {
        "report_silent_us": (med(silent_t) - med(idle_t)) / steps * 1e6,
        "report_listened_us": (med(listened_t) - med(idle_t)) / steps * 1e6,
        "work_us": med(quiet_w) / steps * 1e6,
        "quiet_s": med(quiet_w),
        "listened_s": med(listened_w),
        "ratio": med([b / a for a, b in zip(quiet_w, listened_w)]),
    }


# -- report ------------------------------------------------------------------------------------------
def _target(label: str, ratio: float, limit: float, strict: bool = False) -> None:
    if ratio != ratio:
        print(f'   {label:48s}    n/a   (peer not installed: pip install -e ".[bench]")')
        return
    met = ratio < limit if strict else ratio <= limit
    print(f"   {label:48s} {ratio:6.2f}x  target {'<' if strict else '≤'} {limit:g}x   {'met' if met else 'MISSED'}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    options = parser.parse_args(argv)
    n, rounds = (2_000, 3) if options.quick else (20_000, 5)
    steps = 10_000 if options.quick else 100_000

    print(
        f"workbench executor benchmarks — Python {sys.version.split()[0]}, pydantic {pydantic.VERSION}, "
        f"median of {rounds} rounds"
    )
    print()
    rows = per_call(n, rounds)
    direct = rows[0][1]
    by_name = dict(rows)
    print(f"1. Per-call overhead ({n:,} calls per round; builds: {max(50, n // 100)} fresh functions per round)")
    print(f"   {'':44s} {'median µs':>10s} {'× direct':>10s}")
    for name, value in rows:
        ratio = value / direct if direct and not name.startswith("build") else float("nan")
        shown = "n/a" if value != value else f"{value:.2f}"
        print(f"   {name:44s} {shown:>10s} {('' if ratio != ratio else f'{ratio:.0f}x'):>10s}")
    run_us = by_name["SequentialExecutor().run([use], registry)"]
    async_us = by_name["await execute([use]) — async def add"]
    build_us = by_name["build: tool(fn), fresh function"]
    validate_us = by_name["pydantic.validate_call(add)(**args)"]
    mcp_rows = [(name, value) for name, value in rows if name.startswith(("mcp", "MCP"))]
    print()
    print("   targets (the peers' published figures):")
    print(
        f"   run()            {run_us:8.2f} µs  vs < {TARGETS_US['run']} µs (FastMCP 1.x)   "
        f"{'met' if run_us < TARGETS_US['run'] else 'MISSED'}  ({run_us / validate_us:.1f}x validate_call)"
    )
    print(
        f"   await execute()  {async_us:8.2f} µs  vs < {TARGETS_US['execute_async']} µs (openai-agents async)   "
        f"{'met' if async_us < TARGETS_US['execute_async'] else 'MISSED'}"
    )
    print(
        f"   tool(fn)         {build_us:8.2f} µs  vs ≤ {TARGETS_US['build']:.0f} µs   "
        f"{'met' if build_us <= TARGETS_US['build'] else 'MISSED'}"
    )
    for name, value in mcp_rows:
        if value == value:
            print(f"   {name}: run() is {value / run_us:.1f}x faster, await execute() {value / async_us:.1f}x faster")
    agents_us = by_name["openai-agents on_invoke_tool — async def add"]
    check_us = by_name["validation: spec.check_inputs(args)"]
    adapter_us = by_name["validation: TypeAdapter(TypedDict).validate_python"]
    print()
    print("   targets (issue #13), ratios in this run:")
    _target("await execute() / openai-agents on_invoke_tool", async_us / agents_us, 0.8, strict=True)
    _target("await execute() / validate_call", async_us / validate_us, 3.0)
    _target("run() / validate_call", run_us / validate_us, 3.0)
    _target("check_inputs / TypeAdapter(TypedDict)", check_us / adapter_us, 1.5)
    print("   (tool build, import time and forms: benchmarks/bench_build.py, bench_form.py)")
    print()
    print("   where a plain run() call's time goes (each piece alone, median µs in this run):")
    pieces = call_pieces(n, rounds)
    for name, value in pieces:
        print(f"     {name:52s} {value:6.2f}")
    essential = sum(value for _, value in pieces)
    print(
        f"     {'sum: the work every call does':52s} {essential:6.2f}   = {essential / validate_us:.1f}x validate_call"
    )
    print(f"     {'run(): the pipeline around it':52s} {run_us - essential:6.2f}")

    print()
    calls = 200 if options.quick else 1_000
    wall, ideal = concurrency(calls, 3)
    print(f"2. {calls:,} async tools sleeping 50 ms, ConcurrentExecutor(max_concurrency=100)")
    print(
        f"   wall {wall:.3f} s vs ideal {ideal:.3f} s   ratio {wall / ideal:.3f}   "
        f"(overhead {(wall - ideal) / calls * 1e6:.0f} µs per call)"
    )

    print()
    p = progress(steps, 3 if options.quick else 5)
    print(f"3. Progress reporting, {steps:,} reports per call (median of paired rounds)")
    print(f"   cost per report_progress, nobody listening        {p['report_silent_us']:6.2f} µs")
    print(f"   cost per report_progress, one listener (an event) {p['report_listened_us']:6.2f} µs")
    print(f"   a tool doing {steps:,} steps of ~{p['work_us']:.1f} µs work (SHA-256 of 16 KiB):")
    print(f"     no reporting                    {p['quiet_s']:7.3f} s   1.000")
    print(
        f"     reporting every step, listened  {p['listened_s']:7.3f} s   {p['ratio']:.3f}  "
        f"(+{(p['ratio'] - 1) * 100:.1f} %)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
