"""``TranscriptView``: the notebook view of an agent run — chat, trace and raw tabs.

Shows a finished :class:`~workbench.agent.Transcript`, or follows a run live: pass
``on_step=view.add_step`` to ``run_agent``. The tabs are the escaped HTML of
``workbench.agent._html`` (the same a saved notebook keeps as its static copy).
"""

from __future__ import annotations

import threading
from typing import Any, Optional

import ipywidgets as W

from workbench.agent import Step, Transcript
from workbench.agent._html import chat_html, raw_html, summary_html, trace_html, transcript_html

__all__ = ["TranscriptView"]

_TABS = ("Chat", "Trace", "Raw")


class TranscriptView(W.VBox):
    """A summary line over three tabs: **Chat** (the conversation), **Trace** (a row per step with
    latency and tokens) and **Raw** (each model turn's request and response JSON)."""

    def __init__(self, transcript: Optional[Transcript] = None, *, prompt: Optional[list[dict]] = None) -> None:
        self.transcript = transcript
        self.prompt: list[dict] = list(transcript.prompt if transcript is not None else prompt or [])
        self.steps: list[Step] = list(transcript.steps) if transcript is not None else []
        self._lock = threading.Lock()  # add_step may come from the thread a run_agent runs in
        self.summary = W.HTML()
        self.chat, self.trace, self.raw = W.HTML(), W.HTML(), W.HTML()
        self.tabs = W.Tab(children=[self.chat, self.trace, self.raw])
        for index, title in enumerate(_TABS):
            self.tabs.set_title(index, title)
        super().__init__([self.summary, self.tabs])
        self.add_class("workbench-transcript-view")
        self._render()

    def add_step(self, step: Step) -> None:
        """Append one step and redraw (use as ``run_agent(..., on_step=view.add_step)``)."""
        with self._lock:
            self.steps.append(step)
            self._render()

    def update(self, transcript: Transcript) -> None:
        """Show ``transcript`` (e.g. the finished run after following it live)."""
        with self._lock:
            self.transcript = transcript
            self.prompt, self.steps = list(transcript.prompt), list(transcript.steps)
            self._render()

    def _render(self) -> None:
        if self.transcript is not None:
            self.summary.value = summary_html(self.transcript)
        else:
            self.summary.value = f"<i>running… {len(self.steps)} steps</i>"
        self.chat.value = chat_html(self.prompt, self.steps)
        self.trace.value = trace_html(self.steps)
        self.raw.value = raw_html(self.steps)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget plus a static ``text/html`` copy and plain text, kept by a saved notebook."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data = dict(data[0] if isinstance(data, tuple) else data)
        if self.transcript is not None:
            data["text/plain"] = str(self.transcript)
            data["text/html"] = transcript_html(self.transcript)
        else:
            data["text/html"] = chat_html(self.prompt, self.steps) + trace_html(self.steps)
        return data
