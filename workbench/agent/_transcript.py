"""What an agent run leaves behind: :class:`Transcript`, made of :class:`ModelStep`s and :class:`ToolStep`s."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from pydantic_core import from_json, to_json

from workbench.agent._from_log import transcript_fields
from workbench.agent._html import transcript_html
from workbench.agent._masking import learn_step, masked_message, masked_step
from workbench.agent._steps import ModelStep, Step, ToolStep, step_from_dict
from workbench.models import ModelTurn, Usage
from workbench.secrets import SecretCalls
from workbench.types import ToolResult, ToolUse

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas

__all__ = ["ModelStep", "ToolStep", "Step", "Transcript", "STOP_REASONS", "TRANSCRIPT_FORMAT", "DATAFRAME_COLUMNS"]

#: why a run stopped: the model answered without a call, the turn limit, a failed model call, a cancel
STOP_REASONS = ("end_turn", "max_turns", "model_error", "cancelled")

#: the ``format`` field of a saved transcript (``Transcript.save``), checked by ``Transcript.load``
TRANSCRIPT_FORMAT = "workbench.transcript/1"

#: columns of :meth:`Transcript.to_dataframe`, in order
DATAFRAME_COLUMNS = (
    "step",
    "kind",
    "turn",
    "name",
    "status",
    "text",
    "input",
    "tool_use_id",
    "edited",
    "latency_ms",
    "input_tokens",
    "output_tokens",
)


@dataclass
class Transcript:
    """Everything one agent run did, in order.

    ``messages`` is the whole conversation in the provider-neutral format (the ``prompt`` it
    started from, then an assistant message per model turn and a tool message per batch of results);
    ``steps`` the model turns and tool calls in order; ``stopped_because`` one of
    :data:`STOP_REASONS`; ``error`` the model's error message when it failed. ``tools`` are the
    offered tool specs (dicts) and ``settings`` the model params, ``tool_choice`` and ``max_turns``,
    so :func:`workbench.agent.rerun` can run it again.

    The object holds the calls as the model made them (a check or a score may need a secret's
    value); everything that leaves it — :meth:`to_dict`, :meth:`save`, the HTML, :meth:`view`,
    :meth:`to_dataframe` — is :meth:`masked`: the secret parameters of the offered tools are ``***``.
    """

    run_id: str
    model: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    stopped_because: Optional[str] = None
    error: Optional[str] = None
    duration_ms: float = 0.0
    started_at: Optional[str] = None
    prompt: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    # -- derived views -------------------------------------------------------------------------------
    @property
    def model_steps(self) -> list[ModelStep]:
        return [s for s in self.steps if isinstance(s, ModelStep)]

    @property
    def tool_steps(self) -> list[ToolStep]:
        return [s for s in self.steps if isinstance(s, ToolStep)]

    @property
    def turns(self) -> list[ModelTurn]:
        """The model's turns, in order."""
        return [s.turn for s in self.model_steps]

    @property
    def tool_calls(self) -> list[ToolUse]:
        """Every call the model made, as it made it (before any review edit), in order."""
        return [call for s in self.model_steps for call in s.turn.tool_calls]

    @property
    def tool_results(self) -> list[ToolResult]:
        """The result of every call, in order."""
        return [s.result for s in self.tool_steps]

    @property
    def final_text(self) -> str:
        """The text of the model's last successful turn ("" when there is none)."""
        for step in reversed(self.model_steps):
            if step.error is None:
                return step.turn.text
        return ""

    @property
    def usage(self) -> Usage:
        """Tokens of every turn, summed."""
        total = Usage()
        for step in self.model_steps:
            total = total + step.turn.usage
        return total

    @property
    def ok(self) -> bool:
        """Whether the model finished on its own (``stopped_because == "end_turn"``)."""
        return self.stopped_because == "end_turn"

    def masked(self) -> "Transcript":
        """A copy in which the secret parameters of the offered tools (``SecretStr``: ``format:
        password`` / ``writeOnly``) are ``***`` in every call, and the values the model gave them are
        masked wherever else they appear (raw requests and responses, results, the prompt) — this
        transcript itself when no offered tool has a secret parameter."""
        calls = SecretCalls.of(self.tools)
        if not calls:
            return self
        for step in self.steps:
            learn_step(step, calls)
        for message in self.messages:
            if message.get("role") == "assistant":
                for call in message.get("tool_calls") or ():
                    calls.learn(call)
        return replace(
            self,
            messages=[masked_message(m, calls) for m in self.messages],
            steps=[masked_step(s, calls) for s in self.steps],
            prompt=calls.values(self.prompt),
            error=calls.values(self.error),
        )

    # -- serialisation --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, secrets :meth:`masked` (:meth:`from_dict` reads it back)."""
        return self.masked()._as_dict()

    def _as_dict(self) -> dict[str, Any]:
        """The dict of :meth:`to_dict`, unmasked: only for a transcript that goes back to its run (a Dask
        worker's to the client that scores it), never to a file."""
        return {
            "format": TRANSCRIPT_FORMAT,
            "run_id": self.run_id,
            "model": self.model,
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
            "stopped_because": self.stopped_because,
            "error": self.error,
            "final_text": self.final_text,
            "usage": {"input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens},
            "prompt": self.prompt,
            "tools": self.tools,
            "settings": self.settings,
            "messages": [_message_dict(m) for m in self.messages],
            "steps": [s.to_dict() for s in self.steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Transcript":
        """A transcript from :meth:`to_dict`'s dict."""
        if not isinstance(data, dict) or data.get("format") != TRANSCRIPT_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"not a saved transcript: expected format {TRANSCRIPT_FORMAT!r}, got {found!r}")
        return cls(
            run_id=data["run_id"],
            model=data.get("model") or "",
            messages=list(data.get("messages") or []),
            steps=[step_from_dict(s) for s in data.get("steps") or []],
            stopped_because=data.get("stopped_because"),
            error=data.get("error"),
            duration_ms=float(data.get("duration_ms") or 0.0),
            started_at=data.get("started_at"),
            prompt=list(data.get("prompt") or []),
            tools=list(data.get("tools") or []),
            settings=dict(data.get("settings") or {}),
        )

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The transcript as JSON text, secrets masked (bytes as base64, anything else JSON cannot hold as its repr)."""
        return to_json(self.to_dict(), indent=indent, fallback=repr, bytes_mode="base64").decode()

    def save(self, path: Union[str, os.PathLike[str]]) -> Path:
        """Write the transcript to ``path`` as JSON, secrets masked (:meth:`load` reads it back); returns the path."""
        target = Path(os.fspath(path))
        target.write_text(self.to_json(), encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> "Transcript":
        """A transcript saved by :meth:`save`."""
        return cls.from_dict(from_json(Path(os.fspath(path)).read_bytes()))

    @classmethod
    def from_log(cls, log: Any, run_id: str) -> "Transcript":
        """The run ``run_id`` as the execution log kept it (``run_agent(..., log=log)``)."""
        return cls(**transcript_fields(log.run(run_id)))

    def to_dataframe(self) -> "pandas.DataFrame":
        """One row per step (:data:`DATAFRAME_COLUMNS`): model turns and tool calls in order, with
        latency and tokens, secrets masked. Needs pandas (imported here, not with the package)."""
        import pandas as pd

        rows: list[tuple[Any, ...]] = []
        for number, step in enumerate(self.masked().steps):
            if isinstance(step, ModelStep):
                turn = step.turn
                rows.append(
                    (
                        number,
                        "model",
                        step.index,
                        turn.model or self.model,
                        "error" if step.error else (turn.stop_reason or ""),
                        step.error or turn.text,
                        None,
                        None,
                        False,
                        turn.latency_ms,
                        turn.usage.input_tokens,
                        turn.usage.output_tokens,
                    )
                )
            else:
                result = step.result
                rows.append(
                    (
                        number,
                        "tool",
                        step.turn_index,
                        step.name,
                        result.status,
                        result.error if result.status == "error" else result.text,
                        step.tool_use.get("input"),
                        result.tool_use_id,
                        step.edited,
                        step.latency_ms,
                        None,
                        None,
                    )
                )
        frame = pd.DataFrame(rows, columns=list(DATAFRAME_COLUMNS))
        for column in ("input_tokens", "output_tokens"):
            frame[column] = frame[column].astype("Int64")
        frame["latency_ms"] = frame["latency_ms"].astype("float64")
        return frame

    # -- display ----------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        usage = self.usage
        return (
            f"Transcript({self.run_id!r}, {self.model!r}, {len(self.model_steps)} turns, "
            f"{len(self.tool_steps)} tool calls, stopped_because={self.stopped_because!r}, "
            f"tokens={usage.input_tokens}+{usage.output_tokens}, {self.duration_ms:.0f} ms)"
        )

    def __str__(self) -> str:
        """``print(transcript)``: the run as a chat — prompt, model turns with their calls, each call's
        result — secrets masked."""
        from workbench.agent._transcript_text import transcript_text as chat_text

        return chat_text(self)

    def view(self) -> Any:
        """The notebook view (chat, trace and raw tabs) as a widget; needs ipywidgets."""
        from workbench import _entry_points  # the notebook layer sits above the agent

        return _entry_points.transcript_view(self.masked())

    def _repr_html_(self) -> str:
        return transcript_html(self.masked())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """In a running kernel with ipywidgets: the notebook view (chat, trace, raw tabs); always a
        static, escaped ``text/html`` copy and ``text/plain``, which a saved notebook keeps."""
        from workbench._batch import _in_kernel

        bundle: dict[str, Any] = {}
        shown = self.masked()
        if _in_kernel():
            try:
                from workbench import _entry_points  # the notebook layer sits above the agent

                view = _entry_points.transcript_view(shown)
                data = view._repr_mimebundle_(include=include, exclude=exclude) or {}
                bundle.update(data[0] if isinstance(data, tuple) else data)
            except ImportError:  # no ipywidgets: the static view only
                pass
        bundle["text/plain"] = str(shown)
        bundle["text/html"] = transcript_html(shown)
        return bundle


def _message_dict(message: dict[str, Any]) -> dict[str, Any]:
    """A message with its ToolResults as wire dicts (messages hold dicts already; a caller's may not)."""
    results = message.get("results")
    if message.get("role") == "tool" and isinstance(results, list):
        return {**message, "results": [r.to_dict() if isinstance(r, ToolResult) else r for r in results]}
    if message.get("role") == "assistant" and message.get("tool_calls"):
        return {**message, "tool_calls": [dict(c) for c in message["tool_calls"]]}
    return dict(message)
