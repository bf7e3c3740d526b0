"""Issue 28: a form's widgets do not pile up. Runs, pins, resets, history loads and JSON mode replace what the
form shows; the widgets replaced are closed (they would stay in the kernel, the page and the saved notebook),
so the count of live widgets stops growing after the first cycles."""

from __future__ import annotations

from typing import Optional

from ipywidgets.widgets.widget import _instances

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm


@tool
def order(item: str, qty: int = 1, tags: list[str] = [], note: Optional[str] = None) -> dict:  # noqa: B006
    """Order something."""
    return {"item": item, "qty": qty, "tags": tags}


def _cycle(form: ToolForm, i: int) -> None:
    form.set_values({"item": f"thing {i}", "tags": ["a", "b", str(i)]})
    assert form.run().ok
    form.pin()
    form.load_history(0)
    form.show_json()
    form.show_form()
    form.reset()


def test_runs_pins_and_resets_leave_no_widgets_behind(wb):  # noqa: F811
    form = ToolForm(order, wb)
    for i in range(3):  # the first cycles make what is kept (two pins' buttons, the history's entries)
        _cycle(form, i)
    settled = len(_instances)
    for i in range(3, 13):
        _cycle(form, i)
    assert len(_instances) == settled, f"{len(_instances) - settled} widgets left behind by 10 cycles"


def test_a_reset_closes_the_widgets_of_the_fields_it_replaces(wb):  # noqa: F811
    form = ToolForm(order, wb)
    old = form.fields["tags"].widget
    form.reset()
    assert old.comm is None
    assert form.fields["tags"].widget is not old and form.fields["tags"].widget.comm is not None
