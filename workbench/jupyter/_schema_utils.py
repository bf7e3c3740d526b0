"""JSON Schema helpers for the form builder: ``$ref`` resolution, nullability, labels, help text.

Pure functions on plain dicts; no widgets here.
"""

from __future__ import annotations

import json
import operator
import re
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any, Callable, Optional, TypeGuard, Union

from workbench._refs import RefError, follow, pointer_tokens
from workbench._validation import (
    FORMAT_EXPECTED,
    _expected_by_keyword,
    _expected_from_schema,
    describe_value,
    json_type_name,
)

__all__ = [
    "resolve",
    "split_nullable",
    "json_types",
    "variants_of",
    "variant_label",
    "constraint_text",
    "is_long_text",
    "value_matches",
    "NULL",
    "parse_number",
    "number_problem",
    "number_text",
    "expected_text",
    "FORMAT_EXPECTED",
    "value_checker",
]

NULL = {"type": "null"}

#: keywords carried from a wrapper (``{"$ref": ..., "description": ...}``, ``anyOf`` + ``default``) to its content
_ANNOTATIONS = ("description", "default", "title", "examples")

#: words in a parameter name that suggest multi-line text (see ``is_long_text``)
LONG_TEXT_NAMES = frozenset({"body", "content", "document", "prompt", "text", "markdown", "essay", "paragraph"})
#: string formats shown in a Textarea
LONG_TEXT_FORMATS = frozenset({"textarea", "multiline", "markdown", "long-text"})
#: phrases in a description that ask for a Textarea
LONG_TEXT_HINTS = ("multiline", "multi-line", "long text", "paragraph", "markdown")
#: a ``maxLength`` at least this large means "long text"
LONG_TEXT_MAX_LENGTH = 200


def resolve(schema: Any, root: dict) -> dict:
    """``schema`` with local ``$ref`` and single-entry ``allOf`` replaced by their target.

    Sibling keywords of the reference (``description``, ``default``…) win over the target's.
    A reference that cannot be followed (``workbench._refs``: remote, dangling or cyclic) is
    returned unchanged: the builder then falls back to a JSON box for that field.
    """
    if not isinstance(schema, dict):
        return {}
    try:
        resolved, ref = follow(schema, root, single_all_of=True)
    except RefError:
        return schema
    if not isinstance(resolved, dict):
        return {}
    if ref is not None:
        resolved.setdefault("x-ref-name", pointer_tokens(ref)[-1] if pointer_tokens(ref) else "#")
    return resolved


