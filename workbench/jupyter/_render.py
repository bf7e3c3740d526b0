"""HTML for the form's result area, its Request / Response view and its *Copy as code* text.

Everything a tool produced is escaped: text and JSON go through ``workbench._html.escape``, DataFrames through
``DataFrame.to_html(escape=True)``, markdown through a small renderer that escapes first and only
then adds its own tags, and images only as ``data:`` URLs of known raster formats with base64 checked; audio, embedded
resources and resource links are drawn by ``jupyter._content_html``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from workbench._html import display_status, error_message, status_html, without_path
from workbench._html import escape as _e
from workbench._json_text import loads as load_json
from workbench._styles import ERROR_BOX_STYLE, MUTED, STATUS_COLOURS, WARNING_STYLE, WRAP
from workbench.jupyter._content_html import rich_block_html
from workbench.jupyter._traceback import cell_names, split_traceback, without_final_error

__all__ = [
    "result_area_html",
    "json_html",
    "safe_markdown",
    "description_html",
    "tool_use_html",
    "copy_as_code",
    "mismatch_html",
    "error_summary_html",
    "form_summary_html",
    "traceback_html",
    "COLLAPSE_LINES",
]

#: a description longer than this many (non-blank) lines shows its first paragraph(s) and a "show more"
COLLAPSE_LINES = 4

_IMAGE_FORMATS = {"png": "png", "jpeg": "jpeg", "jpg": "jpeg", "gif": "gif", "webp": "webp"}
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_PRE = "white-space:pre-wrap;margin:0;font-family:var(--jp-code-font-family,monospace);font-size:0.9em;" + WRAP


def json_html(value: Any) -> str:
    """Pretty JSON in an escaped ``<pre>``."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    return f"<pre style='{_PRE}'>{_e(text)}</pre>"


# -- markdown ----------------------------------------------------------------------------------------------
_INLINE_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")  # `code` and ``code`` (reST-style docstrings)
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])|(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])")
_LINK = re.compile(r"\[([^\]]+)\]\(((?:https?://|mailto:)[^)\s]+)\)")


def _inline(text: str) -> str:
    """Escape, then add code, bold, italic and http(s)/mailto links."""
    pieces = []
    start = 0
    for match in _INLINE_CODE.finditer(text):
        pieces.append(_inline_text(text[start : match.start()]))
        pieces.append(f"<code>{_e(match.group(2).strip())}</code>")
        start = match.end()
    pieces.append(_inline_text(text[start:]))
    return "".join(pieces)


def _inline_text(part: str) -> str:
    """Escape a piece without code spans, then add links, bold and italic."""
    part = _e(part)
    part = _LINK.sub(
        lambda m: f'<a href="{m.group(2)}" target="_blank" rel="noopener noreferrer">{m.group(1)}</a>', part
    )
    part = _BOLD.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", part)
    return _ITALIC.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", part)


def safe_markdown(text: str) -> str:
    """A small markdown subset as HTML, safe by construction: headings, paragraphs, lists, quotes,
    fenced code, inline code, bold, italic and http(s) links. Raw HTML in the text is shown, not run."""
    out: list[str] = []
    lines = str(text).splitlines()
    i = 0
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append("<p style='margin:0 0 0.4em 0'>" + "<br>".join(_inline(p) for p in paragraph) + "</p>")
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


def _blocks(text: str) -> list[str]:
    """Markdown source split at blank lines (never inside a fenced code block)."""
    blocks: list[list[str]] = [[]]
    fenced = False
    for line in str(text).splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(line)
    return ["\n".join(b) for b in blocks if b]


