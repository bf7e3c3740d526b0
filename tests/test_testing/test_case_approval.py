"""Case files and property tests do not approve ``ask_user`` tools by themselves (issue 18, item 5).

Case files are data others can write: replaying one must not run a tool that asks for approval
unless the caller says so — ``approver=`` (as the executors' ``approver(tool_use, tool) -> bool``,
sync or async), ``pytest --approve-tools`` (or the ini option ``approve_tools``), ``%tool_case run
--approve``. Without one the call is refused (``PermissionDenied``) and the case says how to approve.
"""

from __future__ import annotations

import json

import pytest

from tests.form_catalogue import ip, wb  # noqa: F401 - fixtures
from workbench import ToolRegistry, tool
from workbench.testing import (
    ToolCase,
    check_tool,
    fuzz_inputs,
    property_test,
    run_case,
    run_cases,
    save_case,
    set_case_folder,
)

pytest_plugins = ["pytester"]

CALLS: list[int] = []


@tool(permission="ask")
def launch(x: int) -> int:
    """Launch something (asks first)."""
    CALLS.append(x)
    return x * 2


@pytest.fixture
def registry():
    CALLS.clear()
    return ToolRegistry([launch])


HINT = "pass approver= to run_cases"


def test_run_cases_refuses_an_ask_user_tool_without_an_approver(registry):
    frame = run_cases(ToolCase(tool="launch", input={"x": 4}, value=8), registry=registry)
    assert list(frame["status"]) == ["fail"] and CALLS == []
    message = frame["message"][0]
    assert "'launch' needs approval" in message and HINT in message and "--approve-tools" in message
    outcome = frame.attrs["outcomes"][0]
    assert outcome.result.status == "error" and outcome.result.metadata["error_type"] == "PermissionDenied"


def test_an_expected_permission_error_passes_without_an_approver(registry):
    case = ToolCase(tool="launch", input={"x": 4}, expect="error", error_type="PermissionDenied")
    assert run_case(case, registry).status == "pass" and CALLS == []


def test_approver_semantics_match_the_executors(registry):
    seen = []

    def approve(tool_use, item):
        seen.append((tool_use["name"], tool_use["input"], item.tool_name))
        return True

    assert list(
        run_cases(ToolCase(tool="launch", input={"x": 4}, value=8), registry=registry, approver=approve)["status"]
    ) == ["pass"]
    assert seen == [("launch", {"x": 4}, "launch")] and CALLS == [4]

    async def approve_async(tool_use, item):
        return True

    assert run_case(ToolCase(tool="launch", input={"x": 1}, value=2), registry, approver=approve_async).passed
    denied = run_case(ToolCase(tool="launch", input={"x": 1}, value=2), registry, approver=lambda u, t: False)
    assert denied.status == "fail" and "denied by the approver" in denied.message and HINT not in denied.message
    assert CALLS == [4, 1]


def test_allowed_tools_need_no_approver():
    @tool
    def plain(x: int) -> int:
        """Plain."""
        return x

    assert run_case(ToolCase(tool="plain", input={"x": 1}, value=1), ToolRegistry([plain])).passed


def test_a_case_file_with_no_tools_reaching_a_notebook_tool_is_refused(tmp_path, registry):
    path = tmp_path / "launch.cases.json"
    path.write_text(json.dumps({"tool": "launch", "tools": [], "cases": [{"id": "go", "input": {"x": 3}, "value": 6}]}))
    frame = run_cases(path, registry=registry)  # as %tool_case run passes the notebook's registry
    assert list(frame["status"]) == ["fail"] and "needs approval" in frame["message"][0] and CALLS == []
    assert list(run_cases(path, registry=registry, approver=lambda u, t: True)["status"]) == ["pass"]


# -- property tests -----------------------------------------------------------------------------------------


def test_check_tool_and_fuzz_inputs_need_an_approver_for_ask_user_tools(registry):
    for run in (check_tool, fuzz_inputs):
        report = run(launch, max_examples=5)
        assert not report.ok and "needs approval" in report.error and "approver=" in report.error
        assert CALLS == []
    assert check_tool(launch, max_examples=5, approver=lambda u, t: True).ok and CALLS
    assert fuzz_inputs(launch, max_examples=5, approver=lambda u, t: True).ok
    denied = check_tool(launch, max_examples=5, approver=lambda u, t: False)
    assert not denied.ok and denied.failures[0].error_type == "PermissionDenied"


