"""The evaluation report's HTML (issue 28): failures grouped by model and variant, then case, each
failed repeat a row, and always how many of how many are shown; tables in their own scrolling box,
numbers right and text left; every bar on its track with its label's whole text as a tooltip."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from workbench import tool
from workbench.evals import EvalCase, run_evals
from workbench.evals._report_html import FAILURES_PER_GROUP
from workbench.models import ScriptedModel


@tool
def get_weather(city: str) -> dict:
    """The weather in a city.

    Args:
        city: The city.
    """
    return {"city": city}


CITIES = [f"City{i:02d}" for i in range(30)]
CASES = [
    EvalCase(c.lower(), prompt=f"Weather in {c}?", expect_calls=[{"name": "get_weather", "arguments": {"city": [c]}}])
    for c in CITIES
]


def _caller(messages, tools):
    city = messages[-1]["content"].split()[-1].rstrip("?")
    return {"tool_calls": [{"name": "get_weather", "input": {"city": city}}]}


def _report():
    silent = ScriptedModel(["No."], repeat_last=True, name="silent")  # fails all 30 cases, each repeat
    good = ScriptedModel([_caller], repeat_last=True, name="good")
    return run_evals(CASES, [silent, good], tools=[get_weather], repeats=3, progress=False)


def _failure_groups(html: str) -> list[str]:
    return re.findall(r"<details class='wb-eval-failure-group'>.*?</details>", html, flags=re.S)


def test_failures_are_grouped_by_model_and_variant_with_the_repeat_and_say_how_many_are_shown():
    report = _report()
    html = report._repr_html_()
    assert len(report.failures()) == 90  # 30 cases x 3 repeats, all of "silent"
    assert "Failures (90)" in html and f"showing {FAILURES_PER_GROUP} of 90" in html
    groups = _failure_groups(html)
    assert len(groups) == 1 and "data-lm-suppress-shortcuts='true'>scripted:silent [" in groups[0]
    assert f"(showing {FAILURES_PER_GROUP} of 90)" in groups[0]
    headers = re.findall(r"<th\b[^>]*>(.*?)</th>", groups[0])
    assert headers == ["case", "repeat", "reason"]
    rows = re.findall(r"<tr>(.*?)</tr>", groups[0].split("<tbody>")[1])
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    assert len(cells) == FAILURES_PER_GROUP
    # a case's name once, its repeats 0, 1, 2 under it: repeats never look like identical rows
    assert [c[:2] for c in cells[:4]] == [["city00", "0"], ["", "1"], ["", "2"], ["city01", "0"]]
    assert "all of them are in <code>report.failures()</code>" in groups[0]


def test_every_model_with_failures_gets_its_group_not_only_the_first():
    def even_only(messages, tools):  # calls for the even cities, answers the odd ones in words
        return _caller(messages, tools) if int(messages[-1]["content"][-3:-1]) % 2 == 0 else "No."

    silent = ScriptedModel(["No."], repeat_last=True, name="silent")
    report = run_evals(
        CASES[:40],
        [silent, ScriptedModel([even_only], repeat_last=True, name="even")],
        tools=[get_weather],
        repeats=2,
        progress=False,
    )
    groups = _failure_groups(report._repr_html_())
    assert [re.search(r"<summary[^>]*>([\w:]+)", g).group(1) for g in groups] == ["scripted:silent", "scripted:even"]
    assert "(showing 50 of 60)" in groups[0] and "(showing 30 of 30)" in groups[1]


def test_tables_scroll_in_their_own_box_numbers_right_text_left():
    html = _report()._repr_html_()
    boxes = re.findall(r"<div class='wb-eval-scroll' tabindex='0' role='region' aria-label='([^']*)'[^>]*><table", html)
    assert boxes[0] == "Summary per model and variant" and any(
        b.startswith("Failures of scripted:silent") for b in boxes
    )
    first_row = html.split("<tbody>")[1].split("</tr>")[0]
    assert "<td class='wb-text'>scripted:silent</td>" in first_row  # the model's name: text
    assert re.search(r"<th class='wb-num'>accuracy</th>", html) and re.search(r"<th class='wb-text'>reason</th>", html)


def test_every_bar_has_its_track_and_its_label_as_a_tooltip():
    html = _report()._repr_html_()
    rows = re.findall(r"<div class=\"wb-eval-bar-row\">.*?</div>", html)
    assert rows and all("wb-eval-track" in row for row in rows)
    zero = [row for row in rows if 'class="wb-eval-bar"' in row and 'width="0.0"' in row]
    assert zero, "the silent model's 0 % bar"
    assert all(re.search(r'<span class="wb-eval-label" title="([^"]+)">\1</span>', row) for row in rows)


def test_tutorial_10_says_what_its_dashboard_shows_after_run_all():
    """The dashboard follows the registry: the tutorial's clean-up cell disconnects the MCP server and
    its tool leaves the list, so after Run All the dashboard shows four tools, and the text says so."""
    from mcp.server.mcpserver import MCPServer

    import workbench.mcp
    from workbench.jupyter._dashboard import Dashboard
    from workbench.jupyter._workbench import Workbench

    units = MCPServer("units", log_level="WARNING")

    @units.tool()
    def convert_length(value: float, to: Literal["cm", "inch"]) -> float:
        """Convert a length."""
        return value

    connection = workbench.mcp.connect(server=units)  # into the default registry, as in the tutorial
    # the tutorial's kernel workbench: the default registry (not whatever workbench an earlier test left)
    dashboard = Dashboard(Workbench())
    try:
        assert "convert_length" in dashboard.tool_names
    finally:
        connection.disconnect()
    assert "convert_length" not in dashboard.tool_names  # what the tutorial's clean-up cell does to its dashboard
    dashboard.close()

    notebook = json.loads(
        (Path(__file__).resolve().parents[2] / "notebooks" / "10_tools_from_anywhere.ipynb").read_text()
    )
    text = next(
        "".join(c["source"]) for c in notebook["cells"] if "".join(c["source"]).startswith("## 4. Side by side")
    )
    assert "lists them all;" not in text and "leaves the list" in text and "other four" in text
