"""One evaluation job's pieces: the tools a case is offered, a single model turn, the verdict and the row."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Optional

from workbench.agent import ModelStep, Transcript, new_run_id
from workbench.evals._case import EvalCase
from workbench.evals._scoring import Verdict, score_calls
from workbench.models import Model, ModelError, ModelTurn, tool_specs
from workbench.models._base import conversation_key
from workbench.secrets import SecretCalls, mask_params
from workbench.types import utc_now_iso


@dataclass
class _Job:
    model: int
    variant: str
    case: EvalCase
    repeat: int


def _conversation(model: Model, variant: str, case: EvalCase, repeat: int) -> str:
    """A job's conversation key: the same for the same job in any run, order or process."""
    return json.dumps([model.id, variant, case.id, repeat])


def conversation_case(key: Any) -> Any:
    """The case id a job's conversation key (:func:`_conversation`) names; None for no key or another's."""
    try:
        parts = json.loads(key)
    except (TypeError, ValueError):
        return None
    return parts[2] if isinstance(parts, list) and len(parts) == 4 and isinstance(parts[2], str) else None


async def _transcript(
    model: Model,
    key: str,
    case: EvalCase,
    repeat: int,
    offer: "_Offer",
    max_turns: int,
    tool_choice: Any,
    params: dict,
    executor: Any = None,
    log: Any = None,
    validation: Optional[str] = None,
) -> Transcript:
    """One job's conversation, named ``key`` (see ``conversation_key``): one turn scored as it is
    (``max_turns=1``) or the agent loop, with the tools run through ``executor`` and checking their
    input in the run's ``validation`` mode (None: each tool's own)."""
    from workbench._validation_mode import validating
    from workbench.agent import arun_agent
    from workbench.evals._cache import CachedModel

    if isinstance(model, CachedModel):
        model = model.for_repeat(repeat)

    token = conversation_key.set(key)
    try:
        if validation is not None:  # every tool call of the job, multi-turn cases' included
            with validating(validation):
                return await _transcript(model, key, case, repeat, offer, max_turns, tool_choice, params, executor, log)
        if hasattr(case, "arun"):  # a multi-turn case asks its own user turns (BFCL multi-turn)
            return await case.arun(model, executor=executor, log=log, tool_choice=tool_choice, **params)
        if max_turns == 1:
            return await _single_turn(model, case, offer, tool_choice, params)
        return await arun_agent(
            model,
            case.input_messages,
            tools=offer.registry,
            executor=executor,
            log=log,
            max_turns=max_turns,
            tool_choice=tool_choice,
            **params,
        )
    finally:
        conversation_key.reset(token)


class _Offer:
    """The tools a case is offered under one variant: its registry and their parameter schemas."""

    def __init__(self, registry: Any, case: EvalCase) -> None:
        from workbench.registry import ToolRegistry
        from workbench.spec import ToolSpec

        if case.tools and all(isinstance(t, dict) for t in case.tools):
            registry = ToolRegistry(synthetic=True)
            for spec in case.tools:
                registry.register_spec(ToolSpec(**spec))
        elif case.tools:
            missing = [n for n in case.tools if n not in registry]
            if missing:
                raise ValueError(f"case {case.id!r} offers tools the suite does not have: {missing}")
            sub = ToolRegistry(synthetic=True)
            for name in case.tools:
                sub.register_tool(registry.get_tool(name))
            registry = sub
        self.registry = registry
        self.specs = tool_specs(registry)
        self.schemas = {s.name: s.parameters for s in self.specs}
        self.secrets = SecretCalls.of(self.specs).names  # tool name -> its secret parameters (SecretStr)

    def __getstate__(self) -> dict:
        """Sent to a Dask worker: spec dicts, and each tool as the DaskExecutor sends one (by ref, or
        its function by value) — neither a registry (it holds a lock) nor a built spec pickles."""
        from workbench.dask import _payload
        from workbench.tools import SpecOnlyTool

        tools = [
            ("spec", t.spec.to_json())
            if isinstance(t, SpecOnlyTool)
            else _payload(t, self.registry.get_tool_ref(t.spec.name))
            for t in self.registry
        ]
        return {
            "tools": tools,
            "specs": [spec.to_json() for spec in self.specs],
            "schemas": self.schemas,
            "secrets": self.secrets,
        }

    def __setstate__(self, state: dict) -> None:
        from workbench.dask import _load
        from workbench.registry import ToolRegistry
        from workbench.spec import ToolSpec

        self.specs = [ToolSpec.coerce(spec) for spec in state["specs"]]
        self.schemas = state["schemas"]
        self.secrets = state["secrets"]
        self.registry = ToolRegistry(synthetic=True)
        for kind, data in state["tools"]:
            if kind == "spec":
                self.registry.register_spec(ToolSpec.coerce(data))
            else:
                self.registry.register_tool(_load((kind, data)))


