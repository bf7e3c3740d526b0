"""The old name of :mod:`workbench.formats` (the provider tool formats), kept so every import works.

``import workbench.providers`` (and ``workbench.providers.openai``, ``workbench.providers._import``…)
gives the very modules of ``workbench.formats``: one object each, so what is patched or compared
through either name is the same. New code imports ``workbench.formats``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import workbench.formats as _formats

# every submodule under both names first (so ``import workbench.providers.X`` finds it, never loads
# a second copy), then the package itself
for _info in pkgutil.iter_modules(_formats.__path__):
    sys.modules[f"{__name__}.{_info.name}"] = importlib.import_module(f"{_formats.__name__}.{_info.name}")
sys.modules[__name__] = _formats
