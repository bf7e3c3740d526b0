"""The playground's parts, turn-by-turn columns, compact cards, focus after a decision and widget
lifetimes — kernel side, with ScriptedModel (the browser checks are in tests/browser/test_playground.py)."""

from __future__ import annotations

import ipywidgets as W
from ipywidgets.widgets import widget as widget_registry

from tests.form_catalogue import wait_until, wb  # noqa: F401 - wb is a fixture
from tests.test_jupyter.test_playground import _weather_model, lookup, maybe, tools  # noqa: F401 - tools is a fixture
from workbench.jupyter import Playground
from workbench.models import ScriptedModel


def _tree(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _tree(child)


def _texts(column) -> str:
    return " ".join(w.value for w in column.widgets if isinstance(w, W.HTML))


# -- 1. parts of one job ------------------------------------------------------------------------------
def test_the_playground_is_made_of_parts_that_work_alone(tools):  # noqa: F811
    from workbench.jupyter._playground_column import ChatColumn
    from workbench.jupyter._playground_grid import TurnGrid
    from workbench.jupyter._playground_saving import SaveBar
    from workbench.jupyter._playground_settings import PlaygroundSettings

    settings = PlaygroundSettings([ScriptedModel(["ok"])], lambda: {"lookup": lookup}, system="Be brief.")
    settings.refresh_tools()
    settings.use_temperature.value, settings.temperature.value, settings.step_mode = True, 0.2, True
    assert settings.agent_settings(log=None) == dict(
        tools=[lookup],
        system="Be brief.",
        tool_choice=None,
        step=True,
        log=None,
        max_turns=10,
        params={"temperature": 0.2},
    )
    column = ChatColumn(ScriptedModel(["hello"]), tools)
    grid = TurnGrid()
    grid.set_columns([column])
    turn = grid.add_turn("hi")
    assert turn.row.children == (column.chat,) and list(grid.children) == [grid.heads, turn.prompt_row, turn.row]
    bar = SaveBar(lambda: [column], lambda: {})
    assert bar.save_button.disabled
    pg = Playground([ScriptedModel(["ok"])], workbench=tools)
    assert (pg.settings, pg.grid, pg.saving) == (pg.children[1].body, pg.children[3], pg.children[4])


# -- 3. columns line up turn by turn; New chat resets everything ------------------------------------------
def test_a_model_added_mid_chat_lines_up_with_the_turns_so_far(tools):  # noqa: F811
    first, second = _weather_model("first", "Oslo"), _weather_model("second", "Lima")
    pg = Playground([first, second], workbench=tools)
    pg.send("one").result(timeout=30)
    pg.send("two").result(timeout=30)
    pg.select(first, second)
    pg.send("three").result(timeout=30)
    left, right = pg.columns
    # a prompt row over both columns, then a row of one cell per column, for each Send
    assert [t.prompt for t in pg.grid.turns] == ["one", "two", "three"]
    assert list(pg.grid.children) == [pg.grid.heads, *[w for t in pg.grid.turns for w in (t.prompt_row, t.row)]]
    assert all(len(t.row.children) == 2 for t in pg.grid.turns)
    assert [t.row.children[0] for t in pg.grid.turns] == [left.cell(0), left.cell(1), left.cell(2)]
    assert right.cell(0) is None and "not in this model" in pg.grid.turns[0].row.children[1].value
    assert pg.grid.turns[2].row.children[1] is right.cell(2) and "Lima" in _texts(right)
    assert [m["content"] for m in second.calls[0]["messages"]] == ["three"]  # a fresh conversation


def test_new_chat_resets_the_turns_the_run_count_and_the_save_message(tools, tmp_path):  # noqa: F811
    pg = Playground([_weather_model()], workbench=tools)
    pg.send("weather?").result(timeout=30)
    pg.send("again?").result(timeout=30)
    pg.save_transcript(tmp_path / "t.json")
    column = pg.columns[0]
    assert "2 run(s)" in column.totals.value and "Saved" in pg.save_message.value and pg.saving.previews.children
    pg.new_chat()
    assert column.totals.value == "" and pg.save_message.value == "" and not pg.saving.previews.children
    assert pg.grid.turns == [] and list(pg.grid.children) == [pg.grid.heads] and pg.cards == []
    assert pg.transcripts == [None] and pg.save_button.disabled and pg.eval_button.disabled
    pg.send("fresh").result(timeout=30)
    assert "1 run(s)" in column.totals.value and len(pg.grid.turns) == 1


# -- 4. compact cards ---------------------------------------------------------------------------------
def test_an_auto_mode_card_is_compact_its_arguments_a_small_table(tools):  # noqa: F811
    from workbench.jupyter import ToolForm

    model = ScriptedModel(
        [
            {
                "tool_calls": [{"name": "lookup", "input": {"city": "Oslo", "days": 2}}],
                "usage": {"input_tokens": 11, "output_tokens": 7},
            },
            "done",
        ]
    )
    pg = Playground([model], workbench=tools)
    pg.send("weather?").result(timeout=30)
    [card] = pg.cards
    shown = [w for w in _tree(card) if w.layout.display != "none"]
    assert not any(isinstance(w, ToolForm) for w in _tree(card))  # no form (nor its History) built to be read
    assert len(list(_tree(card))) <= 20  # the whole form and its History were ~150
    assert card.arguments_html in shown and "<th scope='row'" in card.arguments_html.value
    assert "city" in card.arguments_html.value and "Oslo" in card.arguments_html.value
    # the tokens are the model turn's: under its message, not on the card
    assert "11 in · 7 out tokens" not in card.header.value
    assert "11 in · 7 out tokens" in _texts(pg.columns[0])
    assert "took" in card.header.value


def test_a_card_shows_many_arguments_behind_a_details_and_escapes_them(tools):  # noqa: F811
    from workbench.jupyter._playground_card import arguments_html

    html = arguments_html({f"a{i}": "<b>x</b>" for i in range(6)})
    assert html.count("<tr>") == 6 and "<details" in html and "2 more argument(s)" in html
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_a_call_that_never_ran_shows_no_time(tools):  # noqa: F811
    pg = Playground([_weather_model()], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: pg.pending, timeout=30)
    [card] = pg.pending
    assert card.form is not None and card.form_box.layout.display is None  # asked: the form, editable
    assert card.arguments_html.layout.display == "none"
    card.deny()
    run.result(timeout=30)
    assert card.state == "denied" and card.result is not None
    assert "took" not in card.header.value and "ms" not in card.header.value
    assert card.form_box.layout.display == "none" and card.arguments_html.layout.display is None


# -- 2. focus follows the decisions ------------------------------------------------------------------
def test_after_approve_or_deny_focus_goes_to_the_next_waiting_card_then_the_prompt(tools):  # noqa: F811
    pg = Playground([_weather_model("first", "Oslo"), _weather_model("second", "Lima")], workbench=tools)
    pg.select(*pg.settings.models)
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: len(pg.pending) == 2, timeout=30)
    # the card that waited first took the focus (the columns run at once: either may be first); the other waits
    [first] = [card for card in pg.pending if pg.approval_focus.target is card.approve_button]
    [second] = [card for card in pg.pending if card is not first]
    first.approve()
    assert pg.approval_focus.target is second.approve_button
    second.deny()
    assert pg.approval_focus.target is pg.prompt
    run.result(timeout=30)


