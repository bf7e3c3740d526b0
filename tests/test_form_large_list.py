"""A large list in a form (#22 defect 4): JSON → Form with 300 model items built everything at once
(45 s with nothing shown). Rows are built a page at a time behind a "show more" button."""

from __future__ import annotations

from pydantic import BaseModel

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm
from workbench.jupyter._containers import ROWS_PAGE


class Item(BaseModel):
    sku: str
    qty: int


@tool
def order(items: list[Item], note: str = "") -> int:
    """Order items."""
    return len(items)


ITEMS = [{"sku": f"s{i}", "qty": i} for i in range(300)]


def test_a_large_list_builds_one_page_and_still_sends_every_item(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS})
    field = form.fields["items"]
    assert ROWS_PAGE == 20 and len(field.rows) == ROWS_PAGE
    assert field.more_button.layout.display != "none" and "280 more" in field.more_button.description
    assert form.values == {"items": ITEMS}
    result = form.run()
    assert result.status == "success" and "300" in (result.text or str(result.json))


def test_show_more_builds_the_next_page_and_hides_itself_at_the_end(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS[:50]})
    field = form.fields["items"]
    field.more_button.click()
    assert len(field.rows) == 40 and "10 more" in field.more_button.description
    field.more_button.click()
    assert len(field.rows) == 50 and field.more_button.layout.display == "none"
    assert form.values == {"items": ITEMS[:50]}


def test_an_error_path_past_the_page_builds_its_row(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS})
    assert form.field("items[250].qty") is not None
    assert len(form.fields["items"].rows) >= 251


def test_adding_or_removing_a_row_keeps_the_unbuilt_items(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS[:60]})
    field = form.fields["items"]
    field.add_button.click()
    field.rows[-1].field.set({"sku": "new", "qty": 1})
    assert form.values["items"] == ITEMS[:60] + [{"sku": "new", "qty": 1}]
    field.remove_row(field.rows[0])
    assert form.values["items"] == ITEMS[1:60] + [{"sku": "new", "qty": 1}]


def test_json_to_form_with_300_items_shows_a_page_and_keeps_the_input(wb):
    form = ToolForm(order)
    form.show_json()
    import json
    form.json_mode.editor.value = json.dumps({"items": ITEMS})
    assert form.show_form() is True
    assert len(form.fields["items"].rows) == ROWS_PAGE
    assert form.values == {"items": ITEMS}
    assert form.json_mode.verdict.value == "" or "Building" not in form.json_mode.verdict.value


def test_a_small_list_has_no_show_more(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS[:3]})
    assert len(form.fields["items"].rows) == 3 and form.fields["items"].more_button.layout.display == "none"


def test_json_to_form_shows_that_it_is_building_while_it_builds(wb):
    form = ToolForm(order)
    form.show_json()
    import json
    form.json_mode.editor.value = json.dumps({"items": ITEMS})
    seen = []
    write = form.json_mode._write
    form.json_mode._write = lambda value: (seen.append(form.json_mode.verdict.value), write(value))
    assert form.show_form() is True
    assert seen and "Building the form" in seen[0]
    assert "Building the form" not in form.json_mode.verdict.value
