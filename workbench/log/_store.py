"""The ``calls`` table of an execution log: one SQLite connection, its lock, and the rows written and read.

One row per finished call; each :meth:`CallStore.insert` is its own committed transaction. The
connection is shared by threads (executor workers and the event loop) under one lock.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Optional, Union

from workbench.log._rows import _gc_paused, _loads, _row_dict
from workbench.log._schema import _INSERT_SQL, _MEMORY, _SELECT_COLUMNS, open_database

__all__ = ["CallStore", "OUTCOMES", "PAGE_SORT_COLUMNS"]

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


class CallStore:
    """The database of one log: its connection, lock and path, and the ``calls`` rows.

    Args:
        path: a database file (created if missing), or ``None`` / ``":memory:"`` for an in-memory one.
    """

    def __init__(self, path: Union[str, os.PathLike[str], None] = None) -> None:
        target = _MEMORY if path is None else os.fspath(path)
        self.path: Optional[Path] = None if target == _MEMORY else Path(target)
        self.lock = threading.Lock()
        self.conn: sqlite3.Connection = open_database(target)
        self._cursor = self.conn.cursor()  # reused by insert (always under the lock)
        self.closed = False

    def where_text(self) -> str:
        """The file, or ``:memory:``, as messages name the log."""
        return _MEMORY if self.path is None else str(self.path)

    # -- writing -----------------------------------------------------------------------------------
    def insert(self, params: tuple[Any, ...]) -> int:
        """Write one ``calls`` row (``LOG_COLUMNS[1:]`` order) and return its id; committed on return."""
        with self.lock:
            return self._cursor.execute(_INSERT_SQL, params).lastrowid  # type: ignore[return-value]

    def insert_many(self, batch: list[tuple[Any, ...]]) -> list[int]:
        """Write several rows in one transaction; returns their ids in order."""
        if not batch:
            return []
        with self.lock:
            conn = self.conn
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
        return list(range(last - len(batch) + 1, last + 1))

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

    def select(
        self, columns: str, tool: Optional[str], status: Optional[str], last: Optional[int]
    ) -> list[tuple[Any, ...]]:
        """Raw tuples of ``columns`` of the calls the filters select, oldest first."""
        where, args = self._where(tool, status, last)
        with self.lock:
            raw = self.conn.execute(f"SELECT {columns} FROM calls{where}", args).fetchall()
        if last is not None:
            raw.reverse()
        return raw

    def rows(
        self, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None
    ) -> list[dict[str, Any]]:
        """Row dicts of the calls the filters select, oldest first."""
        raw = self.select(_SELECT_COLUMNS, tool, status, last)
        with _gc_paused(len(raw)):
            return [_row_dict(row) for row in raw]

    def success_rows(self, tool: str) -> list[tuple[Any, Optional[str], Any, Optional[float]]]:
        """``(input, tool_use_id, content, latency_ms)`` of every success row of ``tool``, oldest first
        (what a resumed batch run skips)."""
        with self.lock:
            raw = self.conn.execute(
                "SELECT input_json, tool_use_id, output_json, latency_ms FROM calls WHERE tool_name = ? AND status = 'success' ORDER BY id",
                (tool,),
            ).fetchall()
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
        """``(rows, matching)``: one page of the calls the filters select and how many match, filtered,
        sorted and cut in SQL (see ``ExecutionLog.page``)."""
        if sort not in PAGE_SORT_COLUMNS:
            raise ValueError(
                f"Cannot sort the execution log by {sort!r}; sortable columns: {', '.join(PAGE_SORT_COLUMNS)}"
            )
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
        with self.lock:
            raw = self.conn.execute(
                f"SELECT {_SELECT_COLUMNS} FROM calls{where}{order} LIMIT ? OFFSET ?", [*args, limit, offset]
            ).fetchall()
            matching = self.conn.execute(f"SELECT count(*) FROM calls{where}", args).fetchone()[0]
        return [_row_dict(row) for row in raw], matching

    def tool_names(self) -> list[str]:
        """The distinct tool names in the log, sorted (read from the ``tool_name`` index)."""
        with self.lock:
            raw = self.conn.execute(
                "SELECT DISTINCT tool_name FROM calls WHERE tool_name IS NOT NULL ORDER BY tool_name"
            ).fetchall()
        return [name for (name,) in raw]

    def get(self, row_id: int) -> dict[str, Any]:
        """The row dict with this id.

        Raises:
            KeyError: no such row.
        """
        with self.lock:
            raw = self.conn.execute(f"SELECT {_SELECT_COLUMNS} FROM calls WHERE id = ?", (row_id,)).fetchone()
            if raw is None:
                low, high, count = self.conn.execute("SELECT min(id), max(id), count(*) FROM calls").fetchone()
        if raw is None:
            where = "an in-memory log" if self.path is None else str(self.path)
            known = f"it holds ids {low}..{high} ({count} rows)" if count else "it is empty"
            raise KeyError(f"No call with id {row_id!r} in the execution log ({where}): {known}")
        return _row_dict(raw)

    def count(self) -> int:
        """How many calls the table holds."""
        with self.lock:
            return self.conn.execute("SELECT count(*) FROM calls").fetchone()[0]

    # -- lifecycle ---------------------------------------------------------------------------------
    def clear(self) -> None:
        """Delete every call, run and model turn (row ids start again from 1)."""
        with self.lock:
            for table in ("calls", "model_turns", "runs"):
                self.conn.execute(f"DELETE FROM {table}")

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self.lock:
            if not self.closed:
                self.closed = True
                self.conn.close()
