"""Tool-call evaluations: cases, BFCL-rule scoring, runs, reports, cache, variants, files, BFCL import."""

from __future__ import annotations

import json

import pytest

from tests.model_servers import model_server, openai_chat  # noqa: F401 - the fixture
from tests.weather_tools import get_weather
from workbench import ToolRegistry, tool
from workbench.evals import (
    EvalCase,
    EvalSuite,
    load_bfcl,
    load_evals,
    mcnemar_exact,
    pass_at_k,
    pass_hat_k,
    run_evals,
    save_evals,
    score_calls,
)
from workbench.models import ScriptedModel


@tool
def book_flight(origin: str, destination: str, passengers: int = 1) -> str:
    """Book a flight."""
    return f"booked {origin}-{destination}"


SCHEMAS = {t.spec.name: t.spec.parameters for t in (get_weather, book_flight)}
PARIS = [{"name": "get_weather", "arguments": {"city": ["Paris", "paris, fr"], "units": ["metric", ""]}}]


def use(name, **arguments):
    return {"toolUseId": name, "name": name, "input": arguments}


# -- scoring ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "calls, passed, reason",
    [
        ([use("get_weather", city="Paris")], True, ""),
        ([use("get_weather", city="PARIS, fr", units="metric")], True, ""),  # BFCL's normalisation, optional given
        ([use("get_weather", city="Lyon")], False, "get_weather: city 'Lyon' not in ['Paris', 'paris, fr']"),
        (
            [use("get_weather", city="Paris", units="imperial")],
            False,
            "get_weather: units 'imperial' not in ['metric', '']",
        ),
        ([use("get_weather", city="Paris", when="now")], False, "get_weather: unexpected argument when"),
        ([use("get_weather", units="metric")], False, "get_weather: missing required argument city"),
        ([use("book_flight", origin="a", destination="b")], False, "missing call: get_weather"),
        ([], False, "no call made; missing call: get_weather"),
        (
            [use("get_weather", city="Paris"), use("get_weather", city="Paris")],
            False,
            "expected 1 call(s), got 2 (unexpected call: get_weather)",
        ),
    ],
)
def test_arguments_are_scored_by_bfcl_rules(calls, passed, reason):
    verdict = score_calls(calls, PARIS, SCHEMAS)
    assert (verdict.passed, verdict.reason) == (passed, reason)


def test_numbers_lists_and_objects_follow_bfcl():
    schemas = {
        "f": {
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object"},
                "n": {"type": "integer"},
            },
            "required": ["x"],
        }
    }
    expected = [{"name": "f", "arguments": {"x": [2.0], "tags": [["A b", "c"]], "opts": [{"k": ["V"]}], "n": [3, ""]}}]
    assert score_calls(
        [use("f", x=2, tags=["a-B", "C"], opts={"k": "v"})], expected, schemas
    ).passed  # int where number
    assert not score_calls(
        [use("f", x=2.0, tags=["c", "a b"], opts={"k": "v"})], expected, schemas
    ).passed  # list order
    assert not score_calls([use("f", x=2.0, tags=["a b", "c"], opts={"k": "v", "z": 1})], expected, schemas).passed
    assert not score_calls([use("f", x=2.0, tags=["a b", "c"], opts={"k": "v"}, n=3.0)], expected, schemas).passed
    assert not score_calls(
        [use("f", x=True, tags=["a b", "c"], opts={"k": "v"})], expected, schemas
    ).passed  # bool ≠ number


def test_parallel_order_any_and_exact():
    expected = [
        {"name": "get_weather", "arguments": {"city": ["Paris"]}},
        {"name": "get_weather", "arguments": {"city": ["Rome"]}},
    ]
    calls = [use("get_weather", city="Rome"), use("get_weather", city="Paris")]
    assert score_calls(calls, expected, SCHEMAS, order="any").passed
    exact = score_calls(calls, expected, SCHEMAS, order="exact")
    assert not exact.passed and exact.reason == "get_weather: city 'Rome' not in ['Paris']"


