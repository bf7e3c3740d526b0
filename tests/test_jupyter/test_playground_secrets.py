"""A model's call of a tool with a secret parameter (``SecretStr``) in the playground: its card never puts
``***`` (a masked step) nor the model's value in a widget — the field is left empty and a note says so —
and approving with the field left empty runs the model's value; typing one runs that."""

from __future__ import annotations

import json

from pydantic import SecretStr

from tests.form_catalogue import wait_until, wb  # noqa: F401 - wb is a fixture
from workbench import tool
from workbench.jupyter import Playground, ToolCallCard
from workbench.models import ScriptedModel
from workbench.types import ToolResult, make_tool_use

PIN = "pin-5521-secret"
used: list[str] = []


@tool
def unlock(door: str, pin: SecretStr) -> str:
    """Unlock a door with its PIN."""
    used.append(pin.get_secret_value())
    return f"{door} unlocked"


def _widget_state(widget) -> str:
    """Every widget's synced state under ``widget`` (what a saved notebook keeps), as text."""
    seen, stack, out = set(), [widget], []
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        state = item.get_state()
        out.append(json.dumps(state, default=str))
        stack.extend(v for v in state.values() if hasattr(v, "get_state"))
        stack.extend(c for v in state.values() if isinstance(v, (list, tuple)) for c in v if hasattr(c, "get_state"))
    return "\n".join(out)


def test_a_masked_call_leaves_the_secret_empty_and_says_it_must_be_typed(wb):  # noqa: F811
    wb.registry.register_tool(unlock, replace=True)
    card = ToolCallCard(make_tool_use("unlock", {"door": "front", "pin": "***"}), unlock, wb)
    assert card.form.values == {"door": "front"}  # not "***"
    assert "pin" in card.secret_note.value and "type it" in card.secret_note.value
    future = card.ask()
    assert not card.approve() and "pin" in card.form.errors  # nothing to send: the user types it
    card.form.set_values({"pin": "typed-1234"})
    assert card.approve()
    assert future.result() == {"door": "front", "pin": "typed-1234"}
    card.show_result(ToolResult(toolUseId=card.tool_use["toolUseId"], status="success", content=[{"text": "open"}]))
    assert "typed-1234" not in card.raw.value and "&quot;pin&quot;: &quot;***&quot;" in card.raw.value


def test_the_models_secret_is_in_no_widget_and_approving_as_is_sends_it(wb):  # noqa: F811
    card = ToolCallCard(make_tool_use("unlock", {"door": "front", "pin": PIN}), unlock, wb)
    assert card.form.values == {"door": "front"}
    assert "leave the field empty to send it" in card.secret_note.value
    assert PIN not in _widget_state(card)
    future = card.ask()
    assert card.approve() and future.result() is True  # the model's call runs as it made it
    card = ToolCallCard(make_tool_use("unlock", {"door": "front", "pin": PIN}), unlock, wb)
    future = card.ask()
    card.form.set_values({"door": "back"})
    assert card.approve() and future.result() == {"door": "back", "pin": PIN}  # edited: the secret kept
    assert PIN not in _widget_state(card)


def test_step_mode_in_the_playground_runs_the_models_secret_and_shows_it_nowhere(wb):  # noqa: F811
    wb.registry.register_tool(unlock, replace=True)
    used.clear()
    model = ScriptedModel([{"tool_calls": [{"name": "unlock", "input": {"door": "front", "pin": PIN}}]}, "done"])
    pg = Playground([model], workbench=wb)
    pg.tool_picker.value = ("unlock",)
    pg.step_mode = True
    run = pg.send("open the front door")
    assert wait_until(lambda: len(pg.pending) == 1, timeout=30)
    [card] = pg.pending
    assert card.form.values == {"door": "front"}
    card.form.set_values({"door": "side"})
    assert card.approve()
    run.result(timeout=30)
    assert used == [PIN] and card.state == "success"
    assert PIN not in _widget_state(pg)


def test_save_as_eval_case_refuses_a_conversation_whose_call_gives_a_secret(wb, tmp_path):  # noqa: F811
    wb.registry.register_tool(unlock, replace=True)
    model = ScriptedModel([{"tool_calls": [{"name": "unlock", "input": {"door": "front", "pin": PIN}}]}, "done"])
    pg = Playground([model], workbench=wb)
    pg.tool_picker.value = ("unlock",)
    pg.send("open the front door").result(timeout=30)
    suite = tmp_path / "doors.evals.json"
    pg.eval_path.value = str(suite)
    pg.eval_button.click()
    assert "Not saved" in pg.save_message.value and "pin" in pg.save_message.value
    assert not suite.exists()
