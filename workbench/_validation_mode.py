"""Validation modes: how strictly a native tool checks its input, and which setting decides.

``"strict"`` (the default) is JSON's rules through the tool's types: ``"6"`` is not an integer, a
bool is not a number. ``"lax"`` is pydantic's lax mode: ``"6"`` becomes 6, ``"true"`` becomes True,
as a framework whose tools validate with ``model_validate`` accepts them. A mode may be set per
run (``validating()``, or an executor's ``validation=``), per tool (``@tool(validation=...)``,
``spec.validation``) and per registry (``ToolRegistry(validation=...)``); the first set wins in that
order. Only tools with Python types have two modes: a tool known by its JSON Schema alone is checked
by the schema, and an adapted tool of another framework as that framework checks it, in any mode.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator, Optional

__all__ = ["MODES", "check_mode", "validating", "run_mode", "mode_for"]

MODES = ("strict", "lax")

# The mode of the calls made in this context (a run's ``validation=``); it wins over an executor's own,
# so one shared executor serves concurrent runs that each choose theirs (as ``approving`` does)
_context_mode: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("workbench_validation", default=None)


def check_mode(value: Any, where: str) -> Optional[str]:
    """``value`` if it is a mode or ``None``; else ``ValueError`` naming ``where`` and the modes."""
    if value is None or (isinstance(value, str) and value in MODES):
        return value
    raise ValueError(
        f"{where}: validation must be one of {', '.join(map(repr, MODES))} (or None: not set), got {value!r}"
    )


@contextlib.contextmanager
def validating(mode: Optional[str]) -> Iterator[None]:
    """``with validating("lax"):`` — the tool calls executors run in this context (and the tasks started
    in it) validate in ``mode``, whatever the executor, tool or registry says; ``None`` clears an
    enclosing one (each executor's, tool's and registry's own then apply)."""
    token = _context_mode.set(check_mode(mode, "validating()"))
    try:
        yield
    finally:
        _context_mode.reset(token)


def run_mode(executor: Any = None) -> Optional[str]:
    """The mode a run imposes: the ``validating()`` context's, else ``executor``'s ``validation``."""
    return _context_mode.get() or getattr(executor, "validation", None)


def mode_for(spec: Any, run: Optional[str], registry: Any = None) -> Optional[str]:
    """The mode a call of ``spec``'s tool validates in: the run's, else the tool's, else the registry's
    (``None``: none is set, the tool's own default, strict)."""
    return run or spec.validation or getattr(registry, "validation", None)