def test_irrelevance_and_tool_selection_counts():
    verdict = score_calls([use("get_weather", city="Paris")], [], SCHEMAS, expect_no_call=True)
    assert not verdict.passed and verdict.reason == "expected no call, got get_weather(city='Paris')"
    assert verdict.false_positives == 1
    assert score_calls([], [], SCHEMAS, expect_no_call=True).passed
    mixed = score_calls([use("book_flight", origin="a", destination="b")], PARIS, SCHEMAS)
    assert (mixed.true_positives, mixed.false_positives, mixed.false_negatives) == (0, 1, 1)


def test_two_models_with_one_id_are_refused():
    with pytest.raises(ValueError, match="two models have the id 'scripted:weather'"):
        run_evals(CASES, [weather_model(), weather_model()], tools=[get_weather], progress=False)


def test_case_checks_its_own_shape():
    with pytest.raises(ValueError, match="exactly one of prompt= or messages="):
        EvalCase("x")
    with pytest.raises(ValueError, match="contradict"):
        EvalCase("x", prompt="p", expect_calls=PARIS, expect_no_call=True)
    with pytest.raises(ValueError, match="order must be"):
        EvalCase("x", prompt="p", order="sorted")
    assert EvalCase("x", prompt="p", expect_calls=[{"name": "f", "arguments": {"n": 1}}]).expected[0].arguments == {
        "n": [1]
    }


# -- statistics ------------------------------------------------------------------------------------


def test_pass_at_k_and_pass_hat_k():
    assert pass_at_k(3, 0, 3) == 0.0 and pass_at_k(3, 1, 3) == 1.0 and pass_hat_k(3, 2, 3) == 0.0
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - (3 * 2) / (5 * 4))  # 1 - C(3,2)/C(5,2)
    assert pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_mcnemar_exact():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 2**10)
    assert mcnemar_exact(6, 2) == pytest.approx(2 * (1 + 8 + 28) / 256)
    assert mcnemar_exact(3, 3) == 1.0


# -- running ---------------------------------------------------------------------------------------


def weather_model(city_for_paris="Paris", name="weather"):
    """Calls get_weather for a prompt naming a city, answers in text otherwise (stateless: any order)."""

    def answer(messages, tools):
        text = messages[-1]["content"] if isinstance(messages[-1].get("content"), str) else ""
        if messages[-1]["role"] == "tool":
            return "It is 21 degrees."
        for city in ("Paris", "Rome"):
            if city in text:
                return {
                    "tool_calls": [
                        {"name": "get_weather", "input": {"city": city_for_paris if city == "Paris" else city}}
                    ]
                }
        return "Hello!"

    return ScriptedModel([answer], repeat_last=True, name=name)


CASES = [
    EvalCase("paris", prompt="Weather in Paris?", expect_calls=PARIS),
    EvalCase(
        "rome", prompt="Weather in Rome?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Rome"]}}]
    ),
    EvalCase("hello", prompt="Say hello", expect_no_call=True),
]


def test_report_rows_summary_and_failures():
    report = run_evals(
        CASES, [weather_model(), weather_model("Lyon", name="lyon")], tools=[get_weather, book_flight], progress=False
    )
    df = report.results
    assert len(df) == 6 and set(df.columns) >= {
        "case",
        "model",
        "variant",
        "repeat",
        "passed",
        "reason",
        "expected",
        "actual",
        "true_positives",
        "arguments_ok",
        "turns",
        "latency_ms",
        "input_tokens",
        "output_tokens",
        "cached",
    }
    summary = report.summary()
    assert list(summary["accuracy"]) == [1.0, pytest.approx(2 / 3)]
    assert list(summary["irrelevance_accuracy"]) == [1.0, 1.0]
    assert list(summary["argument_accuracy"]) == [1.0, 0.5]
    assert report.failures()["reason"].tolist() == ["get_weather: city 'Lyon' not in ['Paris', 'paris, fr']"]


