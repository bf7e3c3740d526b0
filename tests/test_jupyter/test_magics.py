"""The magics, driven through a headless IPython shell: %%tool, %tools, %tool_log, %tool_call, %tool_spec."""

from __future__ import annotations

import ipywidgets as W
import pandas as pd
import pytest
from IPython.core.error import UsageError

import workbench
from tests.form_catalogue import ip, wb  # noqa: F401 - fixtures
from workbench import Permission
from workbench.jupyter import ToolForm, get_workbench
from workbench.jupyter._magics import JSONView, defined_functions, parse_call_arguments
from workbench.tools import DecoratedFunctionTool

ADD = '''
def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: first
        b: second
    """
    return a + b
'''


def cell(ip, line: str, body: str):
    """Run a %%tool cell the way the notebook does; returns the ExecutionResult."""
    return ip.run_cell(f"%%tool {line}\n{body}".replace("%%tool \n", "%%tool\n"), store_history=False)


# -- loading ----------------------------------------------------------------------------------------------
def test_loading_twice_keeps_one_set_of_magics_and_one_workbench(ip, wb):
    before = {k: dict(v) for k, v in ip.magics_manager.magics.items()}
    ip.run_cell("%load_ext workbench", store_history=False)
    workbench.load_ipython_extension(ip)
    workbench.load_ipython_extension(ip)
    after = ip.magics_manager.magics
    for kind, names in (("cell", ["tool"]), ("line", ["tools", "tool_log", "tool_call", "tool_spec"])):
        for name in names:
            assert after[kind][name] == before[kind][name]
    assert list(after["cell"]).count("tool") == 1
    assert get_workbench() is wb and workbench.get_workbench() is wb


def test_unload_removes_the_magics_and_load_brings_them_back(ip, wb):
    workbench.unload_ipython_extension(ip)
    assert "tool" not in ip.magics_manager.magics["cell"]
    assert "tool_call" not in ip.magics_manager.magics["line"]
    workbench.load_ipython_extension(ip)
    assert "tool" in ip.magics_manager.magics["cell"] and "tools" in ip.magics_manager.magics["line"]


# -- %%tool ------------------------------------------------------------------------------------------------
def test_tool_cell_registers_rebinds_and_shows_the_form(ip, wb):
    result = cell(ip, "", ADD)
    assert result.success, result.error_in_exec
    assert "add" in wb.registry
    add = ip.user_ns["add"]
    assert isinstance(add, DecoratedFunctionTool) and add is wb.registry.get("add")
    assert add(1, 2) == 3  # still callable as the function
    assert isinstance(result.result, ToolForm) and result.result.tool is add
    spec = add.spec
    assert spec.description == "Add two numbers." and spec.parameters["required"] == ["a"]
    assert spec.parameters["properties"]["a"]["description"] == "first"


def test_rerunning_a_cell_replaces_the_tool(ip, wb):
    cell(ip, "", ADD)
    first = wb.registry.get("add")
    result = cell(ip, "", ADD.replace("return a + b", "return a + b + 100"))
    assert result.success, result.error_in_exec
    assert len(wb.registry) == 1 and wb.registry.get("add") is not first
    assert ip.user_ns["add"](1, 2) == 103
    assert wb.call("add", {"a": 1}).json == 103
    assert result.result.tool is wb.registry.get("add")  # a fresh form for the new tool


def test_every_public_function_becomes_a_tool(ip, wb):
    body = '''
def _helper(x):
    return x * 2

def double(x: int) -> int:
    """Double."""
    return _helper(x)

async def triple(x: int) -> int:
    """Triple."""
    return x * 3
'''
    result = cell(ip, "", body)
    assert result.success, result.error_in_exec
    assert wb.registry.list_tools() == ["double", "triple"]
    assert "_helper" not in wb.registry and callable(ip.user_ns["_helper"])
    assert wb.registry.get("triple").spec.supports_async
    assert isinstance(result.result, W.VBox) and [f.tool.tool_name for f in result.result.children] == [
        "double",
        "triple",
    ]
    assert wb.call("triple", {"x": 2}).json == 6


