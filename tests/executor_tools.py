"""Module-level tools for the executor tests: importable by reference, so a process pool can run them."""

from __future__ import annotations

import os

from workbench import tool


@tool
def getpid() -> int:
    """Return the id of the process the tool runs in."""
    return os.getpid()


@tool
def square(x: int) -> int:
    """Square a number (in whatever process runs it)."""
    return x * x
