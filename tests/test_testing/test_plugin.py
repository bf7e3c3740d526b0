"""The workbench pytest plugin (issue 10): *.cases.json items, --update-tool-cases, spec snapshots,
property_test — driven through pytester in-process runs (the plugin loads from the pytest11 entry point)."""

from __future__ import annotations

import json
import textwrap

import pytest

pytest_plugins = ["pytester"]

TOOLS_V1 = '''
from workbench import tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@tool
def greet(name: str, excited: bool = False) -> str:
    """Greet someone."""
    return f"Hello {name}{'!' if excited else '.'}"
'''


def cases(pytester: pytest.Pytester, name: str, data) -> None:
    pytester.path.joinpath(f"{name}.cases.json").write_text(json.dumps(data, indent=2))


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(mytools=TOOLS_V1)
    pytester.syspathinsert()
    return pytester


def test_one_item_per_case_with_tool_and_case_ids(project):
    cases(
        project,
        "add",
        {
            "tool": "add",
            "tools": ["mytools"],
            "cases": [
                {"id": "small", "input": {"a": 1, "b": 2}, "value": 3},
                {"id": "bad-type", "input": {"a": "x", "b": 2}, "expect": "error", "error_type": "ToolInputError"},
            ],
        },
    )
    result = project.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["add.cases.json::add::small", "add.cases.json::add::bad-type"])
    project.runpytest().assert_outcomes(passed=2)


def test_a_failing_case_prints_the_json_diff(project):
    cases(
        project,
        "add",
        {
            "tool": "add",
            "tools": ["mytools"],
            "cases": [
                {"id": "ok", "input": {"a": 1, "b": 2}, "value": 3},
                {"id": "off-by-one", "input": {"a": 1, "b": 2}, "value": 4},
            ],
        },
    )
    cases(
        project,
        "greet",
        {
            "tool": "greet",
            "tools": ["mytools"],
            "cases": [{"id": "nested", "input": {"name": "Ada"}, "expect": "error"}],
        },
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*add::off-by-one (exact) fail: result differs from the expected value (1 difference)",
            "*(the whole value): expected 4, got 3",
            '*greet::nested (error) fail: expected an error, but the call succeeded with "Hello Ada."',
        ]
    )


def test_update_tool_cases_rewrites_the_file(project):
    cases(
        project,
        "greet",
        {
            "tool": "greet",
            "tools": ["mytools"],
            "cases": [
                {"id": "plain", "input": {"name": "Ada"}, "value": "Hi Ada"},
                {"id": "fails-anyway", "input": {"name": 3}, "value": "x"},
            ],
        },
    )
    path = project.path / "greet.cases.json"
    result = project.runpytest("--update-tool-cases")
    result.assert_outcomes(passed=1, failed=1)  # a failed call cannot become an expectation
    result.stdout.fnmatch_lines(["*rewrote 1 tool case expectation(s) in 1 file(s)*"])
    data = json.loads(path.read_text())
    assert data["cases"][0]["value"] == "Hello Ada."
    assert data["cases"][1]["value"] == "x"
    assert path.read_text().startswith('{\n  "tool": "greet",\n  "tools": [\n')  # still pretty-printed
    project.runpytest("-k", "plain").assert_outcomes(passed=1)


def test_a_malformed_case_file_is_a_readable_collection_error(project):
    cases(project, "add", {"tool": "add", "tools": ["mytools"], "cases": [{"id": "x", "input": {}, "expect": "maybe"}]})
    result = project.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*add.cases.json: case x: case 'x' of tool 'add': expect must be one of*"])
    assert "Traceback" not in result.stdout.str()


