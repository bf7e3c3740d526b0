"""An agent run kept whole in the execution log (a real SQLite file): calls with run id and turn,
model turns, runs; opened again as a transcript, re-run, exported; an old log file migrated."""

import sqlite3

import pytest

from workbench import ConcurrentExecutor, ExecutionLog, tool
from workbench.agent import Transcript, rerun, run_agent
from workbench.models import ModelError, ModelTurn, ScriptedModel, Usage


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def script():
    first = ModelTurn(
        tool_calls=[
            {"toolUseId": "c1", "name": "add", "input": {"a": 1, "b": 2}},
            {"toolUseId": "c2", "name": "shout", "input": {"text": "hi"}},
            {"toolUseId": "c3", "name": "shout", "input": {"text": "no"}},
        ],
        stop_reason="tool_use",
        usage=Usage(10, 5),
        request={"messages": "..."},
        response={"id": "r1"},
    )
    second = ModelTurn(text="3 and HI", stop_reason="end_turn", usage=Usage(20, 3))
    return ScriptedModel([first, second])


def review(tool_use, tool_obj):
    if tool_use["toolUseId"] == "c2":
        return {"text": "edited"}
    return tool_use["toolUseId"] != "c3"


def test_a_run_is_kept_in_the_log_file_and_opens_again_as_the_same_transcript(tmp_path):
    path = tmp_path / "runs.sqlite"
    log = ExecutionLog(path)
    transcript = run_agent(
        script(), "add and shout", tools=[add, shout], log=log, review=review, run_id="run-1", temperature=0.5
    )
    log.close()

    log = ExecutionLog(path)  # a fresh connection: everything came from the file
    [run] = log.runs()
    assert run["run_id"] == "run-1" and run["model"] == "scripted:scripted" and run["stopped_because"] == "end_turn"
    assert (run["turns"], run["tool_calls"], run["input_tokens"], run["output_tokens"]) == (2, 3, 30, 8)
    assert run["final_text"] == "3 and HI" and run["settings"]["params"] == {"temperature": 0.5}
    assert run["prompt"] == [{"role": "user", "content": "add and shout"}]
    assert [t["name"] for t in run["tools"]] == ["add", "shout"]

    rows = log.rows()
    assert {(r["tool_use_id"], r["run_id"], r["turn"]) for r in rows} == {
        ("c1", "run-1", 0),
        ("c2", "run-1", 0),
        ("c3", "run-1", 0),
    }
    denied = next(r for r in rows if r["tool_use_id"] == "c3")
    assert denied["status"] == "error" and denied["error_type"] == "DeniedByUser"  # the answer the model saw

    record = log.run("run-1")
    assert [t["turn"] for t in record["turns"]] == [0, 1]
    assert record["turns"][0]["request"] == {"messages": "..."} and record["turns"][0]["response"] == {"id": "r1"}
    assert record["turns"][0]["usage"] == {"input_tokens": 10, "output_tokens": 5}

    again = Transcript.from_log(log, "run-1")
    assert again.to_dict() == transcript.to_dict()
    edited = again.tool_steps[1]
    assert edited.tool_use["input"] == {"text": "edited"} and edited.original["input"] == {"text": "hi"}
    log.close()


def test_runs_as_a_dataframe_and_unknown_runs(tmp_path):
    log = ExecutionLog(tmp_path / "runs.sqlite")
    for i in range(3):
        run_agent(ScriptedModel([f"answer {i}"]), "q", tools=[add], log=log, run_id=f"r{i}")
    frame = log.runs(as_frame=True)
    assert list(frame["run_id"]) == ["r0", "r1", "r2"] and list(frame["final_text"]) == [
        "answer 0",
        "answer 1",
        "answer 2",
    ]
    assert str(frame["started_at"].dtype).startswith("datetime64") and [r["run_id"] for r in log.runs(last=1)] == ["r2"]
    with pytest.raises(KeyError, match="No agent run 'r9'.*it holds 3 runs"):
        log.run("r9")
    with pytest.raises(ValueError, match="already holds a run with id 'r1'"):
        run_agent(ScriptedModel(["x"]), "q", tools=[add], log=log, run_id="r1")
    log.close()


def test_a_failed_model_turn_is_logged_with_its_error(tmp_path):
    log = ExecutionLog(tmp_path / "runs.sqlite")

    def fail(messages, tools):
        raise ModelError("context too long", kind="context_length", turn=ModelTurn(request={"n": 1}))

    transcript = run_agent(ScriptedModel([fail]), "q", tools=[add], log=log)
    record = log.run(transcript.run_id)
    assert record["stopped_because"] == "model_error" and record["error"] == "context too long"
    assert record["turns"][0]["error_kind"] == "context_length" and record["turns"][0]["request"] == {"n": 1}
    assert Transcript.from_log(log, transcript.run_id).to_dict() == transcript.to_dict()
    log.close()


