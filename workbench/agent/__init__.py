"""The agent loop: a model, tools, and the executor between them.

``run_agent(model, prompt, tools=[...])`` asks the model, runs the tools it calls through an
executor (permissions, approvals, timeouts, the log), sends the results back and repeats until
the model answers without a call; it returns a :class:`Transcript` of everything that happened.
"""

from __future__ import annotations

from typing import Any, Optional

from workbench.agent._loop import arerun, arun_agent, default_executor, new_run_id, rerun, run_agent
from workbench.agent._transcript import STOP_REASONS, ModelStep, Step, ToolStep, Transcript

__all__ = [
    "ModelStep",
    "STOP_REASONS",
    "Step",
    "ToolStep",
    "Transcript",
    "arerun",
    "arun_agent",
    "default_executor",
    "live_view",
    "new_run_id",
    "rerun",
    "run_agent",
]


def live_view(prompt: Optional[list[dict]] = None) -> Any:
    """An empty notebook view that follows a run: ``view = live_view(); display(view)``, then
    ``run_agent(..., on_step=view.add_step)`` and ``view.update(transcript)``. Needs ipywidgets."""
    from workbench import _entry_points  # the notebook layer sits above the agent

    return _entry_points.transcript_view(None, prompt=prompt)
