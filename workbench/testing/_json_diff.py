"""Compare JSON values the way saved cases need: exact or subset, with ignored JSON pointers.

Pure functions on JSON-like data (no third-party imports). JSON's rules hold: ``1 == 1.0`` (one
number) but ``true`` is never ``1``; object key order never matters, array order always does.

* ``exact``: the actual value equals the expected one.
* ``subset``: every key of an expected object is in the actual object with a matching value
  (recursively); arrays match item by item and must have the same length; scalars are equal.

``ignore`` holds JSON pointers (RFC 6901, ``/items/0/id``); a ``*`` segment matches any key or
index (``/items/*/id``). An ignored place is left out on both sides before comparing.
"""

from __future__ import annotations

import copy
import difflib
import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

__all__ = [
    "Difference",
    "compare",
    "render_differences",
    "unified_json_diff",
    "parse_pointer",
    "format_pointer",
    "validate_pointer",
    "without_ignored",
    "project_like",
    "MODES",
]

MODES = ("exact", "subset")


@dataclass(frozen=True)
class Difference:
    """One place where actual and expected disagree.

    ``kind``: ``changed`` (both present, different), ``missing`` (expected, not in actual) or
    ``unexpected`` (in actual, not expected; exact mode only).
    """

    pointer: str
    kind: str
    expected: Any = None
    actual: Any = None

    def line(self) -> str:
        where = self.pointer or "(the whole value)"
        if self.kind == "missing":
            return f"{where}: missing (expected {_short(self.expected)})"
        if self.kind == "unexpected":
            return f"{where}: unexpected (got {_short(self.actual)})"
        return f"{where}: expected {_short(self.expected)}, got {_short(self.actual)}"


# -- pointers ---------------------------------------------------------------------------------------
def parse_pointer(pointer: str) -> list[str]:
    """The unescaped segments of a JSON pointer (``""`` is the whole document)."""
    validate_pointer(pointer)
    if pointer == "":
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def validate_pointer(pointer: Any) -> None:
    """Raise ``ValueError`` unless ``pointer`` is a JSON pointer string (``""`` or starting with ``/``)."""
    if not isinstance(pointer, str) or (pointer and not pointer.startswith("/")):
        raise ValueError(
            f"{pointer!r} is not a JSON pointer: it must start with '/', e.g. '/items/0/id' "
            "('*' matches any key or index)"
        )


def format_pointer(parts: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def without_ignored(value: Any, ignore: Sequence[str]) -> Any:
    """A copy of ``value`` without the places the pointers name (missing places are fine)."""
    if not ignore:
        return value
    out = copy.deepcopy(value)
    for pointer in ignore:
        parts = parse_pointer(pointer)
        if not parts:
            return None  # the whole value is ignored
        _delete(out, parts)
    return out


def _delete(node: Any, parts: list[str]) -> None:
    head, rest = parts[0], parts[1:]
    if isinstance(node, dict):
        keys = list(node) if head == "*" else [head] if head in node else []
        for key in keys:
            if rest:
                _delete(node[key], rest)
            else:
                del node[key]
    elif isinstance(node, list):
        if head == "*":
            indexes = list(range(len(node)))
        elif head.isdigit() and int(head) < len(node):
            indexes = [int(head)]
        else:
            indexes = []
        for index in reversed(indexes):
            if rest:
                _delete(node[index], rest)
            else:
                node[index] = _IGNORED  # keep positions: later items keep their indexes
    return None


class _Ignored:
    def __repr__(self) -> str:
        return "<ignored>"

    def __deepcopy__(self, memo: Any) -> "_Ignored":
        return self


_IGNORED = _Ignored()


# -- comparing --------------------------------------------------------------------------------------
def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def compare(expected: Any, actual: Any, mode: str = "exact", ignore: Sequence[str] = ()) -> list[Difference]:
    """The differences between ``expected`` and ``actual`` (empty when they match)."""
    if mode not in MODES:
        raise ValueError(f"Unknown comparison mode {mode!r}: expected one of {', '.join(MODES)}")
    found: list[Difference] = []
    _walk(without_ignored(expected, ignore), without_ignored(actual, ignore), [], mode == "subset", found)
    return found


def _walk(expected: Any, actual: Any, path: list, subset: bool, found: list[Difference]) -> None:
    if expected is _IGNORED or actual is _IGNORED:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            if key in actual:
                _walk(value, actual[key], path + [key], subset, found)
            else:
                found.append(Difference(format_pointer(path + [key]), "missing", expected=value))
        if not subset:
            for key, value in actual.items():
                if key not in expected:
                    found.append(Difference(format_pointer(path + [key]), "unexpected", actual=value))
        return
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (e, a) in enumerate(zip(expected, actual)):
            _walk(e, a, path + [index], subset, found)
        for index in range(len(actual), len(expected)):
            found.append(Difference(format_pointer(path + [index]), "missing", expected=expected[index]))
        for index in range(len(expected), len(actual)):
            found.append(Difference(format_pointer(path + [index]), "unexpected", actual=actual[index]))
        return
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)) or not _same_scalar(expected, actual):
        found.append(Difference(format_pointer(path), "changed", expected=expected, actual=actual))


def project_like(template: Any, actual: Any) -> Any:
    """``actual`` cut down to the shape of ``template``: the keys an object template names (and only
    those the actual has), arrays item by item. What a ``subset`` expectation is rewritten to."""
    if isinstance(template, dict) and isinstance(actual, dict):
        return {k: project_like(v, actual[k]) for k, v in template.items() if k in actual}
    if isinstance(template, list) and isinstance(actual, list):
        return [project_like(t, a) for t, a in zip(template, actual)] + actual[len(template) :]
    return actual


# -- rendering --------------------------------------------------------------------------------------
def _short(value: Any, limit: int = 120) -> str:
    text = _dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dumps(value: Any, indent: Any = None) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent, default=repr)


def unified_json_diff(expected: Any, actual: Any) -> str:
    """A unified diff of the two values pretty-printed (sorted keys), ``""`` if they print alike."""
    lines = difflib.unified_diff(
        _dumps(expected, 2).splitlines(), _dumps(actual, 2).splitlines(), "expected", "actual", lineterm="", n=2
    )
    return "\n".join(lines)


def render_differences(
    differences: Sequence[Difference], expected: Any = None, actual: Any = None, limit: int = 20
) -> str:
    """The differences one per line (at most ``limit``), then a unified diff when the values are
    objects or arrays."""
    lines = [f"  {d.line()}" for d in differences[:limit]]
    if len(differences) > limit:
        lines.append(f"  … and {len(differences) - limit} more")
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)):
        diff = unified_json_diff(expected, actual)
        if diff:
            lines += ["", diff]
    return "\n".join(lines)
