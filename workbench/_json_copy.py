"""A copy of JSON data (schemas, arguments): ``copy.deepcopy`` costs several times more on these small
nested dicts and lists (its memo and dispatch), and exporting or sharing schemas copies thousands."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["copy_json"]

_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A deep copy of ``value``; dicts and lists are copied here, anything else not JSON by ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {key: copy_json(item) for key, item in value.items()}
    if kind is list:
        return [copy_json(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)
