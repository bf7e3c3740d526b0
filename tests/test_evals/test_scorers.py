"""Pluggable scorers: ``run_evals(..., scorers=[...], pass_if=...)``; each scorer a column of the
results and the summary; the LLM judge through a real provider SDK, cached like any request."""

from __future__ import annotations

import pytest

from tests.model_servers import model_server, openai_chat  # noqa: F401 - the fixture
from workbench import tool
from workbench.evals import EvalCase, run_evals
from workbench.evals._scorers import judge, text_contains, text_matches
from workbench.models import ScriptedModel


@tool
def get_weather(city: str) -> dict:
    """The weather in a city.

    Args:
        city: The city.
    """
    return {"city": city, "temperature": 21}


PARIS = EvalCase(
    id="paris", prompt="Weather in Paris?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}]
)
LYON = EvalCase(
    id="lyon", prompt="Weather in Lyon?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Lyon"]}}]
)


def _model(city: str, answer: str) -> ScriptedModel:
    return ScriptedModel([{"tool_calls": [{"name": "get_weather", "input": {"city": city}}]}, answer], repeat_last=True)


def _answers(messages, tools):
    """Answers by the city asked about: Paris right (call, then "21 °C in Paris"), Lyon wrong."""
    asked = messages[0]["content"]
    if messages[-1]["role"] == "tool":
        return "It is 21 °C in Paris." if "Paris" in asked else "No idea."
    return {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]}


def test_each_scorer_is_a_column_and_a_case_passes_when_all_do():
    model = ScriptedModel([_answers], repeat_last=True, name="by-city")
    report = run_evals(
        [PARIS, LYON],
        model,
        tools=[get_weather],
        max_turns=3,
        progress=False,
        scorers=["calls", text_contains("21", "Paris"), text_matches(r"\d+ °C")],
    )
    rows = report.results.set_index("case")
    assert rows.loc["paris", ["calls", "text_contains", "text_matches", "passed"]].tolist() == [True, True, True, True]
    assert rows.loc["lyon", ["calls", "text_contains", "text_matches", "passed"]].tolist() == [
        False,
        False,
        False,
        False,
    ]
    reason = rows.loc["lyon", "reason"]
    assert reason.startswith(
        "calls: get_weather: city 'Paris' not in ['Lyon']; text_contains: the final answer 'No idea.'"
    )
    summary = report.summary().iloc[0]
    assert (summary["calls"], summary["text_contains"], summary["text_matches"]) == (0.5, 0.5, 0.5)


def test_pass_if_any_a_name_or_a_function():
    model = ScriptedModel([_answers], repeat_last=True, name="by-city")
    common = dict(tools=[get_weather], max_turns=3, progress=False)
    scorers = ["calls", text_contains("Paris")]
    lyon = EvalCase(
        id="lyon", prompt="Weather in Lyon?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}]
    )
    assert not run_evals([lyon], model, scorers=scorers, **common).results["passed"][0]
    assert run_evals([lyon], model, scorers=scorers, pass_if="any", **common).results["passed"][0]
    assert run_evals([lyon], model, scorers=scorers, pass_if="calls", **common).results["passed"][0]
    assert not run_evals([lyon], model, scorers=scorers, pass_if=lambda s: s["text_contains"].passed, **common).results[
        "passed"
    ][0]
    with pytest.raises(ValueError, match="pass_if='judge' names no scorer of this run"):
        run_evals([lyon], model, scorers=scorers, pass_if="judge", **common)


def test_a_custom_scorer_returns_a_fraction_and_a_reason():
    def short_answer(case, transcript):
        words = len(transcript.final_text.split())
        return (1.0 if words <= 5 else 5 / words), f"{words} words"

    short_answer.threshold = 0.8
    model = ScriptedModel([_answers], repeat_last=True, name="by-city")
    report = run_evals([PARIS], model, tools=[get_weather], max_turns=3, progress=False, scorers=[short_answer])
    row = report.results.iloc[0]
    assert (row["short_answer"], row["passed"], row["reason"]) == (5 / 6, True, "6 words")  # "It is 21 °C in Paris."
    assert report.summary().iloc[0]["short_answer"] == row["short_answer"]


def test_scorer_mistakes_are_named():
    model = _model("Paris", "ok")
    with pytest.raises(ValueError, match="unknown scorer 'exact'; built in: calls, final_state"):
        run_evals([PARIS], model, scorers=["exact"], progress=False)
    with pytest.raises(ValueError, match="two scorers are named 'text_contains'"):
        run_evals([PARIS], model, scorers=[text_contains("a"), text_contains("b")], progress=False)
    with pytest.raises(ValueError, match="may not be named 'passed'"):
        run_evals([PARIS], model, scorers=[text_contains("a", name="passed")], progress=False)

    def broken(case, transcript):
        return 7

    report = run_evals([PARIS], model, scorers=[broken], progress=False)
    assert report.results["reason"][0].startswith("scorer raised TypeError: scorer 'broken' returned 7")


def test_the_judge_grades_through_a_provider_and_is_cached(model_server, tmp_path):  # noqa: F811
    from workbench.models.openai import OpenAIModel

    judge_model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-test-not-a-real-key")
    model_server.script(
        [
            openai_chat(text='Sure: {"score": 0.9, "reason": "answers with the temperature"}'),
            openai_chat(text='{"score": 0.2, "reason": "no temperature given"}'),
        ]
    )
    model = ScriptedModel([_answers], repeat_last=True, name="by-city")
    scorers = [judge(judge_model, "The answer gives the temperature in the city asked about.")]
    cache = tmp_path / "cache.sqlite"
    common = dict(tools=[get_weather], max_turns=3, progress=False, scorers=scorers, cache=cache, concurrency=1)
    first = run_evals([PARIS, LYON], model, **common)
    rows = first.results.set_index("case")
    assert rows.loc["paris", "judge"] == 0.9 and rows.loc["paris", "passed"]
    assert rows.loc["lyon", "judge"] == 0.2 and rows.loc["lyon", "reason"] == "no temperature given"
    assert len(model_server.requests) == 2
    asked = model_server.requests[0].json["messages"][0]["content"]
    assert "The answer gives the temperature" in asked and "assistant called get_weather" in asked
    again = run_evals([PARIS, LYON], model, **common)
    assert len(model_server.requests) == 2, "the judge's answers come from the cache"
    assert again.results.set_index("case")["judge"].to_dict() == {"paris": 0.9, "lyon": 0.2}


def test_a_judge_answer_that_is_no_grade_fails_with_its_text(model_server):  # noqa: F811
    from workbench.models.openai import OpenAIModel

    judge_model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-test-not-a-real-key")
    model_server.script([openai_chat(text="I think it is fine")])
    report = run_evals(
        [PARIS],
        _model("Paris", "21 °C"),
        tools=[get_weather],
        max_turns=3,
        progress=False,
        scorers=[judge(judge_model, "Gives the temperature.")],
    )
    assert report.results["judge"][0] == 0.0
    assert report.results["reason"][0] == "the judge's answer is not a grade: 'I think it is fine'"
