"""Tests for ``workbench.log.ExecutionLog``."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import types
import uuid
from pathlib import Path

import pytest

from workbench.log import DATAFRAME_COLUMNS, LOG_COLUMNS, ExecutionLog
from workbench.types import ToolResult

REPO = Path(__file__).resolve().parents[2]


def make_result(
    tool_use_id: str = "t1",
    *,
    status: str = "success",
    tool_name: str | None = "add",
    content: list | None = None,
    latency_ms: float | None = 1.2,
    error: str | None = None,
    started_at: str | None = "2026-01-01T00:00:00.000Z",
    completed_at: str | None = "2026-01-01T00:00:00.001Z",
    **extra_metadata,
) -> ToolResult:
    metadata = dict(extra_metadata)
    if tool_name is not None:
        metadata["tool_name"] = tool_name
    if latency_ms is not None:
        metadata["latency_ms"] = latency_ms
    if error is not None:
        metadata["error"] = error
        metadata["error_type"] = "ValueError"
    return ToolResult(
        toolUseId=tool_use_id,
        status=status,
        content=[{"text": "3"}, {"json": 3}] if content is None else content,
        metadata=metadata,
        started_at=started_at,
        completed_at=completed_at,
    )


def sample_log(log: ExecutionLog) -> list[int]:
    """add ×3 (one error), mul ×2; returns the row ids."""
    ids = [
        log.append(make_result("a1"), {"toolUseId": "a1", "name": "add", "input": {"a": 1, "b": 2}}),
        log.append(make_result("m1", tool_name="mul"), {"toolUseId": "m1", "name": "mul", "input": {"a": 2, "b": 3}}),
        log.append(
            make_result("a2", status="error", content=[{"text": "boom"}], error="boom"),
            {"toolUseId": "a2", "name": "add", "input": {"a": "x"}},
        ),
        log.append(make_result("a3", content=[{"text": "7"}, {"json": 7}]), input={"a": 3, "b": 4}),
        log.append(make_result("m2", tool_name="mul", latency_ms=2.5), input={"a": 1, "b": 1}),
    ]
    return ids


# -- basics ----------------------------------------------------------------------------------------


def test_in_memory_append_and_get():
    log = ExecutionLog()
    assert log.path is None
    assert len(log) == 0
    assert log  # an empty log is still truthy
    row_id = log.append(make_result(), {"toolUseId": "t1", "name": "add", "input": {"a": 1, "b": 2}})
    assert row_id == 1
    assert len(log) == 1
    row = log.get(row_id)
    assert row == {
        "id": 1,
        "tool_name": "add",
        "tool_use_id": "t1",
        "input": {"a": 1, "b": 2},
        "output": [{"text": "3"}, {"json": 3}],
        "status": "success",
        "error": None,
        "error_type": None,
        "started_at": "2026-01-01T00:00:00.000Z",
        "completed_at": "2026-01-01T00:00:00.001Z",
        "latency_ms": 1.2,
        "metadata": {"tool_name": "add", "latency_ms": 1.2},
        "run_id": None,  # not made by an agent run
        "turn": None,
    }
    log.close()


def test_file_log_persists_and_uses_wal(tmp_path):
    path = tmp_path / "runs.sqlite"
    with ExecutionLog(path) as log:
        assert log.path == path
        assert log._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert log._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        sample_log(log)
        # a second, independent connection sees WAL mode and the committed rows
        other = sqlite3.connect(path)
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert other.execute("SELECT count(*) FROM calls").fetchone()[0] == 5
        other.close()
    assert log.closed
    with pytest.raises(sqlite3.ProgrammingError):
        log.append(make_result())
    with ExecutionLog(str(path)) as reopened:
        assert len(reopened) == 5
        assert [r["tool_use_id"] for r in reopened.rows()] == ["a1", "m1", "a2", "a3", "m2"]
        assert reopened.append(make_result("new")) == 6


def test_table_schema_and_indexes(tmp_path):
    with ExecutionLog(tmp_path / "s.sqlite") as log:
        info = log._conn.execute("PRAGMA table_info(calls)").fetchall()
        assert tuple(col[1] for col in info) == LOG_COLUMNS
        assert {col[1]: col[2] for col in info}["latency_ms"] == "REAL"
        assert [col[1] for col in info if col[5]] == ["id"]  # INTEGER PRIMARY KEY
        indexed = set()
        for _, name, *_rest in log._conn.execute("PRAGMA index_list(calls)").fetchall():
            indexed |= {c[2] for c in log._conn.execute(f"PRAGMA index_info({name})").fetchall()}
        assert {"tool_name", "status"} <= indexed


def test_tool_name_and_input_sources():
    log = ExecutionLog()
    # metadata tool_name wins over tool_use name; input= overrides tool_use["input"]
    rid = log.append(
        make_result(tool_name="meta_name"), {"toolUseId": "t1", "name": "use_name", "input": {"a": 1}}, input={"b": 2}
    )
    row = log.get(rid)
    assert row["tool_name"] == "meta_name"
    assert row["input"] == {"b": 2}
    # no metadata name → tool_use name
    rid = log.append(make_result(tool_name=None), {"toolUseId": "t1", "name": "use_name", "input": {"a": 1}})
    assert log.get(rid)["tool_name"] == "use_name"
    assert log.get(rid)["input"] == {"a": 1}
    # nothing known: stored as NULL, not invented
    rid = log.append(make_result(tool_name=None))
    assert log.get(rid)["tool_name"] is None
    assert log.get(rid)["input"] is None


def test_error_result_columns():
    log = ExecutionLog()
    rid = log.append(make_result("e1", status="error", content=[{"text": "bad input"}], error="bad input"))
    row = log.get(rid)
    assert row["status"] == "error"
    assert row["error"] == "bad input"
    assert row["error_type"] == "ValueError"
    # an error result without a message in metadata falls back to its text
    rid = log.append(
        ToolResult(toolUseId="e2", status="error", content=[{"text": "it broke"}], metadata={"tool_name": "x"})
    )
    assert log.get(rid)["error"] == "it broke"
    # success rows never carry an error, even if metadata mentions one
    rid = log.append(make_result("s1", note="fine", error_type="ignored"))
    assert log.get(rid)["error"] is None and log.get(rid)["error_type"] is None


def test_missing_timestamps_and_latency_are_filled():
    log = ExecutionLog()
    rid = log.append(
        make_result(latency_ms=None, started_at="2026-01-01T00:00:00.000Z", completed_at="2026-01-01T00:00:00.250Z")
    )
    assert log.get(rid)["latency_ms"] == pytest.approx(250.0)
    before = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)
    rid = log.append(make_result(latency_ms=None, started_at=None, completed_at=None))
    row = log.get(rid)
    assert row["latency_ms"] is None
    completed = dt.datetime.fromisoformat(row["completed_at"].replace("Z", "+00:00"))
    assert completed >= before
    rid = log.append(make_result(latency_ms=3))  # an int latency is stored as REAL
    assert log.get(rid)["latency_ms"] == 3.0 and isinstance(log.get(rid)["latency_ms"], float)


def test_in_progress_results_are_rejected():
    log = ExecutionLog()
    progress = ToolResult(toolUseId="p1", status="in_progress", progress=0.5, metadata={"tool_name": "slow"})
    with pytest.raises(ValueError, match="in_progress"):
        log.append(progress)
    with pytest.raises(ValueError, match="in_progress"):
        log.append_many([make_result("ok"), progress])
    assert len(log) == 0  # the whole batch was rejected


def test_wire_dict_results_are_accepted():
    log = ExecutionLog()
    rid = log.append(make_result("w1").to_dict())
    assert log.get(rid)["tool_use_id"] == "w1"
    with pytest.raises(TypeError):
        log.append("not a result")  # type: ignore[arg-type]


def test_get_missing_row_raises_clear_keyerror():
    log = ExecutionLog()
    with pytest.raises(KeyError, match="No call with id 1 .*empty"):
        log.get(1)
    sample_log(log)
    with pytest.raises(KeyError, match=r"No call with id 99 .*ids 1\.\.5"):
        log.get(99)


def test_append_many_returns_ids_in_order():
    log = ExecutionLog()
    log.append(make_result("first"))
    ids = log.append_many(
        [
            make_result("b1"),
            (make_result("b2"), {"toolUseId": "b2", "name": "add", "input": {"a": 1}}),
            (make_result("b3"), None, {"a": 2}),
        ]
    )
    assert ids == [2, 3, 4]
    assert [log.get(i)["tool_use_id"] for i in ids] == ["b1", "b2", "b3"]
    assert log.get(3)["input"] == {"a": 1}
    assert log.get(4)["input"] == {"a": 2}
    assert log.append_many([]) == []
    assert len(log) == 4


# -- filters -------------------------------------------------------------------------------------


def test_filters():
    log = ExecutionLog()
    sample_log(log)
    assert [r["tool_use_id"] for r in log.rows()] == ["a1", "m1", "a2", "a3", "m2"]
    assert [r["tool_use_id"] for r in log.rows(tool="add")] == ["a1", "a2", "a3"]
    assert [r["tool_use_id"] for r in log.rows(status="error")] == ["a2"]
    assert [r["tool_use_id"] for r in log.rows(status="success", tool="add")] == ["a1", "a3"]
    assert [r["tool_use_id"] for r in log.rows(last=2)] == ["a3", "m2"]  # newest last
    assert [r["tool_use_id"] for r in log.rows(tool="mul", last=1)] == ["m2"]
    assert [r["tool_use_id"] for r in log.rows(last=100)] == ["a1", "m1", "a2", "a3", "m2"]
    assert log.rows(last=0) == []
    assert log.rows(tool="nope") == []
    assert [r["id"] for r in log] == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="status"):
        log.rows(status="sucess")
    with pytest.raises(ValueError, match="last"):
        log.rows(last=-1)


def test_clear():
    log = ExecutionLog()
    sample_log(log)
    log.clear()
    assert len(log) == 0
    assert log.rows() == []
    assert log.append(make_result()) == 1


# -- dataframe -------------------------------------------------------------------------------------


def test_to_dataframe_columns_and_dtypes():
    import pandas as pd

    log = ExecutionLog()
    sample_log(log)
    df = log.to_dataframe()
    assert list(df.columns) == list(DATAFRAME_COLUMNS)
    assert len(df) == 5
    assert df["id"].dtype == "int64"
    assert df["latency_ms"].dtype == "float64"
    for column in ("started_at", "completed_at"):
        assert isinstance(df[column].dtype, pd.DatetimeTZDtype)
        assert str(df[column].dt.tz) == "UTC"
    assert df["started_at"].iloc[0] == pd.Timestamp("2026-01-01T00:00:00", tz="UTC")
    assert df["completed_at"].iloc[0] == pd.Timestamp("2026-01-01T00:00:00.001", tz="UTC")
    assert df["input"].iloc[0] == {"a": 1, "b": 2}  # parsed, not JSON text
    assert df["output"].iloc[0] == [{"text": "3"}, {"json": 3}]
    assert df["status"].tolist() == ["success", "success", "error", "success", "success"]
    assert df["error"].iloc[2] == "boom"
    assert df["latency_ms"].tolist() == [1.2, 1.2, 1.2, 1.2, 2.5]

    tail = log.to_dataframe(last=2)
    assert tail["tool_use_id"].tolist() == ["a3", "m2"]
    assert log.to_dataframe(tool="mul")["tool_use_id"].tolist() == ["m1", "m2"]
    assert log.to_dataframe(status="error")["id"].tolist() == [3]


def test_to_dataframe_empty_keeps_columns_and_dtypes():
    import pandas as pd

    df = ExecutionLog().to_dataframe()
    assert list(df.columns) == list(DATAFRAME_COLUMNS)
    assert len(df) == 0
    assert df["id"].dtype == "int64"
    assert df["latency_ms"].dtype == "float64"
    assert isinstance(df["started_at"].dtype, pd.DatetimeTZDtype)


def test_import_does_not_import_pandas():
    code = (
        "import sys, workbench.log; assert 'pandas' not in sys.modules, 'pandas imported'; "
        "assert 'pyarrow' not in sys.modules, 'pyarrow imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr


# -- export ------------------------------------------------------------------------------------------


def _expected_raw(log: ExecutionLog) -> list[dict]:
    return [dict(zip(LOG_COLUMNS, raw)) for raw in log._conn.execute("SELECT * FROM calls ORDER BY id")]


def test_export_csv_roundtrip(tmp_path):
    import pandas as pd

    log = ExecutionLog()
    sample_log(log)
    target = tmp_path / "log.csv"
    assert log.export(target) == 5
    back = pd.read_csv(target, keep_default_na=False)
    assert list(back.columns) == list(LOG_COLUMNS)
    expected = _expected_raw(log)
    assert back["id"].tolist() == [r["id"] for r in expected]
    assert back["tool_name"].tolist() == [r["tool_name"] for r in expected]
    assert back["status"].tolist() == [r["status"] for r in expected]
    assert back["started_at"].tolist() == [r["started_at"] for r in expected]
    assert back["latency_ms"].tolist() == [r["latency_ms"] for r in expected]
    assert back["error"].tolist() == [r["error"] or "" for r in expected]
    assert [json.loads(v) for v in back["input_json"]] == [r["input"] for r in log.rows()]
    assert [json.loads(v) for v in back["output_json"]] == [r["output"] for r in log.rows()]
    # filtered export
    assert log.export(tmp_path / "errors.csv", status="error") == 1
    assert pd.read_csv(tmp_path / "errors.csv")["tool_use_id"].tolist() == ["a2"]


def test_export_jsonl_roundtrip(tmp_path):
    import pandas as pd

    log = ExecutionLog()
    sample_log(log)
    target = tmp_path / "log.jsonl"
    assert log.export(str(target)) == 5
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == log.rows()
    back = pd.read_json(target, lines=True, dtype=False)
    assert back["id"].tolist() == [1, 2, 3, 4, 5]
    assert back["input"].tolist() == log.to_dataframe()["input"].tolist()
    assert back["output"].tolist() == log.to_dataframe()["output"].tolist()
    assert back["tool_name"].tolist() == ["add", "mul", "add", "add", "mul"]


def test_export_parquet_roundtrip(tmp_path):
    import pandas as pd

    log = ExecutionLog()
    sample_log(log)
    target = tmp_path / "log.parquet"
    assert log.export(target) == 5
    back = pd.read_parquet(target)
    assert list(back.columns) == list(LOG_COLUMNS)
    frame = log.to_dataframe()
    assert back["id"].tolist() == frame["id"].tolist()
    assert back["tool_name"].tolist() == frame["tool_name"].tolist()
    assert back["latency_ms"].tolist() == frame["latency_ms"].tolist()
    assert isinstance(back["started_at"].dtype, pd.DatetimeTZDtype)
    assert back["started_at"].tolist() == frame["started_at"].tolist()
    assert back["completed_at"].tolist() == frame["completed_at"].tolist()
    assert [json.loads(v) for v in back["input_json"]] == frame["input"].tolist()
    assert [json.loads(v) for v in back["output_json"]] == frame["output"].tolist()
    assert back["error"].tolist()[2] == "boom"
    assert back["error"].isna().sum() == 4


def test_export_empty_log(tmp_path):
    import pandas as pd

    log = ExecutionLog()
    for name in ("e.csv", "e.jsonl", "e.parquet"):
        assert log.export(tmp_path / name) == 0
    assert list(pd.read_csv(tmp_path / "e.csv").columns) == list(LOG_COLUMNS)
    assert (tmp_path / "e.jsonl").read_text() == ""
    assert list(pd.read_parquet(tmp_path / "e.parquet").columns) == list(LOG_COLUMNS)


@pytest.mark.parametrize("name", ["log.xlsx", "log.json", "log"])
def test_export_unknown_extension(tmp_path, name):
    log = ExecutionLog()
    sample_log(log)
    with pytest.raises(ValueError) as info:
        log.export(tmp_path / name)
    message = str(info.value)
    for ext in (".csv", ".jsonl", ".parquet"):
        assert ext in message
    assert not (tmp_path / name).exists()


# -- awkward values ---------------------------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque thing>"


def test_non_json_values_never_break_append(tmp_path):
    log = ExecutionLog(tmp_path / "odd.sqlite")
    cyclic: list = []
    cyclic.append(cyclic)
    weird_input = {
        "blob": b"\x00\xffbytes",
        "when": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
        "day": dt.date(2026, 1, 2),
        "obj": Opaque(),
        "point": Point(1, 2),
        "items": {1, 2},
        "cycle": cyclic,
    }
    result = ToolResult(
        toolUseId="w1",
        status="success",
        content=[{"text": "ok"}, {"json": {"raw": b"\x01", "obj": Opaque()}}],
        metadata={"tool_name": "weird", "latency_ms": 0.5, "exc": RuntimeError("x"), "func": len},
    )
    rid = log.append(result, {"toolUseId": "w1", "name": "weird", "input": weird_input})
    row = log.get(rid)
    assert row["tool_name"] == "weird"
    assert set(row["input"]) == set(weird_input)
    assert row["input"]["when"].startswith("2026-01-02T03:04:05")
    assert row["input"]["point"] == {"x": 1, "y": 2}
    assert "Opaque" in json.dumps(row["input"]["obj"])
    assert row["output"][0] == {"text": "ok"}
    # and it is all valid JSON in the database
    raw = log._conn.execute("SELECT input_json, output_json, metadata_json FROM calls WHERE id=?", (rid,)).fetchone()
    for text in raw:
        json.loads(text)
    # the awkward row still goes through the DataFrame and every export
    assert log.to_dataframe()["input"].iloc[0]["point"] == {"x": 1, "y": 2}
    for name in ("w.csv", "w.jsonl", "w.parquet"):
        assert log.export(tmp_path / name) == 1
    log.close()


# -- concurrency -----------------------------------------------------------------------------------


def test_concurrent_appends_from_threads(tmp_path):
    log = ExecutionLog(tmp_path / "threads.sqlite")
    threads_n, per_thread = 8, 250
    barrier = threading.Barrier(threads_n)
    returned: list[list[int]] = [[] for _ in range(threads_n)]
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            barrier.wait()
            for i in range(per_thread):
                use_id = f"t{index}-{i}"
                if i % 50 == 0:
                    returned[index].extend(log.append_many([make_result(use_id + "-batch")]))
                    log.rows(last=5)  # readers interleave with writers
                else:
                    returned[index].append(log.append(make_result(use_id), input={"i": i}))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    all_ids = [i for ids in returned for i in ids]
    assert len(all_ids) == threads_n * per_thread
    assert len(set(all_ids)) == len(all_ids)  # every append got its own row
    assert len(log) == threads_n * per_thread
    stored = {r["tool_use_id"] for r in log.rows()}
    assert len(stored) == threads_n * per_thread
    # each thread's rows are in the order it appended them
    for ids in returned:
        assert ids == sorted(ids)
    log.close()


# -- listeners -------------------------------------------------------------------------------------


def test_listeners_receive_rows_and_failures_do_not_break_appends(caplog):
    log = ExecutionLog()
    seen: list[dict] = []

    def broken(row):
        raise RuntimeError("listener bug")

    unsubscribe = log.subscribe(seen.append)
    log.subscribe(broken)
    rid = log.append(make_result("l1"), {"toolUseId": "l1", "name": "add", "input": {"a": 1}})
    assert rid == 1
    assert seen == [log.get(1)]
    assert "listener" in caplog.text
    ids = log.append_many([make_result("l2"), make_result("l3")])
    assert [r["id"] for r in seen] == [1, *ids]
    unsubscribe()
    log.append(make_result("l4"))
    assert len(seen) == 3
    log.unsubscribe(broken)
    log.unsubscribe(broken)  # unknown listener: no error
    assert len(log) == 4


def test_listener_may_read_the_log():
    log = ExecutionLog()
    counts: list[int] = []
    log.subscribe(lambda row: counts.append(len(log)))  # would deadlock if called under the lock
    log.append(make_result())
    log.append(make_result())
    assert counts == [1, 2]


def test_listener_gets_a_copy():
    log = ExecutionLog()
    log.subscribe(lambda row: row.clear())
    seen = []
    log.subscribe(seen.append)
    log.append(make_result())
    assert seen[0]["id"] == 1


# -- replay ----------------------------------------------------------------------------------------


class FakeExecutor:
    """The ``run(tool_uses, registry, *, log=None)`` shape of workbench.executor executors."""

    def __init__(self) -> None:
        self.calls: list[tuple[list, object]] = []

    def run(self, tool_uses, registry, *, log=None):
        self.calls.append((tool_uses, registry))
        results = []
        for use in tool_uses:
            value = registry[use["name"]](**use["input"])
            result = ToolResult(
                toolUseId=use["toolUseId"],
                status="success",
                content=[{"text": str(value)}, {"json": value}],
                metadata={"tool_name": use["name"], "latency_ms": 0.1},
                started_at="2026-01-01T00:00:01.000Z",
                completed_at="2026-01-01T00:00:01.001Z",
            )
            if log is not None:
                log.append(result, use)
            results.append(result)
        return results


def test_replay_with_explicit_executor():
    log = ExecutionLog()
    sample_log(log)
    registry = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b}
    executor = FakeExecutor()
    result = log.replay(2, registry, executor)
    assert result.json == 6
    ((tool_uses, used_registry),) = executor.calls
    assert used_registry is registry
    assert tool_uses[0]["name"] == "mul" and tool_uses[0]["input"] == {"a": 2, "b": 3}
    assert tool_uses[0]["toolUseId"] != "m1"  # a fresh id
    assert len(log) == 6  # the replay was logged
    assert log.get(6)["tool_name"] == "mul" and log.get(6)["output"] == [{"text": "6"}, {"json": 6}]
    with pytest.raises(KeyError):
        log.replay(99, registry, executor)


def test_replay_of_row_without_tool_name():
    log = ExecutionLog()
    rid = log.append(make_result(tool_name=None))
    with pytest.raises(ValueError, match="replay"):
        log.replay(rid, {}, FakeExecutor())


def test_replay_defaults_to_workbench_executor_sequential(monkeypatch):
    """executor=None → ``workbench.executor.SequentialExecutor()``, run with ``log=self``."""
    created: list[FakeExecutor] = []

    class RecordingSequentialExecutor(FakeExecutor):
        def __init__(self) -> None:
            super().__init__()
            created.append(self)

    fake_module = types.ModuleType("workbench.executor")
    fake_module.SequentialExecutor = RecordingSequentialExecutor  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "workbench.executor", fake_module)
    log = ExecutionLog()
    sample_log(log)
    result = log.replay(4, {"add": lambda a, b: a + b})  # add(3, 4)
    assert result.json == 7
    assert len(created) == 1  # one new SequentialExecutor for the replay
    assert len(log) == 6 and log.get(6)["input"] == {"a": 3, "b": 4}


def test_replay_through_the_real_executor():
    from workbench.registry import ToolRegistry
    from workbench.tools import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    registry = ToolRegistry([add])
    log = ExecutionLog()
    sample_log(log)
    result = log.replay(4, registry)  # add(3, 4), executor=None → SequentialExecutor()
    assert result.status == "success", result
    assert result.json == 7
    assert len(log) == 6  # the executor logged the replay (log=self)
    assert log.get(6)["tool_name"] == "add"
    assert log.get(6)["input"] == {"a": 3, "b": 4}
    assert log.get(6)["tool_use_id"] == result.tool_use_id
    # a replay of a failed call fails the same way, and is logged as an error
    failed = log.replay(3, registry)  # add(a="x")
    assert failed.status == "error"
    assert log.get(7)["status"] == "error" and log.get(7)["error"]


# -- display ---------------------------------------------------------------------------------------


def test_repr_and_html_are_escaped():
    log = ExecutionLog()
    assert repr(log) == "ExecutionLog(':memory:', 0 calls)"
    assert "no calls" in log._repr_html_()
    for i in range(25):
        log.append(
            make_result(f"h{i}", tool_name="xss", content=[{"text": f"<script>alert({i})</script>"}]),
            input={"q": "<b>&"},
        )
    assert repr(log) == "ExecutionLog(':memory:', 25 calls)"
    page = log._repr_html_()
    assert "<script>" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(24)&lt;/script&gt;" in page
    assert "alert(4)" not in page and "alert(5)" in page  # only the last 20 rows
    assert page.count("<tr>") == 21  # header + 20 rows
    assert "25 calls" in page
    log.close()
    assert "closed" in repr(log)


# -- crash safety ----------------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys
    from workbench.log import ExecutionLog
    from workbench.types import ToolResult

    log = ExecutionLog(sys.argv[1])
    for i in range(1, 10_000_000):
        result = ToolResult(
            toolUseId=f"t{i}", status="success", content=[{"text": "3"}, {"json": 3}],
            metadata={"tool_name": "add", "latency_ms": 1.2},
            started_at="2026-01-01T00:00:00.000Z", completed_at="2026-01-01T00:00:00.001Z",
        )
        log.append(result, {"toolUseId": f"t{i}", "name": "add", "input": {"a": i, "b": 2}})
        print(i, flush=True)
    """
)


