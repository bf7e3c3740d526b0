"""Turn whatever a tool returns into ToolResult content blocks.

Dispatch is a table of (predicate, converter) rows, tried in order; the first
matching row wins. Conversion never raises: the last row falls back to
``repr``.
"""

from __future__ import annotations

import base64
import json
import numbers
from decimal import Decimal
from typing import Any, Callable

from pydantic_core import to_jsonable_python

from workbench.content import Audio, RichContent, audio_mime_type

__all__ = [
    "to_content_blocks",
    "to_jsonable",
    "number_like",
    "json_text",
    "canonical_json",
    "image_block",
    "IMAGE_MAGIC",
]

Block = dict[str, Any]

#: leading bytes → image format name
IMAGE_MAGIC: dict[bytes, str] = {
    b"\x89PNG\r\n\x1a\n": "png",
    b"\xff\xd8\xff": "jpeg",
    b"GIF87a": "gif",
    b"GIF89a": "gif",
}


def number_like(value: Any) -> Any:
    """``value`` as a JSON number when it is a number-like object JSON has no type for — ``Decimal``,
    numpy scalars, ``mpmath.mpf``, any other ``numbers.Real`` — else ``value`` itself."""
    kind = type(value)
    if kind is Decimal:
        if not value.is_finite():
            return float(value)
        return int(value) if value.as_tuple().exponent >= 0 else float(value)
    if kind.__module__ == "numpy" and getattr(value, "ndim", None) == 0:  # a numpy scalar: its Python twin
        item = value.item()
        return item if isinstance(item, (bool, int, float, str)) else value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _fallback(value: Any) -> Any:
    converted = number_like(value)
    return repr(value) if converted is value else converted


def _has_decimal(value: Any) -> bool:
    """Whether a ``Decimal`` sits in the plain dicts, lists and tuples of ``value`` (a quick look: most results have none)."""
    stack = [value]
    while stack:
        item = stack.pop()
        for inner in item.values() if type(item) is dict else item:
            kind = type(inner)
            if kind is Decimal:
                return True
            if kind is dict or kind is list or kind is tuple:
                stack.append(inner)
    return False


def _with_decimals_as_numbers(value: Any) -> Any:
    """``value`` with the ``Decimal``s inside plain dicts, lists and tuples as numbers (pydantic would
    write them as strings)."""
    kind = type(value)
    if kind is Decimal:
        return number_like(value)
    if kind is dict:
        return {k: _with_decimals_as_numbers(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_with_decimals_as_numbers(v) for v in value]
    return value


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible copy of ``value`` (dataclasses, models, dates, UUIDs … handled by pydantic).
    Number-like objects (``Decimal``, numpy scalars, ``mpmath.mpf``) become JSON numbers, not strings
    or reprs; anything else JSON cannot hold becomes its ``repr``."""
    kind = type(value)
    if kind is Decimal or ((kind is dict or kind is list or kind is tuple) and _has_decimal(value)):
        value = _with_decimals_as_numbers(value)
    return to_jsonable_python(value, fallback=_fallback, bytes_mode="base64")


def json_text(value: Any) -> str:
    """Compact JSON text for display; values JSON cannot hold are shown by ``repr`` (never raises for them)."""
    return json.dumps(value, ensure_ascii=False, default=repr)


def canonical_json(value: Any) -> str:
    """One text per JSON value whatever its key order (sorted keys, no spaces): idempotency keys, schema
    comparisons. Values JSON cannot hold are written by ``repr``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def image_block(data: bytes, fmt: str) -> Block:
    """A Bedrock/Spark style image content block."""
    return {"image": {"format": fmt, "source": {"bytes": base64.b64encode(data).decode("ascii")}}}


def _image_format(data: bytes) -> str | None:
    for magic, fmt in IMAGE_MAGIC.items():
        if data.startswith(magic):
            return fmt
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _is_pandas_frame(value: Any) -> bool:
    cls = type(value)
    return cls.__module__.startswith("pandas") and cls.__name__ in ("DataFrame", "Series")


def _is_pil_image(value: Any) -> bool:
    return any(c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(value).__mro__)


def _from_text(value: str) -> list[Block]:
    return [{"text": value}]


def _from_jsonable(value: Any) -> list[Block]:
    data = to_jsonable(value)
    return [{"text": json_text(data)}, {"json": data}]


def _from_bytes(value: bytes | bytearray | memoryview) -> list[Block]:
    data = bytes(value)
    fmt = _image_format(data)
    if fmt:
        return [image_block(data, fmt)]
    audio = audio_mime_type(data)
    if audio:
        return [Audio(data, audio).block()]
    try:
        return [{"text": data.decode("utf-8")}]
    except UnicodeDecodeError:
        encoded = base64.b64encode(data).decode("ascii")
        return [{"text": f"<{len(data)} bytes of binary data>"}, {"json": {"base64": encoded}}]


def _from_frame(value: Any) -> list[Block]:
    frame = value.to_frame() if type(value).__name__ == "Series" else value
    records = to_jsonable(frame.to_dict(orient="records"))
    return [{"text": frame.to_string(max_rows=50)}, {"json": records}]


def _from_pil(value: Any) -> list[Block]:
    import io

    buffer = io.BytesIO()
    value.save(buffer, format="PNG")
    return [image_block(buffer.getvalue(), "png")]


def _is_mixed(value: Any) -> bool:
    """A list (or tuple) holding at least one rich part (``Audio``, ``EmbeddedResource``…), the rest
    text, bytes or images: mixed content, one block per item — not a JSON array."""
    if not isinstance(value, (list, tuple)) or not any(isinstance(item, RichContent) for item in value):
        return False
    return all(
        isinstance(item, (RichContent, str, bytes, bytearray, memoryview)) or _is_pil_image(item) for item in value
    )


def _from_mixed(value: Any) -> list[Block]:
    return [block for item in value for block in to_content_blocks(item)]


def _from_anything(value: Any) -> list[Block]:
    try:
        return _from_jsonable(value)
    except Exception:  # noqa: BLE001 - conversion must never fail a successful call
        return [{"text": repr(value)}]


_CONVERTERS: list[tuple[Callable[[Any], bool], Callable[[Any], list[Block]]]] = [
    (lambda v: isinstance(v, str), _from_text),
    (lambda v: isinstance(v, (bytes, bytearray, memoryview)), _from_bytes),
    (_is_pandas_frame, _from_frame),
    (_is_pil_image, _from_pil),
    (lambda v: isinstance(v, RichContent), lambda v: [v.block()]),
    (_is_mixed, _from_mixed),
    (lambda v: True, _from_anything),
]


def to_content_blocks(value: Any) -> list[Block]:
    """Content blocks for a tool's return value: text, json (+ text), image, audio, a resource (embedded or
    linked), or one block per item of a mixed list of those."""
    kind = type(value)
    if kind is str:  # the common cases skip the table
        return [{"text": value}]
    if kind is int:
        return [{"text": int.__repr__(value)}, {"json": value}]
    if kind is float or kind is bool or value is None:
        return [{"text": json.dumps(value)}, {"json": value}]
    for matches, convert in _CONVERTERS:
        if matches(value):
            try:
                return convert(value)
            except Exception:  # noqa: BLE001
                return [{"text": repr(value)}]
    return [{"text": repr(value)}]  # pragma: no cover - the last row always matches
