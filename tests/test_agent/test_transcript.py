"""Transcripts: save/load round trips, the DataFrame, the escaped HTML fallback and the notebook view."""

import json

import pytest

from workbench import tool
from workbench.agent import ModelStep, ToolStep, Transcript, run_agent
from workbench.agent._transcript import DATAFRAME_COLUMNS
from workbench.models import ModelError, ModelTurn, ScriptedModel, Usage

SCRIPT = "<script>alert('x')</script>"


@tool
def echo(text: str) -> str:
    """Echo a text back."""
    return text


def hostile_run(**options):
    """A run where the prompt, the model's text, a call's input and a tool's output all carry markup."""

    def fail(messages, tools):
        raise ModelError(f"bad {SCRIPT}", kind="bad_request", turn=ModelTurn(request={"body": SCRIPT}))

    model = ScriptedModel(
        [
            ModelTurn(
                text=f"calling {SCRIPT}",
                tool_calls=[{"toolUseId": "e1", "name": "echo", "input": {"text": SCRIPT}}],
                stop_reason="tool_use",
                usage=Usage(7, 2),
                request={"body": SCRIPT},
                response={"out": SCRIPT},
            ),
            fail,
        ]
    )
    return run_agent(model, f"say {SCRIPT}", tools=[echo], system=f"sys {SCRIPT}", **options)


def test_save_and_load_round_trip(tmp_path):
    transcript = hostile_run(review=lambda use, t: {"text": "edited"})
    assert transcript.stopped_because == "model_error"
    path = transcript.save(tmp_path / "t.json")
    loaded = Transcript.load(path)
    assert loaded.to_dict() == transcript.to_dict()
    assert [type(s) for s in loaded.steps] == [ModelStep, ToolStep, ModelStep]
    assert loaded.steps[1].original["input"] == {"text": SCRIPT} and loaded.steps[1].result.text == "edited"
    assert loaded.usage == Usage(7, 2) and loaded.steps[2].turn.stop_reason is None
    assert json.loads(path.read_text())["format"] == "workbench.transcript/1"
    (tmp_path / "other.json").write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a saved transcript"):
        Transcript.load(tmp_path / "other.json")


def test_to_dataframe_has_a_row_per_step_with_latency_and_tokens():
    transcript = hostile_run()
    frame = transcript.to_dataframe()
    assert list(frame.columns) == list(DATAFRAME_COLUMNS)
    assert list(frame["kind"]) == ["model", "tool", "model"] and list(frame["turn"]) == [0, 0, 1]
    assert list(frame["status"]) == ["tool_use", "success", "error"]
    assert frame["input_tokens"].tolist()[0] == 7 and frame["input"][1] == {"text": SCRIPT}
    assert (frame["latency_ms"] >= 0).all()


def test_the_static_html_escapes_everything():
    transcript = hostile_run()
    bundle = transcript._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}  # no kernel here: the static view only
    page = bundle["text/html"]
    assert "<script>" not in page and page == transcript._repr_html_()
    assert page.count("&lt;script&gt;") >= 6  # prompt, system, model text, call input, result, error, raw request
    for part in ("workbench-chat", "workbench-trace", "workbench-raw", "model_error"):
        assert part in page
    assert f"user: say {SCRIPT}" in bundle["text/plain"]  # plain text is not HTML: shown as it is
    assert bundle["text/plain"] == str(transcript)  # one plain text: what print() shows


def test_the_notebook_view_has_chat_trace_and_raw_tabs_and_follows_a_run_live():
    import ipywidgets  # noqa: F401 - a core dependency

    from workbench.agent import live_view
    from workbench.jupyter._transcript_view import TranscriptView

    view = live_view(prompt=[{"role": "user", "content": SCRIPT}])
    assert isinstance(view, TranscriptView)
    transcript = hostile_run(on_step=view.add_step)
    assert len(view.steps) == 3 and "running" in view.summary.value
    assert [view.tabs.get_title(i) for i in range(3)] == ["Chat", "Trace", "Raw"]
    assert view.trace.value.count("<tr class='workbench-trace-") == 3
    view.update(transcript)
    assert "model_error" in view.summary.value and "<script>" not in view.chat.value + view.raw.value
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "<script>" not in bundle["text/html"]
    assert transcript.view().chat.value == view.chat.value


def test_transcript_views_of_the_steps():
    transcript = hostile_run()
    assert [c["name"] for c in transcript.tool_calls] == ["echo"] and transcript.turns[0].usage == Usage(7, 2)
    assert transcript.final_text == f"calling {SCRIPT}" and not transcript.ok
    assert "2 turns, 1 tool calls, stopped_because='model_error'" in repr(transcript)


def test_in_a_kernel_the_transcript_shows_the_notebook_view_with_the_static_copy(monkeypatch):
    import ipywidgets  # noqa: F401 - a core dependency

    import workbench._batch

    monkeypatch.setattr(workbench._batch, "_in_kernel", lambda: True)  # what a running ipykernel answers
    transcript = hostile_run()
    bundle = transcript._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/html"] == transcript._repr_html_() and "<script>" not in bundle["text/html"]
