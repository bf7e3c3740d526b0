"""HTML for the form's result area, its Request / Response view and its *Copy as code* text.

Everything a tool produced is escaped: text and JSON go through ``html.escape``, DataFrames through
``DataFrame.to_html(escape=True)``, markdown through a small renderer that escapes first and only
then adds its own tags, and images only as ``data:`` URLs of known raster formats with base64 checked.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from workbench._html import _STATUS_COLOURS
from workbench._html import escape as _e

__all__ = ["result_area_html", "json_html", "safe_markdown", "tool_use_html", "copy_as_code", "mismatch_html",
           "error_summary_html"]

_IMAGE_FORMATS = {"png": "png", "jpeg": "jpeg", "jpg": "jpeg", "gif": "gif", "webp": "webp"}
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_PRE = "white-space:pre-wrap;margin:0;font-family:var(--jp-code-font-family,monospace);font-size:0.9em"


def json_html(value: Any) -> str:
    """Pretty JSON in an escaped ``<pre>``."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    return f"<pre style='{_PRE}'>{_e(text)}</pre>"


# -- markdown ----------------------------------------------------------------------------------------------
_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])|(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])")
_LINK = re.compile(r"\[([^\]]+)\]\(((?:https?://|mailto:)[^)\s]+)\)")


def _inline(text: str) -> str:
    """Escape, then add code, bold, italic and http(s)/mailto links."""
    pieces = []
    for i, part in enumerate(_INLINE_CODE.split(text)):
        if i % 2:
            pieces.append(f"<code>{_e(part)}</code>")
            continue
        part = _e(part)
        part = _LINK.sub(lambda m: f"<a href=\"{m.group(2)}\" target=\"_blank\" rel=\"noopener noreferrer\">{m.group(1)}</a>", part)
        part = _BOLD.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", part)
        part = _ITALIC.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", part)
        pieces.append(part)
    return "".join(pieces)


def safe_markdown(text: str) -> str:
    """A small markdown subset as HTML, safe by construction: headings, paragraphs, lists, quotes,
    fenced code, inline code, bold, italic and http(s) links. Raw HTML in the text is shown, not run."""
    out: list[str] = []
    lines = str(text).splitlines()
    i = 0
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append("<p>" + "<br>".join(_inline(p) for p in paragraph) + "</p>")
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            block = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                block.append(lines[i])
                i += 1
            out.append(f"<pre style='{_PRE}'><code>{_e(chr(10).join(block))}</code></pre>")
            i += 1
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif re.match(r"^[-*+]\s+", stripped) or re.match(r"^\d+[.)]\s+", stripped):
            flush()
            ordered = bool(re.match(r"^\d+[.)]\s+", stripped))
            tag = "ol" if ordered else "ul"
            items = []
            pattern = r"^\d+[.)]\s+" if ordered else r"^[-*+]\s+"
            while i < len(lines) and re.match(pattern, lines[i].strip()):
                items.append(f"<li>{_inline(re.sub(pattern, '', lines[i].strip()))}</li>")
                i += 1
            out.append(f"<{tag}>{''.join(items)}</{tag}>")
            continue
        elif stripped.startswith(">"):
            flush()
            quote = []
            while i < len(lines) and lines[i].strip().startswith(">"):
                quote.append(lines[i].strip()[1:].strip())
                i += 1
            out.append(f"<blockquote>{'<br>'.join(_inline(q) for q in quote)}</blockquote>")
            continue
        elif re.match(r"^(-{3,}|\*{3,})$", stripped):
            flush()
            out.append("<hr>")
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return "<div class='workbench-markdown'>" + "".join(out) + "</div>"


# -- result area -----------------------------------------------------------------------------------------
def _is_frame(value: Any) -> bool:
    cls = type(value)
    return cls.__module__.startswith("pandas") and cls.__name__ in ("DataFrame", "Series")


def _markdown_source(result: Any, returns: Optional[dict]) -> Optional[str]:
    """The markdown text of a result, if it is markdown: an object with ``_repr_markdown_`` (e.g.
    ``IPython.display.Markdown``), or a string result whose ``returns`` schema says markdown."""
    value = result.value
    if value is not None and not isinstance(value, (str, bytes)) and hasattr(value, "_repr_markdown_"):
        try:
            text = value._repr_markdown_()
        except Exception:  # noqa: BLE001
            text = None
        if isinstance(text, tuple):
            text = text[0]
        if isinstance(text, str):
            return text
    returns = returns or {}
    if isinstance(value, str) and (returns.get("contentMediaType") == "text/markdown" or returns.get("format") == "markdown"):
        return value
    if result.metadata.get("mime") == "text/markdown" and result.text:
        return result.text
    return None