def json_types(schema: dict) -> set[str]:
    """The JSON types a (resolved) schema declares, from ``type`` or, failing that, ``enum``/``const``."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    values = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if isinstance(values, list):
        return {json_type_name(v) for v in values}
    return set()


def split_nullable(schema: dict) -> Optional[dict]:
    """If ``schema`` admits ``null`` besides something else, the schema without ``null``; else ``None``.

    Handles ``anyOf``/``oneOf`` with a ``{"type": "null"}`` branch, ``"type": [X, "null"]`` and an
    ``enum`` containing ``null``.
    """
    carried = {k: schema[k] for k in _ANNOTATIONS if k in schema}
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and any(_is_null(o) for o in options):
            rest = [o for o in options if not _is_null(o)]
            if not rest:
                return None
            others = {k: v for k, v in schema.items() if k not in (key, *_ANNOTATIONS)}
            inner = rest[0] if len(rest) == 1 else {key: rest}
            return {**inner, **others, **{k: v for k, v in carried.items() if k != "default"}}
    declared = schema.get("type")
    if isinstance(declared, list) and "null" in declared and len(declared) > 1:
        rest = [t for t in declared if t != "null"]
        inner = {k: v for k, v in schema.items() if k != "default"}
        inner["type"] = rest[0] if len(rest) == 1 else rest
        if isinstance(inner.get("enum"), list):
            inner["enum"] = [v for v in inner["enum"] if v is not None]
        return inner
    values = schema.get("enum")
    if isinstance(values, list) and None in values and len(values) > 1:
        inner = {k: v for k, v in schema.items() if k != "default"}
        inner["enum"] = [v for v in values if v is not None]
        return inner
    return None


def _is_null(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and (schema.get("type") == "null" or schema.get("const", 0) is None)
        and len([k for k in schema if k not in ("type", "const", "title", "description")]) == 0
    )


def variants_of(schema: dict) -> Optional[list[dict]]:
    """The alternatives of a union schema (``anyOf``/``oneOf`` or a ``type`` list), or ``None``."""
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and len(options) >= 2:
            carried = {k: v for k, v in schema.items() if k not in (key, *_ANNOTATIONS, "discriminator")}
            return [{**carried, **o} if isinstance(o, dict) else {} for o in options]
        if isinstance(options, list) and len(options) == 1 and isinstance(options[0], dict):
            return None
    declared = schema.get("type")
    if isinstance(declared, list) and len([t for t in declared if t != "null"]) >= 2:
        base = {k: v for k, v in schema.items() if k not in ("type", *_ANNOTATIONS)}
        return [{**base, "type": t} for t in declared if t != "null"]
    return None


def variant_label(schema: dict, root: dict) -> str:
    """A short label for one alternative: its title, model name, or type (+ format / item type)."""
    if isinstance(schema.get("$ref"), str):
        return schema["$ref"].rsplit("/", 1)[-1]
    resolved = resolve(schema, root)
    for key in ("title", "x-ref-name"):
        if isinstance(resolved.get(key), str):
            return resolved[key]
    if "const" in resolved:
        return json.dumps(resolved["const"])
    types = sorted(json_types(resolved)) or ["any"]
    label = " | ".join(types)
    if isinstance(resolved.get("format"), str):
        label += f" ({resolved['format']})"
    elif resolved.get("pattern") and types == ["string"]:
        label += " (pattern)"
    if types == ["array"] and isinstance(resolved.get("items"), dict):
        label += " of " + variant_label(resolved["items"], root)
    return label


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


#: schema keyword → how to show it in a field's help line
_CONSTRAINTS: tuple[tuple[str, Any], ...] = (
    ("minimum", lambda v: f"≥ {_num(v)}"),
    ("exclusiveMinimum", lambda v: f"> {_num(v)}"),
    ("maximum", lambda v: f"≤ {_num(v)}"),
    ("exclusiveMaximum", lambda v: f"< {_num(v)}"),
    ("multipleOf", lambda v: f"multiple of {_num(v)}"),
    ("minLength", lambda v: f"min length {v}"),
    ("maxLength", lambda v: f"max length {v}"),
    ("pattern", lambda v: f"pattern /{v}/"),
    ("format", lambda v: f"format {v}"),
    ("minItems", lambda v: f"min {v} items"),
    ("maxItems", lambda v: f"max {v} items"),
    ("uniqueItems", lambda v: "unique items" if v else ""),
    ("minProperties", lambda v: f"min {v} keys"),
    ("maxProperties", lambda v: f"max {v} keys"),
)


def constraint_text(schema: dict) -> str:
    """Constraints as a short human string: ``≥ 0 · ≤ 10 · pattern /^a/``."""
    parts = []
    for key, show in _CONSTRAINTS:
        if key in schema and schema[key] is not None and not (key == "format" and schema[key] in LONG_TEXT_FORMATS):
            text = show(schema[key])
            if text:
                parts.append(text)
    return " · ".join(parts)


def is_long_text(name: Any, schema: dict) -> bool:
    """The Textarea rule for strings.

    A string field gets a multi-line Textarea when any of these holds:

    * its ``format`` (or ``x-widget``) is ``textarea``/``multiline``/``markdown``/``long-text``,
      or ``contentMediaType`` is ``text/markdown``;
    * ``maxLength >= 200`` (``LONG_TEXT_MAX_LENGTH``);
    * its description mentions "multiline", "multi-line", "long text", "paragraph" or "markdown";
    * the parameter is named ``body``, ``content``, ``document``, ``prompt``, ``text``, ``markdown``,
      ``essay`` or ``paragraph`` (``LONG_TEXT_NAMES``).
    """
    if schema.get("format") in LONG_TEXT_FORMATS or schema.get("x-widget") in LONG_TEXT_FORMATS:
        return True
    if schema.get("contentMediaType") == "text/markdown":
        return True
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and max_length >= LONG_TEXT_MAX_LENGTH:
        return True
    description = str(schema.get("description") or "").lower()
    if any(hint in description for hint in LONG_TEXT_HINTS):
        return True
    return isinstance(name, str) and name.lower() in LONG_TEXT_NAMES


def _with_defs(schema: dict, root: dict) -> dict:
    full = dict(schema)
    for key in ("$defs", "definitions"):
        if key in root and key not in full:
            full[key] = root[key]
    return full


def value_matches(value: Any, schema: dict, root: dict) -> bool:
    """Does ``value`` validate against ``schema`` (with ``root``'s ``$defs``)?"""
    import jsonschema

    try:
        return jsonschema.Draft202012Validator(
            _with_defs(schema, root), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        ).is_valid(value)
    except Exception:  # noqa: BLE001 - a malformed variant never matches
        return False


#: keywords that never make a value invalid (not _ANNOTATIONS: those are what a wrapper passes on)
_NEVER_INVALID = frozenset(
    {"type", "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
#: what a bare ``{"type": …}`` schema accepts, checked without jsonschema
_PLAIN_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def value_checker(schema: dict, root: dict) -> Callable[[Any], list[tuple[tuple, str]]]:
    """A function listing what is wrong with a value for ``schema`` alone (with ``root``'s ``$defs``), in
    ``check_inputs``' words, each with where in the value: ``[((), "expected a string of at least 3
    characters, received 'ab' (string)")]`` (``(("qty",), …)`` inside an object).

    Compiled once, on first need (a field checks each keystroke with it): a value of the right type for
    a schema that only names a type (``{"type": "string"}``, most text boxes) needs no validator, so a
    form of plain fields never imports jsonschema (seconds, the first time in a kernel). A schema
    jsonschema cannot apply finds nothing wrong: the validator run by *Run* still has the last word.
    """
    plain = (
        _PLAIN_TYPES.get(str(schema.get("type")))
        if isinstance(schema.get("type"), str) and set(schema) <= _NEVER_INVALID
        else None
    )
    compiled: list[Callable[[Any], list[tuple[tuple, str]]]] = []

    def check(value: Any) -> list[tuple[tuple, str]]:
        if plain is not None and plain(value):
            return []
        if not compiled:
            compiled.append(_compile_checker(schema, root))
        return compiled[0](value)

    return check


def _compile_checker(schema: dict, root: dict) -> Callable[[Any], list[tuple[tuple, str]]]:
    import jsonschema

    try:
        validator = jsonschema.Draft202012Validator(
            _with_defs(schema, root), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )
    except Exception:  # noqa: BLE001
        return lambda value: []

    def check(value: Any) -> list[tuple[tuple, str]]:
        try:
            errors = list(validator.iter_errors(value))
        except Exception:  # noqa: BLE001 - e.g. a $ref that points nowhere
            return []
        said: list[tuple[tuple, str]] = []
        for err in errors:
            found = (
                tuple(err.absolute_path),
                f"expected {_expected_by_keyword(err)}, received {describe_value(err.instance)}",
            )
            if found not in said:
                said.append(found)
        return said

    return check


# -- numbers typed as text -------------------------------------------------------------------------------
#: RFC 8259's number grammar: what a number field accepts (surrounding spaces aside)
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: a number written with more than this many digits before the point is refused, not expanded
#: (``int(Decimal("1e999999999"))`` would run for minutes)
MAX_DIGITS = 4300

#: why a text is not a JSON number, for the common near-misses (first match wins)
_NEAR_MISSES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"^[+-]?[0-9]*,[0-9]+$"), "use a dot as the decimal separator"),
    (re.compile(r"^\+"), "no leading + sign"),
    (re.compile(r"^-?0[0-9]"), "no leading zeros"),
    (re.compile(r"^-?\.|\.$|\.[eE]"), "write digits on both sides of the point, e.g. 0.5"),
    (re.compile(r"_"), "no digit separators"),
    (re.compile(r"^[+-]?(inf|infinity|nan)$", re.I), "JSON has no infinity or NaN"),
)


