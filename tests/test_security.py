"""Security regressions of issue 14: untrusted spec files and CSV formula injection.

(The MCP HTTP authentication and Host/Origin checks are in ``tests/test_mcp_auth.py``.)
"""

from __future__ import annotations

import csv
import json
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
    for module, path in ((f"{package}.tools", root / package / "tools.py"), (f"{package}_evil", root / f"{package}_evil.py")):
        markers[module] = tmp_path / f"imported-{module}"
        path.write_text(_TOOL_MODULE.format(marker=str(markers[module])))
    monkeypatch.syspath_prepend(str(root))
    yield package, markers
    for name in [m for m in sys.modules if m == package or m.startswith((package + ".", package + "_"))]:
        del sys.modules[name]


def _spec_file(*refs: str) -> dict:
    """What a spec file on disk holds (JSON), with one entry per ref."""
    entries = [{"name": "get_weather" if i == 0 else f"get_weather_{i}", "ref": ref,
                "spec": {"name": "get_weather", "description": "Weather of a city.",
                         "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                        "required": ["city"]}}}
               for i, ref in enumerate(refs)]
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
        registry = ToolRegistry.from_spec_dict(_spec_file(f"{module}:get_weather"), trust_refs=[prefix.format(package=package)])
    assert not markers[module].exists()
    assert isinstance(registry.get_tool("get_weather"), SpecOnlyTool)


def test_prefix_matches_whole_dotted_components(planted):
    package, markers = planted
    good, evil = f"{package}.tools", f"{package}_evil"
    with pytest.warns(UserWarning) as caught:
        registry = ToolRegistry.from_spec_dict(_spec_file(f"{good}:get_weather", f"{evil}:get_weather"),
                                               trust_refs=[package])
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

_FORMULAS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1:A2)", "\tindented", "\rreturn",
             "=cmd|' /C calc'!A0"]


def _logged(log: ExecutionLog, use_id: str, error: str, latency: float) -> None:
    result = ToolResult(toolUseId=use_id, status="error", content=[{"text": error}],
                        metadata={"tool_name": "calc", "latency_ms": latency, "error": error, "error_type": "ValueError"})
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
