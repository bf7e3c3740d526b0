"""Benchmark ``workbench.testing``: saved cases through ``run_cases`` and property examples through ``check_tool``.

Plain script (no pytest)::

    python benchmarks/bench_testing.py [N] [--table]

* cases/second: N ``exact`` cases of ``add(a, b)`` written to a case file and replayed by
  ``run_cases`` (load the file, import its tools, replay each case in its own executor, compare
  the JSON, build the DataFrame);
* property examples/second: ``check_tool(add, max_examples=N)`` (hypothesis generates each input
  from the schema, filters it through ``check_inputs``, runs it through the executor and checks the
  result), and ``fuzz_inputs(add)`` the same with invalid inputs;
* baselines, measured in the same run: a plain ``SequentialExecutor().run`` call of ``add`` per
  input (what each case or example costs at least), and a bare hypothesis ``@given`` over
  ``st.integers()`` calling the executor (what hypothesis itself costs per example).

``--table`` also prints the schema-catalogue coverage table of the strategies (tests/form_catalogue.py).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench import SequentialExecutor, ToolRegistry, tool  # noqa: E402
from workbench.testing import check_tool, fuzz_inputs, run_cases  # noqa: E402

TOOLS = '''
from workbench import tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def plain_calls(n: int) -> float:
    registry = ToolRegistry([add])
    executor = SequentialExecutor()
    started = time.perf_counter()
    for i in range(n):
        executor.run([{"toolUseId": f"t{i}", "name": "add", "input": {"a": i, "b": 2}}], registry)
    return rate(n, time.perf_counter() - started)


def bare_hypothesis(n: int) -> float:
    registry = ToolRegistry([add])
    executor = SequentialExecutor()
    count = [0]

    @settings(
        max_examples=n, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )
    @given(st.integers(), st.integers())
    def body(a: int, b: int) -> None:
        count[0] += 1
        executor.run([{"toolUseId": "t", "name": "add", "input": {"a": a, "b": b}}], registry)

    started = time.perf_counter()
    body()
    return rate(count[0], time.perf_counter() - started)


def cases_rate(n: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "bench_add_tools.py").write_text(TOOLS)
        cases = [{"id": f"c{i}", "input": {"a": i, "b": 2}, "expect": "exact", "value": i + 2} for i in range(n)]
        path = root / "add.cases.json"
        path.write_text(json.dumps({"tool": "add", "tools": ["bench_add_tools.py"], "cases": cases}, indent=2))
        started = time.perf_counter()
        frame = run_cases(path)
        elapsed = time.perf_counter() - started
        assert (frame["status"] == "pass").all(), frame[frame["status"] != "pass"].head()
    return rate(n, elapsed)


def property_rate(fn, n: int) -> tuple[float, int]:
    started = time.perf_counter()
    report = fn(add, max_examples=n)
    elapsed = time.perf_counter() - started
    assert report.ok, report.text()
    return rate(report.examples, elapsed), report.examples


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 2000
    check_tool(add, max_examples=5)  # warm up: hypothesis, hypothesis-jsonschema and jsonschema imports
    fuzz_inputs(add, max_examples=5)
    run_cases([])
    baseline = plain_calls(n)
    hypo = bare_hypothesis(min(n, 1000))
    cases = cases_rate(n)
    check, check_n = property_rate(check_tool, min(n, 1000))
    fuzz, fuzz_n = property_rate(fuzz_inputs, min(n, 1000))
    print(f"plain SequentialExecutor().run calls of add: {baseline:10,.0f} /s  (baseline)")
    print(f"bare hypothesis @given + executor call:      {hypo:10,.0f} /s  ratio {hypo / baseline:.3f}")
    print(f"run_cases, {n} exact cases of add:          {cases:10,.0f} cases/s  ratio {cases / baseline:.3f}")
    print(
        f"check_tool(add), {check_n} examples:          {check:10,.0f} examples/s  ratio {check / baseline:.3f}"
        f" (vs bare hypothesis {check / hypo:.2f})"
    )
    print(
        f"fuzz_inputs(add), {fuzz_n} examples:         {fuzz:10,.0f} examples/s  ratio {fuzz / baseline:.3f}"
        f" (vs bare hypothesis {fuzz / hypo:.2f})"
    )
    if "--table" in sys.argv:
        from tests.test_testing.test_properties import main as table

        print()
        table()


if __name__ == "__main__":
    main()
