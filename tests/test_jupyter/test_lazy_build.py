"""``@tool`` defers the pydantic model, the JSON Schemas and the docstring until the spec is read —
and still refuses at decoration everything it refused before."""

from __future__ import annotations

import threading
from typing import Literal, Optional

import pytest
from pydantic import BaseModel
from typing_extensions import Annotated

from workbench import SequentialExecutor, ToolRegistry, ToolSpecError, tool
from workbench._schema import inspect_function


def _deferred(item) -> bool:
    return item.__dict__["_wb_spec"] is None


class Box(BaseModel):
    size: int


def test_a_plain_tool_is_built_without_its_schema_until_the_spec_is_read():
    def area(width: float, height: float, unit: Literal["m", "cm"] = "m", box: Optional[Box] = None) -> float:
        """Area of a rectangle.

        Args:
            width: the width
        """
        return width * height

    made = tool(area)
    assert _deferred(made)
    assert made.tool_name == "area" and _deferred(made)  # the name needs no schema
    registry = ToolRegistry([made])
    assert SequentialExecutor().call(registry, "area", {"width": 2, "height": 3}).value == 6.0
    assert not _deferred(made)
    eager = inspect_function(area)
    assert made.spec.parameters == eager.parameters and made.spec.returns == eager.returns
    assert made.spec.description == "Area of a rectangle." and made.spec.param_names == [
        "width",
        "height",
        "unit",
        "box",
    ]


class Unsupported:
    pass


@pytest.mark.parametrize(
    "annotation",
    [Unsupported, list[Unsupported], Optional[Unsupported], Annotated[Unsupported, "described"], Literal[object()]],
    ids=["class", "list-of", "optional", "annotated", "odd-literal"],
)
def test_what_cannot_be_a_schema_still_fails_at_decoration(annotation):
    def broken(x):  # type: ignore[no-untyped-def]
        """Broken."""
        return x

    broken.__annotations__ = {"x": annotation, "return": int}
    with pytest.raises(ToolSpecError, match="Tool 'broken'"):
        tool(broken)


def test_string_annotations_of_local_classes_resolve_although_the_build_comes_later():
    class Local(BaseModel):
        n: int

    def use_local(item: "Local") -> int:
        """Use a class local to this test."""
        return item.n

    made = tool(use_local)
    assert _deferred(made)
    assert made.spec.parameters["properties"]["item"]["$ref"].endswith("Local")


def test_threads_reading_the_spec_at_once_get_one_spec():
    def f(a: int) -> int:
        """F."""
        return a

    made = tool(f)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(made.spec)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(spec) for spec in seen}) == 1


def test_tools_with_a_context_explicit_parameters_or_odd_names_are_built_at_once():
    from workbench import ToolContext

    def with_context(a: int, tool_context: ToolContext) -> int:
        """Context."""
        return a

    def explicit(**kwargs) -> int:  # type: ignore[no-untyped-def]
        return 1

    assert not _deferred(tool(with_context))
    assert not _deferred(tool(explicit, parameters={"type": "object", "properties": {}}))
    with pytest.raises(ToolSpecError):
        tool(with_context, name="bad name!")


def test_registering_does_not_build_the_spec_and_a_clash_is_still_refused():
    def g(a: int) -> int:
        """G."""
        return a

    made = tool(g)
    registry = ToolRegistry()
    assert registry.register_tool(made) == "g" and _deferred(made)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_tool(tool(g))
    assert registry.to_provider_format("openai")[0]["function"]["name"] == "g" and not _deferred(made)