def description_html(text: str, lines: int = COLLAPSE_LINES) -> str:
    """A tool's description as safe markdown; past ``lines`` lines, the first paragraph(s) then the
    rest in a collapsed ``<details>`` ("show more") — plain HTML, no script."""
    blocks = _blocks(text)
    if sum(len(b.splitlines()) for b in blocks) <= lines:
        return safe_markdown(text)
    lead: list[str] = []
    used = 0
    for block in blocks:
        size = len(block.splitlines())
        if lead and used + size > lines:
            break
        lead.append(block)
        used += size
    rest = blocks[len(lead) :]
    if not rest:
        return safe_markdown(text)
    summary = f"<summary style='cursor:pointer;color:{MUTED};font-size:0.9em'>show more</summary>"
    more = safe_markdown("\n\n".join(rest))
    return safe_markdown("\n\n".join(lead)) + f"<details class='workbench-doc-more'>{summary}{more}</details>"


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
    if isinstance(value, str) and (
        returns.get("contentMediaType") == "text/markdown" or returns.get("format") == "markdown"
    ):
        return value
    if result.metadata.get("mime") == "text/markdown" and result.text:
        return result.text
    return None


def _image_html(block: dict) -> str:
    image = found if isinstance(found := block.get("image"), dict) else {}
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
        else:  # audio, an embedded resource, a resource link — or a block of no known kind, as JSON
            rich = rich_block_html(block)
            parts.append(json_html(block) if rich is None else rich)
    return "".join(parts) or "<i>(no content)</i>"


def _same_json(text: Any, value: Any) -> bool:
    try:
        return load_json(text) == value
    except (TypeError, ValueError):
        return False


def _status_line(result: Any) -> str:
    """Status, tool name and flags. The call's duration is not repeated here: the form shows it once,
    next to the Run button."""
    extra = ""
    if result.metadata.get("synthetic"):
        extra += " · synthetic"
    if result.metadata.get("idempotent_reuse"):
        extra += " · reused (idempotent)"
    return (
        f"<div>{status_html(display_status(result))}"
        f" <code>{_e(result.metadata.get('tool_name', ''))}</code>{_e(extra)}</div>"
    )


def traceback_html(text: str, headline: Optional[tuple[str, str]] = None) -> str:
    """The user's frames, then the full traceback collapsed (internal frames included). Notebook
    cells are named ``Cell In[N]`` as IPython names them; with ``headline`` (error type, message)
    already shown above, the user's part does not repeat the error line."""
    text = cell_names(text)
    user, hidden = split_traceback(text)
    if headline is not None:
        user = without_final_error(user, *headline)
    if not hidden:
        return f"<details><summary>traceback</summary><pre style='{_PRE}'>{_e(text)}</pre></details>"
    note = f"full traceback ({hidden} internal frame{'s' if hidden != 1 else ''}: workbench, asyncio, threads)"
    return (
        f"<pre class='workbench-traceback' style='{_PRE};margin-top:4px'>{_e(user)}</pre>"
        f"<details><summary style='color:{MUTED};font-size:0.9em'>{_e(note)}</summary>"
        f"<pre style='{_PRE}'>{_e(text)}</pre></details>"
    )


def _error_body(result: Any) -> str:
    meta = result.metadata
    status = display_status(result)
    error_type = meta.get("error_type") or "Error"
    message = error_message(error_type, meta.get("error") or result.text)
    colour = STATUS_COLOURS.get(status, STATUS_COLOURS["error"])
    border = "var(--jp-warn-color1, darkorange)" if status == "cancelled" else "var(--jp-error-color1, firebrick)"
    label = "" if status == "cancelled" else f"<b>{_e(error_type)}</b>: "
    body = (
        f"<div style='color:{colour};border-left:3px solid {border};padding-left:6px;{WRAP}'>"
        f"{label}<span style='white-space:pre-wrap'>{_e(message)}</span></div>"
    )
    if meta.get("traceback"):
        body += traceback_html(str(meta["traceback"]), (error_type, message))
    return body


