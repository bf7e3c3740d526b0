"""A model with default parameters bound to it: :meth:`Model.with_params`."""

from __future__ import annotations

from typing import Any, Sequence

from workbench.models._base import Message, Model
from workbench.models._turn import ModelTurn


class BoundParamsModel(Model):
    """``model`` sending ``params`` (``temperature``, ``max_tokens``…) with every request; a parameter
    given to one request overrides the bound one. Same id as ``model``, so reports and transcripts
    name the model, not the wrapper; the bound parameters are in :attr:`params`."""

    def __init__(self, model: Model, params: dict[str, Any]) -> None:
        self.model = model
        self.params = dict(params)
        self.provider, self.name = model.provider, model.name

    def fresh(self) -> "BoundParamsModel":
        return BoundParamsModel(self.model.fresh(), self.params)

    def _secrets(self) -> list[str]:
        secrets = getattr(self.model, "_secrets", None)
        return list(secrets()) if callable(secrets) else []

    async def acomplete(self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None,
                        **params: Any) -> ModelTurn:
        return await self.model.acomplete(messages, tools=tools, tool_choice=tool_choice, **{**self.params, **params})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {sorted(self.params)}>"