def test_repeats_give_pass_at_k_and_pass_hat_k():
    flaky = iter([True, False, True, True, True, True])

    def answer(messages, tools):
        good = next(flaky)
        return {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris" if good else "Oslo"}}]}

    report = run_evals(
        CASES[:1] + [EvalCase("paris2", prompt="Paris weather", expect_calls=PARIS)],
        ScriptedModel([answer], repeat_last=True),
        tools=[get_weather],
        repeats=3,
        concurrency=1,
        progress=False,
    )
    row = report.summary().iloc[0]
    assert row["k"] == 3 and row["pass@3"] == 1.0 and row["pass^3"] == 0.5 and row["accuracy"] == pytest.approx(5 / 6)


def test_variants_are_compared_with_mcnemar_and_their_spec_diff():
    @tool(name="get_weather")
    def vague(city: str, units: str = "metric") -> dict:
        """Weather."""
        return {}

    def answer(messages, tools):  # the model only calls the tool when its description says what it does
        described = "city" in tools[0].description
        return {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]} if described else "I cannot."

    cases = [EvalCase(f"c{i}", prompt=f"Paris weather {i}", expect_calls=PARIS) for i in range(12)]
    report = run_evals(
        cases,
        ScriptedModel([answer], repeat_last=True),
        progress=False,
        variants={"before": ToolRegistry([vague]), "after": ToolRegistry([get_weather])},
    )
    comparison = report.compare("before", "after")
    assert (comparison.wins, comparison.losses, comparison.cases) == (12, 0, 12)
    assert comparison.p_value == pytest.approx(2 / 2**12) and "better" in str(comparison)
    diff = report.spec_diffs[("before", "after")]
    assert "description" in str(diff)
    assert "Spec changes before" in report._repr_html_()


def test_multi_turn_cases_run_the_tools_and_the_check_sees_the_transcript(tmp_path):
    from workbench import ExecutionLog

    log = ExecutionLog(tmp_path / "evals.sqlite")
    seen = []

    def check(transcript):
        seen.append(transcript.final_text)
        return True if "21" in transcript.final_text else "final answer lacks the temperature"

    cases = [EvalCase("paris", prompt="Weather in Paris?", expect_calls=PARIS, check=check)]
    report = run_evals(cases, weather_model(), tools=[get_weather], max_turns=3, log=log, progress=False)
    assert report.results["passed"].tolist() == [True] and seen == ["It is 21 degrees."]
    assert report.results["turns"].tolist() == [2]
    runs = log.runs()
    assert len(runs) == 1 and log.to_dataframe()["tool_name"].tolist() == ["get_weather"]
    failing = [
        EvalCase(
            "rome",
            prompt="Weather in Rome?",
            expect_calls=[{"name": "get_weather", "arguments": {"city": ["Rome"]}}],
            check=lambda t: "wanted a haiku",
        )
    ]
    assert run_evals(failing, weather_model(), tools=[get_weather], max_turns=3, progress=False).failures()[
        "reason"
    ].tolist() == ["wanted a haiku"]


def test_cache_answers_an_unchanged_suite_without_requests(model_server, tmp_path):  # noqa: F811
    from workbench.models.openai import OpenAIModel

    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-test-not-a-real-key")
    model_server.script(
        [
            openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]),
            openai_chat(tool_calls=[("get_weather", {"city": "Rome"})]),
        ]
    )
    cache = tmp_path / "evals.sqlite"
    first = run_evals(CASES[:2], model, tools=[get_weather], cache=cache, concurrency=1, progress=False)
    assert first.results["passed"].tolist() == [True, True] and len(model_server.requests) == 2
    sent = model_server.requests[0].json
    assert sent["tools"][0]["function"]["name"] == "get_weather"
    second = run_evals(CASES[:2], model, tools=[get_weather], cache=cache, progress=False)
    assert len(model_server.requests) == 2, "the second run reached the server"
    assert second.cache_hits == 2 and second.results["cached"].all()
    assert second.results["passed"].tolist() == [True, True]
    assert b"sk-test-not-a-real-key" not in cache.read_bytes()


