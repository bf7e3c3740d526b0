"""A real catalog: 1,000 tools (issue #22). A plain script: ``python benchmarks/bench_catalog.py [--quick]``.

1. Building a tool and its JSON Schema (``tool(fn).spec.parameters``) vs pydantic's
   ``TypeAdapter(fn).json_schema()`` on the same kind of fresh function — target ≤ 1.3×. Also shown:
   the worst case, tools whose parameters are all of kinds no tool had before (nothing is shared), and
   a catalog tool built and its first call checked (its input model is built then).
2. Exporting 1,000 tools to each provider format once their schemas exist — target ≤ 150 ms —
   and from fresh tools (building the schemas too) — target ≤ 400 ms.
3. ``registry.search`` over 1,000 tools — target ≤ 50 ms.
4. The dashboard (``workbench.ui()``'s ``Dashboard``) over 1,000 tools: opening (kernel side) — target
   ≤ 300 ms — and one search keystroke — target ≤ 50 ms.
5. ``workbench.mcp.connect()`` to ``python -m workbench.mcp serve`` over a generated 1,000-tool module
   (stdio) vs the same over a 1-tool module in the same run (the fixed cost: two interpreters start,
   import, handshake) — target: the 1,000 tools cost ≤ 1 s more than one.

Every number is a median measured in this run. ``--compare /path/to/other/checkout`` reruns the
script with that checkout first on ``sys.path`` (e.g. ``main`` before these changes) and prints both.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util  # noqa: E402
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("WB_BENCH_COMPARED") and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _load_generators() -> Any:
    """``tests/catalog_tools.py`` of this checkout, also when another checkout's workbench is measured."""
    spec = importlib.util.spec_from_file_location("_bench_catalog_tools", ROOT / "tests" / "catalog_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


import pydantic  # noqa: E402

catalog_functions, write_catalog = _load_generators().catalog_functions, _load_generators().write_catalog
from workbench import ToolRegistry, tool  # noqa: E402
from workbench.providers import PROVIDERS, to_provider_format  # noqa: E402

_offset = [0]


def fresh(count: int) -> list[Callable[..., Any]]:
    _offset[0] += count
    return catalog_functions(count, offset=_offset[0])


def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def median_of(rounds: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(rounds))


def bench_build(
    count: int, rounds: int, functions_of: Optional[Callable[[int], list]] = None, prefix: str = ""
) -> dict[str, float]:
    """µs per tool for ours and pydantic's, interleaved in batches of 50 (a shared machine's load
    drifts: both sides see the same); the ratio is the median of the per-batch ratios."""
    functions_of = functions_of or fresh
    ours, theirs, ratios = [], [], []
    for _ in range(rounds * max(1, count // 50)):
        functions = functions_of(100)
        a = timed(lambda: [tool(f).spec.parameters for f in functions[:50]]) / 50 * 1e3
        b = timed(lambda: [pydantic.TypeAdapter(f).json_schema() for f in functions[50:]]) / 50 * 1e3
        ours.append(a)
        theirs.append(b)
        ratios.append(a / b)
    return {
        f"{prefix}tool_us": statistics.median(ours),
        f"{prefix}typeadapter_us": statistics.median(theirs),
        f"{prefix}{'ratio' if prefix else 'build_ratio'}": statistics.median(ratios),
    }


def cold_functions(count: int) -> list[Callable[..., Any]]:
    """Fresh functions whose every parameter is of a kind no earlier tool had (literals of their own
    values): nothing is shared — the worst case of ``workbench._field_schemas``."""
    from typing import Literal

    out = []
    for _ in range(count):
        _offset[0] += 1
        i = _offset[0]
        namespace: dict[str, Any] = {"Literal": Literal}
        source = (
            f"def cold_{i}(mode: Literal['a{i}', 'b{i}'], level: Literal[{i}, {i + 1}] = {i}) -> str:\n"
            f'    """Cold {i}.\n\n    Args:\n        mode: how\n        level: how much\n    """\n'
            f"    return mode\n"
        )
        exec(compile(source, f"<cold tool {i}>", "exec", dont_inherit=True), namespace)  # noqa: S102
        out.append(namespace[f"cold_{i}"])
    return out


def bench_cold_and_first_call(count: int, rounds: int) -> dict[str, float]:
    """µs per tool: a build where nothing is shared, against TypeAdapter on the same kind of function;
    and a fresh catalog tool's build plus its first validated call (the input model is built then)."""
    out = bench_build(count, rounds, cold_functions, prefix="cold_")
    first_calls = []
    for _ in range(rounds * max(1, count // 50)):
        catalog = fresh(50)
        first_calls.append(timed(lambda: [tool(f).spec.check_inputs({"query": "x"}) for f in catalog]) / 50 * 1e3)
    return {**out, "first_call_us": statistics.median(first_calls)}


def bench_export(rounds: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for provider in PROVIDERS:

        def built() -> float:
            tools = [tool(f) for f in fresh(1000)]
            for item in tools:
                item.spec.parameters
            return timed(lambda: [to_provider_format(item, provider) for item in tools])

        def from_fresh() -> float:
            functions = fresh(1000)
            return timed(lambda: [to_provider_format(tool(f), provider) for f in functions])

        out[f"export_{provider}_ms"] = median_of(rounds, built)
        out[f"fresh_export_{provider}_ms"] = median_of(max(1, rounds // 2), from_fresh)
    return out


def bench_search_and_dashboard(rounds: int) -> dict[str, float]:
    out: dict[str, float] = {}
    registry = ToolRegistry([tool(f) for f in fresh(1000)])
    if hasattr(registry, "search"):
        out["search_ms"] = median_of(rounds, lambda: timed(lambda: registry.search("invoice variant", limit=50)))
    try:
        from workbench.jupyter import Dashboard
        from workbench.jupyter._workbench import Workbench
    except ImportError:  # no [lab] extra
        return out

    def opening() -> float:
        workbench = Workbench(registry=ToolRegistry([tool(f) for f in fresh(1000)]))
        elapsed = timed(lambda: out.__setitem__("_dashboard", Dashboard(workbench)))
        return elapsed

    out["dashboard_open_ms"] = median_of(rounds, opening)
    dashboard = out.pop("_dashboard")
    queries = ["i", "in", "inv", "invo", "invoice", "invoice v", "invoice 7"]
    out["dashboard_search_ms"] = statistics.median(
        timed(lambda q=q: setattr(dashboard.search, "value", q)) for q in queries
    )
    dashboard.close()
    return out


def bench_connect(rounds: int) -> dict[str, float]:
    from workbench.mcp import connect

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, count in (("connect_1_ms", 1), ("connect_1000_ms", 1000)):
            path = write_catalog(Path(tmp), count, f"bench_catalog_{count}")

            def once() -> float:
                registry = ToolRegistry()
                start = time.perf_counter()
                connection = connect(
                    [sys.executable, "-m", "workbench.mcp", "serve", str(path)], registry=registry, connect_timeout=120
                )
                elapsed = (time.perf_counter() - start) * 1e3
                assert len(registry) == count, (len(registry), count)
                connection.close()
                return elapsed

            out[label] = median_of(rounds, once)
    return out


def measure(quick: bool) -> dict[str, float]:
    rounds = 3 if quick else 5
    results: dict[str, float] = {}
    results.update(bench_build(100 if quick else 200, rounds))
    results.update(bench_cold_and_first_call(100 if quick else 200, rounds))
    results.update(bench_export(rounds))
    results.update(bench_search_and_dashboard(rounds))
    results.update(bench_connect(1 if quick else 3))
    return results


def report(now: dict[str, float], before: Optional[dict[str, float]] = None) -> None:
    def row(label: str, key: str, target: str, unit: str = "ms", extra: str = "") -> None:
        value = now.get(key)
        if value is None:
            return
        was = f"   before {before[key]:8.1f} {unit}" if before and key in before else ""
        print(f"{label:<52} {value:8.1f} {unit}   target {target:<16}{extra}{was}")

    ratio = now.get("build_ratio", now["tool_us"] / now["typeadapter_us"])
    print(
        f"{'tool(fn).spec.parameters, per tool':<52} {now['tool_us']:8.1f} µs   "
        f"= {ratio:.2f}× TypeAdapter(fn).json_schema() ({now['typeadapter_us']:.1f} µs); target ≤ 1.3×"
        + (
            f"   before {before.get('build_ratio', before['tool_us'] / before['typeadapter_us']):.2f}×"
            if before
            else ""
        )
    )
    if "cold_tool_us" in now:
        print(
            f"{'  … nothing shared (every parameter a new kind)':<52} {now['cold_tool_us']:8.1f} µs   "
            f"= {now['cold_ratio']:.2f}× TypeAdapter(fn).json_schema() ({now['cold_typeadapter_us']:.1f} µs)"
            + (f"   before {before['cold_ratio']:.2f}×" if before and "cold_ratio" in before else "")
        )
        row("  … a catalog tool built and its first call checked", "first_call_us", "(no target)", unit="µs")
    for provider in PROVIDERS:
        row(f"export 1,000 built tools → {provider}", f"export_{provider}_ms", "≤ 150 ms")
    for provider in PROVIDERS:
        row(f"export 1,000 fresh tools → {provider}", f"fresh_export_{provider}_ms", "≤ 400 ms")
    row("registry.search over 1,000 tools", "search_ms", "≤ 50 ms")
    row("dashboard over 1,000 tools: open (kernel side)", "dashboard_open_ms", "≤ 300 ms")
    row("dashboard over 1,000 tools: a search keystroke", "dashboard_search_ms", "≤ 50 ms")
    row("mcp.connect(): 1-tool server (the fixed cost)", "connect_1_ms", "baseline")
    row(
        "mcp.connect(): 1,000-tool server",
        "connect_1000_ms",
        "≤ baseline + 1 s",
        extra=f"(+{now['connect_1000_ms'] - now['connect_1_ms']:.0f} ms)" if "connect_1_ms" in now else "",
    )


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON only")
    parser.add_argument(
        "--compare", metavar="CHECKOUT", help="also measure another checkout (e.g. main) in a subprocess"
    )
    options = parser.parse_args(argv)
    before = None
    if options.compare:
        other = str(Path(options.compare).resolve())
        env = {**os.environ, "PYTHONPATH": other, "WB_BENCH_COMPARED": "1"}
        args = ["--json"] + (["--quick"] if options.quick else [])
        proc = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "bench_catalog.py"), *args],
            env=env,
            capture_output=True,
            text=True,
            cwd=other,
        )
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        before = json.loads(proc.stdout.strip().splitlines()[-1])
    now = measure(options.quick)
    if options.json:
        print(json.dumps(now))
        return 0
    import workbench

    print(f"workbench from {Path(workbench.__file__).parent}" + (f"; before = {options.compare}" if before else ""))
    report(now, before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
