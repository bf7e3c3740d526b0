"""Decoding JSON text that comes from outside, with its nesting depth bounded before parsing.

``json.loads`` recurses once per level of arrays and objects, so text nested a few thousand levels
deep (``"[" * 5000 + "]" * 5000``, a dozen kilobytes) raises ``RecursionError`` — not the
``ValueError`` callers catch for malformed JSON. :func:`loads` measures the depth first, without
recursion, and refuses deeper text with :class:`JSONTooDeepError`, a ``json.JSONDecodeError``: every
place that handles malformed JSON handles it too, and its message says why.

Measuring costs nothing for text with at most ``max_depth`` opening brackets (nearly every tool
call: they cannot nest deeper than that); other text is scanned once, by regular expression, skipping
string literals.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JSONTooDeepError", "loads", "too_deep_at"]

#: How deeply decoded text may nest arrays and objects (the same bound as a tool's input:
#: ``workbench._validation.MAX_INPUT_DEPTH``; real JSON stays far below it).
MAX_JSON_DEPTH = 100

# a string literal (escapes included, so an escaped quote does not end it) or one bracket
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_OPENERS = frozenset("[{")


class JSONTooDeepError(json.JSONDecodeError):
    """JSON text nesting arrays and objects deeper than the limit; ``pos`` is the bracket that passes it."""

    def __init__(self, doc: str, pos: int, max_depth: int) -> None:
        super().__init__(f"JSON text nests deeper than {max_depth} levels of arrays and objects", doc, pos)
        self.max_depth = max_depth

    def __reduce__(self) -> Any:
        return type(self), (self.doc, self.pos, self.max_depth)


def too_deep_at(text: str, max_depth: int = MAX_JSON_DEPTH) -> int:
    """The position of the bracket at which ``text`` nests deeper than ``max_depth``, or -1.

    Brackets inside string literals do not count; malformed text is measured as far as it goes
    (the parser then says what is wrong with it).
    """
    if text.count("[") + text.count("{") <= max_depth:
        return -1
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in _OPENERS:
            depth += 1
            if depth > max_depth:
                return match.start()
        elif len(token) == 1:
            depth -= 1
    return -1


def loads(text: str | bytes | bytearray, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)``, refusing text nested deeper than ``max_depth`` with :class:`JSONTooDeepError`
    (a ``json.JSONDecodeError``, so a ``ValueError``) instead of recursing into it."""
    if isinstance(text, (bytes, bytearray)):  # as json.loads reads bytes
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    if isinstance(text, str):
        position = too_deep_at(text, max_depth)
        if position >= 0:
            raise JSONTooDeepError(text, position, max_depth)
    return json.loads(text)
