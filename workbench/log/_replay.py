"""Calling a logged tool again (replay), and turning logged calls into test cases.

Both reach above the log (the registry, the executor, ``workbench.testing``), so they import what
they need when called.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

from workbench.secrets import MASK, masked_parameters
from workbench.types import ToolResult, make_tool_use

__all__ = ["replay", "to_cases"]


def _check_secrets_given(row_id: int, tool_name: str, tool_input: Any, registry: Any) -> None:
    """Refuse to replay a row whose secret parameters the log stored as ``***`` (and nothing replaced)."""
    from workbench.registry import as_tool_registry  # the registry sits above the log

    try:
        secret = as_tool_registry(registry).get_tool(tool_name).spec.secret_parameters
    except Exception:  # noqa: BLE001 - an unknown tool, a registry the executor understands and this does not
        return
    missing = masked_parameters(tool_input, secret)
    if missing:
        names = ", ".join(missing)
        raise ValueError(
            f"Cannot replay call {row_id} of tool '{tool_name}': its secret parameter(s) {names} "
            f"were not stored in the log (they show as {MASK}); give them with "
            f"replay({row_id}, ..., inputs={{{', '.join(f'{n!r}: ...' for n in missing)}}})"
        )


def replay(
    row: Mapping[str, Any],
    log: Any,
    registry: Any = None,
    executor: Any = None,
    *,
    inputs: Optional[Mapping[str, Any]] = None,
) -> ToolResult:
    """Call the tool of the logged ``row`` again with its input; the new call is logged in ``log``
    (see ``ExecutionLog.replay``)."""
    row_id = row["id"]
    if not row["tool_name"]:
        raise ValueError(f"Cannot replay call {row_id}: the log does not record which tool it called")
    if registry is None:
        from workbench.registry import default_registry

        registry = default_registry()
    if executor is None:
        from workbench.executor import SequentialExecutor

        executor = SequentialExecutor()
    tool_input = {} if row["input"] is None else row["input"]
    if inputs:
        tool_input = {**tool_input, **inputs}
    _check_secrets_given(row_id, row["tool_name"], tool_input, registry)
    tool_use = make_tool_use(row["tool_name"], tool_input)
    return executor.run([tool_use], registry, log=log)[0]


def to_cases(
    log: Any,
    tool: Optional[str] = None,
    status: Optional[str] = None,
    last: Optional[int] = None,
    *,
    ids: Optional[Iterable[int]] = None,
    expect: Optional[str] = None,
    registry: Any = None,
) -> list[Any]:
    """The logged calls as ``workbench.testing.ToolCase``s (see ``ExecutionLog.to_cases``)."""
    from workbench import _entry_points  # workbench.testing sits above the log

    return _entry_points.cases_from_log(
        log, tool=tool, status=status, last=last, ids=ids, expect=expect, registry=registry
    )
