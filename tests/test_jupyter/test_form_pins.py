"""Pinning (#22): pin a run's input and result; two pinned runs are compared side by side."""

from __future__ import annotations

import pytest

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm


@tool
def lookup(city: str, units: str = "metric") -> dict:
    """Look up a city."""
    return {"city": city, "temp": 21 if units == "metric" else 70, "units": units, "note": "<i>x</i>"}


def test_nothing_to_pin_before_a_run_names_the_tool(wb):
    form = ToolForm(lookup)
    assert form.pins == [] and form.pin_button.disabled
    with pytest.raises(RuntimeError, match="lookup: nothing to pin"):
        form.pin()


def test_a_pin_keeps_the_input_and_the_result(wb):
    form = ToolForm(lookup)
    form.set_values({"city": "Paris"}).run()
    assert not form.pin_button.disabled
    pin = form.pin()
    assert pin.input == {"city": "Paris"} and pin.result.status == "success"
    assert form.pins == [pin]
    assert "Paris" in form.pins_html.value and form.pins_box.layout.display is None


def test_two_pins_are_compared_inputs_and_a_json_diff_of_the_results(wb):
    form = ToolForm(lookup)
    form.set_values({"city": "Paris"}).run()
    form.pin()
    form.set_values({"units": "imperial"}).run()
    form.pin()
    html = form.pins_html.value
    assert "workbench-pin-compare" in html
    assert "imperial" in html and "Paris" in html
    # the diff names the places that differ, and not the ones alike
    assert "/temp" in html and "21" in html and "70" in html and "/units" in html
    assert "/city" not in html
    assert "&lt;i&gt;x&lt;/i&gt;" in html and "<i>x</i>" not in html  # escaped


def test_identical_results_say_so(wb):
    form = ToolForm(lookup)
    form.set_values({"city": "Rome"}).run()
    form.pin()
    form.run()
    form.pin()
    assert "same result" in form.pins_html.value


def test_a_third_pin_replaces_the_oldest_and_unpin_removes_one(wb):
    form = ToolForm(lookup)
    for city in ("A", "B", "C"):
        form.set_values({"city": city}).run()
        form.pin()
    assert [p.input["city"] for p in form.pins] == ["B", "C"]
    form.unpin(0)
    assert [p.input["city"] for p in form.pins] == ["C"]
    assert "workbench-pin-compare" not in form.pins_html.value
    with pytest.raises(IndexError, match="lookup: pin 3 does not exist"):
        form.unpin(3)
    form.unpin(0)
    assert form.pins == [] and form.pins_box.layout.display == "none"


def test_the_unpin_buttons_unpin(wb):
    form = ToolForm(lookup)
    form.set_values({"city": "A"}).run()
    form.pin()
    form.set_values({"city": "B"}).run()
    form.pin()
    assert len(form.unpin_buttons) == 2
    form.unpin_buttons[0].click()
    assert [p.input["city"] for p in form.pins] == ["B"]
