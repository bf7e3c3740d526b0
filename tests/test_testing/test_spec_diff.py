"""spec_diff and spec snapshots (issue 10 §3): each change classified breaking or compatible, with a
JSON pointer and a one-line explanation."""

from __future__ import annotations

import json
from typing import Annotated, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from workbench import ToolRegistry, ToolSpec, tool
from workbench.testing import SpecDiff, check_spec_snapshot, spec_diff, write_spec_snapshot


def spec(params: dict, required=(), returns=None, **extra) -> ToolSpec:
    schema = {"type": "object", "properties": params}
    if required:
        schema["required"] = list(required)
    return ToolSpec(
        name="t", description=extra.pop("description", "A tool."), parameters=schema, returns=returns or {}, **extra
    )


INT = {"type": "integer"}
STR = {"type": "string"}

# (old spec, new spec, expected (pointer, kind, breaking) of every change)
CASES = {
    "parameter removed": (
        spec({"a": INT, "b": INT}),
        spec({"a": INT}),
        [("/parameters/properties/b", "parameter-removed", True)],
    ),
    "parameter renamed": (
        spec({"a": INT, "b": STR}, ["b"]),
        spec({"a": INT, "c": STR}, ["c"]),
        [("/parameters/properties/b", "parameter-renamed", True)],
    ),
    "new required parameter": (
        spec({"a": INT}),
        spec({"a": INT, "b": INT}, ["b"]),
        [("/parameters/properties/b", "new-required-parameter", True)],
    ),
    "optional parameter added": (
        spec({"a": INT}),
        spec({"a": INT, "b": INT}),
        [("/parameters/properties/b", "optional-parameter-added", False)],
    ),
    "parameter made required": (
        spec({"a": INT}),
        spec({"a": INT}, ["a"]),
        [("/parameters/required", "parameter-now-required", True)],
    ),
    "parameter made optional": (
        spec({"a": INT}, ["a"]),
        spec({"a": INT}),
        [("/parameters/required", "parameter-now-optional", False)],
    ),
    "type narrowed": (
        spec({"x": {"type": "number"}}),
        spec({"x": INT}),
        [("/parameters/properties/x/type", "type-narrowed", True)],
    ),
    "type widened": (
        spec({"x": INT}),
        spec({"x": {"type": "number"}}),
        [("/parameters/properties/x/type", "type-widened", False)],
    ),
    "type changed": (spec({"x": INT}), spec({"x": STR}), [("/parameters/properties/x/type", "type-narrowed", True)]),
    "null no longer accepted": (
        spec({"x": {"anyOf": [INT, {"type": "null"}]}}),
        spec({"x": INT}),
        [("/parameters/properties/x", "type-narrowed", True)],
    ),
    "null now accepted": (
        spec({"x": INT}),
        spec({"x": {"anyOf": [INT, {"type": "null"}], "default": None}}),
        [
            ("/parameters/properties/x/default", "default-changed", False),
            ("/parameters/properties/x/anyOf/1", "type-widened", False),
        ],
    ),
    "union variant removed": (
        spec({"x": {"anyOf": [INT, STR]}}),
        spec({"x": {"anyOf": [INT]}}),
        [("/parameters/properties/x", "type-narrowed", True)],
    ),
    "enum value removed": (
        spec({"m": {"enum": ["a", "b"]}}),
        spec({"m": {"enum": ["a"]}}),
        [("/parameters/properties/m/enum", "enum-value-removed", True)],
    ),
    "enum value added": (
        spec({"m": {"enum": ["a"]}}),
        spec({"m": {"enum": ["a", "b"]}}),
        [("/parameters/properties/m/enum", "enum-value-added", False)],
    ),
    "enum introduced": (
        spec({"m": STR}),
        spec({"m": {"type": "string", "enum": ["a"]}}),
        [("/parameters/properties/m/enum", "enum-added", True)],
    ),
    "maximum lowered": (
        spec({"n": {"type": "integer", "maximum": 10}}),
        spec({"n": {"type": "integer", "maximum": 5}}),
        [("/parameters/properties/n/maximum", "constraint-tightened", True)],
    ),
    "maximum raised": (
        spec({"n": {"type": "integer", "maximum": 5}}),
        spec({"n": {"type": "integer", "maximum": 10}}),
        [("/parameters/properties/n/maximum", "constraint-loosened", False)],
    ),
    "inclusive to exclusive": (
        spec({"n": {"type": "integer", "minimum": 0}}),
        spec({"n": {"type": "integer", "exclusiveMinimum": 0}}),
        [("/parameters/properties/n/exclusiveMinimum", "constraint-tightened", True)],
    ),
    "minLength added": (
        spec({"s": STR}),
        spec({"s": {"type": "string", "minLength": 2}}),
        [("/parameters/properties/s/minLength", "constraint-tightened", True)],
    ),
    "maxItems removed": (
        spec({"l": {"type": "array", "items": INT, "maxItems": 3}}),
        spec({"l": {"type": "array", "items": INT}}),
        [("/parameters/properties/l/maxItems", "constraint-loosened", False)],
    ),
    "pattern added": (
        spec({"s": STR}),
        spec({"s": {"type": "string", "pattern": "^[a-z]+$"}}),
        [("/parameters/properties/s/pattern", "constraint-tightened", True)],
    ),
    "pattern removed": (
        spec({"s": {"type": "string", "pattern": "^[a-z]+$"}}),
        spec({"s": STR}),
        [("/parameters/properties/s/pattern", "constraint-loosened", False)],
    ),
    "format changed": (
        spec({"s": {"type": "string", "format": "date"}}),
        spec({"s": {"type": "string", "format": "date-time"}}),
        [("/parameters/properties/s/format", "constraint-changed", True)],
    ),
    "multipleOf loosened": (
        spec({"n": {"type": "integer", "multipleOf": 4}}),
        spec({"n": {"type": "integer", "multipleOf": 2}}),
        [("/parameters/properties/n/multipleOf", "constraint-loosened", False)],
    ),
    "items must be unique": (
        spec({"l": {"type": "array", "items": INT}}),
        spec({"l": {"type": "array", "items": INT, "uniqueItems": True}}),
        [("/parameters/properties/l/uniqueItems", "constraint-tightened", True)],
    ),
    "array item type": (
        spec({"l": {"type": "array", "items": {"type": "number"}}}),
        spec({"l": {"type": "array", "items": INT}}),
        [("/parameters/properties/l/items/type", "type-narrowed", True)],
    ),
    "extra keys refused": (
        ToolSpec(
            name="t",
            description="A tool.",
            parameters={"type": "object", "properties": {}, "additionalProperties": True},
        ),
        spec({}),
        [("/parameters/additionalProperties", "constraint-tightened", True)],
    ),
    "description changed": (
        spec({"a": {"type": "integer", "description": "one"}}, description="Old."),
        spec({"a": {"type": "integer", "description": "two"}}, description="New."),
        [
            ("/description", "description-changed", False),
            ("/parameters/properties/a/description", "description-changed", False),
        ],
    ),
    "return type changed": (
        spec({}, returns=INT),
        spec({}, returns=STR),
        [("/returns/type", "return-type-changed", True)],
    ),
    "return type declared": (spec({}), spec({}, returns=INT), [("/returns/type", "return-type-changed", True)]),
    "result property removed": (
        spec({}, returns={"type": "object", "properties": {"a": INT, "b": INT}}),
        spec({}, returns={"type": "object", "properties": {"a": INT}}),
        [("/returns/properties/b", "property-removed", True)],
    ),
    "result property added": (
        spec({}, returns={"type": "object", "properties": {"a": INT}}),
        spec({}, returns={"type": "object", "properties": {"a": INT, "b": INT}}),
        [("/returns/properties/b", "property-added", False)],
    ),
    "result enum grows": (
        spec({}, returns={"enum": ["a"]}),
        spec({}, returns={"enum": ["a", "b"]}),
        [("/returns/enum", "enum-value-added", True)],
    ),
    "permission stricter": (spec({}), spec({}, permission="ask_user"), [("/permission", "permission-changed", True)]),
    "permission looser": (spec({}, permission="ask_user"), spec({}), [("/permission", "permission-changed", False)]),
    "unclassifiable keyword": (
        spec({"x": {"type": "integer", "not": {"const": 3}}}),
        spec({"x": {"type": "integer", "not": {"const": 4}}}),
        [("/parameters/properties/x/not", "schema-changed", True)],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_change_is_classified(name):
    old, new, expected = CASES[name]
    diff = spec_diff(old, new)
    assert sorted((c.pointer, c.kind, c.breaking) for c in diff) == sorted(expected), diff.text()
    for change in diff:
        assert "\n" not in change.message and change.message
        assert change.tool == "t"


def test_identical_specs_have_no_changes():
    assert not spec_diff(spec({"a": INT}, ["a"]), spec({"a": INT}, ["a"]))
    assert spec_diff(spec({"a": INT}), spec({"a": INT})).summary() == "no spec changes"


def test_breaking_changes_come_first_with_readable_lines():
    diff = spec_diff(spec({"a": INT}, description="Old."), spec({"b": STR}, ["b"], description="New."))
    assert [c.breaking for c in diff] == [True, True, False]
    assert diff.text().splitlines() == [
        "2 breaking, 1 compatible change(s)",
        "BREAKING   t/parameters/properties/a: parameter 'a' removed: calls that send it are refused (or it is ignored)",
        "BREAKING   t/parameters/properties/b: new required parameter 'b' (string): calls without it are refused",
        "compatible t/description: description changed",
    ]
    assert diff.is_breaking and len(diff.breaking) == 2 and len(diff.compatible) == 1


# -- function tools (the schemas pydantic generates) -------------------------------------------------------------
class Item(BaseModel):
    name: str
    qty: int = 1


class StrictItem(BaseModel):
    name: str
    qty: Annotated[int, Field(ge=1)] = 1


class Tree(BaseModel):
    label: str
    children: list["Tree"] = []


class WideTree(BaseModel):
    label: Optional[str]
    children: list["WideTree"] = []


def test_function_tools_through_refs_and_recursion():
    @tool
    def order(item: Item, tree: Tree, note: Optional[str] = None, mode: Literal["a", "b"] = "a") -> int:
        """Order."""
        return 1

    old = order

    @tool
    def order(item: StrictItem, tree: WideTree, note: str = "", mode: Literal["a", "b", "c"] = "a") -> int:  # noqa: F811
        """Order."""
        return 1

    diff = spec_diff(old, order)
    found = {(c.pointer, c.kind, c.breaking) for c in diff}
    assert ("/parameters/properties/item/properties/qty/minimum", "constraint-tightened", True) in found
    assert ("/parameters/properties/tree/properties/label/anyOf/1", "type-widened", False) in found
    assert ("/parameters/properties/note", "type-narrowed", True) in found  # null no longer accepted
    assert ("/parameters/properties/mode/enum", "enum-value-added", False) in found
    assert ("/parameters/properties/note/default", "default-changed", False) in found


def test_tool_removed_added_and_renamed_across_registries():
    def make(name, body_type=int):
        def f(a: body_type) -> int:  # type: ignore[valid-type]
            """F."""
            return 1

        return tool(f, name=name)

    old = ToolRegistry([make("keep"), make("gone", str), make("old_name")])
    new = ToolRegistry([make("keep"), make("new_name"), make("fresh", float)])
    diff = spec_diff(old, new)
    assert {(c.tool, c.kind, c.breaking) for c in diff} == {
        ("gone", "tool-removed", True),
        ("old_name", "tool-renamed", True),
        ("fresh", "tool-added", False),
    }
    renamed = next(c for c in diff if c.kind == "tool-renamed")
    assert renamed.message == "tool renamed to 'new_name': calls by the old name fail (tool not found)"


def test_spec_dicts_files_and_lists_are_accepted(tmp_path):
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @tool(name="add")
    def add2(a: int, b: int, c: int) -> int:
        """Add."""
        return a + b + c

    registry = ToolRegistry([add])
    document = registry.to_spec_dict()
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(document))
    for old in (registry, add, add.spec, add.spec.to_json(), document, path, str(path), [add]):
        diff = spec_diff(old, add2)
        assert [c.kind for c in diff] == ["new-required-parameter"], old
    with pytest.raises(TypeError, match="spec_diff compares registries"):
        spec_diff(3, add)
    with pytest.raises(ValueError, match="is not a file"):
        spec_diff(tmp_path / "missing.json", add)


def test_report_objects_render():
    diff = spec_diff(spec({"a": {"type": "integer", "description": "<script>x</script>"}}), spec({}))
    html = diff._repr_html_()
    assert "<script>" not in html and "breaking" in html and "/parameters/properties/a" in html
    frame = diff.to_dataframe()
    assert list(frame.columns) == ["tool", "severity", "pointer", "kind", "message"]
    assert isinstance(diff, SpecDiff) and repr(diff) == "<SpecDiff: 1 breaking, 0 compatible change(s)>"


# -- snapshots -------------------------------------------------------------------------------------------------------
def test_snapshot_round_trip(tmp_path):
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    path = tmp_path / "tool_specs.json"
    assert write_spec_snapshot(path, ToolRegistry([add])) is None  # a first snapshot: nothing to compare
    assert json.loads(path.read_text()) == ToolRegistry([add]).to_spec_dict()
    assert not check_spec_snapshot(path, ToolRegistry([add]))

    @tool(name="add")
    def add_v2(a: int) -> int:
        """Add."""
        return a

    diff = check_spec_snapshot(path, ToolRegistry([add_v2]))
    assert [c.kind for c in diff] == ["parameter-removed"]
    recorded = write_spec_snapshot(path, ToolRegistry([add_v2]))
    assert [c.kind for c in recorded] == ["parameter-removed"]
    assert not check_spec_snapshot(path, ToolRegistry([add_v2]))
