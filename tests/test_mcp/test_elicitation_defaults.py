"""Schema defaults of an elicitation request (SEP-1034) reach the server: an accepting handler's
answer is completed with them, and the notebook's elicitation form shows them as values."""

from __future__ import annotations

import json
import threading

import mcp.types as types

from tests import mcp_defaults_asker
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry

DEFAULTS = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}


def _sent(handler) -> dict:
    """What the server received when ``handler`` answered its elicitation."""
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(server=mcp_defaults_asker.server, elicitation=handler, registry=registry):
        result = SequentialExecutor().call(registry, "ask_profile")
    assert result.status == "success", result.text
    return json.loads(result.text)


def test_a_bare_accept_sends_every_schema_default():
    assert _sent(lambda params: "accept") == DEFAULTS


def test_an_answer_that_leaves_fields_out_gets_their_defaults_and_keeps_its_own_values():
    assert _sent(lambda params: {"age": 41, "verified": False}) == {**DEFAULTS, "age": 41, "verified": False}


def test_an_elicit_result_goes_as_the_handler_built_it():
    answer = types.ElicitResult(action="accept", content={"age": 41})
    assert _sent(lambda params: answer) == {"age": 41}


def test_the_handler_sees_the_defaults_in_the_requested_schema():
    seen = []

    def handler(params):
        seen.append(params.requested_schema)
        return "accept"

    _sent(handler)
    assert {name: prop.get("default") for name, prop in seen[0]["properties"].items()} == DEFAULTS


def test_the_notebook_form_shows_the_defaults_as_values_and_accept_sends_them():
    from workbench.jupyter import ToolForm
    from workbench.jupyter._mcp_requests import ElicitationPrompt

    prompt = ElicitationPrompt(form_class=ToolForm)
    prompt.timeout = 60.0
    answers = []

    def answer_in_the_notebook():
        assert prompt.asked.wait(60.0), "the elicitation form never showed"
        answers.append(prompt.form.values)
        assert prompt.accept()

    clicker = threading.Thread(target=answer_in_the_notebook)
    clicker.start()
    sent = _sent(prompt)
    clicker.join(60.0)
    assert answers == [DEFAULTS]  # the form held the defaults as values, not "not set — default: …"
    assert sent == DEFAULTS
