"""Model-layer hardening (issue 26): keys of any shape never leak from an unrecognised SDK error or a
non-JSON answer; lone surrogates from a model never crash the loop; executor results copy; a
``base_url``'s credentials stay out of reprs, errors and transcripts.

Every path runs the real SDK against the local wire-format server (tests/model_servers.py)."""

from __future__ import annotations

import json
import pickle
import socket
import traceback

import pytest

from tests.model_servers import Reply, Stream, anthropic_message, model_server, openai_chat, openai_chat_stream  # noqa: F401
from tests.test_models.test_providers import WIRES
from workbench import ExecutionLog, tool
from workbench.agent import Transcript, run_agent
from workbench.executor import SequentialExecutor
from workbench.models import ModelError, ReplayModel, ScriptedModel, as_messages, record
from workbench.models.anthropic import AnthropicModel
from workbench.models.bedrock import BedrockModel
from workbench.models.gemini import GeminiModel
from workbench.models.openai import OpenAIModel, OpenAIResponsesModel
from workbench.registry import ToolRegistry
from workbench.types import ToolResult

#: keys of several shapes: a Groq key, an Azure-style 32-hex key, a string with no known shape
KEYS = {
    "groq": "gsk_" + "Q7rT2mX9pL4vW8nB3kD6" * 2,
    "azure": "3f9a1c7e5b2d4068a9e1f3c5b7d90a2e",
    "arbitrary": "Tr0ub4dor&3-correct-horse",
}


@tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def make(wire: str, url: str, key: str, query: str = "", **options):
    """The model for ``wire`` at ``url`` (then ``query``) with ``key`` (Bedrock: its secret access key)."""
    if wire == "openai":
        return OpenAIModel("gpt-4.1-mini", base_url=url + "/v1" + query, api_key=key, **options)
    if wire == "openai-responses":
        return OpenAIResponsesModel("gpt-4.1-mini", base_url=url + "/v1" + query, api_key=key, **options)
    if wire == "anthropic":
        return AnthropicModel("claude-test", base_url=url + query, api_key=key, **options)
    if wire == "gemini":
        return GeminiModel("gemini-2.5-flash", base_url=url + query, api_key=key, **options)
    return BedrockModel(
        "anthropic.claude-3-haiku",
        base_url=url + query,
        region="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key=key,
        **options,
    )


def assert_error_clean(error: BaseException, *secrets: str) -> None:
    """Neither the error, its repr, its traceback, its attributes nor its pickle holds a secret, and
    it keeps no SDK exception (chained) or SDK object (the request with its headers)."""
    assert isinstance(error, ModelError)
    assert error.__cause__ is None and error.__context__ is None
    shown = [
        str(error),
        repr(error),
        "".join(traceback.format_exception(error)),
        repr(vars(error)),
        json.dumps(error.turn.to_dict() if error.turn else None),
        pickle.dumps(error).decode("latin-1"),
    ]
    for secret in secrets:
        assert not [text for text in shown if secret in text], secret
    assert {type(v).__module__.split(".")[0] for v in vars(error).values()} <= {"builtins", "workbench"}


def assert_run_clean(transcript: Transcript, log_path, tmp_path, *secrets: str) -> None:
    """The run's every artefact — the error, the saved file, the notebook HTML, the text view and
    the SQLite log file's bytes — is free of the secrets."""
    saved = transcript.save(tmp_path / "transcript.json").read_bytes()
    html = transcript._repr_mimebundle_()["text/html"]
    artefacts = {
        "transcript.error": transcript.error or "",
        "repr": repr(transcript),
        "text": str(transcript),
        "html": html,
        "saved": saved.decode("utf-8"),
        "log": log_path.read_bytes().decode("latin-1"),
    }
    for secret in secrets:
        assert not [name for name, text in artefacts.items() if secret in text], secret


# -- item 4: an unrecognised SDK error, a non-JSON answer --------------------------------------------


def stream_error(key: str) -> Stream:
    """An OpenAI stream that sends an error event quoting the key (the SDK raises a bare APIError)."""
    return Stream(
        [
            (
                None,
                {
                    "error": {
                        "message": f"Invalid credentials {key} for this stream",
                        "type": "invalid_request_error",
                        "code": None,
                    }
                },
            )
        ]
    )


