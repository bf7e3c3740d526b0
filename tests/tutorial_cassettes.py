"""Writes the cassettes tutorials 09 and 11 replay: ``python tests/tutorial_cassettes.py``.

Each is recorded from a real SDK model (``OpenAIModel`` through the ``openai`` package) talking to the
local OpenAI-wire server of ``tests/model_servers.py``, which answers with scripted replies — so the
cassette holds exactly what the SDK path produces, with a placeholder key that is never written.
The model is called ``demo-model``: its answers are scripted, not a real model's.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "notebooks"))

from tests.model_servers import ModelServer, openai_chat  # noqa: E402
from workbench.evals import EvalReport, run_evals  # noqa: E402
from workbench.models import record  # noqa: E402
from workbench.models.openai import OpenAIModel  # noqa: E402

WEATHER_CASSETTE = ROOT / "notebooks" / "09_weather.cassette.json"
MULTI_TURN_CASSETTE = ROOT / "notebooks" / "cassettes" / "11_bfcl_multi_turn.json"
#: the key the recordings use: it must appear nowhere in a cassette
FAKE_KEY = "sk-FAKE-never-written"


def weather_cassette(path: Path = WEATHER_CASSETTE) -> EvalReport:
    """Tutorial 09: the weather suite, answered as a small model might (one wrong city, one needless call)."""
    import weather_tools
    from tutorial09_suite import SUITE

    replies = {
        "paris": openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
        "rome-imperial": openai_chat(tool_calls=[("get_weather", {"city": "Rome", "units": "imperial"})]),
        "two-cities": openai_chat(tool_calls=[("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})]),
        "flight": openai_chat(
            tool_calls=[("book_flight", {"origin": "Paris", "destination": "Lisbon", "passengers": 2})]
        ),
        "lyon-typo": openai_chat(tool_calls=[("get_weather", {"city": "Lyons"})]),
        "joke": openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
        "hello": openai_chat("Hello! How can I help?"),
    }
    server = ModelServer()
    try:
        server.script([replies[case.id] for case in SUITE.cases])
        model = record(OpenAIModel("demo-model", base_url=server.url + "/v1", api_key=FAKE_KEY), path)
        return run_evals(
            SUITE, model, tools=[weather_tools.get_weather, weather_tools.book_flight], concurrency=1, progress=False
        )
    finally:
        server.close()


def _call(name: str, **arguments: object) -> tuple:
    return (name, arguments)


def _calls(*calls: tuple) -> dict:
    return openai_chat(tool_calls=calls, model="demo-model")


def _say(text: str) -> dict:
    return openai_chat(text, model="demo-model")


#: tutorial 11's demo model, per BFCL entry: for each user turn its calls (one reply per step), then a
#: short answer without a call, which ends the turn. It does what BFCL expects but in one place: in
#: multi_turn_miss_func_12 it is not offered ``cd`` yet, and creates the file where it stands anyway.
MULTI_TURN_REPLIES = {
    "multi_turn_base_11": [
        _calls(_call("ls", a=True)),
        _say("/temp holds file1.txt and file2.txt."),
        _calls(_call("post_tweet", content="file1.txt, file2.txt", tags=["#fileshowcase"])),
        _say('Posted: "file1.txt, file2.txt" with #fileshowcase.'),
    ],
    "multi_turn_base_12": [
        _calls(_call("cd", folder="Documents"), _call("touch", file_name="summary.txt")),
        _say("I created summary.txt in Documents."),
        _calls(_call("echo", content="quantum computing", file_name="summary.txt")),
        _say("summary.txt now holds 'quantum computing'."),
        _calls(_call("wc", file_name="summary.txt", mode="w")),
        _say("summary.txt has 2 words."),
    ],
    "multi_turn_base_47": [
        _calls(_call("find", path=".")),
        _say("It is student_record.txt."),
        _calls(_call("cat", file_name="student_record.txt")),
        _calls(_call("mean", numbers=[100, 95, 85, 90, 88, 92])),
        _say("The average score is 91.67."),
        _calls(_call("standard_deviation", numbers=[100, 95, 85, 90, 88, 92])),
        _say("The standard deviation is 4.85."),
    ],
    "multi_turn_miss_func_12": [
        _calls(_call("touch", file_name="summary.txt")),
        _say("I created summary.txt."),
        _calls(_call("cd", folder="Documents"), _call("touch", file_name="summary.txt")),
        _say("summary.txt is now in Documents too."),
        _calls(_call("echo", content="quantum computing", file_name="summary.txt")),
        _say("summary.txt now holds 'quantum computing'."),
        _calls(_call("wc", file_name="summary.txt", mode="w")),
        _say("summary.txt has 2 words."),
    ],
}


def multi_turn_cassette(path: Path = MULTI_TURN_CASSETTE) -> EvalReport:
    """Tutorial 11: four BFCL multi-turn entries, every user turn answered by the demo model above
    (BFCL's classes run as tools while recording, so the cassette holds their real results)."""
    from tutorial11_entries import load_entries

    cases = load_entries()
    server = ModelServer()
    try:
        server.script([reply for case in cases for reply in MULTI_TURN_REPLIES[case.id]])
        model = record(OpenAIModel("demo-model", base_url=server.url + "/v1", api_key=FAKE_KEY), path)
        report = run_evals(cases, model, concurrency=1, progress=False)  # one at a time: the script's order
        if server.pending:
            raise RuntimeError(f"tutorial 11's demo model left {server.pending} scripted replies unasked")
        return report
    finally:
        server.close()


if __name__ == "__main__":
    for write, path in ((weather_cassette, WEATHER_CASSETTE), (multi_turn_cassette, MULTI_TURN_CASSETTE)):
        write(path)
        print(f"wrote {path.relative_to(ROOT)}")
