"""Field-level form defects of issue 9, reproduced in a real JupyterLab in Debian's chromium.

The test writes its own notebook (``%load_ext workbench`` + ``%%tool`` cells), runs it, then types into
the forms the way a user does: number boxes that must keep what was typed (1), unions with ``None``
that must offer every branch (2), required numbers that start empty (3), *not set* / ``null`` / ``""``
shown apart with a clear button (5), specific nested and date messages (6), and readable colours in
the dark theme (10).
"""

from __future__ import annotations

import re

import pytest

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_fields_defects.ipynb"

CELLS = [
    "%load_ext workbench",
    "import datetime as dt\n"
    "from typing import Annotated, Literal, Optional, Union\n"
    "from pydantic import BaseModel, Field\n\n"
    "class Circle(BaseModel):\n    radius: float\n\n"
    "class Square(BaseModel):\n    side: float\n\n"
    "class Customer(BaseModel):\n    full_name: str\n    years: int\n",
    "%%tool\n"
    "def ages(age: Annotated[int, Field(ge=0, le=150)]) -> dict:\n"
    '    """Echo an age."""\n'
    "    return {'age': age, 'kind': type(age).__name__}\n",
    "%%tool\n"
    "def pick_shape(shape: Union[Circle, Square, None] = None) -> dict:\n"
    '    """Which shape arrived."""\n'
    "    return {'shape': type(shape).__name__, 'value': shape.model_dump() if shape else None}\n",
    "%%tool\n"
    "def pick_key(key: Union[int, str, None] = None) -> dict:\n"
    '    """Which key arrived."""\n'
    "    return {'key': key, 'kind': type(key).__name__}\n",
    '%%tool\ndef tally(counts: dict[str, int]) -> int:\n    """Sum the counts."""\n    return sum(counts.values())\n',
    "%%tool\n"
    "def prefs(times: int = 10, nickname: Optional[str] = None, note: str = 'hi', "
    "level: Literal['low', 'high'] = 'low') -> dict:\n"
    '    """Echo the preferences."""\n'
    "    return {'times': times, 'nickname': nickname, 'note': note, 'level': level}\n",
    "%%tool\n"
    "def order(customer: Customer, day: dt.date) -> str:\n"
    '    """Place an order."""\n'
    "    return f'{customer.full_name} on {day}'\n",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    """One page for the module: the notebook is written, opened and run once; each test uses its own form."""
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-order") as page:
        yield page


_form = lab.form_of


def _row(form, label: str):
    """The innermost widget row holding the label ``label`` (its input, toggles and buttons)."""
    exact = re.compile(rf"^\s*{re.escape(label)}\s*$")
    return form.locator(".widget-hbox").filter(has=form.page.locator(".widget-label", has_text=exact)).last


def _run(form):
    form.locator(".workbench-run").click()


def _result_text(form, expected: str) -> str:
    result = form.locator(".workbench-result-area")
    result.get_by_text(re.compile(re.escape(expected))).first.wait_for(timeout=30_000)
    return result.inner_text()


def _summary(form, pattern: str):
    """Wait for the form's error summary to mention ``pattern`` and return its text."""
    box = (
        form.locator("div", has_text=re.compile(re.escape(pattern))).filter(has_text=re.compile("nothing was run")).last
    )
    box.wait_for(timeout=30_000)
    return box.inner_text()


def _type(input_locator, text: str) -> None:
    input_locator.fill(text)
    input_locator.press("Tab")  # blur: number boxes sync and check on blur


def _wait_text(locator, pattern: str) -> None:
    locator.get_by_text(re.compile(pattern)).first.wait_for(timeout=30_000)


def test_number_fields_keep_what_was_typed_and_say_why_it_is_invalid(lab_page):
    """Defects 1 and 3: typed text is never rewritten or clamped; required numbers start empty."""
    form = _form(lab_page, "ages")
    box = _row(form, "age *").locator("input").first
    assert box.input_value() == ""  # defect 3: a required number does not start at 0

    _run(form)  # untouched: required field is missing, nothing runs
    assert "missing" in _summary(form, "age")
    assert "missing" in form.inner_text()

    # (typed, the inline reason shown on blur, what the summary after Run quotes)
    cases = [
        ("3.7", "not a whole number", "received 3.7"),
        ("1e3", "must be ≤ 150", "received 1000"),
        ("abc", "not a number", 'received "abc"'),
        ("200", "must be ≤ 150", "received 200"),
        ("-1", "must be ≥ 0", "received -1"),
    ]
    for typed, reason, quoted in cases:
        _type(box, typed)
        assert box.input_value() == typed, f"{typed!r} was rewritten to {box.input_value()!r}"
        error = form.locator(".workbench-field-error").filter(has_text=re.compile(re.escape(reason)))
        error.first.wait_for(state="visible", timeout=30_000)
        assert box.input_value() == typed
        _run(form)
        summary = _summary(form, quoted)
        assert "age" in summary and "nothing was run" in summary
        assert box.input_value() == typed  # Run did not rewrite it either
        assert "kind" not in form.locator(".workbench-result-area").inner_text()

    _type(box, "42")
    _run(form)
    assert '"kind": "int"' in _result_text(form, "42") or "'kind': 'int'" in _result_text(form, "42")


def test_required_dict_values_start_empty_and_are_reported_missing(lab_page):
    """Defect 3: a dictionary row's number is not sent as 0 untouched."""
    form = _form(lab_page, "tally")
    form.get_by_role("button", name="add").click()
    inputs = form.locator("input[type='text'], input[type='number']")
    inputs.first.wait_for(timeout=30_000)
    assert inputs.count() == 2
    _type(inputs.nth(0), "apples")
    assert inputs.nth(1).input_value() == ""
    row_text = (
        form.locator(".widget-hbox").filter(has=form.page.locator("button[title='Remove this item']")).last.inner_text()
    )
    assert "*" not in row_text  # issue 9, defect 9: no stray "*" (nor a label-wide gap) in a dictionary row
    key_box, value_box = inputs.nth(0).bounding_box(), inputs.nth(1).bounding_box()
    assert value_box["x"] - (key_box["x"] + key_box["width"]) < 60
    _run(form)
    assert "missing" in _summary(form, "apples")
    _type(inputs.nth(1), "3")
    _run(form)
    _result_text(form, "3")


def test_optional_union_offers_every_branch(lab_page):
    """Defect 2: Optional[Union[Circle, Square]] and Union[int, str, None] show a branch selector."""
    form = _form(lab_page, "pick_shape")
    form.get_by_role("checkbox", name="none").uncheck()
    selector = form.locator("select").first
    selector.wait_for(state="visible", timeout=30_000)
    assert {o.strip() for o in selector.locator("option").all_inner_texts()} >= {"Circle", "Square"}
    selector.select_option(label="Square")
    side = _row(form, "side *").locator("input").first
    side.wait_for(state="visible", timeout=30_000)
    _type(side, "2.5")
    _run(form)
    assert "Square" in _result_text(form, "Square")
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-fields-optional-union.png"))

    form = _form(lab_page, "pick_key")
    form.get_by_role("checkbox", name="none").uncheck()
    selector = form.locator("select").first
    selector.wait_for(state="visible", timeout=30_000)
    selector.select_option(label="string")
    form.locator("input[placeholder='integer']").wait_for(
        state="detached", timeout=30_000
    )  # the string box replaced it
    text = form.locator("input[type='text']").first
    _type(text, "abc")
    _run(form)
    result = _result_text(form, "abc")
    assert "str" in result


def test_not_set_null_and_empty_string_look_different_and_clear_returns_to_not_set(lab_page):
    """Defect 5: placeholders show *not set* and the default, ``null`` is its own state, each optional
    field has a clear button that returns it to *not set*."""
    page = lab_page
    form = _form(page, "prefs")

    times = _row(form, "times").locator("input").first
    assert times.input_value() == ""
    assert re.search(r"not set.*default: 10", times.get_attribute("placeholder") or "")
    note = _row(form, "note").locator("input").first
    assert re.search(r"not set.*default: \"hi\"", note.get_attribute("placeholder") or "")
    level = _row(form, "level")
    assert re.search(r"not set.*default", level.inner_text())

    nickname = _row(form, "nickname")
    assert re.search(r"not set.*default: null", nickname.inner_text())
    assert (
        nickname.locator(".workbench-null").count() == 0 or not nickname.locator(".workbench-null").first.is_visible()
    )

    # "" on purpose: typed then emptied, and the placeholder says so
    _type(note, "x")
    _type(note, "")
    page.wait_for_function("(el) => /empty string/.test(el.placeholder)", arg=note.element_handle(), timeout=30_000)

    # null on purpose: untick then tick "none" → a visible null state
    toggle = nickname.get_by_role("checkbox", name="none")
    toggle.uncheck()
    toggle.check()
    nickname.locator(".workbench-null").first.wait_for(state="visible", timeout=30_000)
    assert "not set" not in _row(form, "nickname").inner_text()

    # a value, then the clear button returns the field to not set (omitted: the function default applies)
    _type(times, "5")
    clear = _row(form, "times").locator("button[title^='Clear']")
    clear.first.wait_for(state="visible", timeout=30_000)
    clear.first.click()
    page.wait_for_function(
        "(el) => el.value === '' && /not set/.test(el.placeholder)", arg=times.element_handle(), timeout=30_000
    )
    _run(form)
    result = _result_text(form, "times")
    assert re.search(r'"times": 10', result), result
    assert re.search(r'"nickname": null', result) and re.search(r'"note": ""', result), result

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "form-fields-states.png"), full_page=False)


