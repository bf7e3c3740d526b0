"""The agent-run tables of an execution log: ``runs`` (one row per run) and ``model_turns``.

A run's tool calls are ``calls`` rows carrying its ``run_id`` and ``turn``; :meth:`RunTables.run`
gathers the run, its turns and its calls into one dict.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any, Optional

from workbench.log._rows import _dumps, _json_key, _row_dict, _run_dict, _turn_dict
from workbench.log._schema import _INSERT_TURN_SQL, _SELECT_COLUMNS, RUN_COLUMNS, TURN_COLUMNS
from workbench.log._store import CallStore
from workbench.types import utc_now_iso

__all__ = ["RunTables"]


class RunTables:
    """The ``runs`` and ``model_turns`` rows of the log whose database is ``store``."""

    def __init__(self, store: CallStore) -> None:
        self._store = store

    def start_run(
        self,
        run_id: str,
        *,
        model: Optional[str],
        prompt: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        settings: dict[str, Any],
        started_at: Optional[str] = None,
    ) -> None:
        """Record the start of an agent run: its model id, the messages it starts from, the tool
        specs it offers (dicts) and its settings (params, ``tool_choice``, ``max_turns``).

        Raises:
            ValueError: a run with this id is already in the log.
        """
        with self._store.lock:
            try:
                self._store.conn.execute(
                    "INSERT INTO runs (run_id, model, started_at, prompt_json, tools_json, settings_json) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (run_id, model, started_at or utc_now_iso(), _dumps(prompt), _dumps(tools), _dumps(settings)),
                )
            except sqlite3.IntegrityError:
                raise ValueError(
                    f"the execution log already holds a run with id {run_id!r}; give each run its own run_id"
                ) from None

    def append_turn(self, run_id: str, turn: int, data: Mapping[str, Any]) -> int:
        """Record one model turn of a run and return its row id.

        ``data`` is a turn as a dict (``ModelTurn.to_dict()``: ``model``, ``text``, ``tool_calls``,
        ``stop_reason``, ``usage``, ``latency_ms``, ``request``, ``response``) plus, for a failed turn,
        ``error`` and ``error_kind``, and ``started_at``.
        """
        usage = data.get("usage") or {}
        params = (
            run_id,
            turn,
            data.get("model"),
            data.get("text"),
            _dumps(data.get("tool_calls") or []),
            data.get("stop_reason"),
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            data.get("latency_ms"),
            None if data.get("request") is None else _dumps(data["request"]),
            None if data.get("response") is None else _dumps(data["response"]),
            data.get("error"),
            data.get("error_kind"),
            data.get("started_at") or utc_now_iso(),
        )
        with self._store.lock:
            return self._store.conn.execute(_INSERT_TURN_SQL, params).lastrowid  # type: ignore[return-value]

    def end_run(
        self,
        run_id: str,
        *,
        stopped_because: str,
        error: Optional[str] = None,
        final_text: Optional[str] = None,
        turns: int = 0,
        tool_calls: int = 0,
        input_tokens: int = 0,
        output_tokens: int = 0,
        duration_ms: Optional[float] = None,
        completed_at: Optional[str] = None,
    ) -> None:
        """Record how a run ended (``stopped_because``: ``end_turn``, ``max_turns``, ``model_error``,
        ``cancelled``, or ``error`` when an exception outside the model ended it) and its totals."""
        with self._store.lock:
            self._store.conn.execute(
                "UPDATE runs SET completed_at = ?, stopped_because = ?, error = ?, final_text = ?, turns = ?, "
                "tool_calls = ?, input_tokens = ?, output_tokens = ?, duration_ms = ? WHERE run_id = ?",
                (
                    completed_at or utc_now_iso(),
                    stopped_because,
                    error,
                    final_text,
                    turns,
                    tool_calls,
                    input_tokens,
                    output_tokens,
                    duration_ms,
                    run_id,
                ),
            )

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
        with self._store.lock:
            raw = self._store.conn.execute(sql, args).fetchall()
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
        with self._store.lock:
            raw = self._store.conn.execute(
                f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", (run_id,)
            ).fetchone()
            if raw is None:
                count = self._store.conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            else:
                turn_rows = self._store.conn.execute(
                    f"SELECT {', '.join(TURN_COLUMNS)} FROM model_turns WHERE run_id = ? ORDER BY turn, id", (run_id,)
                ).fetchall()
                call_rows = self._store.conn.execute(
                    f"SELECT {_SELECT_COLUMNS} FROM calls WHERE run_id = ? ORDER BY id", (run_id,)
                ).fetchall()
        if raw is None:
            raise KeyError(
                f"No agent run {run_id!r} in the execution log ({self._store.where_text()}): "
                f"it holds {count} run{'s' if count != 1 else ''}"
            )
        found = _run_dict(raw)
        found["turns"] = [_turn_dict(row) for row in turn_rows]
        found["calls"] = [_row_dict(row) for row in call_rows]
        return found

    def rows_of_run(self, run_id: str) -> list[dict[str, Any]]:
        """The tool-call rows of one agent run, oldest first (as :meth:`rows`)."""
        with self._store.lock:
            raw = self._store.conn.execute(
                f"SELECT {_SELECT_COLUMNS} FROM calls WHERE run_id = ? ORDER BY id", (run_id,)
            ).fetchall()
        return [_row_dict(row) for row in raw]
