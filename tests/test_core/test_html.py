"""One place for HTML escaping and the small HTML pieces the views and reports share (``workbench._html``)."""

from __future__ import annotations

import ast
from pathlib import Path

import workbench
from workbench._html import details, escape, json_text, pre

PACKAGE = Path(workbench.__file__).parent


def _escaping_calls(path: Path) -> list[int]:
    """Lines of ``path`` that call the stdlib's ``html.escape`` or import it (``from html import escape``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "escape"
            and isinstance(node.value, ast.Name)
            and node.value.id == "html"
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.module == "html":
            lines.append(node.lineno)
    return lines


def test_html_escaping_lives_in_one_module():
    others = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "_html.py" or path.parent != PACKAGE
        for lines in [_escaping_calls(path)]
        if lines
    }
    assert others == {}, f"escape through workbench._html.escape, not html.escape: {others}"


def test_escape_covers_text_and_attributes():
    assert escape("<b onclick='x'>\"&</b>") == "&lt;b onclick=&#x27;x&#x27;&gt;&quot;&amp;&lt;/b&gt;"
    assert escape(None) == "None" and escape(3) == "3"


def test_pre_shows_strings_as_they_are_and_values_as_indented_json():
    assert pre("<script>alert(1)</script>") == "<pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>"
    assert pre({"q": "é<"}) == "<pre>{\n  &quot;q&quot;: &quot;é&lt;&quot;\n}</pre>"
    assert pre("x", "white-space:pre-wrap") == "<pre style='white-space:pre-wrap'>x</pre>"
    assert json_text({"when": object}).startswith('{\n  "when": "<class')


def test_details_escapes_its_summary_not_its_body():
    assert (
        details("<i>trace</i>", "<pre>x</pre>")
        == "<details><summary>&lt;i&gt;trace&lt;/i&gt;</summary><pre>x</pre></details>"
    )


def test_the_check_report_escapes_a_hostile_traceback():
    from types import SimpleNamespace

    from workbench.testing._report_html import check_report_html

    failure = SimpleNamespace(
        kind="crash",
        message="<img src=x onerror=alert(1)>",
        mutation=None,
        input={"q": "</pre><script>"},
        traceback="<script>alert(2)</script>",
    )
    report = SimpleNamespace(ok=False, failures=[failure], summary=lambda: "1 failure <b>")
    page = check_report_html(report)
    assert "<script>" not in page and "<img" not in page
    assert "<details><summary>traceback</summary><pre>&lt;script&gt;alert(2)&lt;/script&gt;</pre></details>" in page