def test_cases_with_unloadable_tools_fail_with_the_reason(project):
    cases(
        project,
        "add",
        {"tool": "add", "tools": ["not_a_module_here"], "cases": [{"input": {"a": 1, "b": 1}, "value": 2}]},
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cannot load its tools [[]'not_a_module_here'[]]*"])


def test_tags_select_cases_with_k(project):
    cases(
        project,
        "add",
        {
            "tool": "add",
            "tools": ["mytools"],
            "cases": [
                {"id": "a", "tags": ["smoke"], "input": {"a": 1, "b": 1}, "value": 2},
                {"id": "b", "input": {"a": 2, "b": 2}, "value": 4},
            ],
        },
    )
    project.runpytest("-k", "smoke").assert_outcomes(passed=1)


def test_only_cases_json_files_are_collected(project):
    project.path.joinpath("data.json").write_text("[1, 2]")
    project.path.joinpath("add.cases.json.bak").write_text("{")
    result = project.runpytest("--collect-only", "-q")
    assert "no tests collected" in result.stdout.str()


# -- spec snapshots --------------------------------------------------------------------------------------------
def test_tool_specs_snapshot_written_then_checked(project):
    result = project.runpytest(
        "--update-tool-specs", "--tool-specs", "tool_specs.json", "--tool-specs-source", "mytools"
    )
    result.assert_outcomes(passed=1)
    snapshot = json.loads((project.path / "tool_specs.json").read_text())
    assert [(t["name"], t["ref"]) for t in snapshot["tools"]] == [("add", "mytools:add"), ("greet", "mytools:greet")]
    # unchanged tools pass; the snapshot's refs say where the tools are (no source option needed)
    project.runpytest("--tool-specs", "tool_specs.json").assert_outcomes(passed=1)


def test_tool_specs_fails_on_a_breaking_change_and_prints_the_diff(project):
    project.runpytest("--update-tool-specs", "--tool-specs-source", "mytools").assert_outcomes(passed=1)
    project.makepyfile(
        mytools=TOOLS_V1.replace("def add(a: int, b: int)", "def add(a: int, b: int, c: int)").replace(
            '"""Greet someone."""', '"""Greet someone warmly."""'
        )
    )
    result = project.runpytest("--tool-specs", "tool_specs.json", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*tool_specs.json: breaking tool spec changes against the snapshot",
            "1 breaking, 1 compatible change(s)",
            "BREAKING   add/parameters/properties/c: new required parameter 'c' (integer): calls without it are refused",
            "compatible greet/description: description changed",
            "*record them with pytest --update-tool-specs*",
        ]
    )
    project.runpytest("--update-tool-specs").assert_outcomes(passed=1)  # accept the change
    project.runpytest("--tool-specs", "tool_specs.json").assert_outcomes(passed=1)


def test_compatible_changes_pass_with_a_note(project):
    project.runpytest("--update-tool-specs", "--tool-specs-source", "mytools")
    project.makepyfile(mytools=TOOLS_V1.replace("def add(a: int, b: int)", "def add(a: int, b: int, c: int = 0)"))
    result = project.runpytest("--tool-specs", "tool_specs.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*1 compatible change(s) not yet in the snapshot*",
            "compatible add/parameters/properties/c: optional parameter 'c' (integer) added",
        ]
    )


def test_tool_specs_from_ini_options(project):
    project.makeini("[pytest]\ntool_specs = specs/tool_specs.json\ntool_specs_source = mytools\n")
    result = project.runpytest("--update-tool-specs")
    result.assert_outcomes(passed=1)
    assert (project.path / "specs" / "tool_specs.json").is_file()
    project.makepyfile(mytools=TOOLS_V1.replace("a: int, b: int", "a: int, b: float"))  # widened: compatible
    project.runpytest().assert_outcomes(passed=1)
    project.makepyfile(mytools=TOOLS_V1.replace("name: str,", "name: int,"))  # type changed: breaking
    project.runpytest().assert_outcomes(failed=1)


def test_a_missing_snapshot_says_how_to_create_it(project):
    result = project.runpytest("--tool-specs", "nowhere.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*No tool spec snapshot at *nowhere.json: create it with pytest --update-tool-specs*"])


def test_no_spec_item_without_the_option(project):
    result = project.runpytest("--collect-only", "-q")
    assert "tool-specs" not in result.stdout.str()


# -- property tests -----------------------------------------------------------------------------------------
def test_property_test_is_one_line_per_tool(project):
    project.makepyfile(
        test_props=textwrap.dedent('''
        from workbench import tool
        from workbench.testing import property_test
        from mytools import add

        @tool
        def divide(a: int, b: int) -> float:
            """Divide."""
            return a / b

        test_add = property_test(add, max_examples=15)
        test_divide = property_test(divide, max_examples=15, seed=0)
        test_divide_expected = property_test(divide, max_examples=15, expected_errors=[ZeroDivisionError])
    ''')
    )
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    assert "def test()" not in result.stdout.str()  # the wrapper's source is hidden
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: divide: * examples of valid inputs, 1 failure(s)",
            "*[[]raised] ZeroDivisionError: division by zero",
            '*input: {"a": 0, "b": 0}',
        ]
    )


def test_the_plugin_imports_nothing_heavy():
    """pytest loads the plugin in every run of this environment: it must stay as light as `import workbench`."""
    import subprocess
    import sys

    code = (
        "import sys, json, workbench.testing._pytest_plugin, workbench.testing\n"
        "print(json.dumps([m for m in ('hypothesis', 'hypothesis_jsonschema', 'jsonschema', 'pandas', 'ipywidgets', "
        "'IPython') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
