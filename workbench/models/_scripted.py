"""``ScriptedModel``: a model that answers with turns written in advance (tests, tutorials, CI)."""

from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, Sequence, Union

from workbench.models._base import Message, Model, tool_specs
from workbench.models._turn import ModelError, ModelTurn

Script = Union[ModelTurn, dict, str, Callable[[list, list], Any]]


class ScriptedModel(Model):
    """Returns the given turns in order, with no network and no randomness.

    Each turn is a :class:`ModelTurn`, a dict (``{"text": ..., "tool_calls": [{"name", "input"}]}``),
    a string (a text answer) or a function of ``(messages, tools)`` — tools as specs — returning any
    of those (sync or async). A call past the last turn raises :class:`ModelError`
    (``kind="script_exhausted"``) unless ``repeat_last=True``. ``calls`` records every request.

    Each conversation starts the script afresh: ``run_agent`` and every job of ``run_evals`` (each
    case, repeat, variant and model, in threads or on Dask workers) get :meth:`fresh`, a copy at the
    first turn whose requests are recorded in this model's ``calls`` too. Calling :meth:`complete`
    directly continues one conversation, turn after turn.
    """

    provider = "scripted"

    def __init__(self, turns: Sequence[Script], *, name: str = "scripted", repeat_last: bool = False):
        self.turns = list(turns)
        self.name = name
        self.repeat_last = repeat_last
        self.calls: list[dict[str, Any]] = []
        self._asked = 0  # turns asked of this conversation (``calls`` may be shared with its copies)

    def reset(self) -> None:
        """Start the script again from its first turn (and forget the recorded calls)."""
        self.calls.clear()
        self._asked = 0

    def fresh(self) -> "ScriptedModel":
        """A copy at the script's first turn, recording its requests into this model's ``calls``."""
        conversation = copy.copy(self)  # shallow: the turns and the ``calls`` list are shared
        conversation._asked = 0
        return conversation

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        index = self._asked
        self._asked += 1
        specs = tool_specs(tools)
        self.calls.append(
            {"messages": list(messages), "tools": [s.name for s in specs], "tool_choice": tool_choice, "params": params}
        )
        if index >= len(self.turns):
            if not (self.repeat_last and self.turns):
                raise ModelError(
                    f"ScriptedModel '{self.name}' has {len(self.turns)} turn(s) and was asked for turn {index + 1}",
                    kind="script_exhausted",
                    provider=self.provider,
                    model=self.name,
                )
            index = len(self.turns) - 1
        script = self.turns[index]
        if callable(script) and not isinstance(script, ModelTurn):
            script = script(list(messages), specs)
            if inspect.isawaitable(script):
                script = await script
        turn = as_turn(script)
        turn.model = turn.model or self.id
        return turn

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        from workbench._async import run_sync

        return run_sync(self.acomplete(messages, tools=tools, tool_choice=tool_choice, **params))


def as_turn(value: Any) -> ModelTurn:
    """A :class:`ModelTurn` from a turn, a dict or a string."""
    if isinstance(value, ModelTurn):
        return ModelTurn(**{f: getattr(value, f) for f in ModelTurn.__dataclass_fields__})  # a copy per answer
    if isinstance(value, str):
        return ModelTurn(text=value, stop_reason="end_turn")
    if isinstance(value, dict):
        return ModelTurn.from_dict(value)
    raise TypeError(f"a scripted turn must be a ModelTurn, a dict or a string, not {type(value).__name__}")
