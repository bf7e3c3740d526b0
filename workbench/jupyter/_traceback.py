"""A failing tool's traceback with the user's frames first.

The executor stores ``traceback.format_exception`` text; read as it is, it starts with the
workbench's own frames (executor, thread pool, asyncio). :func:`split_traceback` keeps the layout
Python gives (headers, chained-exception separators, the exception lines) and drops the frames of
internal code, so what is left is the user's code and the error; the form shows that and keeps the
full text in a collapsed ``<details>``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import sys
import threading
from typing import Iterable, Optional

__all__ = ["split_traceback", "internal_paths", "cell_names", "without_final_error"]

_FRAME = re.compile(r'^  File "(?P<path>[^"]*)", line \d+')


def internal_paths() -> tuple[str, ...]:
    """Directories and files whose frames are the workbench's machinery, not the user's code."""
    dirs = [
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        os.path.dirname(asyncio.__file__),
        os.path.dirname(concurrent.futures.__file__),
    ]
    files = [threading.__file__, contextlib.__file__]
    for name in ("anyio", "mcp"):  # the MCP client's stack, when it is loaded
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            dirs.append(os.path.dirname(file))
    return tuple(os.path.join(d, "") for d in dirs) + tuple(files)


def _is_internal(path: str, internal: Iterable[str]) -> bool:
    return any(path == p or (p.endswith(os.sep) and path.startswith(p)) for p in internal)


def split_traceback(text: str, internal: Optional[Iterable[str]] = None) -> tuple[str, int]:
    """``(text without internal frames, how many frames were dropped)``; ``internal`` defaults to
    :func:`internal_paths` (a directory ends with ``os.sep``, anything else is one file).

    A frame is its ``  File "…"`` line and the more-indented lines under it (source, carets,
    "[Previous line repeated …]"); every other line (headers, separators, the exception) is kept.
    Text without internal frames comes back unchanged.
    """
    internal = tuple(internal) if internal is not None else internal_paths()
    kept: list[str] = []
    dropped = 0
    skipping = False
    for line in text.splitlines(keepends=True):
        match = _FRAME.match(line)
        if match:
            skipping = _is_internal(match.group("path"), internal)
            dropped += skipping
            if not skipping:
                kept.append(line)
            continue
        if skipping and line.startswith(("    ", "  [")):
            continue  # a dropped frame's source and caret lines
        skipping = False
        kept.append(line)
    return ("".join(kept), dropped) if dropped else (text, 0)


_FILE_LINE = re.compile(r'^(?P<indent>\s*)File "(?P<path>[^"]*)", line (?P<line>\d+)', re.MULTILINE)


def cell_names(text: str) -> str:
    """Frames of notebook cells named as IPython names them: ``Cell In[5], line 3`` instead of the
    kernel's temporary file (``/tmp/ipykernel_…/1610421116.py``). Other frames are left as they are."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    cells = getattr(getattr(ip, "compile", None), "_filename_map", None) or {}
    if not cells:
        return text
    return _FILE_LINE.sub(
        lambda m: (
            f"{m.group('indent')}Cell In[{cells[m.group('path')]}], line {m.group('line')}"
            if m.group("path") in cells
            else m.group(0)
        ),
        text,
    )


def without_final_error(text: str, error_type: str, message: str) -> str:
    """``text`` without its last line(s) when they repeat the error a headline already shows
    (``ValueError: boom``, or a module-qualified ``pkg.MyError: boom``)."""
    pattern = re.compile(rf"(?:^|\n)(?:[\w.]+\.)?{re.escape(error_type)}: {re.escape(message)}\s*$")
    match = pattern.search(text)
    return text[: match.start()] + "\n" if match else text
