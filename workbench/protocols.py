"""The shapes the workbench accepts by behaviour, not by class: ``typing.Protocol``s.

* :class:`ToolLookup` / :class:`ToolSource` — where tools come from: a ``ToolRegistry``, an
  ``McpConnection``, or your own object. An executor needs only ``get_tool``; a model (and so the
  agent loop and ``run_evals``) also lists the tools' specs. Plain lists of tools (an adapter's
  output, ``[add, sub]``) are turned into a registry by ``workbench.registry.as_tool_registry``.
* :class:`LogSink` / :class:`RunLog` — where finished calls are written: the executors call
  ``append`` (an ``ExecutionLog``, or your own sink); agent runs also record their runs and model
  turns when the sink is a :class:`RunLog`.
* :class:`Scorer` — an eval scorer: ``scorer(case, transcript)`` returns a score (as inspect_ai's
  ``Scorer``, a callable of the run's state and target). :class:`NamedScorer`,
  :class:`ThresholdScorer` and :class:`CachingScorer` are the optional parts ``run_evals`` looks for.

Each is ``runtime_checkable``: ``isinstance(obj, ToolSource)`` says whether ``obj`` has the methods
(not their signatures). ``docs/extending.md`` has a short example of each.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, Optional, Protocol, Union, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from workbench.spec import ToolSpec
    from workbench.tools import BaseTool
    from workbench.types import ToolResult, ToolUse

__all__ = [
    "CachingScorer",
    "LogSink",
    "NamedScorer",
    "RunLog",
    "ScoreValue",
    "Scorer",
    "ThresholdScorer",
    "ToolLookup",
    "ToolSource",
]


@runtime_checkable
class ToolLookup(Protocol):
    """Tools by name: what an executor calls through."""

    def get_tool(self, tool_name: str) -> BaseTool:
        """The tool called ``tool_name``; ``KeyError`` (naming what there is) when there is none."""
        ...


@runtime_checkable
class ToolSource(ToolLookup, Protocol):
    """Tools by name and the specs of all of them: what a model is offered and an agent runs."""

    def get_all_tool_specs(self) -> list[ToolSpec]:
        """The specs of every tool, in the order a model is shown them."""
        ...


@runtime_checkable
class LogSink(Protocol):
    """Where an executor writes each finished call (``success`` or ``error``; never ``in_progress``)."""

    def append(
        self,
        result: ToolResult,
        tool_use: Optional[Union[ToolUse, Mapping[str, Any]]] = None,
        *,
        input: Optional[dict[str, Any]] = None,
        run_id: Optional[str] = None,
        turn: Optional[int] = None,
    ) -> object:
        """Record one call: its result, the tool use that made it (``name`` and ``input``), ``input``
        when it differs from the tool use's (secret parameters masked: the one to keep), and the agent
        run and model turn that made it, if any."""
        ...


@runtime_checkable
class RunLog(LogSink, Protocol):
    """A :class:`LogSink` that also keeps agent runs whole: each run and each of its model turns."""

    def start_run(
        self,
        run_id: str,
        *,
        model: Optional[str],
        prompt: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        settings: dict[str, Any],
        started_at: Optional[str] = None,
    ) -> None:
        """A run starts: its model, the messages it starts from, the tool specs it offers, its settings."""
        ...

    def append_turn(self, run_id: str, turn: int, data: Mapping[str, Any]) -> object:
        """One model turn of the run (``ModelTurn.to_dict()`` plus ``error``/``error_kind``/``started_at``)."""
        ...

    def end_run(
        self,
        run_id: str,
        *,
        stopped_because: str,
        error: Optional[str] = None,
        final_text: Optional[str] = None,
        turns: int = 0,
        tool_calls: int = 0,
        input_tokens: int = 0,
        output_tokens: int = 0,
        duration_ms: Optional[float] = None,
        completed_at: Optional[str] = None,
    ) -> None:
        """How the run ended, and its totals."""
        ...


#: What a scorer's verdict holds: pass/fail, a score from 0 to 1, or ``None`` (the scorer does not apply).
ScoreValue = Union[bool, float, None]


@runtime_checkable
class Scorer(Protocol):
    """``scorer(case, transcript)``: how one eval run did.

    ``case`` is the ``EvalCase`` (or ``ToolCase``) run, ``transcript`` the run's
    ``workbench.agent.Transcript``. The result is a :data:`ScoreValue`, a ``(value, reason)`` pair, a
    ``workbench.evals.Score``, or an awaitable of one of these (an async scorer)."""

    def __call__(
        self, case: Any, transcript: Any
    ) -> Union[ScoreValue, tuple[ScoreValue, str], object, Awaitable[object]]: ...


@runtime_checkable
class NamedScorer(Scorer, Protocol):
    """A scorer that names its results column (a plain function is named by its ``__name__``)."""

    name: str


@runtime_checkable
class ThresholdScorer(Scorer, Protocol):
    """A scorer with its own pass mark: a score passes at ``threshold`` or more (else at 1.0)."""

    threshold: float


@runtime_checkable
class CachingScorer(Scorer, Protocol):
    """A scorer that asks a model (an LLM judge): ``run_evals`` gives it the run's request cache."""

    def cached(self, cache: Any) -> Scorer:
        """The same scorer, its model requests answered from ``cache`` when they were asked before."""
        ...