def test_nested_and_date_messages_are_specific(lab_page):
    """Defect 6 (field messages): a nested field says what it expects, a date says which format."""
    form = _form(lab_page, "order")
    _run(form)
    summary = _summary(form, "day")
    assert "a value" not in summary, summary
    full_name = form.locator(".workbench-field-error").filter(has_text="customer.full_name")
    full_name.first.wait_for(timeout=30_000)
    assert "expected string" in full_name.first.inner_text()
    day = form.locator(".workbench-field-error").filter(has_text=re.compile(r"^\W*day"))
    assert "YYYY-MM-DD" in day.first.inner_text()


def test_field_colours_follow_the_jupyterlab_theme(lab_page):
    """Defect 10 (fields): error and help text use ``--jp-*`` colours, readable in light and dark."""
    page = lab_page
    form = _form(page, "order")
    _run(form)
    error = form.get_by_text(re.compile("required field is missing")).first  # the inline one (fields come first)
    error.wait_for(state="visible", timeout=30_000)
    help_line = _form(page, "ages").get_by_text(re.compile("≥ 0")).first
    error.scroll_into_view_if_needed()
    light = {"error": error.evaluate(lab.CONTRAST), "help": help_line.evaluate(lab.CONTRAST)}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "form-fields-light.png"), full_page=False)

    lab.set_theme(page, "JupyterLab Dark")
    dark = {"error": error.evaluate(lab.CONTRAST), "help": help_line.evaluate(lab.CONTRAST)}
    page.screenshot(path=str(ARTIFACTS / "form-fields-dark.png"), full_page=False)
    lab.set_theme(page, "JupyterLab Light")

    for name in ("error", "help"):
        assert light[name]["color"] != dark[name]["color"], (
            f"{name} text ignores the theme: {light[name]} / {dark[name]}"
        )
        assert light[name]["contrast"] >= 4.5 and dark[name]["contrast"] >= 4.5, (name, light[name], dark[name])
