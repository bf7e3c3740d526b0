"""Every schema walker follows ``$ref`` the one way (``workbench._refs``): one test per special case
a former copy of the resolver had, so none regresses, and one per case where copies disagreed."""

from __future__ import annotations

import pytest

from workbench import ToolSpec
from workbench._errors import ToolSpecError
from workbench._synthetic import synthesize
from workbench.jupyter._schema_utils import resolve
from workbench.providers import normalize_arguments, to_provider_format
from workbench.testing import spec_diff


def _spec(parameters: dict, name: str = "t") -> ToolSpec:
    return ToolSpec(name=name, description="A tool.", parameters=parameters)


ESCAPED = {
    "type": "object",
    "properties": {"when": {"$ref": "#/$defs/a~1b"}},
    "required": ["when"],
    "$defs": {"a/b": {"type": "string", "description": "slash key"}},
}
INDEXED = {
    "type": "object",
    "properties": {
        "first": {"$ref": "#/properties/pair/prefixItems/0"},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
    },
    "required": ["first"],
}
DANGLING = {"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}}
REMOTE = {"type": "object", "properties": {"x": {"$ref": "other.json#/$defs/X"}}}
CYCLIC = {
    "type": "object",
    "properties": {"x": {"$ref": "#/$defs/A"}},
    "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
}


# -- providers (formerly providers/_common._resolve_pointer) -----------------------------------------------
def test_provider_export_follows_escapes_and_array_indices():
    gemini = to_provider_format(_spec(ESCAPED), "gemini")["parameters"]
    assert gemini["properties"]["when"]["type"] in ("string", "STRING")
    gemini = to_provider_format(_spec(INDEXED), "gemini")["parameters"]
    assert gemini["properties"]["first"]["type"] in ("integer", "INTEGER")


@pytest.mark.parametrize(
    "parameters, fragment",
    [
        (DANGLING, "$ref '#/$defs/Missing' points nowhere"),
        (REMOTE, "$ref 'other.json#/$defs/X' is not local"),
    ],
)
def test_provider_export_names_tool_field_and_pointer(parameters, fragment):
    with pytest.raises(ToolSpecError) as caught:
        to_provider_format(_spec(parameters, "lookup"), "gemini")
    assert "Tool 'lookup': field 'x'" in str(caught.value) and fragment in str(caught.value)


# -- normalize_arguments (formerly swallowed every error) ----------------------------------------------------
def test_normalize_arguments_follows_a_chain_of_refs():
    schema = {
        "type": "object",
        "properties": {"opts": {"$ref": "#/$defs/Alias"}},
        "$defs": {
            "Alias": {"$ref": "#/$defs/Opts"},
            "Opts": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    }
    assert normalize_arguments(_spec(schema), {"opts": {"n": None}}, "openai", strict=True) == {"opts": {}}


def test_normalize_arguments_reports_a_dangling_ref_instead_of_passing_the_input_on():
    with pytest.raises(ToolSpecError) as caught:
        normalize_arguments(_spec(DANGLING, "lookup"), {"x": None}, "openai", strict=True)
    assert "Tool 'lookup': field 'x'" in str(caught.value)
    assert "$ref '#/$defs/Missing' points nowhere" in str(caught.value)


# -- synthetic values (formerly the only copy with array indices) --------------------------------------------
def test_synthetic_values_follow_array_indices_and_escapes():
    value = synthesize(INDEXED, 1)
    assert isinstance(value["first"], int) and not isinstance(value["first"], bool)
    assert isinstance(synthesize(ESCAPED, 1)["when"], str)


def test_synthetic_values_report_a_cycle_of_refs():
    with pytest.raises(ToolSpecError) as caught:
        synthesize({**CYCLIC, "required": ["x"]}, 1, tool="loop")
    assert "Tool 'loop'" in str(caught.value)
    assert "#/$defs/A → #/$defs/B → #/$defs/A" in str(caught.value)


# -- spec_diff (formerly stopped after 50 hops) --------------------------------------------------------------
def _chain(length: int, target: dict) -> dict:
    defs = {f"R{i}": {"$ref": f"#/$defs/R{i + 1}"} for i in range(length)}
    defs[f"R{length}"] = target
    return {"type": "object", "properties": {"n": {"$ref": "#/$defs/R0"}}, "required": ["n"], "$defs": defs}


def test_spec_diff_follows_a_chain_longer_than_fifty_refs():
    old = _spec(_chain(60, {"type": "integer", "minimum": 0}))
    new = _spec(_chain(60, {"type": "integer", "minimum": 5}))
    [change] = [c for c in spec_diff([old], [new]) if c.kind != "description-changed"]
    assert change.pointer == "/parameters/properties/n/minimum" and change.breaking


@pytest.mark.parametrize(
    "broken, fragment",
    [
        (DANGLING, "$ref '#/$defs/Missing' points nowhere"),
        (CYCLIC, "comes back to itself (#/$defs/A → #/$defs/B → #/$defs/A)"),
    ],
)
def test_spec_diff_reports_a_ref_it_cannot_follow(broken, fragment):
    fine = _spec({"type": "object", "properties": {"x": {"type": "string"}}}, "lookup")
    with pytest.raises(ToolSpecError) as caught:
        spec_diff([fine], [_spec(broken, "lookup")])
    assert "Tool 'lookup': the new parameters schema" in str(caught.value) and fragment in str(caught.value)


# -- forms (formerly the only copy that detected cycles; no array indices) ------------------------------------
def test_form_resolve_follows_array_indices_and_escapes():
    assert resolve(INDEXED["properties"]["first"], INDEXED)["type"] == "integer"
    escaped = resolve(ESCAPED["properties"]["when"], ESCAPED)
    assert escaped["description"] == "slash key" and escaped["x-ref-name"] == "a/b"


@pytest.mark.parametrize("root", [CYCLIC, DANGLING, REMOTE])
def test_form_resolve_leaves_a_ref_it_cannot_follow_for_the_json_fallback(root):
    schema = root["properties"]["x"]
    assert resolve(schema, root) == schema


# -- OpenAPI (formerly referencing, stopping after 32 hops) ---------------------------------------------------
def _document(pet_ref: str, components: dict) -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "add_pet",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": pet_ref}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": components},
    }


