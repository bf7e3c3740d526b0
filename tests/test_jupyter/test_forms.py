"""ToolForm: the schema → widget table, values (not set / "" / null), errors, round trips, runs."""

from __future__ import annotations

import json
import subprocess
import sys

import ipywidgets as W
import pytest

from tests.form_catalogue import (
    CATALOGUE,
    c_annotated,
    c_any_dict,
    c_bounded_int,
    c_date,
    c_datetime,
    c_defaults,
    c_dict_int,
    c_int,
    c_list_literal,
    c_list_models,
    c_list_str,
    c_literal,
    c_long_text,
    c_model,
    c_optional_int,
    c_optional_str,
    c_str,
    c_tuple,
    c_union,
    ip,  # noqa: F401 - a fixture
    wb,  # noqa: F401 - a fixture
)
from workbench import ToolSpec, tool
from workbench.jupyter import MISSING, WIDGET_RULES, ToolForm, widget_table
from workbench.jupyter._fields import FieldValueError
from workbench.secrets import mask_arguments
from workbench.tools import SpecOnlyTool


def _rules(form: ToolForm) -> set[str]:
    return {sub.rule for field in form.fields.values() for sub in field.walk()}


def _form(wb, fn) -> ToolForm:
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


# -- import hygiene ---------------------------------------------------------------------------------------
def test_import_workbench_does_not_import_notebook_dependencies():
    code = (
        "import sys, workbench; from workbench import tool, ToolRegistry, SequentialExecutor;"
        "print(sorted(m for m in ('ipywidgets', 'IPython', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_workbench_jupyter_is_reachable_lazily_from_the_package():
    import workbench
    import workbench.jupyter as jupyter

    assert workbench.get_workbench is jupyter.get_workbench
    assert workbench.ui is jupyter.ui


# -- the table and the catalogue --------------------------------------------------------------------------
def test_catalogue_has_at_least_25_signatures():
    assert len(CATALOGUE) >= 25
    assert len({e.tool.tool_name for e in CATALOGUE}) == len(CATALOGUE)


def test_catalogue_covers_every_row_of_the_widget_table(wb):
    used: set[str] = set()
    for entry in CATALOGUE:
        form = _form(wb, entry.tool)
        form.set_values(entry.sample)
        used |= _rules(form)
    table = {name for name, _ in widget_table()}
    assert table - used == set(), f"rows without a catalogue signature: {table - used}"
    assert [r.name for r in WIDGET_RULES][:4] == ["nullable", "const", "enum", "variant"]


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.name for e in CATALOGUE])
def test_catalogue_form_round_trips_and_runs(wb, entry):
    form = _form(wb, entry.tool)
    form.set_values(entry.sample)
    assert _rules(form) >= entry.rules
    assert form.values == entry.sample  # JSON in, the same JSON out
    entry.tool.spec.check_inputs(form.values)
    result = form.run()
    assert result.status == "success", result.error
    out = result.json if result.json is not None else result.text
    assert entry.check(out), out
    assert form.errors == {}
    rows = wb.log.rows(tool=entry.tool.tool_name)
    logged = mask_arguments(entry.sample, entry.tool.spec.secret_parameters)  # a secret is logged as ***
    assert len(rows) == 1 and rows[0]["input"] == logged and rows[0]["status"] == "success"


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.name for e in CATALOGUE])
def test_catalogue_defaults_are_prefilled_and_round_trip(wb, entry):
    form = _form(wb, entry.tool)
    params = entry.tool.spec.parameters
    required = set(params.get("required") or [])
    # untouched optional fields are omitted: the fresh form sends only required fields
    assert set(form.values) <= required
    for name, sub in params["properties"].items():
        if "default" not in sub:
            continue
        shown = form.fields[name].current()
        assert name in entry.defaults, f"catalogue entry {entry.name} does not list the default of {name}"
        assert shown == entry.defaults[name], (name, shown)
        # the widget's default value is valid input
        entry.tool.spec.check_inputs({**entry.sample, name: shown})
    assert set(entry.defaults) == {n for n, s in params["properties"].items() if "default" in s}


# -- not set, "" and null ---------------------------------------------------------------------------------
def test_untouched_optional_fields_are_omitted_and_function_defaults_apply(wb):
    form = _form(wb, c_defaults)
    assert form.values == {}
    result = form.run()
    assert result.ok and result.text == "hello world hello world hello world"
    assert wb.log.rows()[-1]["input"] == {}


