"""An execution log's calls out of SQLite: a pandas DataFrame, or a CSV / JSON Lines / Parquet file.

pandas and pyarrow are imported here only when called, so ``import workbench`` stays cheap.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from workbench.log._rows import _dumps, _gc_paused, _loads, _parse_iso, _row_dict
from workbench.log._schema import _SELECT_COLUMNS, DATAFRAME_COLUMNS, LOG_COLUMNS
from workbench.log._store import CallStore

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas

__all__ = ["EXPORT_FORMATS", "export", "to_dataframe"]

#: Supported :meth:`ExecutionLog.export` file extensions.
EXPORT_FORMATS: tuple[str, ...] = (".csv", ".jsonl", ".parquet")

# Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV Injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: formula-like strings get a leading ``'``."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def to_dataframe(
    store: CallStore, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None
) -> "pandas.DataFrame":
    """The calls the filters select as a DataFrame of :data:`DATAFRAME_COLUMNS` (see ``ExecutionLog.to_dataframe``)."""
    import pandas as pd

    raw = store.select(
        "id, tool_name, tool_use_id, status, error, input_json, output_json, started_at, completed_at, latency_ms, "
        "run_id, turn",
        tool,
        status,
        last,
    )
    columns: list[Sequence[Any]] = list(zip(*raw)) if raw else [()] * 12
    del raw
    ids, names, use_ids, statuses, errors, inputs, outputs, started, completed, latency, run_ids, turns = columns
    with _gc_paused(len(ids)):
        inputs = [_loads(v) for v in inputs]
        outputs = [_loads(v) for v in outputs]
    data = {
        "id": pd.Series(ids, dtype="int64"),
        "tool_name": pd.Series(names, dtype=object),
        "tool_use_id": pd.Series(use_ids, dtype=object),
        "status": pd.Series(statuses, dtype=object),
        "error": pd.Series(errors, dtype=object),
        "input": pd.Series(inputs, dtype=object),
        "output": pd.Series(outputs, dtype=object),
        "started_at": pd.to_datetime(pd.Series(started, dtype=object), utc=True, format="ISO8601", errors="coerce"),
        "completed_at": pd.to_datetime(pd.Series(completed, dtype=object), utc=True, format="ISO8601", errors="coerce"),
        "latency_ms": pd.Series(latency, dtype="float64"),
        "run_id": pd.Series(run_ids, dtype=object),
        "turn": pd.Series(turns, dtype="Int64"),
    }
    return pd.DataFrame(data, columns=list(DATAFRAME_COLUMNS))


def export(
    store: CallStore,
    path: Union[str, os.PathLike[str]],
    *,
    tool: Optional[str] = None,
    status: Optional[str] = None,
    last: Optional[int] = None,
) -> int:
    """Write the calls the filters select to ``path`` (see ``ExecutionLog.export``); returns the row count."""
    target = Path(os.fspath(path))
    suffix = target.suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise ValueError(
            f"Cannot export the execution log to {str(target)!r}: unsupported extension "
            f"{suffix or '(none)'!r}; supported: {', '.join(EXPORT_FORMATS)}"
        )
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:  # pragma: no cover - pyarrow is a test dependency
            raise ImportError("Exporting the execution log to Parquet needs pyarrow: pip install pyarrow") from None
    raw = store.select(_SELECT_COLUMNS, tool, status, last)
    if suffix == ".csv":
        with open(target, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(LOG_COLUMNS)
            writer.writerows(tuple(map(_csv_cell, row)) for row in raw)
    elif suffix == ".jsonl":
        with open(target, "w", encoding="utf-8") as handle:
            with _gc_paused(len(raw)):
                for row in raw:
                    handle.write(_dumps(_row_dict(row)))
                    handle.write("\n")
    else:
        _write_parquet(target, raw)
    return len(raw)


def _write_parquet(target: Path, raw: list[tuple[Any, ...]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    timestamp = pa.timestamp("us", tz="UTC")
    types: dict[str, pa.DataType] = {
        "id": pa.int64(),
        "latency_ms": pa.float64(),
        "started_at": timestamp,
        "completed_at": timestamp,
    }
    columns: list[Sequence[Any]] = list(zip(*raw)) if raw else [()] * len(LOG_COLUMNS)
    arrays, fields = [], []
    for name, values in zip(LOG_COLUMNS, columns):
        kind = types.get(name, pa.string())
        if kind is timestamp:
            values = [_parse_iso(v) for v in values]
        arrays.append(pa.array(values, type=kind))
        fields.append(pa.field(name, kind))
    pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), target)