def test_interrupting_keeps_every_finished_result():
    class CancelAfterTwo:
        cancelled = False
        done = 0

        def advance(self, count, failures):
            self.done += count
            self.cancelled = self.done >= 2

        def close(self):
            pass

    cases = [EvalCase(f"c{i}", prompt="Paris", expect_calls=PARIS) for i in range(10)]
    report = run_evals(cases, weather_model(), tools=[get_weather], concurrency=1, progress=CancelAfterTwo())
    assert report.interrupted and len(report.results) == 2 and report.results["passed"].all()
    assert "interrupted" in repr(report)


def test_suite_files_round_trip_and_run(tmp_path):
    (tmp_path / "weather_tools.py").write_text(
        "from workbench import tool\n\n@tool\ndef get_weather(city: str, units: str = 'metric') -> dict:\n"
        "    '''The weather in a city.'''\n    return {'t': 1}\n"
    )
    suite = EvalSuite("weather", cases=CASES, tools=["weather_tools.py"])
    path = save_evals(suite, tmp_path / "weather.evals.json")
    loaded = load_evals(path)
    assert [c.to_dict() for c in loaded.cases] == [c.to_dict() for c in CASES]
    report = run_evals(path, weather_model(), progress=False)
    assert report.results["passed"].all()
    (tmp_path / "bad.evals.json").write_text(json.dumps({"cases": [{"id": "x", "prompt": "p", "colour": 1}]}))
    with pytest.raises(ValueError, match=r"bad.evals.json: eval case 'x': unknown keys \['colour'\]"):
        load_evals(tmp_path / "bad.evals.json")


def test_report_html_is_escaped():
    case = EvalCase("<script>alert(1)</script>", prompt="Paris", expect_calls=PARIS)
    html = run_evals(
        [case], ScriptedModel(["<script>x</script>"], repeat_last=True), tools=[get_weather], progress=False
    )._repr_html_()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html and "<svg" in html


def test_dask_runs_the_jobs_on_workers():
    from workbench import ExecutionLog
    from workbench.dask import DaskExecutor

    log = ExecutionLog()
    with DaskExecutor(n_workers=2) as executor:
        report = run_evals(
            CASES, weather_model(), tools=[get_weather], executor=executor, repeats=4, log=log, progress=False
        )
        looped = run_evals(CASES, weather_model(), tools=[get_weather], executor=executor, max_turns=3, progress=False)
    assert len(report.results) == 12 and report.results["passed"].all()
    assert len(log.runs()) == 12
    # multi-turn jobs ran the tool on the workers: the model saw its result and answered
    assert looped.results["passed"].all() and looped.results["turns"].tolist() == [2, 2, 1]
    assert {t.final_text for t in looped.transcripts.values()} == {"It is 21 degrees.", "Hello!"}


# -- BFCL ------------------------------------------------------------------------------------------


def test_load_bfcl_normalises_its_dialect():
    suite = load_bfcl("simple_python", limit=5)
    assert len(suite) == 5 and suite.cases[1].tools[0]["name"] == "math_factorial"
    params = suite.cases[0].tools[0]["parameters"]
    assert params["type"] == "object" and params["properties"]["base"]["type"] == "integer"
    assert suite.cases[0].expected[0].arguments["unit"] == ["units", ""]
    irrelevance = load_bfcl("irrelevance", limit=3)
    assert all(c.expect_no_call for c in irrelevance)
    for category in (
        "multiple",
        "parallel",
        "parallel_multiple",
        "live_simple",
        "live_multiple",
        "live_parallel",
        "live_parallel_multiple",
        "live_irrelevance",
    ):
        assert len(load_bfcl(category, limit=2)) == 2
    types = {json.dumps(s["parameters"]) for c in load_bfcl("live_multiple") for s in c.tools}
    assert not any('"type": "dict"' in t or '"type": "float"' in t or '"type": "tuple"' in t for t in types)
    with pytest.raises(ValueError, match="unknown BFCL category"):
        load_bfcl("nope")


