"""An agent run whose model calls a tool with a secret parameter (``SecretStr``, an ordinary name: ``pin``):
the tool gets the real value, and the value is in none of what the run keeps or shows — the saved
transcript, its HTML and text, its dataframe, the live ``on_step`` steps, the SQLite log's turn and call
rows (also a call the review denied) — through the real OpenAI SDK against the local wire-format server."""

from __future__ import annotations

import json

from pydantic import SecretStr

from tests.model_servers import model_server, openai_chat  # noqa: F401 - model_server is a fixture
from workbench import ExecutionLog, tool
from workbench.agent import Transcript, run_agent
from workbench.models.openai import OpenAIModel

PIN = "pin-7731-secret"
received: list[str] = []


@tool
def unlock(door: str, pin: SecretStr) -> str:
    """Unlock a door with its PIN."""
    received.append(pin.get_secret_value())
    return f"{door} unlocked"


@tool
def echo_pin(pin: SecretStr) -> str:
    """A careless tool that echoes the PIN it was given."""
    return f"you said {pin.get_secret_value()}"


def _model(server):
    return OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key="sk-FAKE-agent-secrets")


def test_a_secret_argument_reaches_the_tool_and_nothing_the_run_keeps_or_shows(model_server, tmp_path):
    model_server.script(
        [
            openai_chat(
                tool_calls=[("unlock", {"door": "front", "pin": PIN}, "call_1"), ("echo_pin", {"pin": PIN}, "call_2")]
            ),
            openai_chat(text="The front door is open."),
        ]
    )
    received.clear()
    path = tmp_path / "runs.sqlite"
    log = ExecutionLog(path)
    live = []
    transcript = run_agent(
        _model(model_server), "open the front door", tools=[unlock, echo_pin], log=log, on_step=live.append
    )

    assert received == [PIN] and transcript.final_text == "The front door is open."
    # the model's second request carries the call as the model made it: the conversation is the model's
    second = model_server.requests[1].json["messages"][1]["tool_calls"][0]["function"]
    assert json.loads(second["arguments"])["pin"] == PIN
    # the transcript object keeps what happened (a check may need it) ...
    assert transcript.tool_calls[0]["input"]["pin"] == PIN

    # ... and everything that leaves it is masked
    saved = transcript.save(tmp_path / "run.json").read_text()
    assert PIN not in saved
    masked = transcript.masked()
    assert masked.tool_calls[0]["input"] == {"door": "front", "pin": "***"}
    assert masked.tool_steps[0].tool_use["input"]["pin"] == "***"
    assert masked.messages[1]["tool_calls"][0]["input"]["pin"] == "***"
    shown = [
        transcript._repr_html_(),
        repr(transcript),
        str(transcript._repr_mimebundle_()),
        transcript.to_dataframe().to_csv(),
        transcript.to_json(),
    ]
    for text in shown:
        assert PIN not in text
    assert "you said ***" in transcript.to_json()  # the echoing result is masked too
    assert all(PIN not in json.dumps(step.turn.to_dict() if step.kind == "model" else step.to_dict()) for step in live)
    loaded = Transcript.load(tmp_path / "run.json")
    assert loaded.tool_calls[0]["input"]["pin"] == "***" and loaded.to_dict() == transcript.to_dict()

    log.close()
    assert PIN.encode() not in path.read_bytes()
    again = Transcript.from_log(ExecutionLog(path), transcript.run_id)
    assert again.tool_calls[0]["input"]["pin"] == "***"


def test_a_call_the_review_denied_is_logged_masked(model_server, tmp_path):
    model_server.script(
        [
            openai_chat(tool_calls=[("unlock", {"door": "back", "pin": PIN}, "call_1")]),
            openai_chat(text="I was not allowed."),
        ]
    )
    received.clear()
    path = tmp_path / "runs.sqlite"
    log = ExecutionLog(path)
    transcript = run_agent(
        _model(model_server), "open the back door", tools=[unlock], log=log, review=lambda call, tool: False
    )
    assert received == [] and transcript.tool_results[0].metadata["error_type"] == "DeniedByUser"
    [row] = log.rows()
    assert row["input"] == {"door": "back", "pin": "***"}
    log.close()
    assert PIN.encode() not in path.read_bytes()


def test_a_cassette_holds_no_secret_argument_and_replays_with_the_same_masked_keys(model_server, tmp_path):
    from workbench.models import ReplayModel, record

    model_server.script(
        [
            openai_chat(
                tool_calls=[("unlock", {"door": "front", "pin": PIN}, "call_1"), ("echo_pin", {"pin": PIN}, "call_2")]
            ),
            openai_chat(text="The front door is open."),
        ]
    )
    received.clear()
    cassette = tmp_path / "unlock.json"
    recorded = run_agent(record(_model(model_server), cassette), "open the front door", tools=[unlock, echo_pin])
    assert received == [PIN] and recorded.final_text == "The front door is open."
    text = cassette.read_text()
    assert PIN not in text
    first_turn = json.loads(text)["interactions"][0]["turn"]
    assert first_turn["tool_calls"][0]["input"] == {"door": "front", "pin": "***"}

    # replayed: the keys are masked the same way, so the second request matches; the tool gets ***
    received.clear()
    replayed = run_agent(ReplayModel(cassette), "open the front door", tools=[unlock, echo_pin])
    assert replayed.stopped_because == "end_turn" and replayed.final_text == "The front door is open."
    assert received == ["***"]
