"""A catalogue of tool signatures covering every row of the form's schema → widget table.

Each entry: a tool, a valid JSON ``sample`` input (what ``form.values`` must give back after
``form.set_values(sample)``), the table rows its form must use, and a check on the call's result.
Tools echo what they received (type names included) so conversions can be checked.
"""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Optional, TypedDict, Union

from pydantic import BaseModel, Field, SecretStr

from workbench import tool


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Item(BaseModel):
    """A line item."""

    name: str
    qty: int = 1


@dataclass
class Point:
    x: float
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


class Tree(BaseModel):
    label: str
    children: list["Tree"] = []


Tree.model_rebuild()


@dataclass
class Entry:
    name: str
    tool: Any
    sample: dict
    rules: set
    check: Callable[[Any], bool] = lambda out: True
    defaults: dict = field(default_factory=dict)  # parameter → JSON default the widget must show


def _t(fn):
    return tool(fn)


@_t
def c_str(text_value: str) -> str:
    """Echo a string."""
    return text_value


@_t
def c_long_text(prompt: str, note: Annotated[str, Field(max_length=500)] = "short") -> dict:
    """Long text fields.

    Args:
        prompt: the prompt
        note: a note
    """
    return {"prompt": prompt, "note": note}


@_t
def c_int(n: int) -> int:
    """Double an integer."""
    return n * 2


@_t
def c_bounded_int(n: Annotated[int, Field(ge=1, le=10)] = 5) -> int:
    """Bounded integer."""
    return n


@_t
def c_float(x: float) -> float:
    """Half a number."""
    return x / 2


@_t
def c_bounded_float(ratio: Annotated[float, Field(ge=0.0, le=1.0)] = 0.25) -> float:
    """Bounded float."""
    return ratio


@_t
def c_bool(flag: bool, other: bool = True) -> dict:
    """Booleans."""
    return {"flag": flag, "other": other}


@_t
def c_literal(mode: Literal["fast", "slow"], level: Literal[1, 2, 3] = 2) -> dict:
    """Literal choices."""
    return {"mode": mode, "level": level}


@_t
def c_enum(color: Color, fallback: Color = Color.GREEN) -> dict:
    """An Enum."""
    return {"color": type(color).__name__ + "." + color.name, "fallback": fallback.value}


@_t
def c_date(day: dt.date) -> dict:
    """A date."""
    return {"type": type(day).__name__, "weekday": day.weekday()}


@_t
def c_datetime(when: dt.datetime, at: dt.time = dt.time(9, 30)) -> dict:
    """A datetime and a time."""
    return {"type": type(when).__name__, "hour": when.hour, "at": at.isoformat()}


@_t
def c_list_str(tags: list[str]) -> list:
    """A list of strings."""
    return tags


@_t
def c_list_int(values: list[int] = [1, 2]) -> int:  # noqa: B006 - a default list to prefill
    """A list of integers."""
    return sum(values)


@_t
def c_list_literal(options: list[Literal["a", "b", "c"]]) -> list:
    """A list of literal options (multi-select)."""
    return options


@_t
def c_list_models(items: list[Item]) -> dict:
    """A list of nested models."""
    return {"types": [type(i).__name__ for i in items], "total": sum(i.qty for i in items)}


@_t
def c_model(item: Item) -> dict:
    """A nested model."""
    return {"type": type(item).__name__, "name": item.name, "qty": item.qty}


@_t
def c_dataclass(point: Point) -> dict:
    """A dataclass."""
    return {"type": type(point).__name__, "sum": point.x + point.y}


@_t
def c_typeddict(movie: Movie) -> dict:
    """A TypedDict."""
    return {"type": type(movie).__name__, "title": movie["title"]}


@_t
def c_optional_int(limit: Optional[int] = None) -> dict:
    """An optional integer."""
    return {"limit": limit}


@_t
def c_optional_str(label: Optional[str] = "x") -> dict:
    """An optional string with a default."""
    return {"label": label}


@_t
def c_union(key: Union[int, str] = 1) -> dict:
    """An int or a string (variant selector)."""
    return {"type": type(key).__name__, "key": key}


@_t
def c_any_dict(payload: dict[str, Any]) -> dict:
    """A free-form object (JSON box)."""
    return payload


@_t
def c_dict_int(counts: dict[str, int]) -> int:
    """A mapping of names to integers."""
    return sum(counts.values())


@_t
def c_tuple(pair: tuple[int, str] = (1, "a")) -> dict:
    """A tuple."""
    return {"type": type(pair).__name__, "pair": list(pair)}


@_t
def c_uuid_path(ident: uuid.UUID, where: Path = Path("data.csv")) -> dict:
    """A UUID and a path."""
    return {"types": [type(ident).__name__, type(where).__name__ if isinstance(where, Path) else "str"]}


@_t
def c_decimal(amount: Decimal) -> str:
    """A decimal (number or numeric string)."""
    return f"{type(amount).__name__}:{amount}"


