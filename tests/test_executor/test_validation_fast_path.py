"""The validator's fast path (a TypedDict of the parameters, no model instance) must answer exactly as
the input model does: same values, same defaults, same errors — it only skips work on valid input."""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from typing_extensions import Annotated

from workbench import tool


class Colour(Enum):
    red = "red"
    blue = "blue"


class Point(BaseModel):
    x: int
    y: int = 0


@tool
def flat(
    a: int,
    b: float = 1.5,
    c: str = "c",
    d: bool = False,
    e: Optional[Colour] = None,
    f: Literal["x", "y"] = "x",
    g: Annotated[int, Field(ge=0)] = 0,
) -> int:
    """Scalars only."""
    return a


@tool
def nested(points: list[Point], tags: dict[str, Any] = {}, extra: Optional[list[int]] = None) -> int:  # noqa: B006
    """Containers and a mutable default."""
    return len(points)


INPUTS = [
    {"a": 1},
    {"a": 1, "b": 2.5, "c": "z", "d": True, "e": "red", "f": "y", "g": 3},
    {"g": 3, "a": 2},
    {"a": True},
    {"a": 1.0},
    {"a": "1"},
    {"a": 1, "b": math.nan},
    {"a": 1, "b": math.inf},
    {"a": 1, "e": "green"},
    {"a": 1, "f": "z"},
    {"a": 1, "g": -1},
    {"a": 1, "zzz": 1},
    {},
    {"a": None},
    {"a": 1, "e": None},
    {"points": [{"x": 1}]},
    {"points": [{"x": 1, "y": 2}], "tags": {"k": [1, {"n": None}]}},
    {"points": [{"x": "1"}]},
    {"points": [], "tags": {"k": math.nan}},
    {"points": '[{"x": 1}]'},
    {"points": [{"x": 1}], "extra": [1, True]},
    {"points": [[]]},
    {"tags": {}},
    {"points": [{"x": 1, "z": 0}]},
]


def _answer(spec: Any, raw: dict, fast: bool) -> Any:
    validator = spec.__pydantic_private__["_input_validator"].__self__
    validator._prepare()
    private = spec.__pydantic_private__
    saved = validator._fast, validator._flat_check, private["_flat_check"]
    if not fast:  # the model alone: no TypedDict check in the validator nor in check_inputs
        validator._fast, validator._flat_check, private["_flat_check"] = None, None, None
    try:
        return ("ok", spec.check_inputs(dict(raw)))
    except Exception as exc:  # noqa: BLE001 - the comparison is the point
        return ("error", type(exc).__name__, str(exc))
    finally:
        validator._fast, validator._flat_check, private["_flat_check"] = saved


@pytest.mark.parametrize("raw", INPUTS, ids=[str(i) for i in range(len(INPUTS))])
@pytest.mark.parametrize("function", [flat, nested], ids=["flat", "nested"])
def test_the_fast_path_answers_exactly_as_the_model(function, raw):
    spec = function.spec
    if not set(raw) <= set(spec.param_names) | {"zzz"}:
        raw = {key: value for key, value in raw.items() if key in spec.param_names} or raw
    slow, fast = _answer(spec, raw, fast=False), _answer(spec, raw, fast=True)
    assert fast == slow
    if fast[0] == "ok":
        assert list(fast[1]) == spec.param_names  # every parameter, in parameter order


def test_the_fast_path_is_used_and_copies_mutable_defaults():
    nested.spec.check_inputs({"points": []})
    flat.spec.check_inputs({"a": 1})  # the fast path is built on the first call
    validator = nested.spec.__pydantic_private__["_input_validator"].__self__
    assert validator._fast is not None and validator._flat_check is None
    assert flat.spec.__pydantic_private__["_input_validator"].__self__._flat_check is not None
    first, second = nested.spec.check_inputs({"points": []}), nested.spec.check_inputs({"points": []})
    assert first["tags"] == {} and first["tags"] is not second["tags"]


def test_check_inputs_calls_the_flat_check_itself_and_it_fills_in_defaults():
    @tool
    def scalars(a: int, b: float = 1.5, tags_count: int = 0) -> int:
        """Scalars with defaults."""
        return a

    spec = scalars.spec
    assert spec.__pydantic_private__["_flat_check"] is None  # built on the first call, not at decoration
    assert spec.check_inputs({"a": 1}) == {"a": 1, "b": 1.5, "tags_count": 0}
    flat_check = spec.__pydantic_private__["_flat_check"]
    assert flat_check is not None and flat_check({"tags_count": 2, "a": 3}) == {"a": 3, "b": 1.5, "tags_count": 2}
    assert list(flat_check({"tags_count": 2, "a": 3})) == ["a", "b", "tags_count"]  # parameter order
    with pytest.raises(Exception) as refused:
        spec.check_inputs({"a": "1"})
    assert "expected integer" in str(refused.value) and "scalars" in str(refused.value)


def test_a_replaced_validator_is_not_bypassed_by_the_old_flat_check():
    @tool
    def one(a: int) -> int:
        """One."""
        return a

    one.spec.check_inputs({"a": 1})
    assert one.spec.__pydantic_private__["_flat_check"] is not None
    one.spec._input_validator = lambda name, raw: {"a": -1}
    assert one.spec.__pydantic_private__["_flat_check"] is None
    assert one.spec.check_inputs({"a": 1}) == {"a": -1}
