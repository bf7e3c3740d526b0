"""Security regressions of issue 14: untrusted spec files and CSV formula injection.

(The MCP HTTP authentication and Host/Origin checks are in ``tests/test_mcp/test_auth.py``.)
"""

from __future__ import annotations

import csv
import json
import re
import sys
import uuid
import warnings

import pytest

from workbench.log import LOG_COLUMNS, ExecutionLog
from workbench.registry import ToolRegistry
from workbench.tools import DecoratedFunctionTool, NoImplementationError, SpecOnlyTool
from workbench.types import ToolResult

# -- from_spec_dict imports nothing unless the caller trusts the refs --------------------------------------

_TOOL_MODULE = '''\
import pathlib
pathlib.Path({marker!r}).write_text("imported")

from workbench import tool


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return "sunny in " + city
'''


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A fresh package ``<pkg>.tools`` (and a sibling top-level ``<pkg>_evil``) whose import writes a marker file.

    Returns ``(package name, {module name: marker path})``; the modules are removed from
    ``sys.modules`` afterwards so every test imports them afresh.
    """
    package = f"wbsec_{uuid.uuid4().hex[:10]}"
    root = tmp_path / "importable"
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    markers = {}
    for module, path in (
        (f"{package}.tools", root / package / "tools.py"),
        (f"{package}_evil", root / f"{package}_evil.py"),
    ):
        markers[module] = tmp_path / f"imported-{module}"
        path.write_text(_TOOL_MODULE.format(marker=str(markers[module])))
    monkeypatch.syspath_prepend(str(root))
    yield package, markers
    for name in [m for m in sys.modules if m == package or m.startswith((package + ".", package + "_"))]:
        del sys.modules[name]


def _spec_file(*refs: str) -> dict:
    """What a spec file on disk holds (JSON), with one entry per ref."""
    entries = [
        {
            "name": "get_weather" if i == 0 else f"get_weather_{i}",
            "ref": ref,
            "spec": {
                "name": "get_weather",
                "description": "Weather of a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
        for i, ref in enumerate(refs)
    ]
    return json.loads(json.dumps({"tools": entries}))


def test_from_spec_dict_does_not_resolve_os_system():
    data = {"tools": [{"name": "get_weather", "ref": "os:system"}]}
    with pytest.warns(UserWarning, match=r"os:system"):
        registry = ToolRegistry.from_spec_dict(data)
    item = registry.get_tool("get_weather")
    assert isinstance(item, SpecOnlyTool) and not item.has_implementation
    assert "spec-only (ref not trusted: os:system)" in repr(item)
    assert "spec-only (ref not trusted: os:system)" in item.get_display_properties()["Type"]
    with pytest.raises(NoImplementationError, match=r"ref 'os:system'.*not trusted.*trust_refs=True"):
        item()
    result = registry.call("get_weather", {})
    assert result.status == "error" and "no implementation" in result.error
    assert registry.to_spec_dict() == data  # the ref is kept, no spec is invented
    with pytest.raises(ValueError, match="not trusted"):
        registry.reload("get_weather")  # hot reload must not import it either


def test_untrusted_module_is_not_imported(planted):
    package, markers = planted
    module = f"{package}.tools"
    data = _spec_file(f"{module}:get_weather")
    with pytest.warns(UserWarning, match=rf"{module}:get_weather") as caught:
        registry = ToolRegistry.from_spec_dict(data)
    assert "trust_refs" in str(caught[0].message)
    assert not markers[module].exists(), "loading the spec file ran the module's top level"
    assert module not in sys.modules
    item = registry.get_tool("get_weather")
    assert isinstance(item, SpecOnlyTool) and item.spec.parameters["required"] == ["city"]
    assert registry.get_tool_ref("get_weather") == f"{module}:get_weather"
    saved = registry.to_spec_dict()
    assert [(e["name"], e["ref"]) for e in saved["tools"]] == [("get_weather", f"{module}:get_weather")]
    assert saved["tools"][0]["spec"]["parameters"] == data["tools"][0]["spec"]["parameters"]
    with pytest.warns(UserWarning, match="not trusted"):
        assert ToolRegistry.from_spec_dict(saved).to_spec_dict() == saved  # saving again loses nothing
    assert registry.call("get_weather", {"city": "Oslo"}, synthetic=True).status == "success"


@pytest.mark.parametrize("trust", ["all", "package", "module", "list"])
def test_trusted_refs_are_resolved(planted, trust):
    package, markers = planted
    module = f"{package}.tools"
    trust_refs = {"all": True, "package": [package], "module": (module,), "list": ["elsewhere", package]}[trust]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left unresolved → no warning
        registry = ToolRegistry.from_spec_dict(_spec_file(f"{module}:get_weather"), trust_refs=trust_refs)
    assert markers[module].exists()
    item = registry.get_tool("get_weather")
    assert isinstance(item, DecoratedFunctionTool)
    assert registry.call("get_weather", {"city": "Oslo"}).value == "sunny in Oslo"


@pytest.mark.parametrize("prefix", ["wbsec", "{package}.tool", "{package}.tools.sub", "{package}_", "other", ""])
def test_non_matching_prefixes_resolve_nothing(planted, prefix):
    package, markers = planted
    module = f"{package}.tools"
    with pytest.warns(UserWarning, match="not trusted"):
        registry = ToolRegistry.from_spec_dict(
            _spec_file(f"{module}:get_weather"), trust_refs=[prefix.format(package=package)]
        )
    assert not markers[module].exists()
    assert isinstance(registry.get_tool("get_weather"), SpecOnlyTool)


def test_prefix_matches_whole_dotted_components(planted):
    package, markers = planted
    good, evil = f"{package}.tools", f"{package}_evil"
    with pytest.warns(UserWarning) as caught:
        registry = ToolRegistry.from_spec_dict(
            _spec_file(f"{good}:get_weather", f"{evil}:get_weather"), trust_refs=[package]
        )
    assert markers[good].exists() and not markers[evil].exists()
    assert isinstance(registry.get_tool("get_weather"), DecoratedFunctionTool)
    assert isinstance(registry.get_tool("get_weather_1"), SpecOnlyTool)
    text = " ".join(str(w.message) for w in caught)
    assert f"{evil}:get_weather" in text and f"{good}:get_weather" not in text


def test_trust_refs_must_be_a_bool_or_prefixes():
    with pytest.raises(TypeError, match="trust_refs"):
        ToolRegistry.from_spec_dict({"tools": []}, trust_refs="myproj")  # a bare string is a common slip
    with pytest.raises(TypeError, match="trust_refs"):
        ToolRegistry.from_spec_dict({"tools": []}, trust_refs=[1])


# -- CSV export: no spreadsheet formulas ---------------------------------------------------------------------

_FORMULAS = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "\tindented",
    "\rreturn",
    "=cmd|' /C calc'!A0",
]


def _logged(log: ExecutionLog, use_id: str, error: str, latency: float) -> None:
    result = ToolResult(
        toolUseId=use_id,
        status="error",
        content=[{"text": error}],
        metadata={"tool_name": "calc", "latency_ms": latency, "error": error, "error_type": "ValueError"},
    )
    log.append(result, {"toolUseId": use_id, "name": "calc", "input": {"x": error}})


def test_csv_export_escapes_formula_cells(tmp_path):
    log = ExecutionLog()
    for i, text in enumerate(_FORMULAS):
        _logged(log, text, text, -1.5 - i)  # a negative latency: a number, not a formula
    _logged(log, "plain", "plain error", 2.0)
    target = tmp_path / "calls.csv"
    assert log.export(target) == len(_FORMULAS) + 1
    with open(target, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == list(LOG_COLUMNS)
    for row, text in zip(rows, _FORMULAS):
        assert row["tool_use_id"] == "'" + text
        assert row["error"] == "'" + text
    for row in rows:
        for column, cell in row.items():
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), (column, cell)
            if column != "latency_ms":
                assert not cell.startswith("-"), (column, cell)
    assert [float(r["latency_ms"]) for r in rows] == [-1.5 - i for i in range(len(_FORMULAS))] + [2.0]
    assert [int(r["id"]) for r in rows] == list(range(1, len(rows) + 1))
    assert rows[-1]["tool_use_id"] == "plain" and rows[-1]["error"] == "plain error"
    assert json.loads(rows[0]["input_json"]) == {"x": _FORMULAS[0]}  # JSON cells start with '{' and stay JSON


# -- a trusted prefix yields only objects defined under it (issue 18, item 1) ------------------------------

_CANARY_INIT = '''\
import json
import os
import pathlib

from workbench import tool
from workbench.tools import BaseTool
from {other}.helpers import shout  # a function re-exported from another package


@tool
def greet(name: str) -> str:
    """Greet someone."""
    return "hello " + name


class Lookup:
    @staticmethod
    def find(key: str) -> str:
        """Find a key."""
        return "found " + key


lookup = Lookup()
'''

_CANARY_TOOLS = '''\
from workbench import tool


@tool
def f(x: int) -> int:
    """Double x."""
    return 2 * x
'''

_OTHER_HELPERS = '''\
def shout(text: str) -> str:
    """Shout."""
    return text.upper()
'''


@pytest.fixture
def canary(tmp_path, monkeypatch):
    """A package ``<canary>`` that imports os, pathlib, json and a function of package ``<other>``."""
    name, other = f"canary_{uuid.uuid4().hex[:10]}", f"other_{uuid.uuid4().hex[:10]}"
    root = tmp_path / "importable"
    (root / name).mkdir(parents=True)
    (root / other).mkdir()
    (root / name / "__init__.py").write_text(_CANARY_INIT.format(other=other))
    (root / name / "tools.py").write_text(_CANARY_TOOLS)
    (root / other / "__init__.py").write_text("")
    (root / other / "helpers.py").write_text(_OTHER_HELPERS)
    monkeypatch.syspath_prepend(str(root))
    yield name, other
    for module in [m for m in sys.modules if m.split(".")[0] in (name, other)]:
        del sys.modules[module]


def _load(ref: str, prefix: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry = ToolRegistry.from_spec_dict({"tools": [{"name": "t", "ref": ref}]}, trust_refs=[prefix])
    return registry.get_tool("t"), [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "attr, defined_in",
    [
        ("os.system", "posix"),
        ("os.remove", "posix"),
        ("pathlib.Path.write_text", "pathlib"),
        ("pathlib.Path", "pathlib"),
        ("json.loads", "json"),
        ("shout", "{other}.helpers"),
        ("tool", "workbench.tools"),
        ("BaseTool", "workbench.tools"),
        ("os", "os"),
        ("greet.__class__", "workbench.tools"),
        ("Lookup.__init__", None),
        ("greet.tool_func.__globals__", None),
    ],
)
def test_trusted_prefix_refuses_objects_defined_elsewhere(canary, attr, defined_in):
    name, other = canary
    ref = f"{name}:{attr}"
    item, warned = _load(ref, name)
    assert isinstance(item, SpecOnlyTool) and not item.has_implementation, f"{ref} resolved to {item!r}"
    reason = (
        f"defined in '{defined_in.format(other=other)}', not under '{name}'" if defined_in else "has no defining module"
    )
    assert f"ref not trusted: {ref}" in item.status_text and reason in item.status_text
    assert reason in repr(item) and reason in item.get_display_properties()["Type"]
    assert any(ref in w and reason in w for w in warned), warned
    with pytest.raises(NoImplementationError, match=re.escape(reason)):
        item()
    assert item.untrusted_ref == ref


def test_trusted_submodule_prefix_refuses_what_its_module_imports(canary):
    name, _ = canary
    item, _ = _load(f"{name}.tools:tool", f"{name}.tools")
    assert isinstance(item, SpecOnlyTool)
    assert f"defined in 'workbench.tools', not under '{name}.tools'" in item.status_text


@pytest.mark.parametrize(
    "attr, call, expected",
    [
        ("greet", {"name": "Ada"}, "hello Ada"),
        ("Lookup.find", {"key": "k"}, "found k"),
        ("lookup.find", {"key": "k"}, "found k"),
    ],
)
def test_trusted_prefix_still_resolves_what_is_defined_under_it(canary, attr, call, expected):
    name, _ = canary
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry = ToolRegistry.from_spec_dict({"tools": [{"name": "t", "ref": f"{name}:{attr}"}]}, trust_refs=[name])
        sub = ToolRegistry.from_spec_dict(
            {"tools": [{"name": "f", "ref": f"{name}.tools:f"}]}, trust_refs=[f"{name}.tools"]
        )
    assert registry.call("t", call).value == expected
    assert isinstance(sub.get_tool("f"), DecoratedFunctionTool) and sub.call("f", {"x": 2}).value == 4


def test_trust_refs_true_still_trusts_everything(canary):
    name, _ = canary
    registry = ToolRegistry.from_spec_dict({"tools": [{"name": "t", "ref": f"{name}:shout"}]}, trust_refs=True)
    assert registry.get_tool("t").has_implementation
