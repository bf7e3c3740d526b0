"""Provider tool dicts in (the inverse of to_provider_format), BFCL documents, and the registry taking them."""

from __future__ import annotations

import pytest

from tests.form_catalogue import CATALOGUE
from workbench import ToolRegistry, ToolSpecError, to_provider_format
from workbench.adapters import from_provider_format
from workbench.providers import PROVIDERS
from workbench.providers._import import detect_format
from workbench.tools import SpecOnlyTool

STRICT = ("openai", "openai-responses", "anthropic")


def _exportable():
    """(entry, provider) for every pair the export takes (Gemini cannot express a recursive schema)."""
    pairs = []
    for entry in CATALOGUE:
        for provider in PROVIDERS:
            try:
                to_provider_format(entry.tool, provider)
            except ToolSpecError:
                assert provider == "gemini" and entry.name == "recursive model"
                continue
            pairs.append(pytest.param(entry, provider, id=f"{entry.name}-{provider}"))
    return pairs


@pytest.mark.parametrize(("entry", "provider"), _exportable())
def test_export_import_export_gives_the_same_dict(entry, provider):
    exported = to_provider_format(entry.tool, provider)
    assert detect_format(exported) == provider
    imported = from_provider_format(exported)
    assert isinstance(imported, SpecOnlyTool)
    assert to_provider_format(imported, provider) == exported
    assert from_provider_format(exported, provider=provider).spec.parameters == imported.spec.parameters


@pytest.mark.parametrize("provider", STRICT)
def test_a_strict_export_round_trips_through_strict_export(provider):
    entry = next(e for e in CATALOGUE if e.name == "str")
    exported = to_provider_format(entry.tool, provider, strict=True)
    assert to_provider_format(from_provider_format(exported), provider, strict=True) == exported


def test_imported_gemini_schema_is_json_schema_again():
    tool = from_provider_format(
        {
            "name": "f",
            "description": "d",
            "parameters": {
                "type": "OBJECT",
                "properties": {"a": {"type": "INTEGER", "nullable": True, "description": "an a"}},
                "required": ["a"],
            },
        }
    )
    assert tool.spec.parameters["properties"]["a"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "description": "an a",
    }
    assert tool.check_inputs({"a": None}) == {"a": None}
    assert tool.check_inputs({"a": 3}) == {"a": 3}


def test_gemini_function_declarations_give_every_tool():
    tools = from_provider_format(
        {
            "function_declarations": [
                {"name": "a", "description": ""},
                {
                    "name": "b",
                    "description": "",
                    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
                },
            ]
        }
    )
    assert [t.tool_name for t in tools] == ["a", "b"]


BFCL_DOC = {
    "name": "math.hypot",
    "description": "Euclidean norm.",
    "parameters": {
        "type": "dict",
        "properties": {
            "x": {"type": "float", "description": "x"},
            "point": {"type": "tuple", "items": {"type": "integer"}},
            "extra": {"type": "any"},
            "options": {"type": "dict", "properties": {"round": {"type": "boolean"}}},
        },
        "required": ["x"],
    },
}


def test_bfcl_documents_become_json_schema():
    assert detect_format(BFCL_DOC) == "bfcl"
    tool = from_provider_format(BFCL_DOC)
    assert tool.tool_name == "math_hypot"
    props = tool.spec.parameters["properties"]
    assert tool.spec.parameters["type"] == "object"
    assert props["x"] == {"type": "number", "description": "x"}
    # BFCL's tuple: an array for the schema (marked, so the scorer accepts a tuple as BFCL does); a plain
    # array in every provider export, as BFCL sends it
    assert props["point"] == {"type": "array", "items": {"type": "integer"}, "x-bfcl-type": "tuple"}
    for provider in PROVIDERS:
        assert "x-bfcl-type" not in str(to_provider_format(tool, provider)), provider
    assert props["extra"] == {}
    assert props["options"]["type"] == "object"
    assert tool.check_inputs({"x": 1.5, "extra": [1]}) == {"x": 1.5, "extra": [1]}
    with pytest.raises(Exception, match="x"):
        tool.check_inputs({"x": "no"})


def test_the_registry_takes_provider_dicts_through_the_adapters_table():
    openai = to_provider_format(CATALOGUE[0].tool, "openai")
    bedrock = to_provider_format(CATALOGUE[2].tool, "bedrock")
    registry = ToolRegistry([openai, bedrock, BFCL_DOC])
    assert registry.list_tools() == [CATALOGUE[0].tool.tool_name, CATALOGUE[2].tool.tool_name, "math_hypot"]
    assert all(isinstance(registry.get_tool(n), SpecOnlyTool) for n in registry.list_tools())
    other = ToolRegistry()
    assert other.register_tool(to_provider_format(CATALOGUE[0].tool, "openai-responses")) == CATALOGUE[0].tool.tool_name
    # a plain spec dict still goes straight to ToolSpec
    assert ToolRegistry(
        [{"name": "plain", "description": "", "parameters": {"type": "object", "properties": {}}}]
    ).list_tools() == ["plain"]


def test_a_dict_of_no_known_format_is_refused_with_the_formats():
    with pytest.raises(ValueError, match="openai, openai-responses, bedrock"):
        from_provider_format({"tool": "x"})
    with pytest.raises(ValueError, match="not a bedrock tool dict"):
        from_provider_format({"name": "x", "input_schema": {}}, provider="bedrock")
    with pytest.raises(ValueError, match="provider='nope'"):
        from_provider_format({"name": "x", "input_schema": {}}, provider="nope")
