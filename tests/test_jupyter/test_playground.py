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
from workbench.jupyter._playground_card import _controls
from workbench.models import ScriptedModel
from workbench.types import ToolResult, make_tool_use


@tool
def lookup(
    city: Annotated[str, Field(min_length=1)], units: Literal["metric", "imperial"] = "metric", days: int = 1
) -> str:
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
    return ToolCallCard(
        make_tool_use(name, arguments if arguments is not None else {"city": "Oslo", "days": 3}), tool_obj, wb
    )


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
    assert "<details" in card.raw.value and "Raw call JSON" in card.raw.value  # one collapsed block
    assert result.tool_use_id in card.raw.value.split("Response (ToolResult)")[1]  # the result is in it


def test_card_escapes_what_the_model_sent(tools):
    hostile = "<img src=x onerror=alert(1)>"
    card = ToolCallCard(make_tool_use("nope", {"city": hostile}), None, tools)
    card.show_result(
        ToolResult(
            toolUseId=card.tool_use["toolUseId"],
            status="error",
            content=[{"text": hostile}],
            metadata={"error": hostile},
        )
    )
    for html in (card.header.value, card.raw_input.value, card.result_html.value, card.raw.value):
        assert "<img" not in html
    assert "&lt;img" in card.raw_input.value


def test_save_as_eval_case_waits_for_a_run(tools):
    pg = Playground(workbench=tools)
    assert pg.eval_button.disabled
    with pytest.raises(ValueError, match="Send a prompt first"):
        pg.save_eval_case()


def test_card_approval_only_ask_keeps_the_form_read_only_and_ignores_nothing(tools):
    card = _card(tools)
    future = card.ask(editable=False)
    assert card.buttons.layout.display is None and not card.approve_button.disabled
    assert all(c.disabled for c in _controls(card.form.fields_box))
    assert card.approve() and future.result() is True


# -- the playground: one Send, step mode, columns ---------------------------------------------------------
def _weather_model(name="scripted", city="Oslo"):
    """Calls lookup once, then answers with the text of the result it got back."""

    def answer(messages, _specs):
        results = messages[-1]["results"]
        return f"the tool said: {results[0]['content'][0]['text']}"

    return ScriptedModel([{"tool_calls": [{"name": "lookup", "input": {"city": city, "days": 2}}]}, answer], name=name)


def test_send_shows_the_answer_the_tool_card_and_its_result(tools):
    model = _weather_model()
    pg = Playground([model], workbench=tools)
    transcripts = pg.send("weather in Oslo?").result(timeout=30)
    assert transcripts == pg.transcripts and transcripts[0].stopped_because == "end_turn"
    column = pg.columns[0]
    texts = [w.value for w in column.chat.children if isinstance(w, W.HTML)]
    [turn] = pg.grid.turns  # the prompt is a row over every column, the answers in the column's cell below
    assert "weather in Oslo?" in turn.prompt_row.value and turn.row.children == (column.chat,)
    assert any("the tool said: Oslo: 21 degrees (metric, 2 day(s))" in t for t in texts)
    [card] = pg.cards
    assert card.form.values == {"city": "Oslo", "days": 2} and card.state == "success"
    assert "Oslo: 21 degrees" in card.result_html.value and "took" in card.header.value
    assert not pg.pending and not pg.running and not pg.save_button.disabled
    # the call went through the workbench's executor into its log, under the run
    run = tools.log.run(transcripts[0].run_id)
    assert [row["tool_name"] for row in run["calls"]] == ["lookup"]


