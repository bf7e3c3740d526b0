"""``Workbench``: the kernel's registry, executor, execution log and UI, in one object."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Callable, Optional

from workbench.executor import ConcurrentExecutor
from workbench.registry import ToolRegistry, default_registry
from workbench.types import ToolResult, make_tool_use

__all__ = ["Workbench", "get_workbench", "reset_workbench", "VIEWS"]

# The views (ToolForm, LogTable, Dashboard) sit above the Workbench: each finds the kernel's one with
# get_workbench(). The Workbench's view factories below reach them through this table, which the
# package (workbench.jupyter, imported before any of its modules) fills in — so this module imports none.
VIEWS: dict[str, Callable[..., Any]] = {}


class Workbench:
    """Everything the notebook layer shares.

    Args:
        registry: the tools (default: the module-level default registry, so ``@tool`` classes and
            ``%%tool`` cells land in the same place).
        executor: runs the calls (default: a ``ConcurrentExecutor`` whose approver asks through the
            form that started the call).
        log: the ``ExecutionLog`` every call is written to (default: a new in-memory log).

    ``approver``: used for ``ASK_USER`` calls that no form is waiting on (``%tool_call``,
    ``workbench.call``); ``None`` denies them.

    ``sampling_model``: the model that answers a tool's ``ctx.sample`` in forms, ``%tool_call`` and
    ``workbench.call`` (a ``Model`` or a ``"provider:model"`` string, resolved when set); ``None``
    (the default): sampling fails saying how to set one.
    """

    def __init__(self, registry: Optional[ToolRegistry] = None, executor: Any = None, log: Any = None) -> None:
        from workbench.log import ExecutionLog

        self.registry = registry if registry is not None else default_registry()
        self.log = log if log is not None else ExecutionLog()
        self.approver: Optional[Callable[..., Any]] = None
        self._sampling_model: Any = None
        self._approval_handlers: dict[str, Callable[..., Any]] = {}
        if executor is None:
            executor = ConcurrentExecutor(approver=self._approve)
        elif getattr(executor, "approver", None) is None:
            executor.approver = self._approve
        self.executor = executor
        self._forms: dict[str, Any] = {}
        self._dashboard: Any = None
        self._log_table: Any = None
        self._lock = threading.RLock()
        self._tasks: set[Any] = set()  # calls started by submit() on the kernel's loop (kept referenced)

    # -- approvals -----------------------------------------------------------------------------------
    def _approve(self, tool_use: Any, tool: Any) -> Any:
        handler = self._approval_handlers.get(tool_use.get("toolUseId", ""))
        if handler is not None:
            return handler(tool_use, tool)
        if self.approver is not None:
            return self.approver(tool_use, tool)
        return False

    # -- sampling ------------------------------------------------------------------------------------
    @property
    def sampling_model(self) -> Any:
        """The model answering tools' ``ctx.sample`` here (``None``: none)."""
        return self._sampling_model

    @sampling_model.setter
    def sampling_model(self, model: Any) -> None:
        if model is not None:
            from workbench.models import get

            model = get(model)  # a bad string fails here, not when a tool asks
        self._sampling_model = model

    def _invocation_state(self) -> dict[str, Any]:
        """The executor's invocation state plus this workbench as the peer of calls no form runs:
        ``ctx.sample`` asks :attr:`sampling_model`, ``ctx.elicit`` says to use the form."""
        from workbench._peer import PEER_KEY
        from workbench.jupyter._tool_peer import SET_A_MODEL
        from workbench.models._sampling import ModelPeer

        peer = ModelPeer(
            lambda: self.sampling_model,
            where="a call outside a form (%tool_call, Workbench.call)",
            configure=SET_A_MODEL,
        )
        return {**(getattr(self.executor, "invocation_state", None) or {}), PEER_KEY: peer}

    # -- calling -------------------------------------------------------------------------------------
    def call(self, name: str, input: Optional[dict[str, Any]] = None, /, **kwargs: Any) -> ToolResult:
        """Run one call synchronously (logged); ``input`` and keyword arguments are merged."""
        arguments = {**(input or {}), **kwargs}
        return self.executor.run(
            [make_tool_use(name, arguments)], self.registry, log=self.log, invocation_state=self._invocation_state()
        )[0]

    def submit(
        self,
        name: str,
        input: Optional[dict[str, Any]] = None,
        *,
        approver: Optional[Callable[..., Any]] = None,
        log: Any = None,
    ) -> "concurrent.futures.Future[ToolResult]":
        """Start one call without blocking and return a ``concurrent.futures.Future`` of its ``ToolResult``.

        The call runs on the running event loop of this thread (the kernel's, when a button click
        starts it) or else on a background thread, so a widget callback never freezes the kernel.
        It is logged to ``log`` (default: this workbench's log). ``approver`` answers this call's
        approval if the tool asks (e.g. an ``ApprovalPrompt.ask``); else the usual approver does.
        """
        tool_use = make_tool_use(name, dict(input or {}))
        use_id = tool_use["toolUseId"]
        target_log = self.log if log is None else log
        done: concurrent.futures.Future = concurrent.futures.Future()
        if approver is not None:
            self._approval_handlers[use_id] = approver

        async def execute() -> None:
            try:
                results = await self.executor.execute(
                    [tool_use], self.registry, log=target_log, invocation_state=self._invocation_state()
                )
                done.set_result(results[0])
            except BaseException as exc:  # noqa: BLE001 - the executor should not raise; hand it to the caller
                done.set_exception(exc)
            finally:
                self._approval_handlers.pop(use_id, None)

        try:
            loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(execute())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            threading.Thread(target=lambda: asyncio.run(execute()), name=f"workbench-call-{name}", daemon=True).start()
        return done

    # -- UI ------------------------------------------------------------------------------------------
    def form(self, tool: Any) -> Any:
        """The (cached) ``ToolForm`` of a tool or tool name; rebuilt when the tool was replaced."""
        if isinstance(tool, str):
            tool = self.registry.get_tool(tool)
        name = tool.tool_name
        with self._lock:
            cached = self._forms.get(name)
            if cached is None or cached.tool is not tool:
                cached = self._forms[name] = VIEWS["form"](tool, self)
            return cached

    def log_table(self) -> Any:
        """The (shared) ``LogTable`` of this workbench's log; its rows load into forms and re-run here."""
        with self._lock:
            if self._log_table is None:
                self._log_table = VIEWS["log_table"](self.log, workbench=self)
            return self._log_table

    def ui(self) -> Any:
        """The dashboard: a searchable tool list, the selected tool's form (its own instance, not the one
        under the ``%%tool`` cell) and the log; follows the registry."""
        with self._lock:
            if self._dashboard is None:
                self._dashboard = VIEWS["dashboard"](self)
            return self._dashboard

    def playground(
        self, models: Any = None, *, tools: Any = None, system: Optional[str] = None, log: Any = None
    ) -> Any:
        """A model playground whose calls run through this workbench's executor and log (a new one each time).

        ``models``: ``Model`` objects or ``"provider:model"`` strings (up to three side by side);
        ``tools``: what is offered (default: this workbench's registry); ``system``: the system prompt;
        ``log``: where calls and runs go (default: this workbench's log). See ``workbench.jupyter.Playground``."""
        return VIEWS["playground"](models, tools=tools, system=system, log=log, workbench=self)

    def __repr__(self) -> str:
        return f"<Workbench tools={self.registry.list_tools()!r} calls={len(self.log)}>"


_WORKBENCH: Optional[Workbench] = None
_LOCK = threading.Lock()


def get_workbench() -> Workbench:
    """The kernel's ``Workbench`` (created on first use; one per process)."""
    global _WORKBENCH
    with _LOCK:
        if _WORKBENCH is None:
            _WORKBENCH = Workbench()
        return _WORKBENCH


def reset_workbench(workbench: Optional[Workbench] = None) -> Workbench:
    """Replace the kernel's ``Workbench`` (a fresh one by default) and return it — for tests."""
    global _WORKBENCH
    with _LOCK:
        _WORKBENCH = workbench if workbench is not None else Workbench()
        return _WORKBENCH
