"""HTML for the rich content blocks of a tool result (``workbench.content``): audio as an ``<audio
controls>`` player, an embedded resource by its MIME type (text shown, a raster image drawn, any other
blob as its size and a download link), a resource link as its name and URI.

Everything in a block is the tool's, so nothing is trusted: text is escaped, a ``data:`` URL is made
only from base64 that checks and a MIME type of the kind expected (``audio/…``, a raster image), a
download always as ``application/octet-stream``, and a link is clickable only for http(s) URIs.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Callable, Optional

from workbench._html import escape
from workbench._json_text import loads as load_json
from workbench._styles import BORDER, MUTED, WRAP

__all__ = ["RICH_BLOCKS", "rich_block_html"]

_PRE = "white-space:pre-wrap;margin:0;font-family:var(--jp-code-font-family,monospace);font-size:0.9em;" + WRAP
_BOX = f"border:1px solid {BORDER};border-radius:3px;padding:4px 8px;margin:4px 0;{WRAP}"
_HEAD = f"color:{MUTED};font-size:0.85em"
_LINK = "color:var(--jp-content-link-color, blue)"
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
#: a MIME type as RFC 6838 writes it (type/subtype of token characters), nothing an attribute could break out of
_MIME = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$")
#: the images an embedded resource may draw (raster formats only: an SVG is offered as a download)
_IMAGES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


def _mime(value: Any) -> str:
    """``value`` as a lower-case MIME type without parameters, or ``""`` when it is not one."""
    text = str(value or "").split(";")[0].strip().lower()
    return text if _MIME.match(text) else ""


def _base64(value: Any) -> Optional[str]:
    """``value`` when it is well-formed base64 text (whitespace dropped), else ``None``."""
    if not isinstance(value, str):
        return None
    text = "".join(value.split())
    if len(text) % 4 or not _BASE64.match(text):
        return None
    return text


def _size(text: str) -> int:
    try:
        return len(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        return 0


def _note(text: str) -> str:
    return f"<i style='color:{MUTED}'>{escape(text)}</i>"


def audio_html(block: dict) -> str:
    """An ``{"audio": …}`` block as a player (its MIME type and size above it)."""
    audio = found if isinstance(found := block.get("audio"), dict) else {}
    mime = _mime(audio.get("mimeType"))
    source = found if isinstance(found := audio.get("source"), dict) else {}
    data = _base64(source.get("bytes"))
    if not mime.startswith("audio/") or data is None:
        return _note(f"[audio: not playable ({audio.get('mimeType')!s}, base64 {'ok' if data else 'malformed'})]")
    return (
        f"<div class='workbench-audio' style='{_BOX}'><div style='{_HEAD}'>audio · {escape(mime)} · "
        f"{_size(data):,} bytes</div><audio controls preload='metadata' style='max-width:100%' "
        f"src='data:{mime};base64,{data}'></audio></div>"
    )


def _resource_text(text: str, mime: str) -> str:
    if mime == "application/json" or mime.endswith("+json"):
        try:
            value = load_json(text)
        except ValueError:
            pass
        else:
            return f"<pre style='{_PRE}'>{escape(json.dumps(value, indent=2, ensure_ascii=False))}</pre>"
    return f"<pre style='{_PRE}'>{escape(text)}</pre>"


def _file_name(uri: str) -> str:
    name = uri.rstrip("/").rsplit("/", 1)[-1].split("?")[0]
    return re.sub(r"[^\w.-]", "_", name) or "resource"


def _resource_blob(blob: Any, mime: str, uri: str) -> str:
    data = _base64(blob)
    if data is None:
        return _note("[binary resource: malformed base64]")
    if mime in _IMAGES:
        return f"<img alt='{escape(uri)}' style='max-width:100%;max-height:320px' src='data:{mime};base64,{data}'>"
    return (
        f"<div>binary, {_size(data):,} bytes · <a download='{escape(_file_name(uri))}' style='{_LINK}' "
        f"href='data:application/octet-stream;base64,{data}'>download</a></div>"
    )


def resource_html(block: dict) -> str:
    """A ``{"resource": …}`` block (an embedded resource): its URI and MIME type, then its contents."""
    resource = found if isinstance(found := block.get("resource"), dict) else {}
    uri = str(resource.get("uri", ""))
    mime = _mime(resource.get("mimeType"))
    if isinstance(resource.get("text"), str):
        body = _resource_text(resource["text"], mime)
    else:
        body = _resource_blob(resource.get("blob"), mime, uri)
    head = f"<div style='{_HEAD}'>resource · <code>{escape(uri)}</code>{' · ' + escape(mime) if mime else ''}</div>"
    return f"<div class='workbench-resource' style='{_BOX}'>{head}{body}</div>"


def resource_link_html(block: dict) -> str:
    """A ``{"resourceLink": …}`` block: its name (a link when the URI is http(s)), URI, description."""
    link = found if isinstance(found := block.get("resourceLink"), dict) else {}
    uri = str(link.get("uri", ""))
    name = escape(link.get("name") or uri)
    if re.match(r"^https?://", uri, re.IGNORECASE):
        name = f"<a href='{escape(uri)}' target='_blank' rel='noopener noreferrer' style='{_LINK}'>{name}</a>"
    mime = _mime(link.get("mimeType"))
    description = link.get("description")
    return (
        f"<div class='workbench-resource-link' style='{_BOX}'><div style='{_HEAD}'>resource link"
        f"{' · ' + escape(mime) if mime else ''}</div><b>{name}</b> <code>{escape(uri)}</code>"
        + (f"<div>{escape(description)}</div>" if description else "")
        + "</div>"
    )


#: block key → its renderer (text, json and image blocks are drawn by ``jupyter._render``)
RICH_BLOCKS: dict[str, Callable[[dict], str]] = {
    "audio": audio_html,
    "resource": resource_html,
    "resourceLink": resource_link_html,
}


def rich_block_html(block: dict) -> Optional[str]:
    """The HTML of a rich content block, or ``None`` when ``block`` is of no rich kind."""
    for key, render in RICH_BLOCKS.items():
        if key in block:
            return render(block)
    return None
