"""Writes the cassettes the tutorials replay: ``python tests/tutorial_cassettes.py``.

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
from workbench.evals import run_evals  # noqa: E402
from workbench.models import record  # noqa: E402
from workbench.models.openai import OpenAIModel  # noqa: E402


def weather_cassette(path: Path) -> None:
    """Tutorial 09: the weather suite, answered as a small model might (one wrong city, one needless call)."""
    import weather_tools
    from tutorial09_suite import SUITE

    replies = {
        "paris": openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
        "rome-imperial": openai_chat(tool_calls=[("get_weather", {"city": "Rome", "units": "imperial"})]),
        "two-cities": openai_chat(tool_calls=[("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})]),
        "flight": openai_chat(tool_calls=[("book_flight", {"origin": "Paris", "destination": "Lisbon", "passengers": 2})]),
        "lyon-typo": openai_chat(tool_calls=[("get_weather", {"city": "Lyons"})]),
        "joke": openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
        "hello": openai_chat("Hello! How can I help?"),
    }
    server = ModelServer()
    try:
        server.script([replies[case.id] for case in SUITE.cases])
        model = record(OpenAIModel("demo-model", base_url=server.url + "/v1", api_key="sk-FAKE-never-written"), path)
        run_evals(SUITE, model, tools=[weather_tools.get_weather, weather_tools.book_flight], concurrency=1, progress=False)
    finally:
        server.close()


if __name__ == "__main__":
    weather_cassette(ROOT / "notebooks" / "09_weather.cassette.json")
    print("wrote notebooks/09_weather.cassette.json")
