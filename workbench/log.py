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
"""

from __future__ import annotations

import contextlib
import csv
import gc
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from pydantic_core import from_json as _from_json
from pydantic_core import to_json as _to_json

from workbench._html import escape
from workbench.secrets import MASK, masked_parameters
from workbench.types import ToolResult, ToolUse, make_tool_use, utc_now_iso

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas

__all__ = ["ExecutionLog", "LogListener", "LOG_COLUMNS", "DATAFRAME_COLUMNS", "EXPORT_FORMATS", "OUTCOMES",
           "PAGE_SORT_COLUMNS", "RUN_COLUMNS", "TURN_COLUMNS"]

_logger = logging.getLogger(__name__)

#: A listener receives the row dict of each appended call.
LogListener = Callable[[dict[str, Any]], Any]

#: Columns of the ``calls`` table, in order (also the CSV / Parquet export columns).
LOG_COLUMNS: tuple[str, ...] = (
    "id",
    "tool_name",
    "tool_use_id",
    "input_json",
    "output_json",
    "status",
    "error",
    "error_type",
    "started_at",
    "completed_at",
    "latency_ms",
    "metadata_json",
    "run_id",
    "turn",
)

#: Columns of :meth:`ExecutionLog.to_dataframe`, in order.
DATAFRAME_COLUMNS: tuple[str, ...] = (
    "id",
    "tool_name",
    "tool_use_id",
    "status",
    "error",
    "input",
    "output",
    "started_at",
    "completed_at",
    "latency_ms",
    "run_id",
    "turn",
)

#: Columns of the ``runs`` table (one row per agent run), in order; ``*_json`` columns hold JSON.
RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "model", "started_at", "completed_at", "stopped_because", "error", "final_text", "turns",
    "tool_calls", "input_tokens", "output_tokens", "duration_ms", "prompt_json", "tools_json", "settings_json",
)

#: Columns of the ``model_turns`` table (one row per model turn of an agent run), in order.
TURN_COLUMNS: tuple[str, ...] = (
    "id", "run_id", "turn", "model", "text", "tool_calls_json", "stop_reason", "input_tokens", "output_tokens",
    "latency_ms", "request_json", "response_json", "error", "error_kind", "started_at",
)

#: Supported :meth:`ExecutionLog.export` file extensions.
EXPORT_FORMATS: tuple[str, ...] = (".csv", ".jsonl", ".parquet")

_STATUSES = ("success", "error")

#: What :meth:`ExecutionLog.page` filters on: a cancelled call is logged as ``status="error"`` with
#: ``error_type="CancelledError"`` (the executor's marker); ``"error"`` means the other errors.
OUTCOMES: tuple[str, ...] = ("success", "error", "cancelled")
_CANCELLED = "CancelledError"
_OUTCOME_SQL = {
    "success": "status = 'success'",
    "error": f"status = 'error' AND coalesce(error_type, '') != '{_CANCELLED}'",
    "cancelled": f"status = 'error' AND error_type = '{_CANCELLED}'",
}
#: Columns :meth:`ExecutionLog.page` sorts by.
PAGE_SORT_COLUMNS: tuple[str, ...] = ("id", "tool_name", "status", "completed_at", "latency_ms")
_SEARCHED = ("tool_name", "input_json", "output_json", "error")
_MEMORY = ":memory:"
_SCHEMA_VERSION = 2

_DDL = (
    """
    CREATE TABLE IF NOT EXISTS calls (
        id INTEGER PRIMARY KEY,
        tool_name TEXT,
        tool_use_id TEXT,
        input_json TEXT,
        output_json TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        error_type TEXT,
        started_at TEXT,
        completed_at TEXT,
        latency_ms REAL,
        metadata_json TEXT,
        run_id TEXT,
        turn INTEGER
    )
    """,
    "CREATE INDEX IF NOT EXISTS calls_tool_name ON calls (tool_name)",
    "CREATE INDEX IF NOT EXISTS calls_status ON calls (status)",
)

# Columns added after version 1: a file without them gets them on open (see ExecutionLog._migrate).
_ADDED_CALL_COLUMNS = (("run_id", "TEXT"), ("turn", "INTEGER"))

_RUN_DDL = (
    """
    CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        model TEXT,
        started_at TEXT,
        completed_at TEXT,
        stopped_because TEXT,
        error TEXT,
        final_text TEXT,
        turns INTEGER,
        tool_calls INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        duration_ms REAL,
        prompt_json TEXT,
        tools_json TEXT,
        settings_json TEXT
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS model_turns (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL,
        turn INTEGER NOT NULL,
        model TEXT,
        text TEXT,
        tool_calls_json TEXT,
        stop_reason TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        latency_ms REAL,
        request_json TEXT,
        response_json TEXT,
        error TEXT,
        error_kind TEXT,
        started_at TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS model_turns_run ON model_turns (run_id, turn)",
    # partial: a call made outside an agent run (most of them) never touches this index
    "CREATE INDEX IF NOT EXISTS calls_run ON calls (run_id, turn) WHERE run_id IS NOT NULL",
)

