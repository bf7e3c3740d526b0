"""The cassette tutorial 08 replays (``notebooks/cassettes/08_trip.json``), and how it was made.

A real SDK model — ``OpenAIModel`` (the ``openai`` package) — with a fake key is pointed at the local
wire-format server of ``tests/model_servers.py`` and wrapped in ``workbench.models.record``; one agent
run with the tutorial's tools writes the cassette. No network, no real key: the server answers with
scripted Chat Completions replies. Regenerate with ``python -m tests.tutorial_cassette``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.model_servers import ModelServer, openai_chat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CASSETTE = NOTEBOOKS / "cassettes" / "08_trip.json"
#: the key the recording used: it must appear nowhere in the cassette
FAKE_KEY = "sk-FAKE-tutorial-key-01"
PROMPT = "I'm in Oslo today. What should I pack?"
REPLIES = [
    openai_chat(tool_calls=[("weather", {"city": "Oslo"}, "call_weather_1")], usage=(96, 15)),
    openai_chat(tool_calls=[("packing_list", {"temperature_c": 4.0, "rain": True}, "call_pack_1")], usage=(161, 22)),
    openai_chat(text="It is 4 °C and raining in Oslo: pack water, a coat and an umbrella.", usage=(214, 20)),
]


def tutorial_tools() -> list:
    """The tutorial's tools (``notebooks/loop_tools.py``)."""
    if str(NOTEBOOKS) not in sys.path:
        sys.path.insert(0, str(NOTEBOOKS))
    from loop_tools import packing_list, weather

    return [weather, packing_list]


def record_cassette(path: Path = CASSETTE):
    """Record one run of the tutorial's prompt into ``path``; returns its ``Transcript``."""
    from workbench import SequentialExecutor
    from workbench.agent import run_agent
    from workbench.models import record
    from workbench.models.openai import OpenAIModel

    server = ModelServer()
    try:
        server.script(REPLIES)
        model = record(OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key=FAKE_KEY), path)
        return run_agent(model, PROMPT, tools=tutorial_tools(), executor=SequentialExecutor())
    finally:
        server.close()


if __name__ == "__main__":
    transcript = record_cassette()
    print(f"wrote {CASSETTE.relative_to(ROOT)}: {transcript!r}")
