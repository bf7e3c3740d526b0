"""Transcript, evaluation report, log table and dashboard in a real JupyterLab (issue 28), light and
dark: every text colour measured against its background in the page (WCAG AA: 4.5:1 text, 3:1
focus indicators and chart parts), the report walked by keyboard only, the report's and the
dashboard's layout measured. Screenshots in test-artifacts/report-views-*.png."""

from __future__ import annotations

import pytest

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS

NOTEBOOK = "report_views.ipynb"

CELLS = [
    "%load_ext workbench",
    "from workbench import tool\n"
    "from workbench.agent import run_agent\n"
    "from workbench.evals import EvalCase, run_evals\n"
    "from workbench.jupyter import get_workbench\n"
    "from workbench.jupyter._transcript_view import TranscriptView\n"
    "from workbench.models import ScriptedModel\n\n"
    "@tool\n"
    "def get_weather(city: str) -> dict:\n"
    '    """The weather in a city."""\n'
    "    return {'city': city, 'sky': 'clear'}\n\n"
    "wb = get_workbench()\n"
    "wb.registry.register_tool(get_weather)\n"
    "for city in ('Paris', 'Rome'):\n"
    "    wb.call('get_weather', {'city': city})\n"
    "wb.call('get_weather', {'town': 'Oslo'})\n"
    "'ready'",
    "script = ScriptedModel([{'tool_calls': [{'name': 'get_weather', 'input': {'city': 'Paris'}}]},\n"
    "                        'It is clear in Paris.'], name='toy')\n"
    "TranscriptView(run_agent(script, 'What is the weather in Paris?', tools=[get_weather], system='Be brief.'))",
    "cities = [f'City{i:02d}' for i in range(30)]\n"
    "cases = [EvalCase(c.lower(), prompt=f'Weather in {c}?',\n"
    "                  expect_calls=[{'name': 'get_weather', 'arguments': {'city': [c]}}]) for c in cities]\n"
    "def caller(messages, tools):\n"
    "    city = messages[-1]['content'].split()[-1].rstrip('?')\n"
    "    return {'tool_calls': [{'name': 'get_weather', 'input': {'city': city}}]}\n"
    "silent = ScriptedModel(['No.'], repeat_last=True, name='a-model-whose-name-is-far-too-long-for-its-label')\n"
    "report = run_evals(cases, [silent, ScriptedModel([caller], repeat_last=True, name='good')],\n"
    "                   tools=[get_weather], repeats=2, progress=False)\n"
    "report",
    "wb.log_table()",
    "wb.ui()",
]

# {color, background, contrast} of ``prop`` (a colour property) of an element against the first opaque
# background behind it (rgb()/rgba() and the color(srgb …) that color-mix computes to)
CONTRAST_OF = """(el, prop) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number), k = c.startsWith('color(') ? 255 : 1;
    return {r: m[0] * k, g: m[1] * k, b: m[2] * k, a: m.length > 3 ? m[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let node = el.parentElement, bg = null;
  if (prop === 'color' || prop === 'outlineColor') node = el;
  while (node && node.nodeType === 1) { const c = parse(getComputedStyle(node).backgroundColor); if (c.a > 0.5) { bg = c; break; } node = node.parentElement; }
  bg = bg || {r: 255, g: 255, b: 255, a: 1};
  let fg = parse(getComputedStyle(el)[prop]);
  fg = {r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a)};
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return {color: getComputedStyle(el)[prop], background: `rgb(${bg.r}, ${bg.g}, ${bg.b})`, contrast: (hi + 0.05) / (lo + 0.05)};
}"""

# every visible element holding text of its own, below ``minimum`` (SVG text is coloured by currentColor)
LOW_CONTRAST = """(root, args) => {
  const [source, minimum] = args, measure = eval(source), low = [];
  for (const el of root.querySelectorAll('*')) {
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const c = measure(el, 'color');
    if (c.contrast < minimum) low.push({text: el.textContent.trim().slice(0, 40), tag: el.tagName, ...c});
  }
  return low;
}"""

