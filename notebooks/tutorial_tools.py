"""Example tools for the registry tutorial (notebooks/04_registry.ipynb)."""

from __future__ import annotations

import re
from typing import Literal

from workbench import tool


@tool
def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: Any text.
    """
    return len(text.split())


@tool
def slugify(title: str, separator: Literal["-", "_"] = "-") -> str:
    """Turn a title into a URL slug.

    Args:
        title: The title, e.g. "Hello, World!".
        separator: Character placed between words.
    """
    words = re.findall(r"[a-z0-9]+", title.lower())
    return separator.join(words)


@tool(idempotent=True)
def convert_temperature(value: float, to: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature between Celsius and Fahrenheit.

    Args:
        value: The temperature to convert.
        to: The unit to convert to.
    """
    if to == "fahrenheit":
        return round(value * 9 / 5 + 32, 2)
    return round((value - 32) * 5 / 9, 2)


def not_a_tool(x: int) -> int:
    """A plain helper: process_tools on this module skips it (it is not decorated)."""
    return x
