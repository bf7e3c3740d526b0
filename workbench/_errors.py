"""Exceptions raised by the workbench.

Both are ``ValueError`` subclasses so code written against the peer SDKs
(which raise ``ValueError``) keeps working.
"""

from __future__ import annotations

__all__ = ["ToolSpecError", "ToolInputError", "ToolNotFoundError"]


class ToolSpecError(ValueError):
    """A tool specification (name, description or JSON Schema) is malformed."""


class ToolInputError(ValueError):
    """Runtime inputs do not match a tool's parameter schema.

    ``errors`` holds one dict per failing field: ``path`` (JSON path such as
    ``$.items[0].qty``), ``field`` (dotted form), ``expected``, ``received`` and
    ``message``, in the order ``ToolSpec.check_inputs`` documents (schema property order, then
    undeclared keys in input order).
    """

    def __init__(self, tool_name: str, errors: list[dict]) -> None:
        self.tool_name = tool_name
        self.errors = errors
        lines = [f"Invalid input for tool '{tool_name}' ({len(errors)} error{'s' if len(errors) != 1 else ''}):"]
        lines += [f"  - {e['message']}" for e in errors]
        super().__init__("\n".join(lines))


class ToolNotFoundError(KeyError):
    """No tool of that name is registered. ``str()`` gives the readable message."""

    def __init__(self, name: str, available: list[str], suggestion: str | None) -> None:
        self.name = name
        self.available = available
        self.suggestion = suggestion
        hint = f" Did you mean '{suggestion}'?" if suggestion else ""
        listing = ", ".join(repr(n) for n in available) or "none"
        self.message = f"Unknown tool '{name}'.{hint} Available tools: {listing}."
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.message
