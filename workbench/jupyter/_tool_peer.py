"""The peer of a tool run from a notebook form: ``ctx.elicit`` shows the elicitation form (the same
widget that answers an MCP server's ``elicitation/create``) inside the tool's form and waits for
Accept / Decline / Cancel; ``ctx.log`` lines already reach the form through the executor's events.
Sampling needs a model the form does not have: it fails saying so."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, Optional

from workbench._peer import Elicitation, NobodyToAsk, Sampled

__all__ = ["FormPeer"]


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

            form.elicitation = ElicitationPrompt(form.workbench)
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
        raise NobodyToAsk(f"Tool '{tool_name}' called ToolContext.sample() from a form, which has no model to ask: "
                          "run it in the agent loop, or serve it to an MCP client that samples")

    def release_stream(self) -> bool:
        return False
