"""The committed cassette of tutorial 08: it holds no key, replays the run, and is what recording gives today."""

from __future__ import annotations

import json

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
    assert _without_timings(json.loads(fresh.read_text(encoding="utf-8"))) == \
        _without_timings(json.loads(CASSETTE.read_text(encoding="utf-8")))


def test_the_cassette_replays_the_run_offline():
    from workbench import SequentialExecutor
    from workbench.agent import run_agent
    from workbench.models import ReplayModel

    transcript = run_agent(ReplayModel(CASSETTE), PROMPT, tools=tutorial_tools(), executor=SequentialExecutor())
    assert transcript.stopped_because == "end_turn"
    assert [s.name for s in transcript.tool_steps] == ["weather", "packing_list"]
    assert transcript.tool_steps[1].result.json == ["water", "coat", "umbrella"]
    assert "umbrella" in transcript.final_text