def test_bfcl_ground_truth_through_a_model_passes():
    suite = load_bfcl("parallel", limit=10)

    def answer_truth(messages, tools):
        case = next(c for c in suite if c.messages == [m for m in messages if m["role"] != "system"])
        return {
            "tool_calls": [
                {"name": e.name, "input": {k: v[0] for k, v in e.arguments.items() if v[0] != ""}}
                for e in reversed(case.expected)
            ]
        }

    report = run_evals(suite, ScriptedModel([answer_truth], repeat_last=True), progress=False)
    assert report.results["passed"].all(), report.failures()


def test_ctrl_c_keeps_finished_results():
    count = iter(range(100))

    def answer(messages, tools):
        if next(count) == 3:
            raise KeyboardInterrupt
        return {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]}

    cases = [EvalCase(f"c{i}", prompt="Paris", expect_calls=PARIS) for i in range(10)]
    report = run_evals(
        cases, ScriptedModel([answer], repeat_last=True), tools=[get_weather], concurrency=1, progress=False
    )
    assert report.interrupted and len(report.results) == 3 and report.results["passed"].all()


KILLED_RUN = """
import sys, time
sys.path.insert(0, {root!r})
from tests.test_evals.test_evals import EvalCase, PARIS, get_weather
from workbench.evals import run_evals
from workbench.models import ScriptedModel

def slow(messages, tools):
    time.sleep(0.3)
    return {{"tool_calls": [{{"name": "get_weather", "input": {{"city": "Paris"}}}}]}}

cases = [EvalCase(f"c{{i}}", prompt=f"Paris {{i}}", expect_calls=PARIS) for i in range(40)]
print("started", flush=True)
run_evals(cases, ScriptedModel([slow], repeat_last=True, name="slow"), tools=[get_weather], concurrency=1,
          cache={cache!r}, progress=False)
"""


def test_a_killed_run_continues_from_its_file_cache(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from workbench.evals import RequestCache

    cache = tmp_path / "evals.sqlite"
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN.format(root=root, cache=str(cache))], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not cache.exists() or len(RequestCache(cache)) < 3):
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    finished = len(RequestCache(cache))
    assert 3 <= finished < 40

    def fast(messages, tools):
        return {"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]}

    cases = [EvalCase(f"c{i}", prompt=f"Paris {i}", expect_calls=PARIS) for i in range(40)]
    report = run_evals(
        cases, ScriptedModel([fast], repeat_last=True, name="slow"), tools=[get_weather], cache=cache, progress=False
    )
    assert report.cache_hits == finished and report.results["passed"].all()


def test_provider_errors_are_reported_per_row(model_server):  # noqa: F811
    from tests.model_servers import error_reply
    from workbench.models.openai import OpenAIModel

    model = OpenAIModel(
        "gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-test-not-a-real-key", max_retries=0
    )
    model_server.script(
        [
            error_reply("openai", 429, "Rate limit reached", code="rate_limit_exceeded"),
            openai_chat(tool_calls=[("get_weather", {"city": "Rome"})]),
        ]
    )
    report = run_evals(CASES[:2], model, tools=[get_weather], concurrency=1, progress=False)
    first = report.results.iloc[0]
    assert not first["passed"] and first["model_error"] == "rate_limit" and first["reason"].startswith("model error:")
    assert "openai" in first["reason"] and "sk-test" not in first["reason"]
    assert report.summary()["rate_limited"].tolist() == [1]


def test_add_eval_case_creates_and_extends_a_suite(tmp_path):
    from workbench.evals import add_eval_case

    path = tmp_path / "saved.evals.json"
    add_eval_case(path, CASES[0], tools=["weather_tools"])
    add_eval_case(path, CASES[1], tools=["weather_tools", "more_tools"])
    add_eval_case(path, EvalCase("paris", prompt="changed", expect_no_call=True))
    suite = load_evals(path)
    assert [c.id for c in suite.cases] == ["rome", "paris"] and suite.tools == ["weather_tools", "more_tools"]
    assert suite.cases[1].prompt == "changed"
