"""Results that last (issue 27): a report saved to one file loads back into the same tables, views and
comparisons; two reports compare into regressions and fixes; secrets never reach the file."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.model_servers import model_server, openai_chat  # noqa: F401 - the fixture
from tests.weather_tools import get_weather
from workbench import ToolRegistry, tool
from workbench.evals import EvalCase, EvalReport, EvalReportFileError, EvalSuite, compare_reports, run_evals
from workbench.evals._provenance import specs_hash
from workbench.models import ScriptedModel


@tool(name="get_weather")
def get_weather_terse(city: str, units: str = "metric") -> dict:
    """Weather."""
    return {}


CITIES = ["Paris", "Rome", "Oslo", "Lisbon", "Vienna", "Prague"]
CASES = [
    EvalCase(f"city-{c}", prompt=f"Weather in {c}?", expect_calls=[{"name": "get_weather", "arguments": {"city": [c]}}])
    for c in CITIES
] + [EvalCase("hello", prompt="Say hello", expect_no_call=True)]


def city_model(wrong=(), name="cities"):
    """Calls get_weather for the city named (a wrong city for those in ``wrong``); text when there is none.
    A terse tool description makes it skip Lisbon (so variants differ)."""

    def answer(messages, tools):
        text = messages[-1]["content"]
        city = next((c for c in CITIES if c in text), None)
        if city is None or (city == "Lisbon" and "city" not in tools[0].description):
            return "Hello!"
        return {"tool_calls": [{"name": "get_weather", "input": {"city": "Atlantis" if city in wrong else city}}]}

    return ScriptedModel([answer], repeat_last=True, name=name)


def full_report(**options):
    return run_evals(
        EvalSuite("weather", cases=CASES),
        [city_model(), city_model(wrong={"Oslo", "Rome"}, name="sloppy")],
        variants={"terse": ToolRegistry([get_weather_terse]), "documented": ToolRegistry([get_weather])},
        repeats=2,
        progress=False,
        temperature=0.0,
        **options,
    )


def test_a_saved_report_loads_into_the_same_tables_views_and_comparisons(tmp_path):
    report = full_report()
    path = report.save(tmp_path / "run.evalreport.json")
    loaded = EvalReport.load(path)
    pd.testing.assert_frame_equal(loaded.results, report.results)
    pd.testing.assert_frame_equal(loaded.summary(), report.summary())
    pd.testing.assert_frame_equal(loaded.failures(), report.failures())
    pd.testing.assert_frame_equal(loaded.failure_reasons(), report.failure_reasons())
    for a, b in [("terse", "documented"), ("scripted:cities", "scripted:sloppy")]:
        assert loaded.compare(a, b) == report.compare(a, b)
    assert loaded._repr_html_() == report._repr_html_() and repr(loaded) == repr(report)
    assert str(loaded.spec_diffs[("terse", "documented")]) == str(report.spec_diffs[("terse", "documented")])
    assert {k: t.to_dict() for k, t in loaded.transcripts.items()} == {
        k: t.to_dict() for k, t in report.transcripts.items()
    }
    assert set(loaded.transcripts) == set(report.results["run_id"]) and len(loaded.transcripts) == 56
    # how it was made
    data = json.loads(path.read_text())
    assert data["format"] == "workbench.eval-report/1" and data["created_at"] == report.created_at
    assert [m["id"] for m in data["models"]] == ["scripted:cities", "scripted:sloppy"]
    assert data["models"][0]["params"] == {"temperature": 0.0} and data["settings"]["repeats"] == 2
    for name, registry in (("terse", [get_weather_terse]), ("documented", [get_weather])):
        specs = data["variants"][name]["specs"]
        assert [s["name"] for s in specs] == ["get_weather"] and data["variants"][name]["hash"] == specs_hash(specs)
        assert specs[0]["description"] == registry[0].spec.description
    assert data["variants"]["terse"]["hash"] != data["variants"]["documented"]["hash"]
    assert data["suite"]["name"] == "weather" and [c["id"] for c in data["suite"]["cases"]] == [c.id for c in CASES]
    assert {"python", "tool-workbench", "pandas", "pydantic"} <= set(data["versions"])
    assert loaded.models == report.models and loaded.variants == report.variants and loaded.versions == report.versions


def test_a_saved_report_holds_no_key(model_server, tmp_path):  # noqa: F811
    """The attack: a tool hands the model's key back into the conversation, and a secret-named model
    parameter holds another secret; both are in the run's transcript in memory. Neither reaches the file."""
    from workbench.models.openai import OpenAIModel

    key = "saved-report-test-credential-0123456789abcdef"  # any shape: masked as the model's own key

    @tool
    def whoami() -> str:
        """Which account the agent runs as."""
        return f"you are using {key}"

    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key=key)
    model_server.script([openai_chat(tool_calls=[("whoami", {})]), openai_chat(text="done")])
    case = EvalCase("who", prompt="Who am I?", expect_calls=[{"name": "whoami", "arguments": {}}])
    report = run_evals(
        [case], model, tools=[whoami], max_turns=2, progress=False, extra_headers={"X-Api-Key": "hunter2-header-secret"}
    )
    in_memory = json.dumps(report.transcripts[report.results["run_id"][0]].to_dict())
    assert key in in_memory and "hunter2-header-secret" in in_memory  # the run really holds them
    path = report.save(tmp_path / "keyed.json")
    text = path.read_text()
    assert key not in text and "hunter2-header-secret" not in text and "you are using ***" in text
    loaded = EvalReport.load(path)
    assert loaded.models[0]["params"]["extra_headers"] == {"X-Api-Key": "***"}
    assert loaded.results["passed"].tolist() == [True] and loaded.secrets == []


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not JSON"),
        ('{"rows": []}', "not a saved evaluation report"),
        ('{"format": "workbench.transcript/1", "run_id": "x"}', "not a saved evaluation report"),
        ('{"format": "workbench.eval-report/2", "rows": []}', "newer tool-workbench"),
        (
            '{"format": "workbench.eval-report/1", "columns": ["case"], "rows": [["a", "b"]], "transcripts": []}',
            r"row 0 does not have the 1 columns",
        ),
        ("[1, 2]", "not a saved evaluation report"),
    ],
)
def test_a_bad_or_newer_file_is_refused_by_name(tmp_path, content, message):
    path = tmp_path / "odd.json"
    path.write_text(content)
    with pytest.raises(EvalReportFileError, match=message) as caught:
        EvalReport.load(path)
    assert str(path) in str(caught.value)
    with pytest.raises(EvalReportFileError, match="no such evaluation report"):
        EvalReport.load(tmp_path / "missing.json")


