"""The agent loop: a model answers, its tool calls run through an executor, the results go back, repeat.

Every call reaches its tool through the executor's run path only, so permissions, approvals,
timeouts, idempotency and the execution log apply inside the loop exactly as in a form. A failed
model call ends the run (``stopped_because="model_error"``) with the transcript returned, never
raised; a malformed call (arguments that are not JSON) is answered with the executor's error
result, so the model can correct itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
import time
import uuid
import warnings
from typing import Any, Callable, Optional, Sequence

from workbench._async import run_sync
from workbench._peer import PEER_KEY
from workbench._unicode import replace_surrogates
from workbench._validation_mode import check_mode, validating
from workbench.agent._masking import masked_step
from workbench.agent._steps import ModelStep, Step, ToolStep
from workbench.agent._transcript import Transcript
from workbench.executor import ConcurrentExecutor, append_masked, approving
from workbench.models import Model, ModelError, ModelTurn, as_messages, get, tool_specs
from workbench.models._sampling import ModelPeer
from workbench.models._turn import without_surrogates
from workbench.protocols import LogSink, RunLog, ToolLookup
from workbench.registry import ToolRegistry, as_tool_registry, tool_list
from workbench.secrets import SecretCalls, mask_params, scrub_text
from workbench.tools import BaseTool
from workbench.types import ToolResult, ToolUse, error_result, new_tool_use_id, utc_now_iso

__all__ = ["run_agent", "arun_agent", "rerun", "arerun", "new_run_id", "Review", "StepListener"]

#: ``review(tool_use, tool) -> bool | dict`` (or an awaitable of one), asked before each call runs
Review = Callable[[ToolUse, Any], Any]
#: ``on_step(step)`` (sync or async), told of each step as it is appended
StepListener = Callable[[Step], Any]

_DENIED_TYPE = "DeniedByUser"
_REVIEW_FAILED_TYPE = "ReviewFailed"
_default_executor: Optional[ConcurrentExecutor] = None
_default_lock = threading.Lock()


def new_run_id() -> str:
    """A fresh run id (``run_`` + 24 hex characters)."""
    return "run_" + uuid.uuid4().hex[:24]


def default_executor() -> ConcurrentExecutor:
    """The executor runs use when given none: one ``ConcurrentExecutor()`` shared by every run (its
    thread pool is reused; each run's approver travels with the run, not the executor)."""
    global _default_executor
    with _default_lock:
        if _default_executor is None:
            _default_executor = ConcurrentExecutor()
        return _default_executor


def run_agent(
    model: "Model | str",
    prompt_or_messages: "str | Sequence[dict]",
    *,
    tools: Any,
    system: Optional[str] = None,
    executor: Any = None,
    log: Optional[LogSink] = None,
    max_turns: int = 10,
    tool_choice: Any = None,
    approver: Any = None,
    review: Optional[Review] = None,
    on_step: Optional[StepListener] = None,
    run_id: Optional[str] = None,
    new_conversation: bool = True,
    validation: Optional[str] = None,
    sampling_model: "Model | str | None" = None,
    **params: Any,
) -> Transcript:
    """Run ``model`` on ``prompt_or_messages`` with ``tools`` until it answers without a tool call.

    Args:
        model: a :class:`~workbench.models.Model` or a model string (``"openai:gpt-4.1-mini"``).
        prompt_or_messages: the user's prompt, or messages in the provider-neutral format.
        tools: a ``ToolRegistry``, a list (or dict) of tools, or specs (spec-only tools answer with
            generated values).
        system: a system prompt (replaces any system message in ``prompt_or_messages``).
        executor: runs the calls (default: one shared ``ConcurrentExecutor()``, so the parallel calls
            of one turn run concurrently).
        log: an ``ExecutionLog`` (any ``workbench.protocols.RunLog``) that keeps the whole run (calls with
            ``run_id`` and ``turn``, model turns, the run), or a ``LogSink`` that gets the calls only;
            default: the executor's own log, if it has one.
        max_turns: at most this many model turns (the calls of the last one still run).
        tool_choice: passed to the model each turn.
        approver: ``approver(tool_use, tool) -> bool`` for ``ASK_USER`` tools during this run
            (instead of the executor's); without any, they are denied.
        review: ``review(tool_use, tool) -> bool | dict`` (sync or async), asked before each call
            reaches the executor: ``True`` runs it, ``False`` answers it with an error result
            ("denied by the user"), a dict is an edited input (or an edited ToolUse) that runs
            instead — its ``toolUseId`` stays the model's; the transcript keeps both calls.
        on_step: ``on_step(step)`` (sync or async) with each step as it is appended.
        run_id: the run's id (default: a fresh one).
        new_conversation: True (the default) starts the model's conversation afresh
            (``model.fresh()``: a script at its first turn); False continues the conversation of the
            ``model`` object given — for a caller that asks several user turns of one conversation
            and called ``model.fresh()`` once itself.
        validation: how the run's tool calls check their input, ``"strict"`` or ``"lax"`` (pydantic's
            lax mode: ``"6"`` is 6 for an ``int``), over each tool's and registry's own mode; default:
            theirs (strict unless set). Adapted tools always check as their framework does.
        sampling_model: the model that answers a tool's ``ctx.sample`` during the run (a ``Model`` or
            a ``"provider:model"`` string); default: the run's own model — the same conversation
            object, so a ``ScriptedModel`` answers a sampling request with its next turn. A tool's
            ``ctx.elicit`` fails in a run (there is no form to ask the user).
        **params: passed to the model each turn (``temperature``, ``max_tokens``…).

    Returns:
        the run's :class:`Transcript`; ``stopped_because`` says why it ended (``end_turn``,
        ``max_turns``, ``model_error``, ``cancelled``).
    """
    return run_sync(
        arun_agent(
            model,
            prompt_or_messages,
            tools=tools,
            system=system,
            executor=executor,
            log=log,
            max_turns=max_turns,
            tool_choice=tool_choice,
            approver=approver,
            review=review,
            on_step=on_step,
            run_id=run_id,
            new_conversation=new_conversation,
            validation=validation,
            sampling_model=sampling_model,
            **params,
        )
    )


async def arun_agent(
    model: "Model | str",
    prompt_or_messages: "str | Sequence[dict]",
    *,
    tools: Any,
    system: Optional[str] = None,
    executor: Any = None,
    log: Optional[LogSink] = None,
    max_turns: int = 10,
    tool_choice: Any = None,
    approver: Any = None,
    review: Optional[Review] = None,
    on_step: Optional[StepListener] = None,
    run_id: Optional[str] = None,
    new_conversation: bool = True,
    validation: Optional[str] = None,
    sampling_model: "Model | str | None" = None,
    **params: Any,
) -> Transcript:
    """The async form of :func:`run_agent` (same arguments). Cancelling the task ends the run with
    ``stopped_because="cancelled"`` and returns the transcript so far."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
    check_mode(validation, "run_agent")
    model = get(model)
    if new_conversation:  # every run starts the model's conversation afresh (a script at its first turn)
        model = model.fresh()
    registry = _registry(tools)
    specs = tool_specs(registry)
    messages = as_messages(prompt_or_messages, system)
    executor = default_executor() if executor is None else executor
    log = getattr(executor, "log", None) if log is None else log
    peer = ModelPeer(model if sampling_model is None else get(sampling_model), where="an agent run")
    state = {**(getattr(executor, "invocation_state", None) or {}), PEER_KEY: peer}
    run = _Run(
        Transcript(
            run_id=run_id or new_run_id(),
            model=model.id,
            messages=messages,
            started_at=utc_now_iso(),
            prompt=[dict(m) for m in messages],
            tools=[spec.to_schema() for spec in specs],
            settings={
                "params": mask_params(params),
                "tool_choice": tool_choice,
                "max_turns": max_turns,
                **({"validation": validation} if validation is not None else {}),
            },
        ),
        log,
        on_step,
        SecretCalls.of(specs),
    )
    run.start()
    t0 = time.perf_counter()
    stopped, error = "max_turns", None
    try:
        # a run's mode, if it sets one, travels with it (as its approver does), not with a shared executor
        with approving(approver), validating(validation) if validation is not None else contextlib.nullcontext():
            for index in range(max_turns):
                step = await _model_turn(model, messages, specs, tool_choice, params, index)
                await run.add(step)
                if step.error is not None:
                    stopped, error = "model_error", step.error
                    break
                turn = step.turn
                messages.append(
                    {"role": "assistant", "content": turn.text, "tool_calls": [dict(call) for call in turn.tool_calls]}
                )
                if not turn.tool_calls:
                    stopped = "end_turn"
                    break
                tool_steps = await _run_calls(turn.tool_calls, index, registry, executor, review, run, state)
                messages.append({"role": "tool", "results": [s.result.to_dict() for s in tool_steps]})
    except asyncio.CancelledError:
        stopped, error = "cancelled", "the run was cancelled"
        run.answer_unanswered(messages)
    except BaseException as exc:  # a bug outside the model (a review's bad answer…): raised, the log says so
        stopped, error = "error", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        run.finish(stopped, error, (time.perf_counter() - t0) * 1000.0)
    return run.transcript


class _Run:
    """One run's bookkeeping: the transcript, the listener and the log (the last two get each step with
    the offered tools' secret parameters masked; the transcript keeps what happened)."""

    def __init__(
        self,
        transcript: Transcript,
        log: Optional[LogSink],
        on_step: Optional[StepListener],
        secrets: Optional[SecretCalls] = None,
    ) -> None:
        self.transcript = transcript
        self.on_step = on_step
        self.secrets = secrets or SecretCalls({})
        self.log = log if isinstance(log, RunLog) else None  # runs and turns need a RunLog (an ExecutionLog)
        self.call_log = log  # the executor's log argument: anything with append()

    def start(self) -> None:
        t = self.transcript
        if self.log is not None:
            self.log.start_run(
                t.run_id, model=t.model, prompt=t.prompt, tools=t.tools, settings=t.settings, started_at=t.started_at
            )

    def calls_log(self, turn: int) -> Any:
        """What the executor logs the calls of model turn ``turn`` to."""
        if self.call_log is None:
            return None
        if self.log is None:
            return self.call_log
        return _RunLog(self.log, self.transcript.run_id, turn)

    async def add(self, step: Step) -> None:
        self.transcript.steps.append(step)
        step = masked_step(step, self.secrets)
        if self.log is not None and isinstance(step, ModelStep):
            self.log.append_turn(
                self.transcript.run_id,
                step.index,
                {
                    **step.turn.to_dict(),
                    "error": step.error,
                    "error_kind": step.error_kind,
                    "started_at": step.started_at,
                },
            )
        if self.on_step is not None:
            try:
                outcome = self.on_step(step)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # noqa: BLE001 - a broken live view must not end the run
                warnings.warn(
                    f"workbench: on_step listener {self.on_step!r} failed: {type(exc).__name__}: {exc}",
                    RuntimeWarning,
                    stacklevel=2,
                )

    def answer_unanswered(self, messages: list[dict]) -> None:
        """After a cancel: answer the last turn's calls that got no result, so the messages stay a
        valid conversation (every provider wants a result for each call)."""
        if not messages or messages[-1].get("role") != "assistant" or not messages[-1].get("tool_calls"):
            return
        turn_index = self.transcript.model_steps[-1].index if self.transcript.model_steps else 0
        done = {
            s.result.tool_use_id: s
            for s in self.transcript.steps
            if isinstance(s, ToolStep) and s.turn_index == turn_index
        }
        steps = []
        for call in messages[-1]["tool_calls"]:
            step = done.get(call.get("toolUseId"))
            if step is None:
                step = ToolStep(
                    call,
                    _error_result(call, "the run was cancelled before this call finished", "CancelledError"),
                    turn_index,
                )
                self.transcript.steps.append(step)
            steps.append(step)
        self.order_turn(steps)
        messages.append({"role": "tool", "results": [s.result.to_dict() for s in steps]})

    def order_turn(self, steps: list[ToolStep]) -> None:
        """Put a turn's tool steps (the last ones appended, in the order they finished) in the
        order of the model's calls, so a transcript reads the same however the calls raced."""
        count = len(steps)
        if count > 1:
            self.transcript.steps[-count:] = steps

    def finish(self, stopped: str, error: Optional[str], duration_ms: float) -> None:
        t = self.transcript
        t.stopped_because, t.error, t.duration_ms = stopped, error, duration_ms
        if self.log is not None:
            usage = t.usage
            self.log.end_run(
                t.run_id,
                stopped_because=stopped,
                error=error,
                final_text=t.final_text,
                turns=len(t.model_steps),
                tool_calls=len(t.tool_steps),
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                duration_ms=duration_ms,
            )


class _RunLog:
    """An execution log seen through one model turn: the rows the executor appends carry the run's
    id and the turn (the executor calls ``append(result, tool_use)``)."""

    __slots__ = ("log", "run_id", "turn")

    def __init__(self, log: Any, run_id: str, turn: int) -> None:
        self.log, self.run_id, self.turn = log, run_id, turn

    def append(self, result: ToolResult, tool_use: Any = None, *, input: Optional[dict] = None) -> int:
        return self.log.append(result, tool_use, input=input, run_id=self.run_id, turn=self.turn)

    def append_many(self, items: Any) -> list[int]:
        return [self.append(*(item if isinstance(item, tuple) else (item,))) for item in items]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.log, name)


