"""Evaluation runs start fresh, hit their cache, log every run and resolve model strings alike (issue 27).

* every conversation (each case × repeat × variant × model job, each ``run_agent`` call) starts an
  offline model afresh — in threads, at any concurrency and on Dask workers; a recording under
  ``run_evals`` replays every conversation of the run, each repeat its own;
* the request cache keys on what is sent to the provider, so an unchanged multi-turn suite sends
  nothing the second time;
* ``log=`` keeps every evaluation's run, single-turn ones too;
* one resolver turns model strings into models for ``models.get``, ``run_agent``, ``rerun`` and
  ``run_evals``; an offline model's label says what to pass instead.
"""

from __future__ import annotations

import json
import threading

import pytest

from tests.model_servers import model_server, openai_chat  # noqa: F401 - the fixture
from tests.weather_tools import get_weather
from workbench import ExecutionLog
from workbench.agent import rerun, run_agent
from workbench.evals import EvalCase, run_evals
from workbench.models import ReplayModel, SchemaModel, ScriptedModel, get, record

PARIS = [{"name": "get_weather", "arguments": {"city": ["Paris"], "units": ["metric", ""]}}]
CALL_PARIS = {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]}
CALL_OSLO = {"tool_calls": [{"name": "get_weather", "input": {"city": "Oslo"}}]}


def paris_cases(count: int) -> list[EvalCase]:
    return [EvalCase(f"paris{i}", prompt=f"Weather in Paris? ({i})", expect_calls=PARIS) for i in range(count)]


# -- every conversation starts the script afresh ---------------------------------------------------------


def test_every_repeat_starts_a_one_turn_script_afresh():
    report = run_evals(paris_cases(1), ScriptedModel([CALL_PARIS]), tools=[get_weather], repeats=3, progress=False)
    assert report.results["model_error"].isna().all(), report.results["reason"].tolist()
    assert report.results["passed"].tolist() == [True, True, True]


@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_script_past_its_first_turn_is_never_what_a_job_sees(concurrency):
    # with repeat_last=True a shared counter failed silently: every job after the first got the second turn
    model = ScriptedModel([CALL_PARIS, CALL_OSLO], repeat_last=True)
    report = run_evals(paris_cases(6), model, tools=[get_weather], repeats=3, concurrency=concurrency, progress=False)
    assert report.results["passed"].all() and len(report.results) == 18, report.failures()["reason"].tolist()
    assert len(model.calls) == 18  # the model still records every request of every conversation


def test_multi_turn_jobs_each_run_the_whole_script():
    model = ScriptedModel([CALL_PARIS, "It is 21 degrees."])
    report = run_evals(
        paris_cases(4), model, tools=[get_weather], repeats=2, max_turns=3, concurrency=8, progress=False
    )
    assert report.results["passed"].all(), report.results["reason"].tolist()
    assert report.results["turns"].tolist() == [2] * 8
    assert {t.final_text for t in report.transcripts.values()} == {"It is 21 degrees."}