@_t
def c_defaults(name: str = "world", times: int = 3, loud: bool = False, scale: float = 1.5) -> str:
    """Everything defaulted."""
    text = " ".join([f"hello {name}"] * times)
    return text.upper() if loud else text


@_t
def c_annotated(
    code: Annotated[str, Field(min_length=2, max_length=8, pattern="^[A-Z]+$", description="upper-case code")],
    count: Annotated[int, Field(ge=0, description="how many")] = 0,
) -> dict:
    """Annotated constraints."""
    return {"code": code, "count": count}


@_t
def c_optional_model(item: Optional[Item] = None, tags: set[int] = set()) -> dict:  # noqa: B006
    """An optional nested model and a set."""
    return {"item": None if item is None else type(item).__name__, "tags": sorted(tags)}


@_t
def c_nested_lists(grid: list[list[int]]) -> int:
    """Nested lists."""
    return sum(sum(row) for row in grid)


@_t
def c_recursive(tree: Tree) -> int:
    """A recursive model (deep levels fall back to JSON)."""

    def count(t: Tree) -> int:
        return 1 + sum(count(c) for c in t.children)

    return count(tree)


@_t
def c_any(value, extra: Any = None) -> dict:
    """Untyped parameters (JSON box)."""
    return {"value": value, "extra": extra}


@_t
def c_secret(password: SecretStr, note: str = "") -> dict:
    """A secret (a password box; masked in what the form shows)."""
    return {"type": type(password).__name__, "length": len(password.get_secret_value())}


@_t
def c_const(kind: Literal["fixed"] = "fixed", n: int = 0) -> dict:
    """A one-value Literal (const)."""
    return {"kind": kind, "n": n}


