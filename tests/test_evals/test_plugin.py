"""pytest collects *.evals.json suites (the workbench-evals pytest11 entry point): one test per case
and model, the model from --eval-model or the suite, a replayed cassette in CI."""

from __future__ import annotations

import json

import pandas  # noqa: F401 - loaded before pytester's in-process runs (numpy loads once per process)
import pytest

from tests.weather_tools import PARIS_AND_ROME, TOOLS_MODULE
from workbench.evals import EvalSuite, save_evals
from workbench.models import ScriptedModel, record

pytest_plugins = ["pytester"]

TOOLS, CASES = TOOLS_MODULE, PARIS_AND_ROME


def _answer(messages, tools):
    city = "Paris" if "Paris" in messages[-1]["content"] else "Lyon"  # wrong for Rome
    return {"tool_calls": [{"name": "get_weather", "input": {"city": city}}]}


@pytest.fixture
def suite_dir(pytester):
    pytester.makepyfile(weather_tools=TOOLS)
    pytester.syspathinsert()
    # record a cassette of the scripted model answering both cases, as one would record a real model
    from workbench.evals import run_evals

    cassette = pytester.path / "weather.cassette.json"
    suite = EvalSuite("weather", cases=CASES, tools=["weather_tools"], model="replay:weather.cassette.json")
    path = save_evals(suite, pytester.path / "weather.evals.json")
    run_evals(path, record(ScriptedModel([_answer], repeat_last=True, name="recorded"), cassette), progress=False)
    assert json.loads(cassette.read_text())["interactions"]
    return pytester


def test_suite_cases_are_tests_replayed_from_the_cassette(suite_dir):
    result = suite_dir.runpytest("-p", "no:cacheprovider", "weather.evals.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*weather.evals.json::rome: get_weather: city 'Lyon' not in [[]'Rome'[]]*"])


def test_eval_model_option_names_the_model(suite_dir):
    result = suite_dir.runpytest(
        "-p",
        "no:cacheprovider",
        "--collect-only",
        "-q",
        "weather.evals.json",
        "--eval-model",
        "replay:weather.cassette.json",
        "--eval-model",
        "scripted:x",
    )
    result.stdout.fnmatch_lines(["*paris[[]replay:weather.cassette.json[]]*", "*rome[[]scripted:x[]]*"])


def test_a_suite_without_a_model_says_how_to_give_one(pytester):
    pytester.path.joinpath("bare.evals.json").write_text(
        json.dumps({"cases": [{"id": "a", "prompt": "p", "expect_no_call": True}]})
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "bare.evals.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no model to run it with: pass --eval-model MODEL*"])


# -- repeats, a pass rate, a base URL and a model object (an OpenAI-wire server on loopback) ---------------
from tests.model_servers import model_server, openai_chat  # noqa: E402,F401 - the fixture

RIGHT = openai_chat(tool_calls=[("get_weather", {"city": "Paris"})])
WRONG = openai_chat(tool_calls=[("get_weather", {"city": "Lyon"})])


@pytest.fixture
def paris_suite(pytester, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makepyfile(weather_tools=TOOLS)
    pytester.syspathinsert()

    def write(model):
        path = pytester.path / "paris.evals.json"
        path.write_text(
            json.dumps({"name": "paris", "tools": ["weather_tools"], "model": model, "cases": [CASES[0].to_dict()]})
        )
        return path

    return write


@pytest.mark.parametrize("min_pass, outcome", [("0.6", "passed"), ("1", "failed")])
def test_a_case_passes_when_its_pass_rate_over_the_repeats_reaches_min_pass(
    pytester, paris_suite, model_server, min_pass, outcome
):
    model_server.script([RIGHT, RIGHT, WRONG])  # 2 of 3 repeats right, whichever order they run in
    paris_suite("openai:local-model")
    result = pytester.runpytest_inprocess(
        "-p",
        "no:cacheprovider",
        "paris.evals.json",
        "--eval-repeats",
        "3",
        "--eval-min-pass",
        min_pass,
        "--eval-base-url",
        model_server.url + "/v1",
    )
    result.assert_outcomes(**{outcome: 1})
    assert len(model_server.requests) == 3
    if outcome == "failed":
        result.stdout.fnmatch_lines(["*paris: passed 2 of 3 runs (needs 100%): get_weather: city 'Lyon'*"])


def test_a_suite_model_object_gives_the_base_url_and_params(pytester, paris_suite, model_server):
    model_server.always(RIGHT)
    paris_suite({"id": "openai:local-model", "base_url": model_server.url + "/v1", "params": {"temperature": 0}})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "paris.evals.json")
    result.assert_outcomes(passed=1)
    sent = model_server.requests[0].json
    assert sent["model"] == "local-model" and sent["temperature"] == 0
    assert (
        "authorization" not in model_server.requests[0].headers
        or "no-key" in model_server.requests[0].headers["authorization"]
    )


def test_a_model_object_with_a_key_in_it_is_refused_with_the_file_named(pytester, paris_suite):
    paris_suite({"id": "openai:x", "api_key": "sk-in-a-file-1234"})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "paris.evals.json")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*paris.evals.json*unknown: api_key*"])
    assert "sk-in-a-file-1234" not in result.stdout.str()


def test_bad_repeat_options_are_usage_errors(pytester, paris_suite):
    paris_suite("openai:local-model")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "paris.evals.json", "--eval-min-pass", "1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-min-pass must be a number from 0 to 1*"])
