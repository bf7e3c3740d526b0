"""The agent loop: a model, tools, and the executor between them.

``run_agent(model, prompt, tools=[...])`` asks the model, runs the tools it calls through an
executor (permissions, approvals, timeouts, the log), sends the results back and repeats until
the model answers without a call; it returns a :class:`Transcript` of everything that happened.
"""

from __future__ import annotations

from workbench.agent._loop import arerun, arun_agent, default_executor, new_run_id, rerun, run_agent
from workbench.agent._transcript import STOP_REASONS, ModelStep, Step, ToolStep, Transcript

__all__ = ["ModelStep", "STOP_REASONS", "Step", "ToolStep", "Transcript", "arerun", "arun_agent", "default_executor",
           "new_run_id", "rerun", "run_agent"]