async def _single_turn(model: Model, case: EvalCase, offer: _Offer, tool_choice: Any, params: dict) -> Transcript:
    """One model turn, no tool run: the transcript of a single-turn evaluation (a fresh conversation)."""
    model = model.fresh()
    messages = case.input_messages
    settings = {"params": mask_params(params), "tool_choice": tool_choice, "max_turns": 1}
    transcript = Transcript(
        run_id=new_run_id(),
        model=model.id,
        messages=list(messages),
        started_at=utc_now_iso(),
        prompt=[dict(m) for m in messages],
        tools=[s.to_schema() for s in offer.specs],
        settings=settings,
    )
    t0 = time.perf_counter()
    try:
        turn = await model.acomplete(messages, tools=offer.specs, tool_choice=tool_choice, **params)
        transcript.steps.append(ModelStep(turn, 0))
        transcript.stopped_because = "end_turn" if not turn.tool_calls else "max_turns"
    except ModelError as exc:
        transcript.steps.append(
            ModelStep(exc.turn or ModelTurn(model=model.id), 0, error=str(exc), error_kind=exc.kind)
        )
        transcript.stopped_because, transcript.error = "model_error", str(exc)
    transcript.duration_ms = (time.perf_counter() - t0) * 1000.0
    return transcript


def _score(case: EvalCase, transcript: Transcript, offer: _Offer) -> Verdict:
    if transcript.stopped_because == "model_error":
        return Verdict(False, f"model error: {transcript.error}", "model_error")
    verdict = score_calls(
        transcript.tool_calls, case.expected, offer.schemas, order=case.order, expect_no_call=case.expect_no_call
    )
    if verdict.passed and case.check is not None:
        try:
            outcome = case.check(transcript)
        except Exception as exc:  # noqa: BLE001 - a broken check is the case's failure, named
            outcome = f"check raised {type(exc).__name__}: {exc}"
        if outcome is False or isinstance(outcome, str):
            verdict.passed = False
            verdict.reason = outcome if isinstance(outcome, str) else "check failed"
            verdict.error_type = "check"
    return verdict


def _row(
    job: _Job, model: Model, case: EvalCase, transcript: Transcript, verdict: Verdict, offer: _Offer
) -> dict[str, Any]:
    turns = transcript.model_steps
    usage = transcript.usage
    secrets = SecretCalls(offer.secrets)  # the calls' secret arguments are *** in the report
    actual = [secrets.call(c) for c in transcript.tool_calls]
    return {
        "case": case.id,
        "model": model.id,
        "variant": job.variant,
        "repeat": job.repeat,
        "passed": verdict.passed,
        "reason": secrets.values(verdict.reason),
        "error_type": verdict.error_type,
        "expected": json.dumps([e.to_dict() for e in case.expected]) if not case.expect_no_call else "no call",
        "actual": json.dumps([{"name": c.get("name"), "arguments": c.get("input")} for c in actual], default=str),
        "expect_no_call": case.expect_no_call,
        "true_positives": verdict.true_positives,
        "false_positives": verdict.false_positives,
        "false_negatives": verdict.false_negatives,
        "arguments_ok": verdict.arguments_ok,
        "turns": len(turns),
        "latency_ms": sum(s.latency_ms for s in turns),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached": bool(turns) and all(getattr(s.turn, "cached", False) for s in turns),
        "tags": ",".join(case.tags),
        "run_id": transcript.run_id,
        "model_error": next((s.error_kind for s in turns if s.error), None),
    }


def log_transcript(log: Any, transcript: Transcript) -> None:
    """Write a finished transcript (a single turn, or a run on a Dask worker) into ``log``: the run,
    its model turns and its tool calls, under the transcript's run id — the offered tools' secret
    parameters masked as the agent loop and the executor mask them."""
    from workbench.executor import append_masked

    shown = transcript.masked()
    log.start_run(
        transcript.run_id,
        model=transcript.model,
        prompt=shown.prompt,
        tools=transcript.tools,
        settings=transcript.settings,
        started_at=transcript.started_at,
    )
    for step in shown.model_steps:
        log.append_turn(
            transcript.run_id,
            step.index,
            {**step.turn.to_dict(), "error": step.error, "error_kind": step.error_kind, "started_at": step.started_at},
        )
    secrets = SecretCalls.of(transcript.tools)
    for tool_step in transcript.tool_steps:
        append_masked(
            log,
            tool_step.result,
            tool_step.tool_use,
            secrets.names_of(tool_step.tool_use),
            run_id=transcript.run_id,
            turn=tool_step.turn_index,
        )
    usage = transcript.usage
    log.end_run(
        transcript.run_id,
        stopped_because=transcript.stopped_because or "end_turn",
        error=transcript.error,
        final_text=transcript.final_text,
        turns=len(transcript.model_steps),
        tool_calls=len(transcript.tool_steps),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        duration_ms=transcript.duration_ms,
    )
