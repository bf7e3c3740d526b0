"""The tutorials' committed cassettes (08's agent run, 09's and 11's evaluations): they hold no key,
replay their runs offline, and are what recording gives today."""

from __future__ import annotations

import json

import pytest

from tests import tutorial_cassettes
from tests.tutorial_cassette import CASSETTE, FAKE_KEY, PROMPT, record_cassette, tutorial_tools


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "latency_ms"}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_the_committed_cassette_holds_no_key():
    text = CASSETTE.read_text(encoding="utf-8")
    assert FAKE_KEY not in text and FAKE_KEY[:12] not in text
    assert "Bearer" not in text and "sk-" not in text
    assert "127.0.0.1" not in text  # nor where the recording server listened


def test_recording_again_gives_the_committed_cassette(tmp_path):
    fresh = tmp_path / "trip.json"
    transcript = record_cassette(fresh)
    assert transcript.stopped_because == "end_turn"
    assert FAKE_KEY not in fresh.read_text(encoding="utf-8")
    assert _without_timings(json.loads(fresh.read_text(encoding="utf-8"))) == _without_timings(
        json.loads(CASSETTE.read_text(encoding="utf-8"))
    )


def test_the_cassette_replays_the_run_offline():
    from workbench import SequentialExecutor
    from workbench.agent import run_agent
    from workbench.models import ReplayModel

    transcript = run_agent(ReplayModel(CASSETTE), PROMPT, tools=tutorial_tools(), executor=SequentialExecutor())
    assert transcript.stopped_because == "end_turn"
    assert [s.name for s in transcript.tool_steps] == ["weather", "packing_list"]
    assert transcript.tool_steps[1].result.json == ["water", "coat", "umbrella"]
    assert "umbrella" in transcript.final_text


# -- tutorials 09 and 11: evaluation cassettes (tests/tutorial_cassettes.py) ------------------------------
EVAL_CASSETTES = {
    "09_weather": (tutorial_cassettes.WEATHER_CASSETTE, tutorial_cassettes.weather_cassette),
    "11_bfcl_multi_turn": (tutorial_cassettes.MULTI_TURN_CASSETTE, tutorial_cassettes.multi_turn_cassette),
}


@pytest.mark.parametrize("name", EVAL_CASSETTES)
def test_an_evaluation_cassette_holds_no_key(name):
    text = EVAL_CASSETTES[name][0].read_text(encoding="utf-8")
    assert tutorial_cassettes.FAKE_KEY not in text and "sk-FAKE" not in text and "Bearer" not in text
    assert "127.0.0.1" not in text


@pytest.mark.parametrize("name", EVAL_CASSETTES)
def test_recording_an_evaluation_cassette_again_gives_the_committed_one(name, tmp_path):
    committed, write = EVAL_CASSETTES[name]
    fresh = tmp_path / committed.name
    write(fresh)
    assert _without_timings(json.loads(fresh.read_text(encoding="utf-8"))) == _without_timings(
        json.loads(committed.read_text(encoding="utf-8"))
    )


def test_the_multi_turn_cassette_replays_every_entry_offline():
    from tutorial11_entries import ENTRIES, load_entries

    from workbench.evals import run_evals
    from workbench.models import ReplayModel

    report = run_evals(load_entries(), ReplayModel(tutorial_cassettes.MULTI_TURN_CASSETTE), progress=False)
    rows = report.results.set_index("case")
    assert list(rows.index) == list(ENTRIES) and rows["model_error"].isna().all()
    assert rows["passed"].to_dict() == {
        "multi_turn_base_11": True,
        "multi_turn_base_12": True,
        "multi_turn_base_47": True,
        "multi_turn_miss_func_12": False,
    }
    assert rows.loc["multi_turn_miss_func_12", "reason"].startswith(
        "turn 1: GorillaFileSystem differs: root.contents['summary.txt'] is unexpected"
    )
    # every user turn of every entry was asked and answered (each turn ends on an answer without a call)
    for case in load_entries():
        transcript = report.transcripts[rows.loc[case.id, "run_id"]]
        assert transcript.stopped_because == "end_turn"
        assert len(transcript.settings["turn_starts"]) == len(case.user_turns)