VIEWS = {
    "transcript chat": ".workbench-transcript-view",
    "evaluation report": ".wb-eval",
    "log table": ".workbench-log",
}


@pytest.fixture(scope="module")
def lab_page(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-dashboard", width=1300) as page:
        page.locator(".workbench-log-table tr.workbench-log-row").first.wait_for(timeout=60_000)
        yield page


def _low_contrast(page) -> dict:
    low = {
        name: page.locator(selector).first.evaluate(LOW_CONTRAST, [CONTRAST_OF, 4.5])
        for name, selector in VIEWS.items()
    }
    view = page.locator(".workbench-transcript-view").first
    view.locator(".lm-TabBar-tab", has_text="Trace").click()
    page.locator(".workbench-trace").first.wait_for(state="visible")
    low["transcript trace"] = view.evaluate(LOW_CONTRAST, [CONTRAST_OF, 4.5])
    view.locator(".lm-TabBar-tab", has_text="Chat").click()
    # chart parts: each bar's track outline against the page, 3:1
    tracks = page.locator(".wb-eval-track").evaluate_all(f"(els) => els.map(el => ({CONTRAST_OF})(el, 'stroke'))")
    low["bar tracks"] = [t for t in tracks if t["contrast"] < 3]
    return {name: found for name, found in low.items() if found}


def test_every_transcript_report_and_log_colour_reaches_AA_in_light_and_dark(lab_page):
    page = lab_page
    ARTIFACTS.mkdir(exist_ok=True)
    user = page.locator(".workbench-chat-user").first
    light = _low_contrast(page)
    light_user = user.evaluate(CONTRAST_OF, "color")
    page.screenshot(path=str(ARTIFACTS / "report-views-light.png"), full_page=True)
    lab.set_theme(page, "JupyterLab Dark")
    try:
        dark = _low_contrast(page)
        dark_user = user.evaluate(CONTRAST_OF, "color")
        page.locator(".workbench-transcript-view").first.screenshot(
            path=str(ARTIFACTS / "report-views-transcript-dark.png")
        )
        page.locator(".wb-eval").first.screenshot(path=str(ARTIFACTS / "report-views-report-dark.png"))
    finally:
        lab.set_theme(page, "JupyterLab Light")
    assert light_user["background"] != dark_user["background"], "the user bubble ignores the theme"
    found = [
        f"{theme} {view}: {x['tag']} {x['text']!r} {x['color']} on {x['background']} = {x['contrast']:.2f}"
        for theme, low in (("light", light), ("dark", dark))
        for view, items in low.items()
        for x in items
    ]
    assert found == [], "\n".join(found)


def test_the_trace_headers_stay_on_one_line(lab_page):
    page = lab_page
    view = page.locator(".workbench-transcript-view").first
    view.locator(".lm-TabBar-tab", has_text="Trace").click()
    size = page.viewport_size
    page.set_viewport_size({"width": 800, "height": size["height"]})  # a notebook beside a side panel
    try:
        trace = page.locator(".workbench-trace").first
        trace.wait_for(state="visible")
        lines = trace.evaluate("""(table) => Object.fromEntries([...table.querySelectorAll('th')].map(th => {
          const range = document.createRange(); range.selectNodeContents(th);
          return [th.textContent, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size]; }))""")
        scrolls = trace.evaluate(
            "(table) => ['auto', 'scroll'].includes(getComputedStyle(table.parentElement).overflowX)"
        )
        trace.evaluate("(table) => table.parentElement.scrollIntoView()")
        view.screenshot(path=str(ARTIFACTS / "report-views-trace.png"))
    finally:
        page.set_viewport_size(size)
        view.locator(".lm-TabBar-tab", has_text="Chat").click()
    assert lines["tokens in"] == lines["tokens out"] == 1 and set(lines.values()) == {1}, lines
    assert scrolls, "a wide trace is cut by its tab instead of scrolling in its own box"


def test_report_layout_labels_tracks_own_scroll_boxes_and_text_left(lab_page):
    page = lab_page
    report = page.locator(".wb-eval").first
    report.scroll_into_view_if_needed()
    facts = report.evaluate("""(root) => {
      const output = root.closest('.jp-OutputArea-output');
      const labels = [...root.querySelectorAll('.wb-eval-label')];
      const cut = labels.filter(l => l.scrollWidth > l.clientWidth);
      const rows = [...root.querySelectorAll('.wb-eval-bar-row')];
      const overlaps = rows.filter(r => { const l = r.querySelector('.wb-eval-label').getBoundingClientRect(),
                                               s = r.querySelector('svg').getBoundingClientRect(); return l.right > s.left + 0.5; });
      const summary = root.querySelector('.wb-eval-scroll');
      const reason = [...root.querySelectorAll('.wb-eval-failures td:last-child')][0];
      const number = root.querySelector('table.wb-eval-table td.wb-num');
      return {outputScrolls: output.scrollWidth > output.clientWidth + 1, reportScrolls: root.scrollWidth > root.clientWidth + 1,
              summaryScrolls: summary.scrollWidth > summary.clientWidth, cut: cut.length,
              cutWithTooltip: cut.filter(l => l.title === l.textContent).length, overlaps: overlaps.length,
              bars: rows.length, tracks: root.querySelectorAll('.wb-eval-track').length,
              reasonAlign: getComputedStyle(reason).textAlign, numberAlign: getComputedStyle(number).textAlign};
    }""")
    report.screenshot(path=str(ARTIFACTS / "report-views-report-light.png"))
    assert facts["summaryScrolls"] and not facts["reportScrolls"] and not facts["outputScrolls"], facts
    assert facts["cut"] >= 1 and facts["cutWithTooltip"] == facts["cut"] and facts["overlaps"] == 0, facts
    assert facts["tracks"] == facts["bars"], facts  # the silent model's 0 % bar too
    assert (facts["reasonAlign"], facts["numberAlign"]) == ("left", "right"), facts


def _focused(page) -> dict:
    return page.evaluate("""() => { const el = document.activeElement;
      return {tag: el.tagName, text: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 200),
              inReport: !!el.closest('.wb-eval')}; }""")


def test_the_report_is_walked_by_keyboard_only(lab_page):
    page = lab_page
    report = page.locator(".wb-eval").first
    report.scroll_into_view_if_needed()
    # the keyboard enters the report from the cell above it (its input area), as Tab from the page would
    page.locator(".jp-Cell").nth(3).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Escape")
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        where = _focused(page)
        if where["inReport"]:
            if not stops:  # the summary's own box: the arrow keys scroll the wide table inside it
                page.keyboard.press("ArrowRight")
                page.keyboard.press("ArrowRight")
                # (keyboard scrolling is animated: wait for it to move)
                page.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=10_000)
                where["scrolled"] = page.evaluate("() => document.activeElement.scrollLeft")
            stops.append(where)
        elif stops:
            break
    names = [s["text"] for s in stops]
    assert names[0] == "Summary per model and variant" and "Paired by case" in names, names
    assert stops[0]["scrolled"] > 0, stops[0]
    groups = [s for s in stops if s["tag"] == "SUMMARY" and "failures in" in s["text"]]
    assert groups, stops
    group = groups[0]
    assert "a-model-whose-name-is-far-too-long-for-its-label" in group["text"] and "showing 50 of 60" in group["text"]
    # back to that disclosure by keyboard, open it with Enter, and its table is the next stop
    while not _focused(page)["text"].startswith(group["text"][:30]):
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    details = report.locator("details.wb-eval-failure-group").first
    assert details.get_attribute("open") is not None, "Enter did not open the failures"
    page.keyboard.press("Tab")
    assert _focused(page)["text"].startswith("Failures of scripted:a-model"), _focused(page)
    # the focused box scrolls by keyboard, and its focus ring is seen (3:1)
    ring = page.evaluate(f"() => ({CONTRAST_OF})(document.activeElement, 'outlineColor')")
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    assert ring["contrast"] >= 3, ring
    report.screenshot(path=str(ARTIFACTS / "report-views-keyboard.png"))
    assert page.locator(".jp-Notebook .jp-Cell").count() == len(CELLS), "a key reached the notebook's shortcuts"


