"""``workbench.protocols``: tool sources, log sinks and scorers taken by what they do.

The examples of ``docs/extending.md`` run as written; the built-in classes satisfy the protocols;
an MCP connection is a tool source the executor and a model use directly (a real stdio server).
"""

from __future__ import annotations

import re

import pytest

from tests.mcp_servers import ROOT, WAIT, serve_command
from workbench import tool
from workbench.agent import run_agent
from workbench.executor import SequentialExecutor
from workbench.log import ExecutionLog
from workbench.models import ScriptedModel, tool_specs
from workbench.protocols import LogSink, RunLog, Scorer, ToolLookup, ToolSource
from workbench.registry import ToolRegistry, as_tool_registry

EXTENDING = ROOT / "docs" / "extending.md"


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", EXTENDING.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_guide_has_an_example_of_each_protocol():
    text = "\n".join(_examples())
    assert len(_examples()) == 3
    for name in ("LogSink", "NamedScorer", "ToolSource"):
        assert "isinstance(" in text and f"import {name}" in text


@pytest.mark.parametrize("index", range(3), ids=["log sink", "scorer", "tool source"])
def test_the_guide_examples_run(index):
    code = _examples()[index]
    exec(compile(code, f"{EXTENDING.name} example {index + 1}", "exec"), {"__name__": f"extending_{index}"})


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_the_built_in_classes_satisfy_the_protocols(tmp_path):
    log = ExecutionLog(tmp_path / "log.sqlite")
    try:
        assert isinstance(log, LogSink) and isinstance(log, RunLog)
    finally:
        log.close()
    registry = ToolRegistry([add])
    assert isinstance(registry, ToolSource) and isinstance(registry, ToolLookup)
    assert not isinstance([add], ToolLookup) and not isinstance(add, LogSink)


class CallsOnly:
    """A log sink that is no RunLog: the agent loop gives it the calls only (``run_id``/``turn`` are for a
    RunLog, whose runs they point into)."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def append(self, result, tool_use=None, *, input=None, run_id=None, turn=None):
        self.rows.append((tool_use["name"], tool_use["input"] if input is None else input, result.status, run_id, turn))


def test_an_agent_run_writes_its_calls_to_a_plain_log_sink():
    sink = CallsOnly()
    assert isinstance(sink, LogSink) and not isinstance(sink, RunLog)
    model = ScriptedModel([{"tool_calls": [{"name": "add", "input": {"a": 1, "b": 2}}]}, "3."])
    transcript = run_agent(model, "Add 1 and 2.", tools=[add], log=sink)
    assert transcript.final_text == "3." and sink.rows == [("add", {"a": 1, "b": 2}, "success", None, None)]


def test_a_scorer_that_is_not_callable_is_named():
    from workbench.evals import EvalCase, run_evals

    assert not isinstance("calls", Scorer)
    with pytest.raises(TypeError, match=r"a scorer is a callable \(case, transcript\) -> score"):
        run_evals([EvalCase(id="x", prompt="x")], ScriptedModel(["x"]), tools=[], scorers=[42], progress=False)


def test_an_mcp_connection_is_a_tool_source():
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(
        serve_command("tests.mcp_sample_tools"),
        cwd=str(ROOT),
        registry=registry,
        prefix="remote_",
        connect_timeout=WAIT,
    ) as conn:
        assert isinstance(conn, ToolSource) and as_tool_registry(conn) is conn
        assert conn.get_tool("remote_add") is registry.get("remote_add")
        assert [spec.name for spec in tool_specs(conn)] == conn.tools
        assert (
            SequentialExecutor()
            .run([{"toolUseId": "t1", "name": "remote_add", "input": {"a": 2, "b": 5}}], conn)[0]
            .text
            == "7"
        )
        with pytest.raises(KeyError, match=r"no tool 'nope' on MCP server .*: it has remote_add, .*remote_greet"):
            conn.get_tool("nope")
        model = ScriptedModel([{"tool_calls": [{"name": "remote_add", "input": {"a": 4, "b": 4}}]}, "8."])
        transcript = run_agent(model, "Add 4 and 4.", tools=conn)
        assert transcript.tool_results[0].text == "8"
