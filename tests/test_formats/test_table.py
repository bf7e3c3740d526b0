"""``workbench.providers`` is a package with one module per provider behind one table."""

from __future__ import annotations

import importlib

import pytest

from workbench.providers import PROVIDER_TABLE, PROVIDERS, Provider, format_tool_results, to_provider_format
from workbench.spec import ToolSpec

MODULES = {
    "openai": ("openai", "openai-responses"),
    "anthropic": ("anthropic",),
    "bedrock": ("bedrock",),
    "gemini": ("gemini",),
    "mcp": ("mcp",),
}


def test_every_provider_module_contributes_its_rows_to_the_table():
    rows = {}
    for module_name, names in MODULES.items():
        module = importlib.import_module(f"workbench.providers.{module_name}")
        assert tuple(module.PROVIDERS) == names
        rows.update(module.PROVIDERS)
    assert rows == PROVIDER_TABLE and tuple(PROVIDER_TABLE) == PROVIDERS
    assert all(isinstance(row, Provider) for row in rows.values())
    assert {name for name, row in rows.items() if row.strict} == {"openai", "openai-responses", "anthropic"}
    assert [name for name, row in rows.items() if row.choice is None] == ["mcp"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_public_functions_dispatch_through_the_table(provider, monkeypatch):
    spec = ToolSpec(name="ping", description="Ping.", parameters={"type": "object", "properties": {}})
    row = PROVIDER_TABLE[provider]
    marker = {"exported by": provider}
    monkeypatch.setattr(
        "workbench.providers._EXPORTERS", {**dict.fromkeys(PROVIDERS, row.export), provider: lambda s, strict: marker}
    )
    assert to_provider_format(spec, provider) is marker
    assert isinstance(format_tool_results(provider, []), list)