def test_step_mode_runs_the_call_as_edited_in_the_form_and_the_model_gets_that_result(tools):
    model = _weather_model()
    pg = Playground([model], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather in Oslo?")
    assert wait_until(lambda: len(pg.pending) == 1, timeout=30)
    [card] = pg.pending
    assert card.form.values == {"city": "Oslo", "days": 2} and not run.done()
    assert tools.log.rows(tool="lookup") == []  # nothing ran before the decision
    card.form.set_values({"city": "Bergen", "units": "imperial"})
    assert card.approve()
    [transcript] = run.result(timeout=30)
    assert "Bergen: 21 degrees (imperial, 2 day(s))" in card.result_html.value
    [tool_step] = [s for s in transcript.steps if s.kind == "tool"]
    assert tool_step.edited and tool_step.tool_use["input"] == {"city": "Bergen", "units": "imperial", "days": 2}
    assert tool_step.original["input"] == {"city": "Oslo", "days": 2}
    # the next model request carries the edited call's result
    sent = model.calls[1]["messages"][-1]
    assert sent["role"] == "tool" and "Bergen" in json.dumps(sent["results"])
    assert transcript.steps[-1].turn.text == "the tool said: Bergen: 21 degrees (imperial, 2 day(s))"


def test_a_finished_call_closes_its_cards_form_and_a_form_read_later_shows_what_ran(tools):
    """A notebook saves every open widget: a form per decided call would grow it by dozens of widgets."""
    from workbench.jupyter._close import widget_tree

    pg = Playground([_weather_model()], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather in Oslo?")
    assert wait_until(lambda: len(pg.pending) == 1, timeout=30)
    [card] = pg.pending
    card.form.set_values({"city": "Bergen"})
    asked = list(widget_tree(card.form))
    assert card.approve()
    run.result(timeout=30)
    assert card.state == "success" and card.form_box.children == ()
    assert [w for w in asked if w.comm is not None] == []  # every widget of that form is closed
    again = card.form  # read later: built again, read-only, with the arguments that ran
    assert again.values == {"city": "Bergen", "days": 2} and card.form_box.layout.display == "none"
    assert all(c.disabled for c in _controls(again.fields_box))


def test_step_mode_deny_answers_the_model_with_a_denial(tools):
    model = _weather_model()
    pg = Playground([model], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: pg.pending, timeout=30)
    pg.pending[0].deny()
    [transcript] = run.result(timeout=30)
    [card] = pg.cards
    assert card.state == "denied" and card.result.status == "error"
    assert "denied" in model.calls[1]["messages"][-1]["results"][0]["content"][0]["text"].lower()
    assert tools.log.rows(tool="lookup") == [] or all(r["status"] == "error" for r in tools.log.rows(tool="lookup"))


def test_two_models_side_by_side_answer_the_same_prompt_each_in_its_column(tools):
    first, second = _weather_model("first", "Oslo"), _weather_model("second", "Lima")
    pg = Playground([first, second], workbench=tools)
    assert [c.label for c in pg.columns] == ["scripted:first"]
    pg.select(first, second)
    assert [c.label for c in pg.columns] == ["scripted:first", "scripted:second"]
    assert list(pg.grid.heads.children) == [c.head for c in pg.columns]
    one, two = pg.send("weather?").result(timeout=30)
    assert first.calls[0]["messages"][-1]["content"] == second.calls[0]["messages"][-1]["content"] == "weather?"
    assert "Oslo" in one.steps[-1].turn.text and "Lima" in two.steps[-1].turn.text
    assert [len(c.cards) for c in pg.columns] == [1, 1]
    with pytest.raises(ValueError, match="1 to 3 models"):
        pg.select(first, second, first, second)


def test_settings_reach_the_model(tools):
    model = ScriptedModel(["ok"], repeat_last=True)
    pg = Playground([model], workbench=tools, system="Be brief.")
    pg.tool_picker.value = ("maybe",)
    pg.tool_choice.value = "maybe"
    pg.use_temperature.value = True
    pg.temperature.value = 0.3
    pg.send("hi").result(timeout=30)
    [call] = model.calls
    assert call["messages"][0] == {"role": "system", "content": "Be brief."}
    assert call["tools"] == ["maybe"]
    assert call["tool_choice"] == {"tool": {"name": "maybe"}}
    assert call["params"] == {"temperature": 0.3}
    pg.tool_choice.value = "none"
    pg.use_temperature.value = False
    pg.send("again").result(timeout=30)
    assert model.calls[-1]["tool_choice"] == "none" and model.calls[-1]["params"] == {}


def test_the_conversation_carries_on_and_new_chat_starts_again(tools):
    model = ScriptedModel(["first answer", "second answer", "fresh"])
    pg = Playground([model], workbench=tools)
    pg.send("one").result(timeout=30)
    pg.send("two").result(timeout=30)
    assert [m["role"] for m in model.calls[1]["messages"]] == ["user", "assistant", "user"]
    assert model.calls[1]["messages"][1]["content"] == "first answer"
    pg.new_chat()
    pg.send("three").result(timeout=30)
    assert [m["content"] for m in model.calls[2]["messages"]] == ["three"]
    assert len(pg.columns[0].transcripts) == 1  # New chat starts the count again


def test_tools_registered_later_are_offered_at_the_next_send(tools):
    pg = Playground([ScriptedModel(["ok"])], workbench=tools)
    assert set(pg.tool_picker.options) == {"lookup", "maybe"}

    @tool
    def later(x: int) -> int:
        """Later."""
        return x

    tools.registry.register_tool(later)
    pg.tool_picker.value = ("lookup",)
    pg.send("hi").result(timeout=30)
    assert set(pg.tool_picker.value) == {"lookup", "later"}  # a new tool is offered; a deselected one stays off
    assert "later" in pg.tool_choice.options


def test_model_errors_and_unknown_models_show_in_their_column(tools):
    pg = Playground([ScriptedModel([]), "nosuchprovider:model"], workbench=tools)
    pg.select(*pg.settings.models)
    broken, unknown = pg.send("hi").result(timeout=30)
    assert broken.stopped_because == "model_error" and unknown is None
    texts = [[w.value for w in c.chat.children if isinstance(w, W.HTML)] for c in pg.columns]
    assert any("script_exhausted" in t for t in texts[0])
    assert any("cannot use nosuchprovider:model" in t and "unknown model provider" in t for t in texts[1])


def test_send_refuses_an_empty_prompt_and_a_second_send_while_running(tools):
    pg = Playground([_weather_model()], workbench=tools)
    with pytest.raises(ValueError, match="empty"):
        pg.send("  ")
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: pg.pending, timeout=30)
    with pytest.raises(RuntimeError, match="still runs"):
        pg.send("again")
    pg._click_send()  # the button says so instead of raising
    pg.pending[0].approve()
    run.result(timeout=30)
    assert Playground(workbench=tools).columns == []
    with pytest.raises(ValueError, match="no model picked"):
        Playground(workbench=tools).send("hi")


def test_the_prompt_box_and_send_button(tools):
    model = ScriptedModel(["hello"])
    pg = Playground([model], workbench=tools)
    pg.prompt.value = "from the box"
    pg.send_button.click()
    assert wait_until(lambda: pg.transcripts[0] is not None and not pg.running, timeout=30)
    assert model.calls[0]["messages"][-1]["content"] == "from the box" and pg.prompt.value == ""


def test_send_inside_a_running_event_loop_is_awaited(tools):
    import asyncio

    pg = Playground([_weather_model()], workbench=tools)

    async def main():
        run = pg.send("weather?")
        with pytest.raises(RuntimeError, match="await"):
            run.result()
        return await run

    [transcript] = asyncio.run(main())
    assert transcript.stopped_because == "end_turn"


def test_save_transcript_writes_each_columns_json(tools, tmp_path):
    from workbench.agent import Transcript

    first, second = _weather_model("first"), _weather_model("second")
    pg = Playground([first], workbench=tools)
    with pytest.raises(ValueError, match="Send a prompt first"):
        pg.save_transcript(tmp_path / "t.json")
    pg.send("weather?").result(timeout=30)
    [path] = pg.save_transcript(tmp_path / "t.json")
    assert path == tmp_path / "t.json" and "t.json" in pg.save_message.value
    loaded = Transcript.load(path)
    assert loaded.run_id == pg.transcripts[0].run_id and len(loaded.steps) == len(pg.transcripts[0].steps)
    pg.select(first, second)
    second_run = pg.send("again?")
    second_run.result(timeout=30)
    pg.save_path.value = str(tmp_path / "both.json")
    pg.save_button.click()
    assert pg.saved_paths == [tmp_path / "both-1.json", tmp_path / "both-2.json"]
    assert all(p.exists() for p in pg.saved_paths)


def test_get_workbench_playground_uses_its_executor_and_log(tools):
    import workbench
    from workbench.log import ExecutionLog

    pg = workbench.playground([ScriptedModel(["ok"])])
    assert pg.workbench is tools and pg.execution_log is tools.log
    own = ExecutionLog()
    pg = tools.playground("nosuchprovider:x", log=own)
    assert pg.execution_log is own and [c.label for c in pg.columns] == ["nosuchprovider:x"]


def test_an_ask_user_tool_asks_in_its_card_in_auto_mode(tools):
    @tool(permission="ask")
    def wipe(disk: str) -> str:
        """Wipe a disk."""
        return f"wiped {disk}"

    tools.registry.register_tool(wipe)
    model = ScriptedModel([{"tool_calls": [{"name": "wipe", "input": {"disk": "d1"}}]}, "done"])
    pg = Playground([model], workbench=tools)
    run = pg.send("wipe it")
    assert wait_until(lambda: pg.pending, timeout=30)
    [card] = pg.pending
    assert all(c.disabled for c in _controls(card.form.fields_box))  # only yes or no is asked
    card.approve()
    run.result(timeout=30)
    assert card.state == "success" and "wiped d1" in card.result_html.value


# -- MCP tools are tools ----------------------------------------------------------------------------------
def test_mcp_proxy_tools_work_in_the_playground_like_local_ones(wb):  # noqa: F811
    import sys

    from tests.mcp_servers import ROOT, WAIT
    from workbench.mcp import connect

    serve = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
    with connect(command=serve, registry=wb.registry, cwd=str(ROOT), prefix="srv_", connect_timeout=WAIT):
        model = ScriptedModel(
            [
                {"tool_calls": [{"name": "srv_add", "input": {"a": 2, "b": 3}}]},
                lambda messages, _specs: f"sum: {messages[-1]['results'][0]['content'][0]['text']}",
            ]
        )
        pg = Playground([model], workbench=wb)
        assert "srv_add" in pg.tool_picker.options and "srv_add" in pg.tool_picker.value
        pg.step_mode = True
        run = pg.send("add 2 and 3")
        assert wait_until(lambda: pg.pending, timeout=30)
        [card] = pg.pending
        assert card.form is not None and card.form.values == {"a": 2, "b": 3}
        card.form.set_values({"b": 40})
        card.approve()
        [transcript] = run.result(timeout=60)
        assert card.state == "success" and "42" in card.result_html.value
        assert transcript.steps[-1].turn.text == "sum: 42"
        assert wb.log.run(transcript.run_id)["calls"][0]["tool_name"] == "srv_add"


def test_a_saved_notebook_keeps_a_static_escaped_picture_of_the_playground(tools):
    model = ScriptedModel(
        [{"tool_calls": [{"name": "lookup", "input": {"city": "<b>Oslo</b>"}}]}, "<script>alert(1)</script>"]
    )
    pg = Playground([model], workbench=tools)
    pg.send("weather?").result(timeout=30)
    bundle = pg._repr_mimebundle_()
    html = bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Model playground" in html and "scripted:scripted" in html and "weather?" in html
    assert "&lt;script&gt;" in html and "<script>" not in html and "&lt;b&gt;Oslo" in html
    assert "<code>lookup</code>" in html


def test_next_pending_waits_for_the_card_of_a_step_mode_send(tools):
    import asyncio

    pg = Playground([_weather_model()], workbench=tools)
    pg.step_mode = True

    async def main():
        run = pg.send("weather?")
        card = await pg.next_pending()
        card.form.set_values({"city": "Lima"})
        card.approve()
        [transcript] = await run
        with pytest.raises(RuntimeError, match="has ended"):
            await pg.next_pending()
        return transcript

    assert "Lima" in asyncio.run(main()).final_text


def test_stop_ends_the_runs_and_the_waiting_call_is_not_run(tools):
    model = _weather_model()
    pg = Playground([model], workbench=tools)
    assert pg.stop_button.disabled and not pg.stop()
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: pg.pending, timeout=30)
    assert not pg.stop_button.disabled
    [card] = pg.pending
    assert pg.stop()
    [transcript] = run.result(timeout=30)
    assert transcript.stopped_because == "cancelled"
    assert card.state == "stopped" and not card.pending and "not run" in card.header.value
    assert not card.approve()
    assert tools.log.rows(tool="lookup") == []
    assert pg.stop_button.disabled and not pg.send_button.disabled


