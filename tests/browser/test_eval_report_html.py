"""A saved evaluation report page (``EvalReport.to_html``) opened from disk in Debian's chromium: it renders
its tables and charts and asks the network for nothing (issue 27, "Results that last")."""

from __future__ import annotations

from tests.browser.conftest import ARTIFACTS
from workbench import ToolRegistry, tool
from workbench.evals import EvalCase, EvalReport, run_evals
from workbench.models import ScriptedModel


@tool
def get_weather(city: str) -> dict:
    """The weather in a city.

    Args:
        city: The city.
    """
    return {"city": city}


@tool(name="get_weather")
def terse(city: str) -> dict:
    """Weather."""
    return {}


def test_a_saved_report_page_renders_offline(browser, tmp_path):
    cities = ["Paris", "Rome", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin", "Madrid"]
    cases = [
        EvalCase(
            c.lower(), prompt=f"Weather in {c}?", expect_calls=[{"name": "get_weather", "arguments": {"city": [c]}}]
        )
        for c in cities
    ]

    def answer(messages, tools):  # calls the tool only when its description says what it is for
        city = messages[-1]["content"].split()[-1].rstrip("?")
        described = "city" in tools[0].description
        return {"tool_calls": [{"name": "get_weather", "input": {"city": city}}]} if described or city < "M" else "No."

    report = run_evals(
        cases,
        ScriptedModel([answer], repeat_last=True, name="toy"),
        repeats=2,
        progress=False,
        variants={"before": ToolRegistry([terse]), "after": ToolRegistry([get_weather])},
    )
    # the page of a report loaded from its file, as a reader would get it a week later
    path = EvalReport.load(report.save(tmp_path / "report.json")).to_html(tmp_path / "report.html")

    context = browser.new_context(viewport={"width": 1300, "height": 900})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    try:
        page.goto(path.as_uri())
        page.wait_for_selector("svg")
        assert page.title() == "Evaluation report"
        summary = page.locator("table.wb-eval-table").first
        assert summary.locator("tbody tr").count() == 2 and summary.is_visible()
        headers = summary.locator("th").all_inner_texts()
        assert {"accuracy", "accuracy_low", "accuracy_high", "precision"} <= set(headers)
        chart = page.locator("figure.wb-eval-chart").first
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 40
        assert chart.locator("svg").count() == 2 and chart.locator("rect.wb-eval-track").count() == 2
        bars = chart.locator("rect.wb-eval-bar")
        widths = [float(bars.nth(i).get_attribute("width")) for i in range(bars.count())]
        assert widths == [260 * 2 / 8, 260.0]  # before: Dublin and Lisbon (before M), after: all 8
        assert (
            chart.locator("path.wb-eval-interval").count() == 2
            and chart.locator("path.wb-eval-interval").first.is_visible()
        )
        comparison = page.locator("table.wb-eval-comparisons tbody tr").first.inner_text()
        assert "after vs before" in comparison and "+75.0" in comparison
        page.screenshot(path=str(ARTIFACTS / "eval-report-page.png"), full_page=True)
    finally:
        context.close()
    assert requests == [path.as_uri()], f"the page asked for more than itself: {requests}"