async def _model_turn(
    model: Model, messages: list[dict], specs: list, tool_choice: Any, params: dict, index: int
) -> ModelStep:
    """The model's ``index``-th turn as a step; a failure becomes a step with ``error`` (never raised)."""
    started_at = utc_now_iso()
    t0 = time.perf_counter()
    try:
        turn = await model.acomplete(list(messages), tools=specs, tool_choice=tool_choice, **params)
        if not isinstance(turn, ModelTurn):
            raise TypeError(f"{type(model).__name__}.acomplete returned {type(turn).__name__}, not a ModelTurn")
    except ModelError as exc:
        turn = exc.turn if isinstance(exc.turn, ModelTurn) else ModelTurn()
        return ModelStep(_stamped(turn, model, t0), index, _error_text(str(exc), model), exc.kind, started_at)
    except Exception as exc:  # noqa: BLE001 - a model that fails in its own way still ends the run as a model error
        return ModelStep(
            _stamped(ModelTurn(), model, t0),
            index,
            _error_text(f"{type(exc).__name__}: {exc}", model),
            "unknown",
            started_at,
        )
    return ModelStep(_stamped(turn, model, t0), index, started_at=started_at)


def _error_text(text: str, model: Model) -> str:
    """A model's error as the run keeps it: the model's own secrets (its key, whatever its shape) and
    secret-shaped text masked, in valid Unicode."""
    secrets = getattr(model, "_secrets", None)
    known = list(secrets()) if callable(secrets) else []
    return replace_surrogates(scrub_text(text, known))