def result_area_html(result: Any, returns: Optional[dict] = None) -> str:
    """The result area: status line, then the error, a DataFrame table, markdown, or the content blocks."""
    head = _status_line(result)
    if result.status == "error":
        return f"<div class='workbench-result'>{head}{_error_body(result)}</div>"
    value = result.value
    if _is_frame(value):
        frame = value.to_frame() if type(value).__name__ == "Series" else value
        body = frame.to_html(escape=True, max_rows=50, max_cols=30, border=0, classes="workbench-frame")
        body += f"<div style='color:{MUTED};font-size:0.85em'>{_e(f'{frame.shape[0]} rows × {frame.shape[1]} columns')}</div>"
    else:
        markdown = _markdown_source(result, returns)
        body = safe_markdown(markdown) if markdown is not None else _blocks_html(result.content)
    return f"<div class='workbench-result'>{head}<div>{body}</div></div>"


def mismatch_html(message: str) -> str:
    return (
        f"<div style='{WARNING_STYLE}'>"
        f"The result does not match the tool's <code>returns</code> schema: {_e(message)}</div>"
    )


def error_summary_html(errors: dict[str, str]) -> str:
    """The form-level list of field errors (each field named once)."""
    if not errors:
        return ""
    items = "".join(
        f"<li><code>{_e(field)}</code>: {_e(without_path(field, message))}</li>" for field, message in errors.items()
    )
    count = len(errors)
    return (
        f"<div style='{ERROR_BOX_STYLE}'>"
        f"<b>{count} field error{'s' if count != 1 else ''} — nothing was run</b><ul style='margin:2px 0'>{items}</ul></div>"
    )


# -- request / response ----------------------------------------------------------------------------------
def tool_use_html(tool_use: Any) -> str:
    return json_html(tool_use)


def copy_as_code(name: str, values: dict[str, Any]) -> str:
    """The equivalent ``%tool_call`` line and Python call."""
    line = f"%tool_call {name} {json.dumps(values, ensure_ascii=False)}" if values else f"%tool_call {name}"
    python = f"get_workbench().call({name!r}, {values!r})"
    return f"{line}\n\nfrom workbench import get_workbench\n{python}"


# -- the static summary of a form (text/html next to the widget view) -----------------------------------
_CELL = f"style='text-align:left;vertical-align:top;padding:2px 8px;{WRAP}'"


def _default_text(schema: Any) -> str:
    if isinstance(schema, dict) and "default" in schema:
        return json.dumps(schema["default"], ensure_ascii=False, default=repr)
    return ""


def form_summary_html(spec: Any, flags: tuple = ()) -> str:
    """A readable, static (no script, escaped) summary of a tool's form: name, flags, description and a
    parameter table. It is the ``text/html`` shown where the live widget cannot be (a saved notebook on
    GitHub or nbviewer, or opened before its kernel ran)."""
    params = spec.parameters if isinstance(spec.parameters, dict) else {}
    from workbench._html import parameter_allowed

    props = found if isinstance(found := params.get("properties"), dict) else {}
    defs = found if isinstance(found := params.get("$defs"), dict) else {}
    rows = []
    for p in spec.inputs:
        required = " <small>(required)</small>" if p.required else ""
        schema = found if isinstance(found := props.get(p.name), dict) else {}
        rows.append(
            f"<tr><td {_CELL}><code>{_e(p.name)}</code>{required}</td><td {_CELL}>{_e(p.type)}</td>"
            f"<td {_CELL}>{_e(_default_text(props.get(p.name)))}</td>"
            f"<td {_CELL}>{_e(parameter_allowed(schema, defs))}</td><td {_CELL}>{_e(p.description)}</td></tr>"
        )
    body = "".join(rows) or f"<tr><td {_CELL} colspan=5><i>no parameters</i></td></tr>"
    head = "".join(f"<th {_CELL}>{h}</th>" for h in ("parameter", "type", "default", "allowed", "description"))
    badges = "".join(f" <small>[{_e(f)}]</small>" for f in flags)
    return (
        f"<div class='workbench-form-static' style='{WRAP}'>"
        f"<div><b>Tool form: <code>{_e(spec.name)}</code></b>{badges}</div>"
        f"<div style='margin:2px 0 6px 0'>{description_html(spec.description or '')}</div>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        f"<div style='color:{MUTED};font-size:0.85em'>Run the cell in a live notebook to use the form.</div></div>"
    )
