"""Build, export and start-up benchmarks (issue #13). A plain script: ``python benchmarks/bench_build.py [--quick]``.

1. Building a tool from a fresh function: ``tool(fn)`` vs ``pydantic.validate_call(fn)`` and, when
   installed, openai-agents' ``function_tool(fn)`` (``pip install -e ".[bench]"``).
2. 1,000 tools: building and registering them, then exporting them all to the OpenAI format.
3. ``import workbench`` vs ``from pydantic import BaseModel`` (and ``import pydantic``), each in fresh
   interpreters, minus a bare interpreter start; and a first use, ``from workbench import tool`` (which
   defines the package's models) vs importing pydantic and defining one model.
4. ``%load_ext workbench`` in a fresh IPython vs a bare IPython start.

Every number is a median measured in this run; the targets are ratios or differences against
baselines from the same run, so they hold across machines better than absolute times.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Optional

import pydantic

from workbench import ToolRegistry, tool
from workbench.providers import to_provider_format

ONE_MODEL = "from pydantic import BaseModel\nclass Point(BaseModel):\n    x: int\n"


def fresh_functions(count: int, offset: int = 0) -> list[Callable[..., Any]]:
    """``count`` distinct functions ``add_i(a: int, b: int) -> int`` with a docstring (no caching applies)."""
    functions = []
    for i in range(offset, offset + count):
        namespace: dict[str, Any] = {}
        exec(
            f"def add_{i}(a: int, b: int) -> int:\n    '''Add two integers ({i}).\n\n    Args:\n"
            f"        a: the first\n        b: the second\n    '''\n    return a + b\n",
            namespace,
        )
        functions.append(namespace[f"add_{i}"])
    return functions


def bench_build(factory: Callable[[Callable[..., Any]], Any], count: int, rounds: int) -> float:
    """Median µs to apply ``factory`` to a fresh function."""
    timings = []
    for r in range(rounds):
        functions = fresh_functions(count, offset=r * count + id(factory) % 100_000 * 1000)
        gc.collect()
        start = time.perf_counter()
        for function in functions:
            factory(function)
        timings.append((time.perf_counter() - start) / count * 1e6)
    return statistics.median(timings)


def thousand_tools(rounds: int) -> tuple[float, float]:
    """(ms to build and register 1,000 tools, ms to export them all to the OpenAI format)."""
    builds, exports = [], []
    for r in range(rounds):
        functions = fresh_functions(1000, offset=10_000_000 + r * 1000)
        gc.collect()
        start = time.perf_counter()
        registry = ToolRegistry()
        for function in functions:
            registry.register_tool(tool(function))
        built = time.perf_counter()
        gc.collect()  # the build's garbage is neither half's cost
        export_start = time.perf_counter()
        exported = [to_provider_format(item.spec, "openai") for item in registry]
        end = time.perf_counter()
        assert len(exported) == 1000 and exported[0]["function"]["parameters"]["required"] == ["a", "b"]
        builds.append((built - start) * 1e3)
        exports.append((end - export_start) * 1e3)
    return statistics.median(builds), statistics.median(exports)


def start_ms(code: list[str], runs: int) -> float:
    """Median wall ms of a fresh process running ``code`` (argv)."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(code, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        timings.append((time.perf_counter() - start) * 1e3)
    return statistics.median(timings)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    options = parser.parse_args(argv)
    count, rounds, runs = (100, 3, 7) if options.quick else (300, 5, 15)
    print(f"workbench build/start-up benchmarks — Python {sys.version.split()[0]}, pydantic {pydantic.VERSION}")

    print(f"\n1. Build a tool from a fresh function ({count} functions per round, median of {rounds} rounds)")
    build_us = bench_build(tool, count, rounds)
    validate_us = bench_build(pydantic.validate_call, count, rounds)
    rows = [("tool(fn)", build_us), ("pydantic.validate_call(fn)", validate_us)]
    try:
        from agents import function_tool
    except ImportError:
        agents_us = float("nan")
    else:
        agents_us = bench_build(function_tool, count, rounds)
    rows.append(("openai-agents function_tool(fn)", agents_us))
    for name, value in rows:
        print(f"   {name:36s} {'n/a' if value != value else f'{value:8.1f} µs':>12s}")
    ratio = build_us / validate_us
    print(
        f"   tool(fn) / validate_call(fn)         {ratio:6.2f}x   target ≤ 1.6x   {'met' if ratio <= 1.6 else 'MISSED'}"
    )
    if agents_us == agents_us:
        print(f"   tool(fn) / openai-agents             {build_us / agents_us:6.2f}x   (below 1 is faster)")

    print("\n2. 1,000 tools (median of 3)")
    build_ms, export_ms = thousand_tools(3)
    print(f"   build + register 1,000 tools        {build_ms:8.1f} ms")
    print(f"   export all 1,000 to the OpenAI format {export_ms:6.1f} ms")

    print(f"\n3. Import time in a fresh interpreter (median of {runs} runs, bare start subtracted)")
    python = [sys.executable, "-c"]
    bare = start_ms(python + ["pass"], runs)
    pydantic_ms = start_ms(python + ["import pydantic"], runs) - bare
    base_model_ms = start_ms(python + ["from pydantic import BaseModel"], runs) - bare
    one_model_ms = start_ms(python + [ONE_MODEL], runs) - bare
    asyncio_ms = start_ms(python + ["import asyncio"], runs) - bare
    workbench_ms = start_ms(python + ["import workbench"], runs) - bare
    tool_ms = start_ms(python + ["from workbench import tool"], runs) - bare
    first_use_ms = start_ms(python + ["from workbench import tool, SequentialExecutor"], runs) - bare
    print(f"   import pydantic                      {pydantic_ms:7.1f} ms")
    print(f"   from pydantic import BaseModel       {base_model_ms:7.1f} ms")
    print(
        f"   … and define one model               {one_model_ms:7.1f} ms   (pydantic's first model loads its plugins, schema machinery)"
    )
    print(f"   import asyncio                       {asyncio_ms:7.1f} ms")
    print(f"   import workbench                     {workbench_ms:7.1f} ms")
    print(f"   from workbench import tool           {tool_ms:7.1f} ms")
    print(f"   from workbench import tool, SequentialExecutor {first_use_ms:7.1f} ms   (the executors need asyncio)")
    over = workbench_ms - base_model_ms
    print(
        f"   import workbench − BaseModel import  {over:+7.1f} ms   target ≤ +15 ms   {'met' if over <= 15 else 'MISSED'}"
    )
    over_tool = tool_ms - one_model_ms
    print(
        f"   from workbench import tool − (BaseModel + one model) {over_tool:+7.1f} ms   target ≤ +15 ms   "
        f"{'met' if over_tool <= 15 else 'MISSED'}"
    )

    print(f"\n4. %load_ext workbench in a fresh IPython (median of {max(5, runs // 2)} runs)")
    ipython = [sys.executable, "-m", "IPython", "--no-banner", "--quick", "-c"]
    try:
        bare_ipython = start_ms(ipython + ["pass"], max(5, runs // 2))
        loaded = start_ms(ipython + ["%load_ext workbench"], max(5, runs // 2))
    except (subprocess.CalledProcessError, FileNotFoundError):
        print('   IPython not installed (pip install -e ".[lab]")')
    else:
        extra = loaded - bare_ipython
        print(f"   bare IPython start                   {bare_ipython:7.1f} ms")
        print(f"   IPython + %load_ext workbench        {loaded:7.1f} ms")
        print(
            f"   %load_ext workbench                  {extra:+7.1f} ms   target ≤ +300 ms   "
            f"{'met' if extra <= 300 else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
