"""``ExecutionLog``: every finished tool call, kept in SQLite.

One row per *final* :class:`~workbench.types.ToolResult` (``success`` or
``error``); progress events (``in_progress``) are never logged. Each
:meth:`ExecutionLog.append` is its own committed transaction, so a process
killed with ``SIGKILL`` loses only the calls that were still running.

The log is thread-safe: one ``sqlite3`` connection opened with
``check_same_thread=False`` and guarded by a lock, so executor worker threads
and the event loop can append concurrently. pandas and pyarrow are imported
lazily, only by :meth:`ExecutionLog.to_dataframe` and :meth:`ExecutionLog.export`.

Rows come back as plain dicts::

    {"id": 1, "tool_name": "add", "tool_use_id": "t1",
     "input": {"a": 1, "b": 2},                        # parsed JSON (None if unknown)
     "output": [{"text": "3"}, {"json": 3}],           # the content blocks, parsed
     "status": "success", "error": None, "error_type": None,
     "started_at": "2026-01-01T00:00:00.000Z",         # ISO 8601 strings
     "completed_at": "2026-01-01T00:00:00.001Z",
     "latency_ms": 1.2, "metadata": {...},             # the result's metadata, parsed
     "run_id": None, "turn": None}                     # the agent run and model turn that made the call

An agent run (``workbench.agent.run_agent(..., log=log)``) is kept whole in the same file: its calls
carry ``run_id`` and ``turn``, each model turn is a row of ``model_turns`` (request/response JSON,
text, tool calls, usage, latency, error) and the run itself a row of ``runs``; :meth:`ExecutionLog.runs`
lists them and :meth:`ExecutionLog.run` opens one, as plain dicts. A log file written before these
existed is migrated when it is opened (the columns and tables are added; its rows are kept).

The parts, each with one job: ``_schema`` (tables and opening a file), ``_rows`` (JSON in and out of
rows), ``_record`` (a result as a row), ``_store`` (the ``calls`` rows), ``_events`` (subscribers),
``_export`` (DataFrame, CSV, JSON Lines, Parquet), ``_runs`` (agent runs), ``_replay`` (replay and
test cases), ``_html`` (the notebook table) and ``_log`` (:class:`ExecutionLog`, the facade).
"""

from workbench.log._events import LogListener
from workbench.log._export import EXPORT_FORMATS
from workbench.log._html import _output_summary  # noqa: F401 - the notebook log table uses it
from workbench.log._log import ExecutionLog
from workbench.log._schema import _DDL, _INSERT_SQL, DATAFRAME_COLUMNS, LOG_COLUMNS, RUN_COLUMNS, TURN_COLUMNS  # noqa: F401 - benchmarks/bench_log.py measures against them
from workbench.log._store import OUTCOMES, PAGE_SORT_COLUMNS

__all__ = [
    "ExecutionLog",
    "LogListener",
    "LOG_COLUMNS",
    "DATAFRAME_COLUMNS",
    "EXPORT_FORMATS",
    "OUTCOMES",
    "PAGE_SORT_COLUMNS",
    "RUN_COLUMNS",
    "TURN_COLUMNS",
]