def test_dashboard_list_keeps_its_width_and_its_search_box_whole(lab_page):
    page = lab_page
    dash = page.locator(".workbench-dashboard").first
    dash.scroll_into_view_if_needed()
    measure = """(root) => { const list = root.querySelector('.workbench-tool-list-widget'),
      search = root.querySelector('input[placeholder="Search tools…"]'), side = list.parentElement;
      return {list: list.getBoundingClientRect().width, side: side.getBoundingClientRect().right,
              search: search.getBoundingClientRect().right}; }"""
    search = dash.locator("input[placeholder='Search tools…']")
    search.fill("no such tool at all")
    dash.locator(".workbench-no-form").wait_for()
    without = dash.evaluate(measure)
    search.fill("")
    dash.locator(".workbench-form").first.wait_for()
    with_form = dash.evaluate(measure)
    dash.screenshot(path=str(ARTIFACTS / "report-views-dashboard.png"))
    assert abs(without["list"] - with_form["list"]) < 1, (without, with_form)
    assert with_form["search"] <= with_form["side"] + 0.5, with_form

    # after a run, "took … ms" and the History picker are two things, not one phrase
    form = dash.locator(".workbench-form").first
    lab.row_input(form, "city").fill("Lisbon")
    form.get_by_role("button", name="Run").first.click()
    took = form.locator(".workbench-elapsed")
    took.get_by_text("took").wait_for(timeout=60_000)
    history = form.locator(".workbench-form-history")
    gap = page.evaluate(
        "([a, b]) => b.getBoundingClientRect().left - a.getBoundingClientRect().right",
        [took.element_handle(), history.locator("label").element_handle()],
    )
    rule = history.evaluate("(el) => getComputedStyle(el).borderLeftStyle")
    form.screenshot(path=str(ARTIFACTS / "report-views-took-history.png"))
    assert gap >= 16 and rule == "solid", (gap, rule)


