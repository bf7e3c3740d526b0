"""Provider tool dicts (and BFCL function documents) in, as spec-only workbench tools.

The inverse of ``workbench.to_provider_format``: ``from_provider_format(to_provider_format(t, p))``
exports to the same dict again. The formats and what each keeps are in
:mod:`workbench.formats._import` (one table row each).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union, overload

from workbench.formats._import import IMPORTERS, spec_dict_from_provider_format
from workbench.spec import ToolSpec
from workbench.tools import SpecOnlyTool

__all__ = ["FORMATS", "adapt", "from_provider_format"]

#: the formats ``from_provider_format(d, provider=...)`` reads
FORMATS: tuple[str, ...] = tuple(IMPORTERS)


def _one(d: Mapping[str, Any], provider: Optional[str]) -> SpecOnlyTool:
    spec = spec_dict_from_provider_format(d, provider)
    try:
        return SpecOnlyTool(ToolSpec(**spec))
    except ValueError as exc:
        raise ValueError(
            f"The {provider or 'provider'} tool dict '{spec['name']}' is not a valid tool: {exc}"
        ) from None


@overload
def from_provider_format(d: Mapping[str, Any], provider: Optional[str] = None) -> SpecOnlyTool: ...
@overload
def from_provider_format(d: Sequence[Mapping[str, Any]], provider: Optional[str] = None) -> list[SpecOnlyTool]: ...


def from_provider_format(
    d: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]], provider: Optional[str] = None
) -> Union[SpecOnlyTool, list[SpecOnlyTool]]:
    """A spec-only tool from one provider tool dict; a list of them from a list (or from a Gemini
    ``{"function_declarations": [...]}`` tool).

    ``provider``: one of :data:`FORMATS` (``openai``, ``openai-responses``, ``bedrock``,
    ``anthropic``, ``mcp``, ``bfcl``, ``gemini``), or ``None`` to detect it from the dict's shape.
    A spec-only tool has no body: forms, validation, ``to_provider_format`` and synthetic calls work
    on it; a real call says it has no implementation.
    """
    if isinstance(d, Mapping):
        declarations = d.get("function_declarations", d.get("functionDeclarations"))
        if isinstance(declarations, list) and set(d) <= {"function_declarations", "functionDeclarations"}:
            return [_one(item, provider or "gemini") for item in declarations]
        return _one(d, provider)
    if isinstance(d, (list, tuple)):
        return [_one(item, provider) for item in d]
    raise TypeError(f"from_provider_format() takes a tool dict or a list of them, not {type(d).__name__}")


def adapt(obj: Any) -> list[SpecOnlyTool]:
    """The adapters' table entry: a provider dict → its spec-only tool (in a list)."""
    result = from_provider_format(obj)
    return result if isinstance(result, list) else [result]