def parse_number(text: str, *, integer: bool) -> Union[int, float]:
    """Read what a user typed into a number field as a JSON number, exactly as typed.

    ``integer`` fields give an ``int`` (``3.0`` and ``1e3`` are whole numbers, so ``3`` and ``1000``);
    other fields give an ``int`` for an integer literal and a ``float`` otherwise. Nothing is rounded,
    truncated or clamped: a text that is not a (whole) number raises ``ValueError`` saying why, e.g.
    ``expected integer, received 3.7 (not a whole number)``.
    """
    stripped = text.strip()
    what = "integer" if integer else "number"
    if not _JSON_NUMBER.fullmatch(stripped):
        why = next((reason for pattern, reason in _NEAR_MISSES if pattern.search(stripped)), "not a number")
        raise ValueError(f"expected {what}, received {json.dumps(text, ensure_ascii=False)} ({why})")
    exact = Decimal(stripped)
    if exact.adjusted() >= MAX_DIGITS:
        raise ValueError(f"expected {what}, received {stripped} (too large)")
    if integer:
        if exact != exact.to_integral_value():
            raise ValueError(f"expected integer, received {stripped} (not a whole number)")
        return int(exact)
    if not any(c in stripped for c in ".eE"):
        return int(stripped)
    value = float(stripped)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"expected number, received {stripped} (too large)")
    return value


