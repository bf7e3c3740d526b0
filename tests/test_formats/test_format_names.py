""" "Provider" means one thing: the tool-format converters are ``workbench.formats``; the old import paths
(``workbench.providers…``, ``workbench.models._provider``, ``workbench.adapters.provider_format``) are the
very same modules, never second copies."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"
ALIASES = {  # old path -> new path
    "workbench.providers": "workbench.formats",
    "workbench.providers.openai": "workbench.formats.openai",
    "workbench.providers._import": "workbench.formats._import",
    "workbench.providers._bfcl_schema": "workbench.formats._bfcl_schema",
    "workbench.models._provider": "workbench.models._sdk_model",
    "workbench.adapters.provider_format": "workbench.adapters.tool_formats",
}
ALIAS_FILES = {
    PACKAGE / "providers" / "__init__.py",
    PACKAGE / "models" / "_provider.py",
    PACKAGE / "adapters" / "provider_format.py",
}

_CHECK = """
import importlib, sys
old, new = sys.argv[1], sys.argv[2]
first = importlib.import_module(old)          # the old path first, in a fresh interpreter
second = importlib.import_module(new)
assert first is second, (first, second)
files = {}
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if path and name.startswith("workbench"):
        files.setdefault(path, set()).add(id(module))
assert all(len(ids) == 1 for ids in files.values()), [p for p, ids in files.items() if len(ids) > 1]
print("ok")
"""


@pytest.mark.parametrize("old, new", list(ALIASES.items()))
def test_an_old_import_path_is_the_same_module_loaded_once(old, new):
    out = subprocess.run([sys.executable, "-c", _CHECK, old, new], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_names_imported_from_the_old_package_are_the_new_ones():
    from workbench import formats
    from workbench.providers import PROVIDERS, to_provider_format
    from workbench.providers._common import Provider

    assert to_provider_format is formats.to_provider_format and PROVIDERS is formats.PROVIDERS
    assert Provider is formats.Provider


def test_the_package_itself_imports_only_the_new_names():
    old = tuple(ALIASES)[:1] + ("workbench.models._provider", "workbench.adapters.provider_format")
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in ALIAS_FILES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [
                f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}"
                for name in names
                if any(name == o or name.startswith(o + ".") for o in old)
            ]
    assert found == []