def test_options_map_to_the_spec(ip, wb):
    result = cell(
        ip, "--name plus --description 'Adds things.' --long-running --idempotent --permission ask --timeout 2.5", ADD
    )
    assert result.success, result.error_in_exec
    spec = wb.registry.get("plus").spec
    assert (spec.name, spec.description, spec.long_running, spec.idempotent, spec.timeout) == (
        "plus",
        "Adds things.",
        True,
        True,
        2.5,
    )
    assert spec.permission is Permission.ASK_USER
    assert ip.user_ns["add"] is wb.registry.get("plus")
    for option, expected in (("allow", Permission.ALWAYS_ALLOW), ("deny", Permission.ALWAYS_DENY)):
        cell(ip, f"--permission {option} --no-form", ADD)
        assert wb.registry.get("add").spec.permission is expected
    assert wb.call("add", {"a": 1}).status == "error"  # deny


def test_no_form_outputs_nothing(ip, wb):
    result = cell(ip, "--no-form", ADD)
    assert result.success and result.result is None and "add" in wb.registry


def test_a_cell_may_decorate_its_own_tool(ip, wb):
    body = '''
from workbench import tool

@tool(idempotent=True)
def ping() -> str:
    """Ping."""
    return "pong"
'''
    result = cell(ip, "", body)
    assert result.success, result.error_in_exec
    assert wb.registry.get("ping").spec.idempotent and ip.user_ns["ping"] is wb.registry.get("ping")


def _usage_error(result, capsys, *fragments):
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    message = str(result.error_in_exec)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return message


@pytest.mark.parametrize(
    "line, body, fragments",
    [
        ("", "def broken(:\n    pass", ["syntax error", "line 1"]),
        ("", "x = 1\ny = 2", ["defines no function"]),
        ("", "def _private():\n    '''Doc.'''", ["defines no function"]),
        (
            "--name a",
            ADD + "\ndef other() -> int:\n    '''Other.'''\n    return 1",
            ["exactly one function", "add, other"],
        ),
        ("--permission sometimes", ADD, ["--permission", "sometimes"]),
        ("--timeout -1", ADD, ["--timeout"]),
        ("", "def star(*args):\n    '''Doc.'''", ["*args", "not supported"]),
        ("--name 'bad name'", ADD, ["Invalid tool name"]),
    ],
)
def test_usage_errors_are_one_line(ip, wb, capsys, line, body, fragments):
    capsys.readouterr()
    result = cell(ip, line, body)
    _usage_error(result, capsys, *fragments)
    assert len(wb.registry) == 0


def test_description_option_allows_a_function_without_docstring(ip, wb):
    result = cell(ip, "--description 'Identity.'", "def ident(x: int) -> int:\n    return x")
    assert result.success and wb.registry.get("ident").spec.description == "Identity."


def test_an_exception_in_the_cell_keeps_its_traceback_and_registers_nothing(ip, wb):
    result = cell(ip, "", ADD + "\nraise ValueError('boom')")
    assert isinstance(result.error_in_exec, ValueError) and "add" not in wb.registry


# -- line magics -------------------------------------------------------------------------------------------
def test_tools_lists_the_registry(ip, wb):
    cell(ip, "--permission ask --timeout 3 --no-form", ADD)
    cell(ip, "--no-form", "async def slow(x: str) -> str:\n    '''Slow.'''\n    return x")
    frame = ip.run_line_magic("tools", "")
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["name"]) == ["add", "slow"]
    row = frame.iloc[0]
    assert row["description"] == "Add two numbers." and row["parameters"] == "a: integer, b: integer?"
    assert row["returns"] == "integer" and row["permission"] == "ask_user" and row["timeout"] == 3.0
    assert bool(frame.iloc[1]["async"]) is True and bool(row["async"]) is False