def test_compare_reports_finds_regressions_and_fixes(tmp_path):
    tools = [get_weather]
    yesterday = run_evals(CASES, city_model(wrong={"Oslo"}, name="m"), tools=tools, repeats=2, progress=False)
    yesterday = EvalReport.load(yesterday.save(tmp_path / "yesterday.json"))  # yesterday's run, from its file
    today = run_evals(CASES, city_model(wrong={"Rome", "Vienna"}, name="m"), tools=tools, repeats=2, progress=False)
    change = compare_reports(yesterday, today)
    assert change.regressions[["case", "old_pass_rate", "new_pass_rate"]].values.tolist() == [
        ["city-Rome", 1.0, 0.0],
        ["city-Vienna", 1.0, 0.0],
    ]
    assert change.regressions["reason"].tolist() == [
        "get_weather: city 'Atlantis' not in ['Rome']",
        "get_weather: city 'Atlantis' not in ['Vienna']",
    ]
    assert change.fixes["case"].tolist() == ["city-Oslo"]
    stats = change.comparisons[("scripted:m", "default")]
    # 7 cases: Rome and Vienna -1, Oslo +1; the sign-flip test of (-1, -1, +1): |S| >= 1 always -> p = 1
    assert (stats.cases, stats.wins, stats.losses, stats.ties, stats.p_value) == (7, 1, 2, 4, 1.0)
    assert stats.difference == pytest.approx(-1 / 7)
    assert change.statistics["losses"].tolist() == [2]
    assert "2 regression(s), 1 fix(es)" in str(change) and "city-Rome" in str(change)
    assert compare_reports(today, today).regressions.empty and not change.only_old and not change.only_new
    shorter = run_evals(CASES[:3], city_model(name="m"), tools=tools, progress=False)
    assert [c for c, _, _ in compare_reports(today, shorter).only_old] == sorted(c.id for c in CASES[3:])


def test_to_html_writes_one_self_contained_page(tmp_path):
    report = full_report()
    page = report.to_html(tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "Paired by case" in page
    assert "<script" not in page and "http://" not in page and "https://" not in page and " src=" not in page
    loaded = EvalReport.load(report.save(tmp_path / "r.json"))
    assert loaded.to_html(tmp_path / "again.html").read_text() == page
