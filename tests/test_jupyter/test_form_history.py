"""Form history (#22): the form keeps its recent inputs (from the log) and loads one back."""

from __future__ import annotations

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm


@tool
def greet(name: str, times: int = 1) -> str:
    """Greet someone."""
    return " ".join([f"hi {name}"] * times)


@tool
def other(x: int) -> int:
    """Another tool."""
    return x


def test_history_lists_distinct_inputs_newest_first_and_updates_after_each_run(wb):
    form = ToolForm(greet)
    assert form.history == []
    for name in ["a", "b", "a", "<c>"]:
        form.set_values({"name": name})
        assert form.run().status == "success"
    assert form.history == [{"name": "<c>"}, {"name": "a"}, {"name": "b"}]
    assert form.history_select.options[0][0] == '{"name":"<c>"}'  # compact JSON
    assert form.history_select.layout.display is None and not form.history_select.disabled


def test_history_is_only_this_tools_and_at_most_ten(wb):
    form = ToolForm(greet)
    ToolForm(other).set_values({"x": 1}).run()
    for i in range(12):
        form.set_values({"name": f"n{i}", "times": 2})
        form.run()
    assert len(form.history) == 10
    assert form.history[0] == {"name": "n11", "times": 2} and form.history[-1] == {"name": "n2", "times": 2}


def test_history_comes_from_the_log_for_a_new_form(wb):
    ToolForm(greet).set_values({"name": "old"}).run()
    assert ToolForm(greet).history == [{"name": "old"}]


def test_load_history_puts_an_input_back_into_the_fields(wb):
    form = ToolForm(greet)
    form.set_values({"name": "first", "times": 3}).run()
    form.reset()
    form.set_values({"name": "second"}).run()
    form.load_history(1)
    assert form.values == {"name": "first", "times": 3}
    form.history_select.value = 0  # what a click on an entry does
    assert form.values == {"name": "second"}


def test_load_history_in_json_mode_fills_the_editor_and_a_bad_index_names_the_range(wb):
    form = ToolForm(greet)
    form.set_values({"name": "j"}).run()
    form.show_json()
    form.load_history(0)
    assert '"name": "j"' in form.json_mode.editor.value
    import pytest

    with pytest.raises(IndexError, match="greet: history entry 5 does not exist"):
        form.load_history(5)


def test_a_form_without_history_hides_the_dropdown(wb):
    form = ToolForm(greet)
    assert form.history_select.layout.display == "none"
