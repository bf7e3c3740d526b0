"""A tool's rich results in a form, in a real JupyterLab (Debian's chromium), light and dark: a mixed
result shows its blocks in order — the text, an audio player the browser decodes, the embedded text,
the embedded image drawn, a binary attachment as a download, a link to the next memo — each readable
(WCAG contrast ≥ 4.5, measured in the page); a hostile result's blocks run nothing and link nowhere."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import lab
from tests.browser.conftest import ARTIFACTS
from tests.mcp_servers import ROOT

NOTEBOOK = "form_rich_results.ipynb"
CELLS = [
    "%load_ext workbench",
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    "from tests.rich_result_tools import hostile_bundle, memo_bundle\n"
    "from workbench import get_workbench\n"
    "wb = get_workbench()\n"
    "for fn in (memo_bundle, hostile_bundle):\n"
    "    wb.registry.register_tool(fn, replace=True)\n"
    "wb.form(memo_bundle)",
    "wb.form(hostile_bundle)",
]
#: the result's blocks, top to bottom: (selector inside the result area, text it holds)
ORDER = [
    ("pre", "Memo 1 and what goes with it"),
    (".workbench-audio", "audio · audio/wav"),
    (".workbench-resource", "memo://1"),
    (".workbench-resource", "memo://1/chart.png"),
    (".workbench-resource", "memo://1/attachment.bin"),
    (".workbench-resource-link", "Memo 2"),
]


@pytest.fixture(scope="module")
def forms(lab_server, browser):
    with lab.notebook_page(lab_server, browser, NOTEBOOK, CELLS, ready=".workbench-form-hostile_bundle") as page:
        for name in ("memo_bundle", "hostile_bundle"):
            form = lab.form_of(page, name)
            form.locator(".workbench-run").click()
            lab.wait_visible(form.locator(".workbench-result-area .workbench-resource-link"), form, f"rich-{name}")
        yield page
        lab.close_notebook(page, lab_server)


def test_a_mixed_result_shows_its_blocks_in_order_and_the_browser_plays_the_audio(forms):
    result = lab.form_of(forms, "memo_bundle").locator(".workbench-result-area")
    tops = []
    for selector, text in ORDER:
        block = result.locator(selector, has_text=text).first
        expect(block).to_be_visible()
        tops.append(block.evaluate("el => el.getBoundingClientRect().top"))
    assert tops == sorted(tops), list(zip(ORDER, tops))
    audio = result.locator("audio[controls]")
    expect(audio).to_have_count(1)
    # the data URL decodes as audio: its metadata loads and it lasts the 0.25 s the tool wrote
    audio.evaluate(
        "el => new Promise((done, fail) => { if (el.readyState >= 1) return done();"
        " el.addEventListener('loadedmetadata', done); el.addEventListener('error', fail); el.load(); })"
    )
    assert abs(audio.evaluate("el => el.duration") - 0.25) < 0.01
    image = result.locator(".workbench-resource img")
    assert image.evaluate("el => el.complete && el.naturalWidth") == 1
    expect(result.get_by_text("Buy milk <b>today</b>")).to_be_visible()
    download = result.get_by_role("link", name="download")
    assert download.get_attribute("download") == "attachment.bin"
    assert download.get_attribute("href").startswith("data:application/octet-stream;base64,")
    link = result.get_by_role("link", name="Memo 2")
    assert (
        link.get_attribute("href") == "https://example.org/memos/2"
        and link.get_attribute("rel") == "noopener noreferrer"
    )


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_every_rich_block_is_readable_in_the_theme(forms, theme):
    page = forms
    lab.set_theme(page, theme)
    result = lab.form_of(page, "memo_bundle").locator(".workbench-result-area")
    result.scroll_into_view_if_needed()
    looks = {}
    for label, locator in {
        "audio header": result.locator(".workbench-audio > div").first,
        "resource header": result.locator(".workbench-resource > div").first,
        "resource text": result.locator(".workbench-resource pre").first,
        "binary line": result.locator(".workbench-resource", has_text="attachment.bin").locator("div").nth(1),
        "download link": result.get_by_role("link", name="download"),
        "resource link": result.get_by_role("link", name="Memo 2"),
        "link description": result.get_by_text("the next memo"),
    }.items():
        looks[label] = locator.evaluate(lab.CONTRAST)
    theme_name = "dark" if "Dark" in theme else "light"
    result.screenshot(path=str(ARTIFACTS / f"form-rich-results-{theme_name}.png"))
    low = {label: look for label, look in looks.items() if look["contrast"] < 4.5}
    assert not low, low
    backgrounds = {look["background"] for look in looks.values()}
    assert ("rgb(255, 255, 255)" in backgrounds) == (theme_name == "light"), looks
    lab.set_theme(page, "JupyterLab Light")


def test_a_hostile_result_runs_nothing_and_links_nowhere(forms):
    """The attack, in the browser: a script URI, markup in a name, a MIME type closing its attribute, an HTML
    blob and a text closing its <pre>. No dialog opens (checked when the page closes), no element the tool
    wrote exists, and no link leads to a script."""
    result = lab.form_of(forms, "hostile_bundle").locator(".workbench-result-area")
    expect(result.get_by_text("<img src=x onerror=alert('name')>")).to_be_visible()
    expect(result.get_by_text("</pre><script>alert('text')</script>")).to_be_visible()
    assert result.locator("script, img, audio, [onerror]").count() == 0
    hrefs = result.locator("a[href]").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert hrefs and all(href.startswith("data:application/octet-stream;base64,") for href in hrefs), hrefs
