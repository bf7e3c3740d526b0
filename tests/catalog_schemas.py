"""The schemas of the test suite's tool modules, exported to every provider: ``catalog_schemas.json``
holds them as built before the catalog speed-ups (issue #22); test_catalog.py compares today's with it.

Regenerate (only when a schema change is intended): ``python -m tests.catalog_schemas``.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from workbench.providers import PROVIDERS, to_provider_format
from workbench.tools import BaseTool

FIXTURE = Path(__file__).with_name("catalog_schemas.json")
MODULES = (
    "tests.form_catalogue",
    "tests.sample_tools",
    "tests.mcp_sample_tools",
    "tests.executor_tools",
    "tests.testing_case_tools",
    "tests.mcp_server_tools",
)


def tools_of(module_name: str) -> dict[str, BaseTool]:
    module = importlib.import_module(module_name)
    return {name: obj for name, obj in sorted(vars(module).items()) if isinstance(obj, BaseTool)}


def current_schemas() -> dict[str, Any]:
    """``{module.attr: {"parameters", "returns", provider: export or error}}`` built fresh now."""
    out: dict[str, Any] = {}
    for module_name in MODULES:
        for attr, item in tools_of(module_name).items():
            entry: dict[str, Any] = {"parameters": item.spec.parameters, "returns": item.spec.returns}
            for provider in PROVIDERS:
                for strict in (False, True):
                    key = f"{provider}{'-strict' if strict else ''}"
                    try:
                        entry[key] = to_provider_format(item.spec, provider, strict=strict)
                    except Exception as exc:  # noqa: BLE001 - the refusal is part of the expected output
                        entry[key] = f"{type(exc).__name__}: {exc}"
            out[f"{module_name}.{attr}"] = entry
    return out


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(current_schemas(), indent=1, sort_keys=True, default=repr) + "\n")
    print(f"wrote {FIXTURE}")
