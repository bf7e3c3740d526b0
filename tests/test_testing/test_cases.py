"""Saved tool cases (issue 10 §1): ToolCase, case files, run_cases, ExecutionLog.to_cases, JSON diffs."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from tests import testing_case_tools as tools
from workbench import ExecutionLog, SequentialExecutor, ToolRegistry, ToolSpec, tool
from workbench.testing import (
    CaseFile,
    CaseFileError,
    ToolCase,
    case_folder,
    load_cases,
    run_case,
    run_cases,
    save_case,
    set_case_folder,
)
from workbench.testing._json_diff import compare, render_differences

MODULE = "tests.testing_case_tools"


@pytest.fixture
def registry():
    return ToolRegistry([tools.add, tools.divide, tools.profile, tools.visits, tools.guarded])


@pytest.fixture
def weather_spec():
    return ToolSpec(
        name="weather",
        description="Forecast for a city.",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        returns={
            "type": "object",
            "properties": {
                "temp": {"type": "integer", "minimum": -50, "maximum": 50},
                "sky": {"enum": ["sun", "rain"]},
            },
            "required": ["temp", "sky"],
        },
    )


# -- JSON comparison ----------------------------------------------------------------------------------
def test_exact_compare_uses_json_rules():
    assert compare({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1.0}) == []  # key order, 1 == 1.0
    (difference,) = compare({"a": 1}, {"a": True})  # a bool is never a number
    assert (difference.pointer, difference.kind) == ("/a", "changed")
    kinds = {(d.pointer, d.kind) for d in compare({"a": 1, "b": 2}, {"a": 1, "c": 3})}
    assert kinds == {("/b", "missing"), ("/c", "unexpected")}
    assert [(d.pointer, d.kind) for d in compare([1, 2], [1, 2, 3])] == [("/2", "unexpected")]


def test_subset_compare_allows_extra_keys_but_not_other_values():
    assert compare({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3}, "subset") == []
    assert [d.pointer for d in compare({"a": {"b": 1}}, {"a": {"b": 2}}, "subset")] == ["/a/b"]
    assert [d.kind for d in compare({"a": [1, 2]}, {"a": [1]}, "subset")] == ["missing"]


def test_ignored_pointers_with_wildcards():
    expected = {"id": "x", "items": [{"at": 1, "v": 1}, {"at": 2, "v": 2}]}
    actual = {"id": "y", "items": [{"at": 9, "v": 1}, {"at": 8, "v": 2}]}
    assert [d.pointer for d in compare(expected, actual)] == ["/id", "/items/0/at", "/items/1/at"]
    assert compare(expected, actual, ignore=["/id", "/items/*/at"]) == []
    assert compare({"a~b": 1, "c/d": 2}, {"a~b": 5, "c/d": 6}, ignore=["/a~0b", "/c~1d"]) == []


def test_rendered_differences_name_the_pointer_and_show_a_unified_diff():
    text = render_differences(
        compare({"sum": 3, "n": [1]}, {"sum": 4, "n": [1]}), {"sum": 3, "n": [1]}, {"sum": 4, "n": [1]}
    )
    assert "/sum: expected 3, got 4" in text
    assert "--- expected" in text and '-  "sum": 3' in text and '+  "sum": 4' in text


# -- ToolCase ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"expect": "same"}, "expect must be one of exact, subset, schema, error"),
        ({"ignore": ["id"]}, "'id' is not a JSON pointer"),
        ({"expect": "exact", "error_type": "ValueError"}, "error_type and message belong to expect='error'"),
        ({"input": [1]}, "input must be a JSON object"),
        ({"id": "a::b"}, "id must be"),
        ({"seed": "1"}, "seed must be an integer"),
    ],
)
def test_tool_case_refuses_bad_fields_with_a_clear_message(kwargs, words):
    with pytest.raises(CaseFileError, match=re.escape(words)):
        ToolCase(tool="add", **kwargs)


def test_from_result_defaults_follow_the_result(registry):
    ok, failed = SequentialExecutor().run(
        [{"name": "add", "input": {"a": 1, "b": 2}}, {"name": "divide", "input": {"a": 1, "b": 0}}], registry
    )
    assert ToolCase.from_result({"name": "add", "input": {"a": 1, "b": 2}}, ok) == ToolCase(
        tool="add", input={"a": 1, "b": 2}, expect="exact", value=3
    )
    case = ToolCase.from_result({"name": "divide", "input": {"a": 1, "b": 0}}, failed, message="division")
    assert (case.expect, case.error_type, case.message) == ("error", "ZeroDivisionError", "division")
    with pytest.raises(CaseFileError, match="save it with expect='error'"):
        ToolCase.from_result({"name": "divide", "input": {}}, failed, expect="exact")


def test_from_result_of_a_synthetic_call_expects_the_schema(weather_spec):
    registry = ToolRegistry(synthetic=True)
    registry.register_spec(weather_spec)
    result = registry.call("weather", {"city": "Oslo"})
    assert ToolCase.from_result({"name": "weather", "input": {"city": "Oslo"}}, result).expect == "schema"


# -- case files -------------------------------------------------------------------------------------------
def test_save_case_writes_a_pretty_stable_file_and_dedupes(tmp_path, registry):
    case = ToolCase(tool="add", input={"b": 2, "a": 1}, value=3, title="small numbers", tags=["smoke"])
    path = save_case(case, tmp_path, registry=registry)
    assert path == tmp_path / "add.cases.json"
    assert path.read_text() == (
        '{\n  "tool": "add",\n  "tools": [\n    "tests.testing_case_tools"\n  ],\n  "cases": [\n    {\n'
        '      "id": "case-1",\n      "title": "small numbers",\n      "tags": [\n        "smoke"\n      ],\n'
        '      "input": {\n        "a": 1,\n        "b": 2\n      },\n      "expect": "exact",\n      "value": 3\n'
        "    }\n  ]\n}\n"
    )
    save_case(ToolCase(tool="add", input={"a": 1, "b": 2}, value=3, title="small numbers", tags=["smoke"]), tmp_path)
    assert len(CaseFile.load(path).cases) == 1  # the same call, saved twice
    save_case(ToolCase(tool="add", input={"a": 2, "b": 2}, value=4), tmp_path)
    save_case(ToolCase(tool="add", input={"a": 5, "b": 5}, value=10, id="case-1"), tmp_path)  # replaces by id
    loaded = CaseFile.load(path)
    assert [(c.id, c.input) for c in loaded.cases] == [("case-1", {"a": 5, "b": 5}), ("case-2", {"a": 2, "b": 2})]


def test_save_case_uses_the_per_kernel_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert case_folder() == Path("tool_cases")
    previous = set_case_folder(tmp_path / "mine")
    try:
        path = save_case(ToolCase(tool="add", input={"a": 1, "b": 1}, value=2), registry=ToolRegistry([tools.add]))
    finally:
        set_case_folder(previous)
    assert path == tmp_path / "mine" / "add.cases.json"
    assert case_folder() == Path("tool_cases")


def test_save_case_of_a_spec_only_tool_stores_its_spec(tmp_path, weather_spec):
    registry = ToolRegistry()
    registry.register_spec(weather_spec)
    path = save_case(ToolCase(tool="weather", input={"city": "Oslo"}, expect="schema"), tmp_path, registry=registry)
    data = json.loads(path.read_text())
    assert "tools" not in data and data["spec"]["returns"] == weather_spec.returns
    frame = run_cases(path)  # no registry: the file is self-contained, replayed in synthetic mode
    assert list(frame["status"]) == ["pass"]


def test_save_case_of_a_notebook_tool_warns_and_leaves_tools_empty(tmp_path):
    @tool
    def local(x: int) -> int:
        """A tool with no importable module."""
        return x

    local.__module__ = "__main__"
    with pytest.warns(UserWarning, match="has no importable module"):
        path = save_case(ToolCase(tool="local", input={"x": 1}, value=1), tmp_path, registry=ToolRegistry([local]))
    assert json.loads(path.read_text())["tools"] == []
    assert list(run_cases(path, registry=ToolRegistry([local]))["status"]) == ["pass"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "not valid JSON (line 1, column 2"),
        ('{"tool": "add", "cases": [{"id": "x", "input": {}}, {"id": "x", "input": {}}]}', "case id 'x' is used twice"),
        ('{"tool": "add", "tools": [], "cases": [], "extra": 1}', "unknown key(s) 'extra'"),
        ('{"tool": "add", "cases": [{"tool": "sub", "input": {}}]}', "is for tool 'sub' but the file is for 'add'"),
        (
            '{"tool": "add", "cases": [{"input": {}, "expect": "nope"}]}',
            "case #1: a case of tool 'add': expect must be one of",
        ),
        ('{"tool": "add", "tools": 3, "cases": []}', "'tools' must be a module"),
    ],
)
def test_malformed_case_files_name_file_and_case(tmp_path, text, words):
    path = tmp_path / "add.cases.json"
    path.write_text(text)
    with pytest.raises(CaseFileError, match=re.escape(words)) as info:
        CaseFile.load(path)
    assert str(path) in str(info.value)


def test_list_form_case_file_names_each_tool(tmp_path, registry):
    path = tmp_path / "mixed.cases.json"
    path.write_text(
        json.dumps(
            [
                {"tool": "add", "id": "one", "input": {"a": 1, "b": 1}, "value": 2},
                {"tool": "divide", "input": {"a": 1, "b": 0}, "expect": "error"},
            ]
        )
    )
    frame = run_cases(path, registry=registry)
    assert list(frame["case"]) == ["add::one", "divide::case-2"]
    assert list(frame["status"]) == ["pass", "pass"]


# -- running ----------------------------------------------------------------------------------------------
def write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


def test_run_cases_reports_pass_fail_and_error_with_a_diff(tmp_path):
    path = write(
        tmp_path / "add.cases.json",
        {
            "tool": "add",
            "tools": [MODULE],
            "cases": [
                {"id": "ok", "input": {"a": 1, "b": 2}, "expect": "exact", "value": 3},
                {"id": "wrong", "input": {"a": 1, "b": 2}, "expect": "exact", "value": 4},
                {
                    "id": "refused",
                    "input": {"a": "x", "b": 2},
                    "expect": "error",
                    "error_type": "ToolInputError",
                    "message": "a: expected",
                },
                {"id": "not-an-error", "input": {"a": 1, "b": 1}, "expect": "error"},
            ],
        },
    )
    frame = run_cases(path)
    assert list(frame.columns) == ["case", "tool", "status", "expect", "duration_ms", "message", "diff"]
    assert list(frame["status"]) == ["pass", "fail", "pass", "fail"]
    wrong = frame.set_index("case").loc["add::wrong"]
    assert wrong["message"] == "result differs from the expected value (1 difference)"
    assert ": expected 4, got 3" in wrong["diff"]
    assert "expected an error, but the call succeeded with 2" in frame["message"][3]
    assert (frame["duration_ms"] >= 0).all()


def test_run_cases_with_a_missing_tool_or_module_is_an_error_row(tmp_path):
    missing_tool = write(tmp_path / "a.cases.json", {"tool": "nope", "tools": [MODULE], "cases": [{"input": {}}]})
    missing_module = write(
        tmp_path / "b.cases.json",
        {"tool": "add", "tools": ["no_such_module_xyz"], "cases": [{"input": {"a": 1, "b": 1}, "value": 2}]},
    )
    frame = run_cases([missing_tool, missing_module])
    assert list(frame["status"]) == ["error", "error"]
    assert "tool 'nope' is not registered" in frame["message"][0]
    assert "cannot load its tools ['no_such_module_xyz']" in frame["message"][1]


def test_py_path_tools_are_relative_to_the_case_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mytools.py").write_text(
        "from workbench import tool\n\n@tool\ndef triple(x: int) -> int:\n    '''Triple.'''\n    return 3 * x\n"
    )
    path = write(
        tmp_path / "sub" / "triple.cases.json",
        {"tool": "triple", "tools": ["mytools.py"], "cases": [{"input": {"x": 2}, "value": 6}]},
    )
    assert list(run_cases(tmp_path)["status"]) == ["pass"]
    assert list(run_cases(path)["case"]) == ["triple::case-1"]


def test_subset_and_ignore_handle_volatile_fields(tmp_path):
    path = write(
        tmp_path / "profile.cases.json",
        {
            "tool": "profile",
            "tools": [MODULE],
            "cases": [
                {
                    "id": "subset",
                    "input": {"name": "Ada"},
                    "expect": "subset",
                    "value": {"name": "Ada", "tags": ["new", "ada"]},
                },
                {
                    "id": "ignore",
                    "input": {"name": "Ada"},
                    "value": {"name": "Ada", "age": 30, "created": "?", "tags": ["new", "ada"]},
                    "ignore": ["/created"],
                },
                {"id": "exact", "input": {"name": "Ada"}, "value": {"name": "Ada", "age": 30, "tags": ["new", "ada"]}},
            ],
        },
    )
    frame = run_cases(path)
    assert list(frame["status"]) == ["pass", "pass", "fail"]
    assert "/created: unexpected" in frame["diff"][2]


def test_spec_only_replays_are_deterministic_and_seeded(tmp_path, weather_spec):
    registry = ToolRegistry(synthetic=True)
    registry.register_spec(weather_spec)
    first = registry.call("weather", {"city": "Oslo"})
    case = ToolCase.from_result({"name": "weather", "input": {"city": "Oslo"}}, first, expect="exact")
    path = save_case(case, tmp_path, registry=registry)
    assert list(run_cases(path)["status"]) == ["pass"]
    assert list(run_cases(path)["status"]) == ["pass"]  # the same value every replay
    reseeded = [ToolCase(tool="weather", input={"city": "Oslo"}, value=case.value, seed=s) for s in range(1, 6)]
    statuses = set(run_cases(reseeded, registry=registry)["status"])
    assert "fail" in statuses  # another seed gives another synthetic value


def test_context_tools_get_a_fresh_context_per_case(registry):
    cases = [ToolCase(tool="visits", input={"page": "home"}, value=1, id=f"v{i}") for i in range(3)]
    assert list(run_cases(cases, registry=registry)["status"]) == ["pass"] * 3


def test_ask_user_tools_run_when_the_caller_approves(registry):
    frame = run_cases(
        ToolCase(tool="guarded", input={"x": 4}, value=8), registry=registry, approver=lambda tool_use, item: True
    )
    assert list(frame["status"]) == ["pass"]
    refused = run_cases(ToolCase(tool="guarded", input={"x": 4}, value=8), registry=registry)  # case files are data
    assert list(refused["status"]) == ["fail"] and "needs approval" in refused["message"][0]


def test_schema_expectation_checks_returns(registry):
    @tool
    def liar(x: int) -> int:
        """Says it returns an int."""
        return "not an int" if x else 0  # type: ignore[return-value]

    frame = run_cases(
        [
            ToolCase(tool="liar", input={"x": 0}, expect="schema"),
            ToolCase(tool="liar", input={"x": 1}, expect="schema"),
        ],
        registry=ToolRegistry([liar]),
    )
    assert list(frame["status"]) == ["pass", "fail"]
    assert "does not match the tool's returns schema" in frame["message"][1]


def test_update_rewrites_exact_and_subset_only(tmp_path):
    path = write(
        tmp_path / "profile.cases.json",
        {
            "tool": "profile",
            "tools": [MODULE],
            "cases": [
                {"id": "subset", "input": {"name": "Bo"}, "expect": "subset", "value": {"name": "Al", "tags": ["old"]}},
                {"id": "exact", "input": {"name": "Bo", "age": 2}, "value": {"age": 1}, "ignore": ["/created"]},
                {"id": "error", "input": {"name": "Bo"}, "expect": "error"},
            ],
        },
    )
    frame = run_cases(path, update=True)
    assert list(frame["status"]) == ["updated", "updated", "fail"]
    cases = {c.id: c for c in CaseFile.load(path).cases}
    # cut to the expected shape: the keys it names (arrays whole: a subset compares them item by item)
    assert cases["subset"].value == {"name": "Bo", "tags": ["new", "bo"]}
    assert cases["exact"].value["age"] == 2 and set(cases["exact"].value) == {"name", "age", "created", "tags"}
    assert cases["error"].expect == "error"
    assert list(run_cases(path)["status"]) == ["pass", "pass", "fail"]


def test_load_cases_accepts_every_source(tmp_path):
    path = write(
        tmp_path / "add.cases.json",
        {"tool": "add", "tools": [MODULE], "cases": [{"input": {"a": 1, "b": 1}, "value": 2}]},
    )
    case_file = CaseFile.load(path)
    for source in (path, str(tmp_path), case_file, [case_file], case_file.cases[0]):
        assert [c.name for _, c in load_cases(source)] == ["add::case-1"]
    with pytest.raises(TypeError, match="Expected a case file path"):
        list(load_cases(3))
    with pytest.raises(CaseFileError, match="No case file or folder"):
        list(load_cases(tmp_path / "nowhere"))


def test_unsaved_cases_are_named_by_position(registry):
    frame = run_cases(
        [
            ToolCase(tool="add", input={"a": 1, "b": 1}, value=2),
            ToolCase(tool="add", input={"a": 1, "b": 2}, value=3, id="mine"),
            ToolCase(tool="add", input={"a": 2, "b": 2}, value=4),
        ],
        registry=registry,
    )
    assert list(frame["case"]) == ["add::case-1", "add::mine", "add::case-3"]
    assert list(run_cases(ToolCase(tool="add", input={"a": 1, "b": 1}, value=2), registry=registry)["case"]) == [
        "add::case-1"
    ]


def test_run_case_outcome_keeps_the_result(registry):
    outcome = run_case(ToolCase(tool="add", input={"a": 2, "b": 2}, value=5), registry)
    assert outcome.status == "fail" and outcome.actual == 4 and outcome.result.ok
    assert outcome.report().startswith("add::? (exact) fail: result differs")


# -- from the execution log -------------------------------------------------------------------------------
def test_log_to_cases_with_filters(registry, tmp_path):
    log = ExecutionLog()
    SequentialExecutor(log=log).run(
        [
            {"name": "add", "input": {"a": 1, "b": 2}},
            {"name": "divide", "input": {"a": 1, "b": 0}},
            {"name": "add", "input": {"a": "x", "b": 2}},
            {"name": "add", "input": {"a": 5, "b": 5}},
        ],
        registry,
    )
    cases = log.to_cases(tool="add")
    assert [(c.expect, c.value, c.error_type) for c in cases] == [
        ("exact", 3, None),
        ("error", None, "ToolInputError"),
        ("exact", 10, None),
    ]
    assert [c.tool for c in log.to_cases(status="error")] == ["divide", "add"]
    assert [c.input for c in log.to_cases(ids=[4, 1])] == [{"a": 5, "b": 5}, {"a": 1, "b": 2}]
    assert [c.expect for c in log.to_cases(last=1, expect="subset")] == ["subset"]
    for case in log.to_cases():
        save_case(case, tmp_path, registry=registry)
    frame = run_cases(tmp_path)
    assert list(frame["status"]) == ["pass"] * 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["add.cases.json", "divide.cases.json"]


def test_log_to_cases_of_a_synthetic_call(weather_spec):
    registry = ToolRegistry(synthetic=True)
    registry.register_spec(weather_spec)
    log = ExecutionLog()
    SequentialExecutor(log=log, synthetic=True).run([{"name": "weather", "input": {"city": "Oslo"}}], registry)
    (case,) = log.to_cases()
    assert case.expect == "schema"
    assert list(run_cases(case, registry=registry)["status"]) == ["pass"]


def test_no_warnings_on_a_plain_save(tmp_path, registry):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        save_case(ToolCase(tool="add", input={"a": 1, "b": 1}, value=2), tmp_path, registry=registry)
