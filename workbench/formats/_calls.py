"""Reading tool calls out of responses: arguments, ToolUse dicts, shape errors."""

from __future__ import annotations

from typing import Any, Mapping

from workbench._json_text import loads
from workbench.formats._common import _as_spec
from workbench.spec import ToolSpec
from workbench.types import ToolUse, new_tool_use_id


def _arguments(raw: Any) -> Any:
    """A call's arguments as a dict — or, when they are not a JSON object, as received: executors
    answer such a call with an error result under its id (a ``ToolInputError`` naming the tool and
    saying the arguments are not valid JSON / not an object / nested too deep), so its valid siblings
    still run."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = loads(raw)
        except ValueError:  # malformed, or nested too deep to decode safely
            return raw
        return value if isinstance(value, dict) else raw
    return raw


def _use(call_id: Any, name: Any, raw_args: Any) -> ToolUse:
    cid = str(call_id) if call_id not in (None, "") else new_tool_use_id()
    return {"toolUseId": cid, "name": name or "", "input": _arguments(raw_args)}


def _shape_error(provider: str, response: Any, expected: str) -> ValueError:
    text = repr(response)
    return ValueError(f"parse_tool_calls('{provider}'): cannot read {text[:200]}; expected {expected}")


def _spec_index(tools: Any) -> dict[str, ToolSpec]:
    if isinstance(tools, Mapping):
        tools = tools.values()
    elif isinstance(tools, (ToolSpec, dict)) or hasattr(tools, "spec"):
        tools = [tools]
    specs = [_as_spec(t) for t in tools]
    return {s.name: s for s in specs}
