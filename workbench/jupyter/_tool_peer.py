"""The peer of a tool run from a notebook form: ``ctx.elicit`` shows the elicitation form (the same
widget that answers an MCP server's ``elicitation/create``) inside the tool's form and waits for
Accept / Decline / Cancel; ``ctx.log`` lines already reach the form through the executor's events;
``ctx.sample`` is answered by the form's ``sampling_model``, else the workbench's, else fails saying
how to set one."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, Optional

from workbench._peer import Elicitation, NobodyToAsk, Sampled

__all__ = ["FormPeer", "SET_A_MODEL"]

#: how a notebook user gives the tools' ``ctx.sample`` a model (said by the errors)
SET_A_MODEL = "set get_workbench().sampling_model = 'openai:gpt-4.1-mini' (or any Model)"


class FormPeer:
    """Answers one form's tool calls; the elicitation prompt is built on first use."""

    loop: Optional[asyncio.AbstractEventLoop] = None  # questions run on any loop (the prompt waits in a thread)

    def __init__(self, form: Any) -> None:
        self.form = form

    def log(self, level: str, message: str, tool_name: str) -> None:
        """Shown by the form from the executor's log events; nothing more to send."""

    def prompt(self) -> Any:
        form = self.form
        if form.elicitation is None:
            from workbench.jupyter._mcp_requests import ElicitationPrompt

            form.elicitation = ElicitationPrompt(form.workbench, form_class=type(form))
            form.ask_box.children = (form.elicitation.widget,)
        return form.elicitation

    async def elicit(self, message: str, schema: dict[str, Any], tool_name: str) -> Elicitation:
        prompt = self.prompt()
        prompt.asker = f"The tool {tool_name}"
        request = SimpleNamespace(message=message, requested_schema=schema, mode="form", url=None)
        try:
            answer = await asyncio.to_thread(prompt, request)
        except asyncio.CancelledError:  # the run was cancelled: withdraw the question, ending the waiting thread
            prompt.cancel()
            raise
        if isinstance(answer, dict):
            return Elicitation("accept", answer)
        return Elicitation(str(answer or "cancel"), {})

    async def sample(self, messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str) -> Sampled:
        from workbench.models._sampling import sample_with_model

        form = self.form
        model = (
            form.sampling_model if form.sampling_model is not None else getattr(form.workbench, "sampling_model", None)
        )
        if model is None:
            raise NobodyToAsk(
                f"Tool '{tool_name}' called ToolContext.sample() from a form, which has no model to ask: "
                f"{SET_A_MODEL}, or ToolForm(..., sampling_model=...)"
            )
        return await sample_with_model(model, messages, options, tool_name)

    def release_stream(self) -> bool:
        return False
