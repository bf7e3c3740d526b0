"""Every tool object has ``.name`` (and keeps ``.tool_name``); ``BaseTool``'s forms are named by their shape."""

from __future__ import annotations

import pytest

from tests import adapter_sample_tools as samples
from workbench import BaseTool, SpecOnlyTool, ToolParameter, ToolRegistry, ToolSpec, derive, tool
from workbench.adapters import AdaptedTool, from_openapi
from workbench.adapters.openapi import OpenApiTool

DOC = {
    "openapi": "3.1.0",
    "info": {"title": "shop", "version": "1"},
    "paths": {
        "/items/{item_id}": {
            "get": {
                "operationId": "get_item",
                "summary": "One item.",
                "parameters": [{"name": "item_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            }
        }
    },
}


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


class Attributes(BaseTool):
    name = "attributes"
    description = "The execute form."
    parameters = [ToolParameter("x", "integer", "a number")]

    def execute(self, **kwargs):
        return kwargs["x"]


class Specced(BaseTool):
    spec = ToolSpec(name="specced", description="The spec form.")

    def __call__(self):
        return 1


class Properties(BaseTool):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.name = label  # a class of this form may keep its own name attribute

    @property
    def tool_spec(self):
        return {"name": "properties", "description": "The property form."}

    @property
    def tool_name(self):
        return "properties"

    def __call__(self):
        return 2


def _adapted():
    registry = ToolRegistry([samples.lc_multiply])
    (only,) = registry.list_tools()
    return registry.get_tool(only)


MAKERS = {
    "function": lambda: ping,
    "spec-only": lambda: SpecOnlyTool(ToolSpec(name="lookup", description="Look up.")),
    "openapi": lambda: from_openapi(DOC, base_url="http://127.0.0.1:9")[0],
    "adapted": _adapted,
    "derived": lambda: derive(ping, name="ping2"),
    "execute form": Attributes,
    "spec form": Specced,
}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_every_tool_object_has_a_name_equal_to_its_tool_name(kind):
    item = MAKERS[kind]()
    assert isinstance(item, BaseTool)
    assert item.name == item.tool_name == item.spec.name
    if kind == "openapi":
        assert isinstance(item, OpenApiTool) and item.name == "get_item"
    if kind == "adapted":
        assert isinstance(item, AdaptedTool) and item.name == "lc_multiply"


def test_a_class_that_sets_its_own_name_keeps_it():
    item = Properties("mine")
    assert (item.name, item.tool_name) == ("mine", "properties")


def test_an_incomplete_class_is_told_the_forms_by_their_shape():
    class Nothing(BaseTool):
        pass

    with pytest.raises(TypeError) as info:
        Nothing()
    message = str(info.value)
    for form in ("(property form)", "(execute form)", "(spec form)"):
        assert form in message
    for project in ("Spark", "Allos", "neurosurfer"):
        assert project not in message