_SELECT_COLUMNS = ", ".join(LOG_COLUMNS)
_INSERT_SQL = (
    f"INSERT INTO calls ({', '.join(LOG_COLUMNS[1:])}) "
    f"VALUES ({', '.join('?' * (len(LOG_COLUMNS) - 1))})"
)

# The stdlib encoder, reused (``json.dumps`` with options builds one per call), for the slow path.
# The fast path is pydantic-core's Rust codec: ~5x faster than the stdlib on these small documents.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_encode = _ENCODER.encode


def _dumps(value: Any) -> str:
    """JSON text for ``value``; never raises.

    Values JSON cannot hold are converted as ``workbench._content.to_jsonable``
    does: bytes → base64, datetimes/dates/UUIDs → ISO strings, dataclasses and
    models → objects, sets → arrays, anything else → ``repr``. A reference
    cycle is cut (the repeated container becomes ``"[...]"`` / ``"{...}"``).
    """
    try:
        return _to_json(value, fallback=repr, bytes_mode="base64").decode()
    except Exception:  # noqa: BLE001 - cycles, or an object whose serialisation raised
        pass
    try:
        return _encode(_sanitize(value, set()))
    except Exception:  # noqa: BLE001 - logging must never fail
        return _encode(repr(value))


def _sanitize(value: Any, active: set[int]) -> Any:
    """A JSON-compatible copy built leaf by leaf; a container met again inside itself becomes its repr marker."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        key = id(value)
        if key in active:
            return "{...}" if isinstance(value, dict) else "[...]"
        active.add(key)
        try:
            if isinstance(value, dict):
                return {k if isinstance(k, str) else str(k): _sanitize(v, active) for k, v in value.items()}
            return [_sanitize(v, active) for v in value]
        finally:
            active.discard(key)
    try:
        from workbench._content import to_jsonable

        converted = to_jsonable(value)
        _encode(converted)
        return converted
    except Exception:  # noqa: BLE001
        return repr(value)


def _loads(text: Optional[str]) -> Any:
    if text is None:
        return None
    try:
        return _from_json(text)
    except ValueError:  # a row written by something else; show it as it is
        return text


@contextlib.contextmanager
def _gc_paused(count: int) -> Iterator[None]:
    """Pause the cyclic GC while parsing many rows: JSON makes only acyclic objects, and
    hundreds of thousands of new dicts would otherwise trigger many full collections."""
    if count < 1000 or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _row_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    """A row dict (JSON columns parsed) from a tuple in :data:`LOG_COLUMNS` order."""
    (row_id, tool_name, tool_use_id, input_json, output_json, status, error,
     error_type, started_at, completed_at, latency_ms, metadata_json, run_id, turn) = row
    return {
        "id": row_id,
        "tool_name": tool_name,
        "tool_use_id": tool_use_id,
        "input": _loads(input_json),
        "output": _loads(output_json),
        "status": status,
        "error": error,
        "error_type": error_type,
        "started_at": started_at,
        "completed_at": completed_at,
        "latency_ms": latency_ms,
        "metadata": _loads(metadata_json),
        "run_id": run_id,
        "turn": turn,
    }


def _json_key(column: str) -> str:
    return column[:-5] if column.endswith("_json") else column


def _run_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    """A run dict from a ``runs`` row in :data:`RUN_COLUMNS` order (``*_json`` parsed, keys without ``_json``)."""
    return {_json_key(c): _loads(v) if c.endswith("_json") else v for c, v in zip(RUN_COLUMNS, row)}


def _turn_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    """A model-turn dict (a ``ModelTurn.to_dict()`` plus ``turn``, ``error``, ``error_kind``, ``started_at``)."""
    data = {_json_key(c): _loads(v) if c.endswith("_json") else v for c, v in zip(TURN_COLUMNS, row)}
    data["usage"] = {"input_tokens": data.pop("input_tokens") or 0, "output_tokens": data.pop("output_tokens") or 0}
    data["tool_calls"] = data["tool_calls"] or []
    return data


def _parse_iso(text: Optional[str]) -> Optional[datetime]:
    """An aware UTC datetime from an ISO 8601 string (naive → UTC); ``None`` if unparsable."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except (TypeError, ValueError):
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _latency(value: Any, started_at: Optional[str], completed_at: Optional[str]) -> Optional[float]:
    if value is not None and not isinstance(value, bool):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    start, end = _parse_iso(started_at), _parse_iso(completed_at)
    if start is None or end is None:
        return None
    return (end - start).total_seconds() * 1000.0


def _short(text: Any, limit: int = 80) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _latency_text(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, (int, float)) else ""


