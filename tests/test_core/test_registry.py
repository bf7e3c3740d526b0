"""ToolRegistry: registration, lookup, refs, modules, spec dicts, reload, synthetic."""

from __future__ import annotations

import importlib
import textwrap

import jsonschema
import pytest

from tests import sample_tools
from workbench import SpecOnlyTool, ToolRegistry, ToolSpec, tool


@tool
def my_tool(x: int) -> int:
    """Double."""
    return 2 * x


def test_normalised_name_conflict():
    registry = ToolRegistry([my_tool])

    @tool(name="my-tool")
    def other(x: int) -> int:
        """Other."""
        return x

    with pytest.raises(ValueError, match="conflicts with registered tool 'my_tool'"):
        registry.register(other)
    registry.register(other, replace=True)
    assert registry.list_tools() == ["my-tool"]


def test_key_error_lists_tools_and_suggests():
    registry = ToolRegistry([my_tool, sample_tools.calculate])
    with pytest.raises(KeyError) as info:
        registry.get_tool("my_tol")
    assert str(info.value) == "Unknown tool 'my_tol'. Did you mean 'my_tool'? Available tools: 'my_tool', 'calculate'."
    with pytest.raises(KeyError, match="Did you mean 'my_tool'"):
        registry.get_tool("my-tool")  # normalised match
    with pytest.raises(KeyError, match="Available tools: 'my_tool', 'calculate'.$"):
        registry.get_tool("zzzzzz")


def test_process_tools_functions_modules_refs_and_paths(tmp_path):
    def plain(a: int) -> int:
        """A plain function."""
        return a

    tool_file = tmp_path / "file_tools.py"
    tool_file.write_text(
        textwrap.dedent('''
        from workbench import tool

        @tool
        def from_file(x: str) -> str:
            """From a file."""
            return x
    ''')
    )
    registry = ToolRegistry()
    names = registry.process_tools([plain, sample_tools, "tests.sample_tools:calculate", str(tool_file)])
    assert names == ["plain", "search_database", "calculate", "calculate", "from_file"]
    assert registry.get_tool("from_file").is_dynamic
    assert registry.get_tool_ref("search_database") == "tests.sample_tools:search_database"
    assert registry.call("plain", {"a": 4}).json == 4


@pytest.mark.parametrize(
    "ref, message",
    [
        ("no_colon", "neither a registered tool, a 'module:function' reference nor an importable module"),
        ("missing.module:fn", "Cannot import tool reference 'missing.module:fn': ModuleNotFoundError"),
        ("tests.sample_tools:nope", "module 'tests.sample_tools' has no attribute 'nope'"),
        ("a:b:c", "expected 'package.module:function'"),
    ],
)
def test_bad_refs(ref, message):
    registry = ToolRegistry()
    with pytest.raises(ValueError, match=message):
        if ":" in ref:
            registry.register_tool_by_ref(ref)
        else:
            registry.process_tools([ref])


def test_module_without_tools():
    with pytest.raises(ValueError, match="defines no tools"):
        ToolRegistry().process_tools([importlib.import_module("json")])


def test_spec_dict_round_trip_with_refs_and_spec_only():
    registry = ToolRegistry()
    registry.register_tool_by_ref("tests.sample_tools:search_database")
    registry.register_spec(
        ToolSpec(
            name="ghost",
            description="Not written yet",
            parameters={"type": "object", "properties": {}},
            returns={"type": "integer", "minimum": 5, "maximum": 9},
        )
    )
    data = registry.to_spec_dict()
    assert [e.get("ref") for e in data["tools"]] == ["tests.sample_tools:search_database", None]
    again = ToolRegistry.from_spec_dict(data, trust_refs=["tests"])  # our own file: its refs are trusted
    assert again.to_spec_dict() == data
    assert isinstance(again.get_tool("ghost"), SpecOnlyTool)
    assert again.get_tool("search_database") is sample_tools.search_database
    with pytest.raises(ValueError, match="has neither a 'ref' nor a 'spec'"):
        ToolRegistry.from_spec_dict({"tools": [{"name": "x"}]})
    with pytest.raises(ValueError, match="A spec dict must look like"):
        ToolRegistry.from_spec_dict({"nope": []})


def test_spec_only_tools_synthetic_and_no_implementation():
    registry = ToolRegistry()
    registry.register_spec(
        {
            "name": "ghost",
            "description": "d",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            "returns": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "when": {"type": "string", "format": "date-time"},
                    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "ref": {"$ref": "#/$defs/Ref"},
                },
                "required": ["id", "when", "tags", "score", "ref"],
                "$defs": {
                    "Ref": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}, "required": ["n"]}
                },
            },
        }
    )
    failed = registry.call("ghost", {"q": "x"})
    assert failed.status == "error" and "no implementation" in failed.error and "synthetic=True" in failed.error
    first = registry.call("ghost", {"q": "x"}, synthetic=True)
    assert first.status == "success" and first.metadata["synthetic"] is True
    jsonschema.validate(first.json, registry.get_tool("ghost").spec.returns, format_checker=jsonschema.FormatChecker())
    assert registry.call("ghost", {"q": "x"}, synthetic=True).json == first.json  # deterministic
    assert registry.call("ghost", {"q": "y"}, synthetic=True).json != first.json  # seeded by the input
    invalid = registry.call("ghost", {"q": 1}, synthetic=True)
    assert invalid.status == "error" and "q: expected string" in invalid.error


def test_reload_picks_up_new_code(tmp_path, monkeypatch):
    package = tmp_path / "reload_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module = package / "tools_v.py"
    module.write_text('from workbench import tool\n\n@tool\ndef version() -> int:\n    """V."""\n    return 1\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = ToolRegistry()
    registry.register_tool_by_ref("reload_pkg.tools_v:version")
    assert registry.call("version").json == 1
    module.write_text('from workbench import tool\n\n@tool\ndef version() -> int:\n    """V."""\n    return 2\n')
    importlib.invalidate_caches()
    fresh = registry.reload("version")
    assert fresh.is_dynamic and registry.call("version").json == 2

    def local() -> int:
        """Local."""
        return 1

    with pytest.raises(ValueError, match="has no module reference"):
        ToolRegistry([local]).reload("local")


def test_provider_export_of_whole_registry():
    registry = ToolRegistry([my_tool, sample_tools.calculate])
    exported = registry.to_provider_format("anthropic")
    assert [t["name"] for t in exported] == ["my_tool", "calculate"]


def test_change_listeners():
    registry = ToolRegistry()
    events = []
    unsubscribe = registry.on_change(lambda event, name: events.append((event, name)))
    registry.register(my_tool)
    registry.register(my_tool, replace=True)
    registry.unregister("my_tool")
    unsubscribe()
    registry.register(my_tool)
    assert events == [("registered", "my_tool"), ("replaced", "my_tool"), ("unregistered", "my_tool")]


def test_register_rejects_garbage():
    with pytest.raises(ValueError, match="Cannot register 42"):
        ToolRegistry().register(42)
