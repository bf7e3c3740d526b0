"""Evaluations of a tool with a secret parameter (``SecretStr`` named ``pin``): the model's value is scored as
it was sent (a right PIN passes, a wrong one fails), and it is in none of the report's rows, its saved file,
its HTML page, its transcripts or the execution log — run locally through the real OpenAI SDK against the
local wire-format server, and on Dask workers (whose transcripts the client logs itself)."""

from __future__ import annotations

import json

from pydantic import SecretStr

from tests.model_servers import model_server, openai_chat  # noqa: F401 - model_server is a fixture
from workbench import ExecutionLog, tool
from workbench.evals import EvalCase, run_evals
from workbench.models import ScriptedModel
from workbench.models.openai import OpenAIModel

PIN = "pin-8842-secret"
WRONG = "pin-0000-wrong"


@tool
def unlock(door: str, pin: SecretStr) -> str:
    """Unlock a door with its PIN."""
    return f"{door} unlocked"


CASES = [
    EvalCase(
        "right",
        prompt="Open the front door, PIN in the vault",
        expect_calls=[{"name": "unlock", "arguments": {"door": ["front"], "pin": [PIN]}}],
    ),
    EvalCase(
        "wrong",
        prompt="Open the back door, PIN in the vault",
        expect_calls=[{"name": "unlock", "arguments": {"door": ["back"], "pin": [PIN]}}],
    ),
]


def _files_of(report, tmp_path) -> str:
    saved = report.save(tmp_path / "report.json").read_text()
    page = report.to_html(tmp_path / "report.html").read_text()
    return "\n".join(
        [
            saved,
            page,
            report.results.to_csv(),
            report._repr_html_(),
            *(t.to_json() for t in report.transcripts.values()),
        ]
    )


def test_a_single_turn_evaluation_scores_the_secret_and_masks_it_everywhere(model_server, tmp_path):
    model_server.script(
        [
            openai_chat(tool_calls=[("unlock", {"door": "front", "pin": PIN}, "c1")]),
            openai_chat(tool_calls=[("unlock", {"door": "back", "pin": WRONG}, "c2")]),
        ]
    )
    model = OpenAIModel("gpt-4.1-mini", base_url=model_server.url + "/v1", api_key="sk-FAKE-evals-secrets")
    report = run_evals(CASES, model, tools=[unlock], concurrency=1, progress=False)
    assert report.results.set_index("case")["passed"].to_dict() == {"right": True, "wrong": False}
    assert report.results.set_index("case")["reason"]["wrong"] == (
        "unlock: pin is not an expected value (a secret: values not shown)"
    )
    assert json.loads(report.results.set_index("case")["actual"]["right"]) == [
        {"name": "unlock", "arguments": {"door": "front", "pin": "***"}}
    ]
    text = _files_of(report, tmp_path)
    assert WRONG not in text
    # the right PIN is the suite's own expected value (its author wrote it): only there
    saved = json.loads((tmp_path / "report.json").read_text())
    saved.pop("suite", None)
    rows = [dict(zip(saved["columns"], row)) for row in saved["rows"]]
    for row in rows:
        row.pop("expected")
    assert PIN not in json.dumps([saved["transcripts"], rows])


def scripted():
    def answer(messages, _tools):
        if messages[-1]["role"] == "tool":
            return "done"
        door = "front" if "front" in messages[-1]["content"] else "back"
        return {"tool_calls": [{"name": "unlock", "input": {"door": door, "pin": PIN if door == "front" else WRONG}}]}

    return ScriptedModel([answer], repeat_last=True)


def test_an_evaluation_on_dask_logs_its_transcripts_masked(tmp_path):
    from workbench.dask import DaskExecutor

    path = tmp_path / "runs.sqlite"
    log = ExecutionLog(path)
    with DaskExecutor(n_workers=1) as executor:
        report = run_evals(CASES, scripted(), tools=[unlock], executor=executor, max_turns=2, log=log, progress=False)
    assert report.results.set_index("case")["passed"].to_dict() == {"right": True, "wrong": False}
    assert [r["input"]["pin"] for r in log.rows()] == ["***", "***"]
    log.close()
    assert PIN.encode() not in path.read_bytes() and WRONG.encode() not in path.read_bytes()
    assert WRONG not in _files_of(report, tmp_path)
