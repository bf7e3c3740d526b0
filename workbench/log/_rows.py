"""JSON in and out of log rows: the encoder that never fails, and the row dicts made from SQLite tuples."""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Optional

from pydantic_core import from_json as _from_json
from pydantic_core import to_json as _to_json

from workbench.log._schema import RUN_COLUMNS, TURN_COLUMNS

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
    (
        row_id,
        tool_name,
        tool_use_id,
        input_json,
        output_json,
        status,
        error,
        error_type,
        started_at,
        completed_at,
        latency_ms,
        metadata_json,
        run_id,
        turn,
    ) = row
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
