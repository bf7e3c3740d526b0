"""The documentation site in a real browser (Debian's chromium, Playwright): every page loads without
a console error, the search finds ``run_evals``, and the dark theme (Material's slate palette, chosen
with the header's toggle) is readable — text, links, code and navigation measured at WCAG contrast ≥ 4.5."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser.lab import CONTRAST
from tests.docs_site import build_site, page_paths

# what the dark theme's text is made of, each measured against the background behind it
READABLE = {
    "paragraph": ".md-content .md-typeset p",
    "link": ".md-content .md-typeset p a",
    "inline code": ".md-content .md-typeset p code",
    "table cell": ".md-content .md-typeset td",
    "navigation": ".md-sidebar--primary .md-nav__link",
    "header title": ".md-header__topic",
}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    site_dir = tmp_path_factory.mktemp("docs-site") / "site"
    built = build_site(site_dir)
    assert built.returncode == 0, built.stderr[-6000:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", page_paths(site_dir)
    finally:
        server.shutdown()
        server.server_close()


def _errors_while_loading(page, url: str) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url}"))
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return errors


def test_every_page_loads_without_console_errors(browser, site_url):
    base, paths = site_url
    assert len(paths) >= 30  # the guide, the tutorials and the reference
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        found = {}
        for path in paths:
            page = context.new_page()
            errors = _errors_while_loading(page, base + path)
            if errors or not page.locator("h1").count():
                found[path] = errors or ["no heading"]
            page.close()
        assert found == {}
    finally:
        context.close()


def test_search_finds_run_evals(page, site_url):
    base, _ = site_url
    page.goto(base, wait_until="networkidle")
    page.locator("input.md-search__input").click()
    # Material drops what is typed while its worker still builds the index ("Initializing search"):
    # type once the index is ready, as a reader does once the box says so
    page.locator(".md-search-result__meta", has_text="Type to start searching").wait_for(timeout=60_000)
    page.locator("input.md-search__input").press_sequentially("run_evals")  # key by key, as typed
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=30_000)
    links = [results.nth(i).locator("a").first.get_attribute("href") for i in range(results.count())]
    assert any("evaluations" in (link or "") for link in links), links


def test_the_dark_theme_is_readable(page, site_url):
    base, _ = site_url
    page.goto(base + "evaluations-statistics/", wait_until="networkidle")
    assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.goto(base + "security/", wait_until="networkidle")  # the choice is kept from page to page
    assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
    looks = {}
    for name, selector in READABLE.items():
        element = page.locator(selector).first
        assert element.count(), name
        looks[name] = element.evaluate(CONTRAST)
    assert looks["paragraph"]["background"] != "rgb(255, 255, 255)", looks  # really dark
    low = {name: look for name, look in looks.items() if look["contrast"] < 4.5}
    assert low == {}, looks
