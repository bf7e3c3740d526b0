"""The notebook side of tool testing: the form's Save-as-test button, ``%tool_case save/run`` and the
run table (failing rows highlighted, diffs expandable and escaped)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

import workbench
from tests.form_catalogue import ip, wb  # noqa: F401 - fixtures
from workbench.jupyter import ToolForm
from workbench.jupyter._magics import CaseRunView, SavedCase, case_run_html
from workbench.testing import CaseFile, ToolCase, save_case, set_case_folder
from workbench.tools import DecoratedFunctionTool


def _add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


def _fail(x: int) -> int:
    """Always fails."""
    raise ValueError("nope")


@pytest.fixture
def folder(tmp_path):
    previous = set_case_folder(tmp_path / "cases")
    yield tmp_path / "cases"
    set_case_folder(previous)


@pytest.fixture
def add(wb):
    made = DecoratedFunctionTool.from_function(_add, name="add")
    wb.registry.register_tool(made)
    return made


def _cases(path):
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


# -- the form's button ---------------------------------------------------------------------------------
def test_button_is_disabled_until_a_call_finished(wb, add, folder):
    form = ToolForm(add, workbench=wb)
    assert form.save_button.disabled and form.save_button.description == "Save as test"
    row = next(c for c in form.children if form.run_button in getattr(c, "children", ()))
    assert form.save_button in row.children  # next to Run
    with pytest.raises(RuntimeError, match="run a call first"):
        form.save_as_test()
    form.set_values({"a": 3}).run()
    assert not form.save_button.disabled


def test_invalid_input_and_reset_disable_the_button_again(wb, add, folder):
    form = ToolForm(add, workbench=wb)
    form.set_values({"a": 1}).run()
    assert not form.save_button.disabled
    form.fields["a"].clear()
    result = form.run()  # a is required: nothing runs
    assert result.status == "error" and form.save_button.disabled
    form.set_values({"a": 1}).run()
    form.reset()
    assert form.save_button.disabled


def test_click_writes_the_case_and_shows_the_path(wb, add, folder):
    form = ToolForm(add, workbench=wb)
    form.set_values({"a": 3, "b": 4}).run()
    form.save_button.click()
    path = folder / "add.cases.json"
    assert form.saved_path == path
    assert _cases(path) == [{"id": "case-1", "input": {"a": 3, "b": 4}, "expect": "exact", "value": 7}]
    message = form.save_message.value
    assert form.save_message.layout.display is None
    assert "Saved as test" in message and str(path) in message
    assert "has no importable module" not in message
    assert json.loads(path.read_text())["tools"] == ["tests.test_testing.test_notebook"]


def test_click_of_a_notebook_tool_shows_the_tools_warning(wb, folder):
    namespace = {"__name__": "__main__"}  # a function defined in a notebook cell
    exec("def double(x: int) -> int:\n    'Double x.'\n    return 2 * x\n", namespace)  # noqa: S102
    tool = DecoratedFunctionTool.from_function(namespace["double"], name="double")
    wb.registry.register_tool(tool)
    form = ToolForm(tool, workbench=wb)
    form.set_values({"x": 2}).run()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the button shows the warning instead of raising it
        form.save_button.click()
    assert json.loads((folder / "double.cases.json").read_text())["tools"] == []
    assert "Saved as test" in form.save_message.value and "has no importable module" in form.save_message.value


def test_saving_a_failed_call_saves_an_error_case(wb, folder):
    tool = DecoratedFunctionTool.from_function(_fail, name="fail")
    wb.registry.register_tool(tool)
    form = ToolForm(tool, workbench=wb)
    form.set_values({"x": 1}).run()
    path = form.save_as_test()
    assert _cases(path)[0]["expect"] == "error" and _cases(path)[0]["error_type"] == "ValueError"


def test_click_shows_a_clear_error_when_saving_fails(wb, add, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    previous = set_case_folder(blocker)  # a file: the case file cannot be written under it
    try:
        form = ToolForm(add, workbench=wb)
        form.set_values({"a": 1}).run()
        form.save_button.click()  # must not raise
    finally:
        set_case_folder(previous)
    assert "Not saved" in form.save_message.value and form.saved_path is None


# -- %tool_case save / run ---------------------------------------------------------------------------------
def test_tool_case_save_writes_the_last_logged_call(ip, wb, add, folder):
    wb.call("add", {"a": 1})
    wb.call("add", {"a": 5, "b": 5})
    saved = ip.run_line_magic("tool_case", "save --expect subset")
    assert isinstance(saved, SavedCase) and saved.path == folder / "add.cases.json"
    assert _cases(saved.path) == [{"id": "case-1", "input": {"a": 5, "b": 5}, "expect": "subset", "value": 10}]
    assert repr(saved) == "saved add::case-1 (expect subset) to add.cases.json"  # relative: no temp path


def test_tool_case_save_usage_errors(ip, wb, add, folder):
    with pytest.raises(UsageError, match="log is empty"):
        ip.run_line_magic("tool_case", "save")
    wb.call("add", {"a": 1})
    with pytest.raises(UsageError, match="succeeded"):
        ip.run_line_magic("tool_case", "save --expect error")
    with pytest.raises(UsageError):
        ip.run_line_magic("tool_case", "save --expect maybe")
    with pytest.raises(UsageError):
        ip.run_line_magic("tool_case", "frobnicate")


def test_tool_case_run_shows_pass_and_fail(ip, wb, add, folder):
    save_case(ToolCase(tool="add", input={"a": 1}, expect="exact", value=3, id="good"), registry=wb.registry, tools=[])
    save_case(ToolCase(tool="add", input={"a": 1}, expect="exact", value=4, id="bad"), registry=wb.registry, tools=[])
    view = ip.run_line_magic("tool_case", "run")
    assert isinstance(view, CaseRunView) and not view.ok
    assert list(view.frame["status"]) == ["pass", "fail"]
    assert len(view.outcomes) == 2
    html = view._repr_html_()
    good, bad = html.split("<tr class='workbench-case-row")[1:]
    assert "workbench-case-pass" in good and "<details" not in good and "--jp-error-color1" not in good
    assert "workbench-case-fail" in bad and "<details class='workbench-case-diff'>" in bad
    assert "--jp-error-color1" in bad  # highlighted with the theme's error colour
    text = repr(view)
    assert text.splitlines()[0].startswith("pass    add::good (exact,") and " ms)" in text
    assert "expected 4, got 3" in text


def test_tool_case_run_of_a_path_and_update(ip, wb, add, folder, tmp_path):
    other = tmp_path / "elsewhere"
    save_case(ToolCase(tool="add", input={"a": 1}, expect="exact", value=0, id="stale"), other, tools=[])
    view = ip.run_line_magic("tool_case", f"run {other} --update")
    assert list(view.frame["status"]) == ["updated"] and view.ok
    assert CaseFile.load(other / "add.cases.json").cases[0].value == 3
    with pytest.raises(UsageError, match="No case file or folder"):
        ip.run_line_magic("tool_case", f"run {tmp_path / 'missing'}")
    with pytest.raises(UsageError, match="--expect is for save"):
        ip.run_line_magic("tool_case", "run --expect exact")


# -- the run table ---------------------------------------------------------------------------------------
def _frame(rows):
    return pd.DataFrame(rows, columns=["case", "tool", "status", "expect", "duration_ms", "message", "diff"])


def test_run_table_escapes_everything_the_tool_controls():
    frame = _frame(
        [
            {
                "case": "t::<b>x</b>",
                "tool": "t",
                "status": "fail",
                "expect": "exact",
                "duration_ms": 1.25,
                "message": "result <script>alert(1)</script>",
                "diff": '  /k: expected "<img src=x onerror=alert(1)>", got "&"',
            }
        ]
    )
    html = case_run_html(frame)
    assert "<script>" not in html and "<img" not in html and "<b>x</b>" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "&amp;" in html
    assert "1.2 ms" in html or "1.3 ms" in html


def test_run_table_highlights_errors_and_counts_statuses():
    frame = _frame(
        [
            {
                "case": "a::1",
                "tool": "a",
                "status": "pass",
                "expect": "exact",
                "duration_ms": 0.5,
                "message": "",
                "diff": "",
            },
            {
                "case": "a::2",
                "tool": "a",
                "status": "error",
                "expect": "exact",
                "duration_ms": 0.0,
                "message": "tool 'a' is not registered",
                "diff": "",
            },
        ]
    )
    html = case_run_html(frame)
    assert "1 pass, 1 error" in html
    error_row = html.split("workbench-case-error")[1]
    assert "border-left:3px solid var(--jp-error-color1" in error_row
    assert "#" not in html.replace("&#x27;", "")  # no fixed hex colours: theme variables only
    assert case_run_html(_frame([])).count("no cases") == 2


def test_tool_case_save_of_a_tool_cell_writes_its_module_and_pytest_runs_it_in_a_fresh_process(ip, wb, folder, capsys):
    ip.run_cell(
        "%%tool --no-form --name tripler --idempotent --timeout 5\n"
        "import math\n\n"
        'def triple(x: int) -> int:\n    "Triple x."\n    return int(math.prod([3, x]))\n',
        store_history=False,
    )
    wb.call("tripler", {"x": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "has no importable module" warning any more
        saved = ip.run_line_magic("tool_case", "save")
    assert "no importable module" not in capsys.readouterr().out
    assert json.loads(saved.path.read_text())["tools"] == ["tripler_tool.py"]
    module = folder / "tripler_tool.py"
    text = module.read_text()
    assert text.startswith("# Generated by workbench") and "from workbench import tool\n" in text
    assert "import math" in text and "triple = tool(triple, name='tripler'" in text
    assert "idempotent=True" in text and "timeout=5.0" in text
    loaded = CaseFile.load(saved.path).build_registry().get("tripler")
    assert loaded.spec.idempotent and loaded.spec.timeout == 5.0

    ip.run_cell(
        '%%tool --no-form --name tripler\ndef triple(x: int) -> int:\n    "Triple x, again."\n    return 3 * x\n',
        store_history=False,
    )
    wb.call("tripler", {"x": 4})
    ip.run_line_magic("tool_case", "save")  # saving again regenerates the module from the new cell
    text = module.read_text()
    assert "import math" not in text and "Triple x, again." in text and "idempotent=" not in text
    assert len(_cases(saved.path)) == 2

    ip.run_cell(
        '%%tool --no-form --name tripler\ndef triple(x: int) -> int:\n    "Triple x, plus one."\n'
        "    return 3 * x + 1\n",
        store_history=False,
    )
    ip.run_line_magic("tool_case", "run --update")  # new expectations: the module follows the new cell
    assert "plus one" in module.read_text() and [c["value"] for c in _cases(saved.path)] == [7, 13]

    env = {**os.environ, "PYTHONPATH": str(Path(workbench.__file__).resolve().parents[1])}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", saved.path.name],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout


def test_tool_case_save_of_a_tool_without_cell_source_prints_the_tools_note_without_the_folder(wb, ip, folder, capsys):
    namespace = {"__name__": "__main__"}  # exec'd from a string: IPython recorded no cell source
    exec("def triple(x: int) -> int:\n    'Triple x.'\n    return 3 * x\n", namespace)  # noqa: S102
    wb.registry.register_tool(DecoratedFunctionTool.from_function(namespace["triple"], name="triple"))
    wb.call("triple", {"x": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # shown as a note, not raised or warned with the temp path
        saved = ip.run_line_magic("tool_case", "save")
    out = capsys.readouterr().out
    assert out.startswith("note: save_case: tool 'triple' has no importable module")
    assert "triple.cases.json is written with" in out and str(folder) not in out
    assert json.loads(saved.path.read_text())["tools"] == []
