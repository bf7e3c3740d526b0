"""The state the executor's phases pass along: ``CallRun`` (one ``execute``/``run``: its registry,
log and idempotency cache), ``PreparedCall`` (one call between ``prepare`` and ``invoke``), the
``approving`` context, and the progress event of a call."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from typing import Any, Callable, Iterator, Optional

from workbench._events import ToolEvent
from workbench.context import ToolContext
from workbench.registry import as_tool_registry
from workbench.tools import BaseTool
from workbench.types import ToolUse

__all__ = ["Approver", "approving", "current_approver", "CallRun", "PreparedCall", "ProgressEvent"]

Approver = Callable[[ToolUse, BaseTool], Any]  # returns bool or an awaitable of bool

# The approver of the calls made in this context (an agent run's ``approver=``); it wins over the
# executor's own, so one shared executor serves concurrent runs that each ask their own user.
_context_approver: contextvars.ContextVar[Optional[Approver]] = contextvars.ContextVar(
    "workbench_approver", default=None
)
current_approver = _context_approver.get


@contextlib.contextmanager
def approving(approver: Optional[Approver]) -> Iterator[None]:
    """``with approving(approver):`` — ``approver`` answers the ``ASK_USER`` calls that executors run
    in this context (and the tasks started in it) instead of their own ``approver``; ``None`` leaves
    each executor's own in charge."""
    token = _context_approver.set(approver)
    try:
        yield
    finally:
        _context_approver.reset(token)


class PreparedCall:
    """One call that ``ToolExecutor.prepare`` looked up, permitted and validated, for ``invoke``.

    ``tool_use`` is the well-formed ToolUse, ``tool``/``spec`` what it calls, ``arguments`` the
    validated arguments, ``index`` its place in the batch; the other slots are the pipeline's own."""

    __slots__ = (
        "index",
        "tool_use",
        "tool",
        "spec",
        "arguments",
        "context",
        "started_at",
        "t0",
        "cancel_event",
        "idem_key",
        "synthetic",
        "target",
        "cancelled",
        "approval",
        "deadline",
        "finished",
        "func",
        "awaitable",
    )

    # set by prepare once known (not in __init__: a call that fails before has none of them)
    tool: Any
    spec: Any
    arguments: Any  # the validated arguments (None on a call that failed validation)
    deadline: float  # with a timeout: perf_counter() past which the call has timed out
    finished: float  # with a timeout: perf_counter() when the tool returned or raised

    def __init__(self, index: int, tool_use: ToolUse, started_at: Optional[str], t0: float) -> None:
        self.index = index
        self.tool_use = tool_use
        self.started_at = started_at
        self.t0 = t0
        self.context: Optional[ToolContext] = None
        self.cancel_event: Optional[threading.Event] = None
        self.idem_key: Optional[tuple[str, str]] = None
        self.synthetic = False
        self.cancelled = False
        self.approval = False  # whether the approver must be asked first (ask_user)
        self.target: Any = None  # what cancel(id) cancels: this call's task, or the future it awaits
        self.func: Any = None  # a planned call's function, called with the arguments as keywords (CallPlan)
        self.awaitable: Any = None  # a planned async call already started: what is left to await


class CallRun:
    """State shared by the calls of one ``execute``/``run``: the registry, the log, the idempotency cache.

    ``planned``: whether its calls may take their tool's ``CallPlan`` (the executor adds no step to
    them: see ``ToolExecutor.start_run``); ``validation``: the run's validation mode, if it imposes one."""

    __slots__ = ("registry", "tools", "log", "invocation_state", "idempotent", "ctx_factory", "planned", "validation")

    def __init__(
        self, registry: Any, log: Any, invocation_state: Optional[dict], ctx_factory: Any = None, planned: bool = False
    ) -> None:
        tools = getattr(registry, "registry", None)
        if type(tools) is not dict:
            registry = as_tool_registry(registry)
            tools = getattr(registry, "registry", None)
            if type(tools) is not dict:
                tools = {}  # a registry of another kind: every lookup goes through get_tool
        self.registry = registry
        self.tools: dict = tools
        self.log = log
        self.invocation_state = invocation_state
        self.idempotent: dict[tuple[str, str], Any] = {}
        self.ctx_factory = ctx_factory
        self.planned = planned
        self.validation: Optional[str] = None


class ProgressEvent(ToolEvent):
    """A ``progress`` event: four stores instead of seven (a tool may report 100k times); the
    per-call fields are read from the call."""

    __slots__ = ("_call",)
    kind = "progress"
    tool_use = property(lambda self: self._call.tool_use)
    index = property(lambda self: self._call.index)
    started_at = property(lambda self: self._call.started_at)

    def __init__(self, call: PreparedCall, progress: float, message: Optional[str]) -> None:
        self._call = call
        self.progress = progress
        self.message = message
        self._result = None