def _stamped(turn: ModelTurn, model: Model, t0: float) -> ModelTurn:
    """``turn`` with its model id, and the latency the loop measured when the model gave none — in valid
    Unicode only (whatever model sent it: the log, files and views cannot hold lone surrogates)."""
    without_surrogates(turn)
    if not turn.latency_ms:
        turn.latency_ms = (time.perf_counter() - t0) * 1000.0
    turn.model = turn.model or model.id
    turn.tool_calls = [_with_id(call) for call in turn.tool_calls]  # before anyone sees the turn
    return turn


async def _run_calls(
    calls: list,
    index: int,
    registry: ToolRegistry,
    executor: Any,
    review: Optional[Review],
    run: _Run,
    state: Optional[dict] = None,
) -> list[ToolStep]:
    """Run one turn's calls (reviewed first, when there is a review). Each step is added as its call
    finishes (``on_step`` follows the calls live); the steps are returned, and left in the
    transcript, in the order of the model's calls."""
    planned: list[tuple[ToolUse, Optional[ToolUse], Optional[ToolResult]]] = []  # (call, original, answer)
    for call in calls:
        if review is None:
            planned.append((call, None, None))
        else:
            planned.append(await _reviewed(call, registry, review))
    log = run.calls_log(index)
    steps: list[Optional[ToolStep]] = [None] * len(planned)
    for position, (call, _original, answer) in enumerate(planned):
        if answer is not None:  # denied by the review: answered at once
            if log is not None:
                # the model saw this answer: the log keeps it with the run's calls
                append_masked(log, answer, call, run.secrets.names_of(call))
            step = steps[position] = ToolStep(call, answer, index)
            await run.add(step)
    positions = [p for p, (_, _, answer) in enumerate(planned) if answer is None]
    if len(positions) == 1:  # nothing to stream: one call (the common case) takes the executor's direct path
        [position] = positions
        [result] = await executor.execute([planned[position][0]], registry, log=log, invocation_state=state)
        step = steps[position] = ToolStep(planned[position][0], result, index, planned[position][1])
        await run.add(step)
    elif positions:
        stream = executor.execute_streaming(
            [planned[p][0] for p in positions], registry, log=log, invocation_state=state
        )
        try:
            async for j, result in stream:
                position = positions[j]
                steps[position] = ToolStep(planned[position][0], result, index, planned[position][1])
                await run.add(steps[position])
        finally:
            await stream.aclose()  # on a cancel: the calls in flight are cancelled now, not at garbage collection
    ordered = [step for step in steps if step is not None]
    run.order_turn(ordered)
    return ordered


