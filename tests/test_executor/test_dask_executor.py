"""DaskExecutor on a real LocalCluster (2 worker processes, one thread each) — issue 11."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import distributed  # the test extra installs it: a missing Dask is a failure here, not a skip
import pandas as pd
import pytest

from workbench import ExecutionLog, Permission, SequentialExecutor, tool
from workbench.dask import DaskExecutor, _payload


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        yield local


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


@pytest.fixture()
def executor(client):
    ex = DaskExecutor(client)
    yield ex
    ex.close()


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool
def divide(a: float, b: float) -> float:
    """Divide."""
    return a / b


@tool
def worker_pid() -> int:
    """The process the call runs in."""
    return os.getpid()


@tool(timeout=0.3)
def sleepy(seconds: float) -> float:
    """Sleep, then answer."""
    time.sleep(seconds)
    return seconds


@tool(permission=Permission.ALWAYS_DENY)
def forbidden() -> str:
    """Never runs."""
    return "ran"


@tool(permission=Permission.ASK_USER)
def guarded(x: int) -> int:
    """Runs when approved."""
    return x


@tool
def hang() -> str:
    """Takes a minute."""
    time.sleep(60)
    return "late"


@tool
def die_once(marker: str, x: int) -> int:
    """Kill the worker process the first time it runs (marker file absent), then answer."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return x


TOOLS = [add, divide, worker_pid, sleepy, forbidden, guarded, die_once]


def test_client_executor_leaves_the_cluster_open_and_runs_on_workers(client):
    with DaskExecutor(client) as ex:
        pids = {r.value for r in ex.run([{"name": "worker_pid", "input": {}}] * 8, TOOLS)}
    assert os.getpid() not in pids
    assert client.status == "running"


def test_map_dataframe_matches_sequential_executor(executor):
    df = pd.DataFrame({"case": list("abcdef"), "a": [1.0, 2, 3, 4, None, 6], "b": [1, 0, 2, None, 1, 3]})
    dask_log, local_log = ExecutionLog(), ExecutionLog()
    out = executor.map(divide, df, log=dask_log, progress=False)
    expected = SequentialExecutor().map(divide, df, log=local_log, progress=False)
    columns = ["case", "status", "value", "error_type"]
    pd.testing.assert_frame_equal(out[columns], expected[columns])
    assert list(out["error_type"].fillna("-")) == [
        "-",
        "ZeroDivisionError",
        "-",
        "ToolInputError",
        "ToolInputError",
        "-",
    ]
    assert len(dask_log) == 6 and {r["tool_use_id"] for r in dask_log.rows()} == set(out["tool_use_id"])


def test_run_errors_timeouts_and_permissions_like_local_executors(executor):
    uses = [
        {"toolUseId": "ok", "name": "add", "input": {"a": 1, "b": 2}},
        {"toolUseId": "bad", "name": "add", "input": {"a": "x"}},
        {"toolUseId": "missing", "name": "nope", "input": {}},
        {"toolUseId": "slow", "name": "sleepy", "input": {"seconds": 3}},
        {"toolUseId": "quick", "name": "sleepy", "input": {"seconds": 0.0}},
        {"toolUseId": "deny", "name": "forbidden", "input": {}},
        {"toolUseId": "ask", "name": "guarded", "input": {"x": 1}},
    ]
    results = executor.run(uses, TOOLS)
    assert [r.tool_use_id for r in results] == [u["toolUseId"] for u in uses]
    kinds = [r.metadata.get("error_type") or r.status for r in results]
    assert kinds == [
        "success",
        "ToolInputError",
        "ToolNotFoundError",
        "TimeoutError",
        "success",
        "PermissionDenied",
        "PermissionDenied",
    ]
    assert results[0].value == 3 and "timed out after 0.3 s" in results[3].metadata["error"]
    local = SequentialExecutor().run(uses[:3], TOOLS)
    assert [r.metadata.get("error") for r in results[:3]] == [r.metadata.get("error") for r in local]


def test_approver_is_asked_on_the_client(client):
    asked = []

    def approver(use, _tool):
        asked.append(use["input"]["x"])
        return use["input"]["x"] > 0

    with DaskExecutor(client, approver=approver) as ex:
        results = ex.run([{"name": "guarded", "input": {"x": 1}}, {"name": "guarded", "input": {"x": -1}}], TOOLS)
    assert asked == [1, -1]
    assert [r.status for r in results] == ["success", "error"] and results[0].value == 1


def test_streaming_reports_each_result_once_and_listeners_see_them(client):
    ends = []
    with DaskExecutor(client, batch_size=3) as ex:
        ex.on_event(lambda e: ends.append(e.index) if e.kind == "end" else None)

        async def collect():
            return [
                item
                async for item in ex.execute_streaming([{"name": "add", "input": {"a": i}} for i in range(10)], TOOLS)
            ]

        items = asyncio.run(collect())
    assert sorted(i for i, _ in items) == list(range(10))
    assert all(r.value == i for i, r in items)
    assert sorted(ends) == list(range(10))