def test_keyboard_ctrl_enter_sends_and_in_a_card_approves_never_running_the_tool_itself(tools):
    model = _weather_model()
    pg = Playground([model], workbench=tools)
    pg.step_mode = True
    pg.prompt.value = "weather?"
    pg.shortcuts.press("run")
    assert wait_until(lambda: pg.pending, timeout=30)
    [card] = pg.pending
    assert pg.shortcuts.busy
    card.form.shortcuts.press("cancel")  # Esc in the card's form does nothing
    assert card.pending and tools.log.rows(tool="lookup") == []
    card.form.set_values({"city": "Quito"})
    card.form.shortcuts.press("run")  # Ctrl+Enter in the card's form approves (through the loop)
    assert wait_until(lambda: not pg.running, timeout=30)
    assert card.decision == {"city": "Quito", "days": 2} and "Quito" in pg.transcripts[0].final_text
    assert len(tools.log.rows(tool="lookup")) == 1
    card.form.shortcuts.press("run")  # after the decision it runs nothing
    assert len(tools.log.rows(tool="lookup")) == 1 and not pg.shortcuts.busy


def test_a_model_typed_in_a_picker_gets_its_column_at_send(tools):
    pg = Playground([ScriptedModel(["ok"])], workbench=tools)
    pg.pickers[1].value = "nosuch"  # typing: no column per keystroke
    assert len(pg.columns) == 1
    pg.pickers[1].value = "nosuchprovider:typed"
    ok, typed = pg.send("hi").result(timeout=30)
    assert ok.final_text == "ok" and typed is None
    assert [c.label for c in pg.columns] == ["scripted:scripted", "nosuchprovider:typed"]
    pg.pickers[1].value = ""
    assert len(pg.columns) == 1