async def _reviewed(
    call: ToolUse, registry: ToolRegistry, review: Review
) -> tuple[ToolUse, Optional[ToolUse], Optional[ToolResult]]:
    """What the review makes of ``call``: ``(call to run, original if edited, None)`` or ``(call, None, answer)``."""
    name = call.get("name") if isinstance(call, dict) else None
    tool = registry.get(name) if isinstance(name, str) else None
    try:
        decision = review(call, tool)
        if inspect.isawaitable(decision):
            decision = await decision
    except Exception as exc:  # noqa: BLE001 - as for an approver: the call is not run, the model is told
        return (
            call,
            None,
            _error_result(call, f"the review of this call failed: {type(exc).__name__}: {exc}", _REVIEW_FAILED_TYPE),
        )
    if decision is True:
        return call, None, None
    if decision is False:
        return call, None, _error_result(call, f"the call of tool '{name}' was denied by the user", _DENIED_TYPE)
    if isinstance(decision, dict):
        edited = _edited_call(call, decision, tool)
        return edited, (None if edited == call else call), None
    raise TypeError(
        f"review must return True (run the call), False (deny it) or a dict (an edited input or "
        f"ToolUse); it returned {decision!r:.80} for the call of tool '{name}'"
    )


def _edited_call(call: ToolUse, edit: dict, tool: Any) -> ToolUse:
    """The call a review's dict stands for: an edited ToolUse (it has ``toolUseId``, or exactly ``name``
    and ``input`` when those are not the tool's own parameters) or else an edited input. The model's
    ``toolUseId`` is kept, so the result answers the call the model made."""
    keys = set(edit)
    schema = tool.spec.parameters if tool is not None else {}
    params = set(schema.get("properties") or {}) if isinstance(schema, dict) else set()
    is_use = "toolUseId" in keys or ("input" in keys and keys <= {"name", "input"} and not keys <= params)
    if is_use:
        # (an edit may give any value: the executor refuses a call that names no tool)
        return {
            "toolUseId": call["toolUseId"],
            "name": edit.get("name", call.get("name")),  # type: ignore[typeddict-item]
            "input": edit.get("input", {}),
        }
    return {"toolUseId": call["toolUseId"], "name": call.get("name"), "input": dict(edit)}  # type: ignore[typeddict-item]


