"""The model playground, kernel side: tool-call cards, step mode, columns, transcripts — with ScriptedModel."""

from __future__ import annotations

import json
from typing import Annotated, Literal, Optional

import ipywidgets as W
import pytest
from pydantic import Field

from tests.form_catalogue import wait_until, wb  # noqa: F401 - wb is a fixture
from workbench import tool
from workbench.jupyter import Playground, ToolCallCard
from workbench.jupyter._playground import EVAL_CASE_TOOLTIP
from workbench.jupyter._playground_card import _controls
from workbench.types import ToolResult, make_tool_use


@tool
def lookup(city: Annotated[str, Field(min_length=1)], units: Literal["metric", "imperial"] = "metric", days: int = 1) -> str:
    """The weather forecast of a city."""
    return f"{city}: 21 degrees ({units}, {days} day(s))"


@tool
def maybe(note: Optional[str] = None) -> str:
    """Echo a note, or say there is none."""
    return note or "no note"


@pytest.fixture
def tools(wb):  # noqa: F811 - the fixture above
    for fn in (lookup, maybe):
        wb.registry.register_tool(fn, replace=True)
    return wb


def _card(wb, name="lookup", arguments=None, tool_obj=lookup):  # noqa: F811
    return ToolCallCard(make_tool_use(name, arguments if arguments is not None else {"city": "Oslo", "days": 3}),
                        tool_obj, wb)


# -- the card ---------------------------------------------------------------------------------------------
def test_card_shows_the_tools_form_filled_with_the_models_arguments(tools):
    card = _card(tools)
    assert card.form is not None and card.form.tool is lookup
    assert card.form.values == {"city": "Oslo", "days": 3}
    assert "lookup" in card.header.value and "proposed" in card.header.value
    # the form runs nothing itself: its own run controls are hidden
    assert card.form.run_button.layout.display == "none"
    assert card.buttons.layout.display == "none"


def test_card_form_is_read_only_until_asked_and_editable_while_waiting(tools):
    card = _card(tools)
    city = next(c for c in _controls(card.form.fields["city"].widget) if isinstance(c, W.Text))
    assert city.disabled
    future = card.ask()
    assert card.pending and not future.done() and not city.disabled
    assert card.buttons.layout.display is None and "waiting for your approval" in card.header.value
    assert card.approve()
    assert future.result() is True  # unchanged arguments: run as the model asked
    assert city.disabled and card.state == "running"


def test_card_approve_after_an_edit_gives_the_edited_input(tools):
    card = _card(tools)
    future = card.ask()
    card.form.set_values({"city": "Bergen"})
    assert card.approve()
    assert future.result() == {"city": "Bergen", "days": 3}
    assert "edited" in card.header.value


def test_card_deny_gives_false_and_a_second_decision_is_refused(tools):
    card = _card(tools)
    future = card.ask()
    assert card.deny()
    assert future.result() is False and card.state == "denied"
    assert not card.approve() and not card.deny()


def test_card_approve_with_a_bad_value_shows_the_error_and_keeps_waiting(tools):
    card = _card(tools)
    future = card.ask()
    card.form.set_values({"city": ""})  # min_length=1
    assert not card.approve()
    assert card.pending and not future.done() and "city" in card.form.errors
    card.form.set_values({"city": "Tromsø"})
    assert card.approve() and future.result() == {"city": "Tromsø", "days": 3}


def test_card_locks_and_unlocks_every_control_of_the_form(tools):
    card = _card(tools, "maybe", {"note": None}, maybe)
    controls = _controls(card.form.fields_box)
    assert len(controls) >= 2 and all(c.disabled for c in controls)
    card.ask()
    assert not any(c.disabled for c in controls)
    card.deny()
    assert all(c.disabled for c in controls)


def test_card_of_an_unknown_tool_shows_the_json_and_approve_runs_it_as_sent(tools):
    card = ToolCallCard(make_tool_use("nope", {"x": 1}), None, tools)
    assert card.form is None and card.raw_input.layout.display is None
    assert "not among the tools offered" in card.note.value
    future = card.ask()
    assert card.approve() and future.result() is True


def test_card_of_arguments_the_form_cannot_hold_falls_back_to_json(tools):
    card = _card(tools, arguments={"city": "Oslo", "wind": "strong"})
    assert card.form is None
    assert "do not fit the form" in card.note.value and "wind" in card.note.value
    assert "strong" in card.raw_input.value


def test_card_shows_the_result_its_time_and_the_raw_json(tools):
    card = _card(tools)
    result = tools.executor.run([card.tool_use], tools.registry)[0]
    card.show_result(result)
    assert card.state == "success" and card.result is result
    assert "Oslo: 21 degrees" in card.result_html.value
    assert "took" in card.header.value and "ms" in card.header.value
    assert json.dumps(result.tool_use_id) in card.response_html.value or result.tool_use_id in card.response_html.value


def test_card_escapes_what_the_model_sent(tools):
    hostile = "<img src=x onerror=alert(1)>"
    card = ToolCallCard(make_tool_use("nope", {"city": hostile}), None, tools)
    card.show_result(ToolResult(toolUseId=card.tool_use["toolUseId"], status="error",
                                content=[{"text": hostile}], metadata={"error": hostile}))
    for html in (card.header.value, card.raw_input.value, card.result_html.value, card.request_html.value):
        assert "<img" not in html
    assert "&lt;img" in card.raw_input.value


def test_save_as_eval_case_is_disabled_and_says_why(tools):
    pg = Playground(workbench=tools)
    assert pg.eval_button.disabled and pg.eval_button.tooltip == EVAL_CASE_TOOLTIP
    assert "#20" in EVAL_CASE_TOOLTIP
