"""A large list in a form (#22 defect 4): JSON → Form with 300 model items built everything at once
(45 s with nothing shown). Rows are built a page at a time behind a "show more" button; a page of
big rows has fewer rows, and each row makes as few widgets (and messages) as it can: every one is a
model the browser creates and renders (the first page of 20 such rows took ~3 s to appear)."""

from __future__ import annotations

import json

import comm
import ipywidgets as W
from comm.base_comm import BaseComm
from ipywidgets.widgets.widget import _instances
from pydantic import BaseModel

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import tool
from workbench.jupyter import ToolForm
from workbench.jupyter._containers import MIN_ROWS, PAGE_WIDGETS, ROWS_PAGE


class Item(BaseModel):
    sku: str
    qty: int


@tool
def order(items: list[Item], note: str = "") -> int:
    """Order items."""
    return len(items)


ITEMS = [{"sku": f"s{i}", "qty": i} for i in range(300)]
#: a row of ``Item``: the row box and its remove button; the item's label, header, group box and field
#: box; per property its label, text box, row and field box — 14 widgets (it was 23 plus an update
#: message for most of them)
ROW_WIDGETS = 14
PAGE = PAGE_WIDGETS // ROW_WIDGETS  # 10 rows


@tool
def names(tags: list[str]) -> int:
    """Count tags."""
    return len(tags)


def test_a_large_list_builds_one_page_and_still_sends_every_item(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS})
    field = form.fields["items"]
    assert field.page_rows == PAGE == 10 and len(field.rows) == PAGE
    assert field.more_button.layout.display != "none" and "290 more" in field.more_button.description
    assert field.more_button.layout.width == "auto"  # its text in full, not cut to the add button's 80px
    assert form.values == {"items": ITEMS}
    result = form.run()
    assert result.status == "success" and "300" in (result.text or str(result.json))


def test_show_more_builds_the_next_page_and_hides_itself_at_the_end(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS[:50]})
    field = form.fields["items"]
    for shown in (20, 30, 40):
        field.more_button.click()
        assert len(field.rows) == shown and f"{50 - shown} more" in field.more_button.description
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
    field.add_button.click()  # shown at once after "show more", the 50 unbuilt items stay unbuilt
    assert len(field.rows) == PAGE and len(field.tail) == 1 and field.tail_box.children == (field.tail[0].box,)
    new = form.field("items[60]")
    assert new is field.tail[0].field and new.label.value == "[60]"
    new.set({"sku": "new", "qty": 1})
    assert form.values["items"] == ITEMS[:60] + [{"sku": "new", "qty": 1}]
    field.remove_row(field.rows[0])
    assert form.values["items"] == ITEMS[1:60] + [{"sku": "new", "qty": 1}] and new.label.value == "[59]"
    field.more_button.click()
    assert len(field.rows) == PAGE * 2 - 1 and form.values["items"] == ITEMS[1:60] + [{"sku": "new", "qty": 1}]
    field.build_rows(59)  # every loaded item built: the added row joins the rows, after them
    assert field.tail == [] and field.rows[-1].field is new and len(field.rows) == 60
    assert field.tail_box.children == () and field.rows_box.children[-1] is field.rows[-1].box
    assert form.values["items"] == ITEMS[1:60] + [{"sku": "new", "qty": 1}]
    field.remove_row(field.tail[0] if field.tail else field.rows[-1])
    assert form.values["items"] == ITEMS[1:60]


def test_an_added_row_can_be_removed_and_errors_find_it(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS})
    field = form.fields["items"]
    field.add_button.click()
    field.add_button.click()
    first, second = field.tail
    second.field.set({"sku": "b", "qty": 2})
    assert [r.field.label.value for r in field.tail] == ["[300]", "[301]"]
    result = form.run()  # the first added row is empty: its fields are missing, shown there
    assert result.status == "error" and "items[300].sku" in form.errors
    assert form.field("items[300].sku").error and len(field.rows) == PAGE  # nothing else built
    field.remove_row(first)
    assert second.field.label.value == "[300]" and form.values["items"] == ITEMS + [{"sku": "b", "qty": 2}]
    assert form.run().status == "success"


def test_json_to_form_with_300_items_shows_a_page_and_keeps_the_input(wb):
    form = ToolForm(order)
    form.show_json()
    import json

    form.json_mode.editor.value = json.dumps({"items": ITEMS})
    assert form.show_form() is True
    assert len(form.fields["items"].rows) == PAGE
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


def test_a_list_of_small_rows_shows_a_full_page(wb):
    form = ToolForm(names)
    form.set_values({"tags": [f"t{i}" for i in range(100)]})
    field = form.fields["tags"]
    assert field.page_rows == ROWS_PAGE == 20 and len(field.rows) == 20 and "80 more" in field.more_button.description


