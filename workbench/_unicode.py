"""Lone UTF-16 surrogates in text from outside, replaced where that text enters the workbench.

JSON may escape any UTF-16 code unit (``"\\ud800"`` is valid JSON), so a model's answer can hold a
*lone surrogate*: a Python ``str`` that no UTF-8 encoder accepts — SQLite, a file, pandas' strings
and the notebook all raise ``UnicodeEncodeError`` on it. The policy: where a model's answer enters
(a provider's JSON, any model's turn in the agent loop, a recorded cassette), every lone surrogate
becomes U+FFFD (``"�"``, the replacement character) and a high+low pair that a stream split across
two chunks becomes the character it encodes. Everything downstream then holds valid Unicode only.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["replace_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")
# how ``json.dumps`` (ASCII output) writes a surrogate: a cheap test over a whole JSON value
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _text(text: str) -> str:
    if text.isascii() or not _SURROGATE.search(text):
        return text
    # through UTF-16: a pair joins into its character, a lone surrogate decodes as U+FFFD
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {(_text(k) if isinstance(k, str) else k): _walk(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v) for v in value)
    return value


def replace_surrogates(value: Any) -> Any:
    """``value`` (text, or JSON: dicts, lists, strings…) with each lone surrogate replaced by U+FFFD
    and each split surrogate pair joined — ``value`` itself when it holds none (the common case,
    checked at C speed)."""
    if isinstance(value, str):
        return _text(value)
    try:
        if not _ESCAPED_SURROGATE.search(json.dumps(value)):
            return value
    except (TypeError, ValueError):
        pass  # not plain JSON: walked
    return _walk(value)