# -- 5. New chat closes what it clears ----------------------------------------------------------------
def test_chats_and_new_chat_keep_the_number_of_widgets_bounded(tools):  # noqa: F811
    first, second = _weather_model("first"), _weather_model("second")
    pg = Playground([first, second], workbench=tools)
    pg.select(first, second)
    counts = []
    for _ in range(4):
        pg.send("weather?").result(timeout=30)
        pg.send("again?").result(timeout=30)
        pg.new_chat()
        counts.append(len(widget_registry._instances))
    assert counts[-1] <= counts[0], counts
    pg.select(first)  # a column dropped is closed too
    pg.send("weather?").result(timeout=30)
    pg.new_chat()
    assert len(widget_registry._instances) <= counts[0], counts


def test_closing_the_playground_closes_every_widget_it_made(tools):  # noqa: F811
    before = set(widget_registry._instances)
    first, second = _weather_model("first"), _weather_model("second")
    pg = Playground([first, second], workbench=tools)
    pg.select(first, second)
    pg.send("weather?").result(timeout=30)
    assert callable(pg.focus)  # still the widget's own focus(): the focus helper has a name of its own
    pg.close()
    left = [widget_registry._instances[k] for k in set(widget_registry._instances) - before]
    assert len(left) <= 2, left  # at most the playground's own layout (shared layouts are never closed)


def test_a_result_that_lands_as_the_call_is_approved_is_not_overwritten(tools):  # noqa: F811
    from tests.test_jupyter.test_playground import _card

    card = _card(tools)
    future = card.ask()
    result = tools.executor.run([card.tool_use], tools.registry)[0]
    # the run's thread wakes on the decision and may show the result before approve() has returned
    future.add_done_callback(lambda _f: card.show_result(result))
    assert card.approve()
    assert card.state == "success" and "took" in card.header.value