def test_card_approve_takes_the_json_editor_when_it_is_shown(tools):
    card = _card(tools)
    future = card.ask()
    card.form.show_json()
    card.form.json_mode.editor.value = '{"city": "Cairo", "days": 5'  # broken JSON: nothing is decided
    assert not card.approve() and card.pending and "$" in card.form.errors
    card.form.json_mode.editor.value = '{"city": "Cairo", "days": 5}'
    assert card.approve() and future.result() == {"city": "Cairo", "days": 5}


def test_save_as_eval_case_keeps_the_prompt_and_the_calls_as_the_user_edited_them(tools, tmp_path):
    from workbench.evals import load_evals, run_evals

    model = _weather_model()
    pg = Playground([model], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather in Oslo?")
    assert wait_until(lambda: len(pg.pending) == 1, timeout=30)
    pg.pending[0].form.set_values({"city": "Bergen"})
    pg.pending[0].approve()
    run.result(timeout=30)
    assert not pg.eval_button.disabled
    pg.eval_path.value = str(tmp_path / "weather.evals.json")
    pg.eval_button.click()
    assert "Saved eval case" in pg.save_message.value and "weather-in-oslo" in pg.save_message.value
    suite = load_evals(tmp_path / "weather.evals.json")
    [case] = suite.cases
    assert case.prompt == "weather in Oslo?" and case.tools == ["lookup", "maybe"]
    assert [e.to_dict() for e in case.expected] == [{"name": "lookup", "arguments": {"city": ["Bergen"], "days": [2]}}]
    assert len(suite.tools) == 2  # the offered tools, as refs or spec dicts
    # saving again keeps both; the saved case runs as an evaluation (the scripted model calls Oslo: it fails)
    pg.save_eval_case()
    assert [c.id for c in load_evals(tmp_path / "weather.evals.json").cases] == ["weather-in-oslo", "weather-in-oslo-2"]
    oslo = ScriptedModel([{"tool_calls": [{"name": "lookup", "input": {"city": "Oslo", "days": 2}}]}], repeat_last=True)
    report = run_evals(tmp_path / "weather.evals.json", oslo, progress=False)
    assert report.failures()["reason"].tolist()[0] == "lookup: city 'Oslo' not in ['Bergen']"


def test_a_denied_call_is_not_expected_of_the_model(tools, tmp_path):
    pg = Playground([_weather_model()], workbench=tools)
    pg.step_mode = True
    run = pg.send("weather?")
    assert wait_until(lambda: pg.pending, timeout=30)
    pg.pending[0].deny()
    run.result(timeout=30)
    case = pg.eval_case()
    assert case.expect_no_call and case.expected == []
