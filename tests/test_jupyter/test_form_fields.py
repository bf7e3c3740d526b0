"""Field-level defects of issue 9, in-process (ipywidgets without a browser).

1. number fields keep what was typed and say why it is invalid (never coerced or clamped);
2. ``Optional[Union[A, B]]`` / ``Union[int, str, None]`` offer every branch;
3. required numbers start empty and are reported missing (dict values and list items too);
5. *not set*, ``null`` and ``""`` are shown apart, defaults are shown, optional fields can be cleared;
6. field messages are specific (``expected integer``, ``a date (YYYY-MM-DD)``), nested as top-level;
10. field colours are JupyterLab theme variables.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from decimal import Decimal
from typing import Annotated, Literal, Optional, Union

import ipywidgets as W
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import ToolSpec, tool
from workbench.jupyter import MISSING, ToolForm
from workbench.jupyter._fields import FieldValueError
from workbench.jupyter._schema_utils import expected_text, number_problem, parse_number
from workbench.tools import SpecOnlyTool


class Circle(BaseModel):
    radius: float


class Square(BaseModel):
    side: float


class Customer(BaseModel):
    full_name: str
    years: int
    born: dt.date


@tool
def ages(
    age: Annotated[int, Field(ge=0, le=150)], price: float, step: Annotated[int, Field(multiple_of=5)] = 10
) -> dict:
    """Echo numbers."""
    return {"age": age, "price": price, "step": step}


@tool
def shapes(shape: Union[Circle, Square, None] = None, key: Union[int, str, None] = None) -> dict:
    """Which branch arrived."""
    return {"shape": type(shape).__name__, "key": type(key).__name__}


@tool
def tally(counts: dict[str, int], values: list[int] = []) -> int:  # noqa: B006
    """Sum."""
    return sum(counts.values()) + sum(values)


@tool
def prefs(
    times: int = 10,
    nickname: Optional[str] = None,
    note: str = "hi",
    level: Literal["low", "high"] = "low",
    loud: bool = False,
    ratio: Optional[float] = 0.5,
) -> dict:
    """Echo."""
    return {"times": times, "nickname": nickname, "note": note, "level": level, "loud": loud, "ratio": ratio}


@tool
def order(customer: Customer, day: dt.date, when: dt.datetime) -> str:
    """Order."""
    return customer.full_name


def _form(wb, fn) -> ToolForm:
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


def _type(field, text: str) -> None:
    """Type ``text`` into a text box as the browser sends it (one value change on blur)."""
    field.input.value = text


def _visible(widget: W.Widget) -> bool:
    return widget.layout.display != "none"


def _shown_widgets(widget: W.Widget):
    """Every widget a user can see under ``widget`` (children of hidden boxes excluded)."""
    if not _visible(widget):
        return
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _shown_widgets(child)


# -- 1. numbers keep what was typed ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, integer, value",
    [
        ("42", True, 42),
        (" 42 ", True, 42),
        ("-0", True, 0),
        ("3.0", True, 3),
        ("1e3", True, 1000),
        ("1E+2", True, 100),
        ("12345678901234567890123", True, 12345678901234567890123),
        ("0.5", False, 0.5),
        ("3", False, 3),
        ("-2.5e-3", False, -0.0025),
        ("1e3", False, 1000.0),
    ],
)
def test_parse_number_reads_json_numbers_exactly(text, integer, value):
    parsed = parse_number(text, integer=integer)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    "text, integer, reason",
    [
        ("3.7", True, "not a whole number"),
        ("abc", True, "not a number"),
        ("1,5", False, "decimal separator"),
        ("+5", True, "+ sign"),
        ("007", True, "leading zeros"),
        (".5", False, "0.5"),
        ("5.", False, "0.5"),
        ("1_000", True, "separators"),
        ("inf", False, "infinity"),
        ("NaN", False, "NaN"),
        ("0x10", True, "not a number"),
        ("1e999999999", True, "too large"),
        ("1e400", False, "too large"),
        ("", True, "not a number"),
    ],
)
def test_parse_number_refuses_with_the_reason(text, integer, reason):
    with pytest.raises(ValueError) as info:
        parse_number(text, integer=integer)
    message = str(info.value)
    assert message.startswith("expected integer" if integer else "expected number") and reason in message


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_any_integer_typed_reads_back_as_itself(n):
    assert parse_number(str(n), integer=True) == n
    assert parse_number(f"{n}.0", integer=True) == n


@settings(max_examples=150, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_float_shown_reads_back_as_itself(x):
    assert parse_number(repr(x), integer=False) == x


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=12))
def test_a_number_box_never_rewrites_what_was_typed(text):
    from workbench.jupyter import Workbench
    from workbench.registry import ToolRegistry

    form = ToolForm(ages, Workbench(registry=ToolRegistry()))
    field = form.fields["age"]
    _type(field, text)
    assert field.input.value == text
    try:
        value = field.current()
    except FieldValueError as exc:  # refused: the reason is shown under the field
        assert exc.field is field and field.error and "age: expected integer" in field.error
        return
    if not text.strip():
        assert value is MISSING
        return
    exact = Decimal(text.strip())
    assert value == exact and type(value) is int  # the very number typed, never truncated or rounded
    assert (field.error is None) == (0 <= value <= 150)


@pytest.mark.parametrize(
    "typed, reason",
    [
        ("3.7", "expected integer"),
        ("1e3", "must be ≤ 150"),
        ("abc", "expected integer"),
        ("200", "must be ≤ 150"),
        ("-1", "must be ≥ 0"),
    ],
)
def test_invalid_number_stays_as_typed_is_explained_inline_and_nothing_runs(wb, typed, reason):
    form = _form(wb, ages)
    _type(form.fields["price"], "9.5")
    field = form.fields["age"]
    _type(field, typed)
    assert field.input.value == typed
    assert reason in field.error and _visible(field.error_label)  # shown on blur, before Run
    result = form.run()
    assert result.status == "error" and "age" in form.errors and form.summary.layout.display is None
    assert field.input.value == typed and field.error
    assert len(wb.log) == 0  # nothing was sent


def test_number_field_checks_multiple_of_and_sends_the_typed_number(wb):
    form = _form(wb, ages)
    _type(form.fields["step"], "7")
    assert "multiple of 5" in form.fields["step"].error
    _type(form.fields["step"], "15")
    _type(form.fields["age"], "1e2")
    _type(form.fields["price"], "0.30")
    assert form.fields["step"].error is None
    assert form.values == {"age": 100, "price": 0.3, "step": 15} and type(form.values["age"]) is int
    assert form.run().json == {"age": 100, "price": 0.3, "step": 15}


def test_number_problem_is_exact_for_decimal_steps():
    assert number_problem(0.3, {"multipleOf": 0.1}) is None
    assert number_problem(0.35, {"multipleOf": 0.1}) == "must be a multiple of 0.1"
    assert number_problem(1, {"exclusiveMinimum": 1}) == "must be > 1"
    assert number_problem(10**40 + 1, {"multipleOf": 2}) == "must be a multiple of 2"


def test_number_fields_are_text_boxes_checked_on_blur():
    form = ToolForm(ages, _fresh_wb())
    for name in ("age", "price", "step"):
        box = form.fields[name].input
        assert type(box) is W.Text and box.continuous_update is False
    assert form.fields["age"].rule == "integer" and form.fields["price"].rule == "number"


# -- 2. optional unions offer every branch ---------------------------------------------------------------
def test_optional_union_of_models_shows_the_selector_and_sends_the_second_branch(wb):
    form = _form(wb, shapes)
    field = form.fields["shape"]
    field.none_box.value = False  # the user unticks "none"
    variant = field.inner
    assert variant.rule == "variant" and variant.selector in list(_shown_widgets(field.widget))
    assert variant.selector.options == ("Circle", "Square")
    variant.selector.index = 1
    assert variant.selected.child("side") is not None
    variant.selected.child("side").input.value = "2.5"
    assert form.values == {"shape": {"side": 2.5}}
    assert form.run().json == {"shape": "Square", "key": "NoneType"}


def test_union_with_none_of_scalars_shows_the_selector(wb):
    form = _form(wb, shapes)
    field = form.fields["key"]
    field.none_box.value = False
    variant = field.inner
    assert variant.selector in list(_shown_widgets(field.widget)) and variant.selector.options == ("integer", "string")
    variant.selector.index = 1
    variant.selected.input.value = "abc"
    assert form.values == {"key": "abc"}
    assert form.run().json == {"shape": "NoneType", "key": "str"}
    field.none_box.value = True  # "none" hides the selector and sends null
    assert variant.selector not in list(_shown_widgets(field.widget)) and form.values == {"key": None}


def test_set_values_picks_the_branch_of_an_optional_union(wb):
    form = _form(wb, shapes)
    form.set_values({"shape": {"side": 3.0}, "key": 4})
    assert (
        form.fields["shape"].inner.selector.label == "Square" and form.fields["key"].inner.selector.label == "integer"
    )
    assert form.values == {"shape": {"side": 3.0}, "key": 4}


def test_type_list_with_null_shows_the_selector(wb):
    spec = ToolSpec(
        name="typed",
        description="A type list with null.",
        parameters={"type": "object", "properties": {"v": {"type": ["integer", "string", "null"]}}},
    )
    form = ToolForm(SpecOnlyTool(spec), wb)
    field = form.fields["v"]
    field.none_box.value = False
    assert field.inner.selector in list(_shown_widgets(field.widget))


# -- 3. required numbers start empty ---------------------------------------------------------------------
def test_required_numbers_start_empty_and_are_reported_missing(wb):
    form = _form(wb, ages)
    assert form.fields["age"].input.value == "" and form.fields["price"].input.value == ""
    assert form.values == {}
    result = form.run()
    assert result.status == "error" and len(wb.log) == 0
    for name in ("age", "price"):
        assert "required field is missing" in form.errors[name]
        assert "required field is missing" in form.fields[name].error


def test_dict_values_and_list_items_start_empty_and_are_reported_missing(wb):
    form = _form(wb, tally)
    counts = form.fields["counts"]
    counts.add_button.click()
    counts.rows[0].key.value = "apples"
    assert counts.rows[0].field.input.value == ""
    with pytest.raises(ValueError, match=re.escape("counts.apples: required field is missing (expected integer)")):
        form.values
    result = form.run()
    assert result.status == "error" and "missing" in form.errors["counts.apples"]
    assert "missing" in counts.rows[0].field.error and len(wb.log) == 0
    counts.rows[0].field.input.value = "3"
    values = form.fields["values"]
    values.add_button.click()
    assert (
        form.run().status == "error"
        and "values[0]: required field is missing (expected integer)" in form.errors["values[0]"]
    )
    values.rows[0].field.input.value = "4"
    assert form.run().json == 7


def test_a_required_tuple_left_empty_is_missing_and_a_half_filled_one_names_the_gap(wb):
    @tool
    def pair(p: tuple[int, str]) -> list:
        """A pair."""
        return list(p)

    form = _form(wb, pair)
    assert form.values == {}
    form.fields["p"].items[1].input.value = "x"
    with pytest.raises(ValueError, match=re.escape("p[0]: required field is missing (expected integer)")):
        form.values
    form.fields["p"].items[0].input.value = "1"
    assert form.run().json == [1, "x"]


# -- 5. not set, null and "" look different; clear ------------------------------------------------------
def _note(field) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", field.state_label.value)) if _visible(field.state_label) else ""


def test_untouched_optional_fields_show_not_set_and_their_default(wb):
    form = _form(wb, prefs)
    f = form.fields
    assert f["times"].input.value == "" and f["times"].input.placeholder == "not set — default: 10"
    assert f["note"].input.value == "" and f["note"].input.placeholder == 'not set — default: "hi"'
    assert _note(f["level"]) == 'not set — default: "low"' and f["level"].input.label == "low"
    assert _note(f["loud"]) == "not set — default: false"
    assert _note(f["nickname"]) == "not set — default: null" and not _visible(f["nickname"].null_pill)
    assert _note(f["ratio"]) == "" and f["ratio"].inner.input.placeholder == "not set — default: 0.5"
    assert not any(_visible(x.clear_button) for x in f.values())  # nothing to clear yet
    assert form.values == {}
    assert {k: x.current() for k, x in f.items()} == {
        "times": 10,
        "nickname": None,
        "note": "hi",
        "level": "low",
        "loud": False,
        "ratio": 0.5,
    }


def test_null_is_a_visible_state_distinct_from_not_set(wb):
    form = _form(wb, prefs)
    nickname = form.fields["nickname"]
    nickname.none_box.value = False
    assert nickname.inner.input.placeholder == '"" (empty string)' and not _visible(nickname.null_pill)
    assert form.values == {"nickname": ""}
    nickname.none_box.value = True
    assert _visible(nickname.null_pill) and "null" in nickname.null_pill.value and _note(nickname) == ""
    assert form.values == {"nickname": None}


def test_an_emptied_string_says_so_and_is_sent(wb):
    form = _form(wb, prefs)
    note = form.fields["note"]
    note.input.value = "x"
    note.input.value = ""
    assert note.input.placeholder == '"" (empty string)' and form.values == {"note": ""}


@pytest.mark.parametrize(
    "name, touch",
    [
        ("times", lambda f: setattr(f.input, "value", "5")),
        ("note", lambda f: (setattr(f.input, "value", "x"), setattr(f.input, "value", ""))),
        ("level", lambda f: setattr(f.input, "index", 1)),
        ("loud", lambda f: setattr(f.input, "value", True)),
        ("nickname", lambda f: setattr(f.none_box, "value", False)),
        ("ratio", lambda f: setattr(f.none_box, "value", True)),
    ],
)
def test_clear_returns_an_optional_field_to_not_set(wb, name, touch):
    form = _form(wb, prefs)
    field = form.fields[name]
    before = (field.current(), _note(field), getattr(field, "text_like", False) and field.input.placeholder)
    touch(field)
    assert name in form.values and _visible(field.clear_button)
    field.clear_button.click()
    assert name not in form.values and not _visible(field.clear_button)
    assert (field.current(), _note(field), getattr(field, "text_like", False) and field.input.placeholder) == before
    assert form.run().json[name] == prefs.spec.parameters["properties"][name]["default"]


def test_required_fields_have_no_clear_button_and_optional_nested_ones_do(wb):
    form = _form(wb, order)
    assert form.fields["day"].clear_button is None  # not even a hidden one (#22: fewer widgets per row)
    assert not any("workbench-field-clear" in w._dom_classes for w in _shown_widgets(form.fields["day"].widget))

    from tests.form_catalogue import c_model

    form = _form(wb, c_model)
    qty = form.fields["item"].fields["qty"]
    qty.input.value = "4"
    assert form.values == {"item": {"qty": 4}} and _visible(qty.clear_button)
    qty.clear_button.click()
    assert form.values == {"item": {}} and qty.input.placeholder == "not set — default: 1"


def test_clearing_a_list_with_a_default_brings_the_default_back(wb):
    from tests.form_catalogue import c_list_int

    form = _form(wb, c_list_int)
    field = form.fields["values"]
    field.add_button.click()
    field.rows[-1].field.input.value = "9"
    assert form.values == {"values": [1, 2, 9]}
    field.clear_button.click()
    assert form.values == {} and field.current() == [1, 2] and _note(field) == "not set — default: [1, 2]"


# -- 9 (field part). dictionary rows: the key is the label ----------------------------------------------
def test_dict_rows_show_no_stray_star_or_label_gap(wb):
    form = _form(wb, tally)
    counts = form.fields["counts"]
    counts.add_button.click()
    labels = [w.value for w in _shown_widgets(counts.rows[0].box) if isinstance(w, W.Label)]
    assert labels == [] and "*" not in str(labels)
    counts.rows[0].key.value = "apples"
    counts.rows[0].field.input.value = "x"
    assert "margin-left:0" in counts.rows[0].field.error_label.value  # the error sits under the value, no gap


def test_long_words_in_help_and_errors_wrap_instead_of_widening_the_form(wb):
    @tool
    def wide(x: Annotated[str, Field(description="A" * 300)]) -> str:
        """Wide."""
        return x

    form = _form(wb, wide)
    form.run()
    field = form.fields["x"]
    assert "overflow-wrap:anywhere" in field.error_label.value
    assert all(
        "overflow-wrap:anywhere" in w.value
        for w in _shown_widgets(field.widget)
        if isinstance(w, W.HTML) and "A" * 300 in w.value
    )


# -- 6. field messages are specific ----------------------------------------------------------------------
def test_expected_text_names_formats_and_types():
    root: dict = {}
    assert expected_text({"type": "string", "format": "date"}, root) == "a date (YYYY-MM-DD)"
    assert expected_text({"type": "string", "format": "date-time"}, root) == "a date-time (YYYY-MM-DDTHH:MM[:SS])"
    assert expected_text({"type": "integer"}, root) == "integer"
    assert expected_text({"anyOf": [{"type": "integer"}, {"type": "string"}]}, root) == "integer or string"
    assert expected_text({"enum": ["a", "b"]}, root) == 'one of "a", "b"'


def test_nested_and_date_fields_say_what_they_expect_like_top_level_ones(wb):
    form = _form(wb, order)
    assert form.run().status == "error"
    assert form.errors["customer.full_name"] == "customer.full_name: required field is missing (expected string)"
    assert form.errors["customer.years"] == "customer.years: required field is missing (expected integer)"
    assert form.errors["customer.born"] == "customer.born: required field is missing (expected a date (YYYY-MM-DD))"
    assert form.errors["day"] == "day: required field is missing (expected a date (YYYY-MM-DD))"
    assert form.errors["when"] == "when: required field is missing (expected a date-time (YYYY-MM-DDTHH:MM[:SS]))"
    assert "expected string" in form.fields["customer"].fields["full_name"].error
    assert "YYYY-MM-DD" in form.fields["day"].error


def test_schema_only_tools_word_nested_and_format_errors_the_same_way():
    spec = ToolSpec(name="s", description="Schema only.", parameters=order.spec.parameters)
    with pytest.raises(ValueError) as info:
        spec.check_inputs({"customer": {"full_name": "x"}, "day": "2024-13-45", "when": "2024-01-01T00:00:00"})
    text = str(info.value)
    assert "customer.years: required field is missing (expected integer)" in text
    assert "customer.born: required field is missing (expected a date (YYYY-MM-DD))" in text
    assert "day: expected a date (YYYY-MM-DD), received '2024-13-45'" in text


def test_missing_rows_say_what_they_expect_including_formats(wb):
    @tool
    def days(by_name: dict[str, dt.date]) -> int:
        """Dates by name."""
        return len(by_name)

    form = _form(wb, days)
    form.fields["by_name"].add_button.click()
    form.fields["by_name"].rows[0].key.value = "start"
    assert form.run().status == "error"
    assert form.errors["by_name.start"] == "by_name.start: required field is missing (expected a date (YYYY-MM-DD))"


def test_number_messages_are_as_specific_nested_as_at_the_top(wb):
    form = _form(wb, order)
    years = form.fields["customer"].fields["years"]
    years.input.value = "2.5"
    assert years.error == "customer.years: expected integer, received 2.5 (not a whole number)"
    form.run()
    assert form.errors["customer.years"] == years.error


# -- 10. colours are theme variables ---------------------------------------------------------------------
_COLOUR_PROPERTY = re.compile(r"(?:^|[;'\"\s])(color|background(?:-color)?|border(?:-[a-z]+)?)\s*:\s*([^;'\"]+)")
_THEME_VARIABLE = re.compile(r"var\(--jp-[a-z0-9-]+\)")
_COLOUR_LITERAL = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?)\(|\b(?:red|green|blue|grey|gray|black|white|orange)\b"
)


def _styles(widget: W.Widget):
    """Every colour-bearing CSS value (HTML values and layout borders) under ``widget``."""
    texts = [widget.value] if isinstance(widget, W.HTML) else []
    layout = getattr(widget, "layout", None)
    for key in ("border", "border_left", "border_top", "border_right", "border_bottom"):
        value = getattr(layout, key, None) if layout is not None else None
        if value:
            texts.append(f"border:{value}")
    for text in texts:
        yield from (value for _name, value in _COLOUR_PROPERTY.findall(text))
    for child in getattr(widget, "children", ()):
        yield from _styles(child)


def test_field_colours_are_jupyterlab_variables(wb):
    forms = [_form(wb, fn) for fn in (ages, shapes, tally, prefs, order)]
    seen = 0
    for form in forms:
        form.run()  # inline errors for the required fields
        for field in form.fields.values():
            if hasattr(field, "none_box"):
                field.none_box.value = True  # the null pill too
            for style in _styles(field.widget):
                seen += 1
                assert not _COLOUR_LITERAL.search(_THEME_VARIABLE.sub("", style)), style
    assert seen >= 10
    assert any("var(--jp-error-color1)" in s for f in forms for x in f.fields.values() for s in _styles(x.widget))


def _fresh_wb():
    from workbench.jupyter import Workbench
    from workbench.registry import ToolRegistry

    return Workbench(registry=ToolRegistry())


def test_dom_hooks_for_the_browser_tests(wb):
    form = _form(wb, prefs)
    field = form.fields["times"]
    assert "workbench-field" in field.widget._dom_classes
    assert "workbench-field-error" in field.error_label._dom_classes
    assert "workbench-field-clear" in field.clear_button._dom_classes
    assert "workbench-null" in form.fields["nickname"].null_pill._dom_classes
    assert json.dumps(field.clear_button.tooltip).startswith('"Clear')
