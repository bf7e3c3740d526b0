"""workbench.adapters with the real frameworks: LangChain, the OpenAI Agents SDK, pydantic-ai,
smolagents and LlamaIndex (CrewAI: tests/test_adapters/test_crewai_env.py, in its own environment).

In: an adapted tool's name, description and schema equal the framework's own conversion, and its
call goes through the framework's path (its validation, injected arguments, error handling).
Out: the exported tool is the framework's own object; called the framework's way it runs through a
workbench executor (log row, permission, approver, timeout).
Forms, ``map`` and the MCP server take adapted tools as they take ``@tool`` ones.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from agents.tool_context import ToolContext as AgentsToolContext
from langchain_core.tools import InjectedToolCallId  # module level: the tools' string annotations name them
from pydantic_ai import RunContext, Tool

from tests import adapter_sample_tools as samples
from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import Permission, SequentialExecutor, ToolRegistry, tool
from workbench.adapters import (
    AdaptedTool,
    WorkbenchToolError,
    adapt,
    to_langchain,
    to_llamaindex,
    to_openai_agents,
    to_pydantic_ai,
    to_smolagents,
)
from workbench.log import ExecutionLog

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0


def _use(name: str, tool_input: Any, use_id: str = "t-1") -> dict:
    return {"toolUseId": use_id, "name": name, "input": tool_input}


def _run(registry: Any, name: str, tool_input: Any) -> Any:
    return SequentialExecutor().run([_use(name, tool_input)], registry)[0]


# -- the framework's own view of a tool: {"name", "description", "parameters"} ---------------------------------
def _lc_view(t: Any) -> dict:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return convert_to_openai_tool(t)["function"]


def _oa_view(t: Any) -> dict:
    return {"name": t.name, "description": t.description, "parameters": t.params_json_schema}


def _pa_view(t: Any) -> dict:
    d = t.tool_def
    return {"name": d.name, "description": d.description, "parameters": d.parameters_json_schema}


def _sm_view(t: Any) -> dict:
    from smolagents.models import get_tool_json_schema

    return get_tool_json_schema(t)["function"]


def _li_view(t: Any) -> dict:
    return t.metadata.to_openai_tool()["function"]


def _wb_view(spec: Any) -> dict:
    return {"name": spec.name, "description": spec.description, "parameters": spec.parameters}


# kind → (sample tool, the framework's view, an input, the value it gives)
SAMPLES = {
    "langchain": (samples.lc_multiply, _lc_view, {"a": 6, "b": 7}, 42),
    "openai-agents": (samples.oa_subtract, _oa_view, {"a": 10, "b": 4}, 6),
    "pydantic-ai": (samples.pa_power, _pa_view, {"base": 3}, 9),
    "smolagents": (samples.sm_repeat, _sm_view, {"text": "ab", "times": 3}, "ababab"),
    "llamaindex": (samples.li_pad, _li_view, {"text": "tool", "width": 7}, "tool..."),
}


# -- in: schemas, registration, calls ------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(SAMPLES))
def test_adapted_tool_shows_the_frameworks_own_schema_and_runs(kind):
    original, view, tool_input, value = SAMPLES[kind]
    registry = ToolRegistry([original])
    (name,) = registry.list_tools()
    adapted = registry.get_tool(name)
    assert isinstance(adapted, AdaptedTool) and adapted.framework == kind and adapted.original is original
    expected = view(original)
    assert _wb_view(adapted.spec) == {k: expected[k] for k in ("name", "description", "parameters")}
    # the provider export sends what the framework sends
    assert registry.to_provider_format("openai")[0]["function"] == _wb_view(adapted.spec)
    result = _run(registry, name, tool_input)
    assert result.status == "success", result.content
    assert result.value == value


def test_langchain_export_equals_convert_to_openai_tool():
    from langchain_core.utils.function_calling import convert_to_openai_tool

    registry = ToolRegistry([samples.lc_multiply])
    assert registry.to_provider_format("openai") == [convert_to_openai_tool(samples.lc_multiply)]


@pytest.mark.parametrize("how", ["constructor", "register_tool", "process_tools"])
def test_the_registry_takes_foreign_tools_every_way(how):
    originals = [samples.lc_multiply, samples.oa_subtract, samples.pa_power, samples.sm_repeat, samples.li_pad]
    if how == "constructor":
        registry = ToolRegistry(originals)
    elif how == "register_tool":
        registry = ToolRegistry()
        for original in originals:
            registry.register_tool(original)
    else:
        registry = ToolRegistry()
        registry.process_tools(originals)
        registry.process_tools(originals)  # listing the same tools again is no clash
    assert registry.list_tools() == ["lc_multiply", "oa_subtract", "pa_power", "sm_repeat", "li_pad"]


def test_a_module_of_foreign_tools_is_processed_like_one_of_workbench_tools():
    registry = ToolRegistry()
    names = registry.process_tools(["tests.adapter_sample_tools"])
    assert sorted(names) == ["lc_multiply", "li_pad", "oa_subtract", "pa_power", "sm_repeat"]
    assert registry.process_tools([samples]) == names  # again: the same tools, no clash


def test_importing_workbench_and_registering_functions_imports_no_framework():
    code = (
        "import sys\nfrom workbench import ToolRegistry, tool\n"
        "def add(a: int, b: int) -> int:\n    'Add.'\n    return a + b\n"
        "ToolRegistry([add]).call('add', {'a': 1, 'b': 2})\n"
        "print(sorted(m for m in ('langchain_core', 'agents', 'pydantic_ai', 'smolagents', 'crewai', "
        "'llama_index', 'workbench.adapters') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- errors ----------------------------------------------------------------------------------------------------
def test_an_object_that_is_no_tool_gets_an_error_naming_it_and_what_is_accepted():
    with pytest.raises(ValueError) as info:  # ToolSpecError, as before adapters existed
        ToolRegistry([42])
    message = str(info.value)
    assert "42 (a builtins.int)" in message and "langchain" in message and "llamaindex" in message
    with pytest.raises(TypeError, match=r"not a tool of a framework workbench.adapters converts.*LangChain: "):
        adapt(object())


def test_a_framework_object_that_is_no_tool_gets_an_error_naming_it():
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import BaseTool as LcBaseTool

    with pytest.raises(TypeError, match=r"HumanMessage.*comes from LangChain but is not a tool.*BaseToolkit"):
        ToolRegistry([HumanMessage("hi")])
    with pytest.raises(TypeError, match=r"is a LangChain class, not a tool: pass an instance"):
        ToolRegistry().register_tool(LcBaseTool)


@pytest.mark.parametrize(
    "export, module, extra",
    [
        ("to_langchain", "langchain_core.tools", "langchain"),
        ("to_openai_agents", "agents", "openai-agents"),
        ("to_pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("to_smolagents", "smolagents", "smolagents"),
        ("to_crewai", "crewai.tools", "crewai"),
        ("to_llamaindex", "llama_index.core.tools", "llamaindex"),
    ],
)
def test_a_missing_extra_names_the_extra_to_install(monkeypatch, export, module, extra):
    import workbench.adapters

    monkeypatch.setitem(sys.modules, module, None)  # as if the package were not installed
    with pytest.raises(ImportError, match=rf"pip install 'tool-workbench\[{extra}\]'"):
        getattr(workbench.adapters, export)(add_two)


def test_a_toolkit_registers_each_tool_but_register_tool_wants_one():
    from langchain_core.tools import BaseToolkit

    class MathToolkit(BaseToolkit):
        def get_tools(self):
            return [samples.lc_multiply, to_langchain(add_two)]

    registry = ToolRegistry([MathToolkit()])
    assert registry.list_tools() == ["lc_multiply", "add"]
    with pytest.raises(ValueError, match=r"MathToolkit holds 2 tools \(lc_multiply, add\).*process_tools"):
        ToolRegistry().register_tool(MathToolkit())


# -- in: the framework's own call path --------------------------------------------------------------------------
def test_langchain_validation_injected_call_id_and_error_handling_apply():
    from langchain_core.tools import ToolException
    from langchain_core.tools import tool as lc_tool
    from pydantic import BaseModel, field_validator

    class EvenInput(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, v: int) -> int:
            if v % 2:
                raise ValueError("n must be even")
            return v

    @lc_tool(args_schema=EvenInput)
    def half(n: int) -> int:
        """Halve an even number."""
        return n // 2

    @lc_tool
    def whoami(x: int, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Say which call this is."""
        return f"{x} from {call_id}"

    @lc_tool
    def flaky(x: int) -> str:
        """Fail politely."""
        raise ToolException(f"cannot do {x}")

    flaky.handle_tool_error = True

    registry = ToolRegistry([half, whoami, flaky])
    assert "call_id" not in registry.get_tool("whoami").spec.parameters["properties"]
    assert _run(registry, "half", {"n": 8}).value == 4
    odd = _run(registry, "half", {"n": 3})
    assert odd.status == "error" and "n must be even" in odd.metadata["error"]  # LangChain's own validator
    assert _run(registry, "whoami", {"x": 1}).value == "1 from t-1"  # the workbench call's toolUseId
    assert registry.get_tool("whoami")(x=2).startswith("2 from call_")  # a direct call: a fresh id
    handled = _run(registry, "flaky", {"x": 5})
    assert handled.status == "success" and handled.value == "cannot do 5"  # handle_tool_error's observation


