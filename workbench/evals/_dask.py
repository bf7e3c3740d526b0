"""Evaluations on a Dask cluster: the jobs run in batches on the workers (the model calls happen
there); transcripts come back to the client, which scores them, logs them and builds the report."""

from __future__ import annotations

import asyncio
from typing import Any

from workbench.agent import Transcript


def _run_batch(
    models: list,
    jobs: list[tuple[Any, ...]],
    max_turns: int,
    tool_choice: Any,
    params: dict,
    concurrency: int,
    validation: Any = None,
) -> list:
    """On a worker: run ``jobs`` (index, model index, conversation key, case, offer, repeat) and return
    (index, transcript dict); each job is a fresh conversation of its model."""
    from workbench.evals._jobs import _transcript

    async def one(limit: asyncio.Semaphore, index: int, model_index: int, key: str, case: Any, offer: Any, repeat: int):
        async with limit:
            transcript = await _transcript(
                models[model_index], key, case, repeat, offer, max_turns, tool_choice, params, validation=validation
            )
            return index, transcript._as_dict()  # unmasked: the client scores the calls as made

    async def main() -> list:
        limit = asyncio.Semaphore(concurrency)
        return await asyncio.gather(*(one(limit, *job) for job in jobs))

    return asyncio.run(main())


def run_on_dask(evaluation: Any, executor: Any, progress: Any, batch_size: int = 16, concurrency: int = 8) -> None:
    """Submit the evaluation's jobs to ``executor.client`` in batches and collect them as they finish."""
    from distributed import as_completed

    client = executor.client
    models = evaluation.models
    jobs = [
        (i, job.model, evaluation.key(i), job.case, evaluation.offers[(job.variant, job.case.id)], job.repeat)
        for i, job in enumerate(evaluation.jobs)
    ]
    futures = [
        client.submit(
            _run_batch,
            models,
            jobs[start : start + batch_size],
            evaluation.max_turns,
            evaluation.tool_choice,
            evaluation.params,
            concurrency,
            evaluation.validation,
            pure=False,
        )
        for start in range(0, len(jobs), batch_size)
    ]
    try:
        for future in as_completed(futures):
            if evaluation.stop.is_set() or (progress is not None and getattr(progress, "cancelled", False)):
                evaluation.stop.set()
                break
            done = future.result()
            for index, data in done:
                transcript = Transcript.from_dict(data)
                evaluation.finish(index, transcript, logged=False)
            if progress is not None:
                progress.advance(len(done), sum(1 for index, _ in done if not evaluation.rows[index]["passed"]))
    finally:
        for future in futures:
            if not future.done():
                future.cancel()