def test_a_page_of_very_big_rows_still_shows_a_few(wb):
    class Wide(BaseModel):
        a: str
        b: str
        c: str
        d: str
        e: str
        f: str
        g: str
        h: str
        i: str
        j: str

    @tool
    def wide(rows: list[Wide]) -> int:
        """Count rows."""
        return len(rows)

    form = ToolForm(wide)
    form.set_values({"rows": [{k: "x" for k in "abcdefghij"}] * 30})
    assert len(form.fields["rows"].rows) == MIN_ROWS == 5


class _Counting(BaseComm):
    """A comm that counts what it would send (as a kernel would: the open with the state, then updates)."""

    opened: list[str] = []
    updates: list[dict] = []

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        if msg_type == "comm_open":
            _Counting.opened.append(data["state"]["_model_name"])
        elif data and data.get("method") == "update":
            _Counting.updates.append(data["state"])


def test_json_to_form_with_300_items_makes_few_widgets_and_messages(wb, monkeypatch):
    """The cause of the slow switch: every widget is a model the browser creates (a comm open) and every
    later change an update it applies. 300 items of ``Item`` made 465 widgets and 1133 messages (20
    rows); now 10 rows of 14 widgets, each sent once, and one update per filled text box."""
    monkeypatch.setattr(comm, "create_comm", lambda *args, **kwargs: _Counting(*args, **kwargs))
    form = ToolForm(order)
    form._repr_mimebundle_()
    form.show_json()
    form.json_mode.editor.value = json.dumps({"items": ITEMS})
    _Counting.opened, _Counting.updates = [], []
    before = len(_instances)
    assert form.show_form() is True
    made = len(_instances) - before
    assert made == len(_Counting.opened) <= PAGE * ROW_WIDGETS + 8, made  # + the layouts and style made on first use
    assert len(form.fields["items"].rows) == PAGE
    row = form.fields["items"].rows[0].box
    assert _widgets_in(row) == ROW_WIDGETS
    # after the widgets are made, an update each for the 2 text boxes of a row (value and placeholder in
    # one), a few for the form itself; none adds a class or ties a label to its control afterwards
    assert len(_Counting.updates) <= PAGE * 2 + 10, len(_Counting.updates)
    assert not any("_dom_classes" in u or "target" in u for u in _Counting.updates)


def _widgets_in(widget) -> int:
    return 1 + sum(_widgets_in(child) for child in getattr(widget, "children", ()))


def test_a_required_row_field_makes_no_clear_button_nor_state_note_and_its_error_line_when_needed(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS[:2]})
    qty = form.fields["items"].rows[0].field.fields["qty"]
    assert qty.clear_button is None and qty.state_label is None and qty._error_label is None
    qty.input.value = "x"  # not an integer: the error line is made, at the end of the field's box, and shown
    line = qty._error_label
    assert line is not None and qty.widget.children[-1] is line and line.layout.display != "none"
    assert "qty" in line.value and qty.label.invalid
    qty.input.value = "3"
    assert line.layout.display == "none" and not qty.label.invalid
    assert form.values["items"][0] == {"sku": "s0", "qty": 3}


def test_a_problem_in_an_unbuilt_item_builds_its_row_and_shows_there(wb):
    form = ToolForm(order)
    form.show_json()
    items = [dict(item) for item in ITEMS]
    del items[123]["qty"]
    form.json_mode.editor.value = json.dumps({"items": items})
    assert form.show_form() is True
    field = form.fields["items"]
    assert len(field.rows) == 124 and "176 more" in field.more_button.description  # built up to the problem
    result = form.run()
    assert result.status == "error" and "items[123].qty" in form.errors
    qty = form.field("items[123].qty")
    assert "required field is missing" in qty.error and qty.error_label.layout.display != "none"


def test_an_unbuilt_item_its_row_cannot_show_keeps_json_mode_like_a_built_one(wb):
    form = ToolForm(order)
    form.show_json()
    for index in (3, 123):  # built on the first page, or not
        items = [dict(item) for item in ITEMS]
        items[index]["qty"] = "many"
        form.json_mode.editor.value = json.dumps({"items": items})
        assert form.show_form() is False and form.json_mode.active
        assert "cannot show this input" in form.json_mode.verdict.value and "many" in form.json_mode.verdict.value


def test_run_with_an_unshowable_unbuilt_item_reports_it_instead_of_failing(wb):
    form = ToolForm(order)
    items = [dict(item) for item in ITEMS]
    items[123]["qty"] = "many"
    form.set_values({"items": items})  # set in code: only the first page is loaded into rows
    result = form.run()
    assert result.status == "error" and "items[123].qty" in form.errors
    assert "many" in form.fields["items"].error  # shown on the list: the row cannot show the item


def test_show_more_says_it_is_working_while_it_builds(wb):
    form = ToolForm(order)
    form.set_values({"items": ITEMS})
    field = form.fields["items"]
    seen = []
    add_row = field.add_row
    field.add_row = lambda *a, **k: (
        seen.append((field.more_button.description, field.more_button.disabled)),
        add_row(*a, **k),
    )[1]
    field.more_button.click()
    assert seen and seen[0] == ("showing more…", True)
    assert field.more_button.description == "show more (280 more)" and not field.more_button.disabled