def test_the_log_table_is_walked_by_keyboard_only(lab_page):
    page = lab_page
    log = page.locator(".workbench-log").first
    log.scroll_into_view_if_needed()
    log.locator("input[placeholder^='filter']").focus()
    active_cell = "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    cell = page.evaluate(active_cell)
    seen = []
    for _ in range(30):  # from the filter box through the toolbar to the headers and the first row
        page.keyboard.press("Tab")
        where = page.evaluate(
            "() => { const el = document.activeElement; return {tag: el.tagName,"
            " sort: el.dataset.sort || '', key: el.dataset.key || ''}; }"
        )
        seen.append(where)
        if where["key"]:
            break
    assert [s["sort"] for s in seen if s["sort"]] == ["id", "completed_at", "tool_name", "status", "latency_ms"], seen
    assert seen[-1]["tag"] == "TR", seen
    first = seen[-1]["key"]
    page.keyboard.press("ArrowDown")  # the next row, not the next notebook cell
    page.wait_for_function(
        "(key) => document.activeElement.dataset.key && document.activeElement.dataset.key !== key",
        arg=first,
        timeout=10_000,
    )
    assert page.evaluate(active_cell) == cell, "the arrow moved the notebook's cursor"
    page.keyboard.press("Enter")
    details = log.locator(".workbench-log-details")
    details.wait_for(state="visible", timeout=30_000)
    for _ in range(15):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.textContent.trim()") == "Load into form":
            break
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "Load into form"
    ring = page.evaluate(f"() => ({CONTRAST_OF})(document.activeElement, 'outlineColor')")
    assert ring["contrast"] >= 3, ring
    assert page.locator(".jp-Notebook .jp-Cell").count() == len(CELLS)