def test_each_run_agent_call_starts_afresh_in_threads_too():
    model = ScriptedModel([CALL_PARIS, "done"])
    assert run_agent(model, "Paris?", tools=[get_weather]).final_text == "done"
    assert run_agent(model, "Paris?", tools=[get_weather]).final_text == "done"
    finals: list[str] = []
    threads = [
        threading.Thread(target=lambda: finals.append(run_agent(model, "Paris?", tools=[get_weather]).final_text))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert finals == ["done"] * 4 and len(model.calls) == 12
    # one conversation driven by hand goes on turn after turn
    direct = ScriptedModel(["one", "two"])
    assert [direct.complete("q").text, direct.complete("q").text] == ["one", "two"]


def test_jobs_on_dask_workers_start_afresh():
    from workbench.dask import DaskExecutor

    log = ExecutionLog()
    with DaskExecutor(n_workers=2) as executor:
        single = run_evals(
            paris_cases(3),
            ScriptedModel([CALL_PARIS]),
            tools=[get_weather],
            executor=executor,
            repeats=6,
            log=log,
            progress=False,
        )
        looped = run_evals(
            paris_cases(3),
            ScriptedModel([CALL_PARIS, "It is 21 degrees."]),
            tools=[get_weather],
            executor=executor,
            repeats=6,
            max_turns=3,
            progress=False,
        )
    assert single.results["passed"].all() and len(single.results) == 18, single.failures()["reason"].tolist()
    assert looped.results["passed"].all() and looped.results["turns"].tolist() == [2] * 18
    assert len(log.runs()) == 18


def test_a_recorded_run_replays_every_conversation_each_repeat_its_own(tmp_path):
    # a model whose answers differ from conversation to conversation, as a real model's may: the
    # replay gives each (case, repeat) the answers recorded for it, at any concurrency
    answers = iter([CALL_PARIS, CALL_OSLO] * 20)
    lock = threading.Lock()

    def varying(messages, tools):
        if messages[-1]["role"] == "tool":
            return "It is 21 degrees."
        with lock:
            return next(answers)

    cassette = tmp_path / "run.cassette.json"
    recorded = run_evals(
        paris_cases(3),
        record(ScriptedModel([varying], repeat_last=True), cassette),
        tools=[get_weather],
        repeats=3,
        max_turns=3,
        concurrency=8,
        progress=False,
    )
    assert recorded.results["model_error"].isna().all()
    assert 0 < recorded.results["passed"].sum() < 9  # the answers did differ between conversations
    replayed = run_evals(
        paris_cases(3), f"replay:{cassette}", tools=[get_weather], repeats=3, max_turns=3, concurrency=8, progress=False
    )
    assert replayed.results["model_error"].isna().all(), replayed.results["reason"].tolist()

    def outcome(report):
        return report.results.sort_values(["case", "repeat"])[["case", "repeat", "passed", "actual"]].values.tolist()

    assert outcome(replayed) == outcome(recorded)


# -- the cache keys on what the provider is sent -------------------------------------------------------


def test_a_second_run_of_a_multi_turn_suite_sends_nothing(model_server, tmp_path):  # noqa: F811
    from workbench.models.openai import OpenAIModel

    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-test-not-a-real-key")
    model_server.script(
        [
            openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
            openai_chat(text="21 in Paris"),
            openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
            openai_chat(text="21 again"),
        ]
    )
    cache = tmp_path / "evals.sqlite"
    first = run_evals(
        paris_cases(2), model, tools=[get_weather], cache=cache, max_turns=3, concurrency=1, progress=False
    )
    assert first.results["passed"].all() and first.results["turns"].tolist() == [2, 2]
    assert len(model_server.requests) == 4
    second = run_evals(paris_cases(2), model, tools=[get_weather], cache=cache, max_turns=3, progress=False)
    assert len(model_server.requests) == 4, "the second run reached the server"
    assert second.cache_hits == 4 and second.results["cached"].all() and second.results["passed"].all()


def test_offline_tool_call_ids_do_not_break_the_cache(tmp_path):
    # a scripted call has no id: the loop gives it a random one each run, which must not change the key
    model = ScriptedModel([CALL_PARIS, "It is 21 degrees."])
    cache = tmp_path / "evals.sqlite"
    run_evals(paris_cases(2), model, tools=[get_weather], cache=cache, max_turns=3, progress=False)
    asked = len(model.calls)
    again = run_evals(paris_cases(2), model, tools=[get_weather], cache=cache, max_turns=3, progress=False)
    assert len(model.calls) == asked == 4 and again.cache_hits == 4


# -- the log keeps every evaluation's run ---------------------------------------------------------------


def test_single_turn_evaluations_land_in_the_log(tmp_path):
    log = ExecutionLog(tmp_path / "evals.sqlite")
    cases = paris_cases(2) + [EvalCase("hello", prompt="Say hello", expect_no_call=True)]

    def answer(messages, tools):
        return CALL_PARIS if "Paris" in messages[-1]["content"] else "Hello!"

    report = run_evals(
        cases, ScriptedModel([answer], repeat_last=True), tools=[get_weather], repeats=2, log=log, progress=False
    )
    runs = log.runs()
    assert len(runs) == 6 and {r["run_id"] for r in runs} == set(report.results["run_id"])
    run = log.run(report.results["run_id"].iloc[0])
    assert [t["tool_calls"][0]["name"] for t in run["turns"]] == ["get_weather"] and run["calls"] == []
    assert run["tools"][0]["name"] == "get_weather" and run["settings"]["max_turns"] == 1


def test_multi_turn_evaluations_log_their_tool_calls_with_the_run_id(tmp_path):
    log = ExecutionLog(tmp_path / "evals.sqlite")
    report = run_evals(
        paris_cases(2), ScriptedModel([CALL_PARIS, "done"]), tools=[get_weather], max_turns=3, log=log, progress=False
    )
    for run_id in report.results["run_id"]:
        run = log.run(run_id)
        assert len(run["turns"]) == 2 and [c["tool_name"] for c in run["calls"]] == ["get_weather"]


# -- one model-string resolver ---------------------------------------------------------------------------


def test_replay_strings_work_at_every_entry_point(tmp_path, monkeypatch):
    cassette = tmp_path / "agent.cassette.json"
    original = run_agent(record(ScriptedModel([CALL_PARIS, "done"]), cassette), "Paris?", tools=[get_weather])
    monkeypatch.chdir(tmp_path)
    replayed = run_agent("replay:agent.cassette.json", "Paris?", tools=[get_weather])
    assert replayed.final_text == original.final_text == "done" and replayed.error is None
    assert isinstance(get("replay:agent.cassette.json"), ReplayModel)
    again = rerun(replayed, "replay:agent.cassette.json", tools=[get_weather])
    assert again.final_text == "done"


@pytest.mark.parametrize(
    "model, expected",
    [
        (
            ScriptedModel([CALL_PARIS, "done"], name="rules"),
            "'scripted:rules' is the label of an offline model.*pass the ScriptedModel object",
        ),
        (SchemaModel(), "'schema:schema' is the label of an offline model.*pass the SchemaModel object"),
    ],
)
def test_rerun_of_an_offline_run_says_what_to_pass(model, expected):
    transcript = run_agent(model, "Paris?", tools=[get_weather])
    with pytest.raises(ValueError, match=expected):
        rerun(transcript, tools=[get_weather])
    assert rerun(transcript, model, tools=[get_weather]).final_text == transcript.final_text
    with pytest.raises(ValueError, match=expected):
        run_evals(paris_cases(1), transcript.model, tools=[get_weather], progress=False)


def test_unknown_strings_name_every_known_provider():
    with pytest.raises(ValueError, match="unknown model provider 'nope'.*anthropic.*openai.*replay"):
        get("nope:x")
    with pytest.raises(ValueError, match="'replay:' needs a cassette path"):
        run_agent("replay:", "q", tools=[get_weather])
    with pytest.raises(FileNotFoundError, match="no cassette at"):
        run_evals(paris_cases(1), "replay:missing.json", tools=[get_weather], progress=False)


# -- suite and cassette files: bad input is a file error (issue 26, item 13) ---------------------------

DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"cases": [], "extra": ' + DEEP + "}", r"deep.evals.json: not JSON \(JSON text nests deeper than"),
        (
            '{"cases": [], "max_turns": 1e400}',
            r"deep.evals.json: suite 'deep': max_turns must be a positive integer, got inf",
        ),
        (
            '{"cases": [], "max_turns": -5}',
            r"deep.evals.json: suite 'deep': max_turns must be a positive integer, got -5",
        ),
        ('{"cases": [], "max_turns": 2.5}', r"max_turns must be a positive integer, got 2.5"),
        ('{"cases": [], "max_turns": true}', r"max_turns must be a positive integer, got True"),
    ],
)
def test_bad_suite_files_are_file_errors(tmp_path, text, expected):
    from workbench.evals import EvalFileError, load_evals

    path = tmp_path / "deep.evals.json"
    path.write_text(text)
    with pytest.raises(EvalFileError, match=expected):
        load_evals(path)


