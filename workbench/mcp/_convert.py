"""Conversions between workbench objects and MCP wire types (both directions).

* ``ToolSpec`` → MCP ``Tool`` (``inputSchema``/``outputSchema``; a non-object return
  schema is wrapped as ``{"type": "object", "properties": {"result": …}, "required": ["result"]}``);
* ``ToolResult`` → ``CallToolResult`` (text, image, audio, embedded resource and resource link content, ``structuredContent``, ``isError``);
* MCP ``Tool`` → ``ToolSpec`` and ``CallToolResult`` → the value a proxy tool returns.
"""

from __future__ import annotations

import base64
import binascii
import json
import keyword
import re
from typing import Any, Optional

import mcp.types as types

from workbench._content import image_block, to_jsonable
from workbench.spec import ToolSpec
from workbench.tools import ToolResponse
from workbench.types import Permission, ToolResult, error_result

__all__ = [
    "META_PREFIX",
    "McpToolError",
    "spec_to_mcp_tool",
    "mcp_tool_dict",
    "output_schema_of",
    "is_object_schema",
    "is_result_wrapper",
    "unwrap_output_schema",
    "result_to_call_tool_result",
    "served_result",
    "STRUCTURED_TEXT_LIMIT",
    "call_tool_result_to_value",
    "local_tool_name",
]

#: Prefix of the ``_meta`` keys this package adds (a valid MCP ``_meta`` key prefix).
META_PREFIX = "tool-workbench/"
_META_RUNTIME = META_PREFIX + "runtime"
_META_WRAPPED = META_PREFIX + "wrapped"
_META_ERROR_TYPE = META_PREFIX + "error_type"

_MISSING = object()
_MIME_TO_FORMAT = {"image/jpg": "jpeg", "image/svg+xml": "svg"}


# -- specs --------------------------------------------------------------------------------------------
def is_object_schema(schema: Any) -> bool:
    """True when a JSON Schema describes a JSON object at its root (no wrapping needed)."""
    return isinstance(schema, dict) and schema.get("type") == "object"


def is_result_wrapper(schema: Any) -> bool:
    """True for ``{"type": "object", "properties": {"result": …}, "required": ["result"]}``
    (the wrapper this package, FastMCP and MCPServer put around non-object return schemas)."""
    if not is_object_schema(schema):
        return False
    props = schema.get("properties")
    return isinstance(props, dict) and list(props) == ["result"] and list(schema.get("required") or []) == ["result"]


def _wrap(returns: dict[str, Any]) -> dict[str, Any]:
    inner = dict(returns)
    defs: dict[str, Any] = {key: inner.pop(key) for key in ("$defs", "definitions") if key in inner}
    wrapper: dict[str, Any] = {"type": "object", "properties": {"result": inner}, "required": ["result"]}
    wrapper.update(defs)  # refs like "#/$defs/X" resolve against the document root
    return wrapper


