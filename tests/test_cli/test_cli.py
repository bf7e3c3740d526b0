"""The ``workbench`` command, run as a subprocess as CI runs it: exit codes, output and files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from tests.model_servers import model_server, openai_chat  # noqa: F401 - fixture
from tests.weather_tools import PARIS_AND_ROME, TOOLS_MODULE
from workbench.evals import EvalSuite, run_evals, save_evals
from workbench.models import ScriptedModel, record

TOOLS, CASES = TOOLS_MODULE, PARIS_AND_ROME

ROOT = Path(workbench.__file__).resolve().parent.parent


def _answer(messages, tools):
    city = "Paris" if "Paris" in messages[-1]["content"] else "Lyon"  # wrong for Rome
    return {"tool_calls": [{"name": "get_weather", "input": {"city": city}}]}


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def workbench_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120
    )


#: the suite's tool module: a name of its own, since the tutorials' ``weather_tools`` is imported by other tests
TOOLS_NAME = "cli_weather_tools"


@pytest.fixture
def suite(tmp_path, monkeypatch):
    """weather.evals.json beside its tool module and a cassette in which Paris passes and Rome fails."""
    (tmp_path / f"{TOOLS_NAME}.py").write_text(TOOLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, TOOLS_NAME, raising=False)  # imported by this test only, gone after it
    path = save_evals(
        EvalSuite("weather", cases=CASES, tools=[TOOLS_NAME], model="replay:weather.cassette.json"),
        tmp_path / "weather.evals.json",
    )
    run_evals(
        path,
        record(ScriptedModel([_answer], repeat_last=True, name="recorded"), tmp_path / "weather.cassette.json"),
        progress=False,
    )
    yield path
    sys.modules.pop(TOOLS_NAME, None)


def test_a_run_prints_the_summary_and_exits_0_when_the_threshold_holds(suite):
    done = workbench_cli("eval", suite.name, "--min-pass", "0.5", cwd=suite.parent)
    assert done.returncode == 0, done.stderr
    assert "accuracy" in done.stdout and "0.500" in done.stdout  # one of the two cases passes
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


def test_a_threshold_that_does_not_hold_exits_1_and_says_which(suite):
    done = workbench_cli(
        "eval", suite.name, "--model", "replay:weather.cassette.json", "--min-pass", "0.9", cwd=suite.parent
    )
    assert done.returncode == 1, done.stderr
    assert "below --min-pass 0.9" in done.stdout and "accuracy 0.500" in done.stdout


@pytest.mark.parametrize(
    "args, said",
    [
        (["eval", "missing.evals.json"], "missing.evals.json: no such file"),
        (["eval", "broken.evals.json"], "broken.evals.json"),
        (["eval", "weather.evals.json", "--model", "nosuchprovider:x"], "model 'nosuchprovider:x'"),
        (["eval", "weather.evals.json", "--repeats", "0"], "expected a positive integer"),
        (["eval", "weather.evals.json", "--min-pass", "2"], "expected a number from 0 to 1"),
        (["eval"], "give a suite file"),
    ],
)
def test_usage_errors_exit_2_with_one_line(suite, args, said):
    (suite.parent / "broken.evals.json").write_text('{"cases": [')
    done = workbench_cli(*args, cwd=suite.parent)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") <= 1  # argparse's usage line may precede its error line


def test_an_unreachable_server_is_one_line_and_exit_2(suite):
    done = workbench_cli(
        "eval", suite.name, "--model", "openai:gpt-4.1-mini", "--base-url", "http://127.0.0.1:9/v1", cwd=suite.parent
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "cannot reach" in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0


def test_an_openai_compatible_server_needs_a_base_url_and_no_key(suite, model_server):
    model_server.always(openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]))
    done = workbench_cli(
        "eval", suite.name, "--model", "openai:local-model", "--base-url", model_server.url + "/v1", cwd=suite.parent
    )
    assert done.returncode == 0, done.stderr
    assert len(model_server.requests) == 2  # one per case
    assert model_server.requests[0].path == "/v1/chat/completions"
    assert "local-model" in done.stdout


def test_python_dash_m_workbench_and_the_console_script_agree(suite):
    help_text = workbench_cli("eval", "--help", cwd=suite.parent)
    assert help_text.returncode == 0 and "--min-pass" in help_text.stdout and "--compare" in help_text.stdout
    script = Path(sys.executable).parent / "workbench"  # installed by pip from [project.scripts]
    assert script.exists(), f"{script} is missing: the package's console script was not installed"
    console = subprocess.run(
        [str(script), "eval", suite.name, "--min-pass", "0.9"],
        cwd=suite.parent,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    module = workbench_cli("eval", suite.name, "--min-pass", "0.9", cwd=suite.parent)
    assert console.returncode == module.returncode == 1
    assert console.stdout == module.stdout


def _right(messages, tools):
    city = "Paris" if "Paris" in messages[-1]["content"] else "Rome"
    return {"tool_calls": [{"name": "get_weather", "input": {"city": city}}]}


def test_save_and_html_write_the_report_and_compare_finds_the_regression(suite):
    folder = suite.parent
    # yesterday's model answered both cases; today's cassette gets Rome wrong
    run_evals(
        suite,
        record(ScriptedModel([_right], repeat_last=True, name="recorded"), folder / "old.cassette.json"),
        progress=False,
    )
    old = workbench_cli("eval", suite.name, "--model", "replay:old.cassette.json", "--save", "old.json", cwd=folder)
    new = workbench_cli("eval", suite.name, "--save", "new.json", "--html", "new.html", cwd=folder)
    assert old.returncode == new.returncode == 0, (old.stderr, new.stderr)
    from workbench.evals import EvalReport

    assert EvalReport.load(folder / "new.json").summary()["accuracy"].tolist() == [0.5]
    page = (folder / "new.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "<svg" in page

    compared = workbench_cli("eval", "--compare", "old.json", "new.json", cwd=folder)
    assert compared.returncode == 1, compared.stderr
    assert "1 regression(s)" in compared.stdout and "regressed: rome" in compared.stdout

    same = workbench_cli("eval", "--compare", "new.json", "new.json", cwd=folder)
    assert same.returncode == 0 and "0 regression(s)" in same.stdout

    fixed = workbench_cli("eval", "--compare", "new.json", "old.json", cwd=folder)
    assert fixed.returncode == 0 and "fixed: rome" in fixed.stdout


def test_compare_of_a_file_that_is_not_a_report_is_a_usage_error(suite):
    (suite.parent / "notes.json").write_text('{"hello": 1}')
    done = workbench_cli("eval", "--compare", "notes.json", "missing.json", cwd=suite.parent)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "notes.json" in done.stderr or "missing.json" in done.stderr


def test_a_suite_model_object_runs_from_the_terminal(suite, model_server):
    model_server.always(openai_chat(tool_calls=[("get_weather", {"city": "Paris"})]))
    data = json.loads(suite.read_text())
    data["model"] = {"id": "openai:local-model", "base_url": model_server.url + "/v1", "params": {"temperature": 0}}
    suite.write_text(json.dumps(data))
    done = workbench_cli("eval", suite.name, cwd=suite.parent)
    assert done.returncode == 0, done.stderr
    assert [r.json["temperature"] for r in model_server.requests] == [0, 0]


def test_a_missing_cassette_is_a_usage_error(suite):
    done = workbench_cli("eval", suite.name, "--model", "replay:nowhere.cassette.json", cwd=suite.parent)
    assert done.returncode == 2 and "nowhere.cassette.json" in done.stderr and "Traceback" not in done.stderr
