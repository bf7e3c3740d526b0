"""A ``SecretStr`` parameter in a real JupyterLab (Debian's chromium): the form shows a password input
(``type=password``, labelled, readable in the light and dark themes), the tool gets what was typed, the
form shows ``***`` for it, and the notebook saved with its widget state holds the secret nowhere."""

from __future__ import annotations

import json
import re

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "form_secrets.ipynb"
SECRET = "Tr0ub4dor-and-3-Horses"

CELLS = [
    "%load_ext workbench",
    "%%tool\n"
    "from pydantic import SecretStr\n\n"
    "def login(user: str, password: SecretStr) -> str:\n"
    '    """Log in."""\n'
    "    return f'{user} sent {len(password.get_secret_value())} characters'\n",
]


def test_a_secret_parameter_is_a_password_input_and_the_saved_notebook_never_holds_it(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-login") as page:
        form = lab.form_of(page, "login")
        password = lab.row_input(form, "password")
        assert password.get_attribute("type") == "password"
        assert password.get_attribute("placeholder") == "secret: not logged or saved"
        # the field's label names the input (a click on it focuses the password box)
        form.locator("label.workbench-label", has_text=re.compile(r"^password$")).click()
        assert password.evaluate("el => document.activeElement === el")

        lab.row_input(form, "user").fill("bob")
        password.fill(SECRET)
        form.locator(".workbench-run").click()
        lab.wait_visible(
            form.locator(".workbench-result-area").get_by_text(f"bob sent {len(SECRET)} characters"),
            form,
            "form-secrets-result",
        )
        shown = form.evaluate("el => el.textContent")  # collapsed Request / Copy as code included
        assert SECRET not in shown and '"password": "***"' in shown
        assert password.input_value() == SECRET  # still typed, for the next run

        looks = {}
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            lab.set_theme(page, theme)
            password.scroll_into_view_if_needed()
            looks[theme] = password.evaluate(lab.CONTRAST)
            page.screenshot(path=str(ARTIFACTS / f"form-secret-{theme.split()[-1].lower()}.png"), full_page=False)
            assert password.get_attribute("type") == "password"
        lab.set_theme(page, "JupyterLab Light")
        light, dark = looks["JupyterLab Light"], looks["JupyterLab Dark"]
        assert light["background"] != dark["background"], f"the password box ignores the theme: {looks}"
        assert light["contrast"] >= 4.5 and dark["contrast"] >= 4.5, looks

        lab.close_notebook(page, lab_server)
    saved = (lab_server["root"] / NOTEBOOK).read_text()
    state = json.loads(saved)["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    assert state and state["state"], "the notebook was saved without its widget state: nothing was checked"
    assert any(model["state"].get("_esm", "").find('input.type = "password"') >= 0 for model in state["state"].values())
    assert SECRET not in saved