@pytest.mark.parametrize("shape", KEYS)
def test_a_stream_error_event_quoting_the_key_is_a_model_error_without_it(shape, model_server, tmp_path):
    key = KEYS[shape]
    model = make("openai", model_server.url, key, max_retries=0)
    model_server.script([stream_error(key)])
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"), stream=True)
    assert_error_clean(info.value, key)
    assert "Invalid credentials *** for this stream" in str(info.value)

    model_server.script([stream_error(key)])
    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(model, "hi", tools=[shout], log=log, stream=True)
    log.close()
    assert transcript.stopped_because == "model_error" and "Invalid credentials ***" in transcript.error
    assert_run_clean(transcript, tmp_path / "runs.sqlite", tmp_path, key)


def test_an_anthropic_stream_error_event_is_masked_too(model_server):
    key = KEYS["azure"]
    model_server.script(
        [
            Stream(
                [
                    (
                        "error",
                        {"type": "error", "error": {"type": "overloaded_error", "message": f"overloaded, key {key}"}},
                    )
                ]
            )
        ]
    )
    with pytest.raises(ModelError) as info:
        make("anthropic", model_server.url, key, max_retries=0).complete(as_messages("hi"), stream=True)
    assert_error_clean(info.value, key)
    assert "overloaded, key ***" in str(info.value)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("shape", KEYS)
def test_a_200_answer_that_is_not_json_is_a_bad_response(wire, shape, stream, model_server, tmp_path):
    """A proxy's page where the provider's JSON (or its stream) should be: a ModelError, never a raw
    JSONDecodeError holding the body, nor an empty turn read from a stream that carried no events."""
    key = KEYS[shape]
    model = make(wire, model_server.url, key, max_retries=0)
    page = Reply(text=f"<html><body>Proxy login: your token {key} expired</body></html>", content_type="text/html")
    model_server.script([page])
    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"), stream=stream)
    assert_error_clean(info.value, key)
    assert info.value.kind == "bad_response"
    assert "answered with something the provider does not send" in str(info.value)
    if not stream and wire != "bedrock":  # botocore does not keep the body it could not read
        assert "Proxy login: your token ***" in str(info.value)
    assert len(model_server.requests) == 1  # not retried: another try gets the same page

    model_server.script([page])
    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(model, "hi", tools=[shout], log=log, stream=stream)
    log.close()
    assert transcript.stopped_because == "model_error" and transcript.steps[0].error_kind == "bad_response"
    assert_run_clean(transcript, tmp_path / "runs.sqlite", tmp_path, key)


def test_a_model_of_its_own_that_fails_quoting_its_key_is_masked_in_the_run(tmp_path):
    key = KEYS["arbitrary"]

    class Failing(ScriptedModel):
        def _secrets(self):
            return [key]

    def fail(messages, tools):
        raise RuntimeError(f"upstream refused {key}")

    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(Failing([fail]), "hi", tools=[shout], log=log)
    log.close()
    assert transcript.error == "RuntimeError: upstream refused ***"
    assert_run_clean(transcript, tmp_path / "runs.sqlite", tmp_path, key)


# -- item 7: lone surrogates ---------------------------------------------------------------------


def surrogate_answers() -> list[Reply]:
    """Chat Completions answers whose JSON escapes lone surrogates in the text and the arguments."""
    call = {"id": "c1", "type": "function", "function": {"name": "shout", "arguments": '{"text": "a\\ud800b"}'}}
    first = openai_chat(text="x", tool_calls=[("shout", {})])
    first["choices"][0]["message"].update(content="calling \ud800", tool_calls=[call])
    last = openai_chat(text="done \udfff")
    return [Reply(text=json.dumps(first)), Reply(text=json.dumps(last))]  # ensure_ascii: "\ud800" escapes


def test_lone_surrogates_from_a_model_are_replaced_and_the_run_is_kept_everywhere(model_server, tmp_path):
    assert "\\ud800" in surrogate_answers()[0].text and "\\\\ud800" in surrogate_answers()[0].text
    model_server.script(surrogate_answers())
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key=KEYS["groq"])
    log = ExecutionLog(tmp_path / "runs.sqlite")
    cassette = tmp_path / "cassette.json"
    transcript = run_agent(record(model, cassette), "hi", tools=[shout], log=log)

    assert transcript.stopped_because == "end_turn", transcript.error
    assert transcript.final_text == "done \ufffd" and transcript.turns[0].text == "calling \ufffd"
    assert transcript.tool_calls[0]["input"] == {"text": "a\ufffdb"}
    assert transcript.tool_results[0].text == "A\ufffdB"  # the tool ran on the replaced text
    saved = Transcript.load(transcript.save(tmp_path / "t.json"))
    assert saved.to_dict() == transcript.to_dict()
    assert Transcript.from_log(log, transcript.run_id).to_dict() == transcript.to_dict()
    assert list(transcript.to_dataframe()["text"])[-1] == "done \ufffd"
    assert "done \ufffd" in transcript._repr_html_()
    replayed = run_agent(ReplayModel(cassette), "hi", tools=[shout])
    assert replayed.final_text == "done \ufffd" and replayed.stopped_because == "end_turn"
    log.close()


