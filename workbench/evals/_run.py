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
import threading
from typing import Any, Optional, Sequence, Union

from workbench.agent import Transcript
from workbench.evals._cache import CachedModel, RequestCache
from workbench.evals._case import EvalCase, EvalSuite
from workbench.evals._files import suite_registry
from workbench.evals._jobs import _conversation, _Job, _Offer, _row, _transcript, log_transcript
from workbench.evals._provenance import run_provenance
from workbench.evals._report import EvalReport
from workbench.evals._scorers import PassIf, apply_scorers, combined_verdict, resolve_scorers, scorer_name
from workbench.models import Model, resolve_model
from workbench.protocols import RunLog, Scorer


def _models(models: Any, base_dir: Any = None) -> list[Model]:
    if isinstance(models, (str, Model)):
        models = [models]
    out = [resolve_model(item, base_dir=base_dir) for item in models]
    if not out:
        raise ValueError("run_evals needs at least one model")
    ids = [m.id for m in out]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(
            f"run_evals: two models have the id {twice[0]!r}; the report could not tell them apart "
            "(give them different names)"
        )
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


class _Evaluation:
    """One run_evals call's state: jobs, results so far, and the stop flag Ctrl-C / Cancel set."""

    def __init__(
        self,
        cases: list[EvalCase],
        models: list[Model],
        variants: dict[str, Any],
        repeats: int,
        max_turns: int,
        tool_choice: Any,
        params: dict,
        executor: Any,
        log: Any,
        scorers: Optional[list] = None,
        pass_if: PassIf = "all",
    ) -> None:
        self.models, self.max_turns, self.tool_choice, self.params = models, max_turns, tool_choice, params
        self.scorers, self.pass_if = resolve_scorers(None, cases) if scorers is None else scorers, pass_if
        self.executor, self.log = executor, log
        self.validation: Optional[str] = None  # the runs' validation mode (run_evals' validation=)
        self.offers = {(v, c.id): _Offer(reg, c) for v, reg in variants.items() for c in cases}
        self.jobs = [
            _Job(m, v, c, r) for m in range(len(models)) for v in variants for c in cases for r in range(repeats)
        ]
        self.rows: list[Optional[dict]] = [None] * len(self.jobs)
        self.transcripts: dict[str, Transcript] = {}
        self.stop = threading.Event()

    def key(self, index: int) -> str:
        """Job ``index``'s conversation key (model, variant, case, repeat)."""
        job = self.jobs[index]
        return _conversation(self.models[job.model], job.variant, job.case, job.repeat)

    async def run_job(self, index: int) -> None:
        job = self.jobs[index]
        model, offer = self.models[job.model], self.offers[(job.variant, job.case.id)]
        transcript = await _transcript(
            model,
            self.key(index),
            job.case,
            job.repeat,
            offer,
            self.max_turns,
            self.tool_choice,
            self.params,
            self.executor,
            self.log,
            validation=self.validation,
        )
        scores = await apply_scorers(self.scorers, job.case, transcript, offer.schemas)
        # the agent loop (multi-turn and BFCL multi-turn cases) logs its own run
        self.finish(index, transcript, scores, logged=self.max_turns > 1 or hasattr(job.case, "arun"))

    def finish(self, index: int, transcript: Transcript, scores: Optional[dict] = None, *, logged: bool) -> None:
        """Score job ``index``'s transcript into its row (with ``scores`` when already computed) and,
        unless already ``logged``, write it to the log."""
        from workbench._async import run_sync

        job = self.jobs[index]
        offer = self.offers[(job.variant, job.case.id)]
        if scores is None:
            scores = run_sync(apply_scorers(self.scorers, job.case, transcript, offer.schemas))
        verdict = combined_verdict(transcript, scores, self.pass_if)
        row = _row(job, self.models[job.model], job.case, transcript, verdict, offer)
        if hasattr(job.case, "expected_text"):
            row["expected"] = job.case.expected_text()
        row.update({name: score.value for name, score in scores.items()})
        self.rows[index] = row
        self.transcripts[transcript.run_id] = transcript
        if self.log is not None and not logged:
            log_transcript(self.log, transcript)

    async def run_all(self, concurrency: int, progress: Any) -> None:
        queue = iter(range(len(self.jobs)))

        async def worker() -> None:
            for index in queue:
                if self.stop.is_set() or (progress is not None and getattr(progress, "cancelled", False)):
                    self.stop.set()
                    return
                await self.run_job(index)
                row = self.rows[index]
                if progress is not None and row is not None:  # (run_job has filled it)
                    progress.advance(1, 0 if row["passed"] else 1)

        await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(self.jobs))))))

    def report(self, spec_diffs: dict, cache_hits: int, interrupted: bool, provenance: dict) -> EvalReport:
        rows = [r for r in self.rows if r is not None]
        return EvalReport(
            rows,
            transcripts=self.transcripts,
            spec_diffs=spec_diffs,
            cache_hits=cache_hits,
            interrupted=interrupted,
            total_jobs=len(self.jobs),
            **provenance,
        )


def _variants(variants: Optional[dict[str, Any]], tools: Any, suite: Optional[EvalSuite]) -> dict[str, Any]:
    from workbench.registry import ToolRegistry, as_tool_registry

    def registry_of(item: Any) -> Any:
        if item is None:
            return suite_registry(suite) if suite is not None else ToolRegistry(synthetic=True)
        return as_tool_registry(item)

    if variants:
        return {str(name): registry_of(reg) for name, reg in variants.items()}
    return {"default": registry_of(tools)}


