"""``ExecutionLog``: the facade over the parts of an execution log.

Each part has one job: :mod:`._store` the ``calls`` rows in SQLite, :mod:`._events` the
subscribers, :mod:`._export` DataFrames and files, :mod:`._runs` the agent-run tables,
:mod:`._replay` replay and case export, :mod:`._html` the notebook table.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from workbench.log import _export, _replay
from workbench.log._events import Listeners, LogListener
from workbench.log._html import log_table_html
from workbench.log._record import call_params
from workbench.log._runs import RunTables
from workbench.log._store import CallStore
from workbench.types import ToolResult, ToolUse

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas

__all__ = ["ExecutionLog"]


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
        self._store = CallStore(path)
        self.path: Optional[Path] = self._store.path
        self._events = Listeners()
        self._runs = RunTables(self._store)

    @property
    def _conn(self) -> sqlite3.Connection:
        """The SQLite connection (for tests and benchmarks that look at the file's settings)."""
        return self._store.conn

    # -- writing -----------------------------------------------------------------------------------
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
        params = call_params(result, tool_use, input, run_id, turn)
        row_id = self._store.insert(params)
        if self._events:
            self._events.notify([(row_id, *params)])
        return row_id

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
                    raise ValueError(
                        f"append_many items are (result, tool_use[, input]) tuples, got {len(item)} values"
                    )
                result, tool_use, input = (*item, None, None)[:3]
            else:
                result, tool_use, input = item, None, None
            batch.append(call_params(result, tool_use, input))
        ids = self._store.insert_many(batch)
        if self._events:
            self._events.notify([(row_id, *params) for row_id, params in zip(ids, batch)])
        return ids

    # -- listeners ---------------------------------------------------------------------------------
    def subscribe(self, callback: LogListener) -> Callable[[], None]:
        """Call ``callback(row)`` with the row dict after each append; returns an unsubscribe function.

        Listeners run in the appending thread, after the row is committed and
        outside the log's lock (they may read the log). An exception raised
        by a listener is logged (``logging`` warning) and never breaks the append.
        """
        return self._events.subscribe(callback)

    def unsubscribe(self, callback: LogListener) -> None:
        """Remove a listener added with :meth:`subscribe` (no error if it is not subscribed)."""
        self._events.unsubscribe(callback)

    # -- reading -----------------------------------------------------------------------------------
    def rows(
        self, tool: Optional[str] = None, status: Optional[str] = None, last: Optional[int] = None
    ) -> list[dict[str, Any]]:
        """The logged calls as row dicts, oldest first (newest last).

        Args:
            tool: only calls of this tool name.
            status: only ``"success"`` or ``"error"`` calls.
            last: only the ``last`` most recent matching calls (still oldest first).
        """
        return self._store.rows(tool, status, last)

    def success_rows(self, tool: str) -> list[tuple[Any, Optional[str], Any, Optional[float]]]:
        """``(input, tool_use_id, content, latency_ms)`` of every success row of ``tool``, oldest first
        (what a resumed batch run skips)."""
        return self._store.success_rows(tool)

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
        return self._store.page(
            tool=tool, outcome=outcome, text=text, sort=sort, descending=descending, offset=offset, limit=limit
        )

    def tool_names(self) -> list[str]:
        """The distinct tool names in the log, sorted (read from the ``tool_name`` index)."""
        return self._store.tool_names()

    def get(self, row_id: int) -> dict[str, Any]:
        """The row dict with this id.

        Raises:
            KeyError: no such row.
        """
        return self._store.get(row_id)

    def __len__(self) -> int:
        return self._store.count()

    def __bool__(self) -> bool:
        return True

    def __iter__(self) -> Iterator[dict[str, Any]]:
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
        return _export.to_dataframe(self._store, tool, status, last)

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
        return _export.export(self._store, path, tool=tool, status=status, last=last)

    # -- replay ------------------------------------------------------------------------------------
    def replay(
        self, row_id: int, registry: Any = None, executor: Any = None, *, inputs: Optional[Mapping[str, Any]] = None
    ) -> ToolResult:
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
        return _replay.replay(self.get(row_id), self, registry, executor, inputs=inputs)

    def to_cases(
        self,
        tool: Optional[str] = None,
        status: Optional[str] = None,
        last: Optional[int] = None,
        *,
        ids: Optional[Iterable[int]] = None,
        expect: Optional[str] = None,
        registry: Any = None,
    ) -> list[Any]:
        """The logged calls as ``workbench.testing.ToolCase``s (save them with ``save_case``).

        Rows are those of ``ids`` (row ids, in that order) or those the filters select, as for
        :meth:`rows`. ``expect`` defaults per row: ``error`` for a failed call (with its error
        type), ``schema`` for a synthetic result, else ``exact`` (the logged result value).

        Raises:
            CaseFileError: a selected row's secret parameter (a ``SecretStr`` of its tool in
                ``registry``, default the default registry) was stored as ``***``: a case file
                would hold the mask, never the secret.
        """
        return _replay.to_cases(self, tool, status, last, ids=ids, expect=expect, registry=registry)

    # -- agent runs --------------------------------------------------------------------------------
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
        self._runs.start_run(run_id, model=model, prompt=prompt, tools=tools, settings=settings, started_at=started_at)

    def append_turn(self, run_id: str, turn: int, data: Mapping[str, Any]) -> int:
        """Record one model turn of a run and return its row id.

        ``data`` is a turn as a dict (``ModelTurn.to_dict()``: ``model``, ``text``, ``tool_calls``,
        ``stop_reason``, ``usage``, ``latency_ms``, ``request``, ``response``) plus, for a failed turn,
        ``error`` and ``error_kind``, and ``started_at``.
        """
        return self._runs.append_turn(run_id, turn, data)

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
        self._runs.end_run(
            run_id,
            stopped_because=stopped_because,
            error=error,
            final_text=final_text,
            turns=turns,
            tool_calls=tool_calls,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            duration_ms=duration_ms,
            completed_at=completed_at,
        )

    def runs(self, last: Optional[int] = None, *, as_frame: bool = False) -> Any:
        """The agent runs in the log, oldest first: a list of dicts (``RUN_COLUMNS``, the ``*_json``
        columns parsed into ``prompt``, ``tools`` and ``settings``), or a pandas DataFrame of the same
        columns with ``as_frame=True``. ``last``: only the ``last`` most recent runs."""
        return self._runs.runs(last, as_frame=as_frame)

    def run(self, run_id: str) -> dict[str, Any]:
        """One agent run as a plain dict: the run's fields (as :meth:`runs` gives them) plus ``turns``
        (its model turns, in order, as dicts: ``turn``, ``model``, ``text``, ``tool_calls``,
        ``stop_reason``, ``usage``, ``latency_ms``, ``request``, ``response``, ``error``,
        ``error_kind``, ``started_at``) and ``calls`` (its tool-call rows, in order, as :meth:`rows`).
        ``workbench.agent.Transcript.from_log(log, run_id)`` makes a transcript of it.

        Raises:
            KeyError: no run with this id (the message says how many runs the log holds).
        """
        return self._runs.run(run_id)

    def rows_of_run(self, run_id: str) -> list[dict[str, Any]]:
        """The tool-call rows of one agent run, oldest first (as :meth:`rows`)."""
        return self._runs.rows_of_run(run_id)

    # -- lifecycle ---------------------------------------------------------------------------------
    def clear(self) -> None:
        """Delete every row, run and model turn (listeners are kept; row ids start again from 1)."""
        self._store.clear()

    def close(self) -> None:
        """Close the database (idempotent). A file log is checkpointed; later calls raise ``sqlite3.ProgrammingError``."""
        self._store.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._store.closed

    def __enter__(self) -> "ExecutionLog":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- display -----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        where = self._store.where_text()
        if self.closed:
            return f"ExecutionLog({where!r}, closed)"
        return f"ExecutionLog({where!r}, {len(self)} calls)"

    def _repr_html_(self) -> str:
        """An HTML table of the 20 most recent calls (every value escaped)."""
        if self.closed:
            from workbench._html import escape

            return f"<div class='workbench-log'>{escape(repr(self))}</div>"
        return log_table_html(self._store.where_text(), len(self), self.rows(last=20))