def test_a_surrogate_pair_split_across_stream_chunks_is_joined(model_server):
    model_server.script([openai_chat_stream(text="\ud83d\ude00", pieces=2)])  # one half per chunk
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key=KEYS["groq"])
    assert model.complete(as_messages("hi"), stream=True).text == "\U0001f600"


def test_any_models_surrogates_and_errors_are_replaced_in_the_loop(tmp_path):
    def fail(messages, tools):
        raise ModelError("the provider said \udc80", kind="server")

    model = ScriptedModel([{"text": "a \ud800", "tool_calls": [{"name": "shout", "input": {"text": "\udbff"}}]}, fail])
    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(model, "hi", tools=[shout], log=log)
    assert transcript.stopped_because == "model_error" and transcript.error == "the provider said \ufffd"
    assert transcript.turns[0].text == "a \ufffd" and transcript.tool_results[0].text == "\ufffd"
    assert Transcript.from_log(log, transcript.run_id).to_dict() == transcript.to_dict()
    transcript.save(tmp_path / "t.json")
    transcript.to_dataframe()
    log.close()


# -- item 11: copying an executor's result --------------------------------------------------------


def test_an_executor_result_copies_with_an_update_and_takes_assignment():
    registry = ToolRegistry([shout])
    [result] = SequentialExecutor().run([{"toolUseId": "c1", "name": "shout", "input": {"text": "hi"}}], registry)
    copy = result.model_copy(update={"metadata": {**result.metadata, "note": 1}})
    assert copy.metadata["note"] == 1 and "note" not in result.metadata and copy.text == "HI"
    result.status = "error"
    assert result.status == "error" and "status" in result.model_fields_set
    assert ToolResult.model_validate(copy.to_dict()).to_dict() == copy.to_dict()


@pytest.mark.parametrize("cls", [OpenAIModel, GeminiModel, OpenAIResponsesModel, AnthropicModel])
def test_a_hand_written_loop_prepares_the_answer_to_a_call_with_an_empty_name(cls):
    registry = ToolRegistry([shout])
    call = {"toolUseId": "c1", "name": "", "input": {}}
    [result] = SequentialExecutor().run([call], registry)
    assert result.status == "error"
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "results": [result]},
    ]
    request, _ = cls("m", api_key=KEYS["groq"]).prepare(messages, tools=[shout])
    assert "empty 'name'" in json.dumps(request)


# -- item 12: credentials in base_url -------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("wire", WIRES)
def test_credentials_in_base_url_stay_out_of_the_repr_errors_and_transcripts(wire, tmp_path):
    password, query_key = "pw-" + KEYS["azure"], KEYS["arbitrary"]
    url = f"http://gateway-user:{password}@127.0.0.1:{_closed_port()}"
    model = make(wire, url, KEYS["groq"], f"?api-key={query_key}&api-version=2024-10-21", max_retries=0, timeout=5)
    assert password not in repr(model) and query_key not in repr(model)
    assert "gateway-user:***@127.0.0.1" in repr(model) and "api-version=2024-10-21" in repr(model)

    with pytest.raises(ModelError) as info:
        model.complete(as_messages("hi"))
    assert info.value.kind == "connection" and "cannot reach http://gateway-user:***@127.0.0.1" in str(info.value)
    assert_error_clean(info.value, password, query_key, KEYS["groq"])

    log = ExecutionLog(tmp_path / "runs.sqlite")
    transcript = run_agent(model, "hi", tools=[shout], log=log)
    log.close()
    assert transcript.stopped_because == "model_error"
    assert_run_clean(transcript, tmp_path / "runs.sqlite", tmp_path, password, query_key, KEYS["groq"])


def test_url_secrets_are_the_password_a_lone_token_and_secret_query_values():
    from workbench.secrets import url_secrets

    url = "https://bob:p%40ss-word@gw.example/v1?api-key=K-123456&api-version=2024-10-21&sig=S-abcdef"
    assert url_secrets(url) == ["p%40ss-word", "K-123456", "S-abcdef", "p@ss-word"]
    assert url_secrets("https://tok-987654@gw.example/v1") == ["tok-987654"]
    assert url_secrets("http://localhost:11434/v1") == [] and url_secrets(None) == []