def _with_id(call: Any) -> Any:
    """``call`` with a ``toolUseId`` (a fresh one when the model gave none), so its result can answer it."""
    if isinstance(call, dict) and not call.get("toolUseId") and not call.get("id"):
        return {**call, "toolUseId": new_tool_use_id()}
    return call


def _error_result(call: Any, message: str, error_type: str) -> ToolResult:
    now = utc_now_iso()
    use_id = call.get("toolUseId") if isinstance(call, dict) else None
    name = call.get("name") if isinstance(call, dict) else None
    return error_result(
        str(use_id or ""), message, error_type, tool_name=name or "", started_at=now, completed_at=now, latency_ms=0.0
    )


# registries built for lists of tool objects, by the objects' ids: many runs over the same tools share
# one (a cached registry holds its tools, so their ids cannot be reused by other objects meanwhile)
_registries: dict[tuple[int, ...], ToolLookup] = {}
_REGISTRY_CACHE_SIZE = 64


def _registry(tools: Any) -> Any:
    """A registry for the executor from ``tools`` (``as_tool_registry``; ``None``: no tools); specs given
    without implementations answer with generated values (a registry the caller built keeps its own
    ``synthetic`` setting). A list of the same tool objects gets the same registry back (cached)."""
    if tools is None:
        return ToolRegistry()
    if isinstance(tools, (ToolRegistry, ToolLookup)):
        return tools
    items = tool_list(tools)
    cacheable = all(isinstance(item, BaseTool) for item in items)  # dicts and specs are rebuilt: they may change
    key = tuple(map(id, items))
    registry = _registries.get(key) if cacheable else None
    if registry is None:
        registry = as_tool_registry(items, synthesize_specs=True)
        if cacheable:
            if len(_registries) >= _REGISTRY_CACHE_SIZE:
                _registries.pop(next(iter(_registries)))
            _registries[key] = registry
    return registry


