"""Form fields: real labels, validation as you type, and the compact layout (issue 9, features).

In-process (ipywidgets without a browser): the widget tree and the traits the front end reads. The
browser side (a click on a label focuses the field, the accessible name, aria-describedby, two columns
on screen in light and dark) is ``tests/browser/test_form_a11y_layout.py``.

1. every labelled field has a ``FieldLabel`` tied (by a page-unique class) to its control, its help line
   and its error lines; a group's label names the group; ``invalid`` follows the inline errors;
2. text boxes sync each keystroke and say what is wrong at once, in ``check_inputs``' words; numbers and
   JSON boxes on blur; a value loaded with ``set_values`` is checked the same way;
3. ``layout="auto" | "full" | "compact"``: two columns for scalar fields, optional fields under a
   collapsed *Optional (N)* disclosure that counts set fields and opens on an error; ``auto`` collapses
   optional fields of tools with more than 12 parameters; values are the same in every layout.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, Optional, Union

import ipywidgets as W
import pytest
from pydantic import BaseModel, Field

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import ToolSpec, tool
from workbench._errors import ToolInputError
from workbench.jupyter import ToolForm
from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._field_label import FieldLabel
from workbench.jupyter._field_layout import COLLAPSE_OVER, SPAN_BOTH, OptionalSection, arrange_fields, resolve_layout
from workbench.jupyter._field_table import build_field
from workbench.jupyter._fields import WIDTHS
from workbench.tools import SpecOnlyTool


class Address(BaseModel):
    street: str
    zip_code: Annotated[str, Field(min_length=4)]


class Circle(BaseModel):
    radius: float


class Square(BaseModel):
    side: float


@tool
def shapes_of_fields(
    price: Annotated[float, Field(ge=0, description="Unit price in EUR")],
    code: Annotated[str, Field(min_length=3, pattern="^[A-Z]+$", description="Product code")],
    express: bool = False,
    size: Literal["S", "M", "L"] = "M",
    note: Optional[str] = None,
    day: Optional[dt.date] = None,
    at: Optional[dt.datetime] = None,
    sizes: Optional[list[Literal["S", "M"]]] = None,
    shape: Union[Circle, Square] = Circle(radius=1.0),
    address: Optional[Address] = None,
    tags: list[Annotated[str, Field(min_length=2)]] = [],
    pair: tuple[int, str] = (1, "a"),
    counts: dict[str, int] = {},
    kind: Literal["fixed"] = "fixed",
    body: str = "",
    extra: Optional[dict[str, Any]] = None,
) -> dict:
    """Every kind of field."""
    return {"price": price, "code": code}


def _walk(widget: W.Widget):
    yield widget
    for child in getattr(widget, "children", ()) or ():
        yield from _walk(child)


def _marked(field, cls: str) -> list[W.Widget]:
    return [w for w in _walk(field.widget) if cls in getattr(w, "_dom_classes", ())]


# -- 1. real labels ------------------------------------------------------------------------------------
#: field → (the widget its label names, is it a group)
LABEL_TARGETS = {
    "price": lambda f: (f.input, False),
    "code": lambda f: (f.input, False),
    "express": lambda f: (f.input, False),
    "size": lambda f: (f.input, False),
    "note": lambda f: (f.inner.input, False),
    "day": lambda f: (f.inner.input, False),
    "at": lambda f: (f.inner.input, False),
    "sizes": lambda f: (f.inner.input, False),
    "shape": lambda f: (f.selector, False),
    "address": lambda f: (f.inner.input, True),
    "tags": lambda f: (f.input, True),
    "pair": lambda f: (f.input, True),
    "counts": lambda f: (f.input, True),
    "body": lambda f: (f.input, False),
    "extra": lambda f: (f.inner.input, False),
}


def test_every_field_label_is_tied_to_its_control_help_and_errors(wb):
    form = ToolForm(shapes_of_fields, wb)
    assert set(LABEL_TARGETS) | {"kind"} == set(form.fields)
    for name, expected in LABEL_TARGETS.items():
        field = form.fields[name]
        label = field.label
        assert isinstance(label, FieldLabel), name
        assert label.value == name and label in list(_walk(field.widget))
        widget, group = expected(field)
        assert _marked(field, label.target) == [widget], name  # exactly the control (or the group box)
        assert label.group is group, name
        assert _marked(field, label.error) == [], name  # an error line is made when one first shows
        line = field.error_label
        errors = _marked(field, label.error)
        assert line in errors and all(isinstance(w, W.HTML) for w in errors), name
        assert field.widget.children[-1] is line, name  # under the field, after its help line
        if field.help_text:
            (help_line,) = _marked(field, label.help)
            assert "workbench-field-help" in help_line._dom_classes
        else:
            assert label.help == ""
    # a constant has nothing to focus: a label, no target
    assert form.fields["kind"].label.target == ""


def test_label_shows_name_required_mark_and_description(wb):
    form = ToolForm(shapes_of_fields, wb)
    price, note = form.fields["price"].label, form.fields["note"].label
    assert (price.value, price.required, price.text) == ("price", True, "price *")
    assert price.description == "Unit price in EUR"
    assert (note.value, note.required, note.text) == ("note", False, "note")
    # marks are unique per field, so two forms (or two fields) in one page never cross-wire
    other = ToolForm(shapes_of_fields, wb)
    assert other.fields["price"].label.target != price.target
    targets = [f.label.target for f in form.fields.values() if f.label and f.label.target]
    assert len(targets) == len(set(targets))


def test_nested_fields_have_their_own_labels(wb):
    form = ToolForm(shapes_of_fields, wb)
    address = form.fields["address"]
    address.none_box.value = False
    zip_code = address.inner.fields["zip_code"]
    assert zip_code.label.value == "zip_code" and zip_code.label.required
    assert _marked(zip_code, zip_code.label.target) == [zip_code.input]


def test_invalid_follows_the_inline_errors_of_the_field_and_its_inner_box(wb):
    form = ToolForm(shapes_of_fields, wb)
    code = form.fields["code"]
    assert code.label.invalid is False
    code.input.value = "ab"
    assert code.error and code.label.invalid is True
    code.input.value = "ABC"
    assert code.error is None and code.label.invalid is False
    # an error of a nullable's inner box (no label of its own) marks the nullable's control invalid
    form.set_values({"price": 1, "code": "ABC"})
    note = form.fields["note"]
    note.inner.show_error("note: something")
    assert note.label.invalid is True
    note.inner.clear_error()
    assert note.label.invalid is False
    form.run()
    assert form.errors == {} or "note" not in form.errors


def test_list_row_labels_follow_renumbering(wb):
    form = ToolForm(shapes_of_fields, wb)
    tags = form.fields["tags"]
    for _ in range(3):
        tags.add_button.click()
    tags.remove_row(tags.rows[0])
    assert [r.field.label.value for r in tags.rows] == ["[0]", "[1]"]


def test_mapping_values_are_labelled_by_their_key_box_only(wb):
    form = ToolForm(shapes_of_fields, wb)
    counts = form.fields["counts"]
    counts.add_button.click()
    assert counts.rows[0].field.label is None
    assert not [w for w in _walk(counts.rows[0].box) if isinstance(w, FieldLabel)]


# -- 2. validation as you type -------------------------------------------------------------------------
def _check_inputs_messages(spec: ToolSpec, values: dict, field: str) -> list[str]:
    with pytest.raises(ToolInputError) as info:
        spec.check_inputs(values)
    return [e["message"] for e in info.value.errors if e["field"] == field]


def test_text_boxes_sync_each_keystroke_numbers_and_json_on_blur(wb):
    form = ToolForm(shapes_of_fields, wb)
    assert form.fields["code"].input.continuous_update is True
    assert form.fields["body"].input.continuous_update is True  # a Textarea
    assert form.fields["price"].input.continuous_update is False
    assert form.fields["extra"].inner.input.continuous_update is False  # JSON


@pytest.mark.parametrize("typed", ["a", "ab", "abc", "AB1"])
def test_text_field_says_what_is_wrong_as_you_type_in_check_inputs_words(wb, typed):
    form = ToolForm(shapes_of_fields, wb)
    code = form.fields["code"]
    code.input.value = typed  # one keystroke's sync
    shown = code.error.split("; ")
    expected = _check_inputs_messages(shapes_of_fields.spec, {"price": 1, "code": typed}, "code")
    assert sorted(shown) == sorted(expected)
    assert code.error_label.layout.display is None and form.errors == {}  # inline, before (and without) Run


def test_the_error_disappears_once_the_text_is_valid(wb):
    form = ToolForm(shapes_of_fields, wb)
    code = form.fields["code"]
    for typed, wrong in (("A", True), ("AB", True), ("ABC", False), ("ABCd", True), ("ABCD", False)):
        code.input.value = typed
        assert (code.error is not None) is wrong, typed
        assert (code.error_label.layout.display is None) is wrong


def test_list_items_and_nested_strings_are_checked_as_typed(wb):
    form = ToolForm(shapes_of_fields, wb)
    tags = form.fields["tags"]
    tags.add_button.click()
    tags.rows[0].field.input.value = "x"
    assert tags.rows[0].field.error == "tags[0]: expected a string of at least 2 characters, received 'x' (string)"
    tags.rows[0].field.input.value = "xy"
    assert tags.rows[0].field.error is None
    address = form.fields["address"]
    address.none_box.value = False
    address.inner.fields["zip_code"].input.value = "12"
    assert "address.zip_code: expected a string of at least 4 characters" in address.inner.fields["zip_code"].error


def test_numbers_are_checked_when_their_value_arrives_on_blur(wb):
    form = ToolForm(shapes_of_fields, wb)
    price = form.fields["price"]
    price.input.value = "-1"  # what a blur (or Enter) sends
    assert price.error == "price: must be ≥ 0, received -1"
    price.input.value = "2.5"
    assert price.error is None


def test_json_box_is_checked_on_blur(wb):
    spec = ToolSpec(
        name="anything",
        description="Takes a free-form object.",
        parameters={"type": "object", "properties": {"v": {"type": "object"}}},
    )
    form = ToolForm(SpecOnlyTool(spec), wb)
    field = form.fields["v"]
    assert field.rule == "free-form object"
    field.input.value = '{"a": '  # what a blur sends
    assert field.error.startswith("v: not valid JSON")
    field.input.value = "[1]"
    assert field.error == "v: expected object, received [1] (array)"
    field.input.value = '{"a": 1}'
    assert field.error is None and form.values == {"v": {"a": 1}}


def test_a_loaded_value_is_checked_as_if_typed(wb):
    form = ToolForm(shapes_of_fields, wb)
    form.set_values({"code": "ab"})
    assert "at least 3 characters" in form.fields["code"].error
    form.set_values({"code": "ABC"})
    assert form.fields["code"].error is None


def test_untouched_and_emptied_optional_text(wb):
    """An untouched optional box says nothing; an emptied one is checked as the "" it will send."""
    spec = ToolSpec(
        name="opt",
        description="An optional code.",
        parameters={"type": "object", "properties": {"c": {"type": "string", "minLength": 2}}},
    )
    form = ToolForm(SpecOnlyTool(spec), wb)
    c = form.fields["c"]
    assert c.error is None
    c.input.value = "abc"
    c.input.value = ""
    assert c.error == "c: expected a string of at least 2 characters, received '' (string)"
    c.clear()
    assert c.error is None and form.values == {}


# -- 3. layouts ----------------------------------------------------------------------------------------
def _many(n_required: int, n_optional: int):
    lines = [f"r{i}: int" for i in range(n_required)] + [f"o{i}: str = 'x'" for i in range(n_optional)]
    namespace: dict[str, Any] = {}
    exec(f"def many({', '.join(lines)}) -> dict:\n    '''Echo.'''\n    return dict(locals())\n", namespace)
    return tool(namespace["many"])


def test_resolve_layout():
    assert resolve_layout("full", 50) == (False, False)
    assert resolve_layout("auto", COLLAPSE_OVER) == (False, False)
    assert resolve_layout("auto", COLLAPSE_OVER + 1) == (False, True)
    assert resolve_layout("compact", 1) == (True, True)
    with pytest.raises(ValueError, match="'auto', 'full', 'compact'.*'wide'"):
        resolve_layout("wide", 1)


def test_default_layout_is_unchanged_for_tools_of_up_to_12_parameters(wb):
    small = _many(2, COLLAPSE_OVER - 2)
    form = ToolForm(small, wb)
    assert form.arrangement.optional is None
    assert list(form.fields_box.children) == [f.widget for f in form.fields.values()]
    assert all(f.label.layout.width == "180px" for f in form.fields.values())


def test_auto_collapses_the_optional_fields_of_a_long_form(wb):
    big = _many(3, COLLAPSE_OVER)
    arranged = arrange_fields(big.spec.parameters, build_field)
    assert list(arranged.fields) == [f"r{i}" for i in range(3)] + [f"o{i}" for i in range(COLLAPSE_OVER)]
    *head, section = arranged.children
    assert head == [arranged.fields[f"r{i}"].widget for i in range(3)]
    assert isinstance(section, Disclosure) and section is arranged.optional.widget
    assert section.header.title == f"Optional ({COLLAPSE_OVER})"
    assert not section.header.expanded and section.body.layout.display == "none"  # collapsed
    # the collapsed fields are built when the section is first opened (the first paint does not wait for them)
    assert not [w for w in _walk(section.body) if "workbench-field" in getattr(w, "_dom_classes", ())]
    section.header.expanded = True  # what a click (or Enter / Space) on the header button sends
    assert section.body.layout.display is None and arranged.optional.is_open
    assert [w for w in _walk(section.body) if "workbench-field" in getattr(w, "_dom_classes", ())]
    # "full" never collapses
    full = arrange_fields(big.spec.parameters, build_field, "full")
    assert full.optional is None and len(full.children) == 3 + COLLAPSE_OVER


def test_compact_puts_scalars_in_two_columns_and_wide_fields_across(wb):
    arranged = arrange_fields(shapes_of_fields.spec.parameters, build_field, "compact")
    head, section = arranged.children
    assert isinstance(head, W.GridBox) and head.layout.grid_template_columns == "repeat(2, minmax(0, 1fr))"
    assert list(head.children) == [arranged.fields["price"].widget, arranged.fields["code"].widget]
    (body,) = section.body.children
    assert isinstance(body, W.GridBox)
    wide = {name for name, f in arranged.fields.items() if f.widget.layout.grid_area == SPAN_BOTH}
    assert wide == {"shape", "address", "tags", "pair", "counts", "body", "extra"}
    assert section.title == "Optional (14)"
    compact_label = WIDTHS[True]["label"]["width"]
    labels = [f.label.layout for f in arranged.fields.values() if f.label]
    assert labels and all(compact_label in (layout.width, layout.min_width) for layout in labels)
    assert arranged.fields["code"].input.layout.flex == "1 1 0%"  # inputs fill their column
    # nested fields are compact too
    address = arranged.fields["address"]
    assert address.inner.fields["street"].label.layout.width == compact_label


def test_the_disclosure_counts_set_fields_and_opens_on_an_error(wb):
    arranged = arrange_fields(shapes_of_fields.spec.parameters, build_field, "compact")
    section: OptionalSection = arranged.optional
    arranged.fields["note"].set("hello")
    arranged.fields["express"].input.value = True
    assert section.widget.title == "Optional (14) · 2 set" and not section.is_open
    arranged.fields["express"].clear()
    assert section.widget.title == "Optional (14) · 1 set"
    tags = arranged.fields["tags"]
    tags.add_button.click()
    tags.rows[0].field.input.value = "x"  # a nested error inside the collapsed section
    assert section.is_open


def test_form_layouts_send_the_same_values(wb):
    values = {"price": 2.5, "code": "ABC", "note": None, "size": "L", "tags": ["ab"], "counts": {"a": 1}}
    results = {}
    for layout in ("auto", "full", "compact"):
        form = ToolForm(shapes_of_fields, wb, layout=layout)
        form.set_values(values)
        assert form.values == values, layout
        results[layout] = form.run().json
    assert results["auto"] == results["full"] == results["compact"] == {"price": 2.5, "code": "ABC"}


def test_a_run_error_in_a_collapsed_optional_field_opens_the_disclosure(wb):
    form = ToolForm(shapes_of_fields, wb, layout="compact")
    section = form.arrangement.optional
    form.set_values({"price": 1, "code": "ABC"})
    form.fields["pair"].items[0].input.value = "x"  # not an integer
    section.collapse()
    result = form.run()
    assert result.status == "error" and "pair[0]" in form.errors
    assert section.is_open


def test_unknown_layout_is_refused_with_the_names(wb):
    with pytest.raises(ValueError, match="layout must be one of 'auto', 'full', 'compact'"):
        ToolForm(shapes_of_fields, wb, layout="wide")


def test_reset_keeps_the_layout(wb):
    form = ToolForm(shapes_of_fields, wb, layout="compact")
    form.reset()
    assert isinstance(form.fields_box.children[0], W.GridBox) and form.arrangement.optional is not None


def test_label_module_is_kept_small_in_saved_widget_state(tmp_path):
    """Each label carries its ES module in the widget state a saved notebook keeps: comments are dropped."""
    from workbench.jupyter._field_label import STATIC, module_text

    source = tmp_path / "m.js"
    source.write_text("// a comment\nfunction f() {\n    return 1; // why\n}\n\nexport default { f };\n")
    assert module_text(source) == "function f() {\nreturn 1; // why\n}\nexport default { f };"
    shipped = (STATIC / "field_label.js").read_text()
    assert len(FieldLabel().get_state()["_esm"]) < len(shipped) * 0.75
    assert "export default { render };" in FieldLabel._esm
