"""OpenAPI 3.0/3.1 documents in: one HTTP tool per operation (``pip install 'tool-workbench[openapi]'``).

``from_openapi(doc, base_url=..., headers=..., auth=..., include=..., exclude=...)`` reads a document
(a dict, a JSON/YAML file or an ``http(s)://`` URL), validates it with ``openapi-spec-validator``
and makes an :class:`OpenApiTool` for each operation:

* **name**: the ``operationId``, else ``<method>_<path>``, made provider-safe (``[a-zA-Z0-9_-]``,
  64 characters — BFCL's rule, :func:`workbench.formats._bfcl_schema.safe_tool_name`); a name
  taken twice gets ``_2``, ``_3``…
* **input schema**: the path, query, header and cookie parameters and the request body merged into
  one object. A JSON body whose schema is an object contributes its properties; any other body is
  one property, ``body``. **Name clashes**: the first comer keeps the name, in the order path,
  query, header, cookie, body; a later one is renamed ``<location>_<name>`` (a query ``id`` next to
  a path ``id`` becomes ``query_id``). ``$ref`` s to parameters and request bodies are resolved
  (:mod:`workbench._refs`); schema ``$ref`` s become ``#/$defs/...`` of the input schema (recursive
  schemas stay expressible). OpenAPI 3.0's ``nullable: true`` becomes a ``null`` alternative.
* **description**: the operation's summary and description.
* **call**: an ``httpx`` request on a pooled client (an async tool: executors await it; a direct
  ``tool(...)`` call blocks). A 2xx answer is a success result: a JSON body as a json block, any other as text,
  ``metadata["http_status"]`` its status; the result's ``value`` is the body. Any other status is an
  error result whose message holds the status and the body. ``timeout=`` (30 s by default) bounds
  the whole call, body included; a body over ``max_response_bytes=`` (10 MiB by default) is an error.

**Requests stay under ``base_url``** (scheme, host, port and path): a path that resolves elsewhere
refuses the document, a path parameter that is ``.``/``..`` (or has such a ``/``-separated part) is
refused, and a redirect elsewhere is not followed (see :mod:`workbench.adapters._openapi_http`). So
``headers=`` and ``auth=`` (an ``httpx.Auth``, a ``(user, password)`` pair or a bearer token string),
all treated as credentials whatever their names, reach no other host; they live only in the tools'
sender: no repr, log row or error message shows them.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union
from urllib.parse import urljoin, urlsplit

from workbench._refs import follow
from workbench.adapters._common import require
from workbench.adapters._openapi_http import (
    DEFAULT_MAX_RESPONSE_BYTES,
    BaseUrl,
    OpenApiResponseTooLarge,
    OpenApiSender,
    OpenApiUrlError,
    path_segment,
)
from workbench.formats._bfcl_schema import safe_tool_name
from workbench.spec import ToolSpec
from workbench.tools import BaseTool
from workbench.types import ToolResult

__all__ = [
    "LOCATIONS",
    "OpenApiHttpError",
    "OpenApiResponseTooLarge",
    "OpenApiTool",
    "OpenApiUrlError",
    "from_openapi",
    "load_document",
]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: where a parameter goes, in the order that decides name clashes
LOCATIONS = ("path", "query", "header", "cookie", "body")
Document = Union[Mapping[str, Any], str, os.PathLike]


class OpenApiHttpError(RuntimeError):
    """An operation answered with a status outside 2xx; ``status`` and ``body`` are the answer's."""

    def __init__(self, tool_name: str, status: int, reason: str, body: Any) -> None:
        self.status = status
        self.body = body
        text = body if isinstance(body, str) else json.dumps(body)
        if len(text) > 2000:
            text = text[:2000] + "…"
        super().__init__(f"HTTP {status} {reason}: {text}".replace("  ", " "))