def number_text(value: Any) -> str:
    """How a number field shows ``value``: the shortest text that reads back as the same JSON number."""
    return repr(value) if isinstance(value, float) else str(value)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: bound keyword → (holds?, how to say it)
_BOUNDS: tuple[tuple[str, Any, str], ...] = (
    ("minimum", operator.ge, "≥"),
    ("exclusiveMinimum", operator.gt, ">"),
    ("maximum", operator.le, "≤"),
    ("exclusiveMaximum", operator.lt, "<"),
)


def number_problem(value: Union[int, float], schema: dict) -> Optional[str]:
    """What is wrong with ``value`` for ``schema``'s bounds and ``multipleOf`` (``"must be ≤ 150"``), or None.

    Checked exactly (``Decimal``), so ``0.3`` is a multiple of ``0.1``.
    """
    for key, holds, sign in _BOUNDS:
        limit = schema.get(key)
        if _is_number(limit) and not holds(value, limit):
            return f"must be {sign} {_num(limit)}"
    step = schema.get("multipleOf")
    if _is_number(step) and step > 0:
        try:
            with localcontext() as ctx:
                ctx.prec = MAX_DIGITS + 50
                remainder = Decimal(number_text(value)) % Decimal(number_text(step))
        except InvalidOperation:  # a quotient too long to compute exactly: leave it to the validator
            return None
        if remainder != 0:
            return f"must be a multiple of {_num(step)}"
    return None


def expected_text(schema: dict, root: dict) -> str:
    """What a (sub)schema expects, in the input validator's own words (``integer``, ``string``,
    ``one of "a", "b"``, ``a date (YYYY-MM-DD)``), so a form's messages read like ``check_inputs``'s."""
    return _expected_from_schema(resolve(schema, root), root.get("$defs"))