def test_touched_emptied_string_sends_empty_string(wb):
    form = _form(wb, c_defaults)
    text = form.fields["name"].input
    text.value = "x"
    text.value = ""
    assert form.values == {"name": ""}
    assert form.run().text == "hello  hello  hello "


def test_untouched_empty_required_string_is_missing_not_empty(wb):
    form = _form(wb, c_str)
    assert form.fields["text_value"].get() is MISSING
    assert form.values == {}
    result = form.run()
    assert result.status == "error" and result.metadata["error_type"] == "ToolInputError"
    assert "text_value" in form.errors and "missing" in form.errors["text_value"]
    assert "missing" in form.fields["text_value"].error
    assert form.fields["text_value"].error_label.layout.display is None  # visible
    assert "text_value" in form.summary.value and form.summary.layout.display is None
    assert len(wb.log) == 0  # nothing ran


def test_cleared_nullable_sends_null_and_unticked_sends_value(wb):
    form = _form(wb, c_optional_str)
    field = form.fields["label"]
    assert field.current() == "x" and form.values == {}
    field.none_box.value = True  # the user ticks "none"
    assert form.values == {"label": None}
    assert form.run().json == {"label": None}

    form = _form(wb, c_optional_int)
    field = form.fields["limit"]
    assert field.none_box.value is True and form.values == {}  # default None shown, not sent
    field.none_box.value = False
    field.inner.input.value = "7"
    assert form.values == {"limit": 7}
    field.none_box.value = True
    assert form.values == {"limit": None}


def test_unticking_none_on_a_string_sends_the_empty_string_on_purpose():
    @tool
    def maybe(text: str | None = None) -> str:
        """Echo."""
        return repr(text)

    form = ToolForm(maybe, _fresh_wb())
    assert form.values == {}
    form.fields["text"].none_box.value = False
    assert form.values == {"text": ""}


def _fresh_wb():
    from workbench.jupyter import Workbench
    from workbench.registry import ToolRegistry

    return Workbench(registry=ToolRegistry())


def test_integers_are_never_sent_as_strings(wb):
    form = _form(wb, c_int)
    assert form.values == {}  # a required number starts empty (issue 9, defect 3), not at 0
    form.fields["n"].input.value = "12"
    assert form.values == {"n": 12} and type(form.values["n"]) is int


# -- widgets per row --------------------------------------------------------------------------------------
def test_widget_classes_follow_the_table(wb):
    assert isinstance(_form(wb, c_long_text).fields["prompt"].input, W.Textarea)
    assert isinstance(_form(wb, c_str).fields["text_value"].input, W.Text)
    bounded = _form(wb, c_bounded_int).fields["n"]  # a Text read as a JSON integer, never clamped (issue 9)
    assert isinstance(bounded.input, W.Text) and bounded.input.value == "" and bounded.current() == 5
    assert "default: 5" in bounded.input.placeholder
    literal = _form(wb, c_literal).fields["mode"].input
    assert isinstance(literal, W.Dropdown) and literal.options == ("fast", "slow") and literal.index is None
    assert isinstance(_form(wb, c_list_literal).fields["options"].input, W.SelectMultiple)
    assert isinstance(_form(wb, c_date).fields["day"].input, W.DatePicker)
    dt_form = _form(wb, c_datetime)
    assert isinstance(dt_form.fields["when"].input, W.NaiveDatetimePicker)
    assert isinstance(dt_form.fields["at"].input, W.TimePicker)
    assert isinstance(_form(wb, c_any_dict).fields["payload"].input, W.Textarea)
    assert _form(wb, c_tuple).fields["pair"].rule == "tuple"


def test_refs_are_resolved_required_marked_and_help_shown(wb):
    form = _form(wb, c_model)
    item = form.fields["item"]
    assert item.rule == "object" and set(item.fields) == {"name", "qty"}
    assert item.label_text == "item *" and item.fields["name"].label_text == "name *"
    assert item.fields["qty"].label_text == "qty" and item.fields["qty"].current() == 1

    form = _form(wb, c_annotated)
    help_text = form.fields["code"].help_text
    assert "upper-case code" in help_text and "pattern /^[A-Z]+$/" in help_text and "max length 8" in help_text
    assert "≥ 0" in form.fields["count"].help_text


