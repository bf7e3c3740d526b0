"""Tools that return rich results (audio, embedded resources, resource links, mixed lists) — and one
whose rich result is hostile — for the form's rendering tests, in a kernel and in the browser."""

from __future__ import annotations

import base64
import io
import wave

from workbench import Audio, EmbeddedResource, ResourceLink, tool

#: a 1×1 PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
BINARY = bytes(range(256)) * 4


def wav(seconds: float = 0.25, rate: int = 8000) -> bytes:
    """A mono 16-bit WAV of silence, ``seconds`` long."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\x00\x00" * int(seconds * rate))
    return buffer.getvalue()


@tool
def memo_bundle() -> list:
    """A mixed result: a line of text, a spoken memo, the memo's text, a chart, a binary attachment and a
    link to the next memo."""
    return [
        "Memo 1 and what goes with it",
        Audio(wav()),
        EmbeddedResource("memo://1", text="Buy milk <b>today</b>", mime_type="text/plain"),
        EmbeddedResource("memo://1/chart.png", blob=PNG, mime_type="image/png"),
        EmbeddedResource("memo://1/attachment.bin", blob=BINARY, mime_type="application/octet-stream"),
        ResourceLink("https://example.org/memos/2", name="Memo 2", description="the next memo"),
    ]


@tool
def hostile_bundle() -> list:
    """Rich blocks written to break out of the form's HTML: a script URI, markup in names, a MIME type
    that closes its attribute, an HTML blob."""
    return [
        ResourceLink("javascript:alert('link')", name="<img src=x onerror=alert('name')>"),
        Audio(wav(), mime_type="audio/wav' onerror='alert(1)"),
        EmbeddedResource("memo://page.html", blob=b"<script>alert('blob')</script>", mime_type="text/html"),
        EmbeddedResource("memo://note", text="</pre><script>alert('text')</script>", mime_type="text/plain"),
    ]