@pytest.mark.timeout(120)
def test_sigkill_loses_no_committed_row(tmp_path):
    path = tmp_path / "killed.sqlite"
    wanted = 300
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    reported = 0
    deadline = time.monotonic() + 60
    try:
        assert proc.stdout is not None
        while reported < wanted and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            reported = int(line)
        assert reported >= wanted, (
            f"child reported only {reported} rows: {proc.stderr.read() if proc.poll() is not None else ''}"
        )
        os.kill(proc.pid, signal.SIGKILL)  # mid-batch: the child is still appending
        remaining, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    for line in remaining.splitlines():  # rows reported between our last read and the kill
        reported = max(reported, int(line))

    with ExecutionLog(path) as log:
        assert log._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {r["tool_use_id"]: r for r in log.rows()}
        assert len(log) >= reported
        for i in range(1, reported + 1):
            row = stored[f"t{i}"]
            assert row["input"] == {"a": i, "b": 2}
            assert row["output"] == [{"text": "3"}, {"json": 3}]


def _open_together(paths_and_starts: int, openers: int, open_one) -> list[BaseException]:
    errors: list[BaseException] = []
    for _ in range(paths_and_starts):
        errors += open_one(openers)
    return errors


def test_threads_opening_a_new_log_file_at_once_all_get_it(tmp_path):
    """Several connections setting up the same new file: SQLite answers "database is locked" at once
    (switching to WAL, upgrading locks) instead of waiting; about one round in ten failed."""
    import threading

    def round_of(openers: int) -> list[BaseException]:
        path = tmp_path / f"log-{uuid.uuid4().hex}.db"
        barrier, errors = threading.Barrier(openers), []

        def open_it() -> None:
            barrier.wait()
            try:
                ExecutionLog(path).close()
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(openers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return errors

    errors = _open_together(100, 6, round_of)
    assert errors == [], f"{len(errors)} openings failed, e.g. {errors[0]!r}"


def test_processes_opening_a_new_log_file_at_once_all_get_it(tmp_path):
    """The same across processes (a notebook and a script, a client and the test watching its log)."""
    import subprocess
    import sys
    import time

    code = (
        "import sys, time\nfrom workbench.log import ExecutionLog\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\nExecutionLog(sys.argv[1]).append("
        "{'toolUseId': sys.argv[3], 'status': 'success', 'content': [{'text': 'ok'}]})\n"
    )

    def round_of(openers: int) -> list[BaseException]:
        path = tmp_path / f"log-{uuid.uuid4().hex}.db"
        start = time.time() + 1.5  # every process imported and waiting: they open the file together
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(path), str(start), f"call-{i}"], stderr=subprocess.PIPE, cwd=str(REPO)
            )
            for i in range(openers)
        ]
        failures = [RuntimeError(err.decode()) for err in (p.communicate(timeout=120)[1] for p in procs) if err.strip()]
        if not failures:
            assert len(ExecutionLog(path)) == openers  # every process's row is there
        return failures

    errors = _open_together(8, 6, round_of)
    assert errors == [], f"{len(errors)} processes failed, e.g. {errors[0]}"
