"""The one ``$ref`` resolver (``workbench._refs``): JSON-pointer escapes, array indices, chains,
cycles, and dangling / remote references as errors naming the pointer."""

from __future__ import annotations

import pytest

from workbench._refs import (
    CyclicRef,
    DanglingRef,
    RefError,
    RemoteRef,
    escape_token,
    follow,
    lookup,
    lookup_schema,
    pointer_tokens,
)

ROOT = {
    "$defs": {
        "a/b": {"type": "string"},
        "t~x": {"type": "integer"},
        "~1": {"type": "boolean"},
        "with space": {"type": "null"},
        "Pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
        "Alias": {"$ref": "#/$defs/Pair", "description": "an alias"},
        "A": {"$ref": "#/$defs/B"},
        "B": {"$ref": "#/$defs/C"},
        "C": {"$ref": "#/$defs/A"},
        "Self": {"$ref": "#/$defs/Self"},
        "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
        "Wrapped": {"allOf": [{"$ref": "#/$defs/Tree"}], "description": "a wrapped tree"},
    },
    "required": ["x"],
}


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("#/$defs/a~1b", {"type": "string"}),  # ~1 is "/"
        ("#/$defs/t~0x", {"type": "integer"}),  # ~0 is "~"
        ("#/$defs/~01", {"type": "boolean"}),  # "~01" is "~1", not "/" (~1 is unescaped before ~0)
        ("#/$defs/a%2Fb", {"type": "string"}),  # a URI fragment: percent-decoded first
        ("#/$defs/with%20space", {"type": "null"}),
        ("#/$defs/Pair/prefixItems/1", {"type": "number"}),  # an array index
        ("#", ROOT),
    ],
)
def test_pointer_escapes_and_array_indices(ref, expected):
    assert lookup(ROOT, ref) == expected


def test_escape_token_round_trips():
    for name in ("a/b", "t~x", "~1", "Tree"):
        ref = "#/$defs/" + escape_token(name)
        assert pointer_tokens(ref) == ("$defs", name)
        assert lookup(ROOT, ref) is ROOT["$defs"][name]


@pytest.mark.parametrize(
    "ref, error, fragment",
    [
        ("#/$defs/Missing", DanglingRef, "$ref '#/$defs/Missing' points nowhere: '#/$defs' has no key 'Missing'"),
        ("#/$defs/a~1b/type/x", DanglingRef, "'#/$defs/a~1b/type' is str 'string', with nothing inside"),
        (
            "#/$defs/Pair/prefixItems/2",
            DanglingRef,
            "'#/$defs/Pair/prefixItems' is a list of 2 item(s), with no index '2'",
        ),
        ("#/$defs/Pair/prefixItems/01", DanglingRef, "with no index '01'"),  # RFC 6901: no leading zeros
        ("#/$defs/Pair/prefixItems/-", DanglingRef, "with no index '-'"),
        ("other.json#/$defs/A", RemoteRef, "$ref 'other.json#/$defs/A' is not local"),
        ("https://example.com/schema", RemoteRef, "$ref 'https://example.com/schema' is not local"),
        ("#Anchor", RemoteRef, "$ref '#Anchor' is not local"),
        (5, RefError, "$ref 5 is not a string"),
    ],
)
def test_a_reference_that_cannot_be_followed_is_an_error_naming_the_pointer(ref, error, fragment):
    with pytest.raises(error) as caught:
        lookup(ROOT, ref)
    assert fragment in str(caught.value)
    assert caught.value.ref == ref
    assert isinstance(caught.value, ValueError)


def test_lookup_schema_refuses_what_is_not_a_schema():
    with pytest.raises(DanglingRef, match=r"\$ref '#/required' points to list \['x'\], not to a schema"):
        lookup_schema(ROOT, "#/required")
    assert lookup_schema({"$defs": {"Any": True}}, "#/$defs/Any") is True


def test_follow_merges_siblings_over_the_target_along_a_chain():
    schema, ref = follow({"$ref": "#/$defs/Alias", "title": "Mine"}, ROOT)
    assert ref == "#/$defs/Pair"  # the last reference passed
    assert schema == {**ROOT["$defs"]["Pair"], "description": "an alias", "title": "Mine"}
    plain = {"type": "string"}
    assert follow(plain, ROOT) == (plain, None)


def test_follow_unwraps_a_single_all_of_only_when_asked():
    wrapped = {"$ref": "#/$defs/Wrapped"}
    assert "allOf" in follow(wrapped, ROOT)[0]
    schema, ref = follow(wrapped, ROOT, single_all_of=True)
    assert schema["properties"] == ROOT["$defs"]["Tree"]["properties"]
    assert schema["description"] == "a wrapped tree" and ref == "#/$defs/Tree"


@pytest.mark.parametrize(
    "start, chain",
    [
        ("#/$defs/A", "#/$defs/A → #/$defs/B → #/$defs/C → #/$defs/A"),
        ("#/$defs/Self", "#/$defs/Self → #/$defs/Self"),
    ],
)
def test_a_cycle_of_references_is_detected(start, chain):
    with pytest.raises(CyclicRef) as caught:
        follow({"$ref": start}, ROOT)
    assert chain in str(caught.value)


def test_a_recursive_schema_is_not_a_cycle():
    schema, ref = follow({"$ref": "#/$defs/Tree"}, ROOT)
    assert ref == "#/$defs/Tree" and schema["type"] == "object"


def test_a_long_chain_is_followed_to_its_end():
    defs = {f"R{i}": {"$ref": f"#/$defs/R{i + 1}"} for i in range(200)}
    defs["R200"] = {"type": "integer"}
    assert follow({"$ref": "#/$defs/R0"}, {"$defs": defs}) == ({"type": "integer"}, "#/$defs/R200")
