"""Shaping what a call gave into its ``ToolResult`` (the last step of ``invoke``), and the masked log
row every writer of a call row appends (``append_masked``). Error results come from
``workbench.types.error_result``."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping, Optional

from workbench._content import to_content_blocks
from workbench.secrets import mask_arguments, mask_result, secret_values
from workbench.tools import ToolResponse
from workbench.types import ToolResult, fast_tool_result, utc_now_iso

__all__ = ["success_result", "returns_check", "append_masked"]

_perf = time.perf_counter
_now_iso = utc_now_iso
_content = to_content_blocks
_fast_result = fast_tool_result


def returns_check(spec: Any) -> Optional[Callable[[Any], Optional[str]]]:
    """``check(value)`` → ``None`` or how ``value`` breaks the spec's returns schema; ``None`` when the
    spec declares no returns."""
    return spec.returns_checker()


def success_result(
    name: str,
    use_id: str,
    value: Any,
    t0: float,
    started_at: Optional[str],
    check: Optional[Callable[[Any], Optional[str]]],
    synthetic: bool = False,
    _int_text: Callable[[int], str] = int.__repr__,
) -> ToolResult:
    """The ``success`` result of a call of tool ``name`` that returned ``value``: its content, metadata
    and ``check`` of the returns schema (see ``returns_check``); ``t0`` is the ``perf_counter`` at its start."""
    kind = type(value)
    checked = value  # what the returns schema checks: a ToolResponse/ToolResult's wrapped value
    if kind is int:
        content = [{"text": _int_text(value)}, {"json": value}]
        metadata: dict[str, Any] = {"tool_name": name}
    elif kind is str:
        content = [{"text": value}]
        metadata = {"tool_name": name}
    else:
        metadata = {"tool_name": name}
        if isinstance(value, ToolResponse):
            metadata["final_answer"] = value.final_answer
            if value.extras:
                metadata["extras"] = value.extras
            content = _content(value.observation)
            checked = value.observation
        elif isinstance(value, ToolResult):
            # a forwarded result (an MCP proxy's, an OpenAPI tool's): its blocks and metadata become the
            # call's, its value (the structured content / response body, else its JSON block) the value
            content = value.content
            metadata.update(value.metadata)
            metadata["tool_name"] = name
            checked = value = value.value if value.value is not None else value.json
        else:
            content = _content(value)
    if synthetic:
        metadata["synthetic"] = True
    if check is not None:
        mismatch = check(checked)
        if mismatch is not None:
            metadata["returns_mismatch"] = mismatch
    metadata["latency_ms"] = (_perf() - t0) * 1000.0
    return _fast_result(use_id, "success", content, metadata, started_at, _now_iso(), None, value)


def append_masked(log: Any, result: ToolResult, tool_use: Any, secret_names: Iterable[str] = (), **where: Any) -> Any:
    """Append a call to ``log`` (anything with ``append(result, tool_use, input=...)``) as every writer of
    a call row does: the values of its tool's secret parameters (``secret_names``, the spec's
    ``secret_parameters``) are ``***`` in the row's input, and nowhere in its output, error or metadata
    (a validation error's ``received``, a message quoting it). ``where`` (``run_id``, ``turn``) goes to
    ``log.append``; returns what it returns."""
    raw = tool_use.get("input") if isinstance(tool_use, Mapping) else None
    masked = mask_arguments(raw, secret_names)
    if masked is raw:  # no secret given
        return log.append(result, tool_use, **where)
    return log.append(mask_result(result, secret_values(raw, secret_names)), tool_use, input=masked, **where)
