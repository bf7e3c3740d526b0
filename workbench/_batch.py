"""Batch runs: ``executor.map(tool, inputs)`` → a pandas DataFrame, one row per input (issue 11).

The batch is cut into chunks that each go through the executor's ordinary ``run`` (so the quick
sync path of a sequential executor stays quick, and every row is logged as an ordinary call). The
chunk size adapts to the tool: a few calls for a slow tool (progress and Cancel stay responsive),
thousands for a quick one (the per-chunk cost is amortised). pandas is imported only here.
"""

from __future__ import annotations

import math
import time
from typing import Any, Optional, Union

from workbench._content import canonical_json as _canonical
from workbench.types import new_tool_use_id

__all__ = ["RESULT_COLUMNS", "map_batch", "json_value"]

RESULT_COLUMNS = ("status", "value", "error_type", "error", "duration_ms", "tool_use_id")
_DTYPES: tuple[Union[type, str], ...] = (object, object, object, object, "float64", object)


def json_value(content: Any) -> Any:
    """The JSON value of a result's content: its ``json`` block, else its text, else ``None``."""
    if not content:
        return None
    texts = []
    for block in content:
        if type(block) is dict:
            if "json" in block:
                return block["json"]
            if "text" in block:
                texts.append(block["text"])
    return "".join(texts) if texts else None


def _resolve(tool: Any, registry: Any) -> "tuple[Any, Any, str]":
    """``(tool object, registry, name)`` for a tool object or a registered name."""
    if isinstance(tool, str):
        if registry is None:
            from workbench.registry import default_registry

            registry = default_registry()
        from workbench.registry import as_tool_registry

        registry = as_tool_registry(registry)
        try:
            found = registry.get_tool(tool)
        except KeyError:
            raise ValueError(
                f"map: no tool named {tool!r} in the registry (tools: {', '.join(registry.list_tools()) or 'none'})"
            ) from None
        return found, registry, tool
    spec = getattr(tool, "spec", None)
    if spec is None:
        raise TypeError(f"map: expected a tool (or a registered tool name), got {type(tool).__name__}")
    return tool, ([tool] if registry is None else registry), spec.name


_PRESENT = frozenset({int, str, bool, dict, list})


def _is_missing(cell: Any) -> bool:
    kind = type(cell)
    if kind in _PRESENT:
        return False
    if cell is None:
        return True
    if kind is float:
        return math.isnan(cell)
    try:
        import pandas as pd

        return cell is pd.NA or cell is pd.NaT or (isinstance(cell, float) and math.isnan(cell))
    except Exception:  # noqa: BLE001
        return False


def _frame_inputs(df: Any, spec: Any) -> "tuple[list[dict], list[str]]":
    """Inputs from a DataFrame's parameter columns (a missing cell is "not set"); the other columns carried."""
    props = (spec.parameters or {}).get("properties") or {}
    params = [c for c in df.columns if c in props]
    carried = [c for c in df.columns if c not in props]
    clash = [c for c in carried if c in RESULT_COLUMNS]
    if clash:
        raise ValueError(
            f"map: the DataFrame for tool {spec.name!r} has column(s) {', '.join(map(repr, clash))} that "
            f"are not parameters and would clash with the result columns; rename them"
        )
    integer = {c for c in params if props[c].get("type") == "integer"}
    records = df[params].to_dict("records") if params else [{} for _ in range(len(df))]
    inputs = []
    for record in records:
        row = {}
        for key, cell in record.items():
            if _is_missing(cell):
                continue
            if key in integer and type(cell) is float and cell.is_integer():
                cell = int(cell)  # an int column with a missing cell is a float column in pandas
            row[key] = cell
        inputs.append(row)
    return inputs, carried


def _tool_uses(inputs: list, name: str) -> list[dict]:
    # ids of the usual shape (tooluse_ + 32 hex digits): a random prefix per batch and the row number
    prefix = new_tool_use_id()[:-8]
    uses = []
    for i, item in enumerate(inputs):
        if isinstance(item, dict) and "toolUseId" in item and "input" in item:
            other = item.get("name", name)
            if other != name:
                raise ValueError(f"map: input {i} is a ToolUse of tool {other!r}, but the batch runs {name!r}")
            uses.append({"toolUseId": item["toolUseId"], "name": name, "input": item["input"]})
        elif isinstance(item, dict):
            uses.append({"toolUseId": f"{prefix}{i & 0xFFFFFFFF:08x}", "name": name, "input": item})
        else:
            raise TypeError(
                f"map: input {i} for tool {name!r} must be a dict of arguments or a ToolUse, got {type(item).__name__}"
            )
    return uses


def _row(result: Any) -> tuple:
    metadata = result.metadata
    if result.status == "success":
        return ("success", json_value(result.content), None, None, metadata.get("latency_ms"), result.tool_use_id)
    return (
        result.status,
        None,
        metadata.get("error_type"),
        metadata.get("error"),
        metadata.get("latency_ms"),
        result.tool_use_id,
    )


def _done_before(log: Any, name: str) -> dict[str, tuple]:
    """Canonical input → result row of the success rows a file log holds for ``name``."""
    if log is None or getattr(log, "path", None) is None:
        raise ValueError(
            "map(resume=True) needs a file log (ExecutionLog('runs.db')): it looks up the calls "
            "that already succeeded there"
        )
    done: dict[Any, Any] = {}
    for inp, use_id, content, latency in log.success_rows(name):
        done.setdefault(_canonical(inp), ("success", json_value(content), None, None, latency, use_id))
    return done