# -- reading and validating the document -------------------------------------------------------------
def _parse(text: str, label: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml
    except ImportError:
        raise ValueError(
            f"The OpenAPI document {label} is not JSON (and PyYAML, for YAML, is not installed: "
            "pip install 'tool-workbench[openapi]')"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"The OpenAPI document {label} is neither JSON nor YAML: {exc}") from None


def load_document(doc: Document, *, timeout: float = 30.0) -> tuple[dict[str, Any], Optional[str]]:
    """The document as a dict, and its URL if it was fetched from one."""
    if isinstance(doc, Mapping):
        return copy.deepcopy(dict(doc)), None
    if isinstance(doc, str) and doc.startswith(("http://", "https://")):
        httpx = require("httpx", "openapi", "from_openapi")
        try:
            response = httpx.get(doc, timeout=timeout, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise ValueError(f"Cannot fetch the OpenAPI document {doc}: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            raise ValueError(f"Cannot fetch the OpenAPI document {doc}: HTTP {response.status_code}")
        return _parse(response.text, doc), doc
    if isinstance(doc, (str, os.PathLike)):
        path = Path(doc)
        if not path.is_file():
            raise ValueError(f"The OpenAPI document {str(doc)!r} is neither a file nor an http(s) URL")
        return _parse(path.read_text(encoding="utf-8"), str(path)), None
    raise TypeError(f"from_openapi() takes a document dict, a file path or a URL, not {type(doc).__name__}")


@functools.cache
def _spec_validator(version: str) -> Any:
    """openapi-spec-validator's validator class for a document version — for 3.1 with its meta-schema
    step made fast: the 3.1 meta-schema's ``"$dynamicRef": "#meta"`` points at its own
    ``$defs/schema`` (the only ``#meta`` anchor in it), so a plain ``$ref`` there checks the same, and
    ``jsonschema`` walks it about 7× faster (dynamic references search the whole dynamic scope)."""
    import jsonschema
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
    from openapi_spec_validator.schemas import schema_v31

    if version.startswith("3.0"):
        return OpenAPIV30SpecValidator
    text = json.dumps(dict(schema_v31)).replace('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"')
    meta = json.loads(text)
    return type(
        "OpenAPIV31FastSpecValidator",
        (OpenAPIV31SpecValidator,),
        {"schema_validator": jsonschema.validators.validator_for(meta)(meta)},
    )


def validate_document(doc: Any, label: str, *, full: bool = True) -> None:
    """``ValueError`` naming what is wrong unless ``doc`` is a valid OpenAPI 3.0/3.1 document
    (``full=False``: the meta-schema check only, without openapi-spec-validator's further checks —
    resolvable ``$ref`` s, declared path parameters, unique operation ids, defaults of their schema)."""
    if not isinstance(doc, dict):
        raise ValueError(f"The OpenAPI document {label} is not an object (got {type(doc).__name__})")
    version = str(doc.get("openapi", doc.get("swagger", "")))
    if not version.startswith(("3.0", "3.1")):
        raise ValueError(
            f"The OpenAPI document {label} has version {version or 'none'!r}: from_openapi reads "
            "OpenAPI 3.0 and 3.1 ('openapi': '3.0.x' / '3.1.x')"
        )
    require("openapi_spec_validator", "openapi", "from_openapi")
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
    from referencing.exceptions import Unresolvable

    validator_class = _spec_validator(version[:3])
    try:
        if full:
            validator_class(doc).validate()
        else:
            for error in validator_class.schema_validator.iter_errors(doc):
                raise OpenAPIValidationError.create_from(error)
    except OpenAPIValidationError as exc:
        where = "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in getattr(exc, "absolute_path", ()) or ())
        raise ValueError(
            f"The OpenAPI document {label} is invalid: {exc.message}" + (f" (at #/{where})" if where else "")
        ) from None
    except Unresolvable as exc:
        raise ValueError(
            f"The OpenAPI document {label} is invalid: a $ref points nowhere: "
            f"{getattr(exc, 'ref', None) or str(exc)[:200]}"
        ) from None


# -- schemas --------------------------------------------------------------------------------------------
class _Schemas:
    """Resolves ``$ref`` s of one document; schema refs become ``#/$defs/<name>`` of an input schema."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.nullable = str(doc.get("openapi", "")).startswith("3.0")

    def lookup(self, node: Any) -> Any:
        """``node`` with its ``$ref`` chain followed (``workbench._refs``: a remote, dangling or cyclic
        ref is a ``ValueError`` naming it)."""
        return follow(node, self.doc)[0]

    @staticmethod
    def _def_name(ref: str) -> str:
        return ref.rsplit("/", 1)[-1]

    def convert(self, schema: Any, defs: dict[str, Any]) -> Any:
        """A copy of ``schema`` with schema refs pointing into ``defs`` (filled as refs are met)."""
        if isinstance(schema, list):
            return [self.convert(s, defs) for s in schema]
        if not isinstance(schema, Mapping):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = self._def_name(ref)
            if name not in defs:
                defs[name] = {}  # placeholder first: a recursive schema refers to itself
                defs[name] = self.convert(self.lookup({"$ref": ref}), defs)
            rest = {k: self.convert(v, defs) for k, v in schema.items() if k != "$ref"}
            return {"$ref": f"#/$defs/{name}", **rest}
        out = {k: self.convert(v, defs) for k, v in schema.items() if k not in ("nullable", "example", "xml")}
        if self.nullable and schema.get("nullable") is True:
            return {"anyOf": [out, {"type": "null"}]}
        return out


# -- the tool ---------------------------------------------------------------------------------------------
class OpenApiTool(BaseTool):
    """One OpenAPI operation as a workbench tool: its call is an HTTP request.

    ``method``, ``path`` and ``operation_id`` describe the operation; ``locations`` maps each input
    property to ``(location, original name)`` (``("query", "id")``, ``("body", None)`` for a whole body).
    An async tool: executors and ``acall`` await the request on their loop; ``tool(...)`` blocks.
    """

    def __init__(
        self,
        spec: ToolSpec,
        *,
        method: str,
        path: str,
        operation_id: Optional[str],
        locations: dict[str, tuple[str, Optional[str]]],
        body_type: Optional[str],
        sender: OpenApiSender,
    ) -> None:
        self.__dict__["_wb_spec"] = spec
        self.__dict__["_wb_ctx"] = None
        self.method = method.upper()
        self.path = path
        self.operation_id = operation_id
        self.locations = locations
        self.body_type = body_type
        self._sender = sender

    @property
    def tool_type(self) -> str:
        return "openapi"

    def __call__(self, **kwargs: Any) -> ToolResult:
        """Send the request for ``kwargs`` and wait; the answer as a ``ToolResult`` (``OpenApiHttpError``
        outside 2xx, ``OpenApiUrlError`` for a request or redirect outside base_url, ``TimeoutError``,
        ``OpenApiResponseTooLarge``)."""
        request = self._request(kwargs)
        return self._result(self._sender.call(f"{self.method} {self.path}", self.method, request.pop("url"), **request))

    async def acall(self, **kwargs: Any) -> ToolResult:
        """``tool(**kwargs)`` awaited from any event loop."""
        return await self._send(kwargs)

    def _invoke(self, arguments: dict[str, Any], context: Any = None) -> Any:
        return self._send(arguments)

    async def _send(self, arguments: dict[str, Any]) -> ToolResult:
        request = self._request(arguments)
        return self._result(
            await self._sender.acall(f"{self.method} {self.path}", self.method, request.pop("url"), **request)
        )

    def _result(self, answer: Any) -> ToolResult:
        body, is_json = answer.body()
        if not 200 <= answer.status < 300:
            raise OpenApiHttpError(self.tool_name, answer.status, answer.reason, body)
        content = [{"json": body}] if is_json else [{"text": body}]
        return ToolResult(
            toolUseId="",
            status="success",
            content=content,
            value=body,
            metadata={"http_status": answer.status, "content_type": answer.content_type},
        )

    def _request(self, arguments: dict[str, Any]) -> dict[str, Any]:
        path, query, headers, cookies, body = self.path, {}, {}, {}, {}
        whole_body: Any = None
        for key, value in arguments.items():
            location, original = self.locations.get(key, ("body", key))
            if value is None and location in ("query", "header", "cookie"):
                continue  # "not given": a null has no form in a query string or a header
            if location == "path":
                path = path.replace("{" + str(original) + "}", path_segment(self.tool_name, key, value))
            elif location == "query":
                query[original] = value
            elif location == "header":
                headers[original] = str(value)
            elif location == "cookie":
                cookies[original] = str(value)
            elif original is None:
                whole_body = value
            else:
                body[original] = value
        request: dict[str, Any] = {"url": self._sender.base.join(path), "params": query, "headers": headers}
        if cookies:
            request["headers"]["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        payload = whole_body if whole_body is not None else (body or None)
        if payload is not None or (self.body_type and body):
            if self.body_type == "application/x-www-form-urlencoded":
                request["data"] = payload
            elif self.body_type and "json" not in self.body_type and isinstance(payload, str):
                request["content"] = payload
                request["headers"]["Content-Type"] = self.body_type
            else:
                request["json"] = payload
        return request

    def get_display_properties(self) -> dict[str, str]:
        props = super().get_display_properties()
        props["Type"] = f"OpenAPI operation ({self.method} {self.path})"
        return props

    def __repr__(self) -> str:
        return f"<OpenApiTool {self.tool_name!r}: {self.method} {self.path}>"


# -- operations → tools ---------------------------------------------------------------------------------
def _description(operation: Mapping[str, Any]) -> str:
    parts = [operation.get("summary"), operation.get("description")]
    return "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())


def _matches(patterns: Iterable[str], keys: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns for key in keys if key)


def _operation_tool(
    schemas: _Schemas,
    path: str,
    method: str,
    path_item: Mapping[str, Any],
    operation: Mapping[str, Any],
    name: str,
    sender: OpenApiSender,
) -> OpenApiTool:
    defs: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, tuple[str, Optional[str]]] = {}

    def add(location: str, original: Optional[str], schema: Any, is_required: bool) -> None:
        key = original or "body"
        if key in properties:
            key = f"{location}_{key}"
        properties[key] = schema
        locations[key] = (location, original)
        if is_required:
            required.append(key)

    # an operation's parameter overrides the path item's of the same name and location
    merged: dict[tuple[str, str], Mapping[str, Any]] = {}
    for raw in [*(path_item.get("parameters") or []), *(operation.get("parameters") or [])]:
        param = schemas.lookup(raw)
        merged[(param["in"], param["name"])] = param
    for location in LOCATIONS[:4]:
        for (where, param_name), param in merged.items():
            if where != location:
                continue
            schema = schemas.convert(param.get("schema") or {}, defs)
            if param.get("description") and isinstance(schema, dict) and "description" not in schema:
                schema = {**schema, "description": param["description"]}
            add(location, param_name, schema, bool(param.get("required")) or location == "path")

    body_type: Optional[str] = None
    body = schemas.lookup(operation.get("requestBody"))
    if isinstance(body, Mapping):
        content = body.get("content") or {}
        body_type = next((t for t in content if "json" in t), next(iter(content), None))
        media = content.get(body_type) or {} if body_type else {}
        raw_schema = media.get("schema") or {}
        target = schemas.lookup(raw_schema)  # the body's own schema, its $ref followed
        merge = (
            isinstance(target, Mapping)
            and target.get("type") == "object"
            and isinstance(target.get("properties"), Mapping)
            and body_type in ("application/json", "application/x-www-form-urlencoded")
        )
        if merge:
            inner_required = set(target.get("required") or []) if body.get("required") else set()
            for prop, prop_schema in target["properties"].items():
                add("body", prop, schemas.convert(prop_schema, defs), prop in inner_required)
        else:
            add("body", None, schemas.convert(raw_schema, defs), bool(body.get("required")))

    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    if defs:
        parameters["$defs"] = defs
    spec = ToolSpec(name=name, description=_description(operation), parameters=parameters, supports_async=True)
    return OpenApiTool(
        spec,
        method=method,
        path=path,
        operation_id=operation.get("operationId"),
        locations=locations,
        body_type=body_type,
        sender=sender,
    )


def _base_url(doc: Mapping[str, Any], doc_url: Optional[str], base_url: Optional[str]) -> str:
    if base_url:
        return base_url
    servers = doc.get("servers") or []
    server_url = servers[0].get("url") if servers and isinstance(servers[0], Mapping) else None
    if server_url and "{" not in server_url and (server_url.startswith(("http://", "https://")) or doc_url):
        return urljoin(doc_url or "", server_url)
    if doc_url:
        parts = urlsplit(doc_url)
        return f"{parts.scheme}://{parts.netloc}"
    raise ValueError(
        "from_openapi() needs base_url=: the document has no absolute server URL and was not fetched from a URL"
    )


def _positive(name: str, value: Any, what: str, whole: bool = False) -> None:
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:
        raise ValueError(f"from_openapi(): {name}= must be {what}, not {value!r}")


def from_openapi(
    doc: Document,
    *,
    base_url: Optional[str] = None,
    headers: Optional[Mapping[str, str]] = None,
    auth: Any = None,
    include: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    timeout: float = 30.0,
    prefix: str = "",
    validate: Union[bool, str] = True,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> list[OpenApiTool]:
    """One :class:`OpenApiTool` per operation of an OpenAPI 3.0/3.1 document.

    Args:
        doc: the document: a dict, a JSON or YAML file path, or an ``http(s)://`` URL.
        base_url: where requests go; default the document's first absolute server URL, else (a
            document fetched by URL) that URL's origin. Every request stays under it (scheme, host,
            port and path): a path resolving elsewhere is a ``ValueError`` here, a redirect elsewhere
            an error result (``OpenApiUrlError``), not followed.
        headers: sent with every request (API keys…), only under ``base_url``; never shown in a repr,
            the log or an error.
        auth: an ``httpx.Auth``, a ``(user, password)`` pair (basic) or a bearer token string.
        include, exclude: glob patterns matched against the tool name, the ``operationId``,
            ``"GET /items/{id}"`` and the operation's tags; ``include`` keeps only matches,
            ``exclude`` then drops matches.
        timeout: seconds for a whole call (connecting, redirects and reading the body included);
            also the document fetch.
        prefix: put before every tool name.
        validate: check the document with ``openapi-spec-validator`` first (``ValueError`` naming
            what is wrong); ``"schema"``: its meta-schema check only (about 3× faster on a large
            document); ``False``: no check.
        max_response_bytes: the largest body a call reads (decoded); a larger one is an error
            result (``OpenApiResponseTooLarge``).
    """
    _positive("timeout", timeout, "a positive number of seconds")
    _positive("max_response_bytes", max_response_bytes, "a positive whole number of bytes", whole=True)
    document, doc_url = load_document(doc, timeout=timeout)
    title = document.get("info", {}).get("title") if isinstance(document.get("info"), Mapping) else None
    label = doc_url or (str(doc) if not isinstance(doc, Mapping) else repr(title) if title else "(a dict)")
    if validate:
        validate_document(document, label, full=validate != "schema")
    schemas = _Schemas(document)
    base = BaseUrl(_base_url(document, doc_url, base_url))
    sender = OpenApiSender(base, headers, auth, timeout, max_response_bytes)
    include, exclude = list(include or []), list(exclude or [])
    tools: list[OpenApiTool] = []
    taken: set[str] = set()
    for path, raw_item in (document.get("paths") or {}).items():
        path_item = schemas.lookup(raw_item) or {}
        for method in METHODS:
            operation = path_item.get(method)
            if not isinstance(operation, Mapping):
                continue
            op_id = operation.get("operationId")
            name = prefix + safe_tool_name(op_id or f"{method}_{path.strip('/')}".replace("{", "").replace("}", ""))
            keys = [name, op_id or "", f"{method.upper()} {path}", *(operation.get("tags") or [])]
            if (include and not _matches(include, keys)) or (exclude and _matches(exclude, keys)):
                continue
            unique, n = name, 1
            while unique in taken:
                n += 1
                unique = f"{name[:60]}_{n}"
            taken.add(unique)
            base.check_template(path)  # only paths that become tools: include= can leave out a bad one
            tools.append(_operation_tool(schemas, path, method, path_item, operation, unique, sender))
    return tools


def adapt(obj: Any) -> list[OpenApiTool]:
    """The adapters' table entry: ``from_openapi(obj)``."""
    return from_openapi(obj)
