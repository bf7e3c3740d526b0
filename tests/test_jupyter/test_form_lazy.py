"""The form's fast paths (#13): shared layouts and a collapsed *Optional* section built when first needed."""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm
from workbench.jupyter._field_layout import COLLAPSE_OVER
from workbench.jupyter._widget_kit import show


def _long_tool():
    """2 required parameters and COLLAPSE_OVER optional ones: the auto layout collapses the optional ones."""
    lines = ["r0: int", "r1: str"] + [f"o{i}: int = {i}" for i in range(COLLAPSE_OVER)]
    namespace: dict[str, Any] = {}
    exec(f"def long_form({', '.join(lines)}) -> dict:\n    '''Echo.'''\n    return dict(locals())\n", namespace)
    return tool(namespace["long_form"])


def _field_boxes(widget: W.Widget) -> list[W.Widget]:
    found, stack = [], [widget]
    while stack:
        item = stack.pop()
        if "workbench-field" in getattr(item, "_dom_classes", ()):
            found.append(item)
        stack.extend(getattr(item, "children", ()))
    return found


def test_a_collapsed_section_is_built_when_opened_and_its_values_reach_the_call(wb):
    form = ToolForm(_long_tool(), wb)
    section = form.arrangement.optional
    assert not section.built and _field_boxes(section.widget) == []
    assert list(form.fields) == ["r0", "r1"] + [f"o{i}" for i in range(COLLAPSE_OVER)]  # names known
    assert "o3" in form.fields and len(form.fields) == 2 + COLLAPSE_OVER and not section.built
    form.fields["r0"].set(1)
    form.fields["r1"].set("a")
    assert form.values == {"r0": 1, "r1": "a"} and not section.built  # unbuilt optional fields are not set
    section.widget.header.expanded = True  # a click on the header
    assert section.built and len(_field_boxes(section.widget)) == COLLAPSE_OVER
    form.fields["o3"].input.value = "42"  # typed by the user
    assert section.widget.title == f"Optional ({COLLAPSE_OVER}) · 1 set"
    result = form.run()
    assert result.status == "success", result.text
    assert result.json["o3"] == 42 and result.json["o4"] == 4


def test_values_set_through_the_api_on_an_unbuilt_section_still_work(wb):
    form = ToolForm(_long_tool(), wb)
    section = form.arrangement.optional
    form.set_values({"r0": 1, "r1": "b", "o5": 50})
    assert section.built and not section.is_open
    assert form.values == {"r0": 1, "r1": "b", "o5": 50}
    assert section.widget.title == f"Optional ({COLLAPSE_OVER}) · 1 set"
    assert form.run().json["o5"] == 50


def test_a_bad_value_set_on_an_unbuilt_section_opens_it_with_the_error(wb):
    form = ToolForm(_long_tool(), wb)
    form.set_values({"r0": 1, "r1": "b"})
    form.fields["o2"].input.value = "not a number"
    assert form.arrangement.optional.is_open and form.fields["o2"].error


def test_json_mode_and_reset_with_an_unbuilt_section(wb):
    form = ToolForm(_long_tool(), wb)
    form._load_input({"r0": 2, "r1": "c", "o1": 10})
    assert form.values == {"r0": 2, "r1": "c", "o1": 10}
    form.reset()
    assert not form.arrangement.optional.built and form.values == {}


def test_a_run_without_the_required_values_does_not_build_the_section(wb):
    form = ToolForm(_long_tool(), wb)
    result = form.run()
    assert result.status == "error" and set(form.errors) == {"r0", "r1"}
    assert not form.arrangement.optional.built


def test_shared_layouts_are_swapped_never_changed_in_place(wb):
    form = ToolForm(_long_tool(), wb, layout="full")
    first, second = form.fields["o0"], form.fields["o1"]
    assert first.error_label.layout is second.error_label.layout  # one hidden layout for both
    first.input.value = "x"  # not an integer: its error shows
    assert first.error_label.layout.display is None
    assert second.error_label.layout.display == "none"  # the other field's error line stays hidden
    first.input.value = "3"
    assert first.error_label.layout is second.error_label.layout
    # a widget with a layout of its own is changed in place
    own = W.HTML(layout=W.Layout(width="10px"))
    layout = own.layout
    show(own, False)
    assert own.layout is layout and layout.display == "none" and layout.width == "10px"


def test_a_form_makes_few_layouts(wb):
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    form = ToolForm(_long_tool(), wb, layout="full")
    made = [w for key, w in _instances.items() if key not in before]
    layouts = [w for w in made if isinstance(w, W.Layout)]
    assert len(form.fields) == 2 + COLLAPSE_OVER
    assert len(layouts) < 60, len(layouts)  # was one (or more) per widget: ~7 per field
