"""Form fields in a real JupyterLab in Debian's chromium: real labels, validation as you type, compact layout.

The test writes its own notebook, runs it, then uses the forms as a keyboard or screen-reader user
would: a field is found by its label (``get_by_label`` / ``get_by_role(name=…)``: the accessible name
computed by the browser), a click on a label focuses its field, the description is the control's
tooltip and accessible description; a text field says what is wrong while the user types, before Run;
``ToolForm(tool, layout="compact")`` shows scalar fields in two columns and optional ones under a
collapsed *Optional (N)* disclosure, in the light and the dark theme (screenshots in test-artifacts/).
"""

from __future__ import annotations

import re

import pytest

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_a11y_layout.ipynb"

CELLS = [
    "%load_ext workbench",
    "import datetime as dt\n"
    "from typing import Annotated, Literal, Optional\n"
    "from pydantic import BaseModel, Field\n"
    "from workbench.jupyter import ToolForm\n\n"
    "class Address(BaseModel):\n    street: str\n    city: str\n",
    "%%tool\n"
    "def quote(price: Annotated[float, Field(ge=0, description='Unit price in EUR')],\n"
    "          code: Annotated[str, Field(min_length=3, pattern='^[A-Z]+$', description='Product code, capitals')],\n"
    "          express: bool = False, size: Literal['S', 'M', 'L'] = 'M', note: Optional[str] = None,\n"
    "          address: Optional[Address] = None) -> dict:\n"
    '    """Quote a price."""\n'
    "    return {'price': price, 'code': code, 'express': express}\n",
    "%%tool --no-form\n"
    "def survey(name: str, email: Annotated[str, Field(description='Where the answer goes')], age: int,\n"
    "           country: Literal['FR', 'DE', 'IT'],\n"
    "           city: str = '', zip_code: str = '', newsletter: bool = False,\n"
    "           rating: Annotated[int, Field(ge=1, le=5)] = 3, color: Literal['red', 'green', 'blue'] = 'red',\n"
    "           start: Optional[dt.date] = None, budget: float = 100.0, vip: bool = False,\n"
    "           referrer: Optional[str] = None, tags: list[str] = [],\n"
    "           notes: Annotated[str, Field(description='Free text, multiline')] = '',\n"
    "           address: Optional[Address] = None) -> dict:\n"
    '    """Answer a survey with many parameters."""\n'
    "    return {'name': name, 'age': age}\n",
    "ToolForm(survey, layout='compact')",
]


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    """One page for the module: the notebook is written, opened and run once; each test uses its own form."""
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-survey") as page:
        yield page


_form = lab.form_of


def _label(form, name: str, *, within=None):
    """The ``<label>`` of field ``name`` (its text is the name alone: the `` *`` of a required field sits beside it)."""
    return (within or form).locator("label.workbench-label").filter(has_text=re.compile(rf"^{re.escape(name)}$")).first


def _row(form, name: str):
    """The row (label, toggles, input, buttons) of field ``name``."""
    return form.locator(".workbench-field-row").filter(has=_label(form, name, within=form.page))


def _focused(page, locator) -> None:
    page.wait_for_function("(el) => el === document.activeElement", arg=locator.element_handle(), timeout=30_000)


def _description(locator) -> str:
    """The control's accessible description: the text of the nodes aria-describedby points at."""
    return locator.evaluate(
        "(el) => (el.getAttribute('aria-describedby') || '').split(/\\s+/)"
        ".map(id => document.getElementById(id)).filter(Boolean).map(n => n.textContent).join(' | ')"
    )


def test_labels_name_focus_and_describe_their_controls(lab_page):
    page = lab_page
    form = _form(page, "quote")

    price = form.get_by_label("price", exact=True)
    price.wait_for(state="visible", timeout=30_000)  # the <label for=…> was tied to the input by the front end
    assert price.evaluate("(el) => el.tagName") == "INPUT"
    assert form.get_by_role("textbox", name="price", exact=True).count() == 1  # the accessible name is the field name
    _label(form, "price").click()
    _focused(page, price)
    assert price.get_attribute("title") == "Unit price in EUR"  # the tooltip
    assert price.get_attribute("aria-required") == "true"
    described = _description(price)
    assert "Unit price in EUR" in described and "≥ 0" in described, described

    size = form.get_by_role("combobox", name="size", exact=True)
    assert size.evaluate("(el) => el.tagName") == "SELECT"
    _label(form, "size").click()
    _focused(page, size)
    assert size.get_attribute("aria-required") == "false"

    express = form.get_by_role("checkbox", name="express", exact=True)
    assert not express.is_checked()
    _label(form, "express").click()  # a label click toggles its checkbox, as in any HTML form
    page.wait_for_function("(el) => el.checked", arg=express.element_handle(), timeout=30_000)

    # a nullable's label names the box a value is typed in, not its "none" toggle
    _row(form, "note").get_by_role("checkbox", name="none").uncheck()
    note = form.get_by_label("note", exact=True)
    note.wait_for(state="visible", timeout=30_000)
    assert note.evaluate("(el) => el.tagName + ':' + el.type") == "INPUT:text"
    _label(form, "note").click()
    _focused(page, note)

    # a group (a nested model) is a named group; its label focuses the group's first field
    _row(form, "address").get_by_role("checkbox", name="none").uncheck()
    group = form.get_by_role("group", name="address", exact=True)
    group.wait_for(state="visible", timeout=30_000)
    street = group.get_by_role("textbox", name="street", exact=True)
    assert street.count() == 1 and group.get_by_role("textbox", name="city", exact=True).count() == 1
    _label(form, "address").click()
    _focused(page, street)

    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-a11y-labels.png"))


