"""executor.map: batch runs over dicts, DataFrames and ToolUses; resume; progress; summarize (issue 11)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

import workbench
from workbench import ConcurrentExecutor, ExecutionLog, SequentialExecutor, ToolRegistry, tool
from workbench._batch import RESULT_COLUMNS

EXECUTORS = [SequentialExecutor, lambda: ConcurrentExecutor(max_concurrency=4)]


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool
def shout(text: str) -> dict:
    """Upper-case a text."""
    if text == "boom":
        raise RuntimeError("boom")
    return {"loud": text.upper()}


@pytest.mark.parametrize("make", EXECUTORS)
def test_map_dataframe_params_missing_cells_and_carried_columns(make):
    df = pd.DataFrame(
        {"label": ["p", "q", "r", "s"], "a": [1, 2, np.nan, 4], "b": [10, None, 3, 4], "expected": [11, 2, None, 8]},
        index=[10, 11, 12, 13],
    )
    log = ExecutionLog()
    out = make().map(add, df, log=log, progress=False)
    assert list(out.columns) == ["label", "expected", *RESULT_COLUMNS]
    assert list(out.index) == [10, 11, 12, 13]
    assert list(out["label"]) == ["p", "q", "r", "s"]
    assert list(out["status"]) == ["success", "success", "error", "success"]
    assert list(out["value"]) == [11, 2, None, 8]  # a NaN b is "not set": the default 0 applies
    assert out.loc[12, "error_type"] == "ToolInputError" and "a" in out.loc[12, "error"]
    assert out["duration_ms"].notna().all()
    rows = log.rows()
    assert len(rows) == 4 and {r["tool_use_id"] for r in rows} == set(out["tool_use_id"])
    assert {r["tool_use_id"]: r["input"] for r in rows}[out.loc[11, "tool_use_id"]] == {"a": 2}


def test_map_nullable_integer_columns_missing_is_not_set():
    df = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "b": pd.array([5, 6, None], dtype="Int64")})
    out = SequentialExecutor().map(add, df, progress=False)
    assert list(out["status"]) == ["success", "error", "success"] and out["value"][2] == 3
    assert "a" in out["error"][1]


@pytest.mark.parametrize("make", EXECUTORS)
def test_map_dicts_by_name_and_errors_in_input_order(make):
    registry = ToolRegistry([shout])
    out = make().map("shout", [{"text": "hi"}, {"text": "boom"}, {"nope": 1}], registry=registry, progress=False)
    assert list(out.columns) == list(RESULT_COLUMNS)
    assert list(out["status"]) == ["success", "error", "error"]
    assert out["value"][0] == {"loud": "HI"}
    assert list(out["error_type"][1:]) == ["RuntimeError", "ToolInputError"]
    assert "boom" in out["error"][1]


def test_map_tool_uses_keep_their_ids_and_results_match_run():
    uses = [{"toolUseId": f"u{i}", "name": "add", "input": {"a": i, "b": i}} for i in range(20)]
    out = SequentialExecutor().map(add, uses, progress=False)
    assert list(out["tool_use_id"]) == [f"u{i}" for i in range(20)]
    expected = [r.content[-1]["json"] for r in SequentialExecutor().run(uses, [add])]
    assert list(out["value"]) == expected


def test_map_rejects_bad_arguments_clearly():
    with pytest.raises(ValueError, match="no tool named 'nope'"):
        SequentialExecutor().map("nope", [{}], registry=ToolRegistry([add]), progress=False)
    with pytest.raises(TypeError, match="input 1 for tool 'add' must be a dict"):
        SequentialExecutor().map(add, [{"a": 1}, 5], progress=False)
    with pytest.raises(ValueError, match="ToolUse of tool 'shout'"):
        SequentialExecutor().map(add, [{"toolUseId": "x", "name": "shout", "input": {}}], progress=False)
    with pytest.raises(ValueError, match="column\\(s\\) 'status' that are not parameters"):
        SequentialExecutor().map(add, pd.DataFrame({"a": [1], "status": ["x"]}), progress=False)
    with pytest.raises(ValueError, match="needs a file log"):
        SequentialExecutor().map(add, [{"a": 1}], resume=True, log=ExecutionLog(), progress=False)


def test_resume_skips_inputs_that_succeeded(tmp_path):
    log = ExecutionLog(tmp_path / "runs.db")
    first = SequentialExecutor().map(add, [{"a": 1}, {"a": "x"}], log=log, progress=False)
    assert list(first["status"]) == ["success", "error"]
    again = SequentialExecutor().map(
        add, [{"a": 1}, {"a": "x"}, {"b": 2, "a": 3}], log=log, resume=True, progress=False
    )
    assert list(again["status"]) == ["success", "error", "success"]
    assert again["tool_use_id"][0] == first["tool_use_id"][0] and again["value"][0] == 1  # taken from the log
    assert [r["input"] for r in log.rows()] == [{"a": 1}, {"a": "x"}, {"a": "x"}, {"b": 2, "a": 3}]


_KILLED_BATCH = textwrap.dedent("""
    import sys, time
    from workbench import SequentialExecutor, ExecutionLog, tool

    @tool
    def slow_double(x: int) -> int:
        '''Double slowly.'''
        time.sleep(0.02)
        return 2 * x

    SequentialExecutor().map(slow_double, [{"x": i} for i in range(200)], log=ExecutionLog(sys.argv[1]), progress=False)
    print("finished")
