"""Multi-turn conversations: the user's turns asked in order, each running the agent loop until the
model answers without a call, as one transcript.

Each user turn is one :func:`~workbench.agent.arun_agent` run over the conversation so far (so
every call goes through the executor and the log); the turns' steps are joined into one
:class:`~workbench.agent.Transcript` whose ``settings["turn_starts"]`` holds, per user turn, the
index of its first model step — :func:`calls_by_turn` reads the calls back per user turn.
"""

from __future__ import annotations

import bisect
import time
from typing import Any, Callable, Sequence

from workbench.agent import ModelStep, ToolStep, Transcript, arun_agent, new_run_id
from workbench.types import utc_now_iso

#: ``tools_for(turn_index) -> tools`` offered during that user turn (a registry or a list of tools)
ToolsForTurn = Callable[[int], Any]


async def arun_turns(
    model: Any,
    turns: Sequence[Sequence[dict]],
    tools_for: ToolsForTurn,
    *,
    executor: Any = None,
    log: Any = None,
    step_limit: int = 10,
    tool_choice: Any = None,
    **params: Any,
) -> Transcript:
    """Ask ``turns`` (each a list of messages, usually one user message) in order; during turn ``i``
    the model is offered ``tools_for(i)`` and may take up to ``step_limit`` model steps. The run stops
    early when a turn ends otherwise than by an answer without a call (step limit, model error)."""
    from workbench.models import get

    model = get(model).fresh()  # one conversation: the user turns continue it (a script's position, a replay's)
    run = Transcript(run_id=new_run_id(), model=model.id, started_at=utc_now_iso())
    starts: list[int] = []
    run_ids: list[str] = []
    messages: list[dict] = []
    t0 = time.perf_counter()
    for index, turn in enumerate(turns):
        messages = messages + [dict(m) for m in turn]
        if index == 0:
            run.prompt = [dict(m) for m in messages]
        part = await arun_agent(
            model,
            messages,
            tools=tools_for(index),
            executor=executor,
            log=log,
            max_turns=step_limit,
            tool_choice=tool_choice,
            new_conversation=False,
            **params,
        )
        offset = len(run.model_steps)
        starts.append(offset)
        run_ids.append(part.run_id)
        for step in part.steps:  # model step numbers run on across the user turns
            if isinstance(step, ModelStep):
                run.steps.append(
                    ModelStep(step.turn, step.index + offset, step.error, step.error_kind, step.started_at)
                )
            else:
                run.steps.append(ToolStep(step.tool_use, step.result, step.turn_index + offset, step.original))
        run.tools = part.tools if len(part.tools) > len(run.tools) else run.tools
        run.settings = {**part.settings, "turn_starts": starts, "turn_run_ids": run_ids, "user_turns": len(turns)}
        messages = part.messages
        run.stopped_because, run.error = part.stopped_because, part.error
        if part.stopped_because != "end_turn":
            break
    run.messages = messages
    run.duration_ms = (time.perf_counter() - t0) * 1000.0
    return run


def calls_by_turn(transcript: Transcript, *, ran_only: bool = False) -> list[list[list[dict]]]:
    """The model's calls per user turn, per model step: ``[turn][step] -> [ToolUse]`` (steps without a
    call left out). ``ran_only``: only the calls that reached their tool (a success, or an error the
    tool raised) — not those the executor refused (unknown tool, invalid arguments, denied)."""
    starts = list(transcript.settings.get("turn_starts") or [0])
    turns: list[list[list[dict]]] = [[] for _ in starts]
    if not ran_only:
        for step in transcript.model_steps:
            if step.turn.tool_calls:
                turns[bisect.bisect_right(starts, step.index) - 1].append([dict(c) for c in step.turn.tool_calls])
        return turns
    by_step: dict[int, list[dict]] = {}
    for tool_step in transcript.tool_steps:
        if tool_step.result.status == "success" or "traceback" in tool_step.result.metadata:
            by_step.setdefault(tool_step.turn_index, []).append(dict(tool_step.tool_use))
    for index in sorted(by_step):
        turns[bisect.bisect_right(starts, index) - 1].append(by_step[index])
    return turns


def turns_started(transcript: Transcript) -> int:
    """How many user turns the run got to."""
    return len(transcript.settings.get("turn_starts") or [0])