def map_batch(
    executor: Any,
    tool: Any,
    inputs: Any,
    *,
    registry: Any = None,
    log: Any = None,
    resume: bool = False,
    progress: Any = None,
) -> Any:
    """See ``ToolExecutor.map``."""
    import pandas as pd

    tool_obj, registry, name = _resolve(tool, registry)
    index = None
    carried_frame = None
    if isinstance(inputs, pd.DataFrame):
        items, carried = _frame_inputs(inputs, tool_obj.spec)
        index = inputs.index
        carried_frame = inputs[carried].reset_index(drop=True) if carried else None
    else:
        if inputs is None or isinstance(inputs, (str, bytes, dict)):
            raise TypeError(
                f"map: inputs for tool {name!r} must be a DataFrame, an iterable of dicts or a list of "
                f"ToolUses, got {type(inputs).__name__}"
            )
        items = list(inputs)
    uses = _tool_uses(items, name)
    log = executor.log if log is None else log
    rows: list[Optional[tuple]] = [None] * len(uses)
    todo = list(range(len(uses)))
    if resume:
        done = _done_before(log, name)
        todo = []
        for i, use in enumerate(uses):
            earlier = done.get(_canonical(use["input"]))
            if earlier is None:
                todo.append(i)
            else:
                rows[i] = earlier
    bar = _progress(progress, len(uses), len(uses) - len(todo), name)
    try:
        _run_chunks(executor, tool_obj, uses, todo, rows, registry, log, bar)
    finally:
        if bar is not None:
            bar.close()
    keep = [i for i, row in enumerate(rows) if row is not None]
    columns = list(zip(*(rows[i] for i in keep))) or [()] * len(RESULT_COLUMNS)
    frame = pd.DataFrame(
        {name: pd.Series(values, dtype=dtype) for name, values, dtype in zip(RESULT_COLUMNS, columns, _DTYPES)}
    )
    if carried_frame is not None:
        frame = pd.concat([carried_frame.iloc[keep].reset_index(drop=True), frame], axis=1)
    if index is not None:
        frame.index = index[keep]
    return frame


def _run_chunks(
    executor: Any, tool: Any, uses: list, todo: list, rows: list, registry: Any, log: Any, bar: Any
) -> None:
    """Run the pending calls chunk by chunk, filling ``rows``; stops early when the bar is cancelled
    or the kernel is interrupted (KeyboardInterrupt) — finished rows are kept."""
    smallest, target, ceiling = executor.map_chunks()
    size = floor = max(1, smallest)
    position = 0
    run = executor.run
    # the executor's batch fast lane (same rows, mostly no ToolResult objects), if it has one for this tool
    lane = executor.batch_rows(tool, registry, log)
    try:
        poll = getattr(bar, "poll", None)
        while position < len(todo):
            if poll is not None:
                poll()
            if bar is not None and bar.cancelled:
                break
            chunk = todo[position : position + size]
            t0 = time.perf_counter()
            if lane is not None:
                chunk_rows = [row if type(row) is tuple else _row(row) for row in lane([uses[i] for i in chunk])]
            else:
                chunk_rows = [_row(result) for result in run([uses[i] for i in chunk], registry, log=log)]
            elapsed = time.perf_counter() - t0
            failures = 0
            for i, row in zip(chunk, chunk_rows):
                rows[i] = row
                failures += row[0] != "success"
            position += len(chunk)
            if bar is not None:
                bar.advance(len(chunk), failures)
            per_call = elapsed / len(chunk)
            size = max(floor, min(ceiling, int(target / per_call) if per_call > 0 else ceiling))
    except KeyboardInterrupt:
        pass  # an interrupted batch returns what finished


def _progress(progress: Any, total: int, done: int, name: str) -> Any:
    """The progress display: ``False`` → none; ``None``/``True`` → a notebook widget in a kernel with
    ipywidgets, else tqdm on stderr; an object with ``advance``/``close``/``cancelled`` is used as given."""
    if progress is False:
        return None
    if progress is not None and progress is not True:
        return progress
    if _in_kernel():
        try:
            from workbench import _entry_points  # the notebook layer sits above the executors

            return _entry_points.notebook_progress(total, done, name)
        except ImportError:
            pass
    return TqdmProgress(total, done, name)


def _in_kernel() -> bool:
    import sys

    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:  # noqa: BLE001
        return False
    return ip is not None and getattr(ip, "kernel", None) is not None


class TqdmProgress:
    """A tqdm bar on stderr: done/total, rate, ETA, and failures so far in the postfix."""

    cancelled = False

    def __init__(self, total: int, done: int, name: str) -> None:
        import sys

        from tqdm import tqdm

        self.failures = 0
        self._bar = tqdm(total=total, initial=done, desc=name, unit="call", file=sys.stderr, dynamic_ncols=True)

    def advance(self, count: int, failures: int) -> None:
        if failures:
            self.failures += failures
            self._bar.set_postfix(failed=self.failures, refresh=False)
        self._bar.update(count)

    def close(self) -> None:
        self._bar.close()
