"""The old name of :mod:`workbench.adapters.tool_formats` (provider tool dicts in, as tools), kept so
the import works: the very same module."""

from __future__ import annotations

import sys

import workbench.adapters.tool_formats as _tool_formats

sys.modules[__name__] = _tool_formats
