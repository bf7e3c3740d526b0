"""Docstring → (description, parameter descriptions), via docstring-parser.

docstring-parser auto-detects Google, NumPy, Sphinx and Epydoc styles.
"""

from __future__ import annotations

import inspect
import re
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
        parsed = _google(doc) or docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return ParsedDoc(description=doc.strip())
    parts = [p for p in (parsed.short_description, parsed.long_description) if p]
    joiner = "\n\n" if parsed.blank_after_short_description else "\n"
    params = {p.arg_name: " ".join(p.description.split()) for p in parsed.params if p.description}
    returns = parsed.returns.description if parsed.returns and parsed.returns.description else None
    return ParsedDoc(description=joiner.join(parts).strip(), params=params, returns=returns)


#: a line another style would read sections from: reST ``:param``, Epydoc ``@param``, a NumPy underline
_OTHER_STYLES = re.compile(r"^\s*(?:[:@]|-{3,}\s*$)", re.MULTILINE)


#: one parser for every docstring: ``docstring_parser.google.parse`` compiles its section regex each call
_GOOGLE = docstring_parser.google.GoogleParser()


def _google(doc: str) -> "docstring_parser.Docstring | None":
    """The Google-style parse when auto-detection would pick it anyway, else None.

    ``docstring_parser.parse`` runs all four parsers and keeps the one with the most sections
    (reST first on a tie). Without any line the others read sections from they find none, so a Google
    parse with at least one section is what it returns — at a quarter of the cost.
    """
    if _OTHER_STYLES.search(doc):
        return None
    try:
        parsed = _GOOGLE.parse(doc)
    except docstring_parser.ParseError:
        return None
    return parsed if parsed.meta else None
