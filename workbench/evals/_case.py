"""Evaluation cases and suites: what to ask a model, and which calls it should make."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional, Sequence, Union

from workbench.evals._scoring import ExpectedCall

Check = Callable[[Any], Union[bool, str, None]]


@dataclass
class EvalCase:
    """One question for a model and what its tool calls must be.

    ``prompt`` (a user message) or ``messages`` (provider-neutral messages) is what the model is
    asked. ``expect_calls`` lists the calls it should make, each argument with its acceptable values
    (``""`` meaning "may be omitted", BFCL's convention; a non-list value means that value alone —
    write ``[[1, 2]]`` for the list ``[1, 2]``). ``order`` is ``"any"`` (parallel calls, any order) or
    ``"exact"``. ``expect_no_call=True``: the model must call no tool. ``tools``: the tool names
    offered for this case (default: all the suite's tools), or spec dicts of tools offered to this
    case alone. ``check(transcript)`` may add a final-state or final-text check: it returns True/None
    (pass), False or a failure message.
    """

    id: str
    prompt: Optional[str] = None
    messages: Optional[list[dict[str, Any]]] = None
    expect_calls: Optional[list[Any]] = None
    order: str = "any"
    expect_no_call: bool = False
    tools: Optional[list[Any]] = None
    check: Optional[Check] = None
    tags: Sequence[str] = ()
    system: Optional[str] = None

    #: the scorers ``run_evals`` applies when given none (BFCL multi-turn cases: ``final_state``)
    default_scorers: ClassVar[tuple[str, ...]] = ("calls",)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"an EvalCase needs a non-empty string id, not {self.id!r}")
        if (self.prompt is None) == (self.messages is None):
            raise ValueError(f"EvalCase {self.id!r}: give exactly one of prompt= or messages=")
        if self.order not in ("any", "exact"):
            raise ValueError(f"EvalCase {self.id!r}: order must be 'any' or 'exact', not {self.order!r}")
        if self.expect_no_call and self.expect_calls:
            raise ValueError(f"EvalCase {self.id!r}: expect_no_call=True and expect_calls contradict each other")
        try:
            self.expected = [ExpectedCall.coerce(c) for c in self.expect_calls or []]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"EvalCase {self.id!r}: {exc}") from None
        self.tags = tuple(self.tags)

    @property
    def input_messages(self) -> list[dict[str, Any]]:
        """The messages the model is sent (system first when the case has one)."""
        from workbench.models import as_messages

        return as_messages(self.prompt if self.prompt is not None else (self.messages or []), self.system)

    def to_dict(self) -> dict[str, Any]:
        """The case as JSON (a ``check`` function is not data: it is left out)."""
        data: dict[str, Any] = {"id": self.id}
        if self.prompt is not None:
            data["prompt"] = self.prompt
        else:
            data["messages"] = self.messages
        if self.system is not None:
            data["system"] = self.system
        if self.expect_no_call:
            data["expect_no_call"] = True
        else:
            data["expect_calls"] = [e.to_dict() for e in self.expected]
        if self.order != "any":
            data["order"] = self.order
        if self.tools is not None:
            data["tools"] = self.tools
        if self.tags:
            data["tags"] = list(self.tags)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalCase":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "check"}
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"eval case {data.get('id')!r}: unknown keys {unknown}")
        return cls(**known)


@dataclass
class EvalSuite:
    """Cases and the tools they are asked with. ``tools`` is anything ``ToolRegistry.process_tools``
    takes (tools, modules, refs) or spec dicts (spec-only tools); ``model`` an optional default model
    for the pytest plugin and the ``workbench eval`` command — a model string or a model entry
    ``{"id": "openai:…", "base_url": …, "params": {…}}``; ``max_turns`` how the suite is run (1: the first answer is scored)."""

    name: str
    cases: list[EvalCase] = field(default_factory=list)
    tools: list[Any] = field(default_factory=list)
    model: Optional[Union[str, dict]] = None
    path: Optional[str] = None
    max_turns: int = 1

    def __post_init__(self) -> None:
        if self.model is not None:
            from workbench.models._resolve import check_model_entry

            try:
                check_model_entry(self.model)
            except ValueError as exc:
                raise ValueError(f"suite {self.name!r}: model: {exc}") from None
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"suite {self.name!r}: max_turns must be a positive integer, got {self.max_turns!r}")
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise ValueError(f"suite {self.name!r}: two cases have the id {case.id!r}")
            seen.add(case.id)

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self):
        return iter(self.cases)
