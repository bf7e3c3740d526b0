"""Reading what a caller passed as calls: the list of calls, and each call as a well-formed ``ToolUse``
(or what is wrong with it). The first step of ``ToolExecutor.prepare``."""

from __future__ import annotations

import uuid
from typing import Any, Optional

from workbench.types import ToolUse, new_tool_use_id

_SHAPE = "expected a ToolUse dict {'toolUseId', 'name', 'input'}"
_ID_TYPES_COERCED = (int, float, uuid.UUID)  # LangChain's ToolMessage coerces the same ones


def _tool_use_id(raw: Any) -> "tuple[str, Optional[str]]":
    """The id to answer with, and the problem with ``raw`` if it cannot be one.

    A string is used as it is; a number or UUID becomes its ``str()`` (JSON-RPC and some SDKs send
    numbers); ``None`` means absent and gets a fresh id; anything else (bool, list, dict…) is an error
    — the result still gets a fresh string id, so every ``ToolResult`` stays valid."""
    if type(raw) is str:
        return raw, None
    if raw is None:
        return new_tool_use_id(), None
    if isinstance(raw, _ID_TYPES_COERCED) and not isinstance(raw, bool):
        try:
            return str(raw), None
        except ValueError:  # an int past Python's int -> str limit
            pass
    return new_tool_use_id(), f"'toolUseId' must be a string (or a number), got {describe(raw)}"


def describe(value: Any) -> str:
    """A short ``repr`` of a bad value and its type, for error messages (never raises)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - e.g. an int too long to print, a broken __repr__
        text = f"<unprintable {type(value).__name__}>"
    return f"{text if len(text) <= 80 else text[:77] + '...'} ({type(value).__name__})"


def normalise_tool_use(item: Any) -> "tuple[ToolUse, Optional[str]]":
    """A well-formed ``ToolUse`` for any call item, and what is wrong with the item (``None`` if nothing).

    Accepted: ToolUse dicts, ``{"id", "name", "arguments"}`` dicts and ToolCall-like objects (``.id``,
    ``.name``, ``.arguments``/``.input``). A missing or ``None`` input is ``{}``; an input that is not
    an object is left for input validation to reject (a ``ToolInputError`` naming the tool)."""
    if isinstance(item, dict):
        raw_id = item.get("toolUseId")
        if raw_id is None:
            raw_id = item.get("id")
        name = item.get("name")
        args = item["input"] if "input" in item else item.get("arguments")
    elif getattr(item, "name", None) is not None:
        raw_id = getattr(item, "id", None)
        name = item.name
        args = getattr(item, "arguments", getattr(item, "input", None))
    else:
        return {
            "toolUseId": new_tool_use_id(),
            "name": "",
            "input": item,
        }, f"Cannot interpret {describe(item)} as a tool call: {_SHAPE}"
    use_id, problem = _tool_use_id(raw_id)
    if problem is None and type(name) is not str:
        problem = (
            f"the tool call has no 'name': {_SHAPE}"
            if name is None
            else f"'name' must be a string naming a tool, got {describe(name)}"
        )
    elif problem is None and not name:
        problem = f"the tool call has an empty 'name': {_SHAPE}"
    return {
        "toolUseId": use_id,
        "name": name if type(name) is str else "",
        "input": {} if args is None else args,
    }, problem


def call_list(tool_uses: Any) -> list:
    """``tool_uses`` as a list, or a ``TypeError`` saying what was expected (see ``ToolExecutor.execute``)."""
    return tool_uses if type(tool_uses) is list else list(call_iter(tool_uses))


def call_iter(tool_uses: Any) -> Any:
    """``tool_uses`` as an iterable of calls (a list as it is), or a ``TypeError`` saying what was expected."""
    if type(tool_uses) is list:
        return tool_uses
    if tool_uses is None or isinstance(tool_uses, (str, bytes, bytearray, dict)):
        hint = "; to run one call, pass [call]" if isinstance(tool_uses, dict) else ""
        raise TypeError(
            f"tool_uses must be a list of tool calls (ToolUse dicts {{'toolUseId', 'name', 'input'}}), "
            f"got {describe(tool_uses)}{hint}"
        )
    try:
        return iter(tool_uses)
    except TypeError:
        raise TypeError(
            f"tool_uses must be a list of tool calls (ToolUse dicts {{'toolUseId', 'name', 'input'}}), "
            f"got {describe(tool_uses)}"
        ) from None