def test_the_executors_own_log_keeps_the_run_when_none_is_given():
    log = ExecutionLog()
    executor = ConcurrentExecutor(log=log)
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 1, "b": 1}}]}, "2"])
    transcript = run_agent(model, "q", tools=[add], executor=executor)
    assert [r["run_id"] for r in log.rows()] == [transcript.run_id] and log.runs()[0]["turns"] == 2


def test_rerun_with_another_model_from_the_log(tmp_path):
    log = ExecutionLog(tmp_path / "runs.sqlite")
    first = run_agent(script(), "add and shout", tools=[add, shout], log=log, max_turns=4, temperature=0.5)
    opened = Transcript.from_log(log, first.run_id)
    other = ScriptedModel(["no tools needed"], name="other")
    again = rerun(opened, other, tools=[add, shout], log=log, temperature=0)
    assert again.model == "scripted:other" and again.final_text == "no tools needed"
    assert other.calls[0]["messages"] == [{"role": "user", "content": "add and shout"}]
    assert other.calls[0]["params"] == {"temperature": 0} and again.settings["max_turns"] == 4
    third = rerun(opened, ScriptedModel(["ok"]), tools=[add, shout], system="be terse", max_turns=2)
    assert third.prompt[0] == {"role": "system", "content": "be terse"} and third.settings["params"] == {
        "temperature": 0.5
    }
    assert third.settings["max_turns"] == 2
    assert [r["run_id"] for r in log.runs()] == [first.run_id, again.run_id]
    with pytest.raises(ValueError, match="default registry has no tool 'add', 'shout'"):
        rerun(opened, other)
    log.close()


def test_export_a_run_as_json(tmp_path):
    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(script(), "q", tools=[add, shout], log=log)
    target = Transcript.from_log(log, transcript.run_id).save(tmp_path / "run.json")
    assert Transcript.load(target).to_dict() == transcript.to_dict()
    log.close()


_VERSION_1_DDL = """
CREATE TABLE calls (id INTEGER PRIMARY KEY, tool_name TEXT, tool_use_id TEXT, input_json TEXT,
    output_json TEXT NOT NULL, status TEXT NOT NULL, error TEXT, error_type TEXT, started_at TEXT,
    completed_at TEXT, latency_ms REAL, metadata_json TEXT);
CREATE INDEX calls_tool_name ON calls (tool_name);
CREATE INDEX calls_status ON calls (status);
PRAGMA user_version=1;
INSERT INTO calls (tool_name, tool_use_id, input_json, output_json, status, latency_ms, metadata_json)
    VALUES ('add', 't1', '{"a":1,"b":2}', '[{"text":"3"}]', 'success', 1.5, '{}');
"""


def test_a_log_file_without_the_run_columns_is_migrated_on_open(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(_VERSION_1_DDL)
    log = ExecutionLog(path)
    [old] = log.rows()
    assert old["tool_use_id"] == "t1" and old["run_id"] is None and old["turn"] is None
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 2, "b": 2}}]}, "4"])
    transcript = run_agent(model, "q", tools=[add], log=log)
    assert [(r["run_id"], r["turn"]) for r in log.rows()] == [(None, None), (transcript.run_id, 0)]
    log.close()
    with sqlite3.connect(path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(calls)")]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert columns[-2:] == ["run_id", "turn"] and version == 2 and {"runs", "model_turns"} <= tables


def test_a_run_ended_by_an_exception_is_logged_as_an_error_and_calls_without_ids_get_one(tmp_path):
    log = ExecutionLog(tmp_path / "runs.sqlite")
    model = ScriptedModel([ModelTurn(tool_calls=[{"name": "add", "input": {"a": 1, "b": 1}}], stop_reason="tool_use")])
    with pytest.raises(TypeError, match="review must return"):
        run_agent(model, "q", tools=[add], log=log, review=lambda use, t: "yes", run_id="broken")
    run = log.run("broken")
    assert run["stopped_because"] == "error" and run["error"].startswith("TypeError: review must return")

    model = ScriptedModel(
        [
            ModelTurn(
                tool_calls=[{"toolUseId": None, "name": "add", "input": {"a": 1, "b": 1}}], stop_reason="tool_use"
            ),
            "2",
        ]
    )
    transcript = run_agent(model, "q", tools=[add], log=log)
    call_id = transcript.tool_calls[0]["toolUseId"]
    assert call_id and transcript.tool_results[0].tool_use_id == call_id
    assert model.calls[1]["messages"][1]["tool_calls"][0]["toolUseId"] == call_id
    log.close()
