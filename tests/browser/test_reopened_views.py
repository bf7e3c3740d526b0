"""Issue 28: a saved notebook reopened with no kernel behind its widgets says so, once per view.

The notebook (a form, a playground, the log table, the dashboard and an MCP inspector) is run and saved by JupyterLab, every kernel is shut down, and it is
opened again in a fresh page and not run. Each workbench view shows one banner saying it is a saved copy and
how to make it live; no widget inside shows ipywidgets' red broken-link icon; the controls look disabled and
take no clicks. Light and dark screenshots go to test-artifacts/.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_saved_notebook import _shut_down_kernels
from tests.mcp_servers import ROOT

NOTEBOOK = "reopened_views.ipynb"
CELLS = [
    "%load_ext workbench",
    '%%tool\ndef greet(name: str = \'world\') -> str:\n    """Say hello to someone."""\n    return \'hello \' + name\n',
    "import workbench\n"
    "from workbench.models import ScriptedModel\n"
    "workbench.playground([ScriptedModel(['hi'], name='scripted')])",
    "workbench.get_workbench().log_table()",
    "workbench.ui()",
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    "from tests import mcp_defaults_asker\n"
    "from workbench.jupyter import inspect\n"
    "view = inspect(server=mcp_defaults_asker.server)\n"
    "view",
]
#: each view's root class, and a control of it that must look disabled and take no clicks
VIEWS = {
    "workbench-form": ".workbench-form-greet .workbench-run",
    "workbench-playground": ".workbench-playground .workbench-send",
    "workbench-log": ".workbench-log button",
    "workbench-dashboard": ".workbench-dashboard input",
    "workbench-mcp-inspector": ".workbench-mcp-inspector select",
}

# every element ipywidgets marks as not live whose ::before shows: the text it shows (the icon is a glyph)
MARKS = """() => [...document.querySelectorAll('.jupyter-widgets-disconnected')]
  .filter(el => getComputedStyle(el, '::before').display !== 'none')
  .map(el => ({classes: el.className, text: getComputedStyle(el, '::before').content}))"""

# the banner (the view's ::before): its text colour against its own background, WCAG contrast ratio
BANNER_CONTRAST = """(el) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2]}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const style = getComputedStyle(el, '::before');
  const [hi, lo] = [lum(parse(style.color)), lum(parse(style.backgroundColor))].sort((a, b) => b - a);
  return {color: style.color, background: style.backgroundColor, contrast: (hi + 0.05) / (lo + 0.05)};
}"""


def test_a_reopened_notebook_shows_one_saved_copy_banner_per_view_and_inert_controls(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-mcp-inspector", width=1300) as page:
        page.locator(".workbench-form-greet").first.wait_for(timeout=60_000)
        lab.add_and_run_cell(page, "view.connection.disconnect()\n'closed'", "closed")
        lab.close_notebook(page, lab_server)
    _shut_down_kernels(lab_server)

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{lab_server['base']}/lab/tree/{NOTEBOOK}?token={lab_server['token']}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
        views = {name: page.locator(f".{name}").first for name in VIEWS}
        for view in views.values():
            view.wait_for(state="attached", timeout=60_000)
            expect(view).to_have_class(lambda_contains("jupyter-widgets-disconnected"), timeout=60_000)
        marks = page.evaluate(MARKS)
        banners = [m for m in marks if "Saved copy" in m["text"]]
        assert sorted(name for m in banners for name in VIEWS if name in m["classes"].split()) == sorted(VIEWS), (
            banners  # one per view, on the view itself
        )
        assert len(marks) == len(banners), f"broken-link icons left: {[m for m in marks if m not in banners]}"
        for name, selector in VIEWS.items():
            looks = page.locator(selector).first.evaluate(
                "el => { const off = (e) => !e || e === document.body ? 1"
                " : parseFloat(getComputedStyle(e).opacity) * off(e.parentElement);"
                " return {events: getComputedStyle(el).pointerEvents, opacity: off(el)}; }"
            )
            assert looks["events"] == "none" and looks["opacity"] < 0.7, (name, looks)
        page.add_style_tag(content=".Toastify { display: none !important; }")
        for theme, suffix in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            lab.set_theme(page, theme)
            for name, view in views.items():
                view.scroll_into_view_if_needed()
                banner = view.evaluate(BANNER_CONTRAST)
                assert banner["contrast"] >= 4.5, (theme, name, banner)
            views["workbench-form"].scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"reopened-views-{suffix}.png"))
            views["workbench-mcp-inspector"].scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"reopened-views-inspector-{suffix}.png"))
        lab.set_theme(page, "JupyterLab Light")
    finally:
        context.close()


def lambda_contains(name: str):
    import re

    return re.compile(rf"(^|\s){re.escape(name)}(\s|$)")
