"""Docstring → (description, parameter descriptions), via docstring-parser.

docstring-parser auto-detects Google, NumPy, Sphinx and Epydoc styles.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import docstring_parser

__all__ = ["ParsedDoc", "parse_docstring"]


@dataclass(frozen=True)
class ParsedDoc:
    description: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None


def parse_docstring(obj: object) -> ParsedDoc:
    """Parse ``obj``'s docstring. The description excludes Args/Returns/Raises sections."""
    doc = inspect.getdoc(obj)
    if not doc:
        return ParsedDoc()
    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return ParsedDoc(description=doc.strip())
    parts = [p for p in (parsed.short_description, parsed.long_description) if p]
    joiner = "\n\n" if parsed.blank_after_short_description else "\n"
    params = {p.arg_name: " ".join(p.description.split()) for p in parsed.params if p.description}
    returns = parsed.returns.description if parsed.returns and parsed.returns.description else None
    return ParsedDoc(description=joiner.join(parts).strip(), params=params, returns=returns)