def _image_html(block: dict) -> str:
    image = block.get("image") if isinstance(block.get("image"), dict) else {}
    fmt = _IMAGE_FORMATS.get(str(image.get("format", "")).lower())
    data = (image.get("source") or {}).get("bytes", "") if isinstance(image.get("source"), dict) else ""
    if fmt is None or not isinstance(data, str) or not _BASE64.match(data):
        return f"<i>{_e('[image: unsupported format ' + str(image.get('format')) + ']')}</i>"
    return f"<img alt='tool image' style='max-width:100%' src='data:image/{fmt};base64,{data.strip()}'/>"


def _blocks_html(content: list[dict]) -> str:
    parts = []
    jsons = [b["json"] for b in content if isinstance(b, dict) and "json" in b]
    for block in content:
        if not isinstance(block, dict):
            continue
        if "text" in block:
            text = block["text"]
            if jsons and any(_same_json(text, j) for j in jsons):
                continue  # the text is only the JSON's dump: show the pretty JSON instead
            parts.append(f"<pre style='{_PRE}'>{_e(text)}</pre>")
        elif "json" in block:
            parts.append(json_html(block["json"]))
        elif "image" in block:
            parts.append(_image_html(block))
        else:
            parts.append(json_html(block))
    return "".join(parts) or "<i>(no content)</i>"


def _same_json(text: Any, value: Any) -> bool:
    try:
        return json.loads(text) == value
    except (TypeError, ValueError):
        return False


def _status_line(result: Any) -> str:
    colour = _STATUS_COLOURS.get(result.status, "#57606a")
    latency = result.metadata.get("latency_ms")
    timing = f" · {latency:.1f} ms" if isinstance(latency, (int, float)) else ""
    extra = ""
    if result.metadata.get("synthetic"):
        extra += " · synthetic"
    if result.metadata.get("idempotent_reuse"):
        extra += " · reused (idempotent)"
    return (f"<div><span style='color:{colour};font-weight:bold'>{_e(result.status)}</span>"
            f" <code>{_e(result.metadata.get('tool_name', ''))}</code>{_e(timing + extra)}</div>")


def result_area_html(result: Any, returns: Optional[dict] = None) -> str:
    """The result area: status line, then the error, a DataFrame table, markdown, or the content blocks."""
    head = _status_line(result)
    if result.status == "error":
        meta = result.metadata
        body = (f"<div style='color:#cf222e;border-left:3px solid #cf222e;padding-left:6px'>"
                f"<b>{_e(meta.get('error_type') or 'Error')}</b>: <span style='white-space:pre-wrap'>{_e(meta.get('error') or result.text)}</span></div>")
        if meta.get("traceback"):
            body += f"<details><summary>traceback</summary><pre style='{_PRE}'>{_e(meta['traceback'])}</pre></details>"
        return f"<div class='workbench-result'>{head}{body}</div>"
    value = result.value
    if _is_frame(value):
        frame = value.to_frame() if type(value).__name__ == "Series" else value
        body = frame.to_html(escape=True, max_rows=50, max_cols=30, border=0, classes="workbench-frame")
        body += f"<div style='color:#57606a;font-size:0.85em'>{_e(f'{frame.shape[0]} rows × {frame.shape[1]} columns')}</div>"
    else:
        markdown = _markdown_source(result, returns)
        body = safe_markdown(markdown) if markdown is not None else _blocks_html(result.content)
    return f"<div class='workbench-result'>{head}<div>{body}</div></div>"


def mismatch_html(message: str) -> str:
    return (f"<div style='color:#9a6700;background:#fff8c5;border:1px solid #d4a72c;padding:4px 8px;border-radius:4px'>"
            f"⚠ The result does not match the tool's <code>returns</code> schema: {_e(message)}</div>")


def error_summary_html(errors: dict[str, str]) -> str:
    if not errors:
        return ""
    items = "".join(f"<li><code>{_e(field)}</code>: {_e(message)}</li>" for field, message in errors.items())
    count = len(errors)
    return (f"<div style='color:#cf222e;border:1px solid #cf222e;border-radius:4px;padding:4px 8px'>"
            f"<b>{count} field error{'s' if count != 1 else ''} — nothing was run</b><ul style='margin:2px 0'>{items}</ul></div>")


# -- request / response ----------------------------------------------------------------------------------
def tool_use_html(tool_use: Any) -> str:
    return json_html(tool_use)


def copy_as_code(name: str, values: dict[str, Any]) -> str:
    """The equivalent ``%tool_call`` line and Python call."""
    line = f"%tool_call {name} {json.dumps(values, ensure_ascii=False)}" if values else f"%tool_call {name}"
    python = f"get_workbench().call({name!r}, {values!r})"
    return f"{line}\n\nfrom workbench import get_workbench\n{python}"