def _spec_diffs(variants: dict[str, Any]) -> dict[tuple[str, str], Any]:
    if len(variants) < 2:
        return {}
    from workbench.testing import spec_diff

    names = list(variants)
    return {(a, b): spec_diff(variants[a], variants[b]) for a, b in zip(names, names[1:])}


def run_evals(
    suite_or_cases: Any,
    models: Any,
    *,
    tools: Any = None,
    repeats: int = 1,
    concurrency: int = 8,
    executor: Any = None,
    cache: Any = None,
    variants: Optional[dict[str, Any]] = None,
    progress: Any = True,
    max_turns: Optional[int] = None,
    tool_choice: Any = None,
    log: Optional[RunLog] = None,
    scorers: Union[str, Scorer, Sequence[Union[str, Scorer]], None] = None,
    pass_if: PassIf = "all",
    validation: Optional[str] = None,
    **params: Any,
) -> EvalReport:
    """Ask every model every case (``repeats`` times, against each tool variant) and score the calls.

    Args:
        suite_or_cases: an :class:`EvalSuite`, a ``*.evals.json`` path, or a list of :class:`EvalCase`.
        models: a model, a model string (``"openai:gpt-4.1-mini"``, ``"replay:cassette.json"``, read by
            ``workbench.models.get``'s resolver, a cassette relative to the suite file) or a list. Each
            job is a fresh conversation of its model (``Model.fresh``).
        tools: the tools offered (a registry or a list of tools/specs); default: the suite's tools.
        repeats: runs per case; the report gives pass@k and pass^k for ``k = repeats``.
        concurrency: model requests in flight at once.
        executor: a ``DaskExecutor`` runs the jobs on its cluster's workers; another executor runs the
            tool calls of multi-turn cases.
        cache: a path or :class:`RequestCache`: an identical request is answered from it.
        variants: ``{"before": registry_a, "after": registry_b}`` runs every case against each (a
            registry or a list of tools). A description A/B needs no second function:
            ``{"before": [t.with_description("Old text.")], "after": [t]}``; ``workbench.derive``
            renames or hides arguments too.
        progress: ``False`` for none; a notebook widget or tqdm bar by default.
        max_turns: 1 scores the model's first answer without running tools (BFCL's setting); more
            runs the agent loop and scores every call of the run. Default: the suite's (1).
        log: an ``ExecutionLog`` that keeps every job's run (its model turns and, with more turns,
            its tool calls), under the ``run_id`` of its result row — single-turn and Dask runs included.
        scorers: how each run is scored: built-in names (``"calls"``, ``"final_state"``), scorers from
            ``text_contains``/``text_matches``/``judge``, or callables ``(case, transcript) -> score``
            (see :mod:`workbench.evals._scorers`); default: the cases' own (``"calls"``; BFCL
            multi-turn cases: ``"final_state"``). Each is a column of ``results`` and ``summary()``.
        pass_if: a run passes when every scorer passes (``"all"``), one does (``"any"``), the named
            one does, or ``pass_if(scores)`` (scorer name → ``Score``) returns True.
        validation: how the runs' tool calls check their input, ``"strict"`` or ``"lax"`` (pydantic's
            lax mode), over each tool's and registry's own (as ``run_agent``'s).
        **params: model parameters (``temperature``, ``max_tokens``…).

    Ctrl-C or the progress widget's Cancel stops the run; the report holds every finished job
    (``report.interrupted`` is then True).
    """
    from workbench._async import run_sync
    from workbench._validation_mode import check_mode

    check_mode(validation, "run_evals")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}")
    cases, suite = _cases(suite_or_cases)
    max_turns = max_turns if max_turns is not None else (suite.max_turns if suite is not None else 1)
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
    base_dir = None
    if suite is not None and suite.path:
        from pathlib import Path

        base_dir = Path(suite.path).parent
    model_list = _models(models, base_dir)
    store = None
    if cache is not None:
        store = cache if isinstance(cache, RequestCache) else RequestCache(cache)
        model_list = [CachedModel(m, store) for m in model_list]
    scorer_list = resolve_scorers(scorers, cases, store)
    _check_scorers(scorer_list, pass_if)
    tool_variants = _variants(variants, tools, suite)
    dask = executor if _is_dask(executor) else None
    evaluation = _Evaluation(
        cases,
        model_list,
        tool_variants,
        repeats,
        max_turns,
        tool_choice,
        params,
        None if dask else executor,
        log,
        scorer_list,
        pass_if,
    )
    evaluation.validation = validation
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
    provenance = run_provenance(
        model_list,
        tool_variants,
        cases,
        suite,
        {"repeats": repeats, "max_turns": max_turns, "tool_choice": tool_choice},
        params,
    )
    return evaluation.report(_spec_diffs(tool_variants), hits, interrupted, provenance)


def _is_dask(executor: Any) -> bool:
    return executor is not None and type(executor).__module__ == "workbench.dask"


def _check_scorers(scorers: list, pass_if: Any) -> None:
    from workbench.evals._report import _COLUMNS

    names = [scorer_name(s) for s in scorers]
    taken = [n for n in names if n in _COLUMNS]
    if taken:
        raise ValueError(f"a scorer may not be named {taken[0]!r}: that is a column of the results already")
    if isinstance(pass_if, str) and pass_if not in ("all", "any") and pass_if not in names:
        raise ValueError(
            f"pass_if={pass_if!r} names no scorer of this run ({', '.join(names)}); "
            "use 'all', 'any', a scorer's name or a function of the scores"
        )
    if not isinstance(pass_if, str) and not callable(pass_if):
        raise TypeError(f"pass_if must be 'all', 'any', a scorer's name or a function, not {pass_if!r:.60}")