def test_text_fields_are_checked_as_you_type_numbers_on_blur(lab_page):
    page = lab_page
    form = _form(page, "quote")
    code = form.get_by_label("code", exact=True)
    errors = form.locator(".workbench-field-error")
    too_short = errors.filter(has_text="at least 3 characters")
    pattern = errors.filter(has_text="matching /^[A-Z]+$/")

    code.click()
    code.press_sequentially("AB")  # no Run, no blur: each keystroke is checked
    too_short.first.wait_for(state="visible", timeout=30_000)
    page.wait_for_function(
        "(el) => el.getAttribute('aria-invalid') === 'true'", arg=code.element_handle(), timeout=30_000
    )
    assert "code" in _description(code) and "at least 3 characters" in _description(code)
    code.press_sequentially("C")
    too_short.first.wait_for(state="hidden", timeout=30_000)
    page.wait_for_function("(el) => !el.hasAttribute('aria-invalid')", arg=code.element_handle(), timeout=30_000)
    code.press_sequentially("d")
    pattern.first.wait_for(state="visible", timeout=30_000)
    code.press("Backspace")
    pattern.first.wait_for(state="hidden", timeout=30_000)
    _focused(page, code)  # the focus stayed in the box throughout
    assert code.input_value() == "ABC"

    price = form.get_by_label("price", exact=True)
    bound = errors.filter(has_text="must be ≥ 0")
    price.fill("-1")
    price.press("Tab")  # a number is checked when it is complete: on blur
    bound.first.wait_for(state="visible", timeout=30_000)
    price.fill("2.5")
    price.press("Tab")
    bound.first.wait_for(state="hidden", timeout=30_000)
    assert form.get_by_text("nothing was run").count() == 0  # all of it before any Run


def test_compact_layout_two_columns_and_collapsed_optional_fields_in_light_and_dark(lab_page):
    page = lab_page
    form = _form(page, "survey")
    name, email = form.get_by_label("name", exact=True), form.get_by_label("email", exact=True)
    age, country = form.get_by_label("age", exact=True), form.get_by_label("country", exact=True)
    boxes = [b.bounding_box() for b in (name, email, age, country)]
    assert abs(boxes[0]["y"] - boxes[1]["y"]) < 4 and boxes[1]["x"] > boxes[0]["x"] + boxes[0]["width"]  # side by side
    assert abs(boxes[2]["y"] - boxes[3]["y"]) < 4 and boxes[2]["y"] > boxes[0]["y"]  # next row
    assert email.get_attribute("title") == "Where the answer goes"

    disclosure = form.get_by_role("button", name=re.compile(r"^Optional \(12\)"))
    disclosure.wait_for(state="visible", timeout=30_000)
    assert disclosure.get_attribute("aria-expanded") == "false"
    city = form.get_by_label("city", exact=True).first  # (address.city comes later)
    assert not city.is_visible()  # collapsed
    section = page.locator("#" + disclosure.get_attribute("aria-controls"))
    assert "workbench-disclosure-body" in section.get_attribute("class")
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "form-compact-collapsed-light.png"))

    # keyboard: Tab reaches the header (a real button), Enter opens it, Tab then enters the fields
    form.get_by_label("country", exact=True).focus()
    page.keyboard.press("Tab")
    _focused(page, disclosure)
    page.keyboard.press("Enter")
    city.wait_for(state="visible", timeout=30_000)
    assert disclosure.get_attribute("aria-expanded") == "true"
    page.keyboard.press("Tab")
    _focused(page, city)
    zip_code = form.get_by_label("zip_code", exact=True)
    city_box, zip_box = city.bounding_box(), zip_code.bounding_box()
    assert abs(city_box["y"] - zip_box["y"]) < 4 and zip_box["x"] > city_box["x"] + city_box["width"]
    notes = form.get_by_label("notes", exact=True)  # a text area spans both columns
    assert notes.evaluate("(el) => el.tagName") == "TEXTAREA"
    form_box, notes_box = form.bounding_box(), notes.bounding_box()
    assert notes_box["x"] + notes_box["width"] > form_box["x"] + form_box["width"] / 2 + 100

    city.fill("Lyon")  # a set field is counted in the title
    city.press("Tab")
    form.get_by_role("button", name="Optional (12) · 1 set", exact=True).wait_for(timeout=30_000)

    label = _label(form, "country")
    title = form.get_by_text("Optional (12) · 1 set", exact=True)
    light = {"label": label.evaluate(lab.CONTRAST), "title": title.evaluate(lab.CONTRAST)}
    form.screenshot(path=str(ARTIFACTS / "form-compact-light.png"))
    lab.set_theme(page, "JupyterLab Dark")
    try:
        dark = {"label": label.evaluate(lab.CONTRAST), "title": title.evaluate(lab.CONTRAST)}
        form.screenshot(path=str(ARTIFACTS / "form-compact-dark.png"))
    finally:
        lab.set_theme(page, "JupyterLab Light")
    for name_, colours in (("label", (light["label"], dark["label"])), ("title", (light["title"], dark["title"]))):
        assert colours[0]["color"] != colours[1]["color"], f"{name_} ignores the theme: {colours}"
        assert min(c["contrast"] for c in colours) >= 4.5, (name_, colours)
