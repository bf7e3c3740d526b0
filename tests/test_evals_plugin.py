"""pytest collects *.evals.json suites (the workbench-evals pytest11 entry point): one test per case
and model, the model from --eval-model or the suite, a replayed cassette in CI."""

from __future__ import annotations

import json

import pandas  # noqa: F401 - loaded before pytester's in-process runs (numpy loads once per process)
import pytest

from workbench.evals import EvalCase, EvalSuite, save_evals
from workbench.models import ScriptedModel, record

pytest_plugins = ["pytester"]

TOOLS = '''
from workbench import tool

@tool
def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city}
'''

CASES = [EvalCase("paris", prompt="Weather in Paris?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}]),
         EvalCase("rome", prompt="Weather in Rome?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Rome"]}}])]


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
    result = suite_dir.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", "weather.evals.json",
                                 "--eval-model", "replay:weather.cassette.json", "--eval-model", "scripted:x")
    result.stdout.fnmatch_lines(["*paris[[]replay:weather.cassette.json[]]*", "*rome[[]scripted:x[]]*"])


def test_a_suite_without_a_model_says_how_to_give_one(pytester):
    pytester.path.joinpath("bare.evals.json").write_text(json.dumps({"cases": [{"id": "a", "prompt": "p", "expect_no_call": True}]}))
    result = pytester.runpytest("-p", "no:cacheprovider", "bare.evals.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no model to run it with: pass --eval-model MODEL*"])