# -- re-running ------------------------------------------------------------------------------------------
def rerun(
    transcript: Transcript, model: "Model | str | None" = None, *, tools: Any = None, **options: Any
) -> Transcript:
    """Run ``transcript``'s prompt again with the same settings (params, ``tool_choice``,
    ``max_turns``), with ``model`` (default: the same model id) and ``tools`` (default: the
    transcript's tools, found by name in the default registry). ``options`` are :func:`run_agent`'s
    (``log``, ``executor``, ``approver``, ``review``…) and override settings (``temperature=0``…)."""
    return run_sync(arerun(transcript, model, tools=tools, **options))


async def arerun(
    transcript: Transcript, model: "Model | str | None" = None, *, tools: Any = None, **options: Any
) -> Transcript:
    """The async form of :func:`rerun`."""
    settings = transcript.settings or {}
    params = {k: v for k, v in (settings.get("params") or {}).items() if v != "***"}
    loop_options: dict[str, Any] = {
        "tool_choice": settings.get("tool_choice"),
        "max_turns": settings.get("max_turns") or 10,
        "validation": settings.get("validation"),
    }
    for key in (
        "system",
        "executor",
        "log",
        "approver",
        "review",
        "on_step",
        "run_id",
        "tool_choice",
        "max_turns",
        "validation",
        "sampling_model",
    ):
        if key in options:
            loop_options[key] = options.pop(key)
    params.update(options)
    return await arun_agent(
        model if model is not None else transcript.model,
        transcript.prompt,
        tools=_rerun_tools(transcript) if tools is None else tools,
        **loop_options,
        **params,
    )


def _rerun_tools(transcript: Transcript) -> Any:
    from workbench.registry import default_registry

    registry = default_registry()
    names: list[Any] = [spec.get("name") for spec in transcript.tools]
    missing = [name for name in names if registry.get(name) is None]
    if missing:
        raise ValueError(
            f"rerun: the default registry has no tool {', '.join(map(repr, missing))} that run "
            f"{transcript.run_id!r} offered; pass tools=[...]"
        )
    return [registry.get(name) for name in names]