# (what an adapted tool accepts and refuses, against its framework's own verdict: tests/test_adapters/test_fidelity.py)


def test_langchain_async_only_tool_runs_on_the_loop():
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    async def slow_echo(text: str) -> str:
        """Echo after a pause."""
        await asyncio.sleep(0.01)
        return text

    registry = ToolRegistry([slow_echo])
    assert registry.get_tool("slow_echo").supports_async
    assert _run(registry, "slow_echo", {"text": "hi"}).value == "hi"
    results = asyncio.run(SequentialExecutor().execute([_use("slow_echo", {"text": "yo"})], registry))
    assert results[0].value == "yo"


def test_openai_agents_failure_function_timeout_and_approval_apply():
    from agents import function_tool

    @function_tool
    def explode(x: int) -> int:
        """Always fails."""
        raise RuntimeError("kaboom")

    @function_tool(needs_approval=True)
    def wipe(path: str) -> str:
        """Wipe a path (needs approval)."""
        return f"wiped {path}"

    @function_tool(timeout=0.05)
    async def nap(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "rested"

    @function_tool
    def which_call(ctx: AgentsToolContext, x: int) -> str:
        """Say which call this is."""
        return f"{x} from {ctx.tool_call_id}, context {ctx.context!r}"

    registry = ToolRegistry([explode, wipe, nap, which_call])
    assert _run(registry, "which_call", {"x": 3}).value == "3 from t-1, context None"
    failed = _run(registry, "explode", {"x": 1})
    # the SDK's default failure function: the model reads this message, the run goes on
    assert failed.status == "success" and "An error occurred while running the tool" in failed.value
    assert registry.get_tool("wipe").permission is Permission.ASK_USER
    assert _run(registry, "wipe", {"path": "/tmp/x"}).status == "error"  # no approver: denied
    approved = SequentialExecutor(approver=lambda use, t: True).run([_use("wipe", {"path": "/tmp/x"})], registry)
    assert approved[0].value == "wiped /tmp/x"
    assert _run(registry, "nap", {"seconds": 0.0}).value == "rested"
    assert _run(registry, "nap", {"seconds": 5.0}).status == "error"


def test_pydantic_ai_run_context_model_retry_and_toolsets():
    from pydantic_ai import ModelRetry
    from pydantic_ai.toolsets import FunctionToolset

    toolset = FunctionToolset()

    @toolset.tool
    def context_info(ctx: RunContext[None], label: str) -> dict:
        """Show what the run context holds."""
        return {"label": label, "deps": ctx.deps, "call": ctx.tool_call_id, "retry": ctx.retry}

    @toolset.tool_plain
    def positive(n: int) -> int:
        """Accept positive numbers only."""
        if n <= 0:
            raise ModelRetry("n must be positive, try again")
        return n

    registry = ToolRegistry([toolset])
    assert registry.list_tools() == ["context_info", "positive"]
    info = SequentialExecutor().run([_use("context_info", {"label": "x"}, "use-7")], registry)[0].value
    assert info == {"label": "x", "deps": None, "call": "use-7", "retry": 0}
    retry = _run(registry, "positive", {"n": -1})
    assert retry.status == "error" and "n must be positive, try again" in retry.metadata["error"]
    assert _run(registry, "positive", {"n": 5}).value == 5

    def wipe(path: str) -> str:
        """Wipe a path."""
        return f"wiped {path}"

    approval = ToolRegistry([Tool(wipe, requires_approval=True)])
    assert approval.get_tool("wipe").permission is Permission.ASK_USER
    assert _run(approval, "wipe", {"path": "/x"}).status == "error"  # no approver: denied
    approved = SequentialExecutor(approver=lambda use, t: True).run([_use("wipe", {"path": "/x"})], approval)
    assert approved[0].value == "wiped /x"


def test_smolagents_setup_runs_once_and_outputs_are_sanitised():
    from smolagents import Tool

    class Counter(Tool):
        name = "counter"
        description = "Count the calls."
        inputs = {"step": {"type": "integer", "description": "the step"}}
        output_type = "integer"

        def setup(self):
            self.total = 100
            self.is_initialized = True

        def forward(self, step: int) -> int:
            self.total += step
            return self.total

    registry = ToolRegistry([Counter()])
    assert _run(registry, "counter", {"step": 1}).value == 101
    assert _run(registry, "counter", {"step": 2}).value == 103


def test_smolagents_nullable_inputs_take_null_as_smolagents_does():
    registry = ToolRegistry([samples.sm_repeat])
    assert _run(registry, "sm_repeat", {"text": "ab", "times": None}).value == "ab"
    assert _run(registry, "sm_repeat", {"text": None}).status == "error"  # not nullable: refused
    assert _run(registry, "sm_repeat", {"text": "ab", "times": "2"}).status == "error"


def test_llamaindex_async_partial_params_and_errors():
    from llama_index.core.tools import FunctionTool

    async def scaled(x: int, factor: int) -> int:
        """Scale x."""
        return x * factor

    def broken(x: int) -> int:
        """Break."""
        raise ValueError("no good")

    registry = ToolRegistry(
        [
            FunctionTool.from_defaults(async_fn=scaled, partial_params={"factor": 3}),
            FunctionTool.from_defaults(fn=broken),
        ]
    )
    assert registry.get_tool("scaled").supports_async
    assert _run(registry, "scaled", {"x": 2}).value == 6
    bad = _run(registry, "broken", {"x": 1})
    assert bad.status == "error" and "no good" in bad.metadata["error"]


# -- out --------------------------------------------------------------------------------------------------------
@tool(name="add")
def add_two(a: int, b: int = 1) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


@tool(permission="deny")
def forbidden(x: int) -> int:
    """Never runs."""
    return x


@tool(permission="ask")
def guarded(x: int) -> int:
    """Runs when approved."""
    return x * 10


@tool(timeout=0.05)
def dawdle(seconds: float) -> str:
    """Sleep for a while."""
    time.sleep(seconds)
    return "done"


def _call_langchain(obj: Any, args: dict) -> Any:
    return obj.invoke(args)


class ErrorText(Exception):
    """An exported Agents SDK tool's error result, as the text the model reads."""


def _call_openai_agents(obj: Any, args: dict) -> Any:
    from agents.tool import invoke_function_tool
    from agents.tool_context import ToolContext

    text = json.dumps(args)
    ctx = ToolContext(context=None, tool_name=obj.name, tool_call_id="call-1", tool_arguments=text)
    out = asyncio.run(invoke_function_tool(function_tool=obj, context=ctx, arguments=text))
    if isinstance(out, str) and out.startswith("Error: "):
        raise ErrorText(out)  # the SDK shows the model an error result as its text
    return out


def _call_pydantic_ai(obj: Any, args: dict) -> Any:
    from pydantic_ai.toolsets import FunctionToolset

    from workbench.adapters.pydantic_ai import _context

    toolset = FunctionToolset([obj])

    async def go():
        ctx = _context(None)
        toolset_tool = (await toolset.get_tools(ctx))[obj.name]
        return await toolset.call_tool(obj.name, toolset_tool.args_validator.validate_python(args), ctx, toolset_tool)

    return asyncio.run(go())


def _call_smolagents(obj: Any, args: dict) -> Any:
    return obj(**args, sanitize_inputs_outputs=True)


def _call_llamaindex(obj: Any, args: dict) -> Any:
    return obj.call(**args).raw_output


# kind → (export, the framework's view of the exported object, call it the framework's way, its error)
EXPORTS = {
    "langchain": (to_langchain, _lc_view, _call_langchain, "langchain_core.tools.base.ToolException"),
    "openai-agents": (to_openai_agents, _oa_view, _call_openai_agents, "ErrorText"),
    "pydantic-ai": (to_pydantic_ai, _pa_view, _call_pydantic_ai, "WorkbenchToolError"),  # ModelRetry: bad input only
    "smolagents": (to_smolagents, _sm_view, _call_smolagents, "WorkbenchToolError"),
    "llamaindex": (to_llamaindex, _li_view, _call_llamaindex, "WorkbenchToolError"),
}


def _error_name(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__name__ if cls in (WorkbenchToolError, ErrorText) else f"{cls.__module__}.{cls.__qualname__}"


@pytest.mark.parametrize("kind", list(EXPORTS))
def test_exported_tool_is_the_frameworks_object_with_the_workbench_schema(kind):
    export, view, _call, _error = EXPORTS[kind]
    exported = export(add_two)
    framework_view = view(exported)
    expected = _wb_view(add_two.spec)
    if kind == "smolagents":  # its inputs format: optional inputs are marked nullable
        expected["parameters"]["properties"]["b"]["nullable"] = True
    if kind == "openai-agents":  # strict where the schema allows, as @function_tool makes it
        assert exported.strict_json_schema is True
        expected["parameters"] = add_two.spec.to_provider_format("openai", strict=True)["function"]["parameters"]
    assert {k: framework_view[k] for k in ("name", "description", "parameters")} == expected


@pytest.mark.parametrize("kind", list(EXPORTS))
def test_exported_tool_runs_through_the_executor_with_log_permissions_approver_and_timeout(kind):
    export, _view, call, error = EXPORTS[kind]
    log = ExecutionLog()
    assert call(export(add_two, log=log), {"a": 2, "b": 3}) == 5
    rows = log.rows()
    assert [(r["tool_name"], r["status"], r["input"]) for r in rows] == [("add", "success", {"a": 2, "b": 3})]

    with pytest.raises(Exception) as denied:
        call(export(forbidden, log=log), {"x": 1})
    assert _error_name(denied.value) == error
    assert log.rows()[-1]["status"] == "error" and log.rows()[-1]["tool_name"] == "forbidden"

    asked = []
    assert call(export(guarded, approver=lambda use, t: asked.append(use["name"]) or True), {"x": 4}) == 40
    assert asked == ["guarded"]
    with pytest.raises(Exception):  # noqa: B017 - each framework reports the denial with its own error type
        call(export(guarded), {"x": 4})  # no approver: denied

    assert call(export(dawdle), {"seconds": 0.0}) == "done"
    with pytest.raises(Exception) as late:
        call(export(dawdle, log=log), {"seconds": 2.0})
    assert _error_name(late.value) == error
    assert log.rows()[-1]["error_type"] == "TimeoutError"


def test_exported_langchain_tool_reports_bad_input_and_handles_errors_langchains_way():
    from langchain_core.tools import ToolException

    lc = to_langchain(add_two)
    with pytest.raises(ToolException, match=r"(?s)Invalid input for tool 'add'.*a: expected integer"):
        lc.invoke({"a": "two"})
    lc.handle_tool_error = True
    message = lc.invoke({"type": "tool_call", "name": "add", "args": {"a": "two"}, "id": "c-1"})
    assert message.status == "error" and "expected integer" in message.content
    assert asyncio.run(lc.ainvoke({"a": 1})) == 2


def test_exported_openai_agents_tool_in_strict_mode_and_its_bad_json():
    ft = to_openai_agents(add_two, strict=True)
    assert ft.strict_json_schema is True
    assert ft.params_json_schema == add_two.to_provider_format("openai", strict=True)["function"]["parameters"]
    with pytest.raises(ValueError, match=r"Tool 'add': the arguments are not valid JSON"):
        asyncio.run(ft.on_invoke_tool(None, "{not json"))


def test_exported_pydantic_ai_tool_in_an_agent_run():
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    log = ExecutionLog()
    agent = Agent(TestModel(), tools=[to_pydantic_ai(add_two, log=log)])
    agent.run_sync("add something")
    assert [r["tool_name"] for r in log.rows()] == ["add"] and log.rows()[0]["status"] == "success"


def test_export_options_are_checked():
    with pytest.raises(TypeError, match="pass approver= to the executor"):
        to_langchain(add_two, executor=SequentialExecutor(), approver=lambda u, t: True)
    with pytest.raises(TypeError, match="executor must be a workbench ToolExecutor"):
        to_langchain(add_two, executor=object())
    with pytest.raises(TypeError, match=r"to_langchain needs one tool.*42"):
        to_langchain(42)


def test_a_foreign_tool_exports_to_another_framework():
    lc = to_langchain(samples.oa_subtract)
    assert lc.name == "oa_subtract" and lc.invoke({"a": 5, "b": 2}) == 3


# -- forms, map and the MCP server on adapted tools -------------------------------------------------------------
@pytest.mark.parametrize("kind", list(SAMPLES))
def test_adapted_tool_in_a_form(wb, kind):  # noqa: F811 - the fixture
    from workbench.jupyter import ToolForm

    original, _view, tool_input, value = SAMPLES[kind]
    name = wb.registry.register_tool(original)
    form = ToolForm(wb.registry.get_tool(name), wb)
    form.set_values(tool_input)
    result = form.run()
    assert result.status == "success", result.content
    assert result.value == value
    assert wb.log.rows()[-1]["tool_name"] == name


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_adapted_tool_in_map(kind):
    original, _view, tool_input, value = SAMPLES[kind]
    (adapted,) = adapt(original)
    frame = SequentialExecutor().map(adapted, [tool_input, tool_input], progress=False)
    assert list(frame["status"]) == ["success", "success"]
    assert list(frame["value"]) == [value, value]


def test_adapted_tools_served_in_process_by_the_mcp_server():
    from mcp.client import Client

    from workbench.mcp import build_server

    log = ExecutionLog()
    server = build_server([original for original, *_ in SAMPLES.values()], log=log)

    async def main():
        with anyio.fail_after(WAIT):
            async with Client(server) as client:
                listed = {t.name: t for t in (await client.list_tools()).tools}
                calls = {name: await client.call_tool(name, SAMPLES[kind][2]) for kind, name in zip(SAMPLES, listed)}
                return listed, calls

    listed, calls = anyio.run(main)
    for _kind, (original, view, _input, value) in SAMPLES.items():
        name = view(original)["name"]
        assert listed[name].input_schema == view(original)["parameters"]
        assert not calls[name].is_error, calls[name].content
        assert calls[name].content[0].text == (value if isinstance(value, str) else json.dumps(value))
    assert sorted(r["tool_name"] for r in log.rows()) == sorted(listed)


def test_adapted_tools_served_by_an_mcp_server_subprocess():
    from workbench.mcp import connect

    registry = ToolRegistry()
    serve = [sys.executable, "-m", "workbench.mcp", "serve", "tests.adapter_sample_tools"]
    with connect(command=serve, registry=registry, cwd=str(ROOT), prefix="srv_", connect_timeout=WAIT):
        assert sorted(registry.list_tools()) == [
            "srv_lc_multiply",
            "srv_li_pad",
            "srv_oa_subtract",
            "srv_pa_power",
            "srv_sm_repeat",
        ]
        results = SequentialExecutor().run(
            [_use("srv_lc_multiply", {"a": 3, "b": 5}, "u1"), _use("srv_pa_power", {"base": 2, "exponent": 5}, "u2")],
            registry,
        )
    assert [r.value for r in results] == [15, 32]


@pytest.mark.parametrize("kind", ["langchain", "openai-agents"])
def test_property_tests_run_on_adapted_tools(kind):
    from tests.test_adapters.test_fidelity import CASES
    from workbench.testing import check_tool, fuzz_inputs

    original, framework = CASES[kind][:2]
    (adapted,) = adapt(original)
    report = check_tool(adapted, max_examples=25)
    assert report.ok, report
    # fuzz_inputs holds a tool to its schema; an adapted tool refuses what its framework refuses before
    # the call, so what fuzzing finds is what the framework itself lets through (LangChain drops an
    # undeclared key; the Agents SDK checks in its call and answers with its failure text)
    refused = fuzz_inputs(adapted, max_examples=25)
    for failure in refused.failures:
        assert failure.kind in ("accepted", "reached-function"), failure
        assert framework(original, failure.input)[0] != "refused", failure
