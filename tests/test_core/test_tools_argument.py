"""One reading of a ``tools`` argument (``workbench.registry.tool_list``) behind every entry point that
takes one: ``as_tool_registry`` (executors), the agent loop, ``run_evals``' variants and
``workbench.models.tool_specs`` — each shape gives the same tools everywhere."""

from __future__ import annotations

import pytest

from workbench import ToolRegistry, ToolSpec, tool
from workbench.agent._loop import _registry
from workbench.evals._run import _variants
from workbench.models import tool_specs
from workbench.registry import as_tool_registry


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


SPEC_DICT = {
    "name": "weather",
    "description": "The weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
SPEC = ToolSpec(**{**SPEC_DICT, "name": "forecast"})

SHAPES = {
    "one tool": (lambda: lookup, ["lookup"]),
    "a list": (lambda: [lookup, SPEC], ["lookup", "forecast"]),
    "a tuple": (lambda: (lookup,), ["lookup"]),
    "a generator": (lambda: (t for t in [lookup, SPEC_DICT]), ["lookup", "weather"]),
    "a name → tool mapping": (lambda: {"a": lookup, "b": SPEC_DICT}, ["lookup", "weather"]),
    "one spec dict": (lambda: SPEC_DICT, ["weather"]),
    "one ToolSpec": (lambda: SPEC, ["forecast"]),
    "a list of spec dicts": (lambda: [SPEC_DICT], ["weather"]),
    "a registry": (lambda: ToolRegistry([lookup]), ["lookup"]),
}


def _names_everywhere(make):
    return {
        "as_tool_registry": list(as_tool_registry(make()).registry),
        "agent loop": list(_registry(make()).registry),
        "run_evals variants": list(_variants({"v": make()}, None, None)["v"].registry),
        "tool_specs": [s.name for s in tool_specs(make())],
    }


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_entry_point_reads_a_tools_argument_the_same_way(shape):
    make, expected = SHAPES[shape]
    assert _names_everywhere(make) == dict.fromkeys(
        ["as_tool_registry", "agent loop", "run_evals variants", "tool_specs"], expected
    )


def test_specs_without_implementation_answer_with_generated_values_only_where_asked():
    assert as_tool_registry([SPEC_DICT], synthesize_specs=True).synthetic is True
    assert as_tool_registry([SPEC_DICT]).synthetic is False
    assert as_tool_registry([lookup], synthesize_specs=True).synthetic is False
    assert _registry([SPEC_DICT]).synthetic is True


def test_what_cannot_be_a_tool_is_a_clear_error():
    with pytest.raises(TypeError, match="Expected a ToolRegistry"):
        as_tool_registry(None)
    with pytest.raises(Exception, match=r"Cannot register 42 \(a builtins.int\): expected a workbench tool"):
        as_tool_registry(42)
    with pytest.raises(TypeError, match="cannot offer 42 to a model"):
        tool_specs([42])
