"""Call and result types shared by every part of the workbench."""

from __future__ import annotations

import time
import uuid
from enum import Enum
from typing import Any, Literal, Mapping, Optional, TypedDict, Union

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import NotRequired

__all__ = [
    "Permission",
    "ToolPermission",
    "ToolUse",
    "ToolChoice",
    "ToolChoiceAuto",
    "ToolChoiceAny",
    "ToolChoiceTool",
    "ToolResult",
    "ToolResultStatus",
    "new_tool_use_id",
    "make_tool_use",
    "utc_now_iso",
    "error_result",
]


class Permission(str, Enum):
    """Whether a tool may run. String values match Allos' ``ToolPermission``."""

    ALWAYS_ALLOW = "always_allow"
    ALWAYS_DENY = "always_deny"
    ASK_USER = "ask_user"

    @classmethod
    def coerce(cls, value: "Permission | str") -> "Permission":
        """Accept an enum member, its value, its name or the short forms allow/deny/ask."""
        if isinstance(value, cls):
            return value
        text = str(value).strip().lower()
        short = {"allow": cls.ALWAYS_ALLOW, "deny": cls.ALWAYS_DENY, "ask": cls.ASK_USER}
        if text in short:
            return short[text]
        for member in cls:
            if text in (member.value, member.name.lower()):
                return member
        raise ValueError(
            f"Unknown permission {value!r}: expected one of " + ", ".join(m.value for m in cls) + " (or allow/deny/ask)"
        )


ToolPermission = Permission  # the Allos name


class ToolUse(TypedDict):
    """A request to call a tool: ``{"toolUseId", "name", "input"}``.

    Executors also take a number (or UUID) as ``toolUseId`` — answered with its ``str()`` — and
    generate an id when it is absent or ``None``; an ``input`` that is absent or ``None`` is ``{}``.
    Anything else malformed becomes an error result (see ``ToolExecutor.execute``)."""

    toolUseId: str
    name: NotRequired[str]
    input: Any


class ToolChoiceAuto(TypedDict):
    pass


class ToolChoiceAny(TypedDict):
    pass


class ToolChoiceTool(TypedDict):
    name: str


ToolChoice = Union[
    dict[Literal["auto"], ToolChoiceAuto],
    dict[Literal["any"], ToolChoiceAny],
    dict[Literal["tool"], ToolChoiceTool],
]

ToolResultStatus = Literal["success", "error", "in_progress"]


def new_tool_use_id() -> str:
    """A fresh, unique tool-use id (``tooluse_`` + 24 hex chars)."""
    return "tooluse_" + uuid.uuid4().hex[:24]


def make_tool_use(name: str, input: Optional[dict] = None, tool_use_id: Optional[str] = None) -> ToolUse:
    """Build a :class:`ToolUse`, generating the id when absent."""
    return {"toolUseId": tool_use_id or new_tool_use_id(), "name": name, "input": {} if input is None else input}


_MILLIS = tuple(f".{i:03d}Z" for i in range(1000))
# (first millisecond of the cached second, its "YYYY-MM-DDTHH:MM:SS"), swapped atomically
_iso_state: list = [(0, "")]


def utc_now_iso(_wall_ns: Any = time.time_ns, _state: list = _iso_state, _millis: tuple = _MILLIS) -> str:
    """The current time as ISO 8601 UTC with a ``Z`` suffix (millisecond precision).

    Executors stamp every call twice, so each second is formatted once and only the
    milliseconds are appended per call.
    """
    ms = _wall_ns() // 1_000_000  # integer arithmetic: no float multiply and int() per call
    base, prefix = _state[0]
    offset = ms - base
    if 0 <= offset < 1000:
        return prefix + _millis[offset]
    second = ms // 1000
    prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    _state[0] = (second * 1000, prefix)
    return prefix + _millis[ms - second * 1000]