def _output_summary(output: Any) -> str:
    """A one-line view of the content blocks: text, else JSON, else ``[image png]``."""
    if not isinstance(output, list):
        return "" if output is None else _dumps(output)
    texts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
    if texts:
        return " ".join(texts)
    parts = []
    for block in output:
        if isinstance(block, dict) and "json" in block:
            parts.append(_dumps(block["json"]))
        elif isinstance(block, dict) and "image" in block:
            image = block["image"] if isinstance(block["image"], dict) else {}
            parts.append(f"[image {image.get('format', '?')}]")
    return " ".join(parts)


# Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV Injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: formula-like strings get a leading ``'``."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _retry_locked(action: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``action()``, again while SQLite says the database is locked, for up to ``seconds``.

    The connection's busy timeout does not cover the log's set-up: switching a file to WAL while
    another connection has it open, and a lock upgrade that could deadlock, are answered "database is
    locked" at once. Two processes opening the same new log file (a notebook and a script, a client
    and the test watching it) failed that way about one time in ten."""
    deadline = time.monotonic() + seconds
    delay = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


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
        raise ValueError(f"Cannot replay call {row_id} of tool '{tool_name}': its secret parameter(s) {names} "
                         f"were not stored in the log (they show as {MASK}); give them with "
                         f"replay({row_id}, ..., inputs={{{', '.join(f'{n!r}: ...' for n in missing)}}})")


class ExecutionLog:
    """A SQLite-backed record of finished tool calls.

    Args:
        path: a database file (created if missing; opened in WAL mode with
            ``synchronous=NORMAL``), or ``None`` / ``":memory:"`` for an
            in-memory log that lives as long as this object.

    Attributes:
        path: the database file as a :class:`~pathlib.Path`, or ``None`` for
            an in-memory log.

    The table is ``calls`` (see :data:`LOG_COLUMNS`) with indexes on
    ``tool_name`` and ``status``. Several ``ExecutionLog`` objects (or
    processes) may open the same file, also at the same moment.

    An ``ExecutionLog`` is always truthy, even when empty, so ``if log:`` means
    "a log was given".
    """

    def __init__(self, path: Union[str, os.PathLike[str], None] = None) -> None:
        target = _MEMORY if path is None else os.fspath(path)
        self.path: Optional[Path] = None if target == _MEMORY else Path(target)
        self._lock = threading.Lock()
        self._listeners: tuple[LogListener, ...] = ()
        # isolation_level=None: autocommit, every statement outside BEGIN…COMMIT commits at once.
        conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=30.0)
        try:
            if self.path is not None:
                _retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
                conn.execute("PRAGMA synchronous=NORMAL")  # this connection's own setting: no lock
            _retry_locked(lambda: self._create_schema(conn))
        except BaseException:
            conn.close()
            raise
        self._conn: sqlite3.Connection = conn
        self._cursor = conn.cursor()  # reused by append (always under the lock)
        self._closed = False

    @classmethod
    def _create_schema(cls, conn: sqlite3.Connection) -> None:
        """Tables, indexes and migrations in one write transaction (``BEGIN IMMEDIATE`` takes the write
        lock first, so two processes creating the same file do not both read and then upgrade)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _DDL:
                conn.execute(statement)
            cls._migrate(conn)
            for statement in _RUN_DDL:
                conn.execute(statement)
            if conn.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Add the columns a log file written by an older version lacks (its rows get NULLs)."""
        present = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
        for column, kind in _ADDED_CALL_COLUMNS:
            if column not in present:
                conn.execute(f"ALTER TABLE calls ADD COLUMN {column} {kind}")

    # -- writing -----------------------------------------------------------------------------------
    @staticmethod
    def _params(
        result: ToolResult | Mapping[str, Any],
        tool_use: Optional[ToolUse | Mapping[str, Any]],
        input: Optional[dict[str, Any]],
        run_id: Optional[str] = None,
        turn: Optional[int] = None,
    ) -> tuple[Any, ...]:
        """The INSERT parameters (``LOG_COLUMNS[1:]`` order) for one result; validates it."""
        if not isinstance(result, ToolResult):
            if isinstance(result, Mapping):
                result = ToolResult.model_validate(result)
            else:
                raise TypeError(f"ExecutionLog.append expects a ToolResult, got {type(result).__name__}")
        status = result.status
        if status == "in_progress":
            raise ValueError(
                "ExecutionLog only records final results: got an in_progress ToolResult "
                f"(toolUseId={result.tool_use_id!r}); append it once the call has ended"
            )
        metadata = result.metadata
        tool_name = metadata.get("tool_name")
        if tool_use is not None:
            if tool_name is None:
                tool_name = tool_use.get("name")
            if input is None:
                input = tool_use.get("input")
        if status == "error":
            error = metadata.get("error")
            if error is None:
                error = result.text or None
            elif not isinstance(error, str):
                error = str(error)
            error_type = metadata.get("error_type")
            if error_type is not None and not isinstance(error_type, str):
                error_type = str(error_type)
        else:
            error = error_type = None
        started_at = result.started_at
        completed_at = result.completed_at or utc_now_iso()
        latency = metadata.get("latency_ms")
        if type(latency) is not float:
            latency = _latency(latency, started_at, completed_at)
        return (
            None if tool_name is None else str(tool_name),
            result.tool_use_id,
            None if input is None else _dumps(input),
            _dumps(result.content),
            status,
            error,
            error_type,
            started_at,
            completed_at,
            latency,
            _dumps(metadata),
            run_id,
            turn,
        )

    def append(
        self,
        result: ToolResult,
        tool_use: Optional[ToolUse | Mapping[str, Any]] = None,
        *,
        input: Optional[dict[str, Any]] = None,
        run_id: Optional[str] = None,
        turn: Optional[int] = None,
    ) -> int:
        """Record one finished call and return its row id.

        Args:
            result: the final ``ToolResult`` (``success`` or ``error``; its wire
                dict is accepted too).
            tool_use: the ``ToolUse`` that produced it; gives the tool name when
                ``result.metadata["tool_name"]`` is absent, and the input.
            input: the call's input, overriding ``tool_use["input"]``.
            run_id, turn: the agent run and the index of the model turn that made the call.

        The row is committed before this returns. Inputs, content and metadata
        are stored as JSON; values JSON cannot hold (bytes, datetimes, custom
        objects …) are converted (base64, ISO strings, ``repr``) — appending
        never fails because of them. A missing ``completed_at`` is set to now;
        a missing ``latency_ms`` is computed from the timestamps when possible.

        Raises:
            ValueError: ``result.status == "in_progress"`` (only final results are logged).
        """
        params = self._params(result, tool_use, input, run_id, turn)
        with self._lock:
            row_id = self._cursor.execute(_INSERT_SQL, params).lastrowid
        if self._listeners:
            self._notify([(row_id, *params)])
        return row_id  # type: ignore[return-value]

    def append_many(
        self,
        items: Iterable[
            ToolResult
            | tuple[ToolResult, Optional[ToolUse | Mapping[str, Any]]]
            | tuple[ToolResult, Optional[ToolUse | Mapping[str, Any]], Optional[dict[str, Any]]]
        ],
    ) -> list[int]:
        """Record several finished calls in one transaction; returns their row ids in order.

        Each item is a ``ToolResult``, a ``(result, tool_use)`` pair or a
        ``(result, tool_use, input)`` triple (as for :meth:`append`). Every item
        is validated before anything is written: one ``in_progress`` result
        rejects the whole batch with ``ValueError``.
        """
        batch = []
        for item in items:
            if isinstance(item, tuple):
                if not 1 <= len(item) <= 3:
                    raise ValueError(f"append_many items are (result, tool_use[, input]) tuples, got {len(item)} values")
                result, tool_use, input = (*item, None, None)[:3]
            else:
                result, tool_use, input = item, None, None
            batch.append(self._params(result, tool_use, input))
        if not batch:
            return []
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(_INSERT_SQL, batch)
                last = conn.execute("SELECT last_insert_rowid()").fetchone()[0]
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        # BEGIN IMMEDIATE holds the write lock: the batch got consecutive rowids.
        ids = list(range(last - len(batch) + 1, last + 1))
        if self._listeners:
            self._notify([(row_id, *params) for row_id, params in zip(ids, batch)])
        return ids

    # -- listeners ---------------------------------------------------------------------------------
    def subscribe(self, callback: LogListener) -> Callable[[], None]:
        """Call ``callback(row)`` with the row dict after each append; returns an unsubscribe function.

        Listeners run in the appending thread, after the row is committed and
        outside the log's lock (they may read the log). An exception raised
        by a listener is logged (``logging`` warning) and never breaks the append.
        """
        with self._lock:
            self._listeners = (*self._listeners, callback)
        return lambda: self.unsubscribe(callback)

    def unsubscribe(self, callback: LogListener) -> None:
        """Remove a listener added with :meth:`subscribe` (no error if it is not subscribed)."""
        with self._lock:
            listeners = list(self._listeners)
            if callback in listeners:
                listeners.remove(callback)
            self._listeners = tuple(listeners)

    def _notify(self, raw_rows: list[tuple[Any, ...]]) -> None:
        listeners = self._listeners
        for raw in raw_rows:
            for callback in listeners:
                try:
                    callback(_row_dict(raw))  # a fresh dict each: listeners may mutate it
                except Exception:  # noqa: BLE001 - a UI listener must not break logging
                    _logger.warning("ExecutionLog listener %r failed", callback, exc_info=True)

    # -- reading -----------------------------------------------------------------------------------
    @staticmethod
    def _where(tool: Optional[str], status: Optional[str], last: Optional[int]) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        if tool is not None:
            clauses.append("tool_name = ?")
            args.append(tool)
        if status is not None:
            if status not in _STATUSES:
                raise ValueError(f"Unknown status {status!r}: the log holds 'success' and 'error' results")
            clauses.append("status = ?")
            args.append(status)
        sql = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        if last is not None:
            if isinstance(last, bool) or not isinstance(last, int) or last < 0:
                raise ValueError(f"last must be a non-negative integer, got {last!r}")
            sql += " ORDER BY id DESC LIMIT ?"
            args.append(last)
        else:
            sql += " ORDER BY id"
        return sql, args

    def _select(self, columns: str, tool: Optional[str], status: Optional[str], last: Optional[int]) -> list[tuple[Any, ...]]:
        where, args = self._where(tool, status, last)
        with self._lock:
            raw = self._conn.execute(f"SELECT {columns} FROM calls{where}", args).fetchall()
        if last is not None:
            raw.reverse()
        return raw

    def rows(self, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None) -> list[dict[str, Any]]:
        """The logged calls as row dicts, oldest first (newest last).

        Args:
            tool: only calls of this tool name.
            status: only ``"success"`` or ``"error"`` calls.
            last: only the ``last`` most recent matching calls (still oldest first).
        """
        raw = self._select(_SELECT_COLUMNS, tool, status, last)
        with _gc_paused(len(raw)):
            return [_row_dict(row) for row in raw]

    def success_rows(self, tool: str) -> list[tuple[Any, Optional[str], Any, Optional[float]]]:
        """``(input, tool_use_id, content, latency_ms)`` of every success row of ``tool``, oldest first
        (what a resumed batch run skips)."""
        with self._lock:
            raw = self._conn.execute(
                "SELECT input_json, tool_use_id, output_json, latency_ms FROM calls WHERE tool_name = ? AND status = 'success' ORDER BY id",
                (tool,)).fetchall()
        return [(_loads(inp), use_id, _loads(out), latency) for inp, use_id, out, latency in raw]

    def page(
        self,
        *,
        tool: Optional[str] = None,
        outcome: Optional[str] = None,
        text: Optional[str] = None,
        sort: str = "id",
        descending: bool = True,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of matching calls and how many match — filtered, sorted and cut in SQL, so a view
        of a 100,000-row log parses only the rows it shows. Read-only.

        Args:
            tool: only calls of this tool name.
            outcome: ``"success"``, ``"error"`` (failed, not cancelled) or ``"cancelled"`` (see :data:`OUTCOMES`).
            text: only calls whose tool name, input JSON, output JSON or error contains this text
                (case-insensitive for ASCII letters).
            sort: one of :data:`PAGE_SORT_COLUMNS`; ties are broken by ``id`` in the same direction.
            descending: newest / largest first (the default: newest call first).
            offset, limit: the page window over the sorted matches.

        Returns:
            ``(rows, matching)``: the row dicts of the page (as :meth:`rows` gives them) and the number
            of matching calls.
        """
        if sort not in PAGE_SORT_COLUMNS:
            raise ValueError(f"Cannot sort the execution log by {sort!r}; sortable columns: {', '.join(PAGE_SORT_COLUMNS)}")
        if outcome is not None and outcome not in _OUTCOME_SQL:
            raise ValueError(f"Unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
        for name, value in (("offset", offset), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        clauses, args = [], []
        if tool is not None:
            clauses.append("tool_name = ?")
            args.append(tool)
        if outcome is not None:
            clauses.append(_OUTCOME_SQL[outcome])
        if text:
            pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            clauses.append("(" + " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in _SEARCHED) + ")")
            args.extend([pattern] * len(_SEARCHED))
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        direction = "DESC" if descending else "ASC"
        order = f" ORDER BY id {direction}" if sort == "id" else f" ORDER BY {sort} {direction}, id {direction}"
        with self._lock:
            raw = self._conn.execute(
                f"SELECT {_SELECT_COLUMNS} FROM calls{where}{order} LIMIT ? OFFSET ?", [*args, limit, offset]
            ).fetchall()
            matching = self._conn.execute(f"SELECT count(*) FROM calls{where}", args).fetchone()[0]
        return [_row_dict(row) for row in raw], matching

    def tool_names(self) -> list[str]:
        """The distinct tool names in the log, sorted (read from the ``tool_name`` index)."""
        with self._lock:
            raw = self._conn.execute(
                "SELECT DISTINCT tool_name FROM calls WHERE tool_name IS NOT NULL ORDER BY tool_name").fetchall()
        return [name for (name,) in raw]

    def get(self, row_id: int) -> dict[str, Any]:
        """The row dict with this id.

        Raises:
            KeyError: no such row.
        """
        with self._lock:
            raw = self._conn.execute(f"SELECT {_SELECT_COLUMNS} FROM calls WHERE id = ?", (row_id,)).fetchone()
            if raw is None:
                low, high, count = self._conn.execute("SELECT min(id), max(id), count(*) FROM calls").fetchone()
        if raw is None:
            where = "an in-memory log" if self.path is None else str(self.path)
            known = f"it holds ids {low}..{high} ({count} rows)" if count else "it is empty"
            raise KeyError(f"No call with id {row_id!r} in the execution log ({where}): {known}")
        return _row_dict(raw)

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM calls").fetchone()[0]

    def __bool__(self) -> bool:
        return True

    def __iter__(self) -> Iterator[dict]:
        """Iterate over all row dicts, oldest first (a snapshot taken now)."""
        return iter(self.rows())

    def to_dataframe(
        self, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None
    ) -> "pandas.DataFrame":
        """The logged calls as a pandas DataFrame, oldest first (same filters as :meth:`rows`).

        Columns (:data:`DATAFRAME_COLUMNS`): ``id`` (int64), ``tool_name``,
        ``tool_use_id``, ``status``, ``error`` (strings), ``input`` (dict or
        ``None``) and ``output`` (list of content blocks) parsed from JSON,
        ``started_at`` / ``completed_at`` (``datetime64[..., UTC]``),
        ``latency_ms`` (float64), ``run_id`` and ``turn`` (nullable ``Int64``: the agent run and
        model turn that made the call, empty otherwise). The index is a plain ``RangeIndex``.
        """
        import pandas as pd

        raw = self._select(
            "id, tool_name, tool_use_id, status, error, input_json, output_json, started_at, completed_at, latency_ms, "
            "run_id, turn",
            tool, status, last,
        )
        columns: list[Any] = list(zip(*raw)) if raw else [()] * 12
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

    # -- export ------------------------------------------------------------------------------------
    def export(
        self,
        path: Union[str, os.PathLike[str]],
        *,
        tool: Optional[str] = None,
        status: Optional[str] = None,
        last: Optional[int] = None,
    ) -> int:
        """Write the logged calls to ``path``; the format follows the extension. Returns the row count.

        - ``.csv``: the ``calls`` table columns (:data:`LOG_COLUMNS`), with
          ``input_json`` / ``output_json`` / ``metadata_json`` as JSON text and
          timestamps as ISO 8601 strings; empty cells for missing values. Text cells that a
          spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or
          carriage return) get a leading ``'`` (OWASP's CSV-injection advice); numbers stay numbers.
        - ``.jsonl``: one JSON object per line, the row dict of :meth:`rows`
          (``input``, ``output`` and ``metadata`` as nested JSON).
        - ``.parquet`` (needs pyarrow): the ``calls`` table columns, JSON
          columns as strings, ``started_at`` / ``completed_at`` as UTC timestamps.

        Filters as for :meth:`rows`. The file is replaced if it exists.

        Raises:
            ValueError: unsupported extension (the message lists the supported ones).
        """
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
        raw = self._select(_SELECT_COLUMNS, tool, status, last)
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
            self._write_parquet(target, raw)
        return len(raw)

    @staticmethod
    def _write_parquet(target: Path, raw: list[tuple[Any, ...]]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        timestamp = pa.timestamp("us", tz="UTC")
        types: dict[str, Any] = {"id": pa.int64(), "latency_ms": pa.float64(), "started_at": timestamp, "completed_at": timestamp}
        columns: list[Any] = list(zip(*raw)) if raw else [()] * len(LOG_COLUMNS)
        arrays, fields = [], []
        for name, values in zip(LOG_COLUMNS, columns):
            kind = types.get(name, pa.string())
            if kind is timestamp:
                values = [_parse_iso(v) for v in values]
            arrays.append(pa.array(values, type=kind))
            fields.append(pa.field(name, kind))
        pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), target)

    # -- replay ------------------------------------------------------------------------------------
    def replay(self, row_id: int, registry: Any = None, executor: Any = None, *,
               inputs: Optional[Mapping[str, Any]] = None) -> ToolResult:
        """Call the logged tool again with the same input; returns the new ``ToolResult``.

        Args:
            row_id: the row to replay.
            registry: the ``ToolRegistry`` to resolve the tool name in
                (default: the module-level default registry).
            executor: anything with ``run(tool_uses, registry, *, log=None)``
                (default: a new ``workbench.executor.SequentialExecutor()``).
            inputs: values that replace the logged ones — the secret parameters (a ``SecretStr``),
                which the log stores as ``***``.

        The call gets a fresh ``toolUseId`` and is logged here too (``log=self``),
        as a new row. Inputs that were not JSON when logged (bytes, datetimes,
        objects) are replayed in their logged JSON form.

        Raises:
            KeyError: no such row.
            ValueError: the row has no tool name, or its input has a secret the log did not store
                (``***``) and ``inputs`` does not give it: it is never sent as ``***``.
        """
        row = self.get(row_id)
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
        return executor.run([tool_use], registry, log=self)[0]

    def to_cases(self, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None, *,
                 ids: Optional[Iterable[int]] = None, expect: Optional[str] = None, registry: Any = None) -> list[Any]:
        """The logged calls as ``workbench.testing.ToolCase``s (save them with ``save_case``).

        Rows are those of ``ids`` (row ids, in that order) or those the filters select, as for
        :meth:`rows`. ``expect`` defaults per row: ``error`` for a failed call (with its error
        type), ``schema`` for a synthetic result, else ``exact`` (the logged result value).

        Raises:
            CaseFileError: a selected row's secret parameter (a ``SecretStr`` of its tool in
                ``registry``, default the default registry) was stored as ``***``: a case file
                would hold the mask, never the secret.
        """
        from workbench import _entry_points  # workbench.testing sits above the log

        return _entry_points.cases_from_log(self, tool=tool, status=status, last=last, ids=ids, expect=expect,
                                            registry=registry)

    # -- agent runs --------------------------------------------------------------------------------
    def start_run(self, run_id: str, *, model: Optional[str], prompt: list[dict[str, Any]],
                  tools: list[dict[str, Any]], settings: dict[str, Any], started_at: Optional[str] = None) -> None:
        """Record the start of an agent run: its model id, the messages it starts from, the tool
        specs it offers (dicts) and its settings (params, ``tool_choice``, ``max_turns``).

        Raises:
            ValueError: a run with this id is already in the log.
        """
        with self._lock:
            try:
                self._conn.execute(
                    "INSERT INTO runs (run_id, model, started_at, prompt_json, tools_json, settings_json) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (run_id, model, started_at or utc_now_iso(), _dumps(prompt), _dumps(tools), _dumps(settings)))
            except sqlite3.IntegrityError:
                raise ValueError(f"the execution log already holds a run with id {run_id!r}; "
                                 "give each run its own run_id") from None

    def append_turn(self, run_id: str, turn: int, data: Mapping[str, Any]) -> int:
        """Record one model turn of a run and return its row id.

        ``data`` is a turn as a dict (``ModelTurn.to_dict()``: ``model``, ``text``, ``tool_calls``,
        ``stop_reason``, ``usage``, ``latency_ms``, ``request``, ``response``) plus, for a failed turn,
        ``error`` and ``error_kind``, and ``started_at``.
        """
        usage = data.get("usage") or {}
        params = (run_id, turn, data.get("model"), data.get("text"), _dumps(data.get("tool_calls") or []),
                  data.get("stop_reason"), usage.get("input_tokens"), usage.get("output_tokens"), data.get("latency_ms"),
                  None if data.get("request") is None else _dumps(data["request"]),
                  None if data.get("response") is None else _dumps(data["response"]),
                  data.get("error"), data.get("error_kind"), data.get("started_at") or utc_now_iso())
        with self._lock:
            return self._conn.execute(
                f"INSERT INTO model_turns ({', '.join(TURN_COLUMNS[1:])}) VALUES ({', '.join('?' * (len(TURN_COLUMNS) - 1))})",
                params).lastrowid  # type: ignore[return-value]

    def end_run(self, run_id: str, *, stopped_because: str, error: Optional[str] = None,
                final_text: Optional[str] = None, turns: int = 0, tool_calls: int = 0, input_tokens: int = 0,
                output_tokens: int = 0, duration_ms: Optional[float] = None, completed_at: Optional[str] = None) -> None:
        """Record how a run ended (``stopped_because``: ``end_turn``, ``max_turns``, ``model_error``,
        ``cancelled``, or ``error`` when an exception outside the model ended it) and its totals."""
        with self._lock:
            self._conn.execute(
                "UPDATE runs SET completed_at = ?, stopped_because = ?, error = ?, final_text = ?, turns = ?, "
                "tool_calls = ?, input_tokens = ?, output_tokens = ?, duration_ms = ? WHERE run_id = ?",
                (completed_at or utc_now_iso(), stopped_because, error, final_text, turns, tool_calls, input_tokens,
                 output_tokens, duration_ms, run_id))

    def runs(self, last: Optional[int] = None, *, as_frame: bool = False) -> Any:
        """The agent runs in the log, oldest first: a list of dicts (``RUN_COLUMNS``, the ``*_json``
        columns parsed into ``prompt``, ``tools`` and ``settings``), or a pandas DataFrame of the same
        columns with ``as_frame=True``. ``last``: only the ``last`` most recent runs."""
        sql = f"SELECT {', '.join(RUN_COLUMNS)} FROM runs"
        args: list[Any] = []
        if last is not None:
            if isinstance(last, bool) or not isinstance(last, int) or last < 0:
                raise ValueError(f"last must be a non-negative integer, got {last!r}")
            sql += " ORDER BY rowid DESC LIMIT ?"
            args.append(last)
        else:
            sql += " ORDER BY rowid"
        with self._lock:
            raw = self._conn.execute(sql, args).fetchall()
        if last is not None:
            raw.reverse()
        found = [_run_dict(row) for row in raw]
        if not as_frame:
            return found
        import pandas as pd

        columns = [_json_key(c) for c in RUN_COLUMNS]
        frame = pd.DataFrame(found, columns=columns)
        for column in ("started_at", "completed_at"):
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601", errors="coerce")
        return frame

    def run(self, run_id: str) -> dict[str, Any]:
        """One agent run as a plain dict: the run's fields (as :meth:`runs` gives them) plus ``turns``
        (its model turns, in order, as dicts: ``turn``, ``model``, ``text``, ``tool_calls``,
        ``stop_reason``, ``usage``, ``latency_ms``, ``request``, ``response``, ``error``,
        ``error_kind``, ``started_at``) and ``calls`` (its tool-call rows, in order, as :meth:`rows`).
        ``workbench.agent.Transcript.from_log(log, run_id)`` makes a transcript of it.

        Raises:
            KeyError: no run with this id (the message says how many runs the log holds).
        """
        with self._lock:
            raw = self._conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if raw is None:
                count = self._conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            else:
                turn_rows = self._conn.execute(
                    f"SELECT {', '.join(TURN_COLUMNS)} FROM model_turns WHERE run_id = ? ORDER BY turn, id", (run_id,)
                ).fetchall()
                call_rows = self._conn.execute(
                    f"SELECT {_SELECT_COLUMNS} FROM calls WHERE run_id = ? ORDER BY id", (run_id,)).fetchall()
        if raw is None:
            raise KeyError(f"No agent run {run_id!r} in the execution log ({self._where_text()}): "
                           f"it holds {count} run{'s' if count != 1 else ''}")
        found = _run_dict(raw)
        found["turns"] = [_turn_dict(row) for row in turn_rows]
        found["calls"] = [_row_dict(row) for row in call_rows]
        return found

    def rows_of_run(self, run_id: str) -> list[dict[str, Any]]:
        """The tool-call rows of one agent run, oldest first (as :meth:`rows`)."""
        with self._lock:
            raw = self._conn.execute(f"SELECT {_SELECT_COLUMNS} FROM calls WHERE run_id = ? ORDER BY id",
                                     (run_id,)).fetchall()
        return [_row_dict(row) for row in raw]

    # -- lifecycle ---------------------------------------------------------------------------------
    def clear(self) -> None:
        """Delete every row, run and model turn (listeners are kept; row ids start again from 1)."""
        with self._lock:
            for table in ("calls", "model_turns", "runs"):
                self._conn.execute(f"DELETE FROM {table}")

    def close(self) -> None:
        """Close the database (idempotent). A file log is checkpointed; later calls raise ``sqlite3.ProgrammingError``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._closed

    def __enter__(self) -> "ExecutionLog":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- display -----------------------------------------------------------------------------------
    def _where_text(self) -> str:
        return _MEMORY if self.path is None else str(self.path)

    def __repr__(self) -> str:
        if self._closed:
            return f"ExecutionLog({self._where_text()!r}, closed)"
        return f"ExecutionLog({self._where_text()!r}, {len(self)} calls)"

    def _repr_html_(self) -> str:
        """An HTML table of the 20 most recent calls (every value escaped)."""
        e = escape
        if self._closed:
            return f"<div class='workbench-log'>{e(repr(self))}</div>"
        total = len(self)
        rows = self.rows(last=20)
        body = "".join(
            "<tr>"
            f"<td>{e(str(r['id']))}</td>"
            f"<td><code>{e(_short(r['tool_name']))}</code></td>"
            f"<td>{e(str(r['status']))}</td>"
            f"<td><code>{e(_short(_dumps(r['input']) if r['input'] is not None else ''))}</code></td>"
            f"<td>{e(_short(r['error'] if r['status'] == 'error' else _output_summary(r['output'])))}</td>"
            f"<td>{_latency_text(r['latency_ms'])}</td>"
            f"<td>{e(str(r['completed_at'] or ''))}</td>"
            "</tr>"
            for r in rows
        ) or "<tr><td colspan=7><i>no calls logged</i></td></tr>"
        caption = f"{total} calls" + (f", last {len(rows)} shown" if total > len(rows) else "")
        return (
            "<table class='workbench-log'>"
            f"<caption>{e(self._where_text())} · {e(caption)}</caption>"
            "<thead><tr><th>id</th><th>tool</th><th>status</th><th>input</th><th>output / error</th>"
            "<th>latency ms</th><th>completed</th></tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
