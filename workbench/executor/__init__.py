"""Executors: run batches of tool calls (README.md, "A short tour" and "Batch runs"; the phases:
docs/architecture-executor.md).

Every call goes through one pipeline of public phases of ``ToolExecutor``: ``start_run`` →
``prepare`` (normalise, look up, permission, validate) → ``invoke`` / ``ainvoke`` (approve,
idempotency, run within its timeout, shape the result) → ``finish`` (log, announce). A quick sync
tool in a sequential ``run`` never touches an event loop or a thread, an ``async def`` tool without a
timeout is awaited in the caller's task, and a tool that needs nothing but validate-and-call runs its
cached ``CallPlan``. Bad calls become ``status="error"`` results; the executor itself never raises
for one.
"""

from __future__ import annotations

from workbench._async import run_sync
from workbench._validation_mode import validating
from workbench.executor._base import MapChunks, ToolExecutor, is_awaitable, no_run_modes
from workbench.executor._calls import call_iter, call_list, normalise_tool_use
from workbench.executor._concurrent import ConcurrentExecutor
from workbench.executor._plan import CallPlan, call_plan
from workbench.executor._results import append_masked, returns_check, success_result
from workbench.executor._sequential import SequentialExecutor
from workbench.executor._state import Approver, CallRun, PreparedCall, approving

__all__ = [
    "ToolExecutor",
    "SequentialExecutor",
    "ConcurrentExecutor",
    "Approver",
    "approving",
    "append_masked",
    "validating",
    "run_sync",
    "PreparedCall",
    "CallRun",
    "CallPlan",
    "call_plan",
    "MapChunks",
]

# the names these had before the executor became a package (benchmarks and older callers import them)
_Call = PreparedCall
_Run = CallRun
_call_list = call_list
_call_iter = call_iter
_isawaitable = is_awaitable
_plan_of = call_plan
_returns_check = returns_check
_success_result = success_result
_normalise_tool_use = normalise_tool_use
_no_modes = no_run_modes