def test_tools_on_an_empty_registry(ip, wb):
    frame = ip.run_line_magic("tools", "")
    assert frame.empty and "name" in frame.columns


def test_tool_call_json_and_key_value_forms(ip, wb):
    cell(ip, "--no-form", ADD)
    result = ip.run_line_magic("tool_call", 'add {"a": 1, "b": 5}')
    assert result.ok and result.json == 6
    assert ip.run_line_magic("tool_call", "add a=2 b=3").json == 5
    assert ip.run_line_magic("tool_call", "add a=2").json == 4
    bad = ip.run_line_magic("tool_call", "add a=x")  # "x" is not JSON: sent as a string → validation error
    assert bad.status == "error" and bad.metadata["error_type"] == "ToolInputError"
    assert "<div class='workbench-result'>" in result._repr_html_()
    # through run_cell too (no {var} expansion of the JSON)
    ran = ip.run_cell('%tool_call add {"a": 10}', store_history=False)
    assert ran.success and ran.result.json == 12


def test_parse_call_arguments():
    assert parse_call_arguments('{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_call_arguments('a=1 b="two words" c=[1,2] d=true e=null f=hello') == {
        "a": 1,
        "b": "two words",
        "c": [1, 2],
        "d": True,
        "e": None,
        "f": "hello",
    }
    assert parse_call_arguments("") == {}
    with pytest.raises(UsageError, match="key=value"):
        parse_call_arguments("a=1 oops")
    with pytest.raises(UsageError, match="not valid JSON"):
        parse_call_arguments("{oops")
    assert defined_functions("def a(): pass\ndef _b(): pass\ndef a(): pass\nasync def c(): pass") == ["a", "c"]


def test_tool_call_errors_are_usage_errors(ip, wb, capsys):
    cell(ip, "--no-form", ADD)
    capsys.readouterr()
    _usage_error(ip.run_cell("%tool_call add {bad", store_history=False), capsys, "not valid JSON")
    _usage_error(ip.run_cell("%tool_call", store_history=False), capsys, "usage")


def test_tool_call_of_an_ask_tool_uses_the_workbench_approver(ip, wb):
    cell(ip, "--permission ask --no-form", ADD)
    denied = ip.run_line_magic("tool_call", "add a=1")
    assert denied.status == "error" and "denied" in denied.error
    seen = []
    wb.approver = lambda tool_use, tool: seen.append(tool_use["input"]) or True
    assert ip.run_line_magic("tool_call", "add a=1").json == 3 and seen == [{"a": 1}]


def test_tool_log_filters(ip, wb):
    cell(ip, "--no-form", ADD)
    ip.run_line_magic("tool_call", "add a=1")
    ip.run_line_magic("tool_call", "add a=x")
    ip.run_line_magic("tool_call", "add a=3")
    frame = ip.run_line_magic("tool_log", "")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 3
    assert list(ip.run_line_magic("tool_log", "--status error")["status"]) == ["error"]
    last = ip.run_line_magic("tool_log", "--last 1")
    assert len(last) == 1 and last.iloc[0]["input"] == {"a": 3}
    assert ip.run_line_magic("tool_log", "--tool nothing").empty
    with pytest.raises(UsageError, match="status"):
        ip.run_line_magic("tool_log", "--status weird")


def test_tool_spec_json_and_provider_format(ip, wb):
    cell(ip, "--no-form", ADD)
    spec = ip.run_line_magic("tool_spec", "add")
    assert isinstance(spec, JSONView) and spec == wb.registry.get("add").spec.to_json()
    assert '"name": "add"' in repr(spec)
    anthropic = ip.run_line_magic("tool_spec", "add --format anthropic")
    assert anthropic["name"] == "add" and anthropic["input_schema"]["required"] == ["a"]
    with pytest.raises(UsageError, match="Unknown tool"):
        ip.run_line_magic("tool_spec", "nope")
    with pytest.raises(UsageError):
        ip.run_line_magic("tool_spec", "add --format nonsense")