def test_a_suite_file_with_two_turns_still_loads(tmp_path):
    from workbench.evals import load_evals

    path = tmp_path / "ok.evals.json"
    path.write_text(json.dumps({"cases": [{"id": "a", "prompt": "p", "expect_no_call": True}], "max_turns": 2}))
    assert load_evals(path).max_turns == 2
    with pytest.raises(ValueError, match="max_turns must be a positive integer, got 0"):
        run_evals(paris_cases(1), ScriptedModel([CALL_PARIS]), tools=[get_weather], max_turns=0, progress=False)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"version": 1, "interactions": ' + DEEP + "}", r"not a cassette: not JSON \(JSON text nests deeper than"),
        ('{"version": 1, "interactions": [', r"not a cassette: not JSON"),
        ('{"version": 1, "interactions": [1]}', r"'interactions' must be a list of objects"),
    ],
)
def test_bad_cassettes_are_clear_errors(tmp_path, text, expected):
    path = tmp_path / "bad.cassette.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"ReplayModel: .*bad.cassette.json.*" + expected):
        ReplayModel(path)
    with pytest.raises(ValueError, match=expected):
        run_evals(paris_cases(1), f"replay:{path}", tools=[get_weather], progress=False)


def test_the_repeat_number_keys_the_cache_without_reaching_the_transcript(tmp_path):
    model = ScriptedModel([CALL_PARIS, "It is 21 degrees."])
    cache = tmp_path / "evals.sqlite"
    report = run_evals(paris_cases(1), model, tools=[get_weather], cache=cache, repeats=2, max_turns=3, progress=False)
    assert len(model.calls) == 4  # each repeat is its own request
    for transcript in report.transcripts.values():
        assert transcript.settings["params"] == {}, transcript.settings
        assert rerun(transcript, model, tools=[get_weather]).final_text == "It is 21 degrees."
    asked = len(model.calls)
    again = run_evals(paris_cases(1), model, tools=[get_weather], cache=cache, repeats=2, max_turns=3, progress=False)
    assert again.cache_hits == 4 and len(model.calls) == asked


def test_the_user_turns_of_one_conversation_continue_one_script():
    """A multi-turn conversation (BFCL multi-turn's shape) is one conversation: its second user turn
    gets the script's second answer, not the first one again; a second conversation starts afresh."""
    from workbench.evals._turns import arun_turns
    from workbench.executor import run_sync

    script = ScriptedModel([{"text": "first answer"}, {"text": "second answer"}])
    turns = [[{"role": "user", "content": "one"}], [{"role": "user", "content": "two"}]]
    for _ in range(2):
        transcript = run_sync(arun_turns(script, turns, lambda index: []))
        assert [step.turn.text for step in transcript.model_steps] == ["first answer", "second answer"]
        assert transcript.stopped_because == "end_turn"
