"""``ConcurrentExecutor``: calls run concurrently, each through ``prepare`` then ``ainvoke``."""

from __future__ import annotations

import asyncio
from typing import Any

from workbench.executor._base import MapChunks, ToolExecutor
from workbench.executor._calls import call_list
from workbench.types import ToolResult

__all__ = ["ConcurrentExecutor"]


class ConcurrentExecutor(ToolExecutor):
    """Run calls concurrently, at most ``max_concurrency`` at a time. Sync tools run in a thread pool."""

    _sync_tools_off_loop = True  # every sync call runs in the pool, off the loop

    def __init__(self, max_concurrency: int = 8, **options: Any) -> None:
        if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        super().__init__(**options)
        self.max_concurrency = max_concurrency

    def map_chunks(self) -> MapChunks:
        """Chunks of at least ``max_concurrency`` calls, so that every slot has work."""
        return MapChunks(self.max_concurrency, 0.1, 4096)

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = call_list(tool_uses)
        run = self.start_run(registry, log, invocation_state, ctx_factory)
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def limited(i: int, use: Any) -> ToolResult:
            async with semaphore:
                return await self._call_async(i, use, run)

        tasks = [asyncio.ensure_future(limited(i, use)) for i, use in enumerate(uses)]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = call_list(tool_uses)
        if not uses:
            return
        run = self.start_run(registry, log, invocation_state, ctx_factory)
        semaphore = asyncio.Semaphore(self.max_concurrency)
        queue: asyncio.Queue = asyncio.Queue()
        done_marker = object()

        async def one(i: int, use: Any) -> None:
            # exactly one marker per task, even when cancelled, so the consumer never waits forever
            try:
                async with semaphore:
                    queue.put_nowait((i, await self._call_async(i, use, run)))
            finally:
                queue.put_nowait((i, done_marker))

        tasks = [asyncio.ensure_future(one(i, use)) for i, use in enumerate(uses)]
        try:
            remaining = len(tasks)
            while remaining:
                i, item = await queue.get()
                if item is done_marker:
                    remaining -= 1
                    continue
                yield i, item
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
