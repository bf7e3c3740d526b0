"""A parameter declared secret (``SecretStr``: ``format: password`` / ``writeOnly``) in the notebook form:
a password box whose value is never in the widget state a notebook saves, and ``***`` in everything the
form shows or keeps — the Request / Response views, Copy as code, the result area, pins, ``form.history``,
the JSON editor and inline errors — while the tool gets the real value."""

from __future__ import annotations

import json

import ipywidgets as W
import pytest

from tests.form_catalogue import wb  # noqa: F401 - fixture
from tests.secret_tools import OTP, PASSWORD, login, received  # noqa: F401
from workbench.jupyter import ToolForm
from workbench.jupyter._fields import PasswordField


def _type(form: ToolForm, name: str, text: str) -> None:
    """What typing in the browser does: the box sends the text as a message (no state)."""
    field = form.fields[name]
    getattr(field, "inner", field).input._handle_custom_msg({"value": text}, [])


def _saved_state() -> str:
    """The widget state JupyterLab saves with the notebook: every live widget's synced state. The
    widgets are listed first (one C-level copy): a form of an earlier test may still be making widgets
    in its own thread, and iterating the live registry then fails with "dictionary changed size"."""
    from ipywidgets.widgets.widget import _instances

    widgets = list(_instances.values())
    return json.dumps(W.Widget.get_manager_state(drop_defaults=False, widgets=widgets)["state"], default=str)


def _holding(secret: str) -> list[str]:
    """The widgets whose saved state holds ``secret`` (class and state), for a failure's message."""
    from ipywidgets.widgets.widget import _instances

    found = []
    for widget in list(_instances.values()):
        state = json.dumps(widget.get_state(), default=str)
        if secret in state:
            found.append(f"{type(widget).__name__}: {state[:400]}")
    return found


def _shown(form: ToolForm) -> str:
    """Everything the form shows or keeps as text."""
    parts = [
        form.request_html.value,
        form.copy_request.text,
        form.response_html.value,
        form.copy_response.text,
        form.code.value,
        form.copy_code.text,
        form.result_html.value,
        form.copy_result.text,
        form.summary.value,
        form.pins_html.value,
        json.dumps(form.history),
        json.dumps(form.tool_use),
        form.history_select.options.__repr__(),
    ]
    return "\n".join(str(p) for p in parts)


def test_a_secret_parameter_is_a_password_box_that_keeps_its_value_out_of_the_widget_state(wb):
    form = ToolForm(login)
    field = form.fields["password"]
    assert isinstance(field, PasswordField) and field.rule == "password"
    assert isinstance(form.fields["otp"].inner, PasswordField)  # Optional[SecretStr] too
    form.fields["user"].set("bob")
    _type(form, "password", PASSWORD)
    assert field.touched and form.values == {"user": "bob", "password": PASSWORD}
    assert "value" not in field.input.get_state()
    assert PASSWORD not in _saved_state()
    form.set_values({"password": PASSWORD + "!"})  # set from Python: sent to the box as a message, not state
    assert field.input.value == PASSWORD + "!" and PASSWORD not in _saved_state()


def test_the_tool_gets_the_secret_and_everything_the_form_shows_or_saves_holds_the_mask(wb):
    received.clear()
    form = ToolForm(login)
    form.fields["user"].set("bob")
    _type(form, "password", PASSWORD)
    form.set_values({"otp": OTP})  # a nullable: set from Python (the browser test types)
    result = form.run()
    assert result.status == "success" and received == [PASSWORD]
    assert form.tool_use["input"] == {"user": "bob", "password": "***", "otp": "***"}
    assert form.history == [{"user": "bob", "password": "***", "otp": "***"}]
    assert wb.log.rows()[-1]["input"] == {"user": "bob", "password": "***", "otp": "***"}
    form.pin()
    # a call that fails quotes the secret in its error: the result area, Response view and Copy show ***
    form.set_values({"password": "not-" + PASSWORD})
    failed = form.run()
    assert failed.status == "error" and PASSWORD in failed.text  # the caller's result is the tool's own
    assert "wrong password &#x27;***&#x27;" in form.result_html.value
    form.pin()
    text = _shown(form)
    for secret in (PASSWORD, OTP):
        assert secret not in text
        assert secret not in _saved_state(), _holding(secret)
    assert "***" in form.code.value and "***" in form.copy_request.text


def test_a_logged_input_or_the_json_editor_never_sends_the_mask_as_the_secret(wb):
    received.clear()
    form = ToolForm(login)
    form.set_values({"user": "bob", "password": PASSWORD})
    form.run()
    form.set_values({"user": "alice"})
    form.load_history(0)  # {"user": "bob", "password": "***"}: the password typed stays
    assert form.values == {"user": "bob", "password": PASSWORD}
    form.show_json()
    editor = form.json_mode.editor
    assert json.loads(editor.value) == {"user": "bob", "password": "***"} and PASSWORD not in _saved_state()
    editor.value = json.dumps({"user": "carol", "password": "***"})
    assert form.run().status == "success" and received == [PASSWORD, PASSWORD]
    assert form.values == {"user": "carol", "password": PASSWORD}


def test_inline_errors_about_a_secret_do_not_quote_it_and_save_as_test_refuses(wb):
    form = ToolForm(login)
    form.set_values({"user": "bob", "password": "short-pw"})
    assert form.run().status == "error"  # too short: nothing runs
    assert "short-pw" not in _shown(form) + json.dumps(form.errors) and "short-pw" not in _saved_state()
    assert form.fields["password"].error and "short-pw" not in form.fields["password"].error
    form.set_values({"password": PASSWORD})
    assert form.run().status == "success"
    with pytest.raises(
        RuntimeError,
        match=r"Not saved: 'login' has secret parameter\(s\) \(otp, password\), "
        "which a case file would hold in clear",
    ):
        form.save_as_test()


def test_the_log_table_shows_the_mask_and_never_sends_it_as_the_secret(wb):
    from workbench.jupyter import LogTable

    received.clear()
    wb.registry.register(login)
    wb.call("login", {"user": "bob", "password": PASSWORD})
    table = LogTable(wb.log, workbench=wb)
    table.select(1)
    static = json.dumps(table._repr_mimebundle_(), default=str)  # the HTML and text saved in the notebook
    assert PASSWORD not in table.table.value + table.details_html.value + table.copy_button.text + static
    assert "***" in table.details_html.value
    with pytest.raises(
        ValueError,
        match=r"call #1 cannot be re-run: its secret parameter\(s\) password were not "
        r"stored in the log \(they show as \*\*\*\); Load into form and type them",
    ):
        table.rerun()
    table.rerun_button.click()  # the button says it in the message line
    assert "cannot be re-run" in table.message.value and received == [PASSWORD]
    form = table.load_into_form()
    assert form.values == {"user": "bob"}  # the password is left for the user to type, not filled with ***
    assert "left out password: a secret the log does not store: type it" in table.message.value
    form.set_values({"password": PASSWORD})
    assert form.run().status == "success" and received == [PASSWORD, PASSWORD]
    table.close()