def test_openapi_follows_a_long_chain_of_refs():
    from workbench.adapters.openapi import from_openapi

    components = {f"P{i}": {"$ref": f"#/components/schemas/P{i + 1}"} for i in range(40)}
    components["P40"] = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    [tool] = from_openapi(_document("#/components/schemas/P0", components), validate="schema")
    assert tool.spec.parameters["properties"]["name"] == {"type": "string"}


@pytest.mark.parametrize(
    "components, fragment",
    [
        (
            {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}},
            "comes back to itself (#/components/schemas/A → #/components/schemas/B → #/components/schemas/A)",
        ),
        ({}, "$ref '#/components/schemas/A' points nowhere: '#/components/schemas' has no key 'A'"),
    ],
)
def test_openapi_reports_a_ref_it_cannot_follow(components, fragment):
    from workbench.adapters.openapi import from_openapi

    with pytest.raises(ValueError) as caught:
        from_openapi(_document("#/components/schemas/A", components), validate="schema")
    assert fragment in str(caught.value)


# -- the $defs-only copies (type names, "expected …" texts, secret parameters, HTML parameter tables) -----------
def test_a_spec_with_a_cycle_of_refs_still_lists_its_inputs():
    spec = _spec(CYCLIC, "loop")
    [entry] = spec.inputs
    assert entry.name == "x"
    assert spec.to_json()["name"] == "loop"


def test_secret_parameters_follow_a_chain_of_refs():
    from workbench.secrets import secret_parameters

    schema = {
        "type": "object",
        "properties": {"key": {"$ref": "#/$defs/Alias"}, "q": {"type": "string"}},
        "$defs": {"Alias": {"$ref": "#/$defs/Token"}, "Token": {"type": "string", "format": "password"}},
    }
    assert secret_parameters(schema) == {"key"}
