"""Decoding JSON text that comes from outside, with its nesting depth bounded before parsing.

``json.loads`` recurses once per level of arrays and objects, so text nested a few thousand levels
deep (``"[" * 5000 + "]" * 5000``, a dozen kilobytes) raises ``RecursionError`` — not the
``ValueError`` callers catch for malformed JSON. :func:`loads` measures the depth first, without
recursion, and refuses deeper text with :class:`JSONTooDeepError`, a ``json.JSONDecodeError``: every
place that handles malformed JSON handles it too, and its message says why.

Measuring costs nothing for text with at most ``max_depth`` opening brackets (nearly every tool
call: they cannot nest deeper than that). Other text is measured in one linear pass, in C-speed steps
over slices of at most ``_CHUNK`` characters: escapes are first blanked (a backslash escapes the next
character; outside a string that is malformed JSON anyway, where the parser stops), so that a quote
always opens or closes a string; each slice then loses its string literals and everything but its
brackets, and its running depth is the running sum of +1/-1 steps. Only the slice where the text gets
too deep is walked token by token, for the position. No step reads ahead and comes back: a pattern
that looked for the closing quote rescanned the rest of the text from every quote of an unterminated
string, which was quadratic (64 KiB took 9 s).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JSONTooDeepError", "loads", "too_deep_at"]

#: How deeply decoded text may nest arrays and objects (the same bound as a tool's input:
#: ``workbench._validation.MAX_INPUT_DEPTH``; real JSON stays far below it).
MAX_JSON_DEPTH = 100

# same-length blanks for the escapes that matter: a backslash pair first, so that the backslash left of
# an odd run escapes the character after it
_ESCAPES = (("\\\\", "__"), ('\\"', "__"), ("\\[", "__"), ("\\]", "__"), ("\\{", "__"), ("\\}", "__"))
# with escapes blanked, a string literal is a quote to the next quote (or, unterminated, to the end):
# both patterns match wherever they start, so a scan never backtracks
_STRING = re.compile(r'"[^"]*(?:"|\Z)')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_TOKENS = re.compile(r'"[^"]*(?:"|\Z)|[\[\]{}]')
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
#: characters measured per step; the one walked token by token is at most this long
_CHUNK = 1 << 16


class JSONTooDeepError(json.JSONDecodeError):
    """JSON text nesting arrays and objects deeper than the limit; ``pos`` is the bracket that passes it."""

    def __init__(self, doc: str, pos: int, max_depth: int) -> None:
        super().__init__(f"JSON text nests deeper than {max_depth} levels of arrays and objects", doc, pos)
        self.max_depth = max_depth

    def __reduce__(self) -> Any:
        return type(self), (self.doc, self.pos, self.max_depth)


def too_deep_at(text: str, max_depth: int = MAX_JSON_DEPTH) -> int:
    """The position of the bracket at which ``text`` nests deeper than ``max_depth``, or -1.

    Brackets inside string literals do not count, nor do those after an unterminated string's
    opening quote (they are inside it) or right after a backslash (escaped); malformed text is
    measured as far as it goes (the parser then says what is wrong with it). One linear pass.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return -1
    if "\\" in text:
        for escape, blank in _ESCAPES:
            text = text.replace(escape, blank)
    depth, in_string = 0, False
    for start in range(0, len(text), _CHUNK):
        chunk = text[start : start + _CHUNK]
        offset = 0
        if in_string:  # the chunk starts inside a string: from its closing quote on
            offset = chunk.find('"') + 1
            if not offset:
                continue
        in_string = in_string != (chunk.count('"') % 2 == 1)
        brackets = _NOT_BRACKET.sub("", _STRING.sub("", chunk[offset:] if offset else chunk))
        if max(accumulate(map(_STEP.__getitem__, brackets), initial=depth)) > max_depth:
            return start + _walk(chunk, offset, depth, max_depth)
        depth += 2 * (brackets.count("[") + brackets.count("{")) - len(brackets)
    return -1


def _walk(chunk: str, offset: int, depth: int, max_depth: int) -> int:
    """Where in ``chunk`` (escapes blanked, not in a string at ``offset``) the depth passes ``max_depth``."""
    for match in _TOKENS.finditer(chunk, offset):
        char = chunk[match.start()]
        if char == "[" or char == "{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif char != '"':
            depth -= 1
    raise AssertionError("unreachable: the chunk was measured too deep")  # pragma: no cover


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