def test_a_custom_field_whose_layout_places_its_error_line_still_works(wb):
    """A field class of a user's (``register_widget_rule``) may put ``self.error_label`` in its own layout:
    it is made there, placed once, and errors show in it."""
    from workbench.jupyter import build_field
    from workbench.jupyter._fields import FieldContext, StringField

    class Boxed(StringField):
        def layout(self):
            return W.VBox([self.input, self.error_label])

    ctx = FieldContext({}, build_field)
    field = Boxed({"type": "string", "minLength": 3}, ctx, "code", required=True)
    assert list(field.widget.children) == [field.input, field.error_label]
    field.input.value = "ab"
    assert "at least 3" in field.error_label.value and field.error_label.layout.display != "none"
    assert list(field.widget.children).count(field.error_label) == 1


_PLAIN_FORM = """
import json, sys
from pydantic import BaseModel
from workbench import tool
from workbench.jupyter import ToolForm

class Line(BaseModel):
    sku: str
    qty: int

@tool
def bulk(items: list[Line]) -> int:
    '''Count.'''
    return len(items)

form = ToolForm(bulk)
form.show_json()
form.json_mode.editor.value = json.dumps({"items": [{"sku": f"s{i}", "qty": i} for i in range(300)]})
assert form.show_form()
form.fields["items"].rows[0].field.fields["sku"].input.value = "typed"
assert form.run().status == "success"
print("jsonschema" in sys.modules)
"""


def test_plain_text_boxes_never_import_jsonschema():
    """Its first import took 1–3 s (``rfc3987_syntax`` compiles 39 grammars) and came with the first
    text box checked: on the first JSON → Form of a kernel. A plain ``{"type": "string"}`` needs no
    validator."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN_FORM], capture_output=True, text=True, env=env, cwd=root, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_a_string_with_constraints_is_still_checked_as_typed(wb):
    from workbench.jupyter._schema_utils import value_checker

    assert value_checker({"type": "string", "title": "Sku"}, {})("anything") == []
    assert value_checker({"type": "string", "minLength": 3}, {})("ab")[0][1].startswith("expected")
    assert value_checker({"type": "integer"}, {})("x") != []  # a value of another type still goes to jsonschema


@tool
def counts(by_key: dict[str, int]) -> int:
    """Count keys."""
    return len(by_key)


def test_loading_a_mapping_redraws_its_rows_once(wb, monkeypatch):
    """Each redraw sends every row again: 100 keys loaded one redraw each sent 100 growing lists."""
    monkeypatch.setattr(comm, "create_comm", lambda *args, **kwargs: _Counting(*args, **kwargs))
    form = ToolForm(counts)
    _Counting.opened, _Counting.updates = [], []
    form.set_values({"by_key": {f"k{i}": i for i in range(100)}})
    assert sum("children" in update for update in _Counting.updates) <= 2
    assert form.values == {"by_key": {f"k{i}": i for i in range(100)}}


def _open_widgets() -> int:
    return sum(1 for widget in list(_instances.values()) if widget.comm is not None)


def test_rows_that_leave_a_list_close_their_widgets(wb):
    """A list loaded again (each JSON → Form) dropped its old rows but kept their widgets open: models in
    the kernel and the page for as long as the form lived."""
    form = ToolForm(order)
    field = form.fields["items"]
    form.set_values({"items": ITEMS})
    old_rows = list(field.rows)
    after_first = _open_widgets()
    for _ in range(3):
        form.set_values({"items": ITEMS})
    assert _open_widgets() == after_first  # the same number open after three more loads, not 3 pages more
    assert all(row.box.comm is None for row in old_rows)  # the first page's widgets were closed
    assert all(row.field.widget.comm is None for row in old_rows)
    shown = field.rows[3]
    form.set_values({"items": ITEMS[:5]})
    assert shown.box.comm is None and len(field.rows) == 5
    removed = field.rows[1]
    field.remove_row(removed)
    assert removed.box.comm is None and all(row.box.comm is not None for row in field.rows)
    assert form.values == {"items": ITEMS[:1] + ITEMS[2:5]}
    assert form.run().status == "success"


def test_a_mapping_closes_the_widgets_of_its_dropped_rows(wb):
    @tool
    def stock(levels: dict[str, int]) -> int:
        """Stock levels."""
        return sum(levels.values())

    form = ToolForm(stock)
    form.set_values({"levels": {f"k{i}": i for i in range(30)}})
    old_rows = list(form.fields["levels"].rows)
    form.set_values({"levels": {"a": 1}})
    assert all(row.box.comm is None for row in old_rows)
    assert form.values == {"levels": {"a": 1}} and form.run().status == "success"
