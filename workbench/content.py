"""Rich results a tool can return beside text, JSON and images: audio, embedded resources, resource
links — alone or in a list mixing them with text and bytes (MCP's content block kinds).

Each becomes one content block of the ``ToolResult`` (``{"audio": …}``, ``{"resource": …}``,
``{"resourceLink": …}``); an MCP server sends them as MCP content blocks, and each provider format
carries what it can of them (see ``workbench.formats``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["Audio", "EmbeddedResource", "ResourceLink", "RichContent", "AUDIO_MAGIC", "audio_mime_type"]


def _b64(data: bytes | str) -> str:
    return data if isinstance(data, str) else base64.b64encode(bytes(data)).decode("ascii")


#: how an audio file starts → its MIME type (WAV is RIFF…WAVE, checked apart)
AUDIO_MAGIC: dict[bytes, str] = {
    b"ID3": "audio/mpeg",
    b"\xff\xfb": "audio/mpeg",
    b"\xff\xf3": "audio/mpeg",
    b"OggS": "audio/ogg",
    b"fLaC": "audio/flac",
}


def audio_mime_type(data: bytes) -> Optional[str]:
    """The MIME type of audio bytes recognised by their header, else ``None``."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    for magic, mime in AUDIO_MAGIC.items():
        if data.startswith(magic):
            return mime
    return None


class RichContent:
    """Base of the content parts a tool may return (alone, or in a list with text and bytes)."""

    def block(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


@dataclass(frozen=True)
class Audio(RichContent):
    """Audio bytes (or their base64 text) with a MIME type (``audio/wav``, ``audio/mpeg`` …; guessed
    from the header when not given)."""

    data: bytes | str
    mime_type: Optional[str] = None

    def block(self) -> dict[str, Any]:
        mime = self.mime_type
        if mime is None:
            raw = self.data if isinstance(self.data, (bytes, bytearray)) else base64.b64decode(self.data)
            mime = audio_mime_type(bytes(raw))
        if mime is None:
            raise ValueError("Audio(data): cannot tell the audio format from its first bytes; pass mime_type=")
        return {"audio": {"mimeType": mime, "source": {"bytes": _b64(self.data)}}}


@dataclass(frozen=True)
class EmbeddedResource(RichContent):
    """A resource sent inside the result: ``text`` or binary ``blob``, under ``uri``."""

    uri: str
    text: Optional[str] = None
    blob: Optional[bytes | str] = None
    mime_type: Optional[str] = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"EmbeddedResource({self.uri!r}): give exactly one of text= or blob=")

    def block(self) -> dict[str, Any]:
        resource: dict[str, Any] = {"uri": str(self.uri)}
        if self.mime_type:
            resource["mimeType"] = self.mime_type
        if self.text is not None:
            resource["text"] = self.text
        else:
            resource["blob"] = _b64(self.blob)  # type: ignore[arg-type]
        return {"resource": resource}


@dataclass(frozen=True)
class ResourceLink(RichContent):
    """A link to a resource the client may read (``resources/read``) rather than its contents."""

    uri: str
    name: str
    description: Optional[str] = None
    mime_type: Optional[str] = None

    def block(self) -> dict[str, Any]:
        link: dict[str, Any] = {"uri": str(self.uri), "name": self.name}
        if self.description:
            link["description"] = self.description
        if self.mime_type:
            link["mimeType"] = self.mime_type
        return {"resourceLink": link}