class ToolResult(BaseModel):
    """The outcome of one tool call (or a progress event of a running one).

    ``model_dump(by_alias=True)`` gives the Spark/Bedrock wire shape. ``value``
    keeps the raw Python return value and is never serialised.
    """

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True, extra="forbid")

    tool_use_id: str = Field(alias="toolUseId")
    status: ToolResultStatus
    content: list[dict[str, Any]] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    started_at: Optional[str] = None
    completed_at: Optional[str] = None
    progress: Optional[float] = None
    value: Any = Field(default=None, exclude=True, repr=False)

    @classmethod
    def _fast(
        cls,
        tool_use_id: str,
        status: str,
        content: list,
        metadata: dict,
        started_at: Optional[str],
        completed_at: Optional[str],
        progress: Optional[float],
        value: Any,
    ) -> "ToolResult":
        """Build a result from already-valid fields without validation (see ``fast_tool_result``)."""
        return fast_tool_result(tool_use_id, status, content, metadata, started_at, completed_at, progress, value)

    # -- convenience -----------------------------------------------------------------
    @property
    def ok(self) -> bool:
        """True when ``status == "success"``."""
        return self.status == "success"

    @property
    def tool_name(self) -> Optional[str]:
        return self.metadata.get("tool_name")

    @property
    def error(self) -> Optional[str]:
        """The error message of a failed call, else ``None``."""
        return self.metadata.get("error") if self.status == "error" else None

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return "\n".join(b["text"] for b in self.content if "text" in b)

    @property
    def json(self) -> Any:
        """The first ``{"json": ...}`` block's value, else ``None``."""
        for block in self.content:
            if "json" in block:
                return block["json"]
        return None

    def to_dict(self) -> dict[str, Any]:
        """The JSON-serialisable wire form (``model_dump(by_alias=True)`` without Nones)."""
        return self.model_dump(by_alias=True, exclude_none=True)

    def __repr__(self) -> str:
        name = self.metadata.get("tool_name", "?")
        summary = self.error if self.status == "error" else (self.text or repr(self.json))
        if summary and len(summary) > 80:
            summary = summary[:77] + "..."
        return f"ToolResult({name!r}, {self.status}, {summary!r})"

    def __str__(self) -> str:
        """``print(result)``: the tool, call id and status on one line, the value or error below it."""
        from workbench._text import result_text

        return result_text(self)

    def _repr_html_(self) -> str:
        from workbench._html import result_html

        return result_html(self)


_RESULT_FIELDS = frozenset(ToolResult.model_fields)
_new = ToolResult.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
if _RESULT_FIELDS != {
    "tool_use_id",
    "status",
    "content",
    "metadata",
    "started_at",
    "completed_at",
    "progress",
    "value",
}:
    raise AssertionError("ToolResult grew a field: update fast_tool_result")  # pragma: no cover


def fast_tool_result(
    tool_use_id: str,
    status: str,
    content: list,
    metadata: dict,
    started_at: Optional[str],
    completed_at: Optional[str],
    progress: Optional[float],
    value: Any,
    *,
    _cls: type = ToolResult,
    _new: Any = _new,
    _set_dict: Any = _set_dict,
    _set_fields_set: Any = _set_fields_set,
    _set_extra: Any = _set_extra,
    _set_private: Any = _set_private,
    _fields: frozenset = _RESULT_FIELDS,
) -> ToolResult:
    """A ``ToolResult`` from already-valid fields, without validation.

    Same contract as ``model_construct`` (which costs ~5 µs) in ~0.4 µs, by setting the instance slots
    pydantic itself sets; executors build one per call. (The helpers are bound as keyword defaults:
    local lookups instead of global ones, on the path of every call.)
    """
    obj = _new(_cls)
    _set_dict(
        obj,
        {
            "tool_use_id": tool_use_id,
            "status": status,
            "content": content,
            "metadata": metadata,
            "started_at": started_at,
            "completed_at": completed_at,
            "progress": progress,
            "value": value,
        },
    )
    _set_fields_set(obj, set(_fields))  # a set of its own: model_copy(update=…) and assignment add to it
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def error_result(
    tool_use_id: str,
    message: str,
    error_type: str,
    *,
    tool_name: str = "",
    extra: Optional[Mapping[str, Any]] = None,
    carried: Optional[Mapping[str, Any]] = None,
    started_at: Optional[str] = None,
    completed_at: Optional[str] = None,
    latency_ms: Optional[float] = None,
) -> ToolResult:
    """The one shape of a failed call's ``ToolResult``: status ``"error"``, one ``"Error: <message>"``
    text block, and metadata ``tool_name``, ``error_type``, ``error`` — after the keys ``carried``
    over from an earlier result (which they override), followed by ``extra`` (``errors``,
    ``available``, ``timeout``, ``traceback``…) and ``latency_ms`` when given. ``completed_at``
    defaults to now."""
    metadata: dict[str, Any] = dict(carried) if carried else {}
    metadata["tool_name"] = tool_name
    metadata["error_type"] = error_type
    metadata["error"] = message
    if extra:
        metadata.update(extra)
    if latency_ms is not None:
        metadata["latency_ms"] = latency_ms
    return fast_tool_result(
        tool_use_id,
        "error",
        [{"text": f"Error: {message}"}],
        metadata,
        started_at,
        utc_now_iso() if completed_at is None else completed_at,
        None,
        None,
    )
