"""What every result formatter shares: results as text pieces, images, errors."""

from __future__ import annotations

import base64
from typing import Any, Optional

from workbench._content import json_text
from workbench._json_text import loads as load_json
from workbench.types import ToolResult

_MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}


def _as_result(obj: Any) -> ToolResult:
    if isinstance(obj, ToolResult):
        result = obj
    elif isinstance(obj, dict):
        result = ToolResult.model_validate(obj)
    else:
        raise TypeError(f"Expected a ToolResult (or its dict form), got {type(obj).__name__}: {obj!r}")
    if result.status == "in_progress":
        raise ValueError(
            f"Tool result '{result.tool_use_id}' is still in progress: only final results "
            "(status 'success' or 'error') can be sent to a provider"
        )
    return result


def _error_text(result: ToolResult) -> str:
    text = result.text
    message = result.metadata.get("error")
    if message and str(message) not in text:
        return f"Error: {message}" + (f"\n{text}" if text else "")
    return text or "Error: the tool call failed"


def _redundant_json(block_json: Any, texts: list[str]) -> bool:
    """True when a text block already is this json block's serialisation (structured results carry both)."""
    for text in texts:
        try:
            if load_json(text) == block_json:
                return True
        except ValueError:
            continue
    return False


def _image_bytes(block: dict[str, Any]) -> tuple[str, str]:
    image = block.get("image") or {}
    fmt = str(image.get("format") or "png").lower()
    data = (image.get("source") or {}).get("bytes") or ""
    if isinstance(data, (bytes, bytearray)):
        data = base64.b64encode(bytes(data)).decode("ascii")
    return fmt, data


def _image_note(block: dict[str, Any]) -> str:
    fmt, data = _image_bytes(block)
    size = len(base64.b64decode(data)) if data else 0
    return f"[image: {fmt}, {size} bytes]"


def _audio_note(block: dict[str, Any]) -> str:
    audio = block["audio"]
    data = (audio.get("source") or {}).get("bytes") or ""
    return (
        f"[audio: {audio.get('mimeType', '')}, {len(base64.b64decode(data)) if data else 0} bytes; "
        "not sent: this format carries no audio in tool results]"
    )


def _resource_note(block: dict[str, Any]) -> str:
    resource = block["resource"]
    head = f"[resource {resource.get('uri', '')}" + (f" ({resource['mimeType']})" if resource.get("mimeType") else "")
    if "text" in resource:
        return f"{head}]\n{resource['text']}"
    return f"{head}: binary, not sent: this format carries no binary resources in tool results]"


def _link_note(block: dict[str, Any]) -> str:
    link = block["resourceLink"]
    return f"[resource link: {link.get('name', '')} <{link.get('uri', '')}>]"


#: rich block key → its text in formats that cannot carry the block itself (the note says what was left out)
RICH_NOTES = {"audio": _audio_note, "resource": _resource_note, "resourceLink": _link_note}


def rich_note(block: dict[str, Any]) -> Optional[str]:
    """The text standing in for an audio, resource or resource-link block, else ``None``."""
    for key, note in RICH_NOTES.items():
        if key in block:
            return note(block)
    return None


def _text_parts(result: ToolResult, carried: tuple[str, ...] = ()) -> list[str]:
    """The result's content as text pieces: text blocks, un-duplicated json blocks, notes for images,
    audio and resources — except the ``carried`` block kinds, which the format sends as blocks."""
    if result.status == "error":
        return [_error_text(result)]
    texts = [b["text"] for b in result.content if "text" in b]
    parts: list[str] = []
    for block in result.content:
        if any(key in block for key in carried):
            continue
        if "text" in block:
            parts.append(str(block["text"]))
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                parts.append(json_text(block["json"]))
        elif "image" in block:
            parts.append(_image_note(block))
        elif (note := rich_note(block)) is not None:
            parts.append(note)
    return parts


def _result_text(result: ToolResult) -> str:
    return "\n".join(_text_parts(result))
