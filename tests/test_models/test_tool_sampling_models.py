"""A tool's ``ctx.sample`` answered by the workbench's models: in a form (its ``sampling_model`` or the
workbench's), in ``%tool_call`` / ``Workbench.call``, and in the agent loop (the run's model or
``sampling_model=``); a clear error where no model is configured. The OpenAI path runs through the
real SDK against the local OpenAI-wire server (tests/model_servers.py)."""

from __future__ import annotations

import pytest

from tests.form_catalogue import ip, wb  # noqa: F401 - fixtures
from tests.model_servers import model_server, openai_chat  # noqa: F401 - model_server is a fixture
from workbench import ToolContext, tool
from workbench.agent import run_agent
from workbench.log import ExecutionLog
from workbench.models import ScriptedModel
from workbench.registry import ToolRegistry

KEY = "sk-test-sampling-0000"


@tool(context=True)
def summarize(text: str, tool_context: ToolContext) -> str:
    """Summarize a text with the model of whoever runs the tool."""
    answer = tool_context.sample(f"Summarize: {text}", system="One line.", max_tokens=30, temperature=0.0)
    return f"{answer.model} said {answer.text}"


@tool(context=True)
async def asummarize(text: str, tool_context: ToolContext) -> str:
    """The async form."""
    return (await tool_context.asample(f"Summarize: {text}")).text


def _openai(server):
    from workbench.models.openai import OpenAIModel

    return OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key=KEY)


def test_a_form_asks_the_workbench_sampling_model_through_the_real_sdk(wb, model_server) -> None:  # noqa: F811
    from workbench.jupyter import ToolForm

    model_server.script([openai_chat(text="a short summary"), openai_chat(text="async summary")])
    wb.registry.register_tool(summarize)
    wb.registry.register_tool(asummarize)
    wb.sampling_model = _openai(model_server)
    form = ToolForm(summarize, wb)
    form.set_values({"text": "a long text"})
    result = form.run()
    assert result.status == "success", result.metadata
    assert result.value == "openai:gpt-4.1-mini said a short summary"
    sent = model_server.requests[0].json
    assert sent["messages"] == [
        {"role": "system", "content": "One line."},
        {"role": "user", "content": "Summarize: a long text"},
    ]
    assert sent["max_tokens"] == 30 and sent["temperature"] == 0.0 and "tools" not in sent
    async_form = ToolForm(asummarize, wb)
    async_form.set_values({"text": "x"})
    assert async_form.run().value == "async summary"
    # the question and its answer are in the call's row
    [entry] = wb.log.rows(tool="summarize")[0]["metadata"]["logs"]
    assert (entry["kind"], entry["model"], entry["answer"]) == ("sampling", "openai:gpt-4.1-mini", "a short summary")


def test_a_forms_own_sampling_model_wins(wb) -> None:  # noqa: F811
    from workbench.jupyter import ToolForm

    wb.registry.register_tool(summarize)
    wb.sampling_model = ScriptedModel(["from the workbench"], name="wb")
    form = ToolForm(summarize, wb, sampling_model=ScriptedModel(["from the form"], name="form"))
    form.set_values({"text": "t"})
    assert form.run().value == "scripted:form said from the form"
    with pytest.raises(ValueError, match="provider:model"):
        ToolForm(summarize, wb, sampling_model="no-provider")  # refused when given, not when a tool asks


def test_without_a_model_a_form_and_tool_call_say_how_to_set_one(wb, ip) -> None:  # noqa: F811
    from workbench.jupyter import ToolForm

    wb.registry.register_tool(summarize)
    form = ToolForm(summarize, wb)
    form.set_values({"text": "t"})
    result = form.run()
    assert result.metadata["error_type"] == "NobodyToAsk"
    assert "get_workbench().sampling_model = 'openai:gpt-4.1-mini'" in result.metadata["error"]
    assert "ToolForm(..., sampling_model=...)" in result.metadata["error"]
    called = ip.run_line_magic("tool_call", "summarize text=t")
    assert called.status == "error" and "%tool_call, Workbench.call" in called.metadata["error"]
    assert "get_workbench().sampling_model" in called.metadata["error"]


def test_tool_call_and_workbench_call_use_the_workbench_sampling_model(wb, ip, model_server) -> None:  # noqa: F811
    model_server.script(
        [openai_chat(text="via the magic"), openai_chat(text="via call"), openai_chat(text="via submit")]
    )
    wb.registry.register_tool(summarize)
    wb.sampling_model = _openai(model_server)
    assert ip.run_line_magic("tool_call", "summarize text=t").value == "openai:gpt-4.1-mini said via the magic"
    assert wb.call("summarize", {"text": "u"}).value == "openai:gpt-4.1-mini said via call"
    assert wb.submit("summarize", {"text": "v"}).result(30).value == "openai:gpt-4.1-mini said via submit"
    with pytest.raises(ValueError, match="provider:model"):
        wb.sampling_model = "nonsense"


def test_the_agent_loop_answers_with_the_runs_own_model() -> None:
    """A ScriptedModel is one conversation: the sampling request takes the turn after the tool call."""
    model = ScriptedModel(
        [{"tool_calls": [{"name": "summarize", "input": {"text": "owls"}}]}, "owls hoot", "done"], name="agent"
    )
    log = ExecutionLog()
    transcript = run_agent(model, "summarize owls", tools=[summarize], log=log)
    assert transcript.stopped_because == "end_turn" and transcript.final_text == "done"
    [step] = transcript.tool_steps
    assert step.result.value == "scripted:agent said owls hoot"
    asked = model.calls[1]
    assert asked["messages"] == [
        {"role": "system", "content": "One line."},
        {"role": "user", "content": "Summarize: owls"},
    ]
    assert asked["params"] == {"max_tokens": 30, "temperature": 0.0} and asked["tools"] == []
    [entry] = log.rows()[0]["metadata"]["logs"]
    assert entry["kind"] == "sampling" and entry["answer"] == "owls hoot"


def test_the_agent_loop_samples_a_given_model_through_the_real_sdk(model_server) -> None:  # noqa: F811
    model_server.script([openai_chat(text="sampled by openai")])
    model = ScriptedModel([{"tool_calls": [{"name": "asummarize", "input": {"text": "x"}}]}, "done"])
    transcript = run_agent(model, "go", tools=[asummarize], sampling_model=_openai(model_server))
    assert transcript.tool_steps[0].result.value == "sampled by openai"
    assert model_server.requests[0].json["messages"] == [{"role": "user", "content": "Summarize: x"}]


def test_an_agent_run_refuses_elicitation_and_non_text_sampling_clearly() -> None:
    @tool(context=True)
    def ask(tool_context: ToolContext) -> str:
        return tool_context.elicit("name?", {"type": "object", "properties": {"n": {"type": "string"}}}).action

    @tool(context=True)
    def picture(tool_context: ToolContext) -> str:
        block = {"type": "image", "data": "AA==", "mimeType": "image/png"}
        return tool_context.sample([{"role": "user", "content": block}]).text

    model = ScriptedModel([{"tool_calls": [{"name": "ask", "input": {}}, {"name": "picture", "input": {}}]}, "ok"])
    transcript = run_agent(model, "go", tools=ToolRegistry([ask, picture]))
    by_name = {s.name: s.result for s in transcript.tool_steps}
    assert by_name["ask"].metadata["error_type"] == "NobodyToAsk"
    assert "called ToolContext.elicit() in an agent run, where there is no form" in by_name["ask"].metadata["error"]
    assert "asked a workbench model with a 'image' block in message 0" in by_name["picture"].metadata["error"]
