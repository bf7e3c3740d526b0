"""A tool's ``ctx.sample`` answered by one of the workbench's models (in a notebook, in the agent loop).

MCP sampling messages (``{"role", "content": {"type": "text", "text"}}``) become the provider-neutral
messages of :class:`~workbench.models.Model`; ``system_prompt``, ``max_tokens`` and ``temperature``
become the system message and the request's parameters. The other MCP options (``stop_sequences``,
``model_preferences``, ``include_context``, ``metadata``) are hints a client may ignore, as MCP
allows: the model is the one the user chose.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional, Union

from workbench._peer import Elicitation, NobodyToAsk, Sampled
from workbench.models._base import Message, Model
from workbench.models._resolve import resolve_model

__all__ = ["ModelPeer", "sample_with_model", "sampling_request"]

ModelSource = Union[Model, str, None, Callable[[], Union[Model, str, None]]]

#: MCP sampling options that become model parameters (the MCP name → the model's)
_PARAMS = {"max_tokens": "max_tokens", "temperature": "temperature"}


def sampling_request(
    messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str
) -> tuple[list[Message], dict[str, Any]]:
    """The model messages and parameters of one sampling request (text messages only: a model here
    takes text; an image or audio block is refused naming the tool and the message)."""
    chat: list[Message] = []
    system = options.get("system_prompt")
    if system:
        chat.append({"role": "system", "content": str(system)})
    for index, message in enumerate(messages):
        content = message["content"]
        if content.get("type") != "text":
            raise ValueError(
                f"Tool '{tool_name}' asked a workbench model with a {content.get('type')!r} block in "
                f"message {index}: the workbench's models are asked with text messages only"
            )
        chat.append({"role": message["role"], "content": str(content.get("text", ""))})
    params = {ours: options[mcp] for mcp, ours in _PARAMS.items() if options.get(mcp) is not None}
    return chat, params


async def sample_with_model(
    model: Union[Model, str], messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str
) -> Sampled:
    """``model``'s answer to a tool's sampling request, as :class:`~workbench._peer.Sampled`."""
    model = resolve_model(model)
    chat, params = sampling_request(messages, options, tool_name)
    turn = await model.acomplete(chat, **params)
    return Sampled(turn.text, turn.model or model.id, turn.stop_reason, {"type": "text", "text": turn.text})


class ModelPeer:
    """A peer that answers ``ctx.sample`` with a model and nothing else: ``ctx.log`` lines stay with the
    call (its log row), and ``ctx.elicit`` fails — there is no form to show (``where`` says where the
    tool ran, for the errors). ``model`` is a model, a ``"provider:model"`` string, or a function
    returning one when asked (a setting read at that moment); ``None``: no model, a clear error."""

    loop: Optional[asyncio.AbstractEventLoop] = None

    def __init__(self, model: ModelSource, *, where: str, configure: str = "") -> None:
        self._model = model
        self.where = where
        self.configure = configure

    def model(self) -> Union[Model, str, None]:
        """The model that answers now (``None``: none is configured)."""
        return self._model() if callable(self._model) and not isinstance(self._model, Model) else self._model

    def log(self, level: str, message: str, tool_name: str) -> None:
        """Kept by the call's context (its row in the execution log); nothing to send."""

    async def elicit(self, message: str, schema: dict[str, Any], tool_name: str) -> Elicitation:
        raise NobodyToAsk(
            f"Tool '{tool_name}' called ToolContext.elicit() in {self.where}, where there is no form "
            "to ask the user: run it from its form (ToolForm), or serve it to an MCP client"
        )

    async def sample(self, messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str) -> Sampled:
        model = self.model()
        if model is None:
            raise NobodyToAsk(
                f"Tool '{tool_name}' called ToolContext.sample() in {self.where}, which has no model "
                f"to ask{': ' + self.configure if self.configure else ''}"
            )
        return await sample_with_model(model, messages, options, tool_name)

    def release_stream(self) -> bool:
        return False
