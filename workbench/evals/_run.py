"""``run_evals``: every case, asked of every model against every tool variant, scored.

One *job* is (model, variant, case, repeat). With ``max_turns=1`` (the default, BFCL's single-turn
setting) the model answers once and its calls are scored without running a tool; with more turns the
agent loop runs the calls through an executor (spec-only tools answer synthetically) and every call of
the run is scored. Jobs run concurrently (``concurrency`` requests in flight), locally or, with a
``DaskExecutor``, in batches on the cluster's workers; results come back to the client, which scores
them, writes the log and builds the report. Interrupting keeps every finished job.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from workbench.agent import ModelStep, Transcript, arun_agent, new_run_id
from workbench.evals._cache import CachedModel, RequestCache
from workbench.evals._case import EvalCase, EvalSuite
from workbench.evals._files import suite_registry
from workbench.evals._report import EvalReport
from workbench.evals._scoring import Verdict, score_calls
from workbench.models import Model, ModelError, ModelTurn, get, tool_specs
from workbench.types import utc_now_iso


@dataclass
class _Job:
    model: int
    variant: str
    case: EvalCase
    repeat: int


def _models(models: Any, base_dir: Any = None) -> list[Model]:
    if isinstance(models, (str, Model)):
        models = [models]
    out = []
    for item in models:
        if isinstance(item, str) and item.startswith("replay:"):
            from pathlib import Path

            from workbench.models import ReplayModel

            path = Path(item.partition(":")[2])
            out.append(ReplayModel(path if path.is_absolute() or base_dir is None else Path(base_dir) / path))
        else:
            out.append(get(item))
    if not out:
        raise ValueError("run_evals needs at least one model")
    return out


def _cases(suite_or_cases: Any) -> tuple[list[EvalCase], Optional[EvalSuite]]:
    if isinstance(suite_or_cases, EvalSuite):
        return list(suite_or_cases.cases), suite_or_cases
    if isinstance(suite_or_cases, EvalCase):
        return [suite_or_cases], None
    if isinstance(suite_or_cases, str) or hasattr(suite_or_cases, "__fspath__"):
        from workbench.evals._files import load_evals

        suite = load_evals(suite_or_cases)
        return list(suite.cases), suite
    cases = list(suite_or_cases)
    if not all(isinstance(c, EvalCase) for c in cases):
        raise TypeError("run_evals takes an EvalSuite, a suite file path or a list of EvalCase")
    return cases, None


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


async def _single_turn(model: Model, case: EvalCase, offer: _Offer, tool_choice: Any, params: dict) -> Transcript:
    """One model turn, no tool run: the transcript of a single-turn evaluation."""
    messages = case.input_messages
    transcript = Transcript(run_id=new_run_id(), model=model.id, messages=list(messages), started_at=utc_now_iso(),
                            prompt=[dict(m) for m in messages])
    t0 = time.perf_counter()
    try:
        turn = await model.acomplete(messages, tools=offer.specs, tool_choice=tool_choice, **params)
        transcript.steps.append(ModelStep(turn, 0))
        transcript.stopped_because = "end_turn" if not turn.tool_calls else "max_turns"
    except ModelError as exc:
        transcript.steps.append(ModelStep(exc.turn or ModelTurn(model=model.id), 0, error=str(exc), error_kind=exc.kind))
        transcript.stopped_because, transcript.error = "model_error", str(exc)
    transcript.duration_ms = (time.perf_counter() - t0) * 1000.0
    return transcript


def _score(case: EvalCase, transcript: Transcript, offer: _Offer) -> Verdict:
    if transcript.stopped_because == "model_error":
        return Verdict(False, f"model error: {transcript.error}", "model_error")
    verdict = score_calls(transcript.tool_calls, case.expected, offer.schemas, order=case.order,
                          expect_no_call=case.expect_no_call)
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


def _row(job: _Job, model: Model, case: EvalCase, transcript: Transcript, verdict: Verdict) -> dict[str, Any]:
    turns = transcript.model_steps
    usage = transcript.usage
    return {
        "case": case.id, "model": model.id, "variant": job.variant, "repeat": job.repeat, "passed": verdict.passed,
        "reason": verdict.reason, "error_type": verdict.error_type,
        "expected": json.dumps([e.to_dict() for e in case.expected]) if not case.expect_no_call else "no call",
        "actual": json.dumps([{"name": c.get("name"), "arguments": c.get("input")} for c in transcript.tool_calls],
                             default=str),
        "expect_no_call": case.expect_no_call, "true_positives": verdict.true_positives,
        "false_positives": verdict.false_positives, "false_negatives": verdict.false_negatives,
        "arguments_ok": verdict.arguments_ok, "turns": len(turns),
        "latency_ms": sum(s.latency_ms for s in turns), "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached": bool(turns) and all(getattr(s.turn, "cached", False) for s in turns),
        "tags": ",".join(case.tags), "run_id": transcript.run_id,
    }


class _Evaluation:
    """One run_evals call's state: jobs, results so far, and the stop flag Ctrl-C / Cancel set."""

    def __init__(self, cases: list[EvalCase], models: list[Model], variants: dict[str, Any], repeats: int,
                 max_turns: int, tool_choice: Any, params: dict, executor: Any, log: Any) -> None:
        self.models, self.max_turns, self.tool_choice, self.params = models, max_turns, tool_choice, params
        self.executor, self.log = executor, log
        self.offers = {(v, c.id): _Offer(reg, c) for v, reg in variants.items() for c in cases}
        self.jobs = [_Job(m, v, c, r) for m in range(len(models)) for v in variants for c in cases
                     for r in range(repeats)]
        self.rows: list[Optional[dict]] = [None] * len(self.jobs)
        self.transcripts: dict[str, Transcript] = {}
        self.stop = threading.Event()

    async def run_job(self, index: int) -> None:
        job = self.jobs[index]
        model, offer = self.models[job.model], self.offers[(job.variant, job.case.id)]
        params = {**self.params, **({"_cache_salt": job.repeat} if isinstance(model, CachedModel) else {})}
        if self.max_turns == 1:
            transcript = await _single_turn(model, job.case, offer, self.tool_choice, params)
        else:
            transcript = await arun_agent(model, job.case.input_messages, tools=offer.registry, executor=self.executor,
                                          log=self.log, max_turns=self.max_turns, tool_choice=self.tool_choice, **params)
        self.finish(index, transcript)

    def finish(self, index: int, transcript: Transcript) -> None:
        job = self.jobs[index]
        verdict = _score(job.case, transcript, self.offers[(job.variant, job.case.id)])
        self.rows[index] = _row(job, self.models[job.model], job.case, transcript, verdict)
        self.transcripts[transcript.run_id] = transcript

    async def run_all(self, concurrency: int, progress: Any) -> None:
        queue = iter(range(len(self.jobs)))

        async def worker() -> None:
            for index in queue:
                if self.stop.is_set() or (progress is not None and getattr(progress, "cancelled", False)):
                    self.stop.set()
                    return
                await self.run_job(index)
                if progress is not None:
                    progress.advance(1, 0 if self.rows[index]["passed"] else 1)

        await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(self.jobs))))))

    def report(self, spec_diffs: dict, cache_hits: int, interrupted: bool) -> EvalReport:
        rows = [r for r in self.rows if r is not None]
        return EvalReport(rows, transcripts=self.transcripts, spec_diffs=spec_diffs, cache_hits=cache_hits,
                          interrupted=interrupted, total_jobs=len(self.jobs))