""")


def test_resume_after_the_process_was_killed_midway(tmp_path):
    db = tmp_path / "killed.db"
    script = tmp_path / "batch.py"
    script.write_text(_KILLED_BATCH)
    proc = subprocess.Popen([sys.executable, str(script), str(db)], stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if db.exists() and len(ExecutionLog(db)) >= 20:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    log = ExecutionLog(db)
    before = len(log)
    assert 20 <= before < 200

    @tool
    def slow_double(x: int) -> int:
        """Double slowly."""
        return 2 * x

    out = SequentialExecutor().map(slow_double, [{"x": i} for i in range(200)], log=log, resume=True, progress=False)
    assert list(out["value"]) == [2 * i for i in range(200)]
    rows = log.rows()
    assert len(rows) == 200  # each input exactly once: the killed run's rows plus the rest
    assert sorted(r["input"]["x"] for r in rows) == list(range(200))
    assert log._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


class _Recorder:
    """A progress object as map accepts one: records advances, cancels after ``stop_after`` calls."""

    def __init__(self, stop_after=None):
        self.cancelled = False
        self.stop_after = stop_after
        self.done = self.failures = 0
        self.closed = False

    def advance(self, count, failures):
        self.done += count
        self.failures += failures
        if self.stop_after is not None and self.done >= self.stop_after:
            self.cancelled = True

    def close(self):
        self.closed = True


def test_progress_counts_failures_and_cancel_returns_finished_rows():
    recorder = _Recorder()
    SequentialExecutor().map(add, [{"a": 1}, {"a": "x"}, {"a": 2}], progress=recorder)
    assert (recorder.done, recorder.failures, recorder.closed) == (3, 1, True)

    @tool
    def slowish(x: int) -> int:
        """Slow enough that chunks stay small."""
        time.sleep(0.05)
        return x

    stopper = _Recorder(stop_after=1)
    log = ExecutionLog()
    out = SequentialExecutor().map(slowish, [{"x": i} for i in range(50)], log=log, progress=stopper)
    assert 1 <= len(out) < 50 and list(out["value"]) == list(range(len(out)))
    assert len(log) == len(out)


def test_terminal_progress_is_a_tqdm_bar_on_stderr(capfd):
    SequentialExecutor().map(add, [{"a": i} for i in range(5)])
    err = capfd.readouterr().err
    assert "add" in err and "5/5" in err


def test_notebook_progress_widget_text_and_cancel():
    from workbench.jupyter._batch_progress import BatchProgress

    bar = BatchProgress(10, 2, "add", display=False)
    bar.advance(3, 1)
    assert bar.text().startswith("5/10") and "1 failed" in bar.text() and "ETA" in bar.text()
    bar.cancel_button.click()
    assert bar.cancelled and bar.cancel_button.disabled
    out = SequentialExecutor().map(add, [{"a": 1}], progress=bar)
    assert len(out) == 0  # cancelled before anything ran
    bar.close()
    assert bar.bar.bar_style == "danger"


def test_summarize_counts_and_percentiles_and_chart():
    out = SequentialExecutor().map(shout, [{"text": "a"}, {"text": "boom"}, {"x": 1}, {"text": "b"}], progress=False)
    summary = workbench.summarize(out)
    assert summary.by_status == {"success": 2, "error": 2}
    assert summary.by_error_type == {"RuntimeError": 1, "ToolInputError": 1}
    assert set(summary.duration_ms) == {"p50", "p90", "p99"}
    assert summary.duration_ms["p50"] <= summary.duration_ms["p90"] <= summary.duration_ms["p99"]
    assert "4 calls" in repr(summary)
    assert "<img" in summary._repr_html_()
    with pytest.raises(ValueError, match="missing status"):
        workbench.summarize(pd.DataFrame({"duration_ms": [1.0], "error_type": [None]}))


_KERNEL_BATCH = '''
import time
from workbench import SequentialExecutor, ExecutionLog, tool

@tool
def slow_echo(x: int) -> int:
    """Echo slowly."""
    time.sleep(0.05)
    if x == 5:
        print("RUNNING", flush=True)  # the batch is under way: time to interrupt
    return x

log = ExecutionLog()
out = SequentialExecutor().map(slow_echo, [{"x": i} for i in range(400)], log=log)
print("ROWS", len(out), len(log), list(out["value"]) == list(range(len(out))), flush=True)
'''


def test_interrupting_the_kernel_stops_a_batch_and_returns_the_finished_rows():
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    try:
        texts = []
        interrupted = []

        def hook(msg):
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
                if "RUNNING" in "".join(texts) and not interrupted:
                    interrupted.append(True)
                    km.interrupt_kernel()
            elif msg["msg_type"] == "error":
                texts.append("\n".join(msg["content"]["traceback"]))

        reply = kc.execute_interactive(_KERNEL_BATCH, timeout=120, output_hook=hook, allow_stdin=False)
        text = "".join(texts)
        assert reply["content"]["status"] == "ok", text  # no KeyboardInterrupt traceback: the batch returned
        rows, logged, ordered = text.split("ROWS", 1)[1].split()[:3]
        assert 0 < int(rows) < 400 and ordered == "True"
        assert int(rows) <= int(logged) < 400  # the interrupted chunk's rows are logged (resume skips them)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


_KERNEL_CANCEL = '''
import time
from workbench import SequentialExecutor, ExecutionLog, tool
from workbench.jupyter._batch_progress import BatchProgress

@tool
def slow_echo(x: int) -> int:
    """Echo slowly."""
    time.sleep(0.05)
    if x == 5:
        print("RUNNING", flush=True)
    return x

log = ExecutionLog()
bar = BatchProgress(400, 0, "slow_echo")
print("ID", bar.cancel_button.model_id, flush=True)
out = SequentialExecutor().map(slow_echo, [{"x": i} for i in range(400)], log=log, progress=bar)
print("ROWS", len(out), len(log), list(out["value"]) == list(range(len(out))), bar.cancelled, flush=True)
'''


def test_cancel_button_in_a_real_kernel_stops_a_blocking_batch():
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    try:
        texts = []
        clicked = []

        def hook(msg):
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
                text = "".join(texts)
                if "RUNNING" in text and not clicked:
                    model_id = text.split("ID", 1)[1].split()[0]
                    clicked.append(model_id)
                    kc.shell_channel.send(
                        kc.session.msg(
                            "comm_msg",
                            {"comm_id": model_id, "data": {"method": "custom", "content": {"event": "click"}}},
                        )
                    )
            elif msg["msg_type"] == "error":
                texts.append("\n".join(msg["content"]["traceback"]))

        reply = kc.execute_interactive(_KERNEL_CANCEL, timeout=120, output_hook=hook, allow_stdin=False)
        text = "".join(texts)
        assert reply["content"]["status"] == "ok", text
        rows, logged, ordered, cancelled = text.split("ROWS", 1)[1].split()[:4]
        assert 0 < int(rows) < 400 and int(logged) == int(rows) and ordered == "True" and cancelled == "True"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