CATALOGUE: list[Entry] = [
    Entry("str", c_str, {"text_value": "hi <b>"}, {"string"}, lambda out: out == "hi <b>"),
    Entry(
        "long text",
        c_long_text,
        {"prompt": "line 1\nline 2", "note": "n"},
        {"long text"},
        lambda out: out["prompt"] == "line 1\nline 2",
        {"note": "short"},
    ),
    Entry("int", c_int, {"n": 21}, {"integer"}, lambda out: out == 42),
    Entry("bounded int", c_bounded_int, {"n": 7}, {"integer"}, lambda out: out == 7, {"n": 5}),
    Entry("float", c_float, {"x": 3.0}, {"number"}, lambda out: out == 1.5),
    Entry("bounded float", c_bounded_float, {"ratio": 0.5}, {"number"}, lambda out: out == 0.5, {"ratio": 0.25}),
    Entry(
        "bool",
        c_bool,
        {"flag": True, "other": False},
        {"boolean"},
        lambda out: out == {"flag": True, "other": False},
        {"other": True},
    ),
    Entry(
        "literal",
        c_literal,
        {"mode": "slow", "level": 3},
        {"enum"},
        lambda out: out == {"mode": "slow", "level": 3},
        {"level": 2},
    ),
    Entry(
        "enum",
        c_enum,
        {"color": "blue", "fallback": "red"},
        {"enum"},
        lambda out: out == {"color": "Color.BLUE", "fallback": "red"},
        {"fallback": "green"},
    ),
    Entry("date", c_date, {"day": "2024-05-06"}, {"date"}, lambda out: out == {"type": "date", "weekday": 0}),
    Entry(
        "datetime",
        c_datetime,
        {"when": "2024-05-06T07:08:09", "at": "10:15:00"},
        {"date-time", "time"},
        lambda out: out == {"type": "datetime", "hour": 7, "at": "10:15:00"},
        {"at": "09:30:00"},
    ),
    Entry("list[str]", c_list_str, {"tags": ["a", "", "c"]}, {"list", "string"}, lambda out: out == ["a", "", "c"]),
    Entry(
        "list[int]", c_list_int, {"values": [4, 5, 6]}, {"list", "integer"}, lambda out: out == 15, {"values": [1, 2]}
    ),
    Entry("list[Literal]", c_list_literal, {"options": ["a", "c"]}, {"multi-select"}, lambda out: out == ["a", "c"]),
    Entry(
        "list[Model]",
        c_list_models,
        {"items": [{"name": "x", "qty": 2}, {"name": "y"}]},
        {"list", "object"},
        lambda out: out == {"types": ["Item", "Item"], "total": 3},
    ),
    Entry(
        "model",
        c_model,
        {"item": {"name": "pen", "qty": 3}},
        {"object", "string", "integer"},
        lambda out: out == {"type": "Item", "name": "pen", "qty": 3},
    ),
    Entry(
        "dataclass",
        c_dataclass,
        {"point": {"x": 1.5, "y": 2.0}},
        {"object", "number"},
        lambda out: out == {"type": "Point", "sum": 3.5},
    ),
    Entry(
        "TypedDict",
        c_typeddict,
        {"movie": {"title": "Alien", "year": 1979}},
        {"object"},
        lambda out: out == {"type": "dict", "title": "Alien"},
    ),
    Entry(
        "Optional[int]",
        c_optional_int,
        {"limit": 10},
        {"nullable", "integer"},
        lambda out: out == {"limit": 10},
        {"limit": None},
    ),
    Entry(
        "Optional[str]",
        c_optional_str,
        {"label": None},
        {"nullable", "string"},
        lambda out: out == {"label": None},
        {"label": "x"},
    ),
    Entry(
        "Union[int, str]",
        c_union,
        {"key": "abc"},
        {"variant"},
        lambda out: out == {"type": "str", "key": "abc"},
        {"key": 1},
    ),
    Entry(
        "dict[str, Any]",
        c_any_dict,
        {"payload": {"a": [1, {"b": None}]}},
        {"free-form object"},
        lambda out: out == {"a": [1, {"b": None}]},
    ),
    Entry("dict[str, int]", c_dict_int, {"counts": {"a": 1, "b": 2}}, {"mapping", "integer"}, lambda out: out == 3),
    Entry(
        "tuple",
        c_tuple,
        {"pair": [2, "b"]},
        {"tuple", "integer", "string"},
        lambda out: out == {"type": "tuple", "pair": [2, "b"]},
        {"pair": [1, "a"]},
    ),
    Entry(
        "UUID + Path",
        c_uuid_path,
        {"ident": "123e4567-e89b-12d3-a456-426614174000", "where": "out/file.txt"},
        {"string"},
        lambda out: (
            out == {"types": ["UUID", "PosixPath" if Path().__class__.__name__ == "PosixPath" else "WindowsPath"]}
        ),
        {"where": "data.csv"},
    ),
    Entry("Decimal", c_decimal, {"amount": "12.50"}, {"variant"}, lambda out: out == "Decimal:12.50"),
    Entry(
        "defaults",
        c_defaults,
        {"name": "you", "times": 1, "loud": True, "scale": 2.0},
        {"string", "integer", "boolean", "number"},
        lambda out: out == "HELLO YOU",
        {"name": "world", "times": 3, "loud": False, "scale": 1.5},
    ),
    Entry(
        "Annotated",
        c_annotated,
        {"code": "ABC", "count": 2},
        {"string", "integer"},
        lambda out: out == {"code": "ABC", "count": 2},
        {"count": 0},
    ),
    Entry(
        "Optional[Model] + set",
        c_optional_model,
        {"item": {"name": "a"}, "tags": [3, 1]},
        {"nullable", "object", "list"},
        lambda out: out == {"item": "Item", "tags": [1, 3]},
        {"item": None, "tags": []},
    ),
    Entry("list[list[int]]", c_nested_lists, {"grid": [[1, 2], [3]]}, {"list", "integer"}, lambda out: out == 6),
    Entry(
        "recursive model",
        c_recursive,
        {"tree": {"label": "a", "children": [{"label": "b", "children": [{"label": "c", "children": []}]}]}},
        {"object", "list", "json (recursive)"},
        lambda out: out == 3,
    ),
    Entry(
        "Any",
        c_any,
        {"value": [1, "two"], "extra": {"k": 1}},
        {"json (fallback)"},
        lambda out: out == {"value": [1, "two"], "extra": {"k": 1}},
        {"extra": None},
    ),
    Entry(
        "SecretStr",
        c_secret,
        {"password": "pw-12345"},
        {"password"},
        lambda out: out == {"type": "SecretStr", "length": 8},
        {"note": ""},
    ),
    Entry(
        "const",
        c_const,
        {"kind": "fixed", "n": 1},
        {"const"},
        lambda out: out == {"kind": "fixed", "n": 1},
        {"kind": "fixed", "n": 0},
    ),
]


# -- shared fixtures of the notebook-layer tests (imported by tests/test_jupyter*.py) ---------------------
import threading as _threading  # noqa: E402 - the section's own imports
import time as _time  # noqa: E402 - the section's own imports

import pytest as _pytest  # noqa: E402 - the section's own imports


@_pytest.fixture
def wb(monkeypatch):
    """A fresh kernel Workbench over a fresh, empty default registry."""
    from workbench import registry as registry_module
    from workbench.jupyter import reset_workbench

    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    workbench = reset_workbench()
    yield workbench
    workbench.executor.close()


@_pytest.fixture(scope="session")
def ip():
    """A headless IPython shell with the workbench extension loaded."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext workbench", store_history=False)
    return shell


def wait_until(predicate, timeout: float = 5.0, interval: float = 0.01) -> bool:
    """Poll ``predicate`` until it is true (returns True) or ``timeout`` passes (returns False)."""
    deadline = _time.monotonic() + timeout
    while _time.monotonic() < deadline:
        if predicate():
            return True
        _time.sleep(interval)
    return bool(predicate())


def in_thread(fn):
    """Run ``fn`` in a thread; returns (thread, errors) — errors collects what ``fn`` raised."""
    errors: list = []

    def target():
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    thread = _threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, errors
