"""Evaluations on a Dask cluster: the jobs run in batches on the workers (the model calls happen
there); transcripts come back to the client, which scores them, logs them and builds the report."""

from __future__ import annotations

import asyncio
from typing import Any

from workbench.agent import Transcript


def _run_batch(models: list, jobs: list, max_turns: int, tool_choice: Any, params: dict, concurrency: int,
               validation: Any = None) -> list:
    """On a worker: run ``jobs`` (index, model index, case, offer) and return (index, transcript dict)."""
    from workbench.evals._jobs import _single_turn
    from workbench.agent import arun_agent

    async def one(index: int, model_index: int, case: Any, offer: Any, salt: int, limit: asyncio.Semaphore):
        async with limit:
            model = models[model_index]
            extra = {"_cache_salt": salt} if hasattr(model, "cache") else {}
            if max_turns == 1:
                transcript = await _single_turn(model, case, offer, tool_choice, {**params, **extra})
            else:
                transcript = await arun_agent(model, case.input_messages, tools=offer.registry, max_turns=max_turns,
                                              tool_choice=tool_choice, validation=validation, **params, **extra)
            return index, transcript.to_dict()

    async def main() -> list:
        limit = asyncio.Semaphore(concurrency)
        return await asyncio.gather(*(one(*job, limit) for job in jobs))

    return asyncio.run(main())


def _log_transcript(log: Any, transcript: Transcript) -> None:
    """Write a transcript that ran elsewhere into the client's log: the run, its turns and its calls."""
    log.start_run(transcript.run_id, model=transcript.model, prompt=transcript.prompt, tools=transcript.tools,
                  settings=transcript.settings, started_at=transcript.started_at)
    for step in transcript.model_steps:
        log.append_turn(transcript.run_id, step.index, {**step.turn.to_dict(), "error": step.error,
                                                         "error_kind": step.error_kind, "started_at": step.started_at})
    for step in transcript.tool_steps:
        log.append(step.result, step.tool_use, run_id=transcript.run_id, turn=step.turn_index)
    usage = transcript.usage
    log.end_run(transcript.run_id, stopped_because=transcript.stopped_because or "end_turn", error=transcript.error,
                final_text=transcript.final_text, turns=len(transcript.model_steps), tool_calls=len(transcript.tool_steps),
                input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, duration_ms=transcript.duration_ms)


def run_on_dask(evaluation: Any, executor: Any, progress: Any, batch_size: int = 16, concurrency: int = 8) -> None:
    """Submit the evaluation's jobs to ``executor.client`` in batches and collect them as they finish."""
    from distributed import as_completed

    client = executor.client
    models = evaluation.models
    jobs = [(i, job.model, job.case, evaluation.offers[(job.variant, job.case.id)], job.repeat)
            for i, job in enumerate(evaluation.jobs)]
    futures = [client.submit(_run_batch, models, jobs[start:start + batch_size], evaluation.max_turns,
                             evaluation.tool_choice, evaluation.params, concurrency, evaluation.validation, pure=False)
               for start in range(0, len(jobs), batch_size)]
    try:
        for future in as_completed(futures):
            if evaluation.stop.is_set() or (progress is not None and getattr(progress, "cancelled", False)):
                evaluation.stop.set()
                break
            done = future.result()
            for index, data in done:
                transcript = Transcript.from_dict(data)
                evaluation.finish(index, transcript)
                if evaluation.log is not None:
                    _log_transcript(evaluation.log, transcript)
            if progress is not None:
                progress.advance(len(done), sum(1 for index, _ in done if not evaluation.rows[index]["passed"]))
    finally:
        for future in futures:
            if not future.done():
                future.cancel()