def _variants(variants: Optional[dict[str, Any]], tools: Any, suite: Optional[EvalSuite]) -> dict[str, Any]:
    from workbench.registry import ToolRegistry, as_tool_registry

    def registry_of(item: Any) -> Any:
        if item is None:
            return suite_registry(suite) if suite is not None else ToolRegistry(synthetic=True)
        if isinstance(item, ToolRegistry):
            return item
        return as_tool_registry(list(item) if not isinstance(item, dict) else item)

    if variants:
        return {str(name): registry_of(reg) for name, reg in variants.items()}
    return {"default": registry_of(tools)}


def _spec_diffs(variants: dict[str, Any]) -> dict[tuple[str, str], Any]:
    if len(variants) < 2:
        return {}
    from workbench.testing import spec_diff

    names = list(variants)
    return {(a, b): spec_diff(variants[a], variants[b]) for a, b in zip(names, names[1:])}


def run_evals(suite_or_cases: Any, models: Any, *, tools: Any = None, repeats: int = 1, concurrency: int = 8,
              executor: Any = None, cache: Any = None, variants: Optional[dict[str, Any]] = None,
              progress: Any = True, max_turns: int = 1, tool_choice: Any = None, log: Any = None,
              **params: Any) -> EvalReport:
    """Ask every model every case (``repeats`` times, against each tool variant) and score the calls.

    Args:
        suite_or_cases: an :class:`EvalSuite`, a ``*.evals.json`` path, or a list of :class:`EvalCase`.
        models: a model, a model string (``"openai:gpt-4.1-mini"``, ``"replay:cassette.json"``) or a list.
        tools: the tools offered (a registry or a list of tools/specs); default: the suite's tools.
        repeats: runs per case; the report gives pass@k and pass^k for ``k = repeats``.
        concurrency: model requests in flight at once.
        executor: a ``DaskExecutor`` runs the jobs on its cluster's workers; another executor runs the
            tool calls of multi-turn cases.
        cache: a path or :class:`RequestCache`: an identical request is answered from it.
        variants: ``{"before": registry_a, "after": registry_b}`` runs every case against each.
        progress: ``False`` for none; a notebook widget or tqdm bar by default.
        max_turns: 1 scores the model's first answer without running tools (BFCL's setting); more
            runs the agent loop and scores every call of the run.
        log: an ``ExecutionLog`` that keeps the runs (multi-turn and Dask runs included).
        **params: model parameters (``temperature``, ``max_tokens``…).

    Ctrl-C or the progress widget's Cancel stops the run; the report holds every finished job
    (``report.interrupted`` is then True).
    """
    from workbench.executor import run_sync

    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")
    cases, suite = _cases(suite_or_cases)
    base_dir = None
    if suite is not None and suite.path:
        from pathlib import Path

        base_dir = Path(suite.path).parent
    model_list = _models(models, base_dir)
    store = None
    if cache is not None:
        store = cache if isinstance(cache, RequestCache) else RequestCache(cache)
        model_list = [CachedModel(m, store) for m in model_list]
    tool_variants = _variants(variants, tools, suite)
    dask = executor if _is_dask(executor) else None
    evaluation = _Evaluation(cases, model_list, tool_variants, repeats, max_turns, tool_choice, params,
                             None if dask else executor, log)
    from workbench._batch import _progress

    bar = _progress(progress, len(evaluation.jobs), 0, "evals")
    interrupted = False
    try:
        if dask is not None:
            from workbench.evals._dask import run_on_dask

            run_on_dask(evaluation, dask, bar)
        else:
            run_sync(evaluation.run_all(concurrency, bar))
    except KeyboardInterrupt:
        evaluation.stop.set()
    finally:
        if bar is not None:
            bar.close()
    interrupted = evaluation.stop.is_set() or any(r is None for r in evaluation.rows)
    hits = sum(m.hits for m in model_list if isinstance(m, CachedModel))
    return evaluation.report(_spec_diffs(tool_variants), hits, interrupted)


def _is_dask(executor: Any) -> bool:
    return executor is not None and type(executor).__module__ == "workbench.dask"
