"""The SQLite layout of an execution log: the tables' columns, their DDL, and opening a file with it.

``calls`` holds one row per finished tool call, ``runs`` one row per agent run and ``model_turns``
one row per model turn of a run. A file written before ``runs`` existed is migrated on open.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Callable

__all__ = ["LOG_COLUMNS", "DATAFRAME_COLUMNS", "RUN_COLUMNS", "TURN_COLUMNS", "MEMORY", "open_database"]

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
    "run_id",
    "model",
    "started_at",
    "completed_at",
    "stopped_because",
    "error",
    "final_text",
    "turns",
    "tool_calls",
    "input_tokens",
    "output_tokens",
    "duration_ms",
    "prompt_json",
    "tools_json",
    "settings_json",
)

#: Columns of the ``model_turns`` table (one row per model turn of an agent run), in order.
TURN_COLUMNS: tuple[str, ...] = (
    "id",
    "run_id",
    "turn",
    "model",
    "text",
    "tool_calls_json",
    "stop_reason",
    "input_tokens",
    "output_tokens",
    "latency_ms",
    "request_json",
    "response_json",
    "error",
    "error_kind",
    "started_at",
)

_MEMORY = ":memory:"
MEMORY = _MEMORY  #: the path of an in-memory log
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

# Columns added after version 1: a file without them gets them on open (see _migrate).
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
_INSERT_SQL = f"INSERT INTO calls ({', '.join(LOG_COLUMNS[1:])}) VALUES ({', '.join('?' * (len(LOG_COLUMNS) - 1))})"

_INSERT_TURN_SQL = (
    f"INSERT INTO model_turns ({', '.join(TURN_COLUMNS[1:])}) VALUES ({', '.join('?' * (len(TURN_COLUMNS) - 1))})"
)


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


def _create_schema(conn: sqlite3.Connection) -> None:
    """Tables, indexes and migrations in one write transaction (``BEGIN IMMEDIATE`` takes the write
    lock first, so two processes creating the same file do not both read and then upgrade)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _DDL:
            conn.execute(statement)
        _migrate(conn)
        for statement in _RUN_DDL:
            conn.execute(statement)
        if conn.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _migrate(conn: sqlite3.Connection) -> None:
    """Add the columns a log file written by an older version lacks (its rows get NULLs)."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
    for column, kind in _ADDED_CALL_COLUMNS:
        if column not in present:
            conn.execute(f"ALTER TABLE calls ADD COLUMN {column} {kind}")


def open_database(target: str) -> sqlite3.Connection:
    """A connection to the log at ``target`` (a file, or :data:`MEMORY`) with its tables made.

    A file is switched to WAL with ``synchronous=NORMAL``. The connection is shared by threads
    (``check_same_thread=False``; callers hold their own lock) and autocommits
    (``isolation_level=None``: every statement outside ``BEGIN…COMMIT`` commits at once)."""
    conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None, timeout=30.0)
    try:
        if target != _MEMORY:
            _retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")  # this connection's own setting: no lock
        _retry_locked(lambda: _create_schema(conn))
    except BaseException:
        conn.close()
        raise
    return conn