def test_breaking_out_of_the_stream_cancels_the_rest_and_cancel_by_id(client):
    log = ExecutionLog()
    with DaskExecutor(client, batch_size=1) as ex:

        async def first_only():
            async for item in ex.execute_streaming(
                [{"name": "sleepy", "input": {"seconds": 0.2}}] * 12, TOOLS, log=log
            ):
                return item

        index, result = asyncio.run(first_only())
        assert result.status == "success" and ex.running() == []
        assert len(log) < 12

        async def cancel_one():
            uses = [{"toolUseId": "slow", "name": "sleepy", "input": {"seconds": 0.25}}]
            stream = ex.execute_streaming(uses, TOOLS)
            task = asyncio.ensure_future(stream.__anext__())
            await asyncio.sleep(0.05)
            assert ex.cancel("slow")
            return await task

        _, cancelled = asyncio.run(cancel_one())
        assert cancelled.metadata["error_type"] == "CancelledError"

        async def cancel_a_long_call():
            uses = [{"toolUseId": "long", "name": "hang", "input": {}}]
            stream = ex.execute_streaming(uses, [hang])
            task = asyncio.ensure_future(stream.__anext__())
            await asyncio.sleep(0.05)
            assert ex.cancel("long")
            first = await task
            rest = [item async for item in stream]  # ends: the batch was cancelled on the cluster
            return first, rest

        (_, long_result), rest = asyncio.run(asyncio.wait_for(cancel_a_long_call(), 20))
    assert long_result.metadata["error_type"] == "CancelledError" and rest == []


def test_idempotent_calls_run_once(client):
    @tool(idempotent=True)
    def stamp(x: int) -> float:
        """A value that differs per execution."""
        return time.perf_counter()

    with DaskExecutor(client) as ex:
        results = ex.run([{"name": "stamp", "input": {"x": 1}}] * 3, [stamp])
    assert len({r.value for r in results}) == 1 and results[1].metadata["idempotent_reuse"]


def test_tools_travel_by_reference_or_by_cloudpickle(executor):
    assert _payload(add, None) == ("ref", f"{__name__}:add")
    namespace = {"__name__": "__main__"}
    exec("def cube(x: int) -> int:\n    'Cube.'\n    return x ** 3\n", namespace)  # as a notebook cell would
    cube = tool(namespace["cube"])
    assert _payload(cube, None)[0] == "func"
    out = executor.map(cube, [{"x": i} for i in range(5)], progress=False)
    assert list(out["value"]) == [0, 1, 8, 27, 64]


def test_a_worker_killed_mid_batch_costs_a_retry_not_a_result(client, tmp_path):
    log = ExecutionLog(tmp_path / "killed.db")
    marker = str(tmp_path / "died")
    with DaskExecutor(client, batch_size=4, retries=1) as ex:
        out = ex.map(die_once, [{"marker": marker, "x": i} for i in range(12)], log=log, progress=False)
    assert os.path.exists(marker)
    assert list(out["status"]) == ["success"] * 12 and list(out["value"]) == list(range(12))
    rows = log.rows()
    assert sorted(r["input"]["x"] for r in rows) == list(range(12))  # one row per input, none duplicated
    assert log._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


_CLIENT_SCRIPT = textwrap.dedent("""
    import sys, time
    from workbench import ExecutionLog, tool
    from workbench.dask import DaskExecutor

    @tool
    def slow_triple(x: int) -> int:
        '''Defined in __main__: reaches the workers by cloudpickle.'''
        time.sleep(0.05)
        return 3 * x

    with DaskExecutor(sys.argv[1], batch_size=2) as ex:
        ex.map(slow_triple, [{"x": i} for i in range(400)], log=ExecutionLog(sys.argv[2]), progress=False)
    print("finished")
""")


def test_resume_after_the_client_process_is_killed(cluster, executor, tmp_path):
    db, script = tmp_path / "batch.db", tmp_path / "client.py"
    script.write_text(_CLIENT_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), cluster.scheduler_address, str(db)], stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists() and len(ExecutionLog(db)) >= 10:
                break
            time.sleep(0.05)
        assert proc.poll() is None, (
            f"the client ended by itself (exit {proc.returncode}) before it was killed; see its stderr"
        )
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    log = ExecutionLog(db)
    assert 10 <= len(log) < 400

    @tool
    def slow_triple(x: int) -> int:
        """Same tool, resumed here."""
        return 3 * x

    out = executor.map(slow_triple, [{"x": i} for i in range(400)], log=log, resume=True, progress=False)
    assert list(out["value"]) == [3 * i for i in range(400)]
    assert sorted(r["input"]["x"] for r in log.rows()) == list(range(400))
    assert log._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_no_address_starts_and_closes_a_local_cluster():
    with DaskExecutor(n_workers=1, cluster_options={"processes": False}) as ex:
        cluster = ex._cluster
        assert ex.call([add], "add", {"a": 2, "b": 3}).value == 5
    assert cluster.status.name == "closed"


def test_bad_options_are_clear():
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        DaskExecutor(batch_size=0)
    with pytest.raises(ValueError, match="retries must be"):
        DaskExecutor(retries=-1)


def test_workbench_exports_dask_executor_lazily():
    import workbench

    assert workbench.DaskExecutor is DaskExecutor
    assert callable(workbench.summarize)
