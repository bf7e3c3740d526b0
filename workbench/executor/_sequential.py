"""``SequentialExecutor``: calls run one at a time, in order; a quick sync tool runs in the caller's
thread with no event loop (``prepare`` then ``invoke``, or ``run_planned`` for a validate-and-call tool),
and only a call that needs a loop continues with ``ainvoke``."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from workbench._async import await_value, run_sync
from workbench._errors import ToolInputError
from workbench.executor._base import ToolExecutor, is_awaitable, no_run_modes
from workbench.executor._calls import call_iter, call_list
from workbench.executor._plan import call_plan
from workbench.executor._state import CallRun, PreparedCall
from workbench.registry import as_tool_registry
from workbench.tools import BaseTool
from workbench.types import ToolResult

__all__ = ["SequentialExecutor"]

_NEVER_AWAITABLE = frozenset({int, float, str, bool, type(None), dict, list, tuple, bytes})


class SequentialExecutor(ToolExecutor):
    """Run calls one at a time, in order. Quick sync tools run inline, without a thread hop."""

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = tool_uses if type(tool_uses) is list else call_iter(tool_uses)
        log = self.log if log is None else log
        # as in run(): planned calls with no log need no run state, made for the first call that does
        tools: Any = getattr(registry, "registry", None)  # a ToolRegistry's dict (type-checked before use)
        planned = (
            type(tools) is dict
            and log is None
            and ctx_factory is None  # and _adds_no_steps(), inlined:
            and self.timeout is None
            and self.pool is None
            and not self.synthetic  # a call less per execute
            and self.validation is None
            and self._stock_phases
            and no_run_modes(registry)
        )
        run: Optional[CallRun] = None
        results = []
        for i, use in enumerate(uses):
            outcome = self.run_planned(use, tools, True) if planned else None  # True: in the running loop
            if isinstance(outcome, ToolResult):
                results.append(outcome)
                continue
            if run is None:
                run = self.start_run(registry, log, invocation_state, ctx_factory)
            if outcome is not None:  # a planned async call that waits: the rest of it, where cancel(id) reaches it
                outcome.index = i
                results.append(await self.ainvoke(outcome, run))
            else:
                results.append(await self._call_async(i, use, run))
        return results

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = call_iter(tool_uses)  # lazily: a generator may produce calls from earlier results
        run = self.start_run(registry, log, invocation_state, ctx_factory)
        for i, use in enumerate(uses):
            yield i, await self._call_async(i, use, run)

    def run(self, tool_uses, registry, *, log=None, invocation_state=None):
        uses = tool_uses if type(tool_uses) is list else call_list(tool_uses)
        log = self.log if log is None else log
        # planned calls with no log need no run state: it is made for the first call that does
        tools: Any = getattr(registry, "registry", None)  # a ToolRegistry's dict (type-checked before use)
        run_planned = (
            self.run_planned
            if type(tools) is dict and log is None and self._adds_no_steps() and no_run_modes(registry)
            else None
        )
        run: Optional[CallRun] = None
        results: list[ToolResult] = []
        for i, use in enumerate(uses):
            if run_planned is not None:
                outcome = run_planned(use, tools)
                if isinstance(outcome, ToolResult):  # not in the loop: never a PreparedCall
                    results.append(outcome)
                    continue
            if run is None:
                run = self.start_run(registry, log, invocation_state)
            outcome = self._call_sync(i, use, run)
            if isinstance(outcome, PreparedCall):  # this call needs a loop: finish it, and the rest, with ainvoke
                return results + run_sync(self._execute_rest(uses, outcome, run))
            results.append(outcome)
        return results

    async def _execute_rest(self, uses: list, pending: PreparedCall, run: CallRun) -> list[ToolResult]:
        results = [await self.ainvoke(pending, run)]
        for i in range(pending.index + 1, len(uses)):
            results.append(await self._call_async(i, uses[i], run))
        return results

    def batch_rows(self, tool: Any, registry: Any, log: Any) -> Optional[Callable[[list], list]]:
        """The batch fast lane (see ``ToolExecutor.batch_rows``) of a sync tool with a ``CallPlan``, for
        a batch with nobody to tell (no log, no listener). Each well-formed use of ``tool`` takes the
        plan's steps (validate, call) and becomes a row directly when its value is a plain int or str;
        any other use, or value, is shaped into its ``ToolResult`` by the ordinary phases."""
        if (
            log is not None
            or self._listeners
            or not self._adds_no_steps()
            or not isinstance(tool, BaseTool)
            or not no_run_modes(registry)
        ):
            return None
        try:
            registry = as_tool_registry(registry)
            plan = call_plan(tool)
            if plan is None or plan.is_async or registry.get_tool(plan.spec.name) is not tool:
                return None  # (the ordinary phases would call what the registry holds)
        except Exception:  # noqa: BLE001 - anything odd: the ordinary phases report it
            return None
        spec, name, checker = plan.spec, plan.spec.name, plan.check
        validate, invoke = plan.validate, tool._invoke
        executor = self
        perf = time.perf_counter

        def through_phases(use: Any, run: CallRun) -> ToolResult:
            outcome: Any = executor._call_sync(0, use, run)
            if type(outcome) is PreparedCall:  # a use that needs a loop after all
                outcome = run_sync(executor.ainvoke(outcome, run))
            return outcome

        def rows(uses: list) -> list:
            out: list = []
            append = out.append
            run = None
            for use in uses:
                if (
                    type(use) is not dict
                    or use.get("name") != name
                    or type(use.get("toolUseId")) is not str
                    or type(use.get("input")) is not dict
                ):
                    if run is None:
                        run = CallRun(registry, None, executor.invocation_state)
                    append(through_phases(use, run))
                    continue
                t0 = perf()
                use_id = use["toolUseId"]
                try:
                    arguments = validate(name, use["input"])
                except ToolInputError as exc:
                    append(("error", None, "ToolInputError", str(exc), (perf() - t0) * 1000.0, use_id))
                    continue
                except Exception as exc:  # noqa: BLE001
                    append(("error", None, type(exc).__name__, str(exc), (perf() - t0) * 1000.0, use_id))
                    continue
                try:
                    value = invoke(arguments, None)
                    kind = type(value)
                    if kind is int:
                        int.__repr__(value)  # as success_result renders it: raises past the int -> str limit
                    elif kind is not str:
                        call = PreparedCall(0, use, None, t0)  # type: ignore[arg-type]  # a well-formed ToolUse dict
                        call.tool, call.spec, call.arguments = tool, spec, arguments
                        if kind not in _NEVER_AWAITABLE and is_awaitable(value):
                            value = run_sync(await_value(value))
                        append(executor._success(call, value))
                        continue
                    if checker is not None:
                        checker(value)
                except Exception as exc:  # noqa: BLE001
                    append(
                        (
                            "error",
                            None,
                            type(exc).__name__,
                            f"{type(exc).__name__}: {exc}",
                            (perf() - t0) * 1000.0,
                            use_id,
                        )
                    )
                    continue
                append(("success", value, None, None, (perf() - t0) * 1000.0, use_id))
            return out

        return rows
