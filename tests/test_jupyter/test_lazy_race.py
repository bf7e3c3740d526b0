"""The lazy set-up of a tool's validator and spec is thread-safe (issue 18, item 2).

A ``FunctionInputValidator`` builds its fast check on the first call; concurrent first calls used to
see the set-up half done and recurse (``RecursionError``, through an executor a valid call answered
``status=error``). These stress tests start many threads at once (behind a ``threading.Barrier``)
on many fresh tools, whose first calls all race; any failure shows.
"""

from __future__ import annotations

import sys
import threading

import pytest

from workbench import ConcurrentExecutor, tool

THREADS = 8
TOOLS = 300


def _fresh_tools(count: int, kind: str) -> list:
    """``count`` new deferred tools: scalar parameters (the flat fast check) or a list parameter."""
    made = []
    for i in range(count):
        if kind == "scalar":

            def f(a: int, b: str = "x") -> str:
                """Join."""
                return f"{a}{b}"
        else:

            def f(a: list[int], b: str = "x") -> str:  # type: ignore[misc]
                """Join."""
                return f"{sum(a)}{b}"

        f.__name__ = f.__qualname__ = f"{kind}_{i}"
        made.append(tool(f))
    return made


def _race(workers: int, action) -> list[BaseException]:
    """Run ``action()`` in ``workers`` threads released together; the exceptions they raised."""
    barrier = threading.Barrier(workers)
    failures: list[BaseException] = []

    def run() -> None:
        barrier.wait()
        try:
            action()
        except BaseException as exc:  # noqa: BLE001 - RecursionError included: it is the defect
            failures.append(exc)

    threads = [threading.Thread(target=run) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


@pytest.fixture(autouse=True)
def _switch_often():
    """Let threads interleave finely, as on a loaded machine (the race needs a switch mid set-up)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


@pytest.mark.parametrize("kind", ["scalar", "list"])
def test_concurrent_first_check_inputs(kind):
    failures = []
    for item in _fresh_tools(TOOLS, kind):
        spec = item.spec
        value = {"a": 1} if kind == "scalar" else {"a": [1, 2]}
        expected = {"a": 1, "b": "x"} if kind == "scalar" else {"a": [1, 2], "b": "x"}

        def check(spec=spec, value=value, expected=expected) -> None:
            assert spec.check_inputs(value) == expected

        failures += _race(THREADS, check)
    assert not failures, f"{len(failures)} failures, e.g. {failures[0]!r}"


@pytest.mark.parametrize("kind", ["scalar", "list"])
def test_concurrent_first_spec_reads_build_one_spec(kind):
    failures = []
    for item in _fresh_tools(TOOLS, kind):
        seen = []
        failures += _race(THREADS, lambda item=item, seen=seen: seen.append(item.spec))
        assert len(seen) == THREADS and all(s is seen[0] for s in seen)
        assert seen[0].name == item.tool_name
    assert not failures, f"{len(failures)} failures, e.g. {failures[0]!r}"


@pytest.mark.parametrize("kind", ["scalar", "list"])
def test_concurrent_first_calls_through_an_executor(kind):
    executor = ConcurrentExecutor(max_concurrency=THREADS)
    bad = []
    for item in _fresh_tools(TOOLS // 3, kind):
        value = {"a": 1} if kind == "scalar" else {"a": [1, 2]}
        uses = [{"toolUseId": f"c{i}", "name": item.tool_name, "input": value} for i in range(THREADS)]
        results = executor.run(uses, [item])
        bad += [r for r in results if r.status != "success"]
        assert [r.value for r in results if r.status == "success"] == ["1x" if kind == "scalar" else "3x"] * (
            THREADS - len(bad)
        )
    assert not bad, f"{len(bad)} failed calls, e.g. {bad[0].metadata.get('error_type')}: {bad[0].error}"


def test_concurrent_first_calls_of_separate_executors_in_threads():
    """Each thread its own executor (as a web server's request threads would), all on one fresh tool."""
    from workbench import SequentialExecutor

    failures = []
    for item in _fresh_tools(TOOLS // 3, "scalar"):

        def call(item=item) -> None:
            [result] = SequentialExecutor().run([{"toolUseId": "x", "name": item.tool_name, "input": {"a": 2}}], [item])
            assert result.status == "success" and result.value == "2x", (
                result.metadata.get("error_type"),
                result.error,
            )

        failures += _race(THREADS, call)
    assert not failures, f"{len(failures)} failures, e.g. {failures[0]!r}"
