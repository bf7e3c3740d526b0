"""Widgets by the Python type a tool declares (``register_type``) and widget tables of one's own (``copy``)."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path
from typing import Optional

import ipywidgets as W
import pytest
from pydantic import BaseModel

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import Arg, derive, tool
from workbench.jupyter import WIDGETS, ToolForm, WidgetTable, widget_table
from workbench.jupyter._fields import StringField

FILES = ["/srv/data/a.csv", "/srv/data/b.csv"]


def _files() -> W.Dropdown:
    return W.Dropdown(options=FILES, value=None)


@tool
def open_file(path: Path, backup: Optional[Path] = None) -> str:
    """Open a file.

    Args:
        path: The file.
        backup: Where to copy it first.
    """
    return f"{type(path).__name__}:{path}:{type(backup).__name__}"


class Point(BaseModel):
    x: int
    y: int


class Trip(BaseModel):
    name: str
    start: Point


@tool
def travel(trip: Trip) -> str:
    """Travel."""
    return f"{trip.name} from {trip.start.x},{trip.start.y} ({type(trip.start).__name__})"


class Color(str, enum.Enum):
    RED = "#ff0000"
    GREEN = "#00ff00"


@dataclasses.dataclass
class Shape:
    sides: int


@dataclasses.dataclass
class Square(Shape):
    size: float = 1.0


@tool
def paint(color: Color, shape: Square) -> str:
    """Paint a shape."""
    return f"{color.name} {type(shape).__name__} {shape.sides}"


def _point_text() -> W.Text:
    return W.Text(placeholder="x,y")


def _table() -> WidgetTable:
    table = WIDGETS.copy()
    table.register_type(Path, widget=_files)
    table.register_type(
        Point,
        widget=_point_text,
        to_json=lambda text: dict(zip("xy", map(int, text.split(",")))),
        from_json=lambda point: f"{point['x']},{point['y']}",
    )
    table.register_type(Color, widget=lambda: W.ColorPicker(value="#000000"))

    class SidesField(StringField):  # a Field class of one's own: sides typed as "4 sides"
        def current(self):
            text = self.input.value
            return {"sides": int(text.split()[0])} if text else super().current()

    table.register_type(Shape, SidesField)
    return table


def test_a_registered_type_gets_its_widget_and_the_value_reaches_the_tool(wb):  # noqa: F811 - the fixture
    wb.registry.register_tool(open_file, replace=True)
    form = ToolForm(open_file, wb, widgets=_table())
    field = form.fields["path"]
    assert field.rule == "type Path" and isinstance(field.input, W.Dropdown)
    # Optional[Path]: the nullable row keeps its "none" box; the field inside it is the type's
    backup = form.fields["backup"]
    assert backup.rule == "nullable" and backup.inner.rule == "type Path"
    field.input.value = FILES[1]
    result = form.run()
    assert result.ok, result
    assert result.value == f"PosixPath:{FILES[1]}:NoneType"


def test_a_pydantic_model_nested_in_another_gets_its_widget(wb):  # noqa: F811
    wb.registry.register_tool(travel, replace=True)
    form = ToolForm(travel, wb, widgets=_table())
    start = form.fields["trip"].child("start")
    assert start.rule == "type Point" and isinstance(start.input, W.Text)
    form.fields["trip"].child("name").input.value = "Tour"
    start.input.value = "3,4"
    assert form.run().value == "Tour from 3,4 (Point)"


def test_an_enum_and_a_dataclass_subclass_find_their_widgets(wb):  # noqa: F811
    wb.registry.register_tool(paint, replace=True)
    form = ToolForm(paint, wb, widgets=_table())
    assert form.fields["color"].rule == "type Color" and isinstance(form.fields["color"].input, W.ColorPicker)
    assert form.fields["shape"].rule == "type Shape"  # Square's base class is registered
    form.fields["color"].input.value = "#00ff00"
    form.fields["shape"].input.value = "4 sides"
    assert form.run().value == "GREEN Square 4"


def test_a_copied_table_does_not_leak_into_the_package_table(wb):  # noqa: F811
    before = (list(WIDGETS.rules), list(WIDGETS.types), widget_table())
    table = _table()
    table.register_rule("never", lambda schema, where: False, StringField)
    assert (list(WIDGETS.rules), list(WIDGETS.types), widget_table()) == before
    assert [row for row, _ in table.rows()][:4] == ["type Path", "type Point", "type Color", "type Shape"]
    wb.registry.register_tool(open_file, replace=True)
    assert ToolForm(open_file, wb).fields["path"].rule == "string"  # a form on the package's table


def test_a_derived_tool_keeps_its_parents_types_under_the_new_names(wb):  # noqa: F811
    renamed = derive(open_file, name="open_path", args={"path": Arg(name="target"), "backup": Arg(hide=True)})
    wb.registry.register_tool(renamed, replace=True)
    form = ToolForm(renamed, wb, widgets=_table())
    assert list(form.fields) == ["target"] and form.fields["target"].rule == "type Path"
    form.fields["target"].input.value = FILES[0]
    assert form.run().value == f"PosixPath:{FILES[0]}:NoneType"


def test_register_type_says_what_it_needs():
    table = WidgetTable()
    with pytest.raises(TypeError, match="register_type needs a class"):
        table.register_type(Optional[int], widget=W.Text)
    with pytest.raises(TypeError, match=r"register_type\(Path\): give either factory= .* or widget="):
        table.register_type(Path)
    with pytest.raises(TypeError, match="not both"):
        table.register_type(Path, StringField, widget=W.Text)
