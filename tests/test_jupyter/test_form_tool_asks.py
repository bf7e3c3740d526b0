"""A tool run from a notebook form that calls ``ctx.elicit``: the form shows the elicitation form
(the widget that answers MCP servers) and the tool gets the user's answer; ``ctx.sample`` from a form
fails saying there is no model."""

from __future__ import annotations

import threading

from tests.mcp_servers import eventually
from workbench import ToolContext, tool


@tool(context=True)
def greet_user(tool_context: ToolContext) -> str:
    tool_context.log("notice", "asking for a name")
    answer = tool_context.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string", "default": "Ann"}}}
    )
    return f"hello {answer.content.get('name')}" if answer.accepted else f"no name ({answer.action})"


@tool(context=True)
def summarize_text(text: str, tool_context: ToolContext) -> str:
    return tool_context.sample(f"Summarize: {text}").text


def _form(fn):
    from workbench.jupyter import ToolForm, Workbench
    from workbench.registry import ToolRegistry

    wb = Workbench(registry=ToolRegistry())
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


def _run_in_thread(form):
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("result", form.run()))
    worker.start()
    return worker, out


def test_a_form_run_shows_the_elicitation_form_and_the_tool_gets_the_answer() -> None:
    form = _form(greet_user)
    assert form.elicitation is None and form.ask_box.children == ()  # nothing built until a tool asks
    for answer, expected in (({"name": "Bo"}, "hello Bo"), ("decline", "no name (decline)")):
        worker, out = _run_in_thread(form)
        prompt = eventually(
            lambda: form.elicitation if form.elicitation is not None and form.elicitation.pending else None,
            what="the elicitation form",
        )
        assert form.ask_box.children == (prompt.widget,)
        assert "<b>The tool greet_user asks</b>: Your name?" in prompt.message.value
        if answer == "decline":
            prompt.decline()
        else:
            assert prompt.accept(answer)
        worker.join(30)
        assert out["result"].text == expected


def test_sampling_from_a_form_says_there_is_no_model() -> None:
    form = _form(summarize_text)
    form.set_values({"text": "long text"})
    result = form.run()
    assert result.status == "error" and "has no model to ask" in result.metadata["error"]


@tool(context=True)
async def greet_user_async(tool_context: ToolContext) -> str:
    answer = await tool_context.aelicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"hello {answer.content.get('name')}" if answer.accepted else f"no name ({answer.action})"


def test_cancelling_a_run_that_asks_withdraws_the_question() -> None:
    """Cancel while the elicitation form waits: the run ends cancelled, and the form's question is
    withdrawn (hidden, nothing left waiting on it) — for a sync and an async tool."""
    for fn in (greet_user, greet_user_async):
        form = _form(fn)
        worker, out = _run_in_thread(form)
        prompt = eventually(
            lambda: (
                form.elicitation if form.elicitation is not None and form.elicitation.pending else None  # noqa: B023 - called in this iteration
            ),
            what=f"{fn.tool_name}'s elicitation form",
        )
        assert form.cancel()
        worker.join(60)
        assert not worker.is_alive(), f"{fn.tool_name}: the cancelled run never ended"
        assert out["result"].status == "error" and out["result"].metadata["error_type"] == "CancelledError"
        eventually(
            lambda: not prompt.pending and prompt.widget.layout.display == "none",  # noqa: B023 - called in this iteration
            what=f"{fn.tool_name}'s question withdrawn",
        )
