"""SequentialExecutor.map's batch fast lane (``batch_rows``: the tool's ``CallPlan`` steps, rows without
ToolResult objects) gives exactly the rows of the ordinary phases (issue 11)."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench import ExecutionLog, SequentialExecutor, ToolRegistry, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    if a == 13:
        raise ValueError("unlucky")
    if a == 7:
        return "seven"  # a str value (also the returns-check mismatch)
    if a == 8:
        return 2.5  # not int/str: the row is built as the general path builds it
    if a == 9:
        return 10 ** int("5000")  # too long for str(): an error result on the general path
    return a + b


@tool
def pick(n: int) -> dict:
    """A dict value."""
    if n < 0:
        raise KeyError(n)
    return {"n": n, "items": list(range(n))}


INPUTS = [
    {"a": 1, "b": 2},
    {"a": 13, "b": 0},  # raises
    {"a": "x", "b": 1},  # wrong type
    {"a": 1},  # missing b
    {"a": 1, "b": 2, "c": 3},  # unknown field
    {"a": True, "b": 1},  # bool is not an int
    {"a": 7, "b": 0},
    {"a": 8, "b": 0},
    {"a": 9, "b": 0},
    {"a": float("nan"), "b": 1},
    {"a": [1], "b": 1},
    {"toolUseId": 5, "name": "add", "input": {"a": 2, "b": 2}},  # an id coerced by the general path
    {"toolUseId": "mine", "name": "add", "input": {"a": 3, "b": 4}},
    {"toolUseId": "bad-input", "name": "add", "input": None},
]


def _general(executor: SequentialExecutor) -> SequentialExecutor:
    executor.batch_rows = lambda *args: None  # this instance takes the ordinary phases only
    return executor


def _comparable(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.drop(columns=["duration_ms"])
    ids = frame["tool_use_id"].tolist()
    frame["tool_use_id"] = [i if not str(i).startswith("tooluse_") else "generated" for i in ids]
    return frame


def test_the_fast_lane_applies_to_a_plain_sync_tool_and_not_when_events_or_a_log_need_results(tmp_path):
    executor = SequentialExecutor()
    assert executor.batch_rows(add, [add], None) is not None
    assert executor.batch_rows(add, [add], ExecutionLog(str(tmp_path / "l.db"))) is None
    executor.on_event(lambda event: None)
    assert executor.batch_rows(add, [add], None) is None
    assert SequentialExecutor(timeout=5).batch_rows(add, [add], None) is None
    other = tool(lambda a, b: 0, name="add", description="another add")
    assert SequentialExecutor().batch_rows(add, ToolRegistry([other]), None) is None


@pytest.mark.parametrize("which,inputs", [(add, INPUTS), (pick, [{"n": 2}, {"n": -1}, {"n": "2"}, {}, {"n": 0}])])
def test_fast_lane_rows_equal_the_general_path_rows(which, inputs):
    fast = SequentialExecutor().map(which, inputs, progress=False)
    general = _general(SequentialExecutor()).map(which, inputs, progress=False)
    assert len(fast) == len(inputs)
    pd.testing.assert_frame_equal(_comparable(fast), _comparable(general))
    assert fast["duration_ms"].notna().all()
    if which is add:
        assert fast["status"].tolist().count("success") == 5
        assert set(fast["error_type"].dropna()) >= {"ValueError", "ToolInputError"}
        assert fast.loc[12, "tool_use_id"] == "mine" and fast.loc[11, "tool_use_id"] == "5"


def test_fast_lane_on_a_dataframe_equals_the_general_path():
    frame = pd.DataFrame({"a": [1, 13, 7, None, 4], "b": [1, 2, 3, 4, None], "label": list("vwxyz")})
    fast = SequentialExecutor().map(add, frame, progress=False)
    general = _general(SequentialExecutor()).map(add, frame, progress=False)
    pd.testing.assert_frame_equal(_comparable(fast), _comparable(general))
    assert fast["label"].tolist() == list("vwxyz")


def test_with_a_log_every_row_is_logged_and_the_frame_equals_the_fast_lane(tmp_path):
    log = ExecutionLog(str(tmp_path / "runs.db"))
    logged = SequentialExecutor().map(add, INPUTS, progress=False, log=log)
    fast = SequentialExecutor().map(add, INPUTS, progress=False)
    pd.testing.assert_frame_equal(_comparable(logged), _comparable(fast))
    rows = log.rows(tool="add")
    assert len(rows) == len(INPUTS)
    assert sorted(r["tool_use_id"] for r in rows) == sorted(logged["tool_use_id"])
    by_id = {r["tool_use_id"]: r["status"] for r in rows}
    assert [by_id[i] for i in logged["tool_use_id"]] == logged["status"].tolist()
    log.close()


def test_listeners_still_hear_every_call_of_a_map():
    executor = SequentialExecutor()
    ends = []
    executor.on_event(lambda event: ends.append(event.tool_use["toolUseId"]) if event.kind == "end" else None)
    frame = executor.map(add, INPUTS[:5], progress=False)
    assert ends == frame["tool_use_id"].tolist()