def test_property_test_passes_the_approver_on(registry):
    with pytest.raises(AssertionError, match="needs approval"):
        property_test(launch, max_examples=5, seed=0)()
    property_test(launch, max_examples=5, seed=0, approver=lambda u, t: True)()


# -- pytest plugin ------------------------------------------------------------------------------------------

ASK_TOOLS = '''
from workbench import tool

@tool(permission="ask")
def launch(x: int) -> int:
    """Launch (asks first)."""
    return x * 2
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(asktools=ASK_TOOLS)
    pytester.syspathinsert()
    pytester.path.joinpath("launch.cases.json").write_text(
        json.dumps(
            {
                "tool": "launch",
                "tools": ["asktools"],
                "cases": [
                    {"id": "go", "input": {"x": 2}, "value": 4},
                    {"id": "refused", "input": {"x": 2}, "expect": "error", "error_type": "PermissionDenied"},
                ],
            }
        )
    )
    return pytester


def test_pytest_refuses_ask_user_tools_unless_told(project):
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*launch::go (exact) fail:*'launch' needs approval*--approve-tools*"])


def test_pytest_approve_tools_option(project):
    project.runpytest("--approve-tools").assert_outcomes(passed=1, failed=1)  # now "refused" runs and fails
    result = project.runpytest("--approve-tools", "-k", "go")
    result.assert_outcomes(passed=1)


def test_pytest_approve_tools_ini_option(project):
    project.makeini("[pytest]\napprove_tools = true\n")
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1, warnings=0)  # a known option; "refused" now runs and fails
    result.stdout.fnmatch_lines(["*launch::refused (error) fail: expected an error, but the call succeeded*"])
    project.makeini("[pytest]\napprove_tools = false\n")
    project.runpytest().assert_outcomes(passed=1, failed=1, warnings=0)
    project.runpytest("-k", "refused").assert_outcomes(passed=1)


# -- %tool_case run -----------------------------------------------------------------------------------------


def test_tool_case_run_approves_only_with_approve(ip, wb, tmp_path):
    previous = set_case_folder(tmp_path / "cases")
    try:
        CALLS.clear()
        wb.registry.register_tool(launch, replace=True)
        save_case(ToolCase(tool="launch", input={"x": 5}, value=10, id="go"), registry=wb.registry, tools=[])
        view = ip.run_line_magic("tool_case", "run")
        assert list(view.frame["status"]) == ["fail"] and "needs approval" in view.frame["message"][0]
        assert "--approve" in view.frame["message"][0] and CALLS == []
        view = ip.run_line_magic("tool_case", "run --approve")
        assert list(view.frame["status"]) == ["pass"] and CALLS == [5]
    finally:
        set_case_folder(previous)


def test_a_case_replayed_inside_an_approving_run_approves_nothing(registry):
    """The attack: an agent run approves its own ``ask_user`` calls (``run_agent(approver=...)``); a
    "run the tests" tool it calls replays a case file whose case calls ``launch``. The run's approver
    must not reach the case: a case file never inherits approval (check_tool refuses the same way)."""
    from workbench.agent import run_agent
    from workbench.models import ScriptedModel

    outcomes = []

    @tool
    def run_tests() -> str:
        """Replay the project's tool cases."""
        outcomes.append(run_case(ToolCase(tool="launch", input={"x": 4}, value=8), registry))
        return outcomes[-1].status

    model = ScriptedModel([{"tool_calls": [{"name": "run_tests", "input": {}}]}, "done"])
    transcript = run_agent(model, "run the tests", tools=[run_tests], approver=lambda use, item: True)
    assert transcript.tool_results[0].text == "fail"
    assert CALLS == [], "the case's ask_user tool ran on the agent run's approval"
    assert outcomes[0].result.metadata["error_type"] == "PermissionDenied" and HINT in outcomes[0].message
    # the same run approves its own calls as before, and the case runs when its caller approves
    assert run_case(ToolCase(tool="launch", input={"x": 4}, value=8), registry, approver=lambda u, t: True).passed
    assert CALLS == [4]


def test_a_case_replayed_inside_a_lax_run_checks_input_as_its_tool_says(registry):
    from workbench.executor import validating

    @tool
    def double(n: int) -> int:
        """Double."""
        return 2 * n

    case = ToolCase(tool="double", input={"n": "4"}, expect="error", error_type="ToolInputError")
    with validating("lax"):
        assert run_case(case, ToolRegistry([double])).status == "pass"
