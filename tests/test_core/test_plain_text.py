"""print() and repr() in a terminal: a transcript prints as a chat, a report as its summary table, a
result as its status and value, a tool as its signature, description and parameters."""

from __future__ import annotations

from workbench import SequentialExecutor, ToolRegistry, tool
from workbench.agent import run_agent
from workbench.evals import EvalCase, run_evals
from workbench.models import ScriptedModel


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


def _run(tool_use_input: dict) -> object:
    return SequentialExecutor().run([{"toolUseId": "t1", "name": "add", "input": tool_use_input}], ToolRegistry([add]))[
        0
    ]


def test_a_tool_repr_shows_its_signature_description_and_parameters():
    assert repr(add) == (
        "<tool 'add'(a: int, b: int = 0) -> int>\n"
        "  Add two integers.\n"
        "  a: integer, required — The first addend.\n"
        "  b: integer, default 0 — The second addend."
    )


def test_a_tool_without_docstring_or_parameters_is_one_line():
    @tool
    def ping() -> str:
        return "pong"

    assert repr(ping) == "<tool 'ping'() -> str>"


def test_print_of_a_result_shows_status_and_value_on_lines_of_their_own():
    result = _run({"a": 1, "b": 2})
    assert str(result) == "ToolResult 'add' (t1): success\n  3"
    assert repr(result) == "ToolResult('add', success, '3')"  # the one-line form stays for lists and logs


def test_print_of_a_failed_result_shows_the_error_type_and_every_line_of_its_message():
    result = _run({"a": "x"})
    assert str(result) == (
        "ToolResult 'add' (t1): error ToolInputError\n"
        "  Invalid input for tool 'add' (1 error):\n"
        "    - a: expected integer, received 'x' (string)"
    )


def test_print_of_a_json_result_is_indented_json():
    @tool
    def point() -> dict:
        """A point."""
        return {"x": 1, "y": [2, 3]}

    result = SequentialExecutor().run([{"toolUseId": "p", "name": "point", "input": {}}], ToolRegistry([point]))[0]
    assert (
        str(result) == 'ToolResult \'point\' (p): success\n  {\n    "x": 1,\n    "y": [\n      2,\n      3\n    ]\n  }'
    )


def test_print_of_a_transcript_is_a_chat_with_its_calls_and_results():
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 1, "b": 2}}]}, "1 + 2 = 3"])
    transcript = run_agent(model, "What is 1 + 2?", tools=[add], system="Be brief.", run_id="demo")
    assert str(transcript) == (
        "Transcript demo · scripted:scripted · 2 model turns, 1 tool call · stopped: end_turn\n"
        "system: Be brief.\n"
        "user: What is 1 + 2?\n"
        'assistant: → add({"a": 1, "b": 2})\n'
        "  tool add: success\n"
        "    3\n"
        "assistant: 1 + 2 = 3"
    )
    assert repr(transcript).startswith("Transcript('demo', 'scripted:scripted', 2 turns")  # one line, as before


def test_print_of_a_transcript_masks_secret_arguments_and_shows_model_errors():
    from pydantic import SecretStr

    @tool
    def login(user: str, password: SecretStr) -> str:
        """Log in."""
        return "ok"

    def broken(messages, tools):
        raise RuntimeError("the server hung up")

    model = ScriptedModel(
        [{"tool_calls": [{"name": "login", "input": {"user": "ann", "password": "hunter2"}}]}, broken]
    )
    text = str(run_agent(model, "log me in", tools=[login], run_id="r"))
    assert "hunter2" not in text and '"password": "***"' in text
    assert "model error (unknown): " in text or "model error" in text
    assert text.splitlines()[0].endswith("stopped: model_error")


def test_print_of_a_report_is_its_summary_table():
    cases = [
        EvalCase("sum", prompt="What is 1 + 2?", expect_calls=[{"name": "add", "arguments": {"a": [1], "b": [2]}}]),
        EvalCase("hello", prompt="Hello!", expect_no_call=True),
    ]
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 1, "b": 2}}]}])
    report = run_evals(cases, [model], tools=[add], progress=False)
    lines = str(report).splitlines()
    assert lines[0] == "EvalReport: 2/2 runs, 0 cache hits"
    header = lines[1].split()
    assert header[:5] == ["model", "variant", "cases", "runs", "accuracy"]
    row = lines[2].split()
    assert row[:5] == ["scripted:scripted", "default", "2", "2", "50.0%"]
    assert "failures:" in str(report) and "hello" in str(report)  # the failed case, with its reason