def test_a_field_no_widget_fits_falls_back_to_json_for_that_field_only(wb):
    spec = ToolSpec(
        name="odd",
        description="Odd schema.",
        parameters={
            "type": "object",
            "properties": {"weird": {"not": {"type": "string"}}, "n": {"type": "integer", "minimum": 2}},
            "required": ["weird", "n"],
        },
    )
    form = ToolForm(SpecOnlyTool(spec), wb)
    assert form.fields["weird"].rule == "json (fallback)" and form.fields["n"].rule == "integer"
    assert form.fields["n"].current() is MISSING  # a required number starts empty (issue 9, defect 3)
    form.fields["n"].input.value = "2"
    form.fields["weird"].input.value = "[1, 2]"
    assert form.values == {"weird": [1, 2], "n": 2}
    assert form.validate() == {"weird": [1, 2], "n": 2}
    form.fields["weird"].input.value = '"text"'
    assert form.validate() is None and "weird" in form.errors


def test_invalid_json_is_an_inline_error_and_nothing_runs(wb):
    form = _form(wb, c_any_dict)
    form.fields["payload"].input.value = "{not json"
    with pytest.raises(ValueError, match="not valid JSON"):
        form.values
    result = form.run()
    assert result.status == "error" and "payload" in form.errors
    assert "not valid JSON" in form.fields["payload"].error
    assert len(wb.log) == 0


def test_nested_errors_map_to_the_nested_widget(wb):
    form = _form(wb, c_list_models)
    form.set_values({"items": [{"qty": 2}]})
    result = form.run()
    assert result.status == "error"
    assert "items[0].name" in form.errors
    target = form.field("items[0].name")
    assert target is not None and "missing" in target.error
    assert form.fields["items"].error is None  # the message sits on the deepest widget


def test_constraint_errors_are_shown_per_field_with_a_summary_of_all(wb):
    form = _form(wb, c_annotated)
    form.set_values({"code": "abc", "count": -1})
    assert form.run().status == "error"
    assert set(form.errors) == {"code", "count"}
    assert form.fields["code"].error and form.fields["count"].error
    assert "2 field errors" in form.summary.value
    # fixing the input clears the errors on the next run
    form.set_values({"code": "ABC", "count": 1})
    assert form.run().ok and form.errors == {} and form.fields["code"].error is None


def test_editing_a_field_clears_its_error(wb):
    form = _form(wb, c_str)
    form.run()
    assert form.fields["text_value"].error
    form.fields["text_value"].input.value = "ok"
    assert form.fields["text_value"].error is None


# -- containers -------------------------------------------------------------------------------------------
def test_list_rows_can_be_added_and_removed(wb):
    form = _form(wb, c_list_str)
    field = form.fields["tags"]
    assert form.values == {"tags": []}
    field.add_button.click()
    field.add_button.click()
    field.add_button.click()
    assert form.values == {"tags": ["", "", ""]}  # rows the user added are meant to be sent
    field.rows[0].field.input.value = "a"
    field.rows[2].field.input.value = "c"
    field.rows[1].box.children[1].click()  # the row's remove button
    assert form.values == {"tags": ["a", "c"]}
    assert [r.field.path_text for r in field.rows] == ["tags[0]", "tags[1]"]
    assert form.run().json == ["a", "c"]


def test_mapping_rows_with_keys(wb):
    form = _form(wb, c_dict_int)
    field = form.fields["counts"]
    field.add_button.click()
    row = field.rows[0]
    row.key.value = "x"
    row.field.input.value = "4"
    assert form.values == {"counts": {"x": 4}}
    field.add_button.click()
    field.rows[1].key.value = "x"
    with pytest.raises(ValueError, match="duplicate key"):
        form.values


def test_variant_selector_switches_the_alternative(wb):
    form = _form(wb, c_union)
    field = form.fields["key"]
    assert field.selector.options == ("integer", "string") and field.current() == 1
    field.selector.index = 1
    field.selected.input.value = "abc"
    assert form.values == {"key": "abc"}
    assert form.run().json == {"type": "str", "key": "abc"}


def test_set_values_rejects_unknown_names_and_values_a_widget_cannot_hold(wb):
    form = _form(wb, c_bounded_int)
    with pytest.raises(KeyError, match="nope"):
        form.set_values({"nope": 1})
    form.set_values({"n": 11})  # shown as given, with why it is invalid (issue 9: never clamped or refused silently)
    assert form.fields["n"].input.value == "11" and "≤ 10" in form.fields["n"].error
    assert form.run().status == "error" and "n" in form.errors
    with pytest.raises(TypeError):
        _form(wb, c_int).set_values({"n": "3"})


