"""A form shows a tool's rich results: audio as a player, embedded resources by their MIME type (text
shown, a raster image drawn, any other blob as its size and a download), resource links by name and
URI — a mixed list in its order; and rich blocks written to break out of the form's HTML do not."""

from __future__ import annotations

import base64
import re

from tests.form_catalogue import wb  # noqa: F401 - fixture
from tests.rich_result_tools import BINARY, PNG, hostile_bundle, memo_bundle, wav
from workbench.jupyter import ToolForm
from workbench.jupyter._render import result_area_html


def _shown(wb, fn) -> str:
    wb.registry.register_tool(fn, replace=True)
    form = ToolForm(fn, wb)
    result = form.run()
    assert result.status == "success", result.text
    return form.result_html.value


def test_a_mixed_result_shows_each_block_in_order(wb) -> None:
    shown = _shown(wb, memo_bundle)
    audio = base64.b64encode(wav()).decode()
    marks = [
        "Memo 1 and what goes with it",
        f"<audio controls preload='metadata' style='max-width:100%' src='data:audio/wav;base64,{audio}'>",
        "memo://1</code> · text/plain",
        "Buy milk &lt;b&gt;today&lt;/b&gt;",
        f"src='data:image/png;base64,{base64.b64encode(PNG).decode()}'",
        "memo://1/attachment.bin</code> · application/octet-stream",
        f"binary, {len(BINARY):,} bytes",
        "download='attachment.bin'",
        f"href='data:application/octet-stream;base64,{base64.b64encode(BINARY).decode()}'",
        "<a href='https://example.org/memos/2' target='_blank' rel='noopener noreferrer'",
        "Memo 2</a>",
        "the next memo",
    ]
    positions = [shown.find(mark) for mark in marks]
    assert -1 not in positions, [m for m, p in zip(marks, positions) if p == -1]
    assert positions == sorted(positions)
    assert f"audio · audio/wav · {len(wav()):,} bytes" in shown
    assert "&quot;audio&quot;" not in shown and "&quot;resourceLink&quot;" not in shown  # no raw JSON dumps


def test_a_json_resource_is_pretty_and_a_non_raster_image_is_a_download() -> None:
    from workbench import EmbeddedResource, ToolResult

    blocks = [
        EmbeddedResource("data://x", text='{"a": [1]}', mime_type="application/json").block(),
        EmbeddedResource("pic.svg", blob=b"<svg onload='alert(1)'/>", mime_type="image/svg+xml").block(),
    ]
    shown = result_area_html(ToolResult(toolUseId="t", status="success", content=blocks))
    assert "{\n  &quot;a&quot;: [\n    1\n  ]\n}" in shown
    assert "<img" not in shown and "download='pic.svg'" in shown and "data:image/svg" not in shown


def test_hostile_rich_blocks_stay_text(wb) -> None:
    """The attack: a tool's rich blocks try a script URI, markup in a name, a MIME type that closes its
    attribute, an HTML blob and a text that closes its <pre>. None becomes markup or a live URL."""
    shown = _shown(wb, hostile_bundle)
    assert "<script" not in shown and "<img src=x" not in shown and "onerror='" not in shown
    assert "href='javascript:" not in shown and 'href="javascript:' not in shown
    assert "&lt;img src=x onerror=alert(&#x27;name&#x27;)&gt;" in shown  # the name, shown as text
    assert "<audio" not in shown and "[audio: not playable" in shown
    assert "data:text/html" not in shown and "href='data:application/octet-stream;base64," in shown
    assert "&lt;/pre&gt;&lt;script&gt;alert(&#x27;text&#x27;)&lt;/script&gt;" in shown
    # every data: URL the page holds is an audio, raster image or octet-stream one
    assert set(re.findall(r"data:([^;'\"]+);", shown)) <= {"application/octet-stream"}