def unwrap_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` schema of a wrapper, with the root ``$defs`` carried along."""
    inner = dict(schema["properties"]["result"]) if isinstance(schema["properties"]["result"], dict) else {}
    for key in ("$defs", "definitions"):
        if key in schema and key not in inner:
            inner[key] = schema[key]
    return inner


def output_schema_of(spec: ToolSpec) -> Optional[dict[str, Any]]:
    """The MCP ``outputSchema`` of a spec: ``returns`` itself when it is an object schema,
    the ``{"result": …}`` wrapper for any other non-empty schema, ``None`` without one."""
    returns = spec.returns
    if not returns:
        return None
    return dict(returns) if is_object_schema(returns) else _wrap(returns)


def mcp_tool_dict(spec: ToolSpec) -> dict[str, Any]:
    """``{"name", "description", "inputSchema", "outputSchema"}`` (the ``mcp`` provider format).

    Uses ``workbench.formats.to_provider_format(spec, "mcp")`` when that module exists, so the
    served tools and the provider export agree; falls back to the same conversion done here.
    """
    try:
        from workbench.formats import to_provider_format
    except ImportError:
        to_provider_format = None  # type: ignore[assignment]
    if to_provider_format is not None:
        data = dict(to_provider_format(spec, "mcp"))
        data.setdefault("name", spec.name)
        data.setdefault("inputSchema", spec.parameters)
        return data
    data = {"name": spec.name, "description": spec.description, "inputSchema": spec.parameters}
    output = output_schema_of(spec)
    if output is not None:
        data["outputSchema"] = output
    return data


def spec_to_mcp_tool(spec: ToolSpec) -> types.Tool:
    """The MCP ``Tool`` for a spec, with hints (``idempotentHint``) and the workbench runtime
    metadata (``timeout``, ``long_running``, ``permission``) under ``_meta``."""
    data = mcp_tool_dict(spec)
    annotations = types.ToolAnnotations(idempotent_hint=True) if spec.idempotent else None
    runtime = {
        "long_running": spec.long_running,
        "idempotent": spec.idempotent,
        "permission": Permission.coerce(spec.permission).value,
        "timeout": spec.timeout,
    }
    return types.Tool(
        name=data.get("name") or spec.name,
        description=data.get("description") or None,
        input_schema=data.get("inputSchema") or {"type": "object", "properties": {}},
        output_schema=data.get("outputSchema") or None,
        annotations=annotations,
        _meta={_META_RUNTIME: runtime},
    )


_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")


def local_tool_name(remote_name: str, prefix: str = "") -> str:
    """A valid workbench tool name (``^[a-zA-Z0-9_-]{1,64}$``) for a server's tool name."""
    name = _NAME_BAD.sub("_", f"{prefix}{remote_name}")[:64]
    return name or "tool"


def mcp_tool_to_spec(tool: types.Tool, name: str, *, timeout: Optional[float] = None) -> ToolSpec:
    """A ``ToolSpec`` for a server's tool: ``inputSchema`` → parameters, ``outputSchema`` →
    returns (unwrapped when it is the ``{"result": …}`` wrapper)."""
    output = tool.output_schema
    returns: dict[str, Any] = {}
    if output:
        returns = unwrap_output_schema(output) if is_result_wrapper(output) else dict(output)
    parameters = dict(tool.input_schema or {})
    if parameters.get("type") != "object":  # MCP requires an object; be lenient with servers that omit it
        parameters["type"] = "object"
    parameters.setdefault("properties", {})
    runtime = (tool.meta or {}).get(_META_RUNTIME) or {}
    idempotent = bool(getattr(tool.annotations, "idempotent_hint", None)) if tool.annotations else False
    description = tool.description or getattr(tool, "title", None) or f"MCP tool '{tool.name}'"
    return ToolSpec(
        name=name,
        description=description,
        parameters=parameters,
        returns=returns,
        supports_async=True,
        long_running=bool(runtime.get("long_running", False)),
        idempotent=idempotent,
        timeout=timeout,
    )


# -- results: server side -----------------------------------------------------------------------------
def _raw_value(result: ToolResult) -> Any:
    value = result.value
    if isinstance(value, ToolResponse):
        return value.observation
    if isinstance(value, ToolResult):
        return value.json
    return value


def _bytes_as_base64(value: Any) -> Any:
    """``value`` with every ``bytes`` in it (through dicts, lists and tuples) as standard base64 text —
    the alphabet of MCP's ``ImageContent`` (pydantic's JSON mode writes URL-safe base64) — or
    ``_MISSING`` when it holds no bytes."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        items = {key: _bytes_as_base64(item) for key, item in value.items()}
        if all(item is _MISSING for item in items.values()):
            return _MISSING
        return {key: value[key] if item is _MISSING else item for key, item in items.items()}
    if isinstance(value, (list, tuple)):
        converted = [_bytes_as_base64(item) for item in value]
        if all(item is _MISSING for item in converted):
            return _MISSING
        return [value[i] if item is _MISSING else item for i, item in enumerate(converted)]
    return _MISSING


def _image_content(block: dict[str, Any]) -> types.ImageContent:
    image = block.get("image") or {}
    fmt = str(image.get("format") or "png").lower()
    data = (image.get("source") or {}).get("bytes", "")
    if isinstance(data, (bytes, bytearray)):
        data = base64.b64encode(bytes(data)).decode("ascii")
    mime = "image/svg+xml" if fmt == "svg" else f"image/{fmt}"
    return types.ImageContent(data=data, mime_type=mime)


def _audio_content(block: dict[str, Any]) -> types.AudioContent:
    audio = block.get("audio") or {}
    return types.AudioContent(
        data=(audio.get("source") or {}).get("bytes", ""), mime_type=str(audio.get("mimeType") or "audio/wav")
    )


def _embedded_resource(block: dict[str, Any]) -> types.EmbeddedResource:
    resource = dict(block.get("resource") or {})
    kind = types.TextResourceContents if "text" in resource else types.BlobResourceContents
    return types.EmbeddedResource(type="resource", resource=kind.model_validate(resource))


def _resource_link(block: dict[str, Any]) -> types.ResourceLink:
    return types.ResourceLink.model_validate({"type": "resource_link", **(block.get("resourceLink") or {})})


#: workbench content block key → the MCP content block it is sent as
_SERVED_BLOCKS = {
    "image": _image_content,
    "audio": _audio_content,
    "resource": _embedded_resource,
    "resourceLink": _resource_link,
}


def served_result(result: ToolResult, spec: ToolSpec, output_schema: Optional[dict[str, Any]] = _MISSING) -> ToolResult:  # type: ignore[assignment]
    """The result a server sends for ``result``: the same one, except that a success whose value broke
    the declared ``returns`` schema becomes an error result (type ``ReturnsMismatch``) — MCP requires
    structured content to conform to ``outputSchema``, and clients drop results that do not. The
    server logs this result, so its log row and its reply always agree."""
    if output_schema is _MISSING:
        output_schema = output_schema_of(spec)
    mismatch = result.metadata.get("returns_mismatch")
    if result.status != "success" or not output_schema or not mismatch:
        return result
    message = f"Tool '{spec.name}' returned a value that does not match its declared output schema: {mismatch}"
    return error_result(
        result.tool_use_id,
        message,
        "ReturnsMismatch",
        tool_name=spec.name,
        carried=result.metadata,
        started_at=result.started_at,
        completed_at=result.completed_at,
    )


def result_to_call_tool_result(
    result: ToolResult,
    spec: ToolSpec,
    output_schema: Optional[dict[str, Any]] = _MISSING,  # type: ignore[assignment]  # sentinel: None is a value
) -> types.CallToolResult:
    """A final ``ToolResult`` as an MCP ``CallToolResult``.

    Text blocks → ``TextContent``; image, audio, resource and resource-link blocks → the MCP block of
    that kind; a JSON value becomes
    ``structuredContent`` (wrapped as ``{"result": value}`` when the output schema is the
    wrapper, or when there is no output schema and the value is not an object); an error →
    ``isError`` with the error message (its type under ``_meta``). A success whose value broke
    the declared ``returns`` schema is an ``isError`` result saying so (type ``ReturnsMismatch``,
    see :func:`served_result`).
    """
    if output_schema is _MISSING:
        output_schema = output_schema_of(spec)
    result = served_result(result, spec, output_schema)
    if result.status == "error":
        metadata = result.metadata
        message = metadata.get("error") or result.text or "Tool call failed"
        error_meta = {_META_ERROR_TYPE: str(metadata.get("error_type") or "Error")}
        return types.CallToolResult(content=[types.TextContent(text=str(message))], is_error=True, _meta=error_meta)
    content: list[Any] = []
    json_value: Any = _MISSING
    has_text = False
    for block in result.content:
        if "text" in block:
            content.append(types.TextContent(text=str(block["text"])))
            has_text = True
        elif "json" in block:
            if json_value is _MISSING:
                json_value = block["json"]
        elif len(block) == 1 and next(iter(block)) in _SERVED_BLOCKS:
            content.append(_SERVED_BLOCKS[next(iter(block))](block))
        else:
            content.append(types.TextContent(text=json.dumps(to_jsonable(block), ensure_ascii=False)))
            has_text = True
    if json_value is not _MISSING and not has_text:
        content.insert(0, types.TextContent(text=json.dumps(json_value, ensure_ascii=False)))
    meta: Optional[dict[str, Any]] = None
    structured: Any = _MISSING
    if output_schema:
        # the value as its declared type: bytes are standard base64 text (a ``bytes`` schema is a
        # string), and the JSON text block beside it says the same
        with_base64 = _bytes_as_base64(_raw_value(result))
        if with_base64 is not _MISSING:
            value = to_jsonable(with_base64)
            if json_value is not _MISSING:
                old_text = json.dumps(json_value, ensure_ascii=False)
                content = [
                    types.TextContent(text=json.dumps(value, ensure_ascii=False))
                    if getattr(block, "text", None) == old_text
                    else block
                    for block in content
                ]
        else:
            value = json_value if json_value is not _MISSING else to_jsonable(_raw_value(result))
        wrapped = is_result_wrapper(output_schema) and not is_object_schema(spec.returns)
        structured = {"result": value} if wrapped else value
    elif json_value is not _MISSING:
        if isinstance(json_value, dict):
            structured = json_value
        else:  # structured content is an object up to protocol 2025-11-25: wrap, and say so
            structured = {"result": json_value}
            meta = {_META_WRAPPED: True}
    if structured is _MISSING:
        return types.CallToolResult(content=content)
    return types.CallToolResult(content=_sent_once(content), structured_content=structured, _meta=meta)


#: Above this many characters of text beside ``structuredContent``, the text is not sent (see _sent_once).
STRUCTURED_TEXT_LIMIT = 256 * 1024


def _sent_once(content: list[Any]) -> list[Any]:
    """The content blocks sent beside ``structuredContent``.

    MCP 2025-11-25: a tool returning structured content SHOULD also return its serialized JSON in a
    text block (for clients that read only ``content``). Sent twice, a large value doubles every
    message and overflows the SSE event limit of HTTP clients (the SDK client's is 1 MiB). So up to
    :data:`STRUCTURED_TEXT_LIMIT` characters the text goes along; above it, the text blocks are
    replaced by one short block saying where the value is (images and other blocks stay).
    """
    texts = [block for block in content if getattr(block, "type", None) == "text"]
    size = sum(len(block.text) for block in texts)
    if size <= STRUCTURED_TEXT_LIMIT:
        return content
    note = types.TextContent(
        text=f"The result ({size:,} characters as text) is in structuredContent; it is not "
        f"repeated here (text beside structured content is sent up to "
        f"{STRUCTURED_TEXT_LIMIT:,} characters)."
    )
    return [note] + [block for block in content if getattr(block, "type", None) != "text"]


# -- results: client side -----------------------------------------------------------------------------
class McpToolError(RuntimeError):
    """A tool on an MCP server returned ``isError``. Subclasses named after the server-side
    error type (``ValueError``, ``TimeoutError``…) are created on demand, so the executor
    reports the remote error type; all of them are ``McpToolError``."""

    error_type: str = "McpToolError"


_ERROR_CLASSES: dict[str, type[McpToolError]] = {}


def remote_error(message: str, error_type: Optional[str]) -> McpToolError:
    """An ``McpToolError`` (subclass named ``error_type`` when that is a valid identifier)."""
    cls: type[McpToolError] = McpToolError
    if error_type and error_type.isidentifier() and not keyword.iskeyword(error_type) and error_type != "McpToolError":
        cls = _ERROR_CLASSES.get(error_type)  # type: ignore[assignment]
        if cls is None:
            cls = _ERROR_CLASSES[error_type] = type(
                error_type, (McpToolError,), {"error_type": error_type, "__module__": __name__}
            )
        prefix = f"{error_type}: "
        if message.startswith(prefix):  # the server's message already names the type
            message = message[len(prefix) :]
    return cls(message)


def _image_format(mime: str) -> str:
    mime = (mime or "").lower()
    if mime in _MIME_TO_FORMAT:
        return _MIME_TO_FORMAT[mime]
    return mime.split("/", 1)[1] if "/" in mime else (mime or "png")


def _block_of(item: Any) -> list[dict[str, Any]]:
    kind = getattr(item, "type", None)
    if kind == "text":
        return [{"text": item.text}]
    if kind == "image":
        try:
            data = base64.b64decode(item.data, validate=False)
        except (binascii.Error, ValueError):
            return [{"text": f"<image {item.mime_type}: invalid base64>"}]
        return [image_block(data, _image_format(item.mime_type))]
    dumped = item.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(item, "model_dump") else item
    if kind == "audio":
        return [{"audio": {"mimeType": dumped.get("mimeType"), "source": {"bytes": dumped.get("data", "")}}}]
    if kind == "resource_link":
        return [{"resourceLink": {k: v for k, v in dumped.items() if k != "type"}}]
    if kind == "resource":
        return [{"resource": dumped.get("resource") or {}}]
    return [{"json": dumped}]


def call_tool_result_to_value(result: types.CallToolResult, *, unwrap: bool = False, has_returns: bool = False) -> Any:
    """The value a proxy tool returns for a ``CallToolResult``.

    * ``isError`` → raises :class:`McpToolError` with the server's message;
    * ``structuredContent`` → that value (``{"result": x}`` → ``x`` when ``unwrap`` — the
      tool's output schema was the wrapper — or the server marked it wrapped); a single image
      whose base64 data is the structured value comes back as the image bytes; with other
      images/blocks too, a ``ToolResult`` carrying every block (unless ``has_returns``: the
      executor checks the value against the returns schema, so it gets the plain value);
    * otherwise text only → the text; images and other blocks → a ``ToolResult`` carrying them.
    """
    content: list[Any] = list(result.content or [])  # blocks told apart by their type below
    meta = result.meta or {}
    if result.is_error:
        text = "\n".join(c.text for c in content if getattr(c, "type", None) == "text") or "MCP tool call failed"
        raise remote_error(text, meta.get(_META_ERROR_TYPE))
    images = [c for c in content if getattr(c, "type", None) == "image"]
    others = [c for c in content if getattr(c, "type", None) not in ("text", "image")]
    structured = result.structured_content
    if structured is not None or "structured_content" in result.model_fields_set:
        if (unwrap or meta.get(_META_WRAPPED)) and isinstance(structured, dict) and set(structured) == {"result"}:
            structured = structured["result"]
        if len(images) == 1 and not others and isinstance(structured, str) and structured == images[0].data:
            return base64.b64decode(structured)
        if (not images and not others) or has_returns:
            return structured
        blocks = [block for item in content for block in _block_of(item)]
        blocks.append({"json": structured})
        return ToolResult(toolUseId="mcp", status="success", content=blocks, value=structured)
    if not images and not others:
        texts = [c.text for c in content]
        return texts[0] if len(texts) == 1 else "\n".join(texts)
    blocks = [block for item in content for block in _block_of(item)]
    return ToolResult(toolUseId="mcp", status="success", content=blocks)