def test_reset_brings_back_the_defaults(wb):
    form = _form(wb, c_defaults)
    form.set_values({"name": "x", "times": 1})
    assert form.values == {"name": "x", "times": 1}
    form.reset_button.click()
    assert form.values == {} and form.fields["name"].current() == "world"


# -- header, request/response, copy as code ----------------------------------------------------------------
def test_header_escapes_the_description(wb):
    @tool
    def sneaky(x: int) -> int:
        """Adds <script>alert(1)</script> & more."""
        return x

    form = _form(wb, sneaky)
    assert "<script>" not in form.header.value and "&lt;script&gt;" in form.header.value


def test_request_response_and_copy_as_code(wb, ip):
    form = _form(wb, c_int)
    form.set_values({"n": 21})
    result = form.run()
    request = form.request_html.value
    assert result.tool_use_id in request and "&quot;n&quot;: 21" in request
    assert "&quot;status&quot;: &quot;success&quot;" in form.response_html.value
    assert form.tool_use == {"toolUseId": result.tool_use_id, "name": "c_int", "input": {"n": 21}}
    code = form.code.value
    assert '%tool_call c_int {"n": 21}' in code
    assert "get_workbench().call('c_int', {'n': 21})" in code
    assert form.details.titles == ("Request (ToolUse)", "Response (ToolResult)", "Copy as code")
    # the copied line really is equivalent
    line = code.splitlines()[0]
    again = ip.run_line_magic("tool_call", line[len("%tool_call ") :])
    assert again.ok and again.json == result.json
    namespace: dict = {}
    exec("\n".join(code.splitlines()[2:]).replace("get_workbench().call", "result = get_workbench().call"), namespace)
    assert namespace["result"].json == 42


def test_form_accepts_a_tool_name_and_defaults_to_the_kernel_workbench(wb):
    wb.registry.register_tool(c_int)
    form = ToolForm("c_int")
    assert form.workbench is wb and form.tool is c_int
    assert wb.form("c_int") is wb.form(c_int)  # cached


def test_a_tool_outside_the_registry_still_runs(wb):
    @tool
    def loner(a: int) -> int:
        """Not registered."""
        return a + 1

    form = ToolForm(loner, wb)
    form.set_values({"a": 1})
    assert form.run().json == 2
    assert "loner" not in wb.registry


def test_field_value_error_names_the_field(wb):
    form = _form(wb, c_any_dict)
    form.fields["payload"].input.value = "[1,"
    with pytest.raises(FieldValueError) as info:
        form.fields["payload"].get()
    assert info.value.field is form.fields["payload"]
    assert json.loads("[1]") == [1]


def test_a_tool_without_parameters(wb):
    @tool
    def now() -> str:
        """No inputs."""
        return "now"

    form = _form(wb, now)
    assert form.fields == {} and "no parameters" in form.fields_box.children[0].value
    assert form.values == {} and form.run().text == "now"


def test_custom_rows_extend_the_table_and_a_failing_factory_falls_back_to_json(wb):
    from workbench.jupyter import register_widget_rule
    from workbench.jupyter._fields import StringField

    class ColorField(StringField):
        def _widget(self, **kw):
            return W.ColorPicker(concise=False)

    def broken(*args, **kwargs):
        raise RuntimeError("no widget for you")

    @tool
    def paint(color: str, secret: str = "x") -> str:
        """Paint.

        Args:
            color: a color
            secret: a secret
        """
        return color

    rules = [
        register_widget_rule("color", lambda s, where: where.name == "color", ColorField, widget="ColorPicker"),
        register_widget_rule("broken", lambda s, where: where.name == "secret", broken),
    ]
    try:
        form = _form(wb, paint)
        assert form.fields["color"].rule == "color" and isinstance(form.fields["color"].input, W.ColorPicker)
        assert form.fields["secret"].rule == "json (fallback)"
        form.fields["color"].input.value = "#ff0000"
        assert form.values == {"color": "#ff0000"}
        assert ("color", "ColorPicker") in widget_table()
    finally:
        for rule in rules:
            WIDGET_RULES.remove(rule)
    assert _form(wb, paint).fields["color"].rule == "string"
