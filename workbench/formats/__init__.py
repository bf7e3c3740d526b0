"""Tool formats: tool specs out, tool calls in, tool results out, in each provider's format.

"Provider" means one thing in the workbench: the company or API a model is reached through
(``openai``, ``anthropic``, ``bedrock``, ``gemini``; ``mcp`` for the protocol), the part before the
colon of ``"openai:gpt-4.1-mini"``. This package converts to and from their **formats**; the models
that call them through their SDKs are ``workbench.models`` (their shared cycle:
``workbench.models._sdk_model``); provider tool dicts become tools in ``workbench.adapters.tool_formats``.
``workbench.providers`` is this package's old name, still importable.

Every direction is table-driven: ``_EXPORTERS``, ``_CHOICE_CONVERTERS``, ``_PARSERS`` and
``_FORMATTERS`` map a provider name to one small function. Provider names:

* ``openai`` — Chat Completions ``{"type": "function", "function": {...}}``;
* ``openai-responses`` — Responses API ``{"type": "function", "name", ..., "strict"}``;
* ``anthropic`` — Messages API ``{"name", "description", "input_schema"}``;
* ``bedrock`` — Converse ``{"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}``;
* ``gemini`` — a ``FunctionDeclaration`` whose schema is reduced to the subset Gemini accepts;
* ``mcp`` — an MCP ``Tool`` ``{"name", "description", "inputSchema", "outputSchema"}``.

Schema rewrites (never applied to the spec itself, always to a copy):

* **OpenAI strict mode** (``strict=True``): every object gets ``additionalProperties: false``
  and lists every property in ``required``; properties that were optional become nullable
  (``anyOf: [..., {"type": "null"}]``); ``default`` is removed; ``oneOf`` becomes ``anyOf``;
  keywords strict mode rejects are moved into the field's description as hints
  (``(minLength: 3, default: 10)``). Open objects (``dict[str, Any]``, ``additionalProperties``
  true or a schema) and values of any type (``Any``, a bare ``list``) cannot be expressed →
  ``ToolSpecError`` naming the tool and the field. A model answering in strict mode sends ``null`` for "not given";
  :func:`normalize_arguments` (or ``parse_tool_calls(..., tools=..., strict=True)``) drops
  those nulls again for parameters that were optional and not nullable.
* **Anthropic strict tool use** (``strict=True`` for ``anthropic``): objects closed with
  ``additionalProperties: false``, optional properties stay optional, unsupported keywords
  move into the description (as Anthropic's own SDK does).
* **Gemini**: ``$ref`` inlined (a recursive schema → ``ToolSpecError``), ``anyOf`` with null →
  ``nullable: true``, type lists with null → ``nullable``, ``const`` → one-value ``enum``,
  ``oneOf`` → ``anyOf``, only string enums kept (others are described), only the ``format``
  values Gemini accepts kept (others, and non-string enums, are described), and every key
  outside an explicit allow-list (:data:`GEMINI_SCHEMA_KEYS`) dropped. A free-form object (no
  properties — Gemini rejects an ``OBJECT`` without properties) or a list without an item type
  is declared as a string holding JSON; :func:`normalize_arguments` parses it back (and the
  tools' ``check_inputs`` accepts JSON text for top-level list/dict parameters anyway).
* **MCP**: ``outputSchema`` must have ``type: "object"`` at its root (through protocol
  2025-11-25), so a non-object return schema is wrapped as
  ``{"type": "object", "properties": {"result": <returns>}, "required": ["result"]}`` — what the
  MCP SDKs do for structured output — and the ``structuredContent`` produced by
  ``format_tool_results("mcp", ..., tools=...)`` is wrapped the same way.

One module per provider (``openai``, ``anthropic``, ``bedrock``, ``gemini``, ``mcp``) holds
its four directions as :class:`Provider` rows; this package's functions dispatch through the table
:data:`PROVIDER_TABLE`; the shared schema rewrites live in private modules. The package imports no provider SDK: it works on plain dicts, and on SDK response objects
through their ``model_dump()``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from workbench.formats import anthropic, bedrock, gemini, mcp, openai
from workbench.formats._bfcl_schema import TUPLE_MARK
from workbench.formats._calls import _spec_index
from workbench.formats._common import PROVIDER_NAMES, Provider, _as_spec, _provider_key
from workbench.formats._gemini_schema import GEMINI_SCHEMA_KEYS, gemini_schema
from workbench.formats._normalize import normalize_arguments
from workbench.formats._results import _as_result
from workbench.formats._strict import openai_strict_schema
from workbench.formats.mcp import mcp_output_schema
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse

__all__ = [
    "PROVIDERS",
    "PROVIDER_TABLE",
    "Provider",
    "to_provider_format",
    "tool_choice_to_provider",
    "parse_tool_calls",
    "format_tool_results",
    "normalize_arguments",
    "openai_strict_schema",
    "gemini_schema",
    "mcp_output_schema",
    "GEMINI_SCHEMA_KEYS",
]


#: provider name → its :class:`Provider` row (exporter, ToolChoice converter, parser, formatter)
PROVIDER_TABLE: dict[str, Provider] = {
    **openai.PROVIDERS,
    **anthropic.PROVIDERS,
    **bedrock.PROVIDERS,
    **gemini.PROVIDERS,
    **mcp.PROVIDERS,
}
assert tuple(PROVIDER_TABLE) == PROVIDER_NAMES, "the provider table and PROVIDER_NAMES disagree"


#: the provider names ``to_provider_format`` knows
PROVIDERS: tuple[str, ...] = tuple(PROVIDER_TABLE)


_EXPORTERS: dict[str, Callable[[ToolSpec, bool], dict[str, Any]]] = {k: p.export for k, p in PROVIDER_TABLE.items()}
_CHOICE_CONVERTERS: dict[str, Callable[[str, Optional[str]], Any]] = {
    k: p.choice for k, p in PROVIDER_TABLE.items() if p.choice is not None
}
_PARSERS: dict[str, Callable[[Any], list[ToolUse]]] = {k: p.parse for k, p in PROVIDER_TABLE.items()}
_FORMATTERS: dict[str, Callable[[list[ToolResult], Mapping[str, ToolSpec]], list[dict[str, Any]]]] = {
    k: p.format for k, p in PROVIDER_TABLE.items()
}


def to_provider_format(spec: Any, provider: str, *, strict: bool = False) -> dict[str, Any]:
    """A tool's definition in ``provider``'s format.

    ``spec`` is a ``ToolSpec``, a tool (anything with a ``.spec``) or a spec dict. ``provider`` is
    one of :data:`PROVIDERS`. ``strict=True`` (openai, openai-responses, anthropic) emits the
    provider's strict variant and raises ``ToolSpecError`` for schemas it cannot express. The
    spec is never modified: the result is a fresh copy.
    """
    key = _provider_key(provider, _EXPORTERS, "to_provider_format")
    exported = _EXPORTERS[key](_as_spec(spec), bool(strict))
    # BFCL's tuple mark tells the scorer a tuple is acceptable; providers get a plain array, as BFCL sends
    return _without_bfcl_marks(exported) if _has_bfcl_mark(exported) else exported


def _has_bfcl_mark(value: Any) -> bool:
    if isinstance(value, dict):
        return TUPLE_MARK in value or any(_has_bfcl_mark(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_bfcl_mark(v) for v in value)
    return False


def _without_bfcl_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_bfcl_marks(v) for k, v in value.items() if k != TUPLE_MARK}
    if isinstance(value, list):
        return [_without_bfcl_marks(v) for v in value]
    return value


def _choice_parts(choice: Any) -> tuple[str, Optional[str]]:
    """``("auto"|"any"|"tool", name)`` from a Spark ToolChoice (or a bare ``"auto"``/``"any"``)."""
    if isinstance(choice, str) and choice in ("auto", "any"):
        return choice, None
    if isinstance(choice, dict) and len(choice) == 1:
        ((kind, body),) = choice.items()
        if kind in ("auto", "any"):
            return kind, None
        if kind == "tool" and isinstance(body, dict) and isinstance(body.get("name"), str) and body["name"]:
            return kind, body["name"]
    raise ValueError(
        f"Invalid ToolChoice {choice!r}: expected {{'auto': {{}}}}, {{'any': {{}}}} or {{'tool': {{'name': ...}}}}"
    )


def tool_choice_to_provider(choice: Any, provider: str) -> Any:
    """A Spark ``ToolChoice`` (``{"auto": {}}``, ``{"any": {}}``, ``{"tool": {"name": ...}}``) in
    ``provider``'s form: OpenAI ``"auto"``/``"required"``/named function, Anthropic
    ``{"type": ...}``, Bedrock (unchanged shape), Gemini ``function_calling_config``."""
    key = _provider_key(provider, _CHOICE_CONVERTERS, "tool_choice_to_provider")
    kind, name = _choice_parts(choice)
    return _CHOICE_CONVERTERS[key](kind, name)


def parse_tool_calls(provider: str, response: Any, *, tools: Any = None, strict: bool = False) -> list[ToolUse]:
    """The tool calls in a provider response, as ``ToolUse`` dicts (in order).

    Accepted inputs (dicts or SDK objects): openai — a ChatCompletion, a message or its
    ``tool_calls`` (JSON ``arguments`` are parsed); openai-responses — a Response or its ``output`` items
    (``function_call``); anthropic — a Message or its content (``tool_use`` blocks); bedrock — a
    Converse response, its message or content (``toolUse``); gemini — a GenerateContentResponse,
    a Content or its parts (``functionCall``; ids generated when absent); mcp — ``tools/call``
    requests or their params.

    A call whose ``arguments`` are not valid JSON, or not a JSON object, is kept with its
    ``input`` as received (the string): an executor answers it with an error result under the
    same id (``ToolInputError`` naming the tool and saying the arguments are not valid JSON), so
    the model gets an answer for every call and the valid siblings still run.

    With ``tools`` (specs, tools or a registry), each call's input is passed through
    :func:`normalize_arguments` for its tool, undoing the rewrites of that provider's export
    (``strict`` as used for the export).
    """
    key = _provider_key(provider, _PARSERS, "parse_tool_calls")
    uses = _PARSERS[key](response)
    if tools is not None:
        specs = _spec_index(tools)
        for use in uses:
            spec = specs.get(use.get("name", ""))
            if spec is not None and isinstance(use["input"], dict):
                use["input"] = normalize_arguments(spec, use["input"], key, strict=strict)
    return uses


def format_tool_results(provider: str, results: Any, *, tools: Any = None) -> list[dict[str, Any]]:
    """Tool results as the messages/items ``provider`` expects next in the conversation.

    openai — one ``{"role": "tool", ...}`` message per result; openai-responses — one
    ``function_call_output`` item per result; anthropic, bedrock, gemini — a single user
    message holding every result; mcp — one ``CallToolResult`` per result (a non-object
    ``json`` value goes into ``structuredContent`` as ``{"result": value}``). Error results
    carry their error message as the content. Text-only formats render json blocks as JSON
    text (once: a structured result's text block already is its JSON) and describe images.
    ``tools`` (specs, tools or a registry) lets mcp wrap ``structuredContent`` exactly as the
    tool's ``outputSchema`` was wrapped.
    """
    key = _provider_key(provider, _FORMATTERS, "format_tool_results")
    if isinstance(results, (ToolResult, dict)):
        results = [results]
    specs = _spec_index(tools) if tools is not None else {}
    return _FORMATTERS[key]([_as_result(r) for r in results], specs)
