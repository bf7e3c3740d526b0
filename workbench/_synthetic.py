"""Deterministic synthetic values for spec-only tools (DESIGN.md §2).

``synthesize(schema, seed)`` walks a JSON Schema and builds a value that
validates against it, from a ``random.Random`` seeded by the tool name and the
canonical input, so the same call always gets the same value.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from datetime import datetime, time, timedelta, timezone
from typing import Any, Callable

__all__ = ["synthesize", "synthetic_seed"]

_WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "nova", "orbit", "pixel", "quartz", "sierra", "tango")
_BASE_DATE = datetime(2025, 1, 1, tzinfo=timezone.utc)


def synthetic_seed(name: str, arguments: Any, seed: int = 0) -> int:
    """A stable integer from (tool name, canonical JSON of the input, seed)."""
    text = json.dumps([name, arguments, seed], sort_keys=True, separators=(",", ":"), default=str)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _resolve(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        merged = {k: v for k, v in schema.items() if k != "$ref"}
        return {**target, **merged}
    return schema


def _string(schema: dict, rng: random.Random, root: dict, depth: int) -> str:
    fmt = schema.get("format")
    maker = _FORMATS.get(fmt)
    if maker is not None:
        return maker(rng)
    text = f"{rng.choice(_WORDS)}-{rng.randint(0, 999)}"
    min_len, max_len = schema.get("minLength", 0), schema.get("maxLength")
    while len(text) < min_len:
        text += rng.choice("abcdefghijklmnopqrstuvwxyz")
    if max_len is not None:
        text = text[:max_len]
    return text


def _integer(schema: dict, rng: random.Random, root: dict, depth: int) -> int:
    low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in schema else 0)
    high = schema.get("maximum", schema.get("exclusiveMaximum", low + 101) - 1 if "exclusiveMaximum" in schema else low + 100)
    low, high = int(low), int(high)
    value = rng.randint(low, max(low, high))
    step = schema.get("multipleOf")
    if isinstance(step, int) and step > 0:
        value = (value // step) * step
    return value


def _number(schema: dict, rng: random.Random, root: dict, depth: int) -> float:
    low = float(schema.get("minimum", schema.get("exclusiveMinimum", 0.0)))
    high = float(schema.get("maximum", schema.get("exclusiveMaximum", low + 100.0)))
    value = round(rng.uniform(low, high), 2)
    if "exclusiveMinimum" in schema and value <= low:
        value = low + (high - low) / 2
    if "exclusiveMaximum" in schema and value >= high:
        value = low + (high - low) / 2
    return value


def _boolean(schema: dict, rng: random.Random, root: dict, depth: int) -> bool:
    return rng.random() < 0.5


def _null(schema: dict, rng: random.Random, root: dict, depth: int) -> None:
    return None


def _array(schema: dict, rng: random.Random, root: dict, depth: int) -> list:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        return [_value(s, rng, root, depth + 1) for s in prefix]
    low = schema.get("minItems", 1 if depth < 3 else 0)
    high = schema.get("maxItems", max(low, 3 if depth < 3 else 0))
    count = rng.randint(low, max(low, high))
    items = schema.get("items", {})
    out: list = []
    for _ in range(count):
        value = _value(items if isinstance(items, dict) else {}, rng, root, depth + 1)
        if schema.get("uniqueItems") and value in out:
            continue
        out.append(value)
    while len(out) < low:  # uniqueness may have cost items; pad deterministically
        out.append(_value(items if isinstance(items, dict) else {}, rng, root, depth + 1))
    return out


def _object(schema: dict, rng: random.Random, root: dict, depth: int) -> dict:
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    out = {}
    for key, sub in props.items():
        if key in required or depth < 2:
            out[key] = _value(sub, rng, root, depth + 1)
    extra = schema.get("additionalProperties")
    if not props and isinstance(extra, dict):
        out[rng.choice(_WORDS)] = _value(extra, rng, root, depth + 1)
    return out


_BY_TYPE: dict[str, Callable[[dict, random.Random, dict, int], Any]] = {
    "string": _string, "integer": _integer, "number": _number, "boolean": _boolean,
    "null": _null, "array": _array, "object": _object,
}

_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "date-time": lambda rng: (_BASE_DATE + timedelta(seconds=rng.randint(0, 86400 * 365))).isoformat().replace("+00:00", "Z"),
    "date": lambda rng: (_BASE_DATE.date() + timedelta(days=rng.randint(0, 365))).isoformat(),
    "time": lambda rng: time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)).isoformat(),
    "uuid": lambda rng: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    "email": lambda rng: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}@example.com",
    "uri": lambda rng: f"https://example.com/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "path": lambda rng: f"/tmp/{rng.choice(_WORDS)}.txt",
}


def _value(schema: Any, rng: random.Random, root: dict, depth: int) -> Any:
    if schema is True or not isinstance(schema, dict):
        return None if depth else {}
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema and schema["enum"]:
        return rng.choice(schema["enum"])
    if "default" in schema and rng.random() < 0.25:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if options:
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return _value(rng.choice(non_null or options), rng, root, depth)
    if "allOf" in schema and schema["allOf"]:
        merged: dict = {}
        for part in schema["allOf"]:
            merged.update(_resolve(part, root))
        return _value(merged, rng, root, depth)
    declared = schema.get("type")
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), "null")
    if declared is None:
        declared = "object" if "properties" in schema else "array" if "items" in schema else "string"
    return _BY_TYPE.get(declared, _string)(schema, rng, root, depth)


def synthesize(schema: dict, seed: int) -> Any:
    """A value valid against ``schema``, the same for the same seed. ``{}`` (anything) gives a short string."""
    if not schema:
        return f"synthetic-{seed % 100000}"
    return _value(schema, random.Random(seed), schema, 0)
