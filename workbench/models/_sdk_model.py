"""What every real-provider model shares: the request/response cycle, retries, errors, masking.

A provider model (``OpenAIModel``, ``AnthropicModel``…) supplies a few hooks — build the request
from neutral messages, send it with its SDK, read the answer into a :class:`ModelTurn`, take an SDK
exception apart — and :class:`ProviderModel` does the rest the same way for all of them: time the
turn, mask secrets in what it keeps, turn failures into a :class:`ModelError` with a ``kind``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Mapping, Optional, Sequence

from workbench._unicode import replace_surrogates
from workbench.formats import tool_choice_to_provider
from workbench.formats._export import STRICT_CAPABLE
from workbench.models._base import Message, Model, as_messages, tool_specs
from workbench.models._turn import ModelError, ModelTurn
from workbench.secrets import mask, mask_url, scrub_text, url_secrets
from workbench.spec import ToolSpec
from workbench.types import ToolResult


@dataclass
class Failure:
    """An SDK exception taken apart: HTTP ``status`` (if any), the provider's error ``code`` and
    ``message``, the response ``headers``; ``kind`` when the failure itself says it (else it is
    worked out from the rest, see :func:`failure_kind`)."""

    status: Optional[int] = None
    code: str = ""
    message: str = ""
    headers: Optional[Mapping[str, str]] = None
    kind: str = ""


#: HTTP status → error kind (refined by the provider's code and message, see ``_TEXT_KINDS``)
_STATUS_KINDS = {
    400: "bad_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "context_length",
    422: "bad_request",
    429: "rate_limit",
    529: "server",
}

#: (pattern in the lower-cased code + message, kind): what a status alone does not tell
_TEXT_KINDS = [
    (
        r"context.length|context window|maximum context|prompt is too long|input is too long|too many (input )?tokens"
        r"|exceeds? the (maximum )?(number of )?tokens|token limit|input token count",
        "context_length",
    ),
    (
        r"api.key.invalid|api key not valid|invalid.api.key|incorrect api key|invalid x-api-key|authentication"
        r"|unrecognizedclient|invalidsignature|security token|signature.*does not match|expiredtoken",
        "authentication",
    ),
    (r"content.policy|content.filter|responsible ai|safety system", "refusal"),
    (r"throttl|rate.limit|too many requests|resource.exhausted|quota", "rate_limit"),
    (r"model identifier is invalid|model_not_found|not_found_error|model .*(not found|does not exist)", "not_found"),
    (r"timeout|timed out", "timeout"),
]

#: what to do about each kind, told after the provider's own message
_HINTS = {
    "authentication": "check the API key ({env} or api_key=)",
    "permission": "the key is valid but may not use this model",
    "not_found": "check the model name '{model}'",
    "rate_limit": "rate limited by the provider (retried {retries} time(s)); wait, or lower the request rate",
    "context_length": "the conversation is longer than the model's context window: shorten the messages or "
    "the tool results, or use a model with a longer context",
    "refusal": "the provider refused the request under its content policy",
    "timeout": "no answer within the timeout ({timeout} s; raise it with timeout=)",
    "connection": "cannot reach {where}",
    "server": "the provider failed (retried {retries} time(s)); try again later",
    "bad_request": "the provider rejected the request",
    "bad_response": "{where} answered with something the provider does not send (a proxy's page?)",
}

_RETRIED_KINDS = frozenset({"rate_limit", "server", "timeout", "connection"})

#: the longest Retry-After (seconds) waited for; a longer one is reported at once
MAX_RETRY_AFTER = 120.0


def failure_kind(failure: Failure, exc: BaseException) -> str:
    """The :data:`ERROR_KINDS` entry for a failure: by status, refined by the code and message."""
    if failure.kind:
        return failure.kind
    text = f"{failure.code} {failure.message}".lower()
    status_kind = _STATUS_KINDS.get(failure.status or 0) or ("server" if (failure.status or 0) >= 500 else None)
    if status_kind in ("rate_limit", "server") or (status_kind == "authentication"):
        return status_kind
    for pattern, kind in _TEXT_KINDS:
        if re.search(pattern, text):
            return kind
    if status_kind:
        return status_kind
    name = type(exc).__name__.lower()
    if "timeout" in name:
        return "timeout"
    if "connect" in name or "endpoint" in name:
        return "connection"
    return "unknown"


def retry_after(headers: Optional[Mapping[str, str]]) -> Optional[float]:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds) in response headers."""
    if not headers:
        return None
    lower = {str(k).lower(): v for k, v in dict(headers).items()}
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return float(lower[header]) / divisor
        except (KeyError, TypeError, ValueError):
            continue
    return None


def choice_kind(tool_choice: Any) -> tuple[Optional[str], Any]:
    """``(None, None)``, ``("none", None)`` or ``("choice", ToolChoice)`` from what a caller may pass:
    ``"auto"``, ``"any"``/``"required"``, ``"none"``, a tool name, or a ToolChoice dict."""
    if tool_choice is None:
        return None, None
    if tool_choice == "none":
        return "none", None
    if tool_choice in ("auto", "any", "required"):
        return "choice", {"any" if tool_choice == "required" else tool_choice: {}}
    if isinstance(tool_choice, str):
        return "choice", {"tool": {"name": tool_choice}}
    return "choice", tool_choice


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """toolUseId → tool name for every call the assistant made in ``messages``."""
    return {
        call.get("toolUseId"): call.get("name", "")
        for m in messages
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or []
    }


def tool_results(message: Message, names: Mapping[str, str]) -> list[ToolResult]:
    """The results of a ``tool`` message, each knowing its tool's name (Gemini matches by name)."""
    results = []
    for item in message.get("results") or []:
        result = item if isinstance(item, ToolResult) else ToolResult.model_validate(item)
        if not result.metadata.get("tool_name") and result.tool_use_id in names:
            result = result.model_copy(update={"metadata": {**result.metadata, "tool_name": names[result.tool_use_id]}})
        results.append(result)
    return results


def arguments_text(value: Any) -> str:
    """A call's input as the JSON text OpenAI sends back (a malformed call's raw string unchanged)."""
    return value if isinstance(value, str) else json.dumps(value if value is not None else {})


def content_text(content: Any) -> str:
    """A message's content as text (a list of ``{"text": ...}`` blocks joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def merge_roles(messages: list[dict[str, Any]], key: str = "content") -> list[dict[str, Any]]:
    """Consecutive messages of the same role merged (Anthropic, Bedrock and Gemini alternate roles)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {**merged[-1], key: list(merged[-1][key]) + list(message[key])}
        else:
            merged.append(message)
    return merged


_SIGNATURES: dict[Any, frozenset] = {}


def sdk_call(method: Any, request: dict[str, Any]) -> Any:
    """``method(**request)``, the fields the SDK method does not name sent through its ``extra_body``
    (an SDK may lag behind the API, or drop a parameter a compatible server still takes)."""
    key = getattr(method, "__func__", method)
    known = _SIGNATURES.get(key)
    if known is None:
        known = _SIGNATURES[key] = frozenset(inspect.signature(method).parameters)
    if all(k in known for k in request):
        return method(**request)
    kwargs = {k: v for k, v in request.items() if k in known}
    kwargs["extra_body"] = {**(kwargs.get("extra_body") or {}), **{k: v for k, v in request.items() if k not in known}}
    return method(**kwargs)


def sdk(module: str, extra: str, provider: str) -> Any:
    """The provider SDK ``module``, or an ImportError saying which extra installs it."""
    try:
        return import_module(module)
    except ImportError as exc:
        raise ImportError(f"the {provider} models need the '{extra}' package: pip install {extra}") from exc


def status_failure(exc: BaseException, module: Any) -> Optional[Failure]:
    """An openai/anthropic SDK exception taken apart (both SDKs share the shape)."""
    if isinstance(exc, module.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
        code = " ".join(str(error.get(k)) for k in ("code", "type") if error.get(k))
        return Failure(exc.status_code, code, str(error.get("message") or exc.message), exc.response.headers)
    if isinstance(exc, module.APITimeoutError):
        return Failure(code="timeout", message="the request timed out")
    if isinstance(exc, module.APIConnectionError):
        return Failure(message=f"connection error ({type(exc.__cause__ or exc).__name__})")
    if isinstance(exc, module.APIError):  # no HTTP status: an error event in a stream, a malformed answer
        error = exc.body if isinstance(exc.body, dict) else {}
        code = " ".join(str(error.get(k)) for k in ("code", "type") if error.get(k))
        return Failure(code=code, message=str(exc.message or type(exc).__name__))
    return None


class BadResponse(Exception):
    """Raised by a model's ``_send`` when a successful answer is not what the provider sends
    (reported as a ``bad_response`` :class:`ModelError`)."""


#: how much of an answer that is not JSON an error quotes
_QUOTED = 200


def unrecognised_failure(exc: BaseException) -> Failure:
    """Any other exception from sending a request, taken apart without the SDK's help: a 200 answer
    whose body is not JSON is a ``bad_response`` quoting its start; anything else keeps its type
    and message (both are scrubbed of secrets before anyone sees them)."""
    if isinstance(exc, json.JSONDecodeError):
        quoted = exc.doc[:_QUOTED] + ("…" if len(exc.doc) > _QUOTED else "")
        return Failure(kind="bad_response", message=f"the answer is not JSON ({exc.msg}): {quoted!r}")
    if isinstance(exc, BadResponse):
        return Failure(kind="bad_response", message=str(exc))
    return Failure(message=f"{type(exc).__name__}: {exc}")


class ProviderModel(Model):
    """A model behind a provider SDK. Subclasses fill in the hooks below.

    ``params`` given here are defaults for every turn (``temperature=0``, ``max_tokens=…``); a
    turn's own params override them. ``max_retries`` retries rate limits and server errors with
    backoff, honouring ``Retry-After`` (through the SDK's own retry when it does so, else here).
    """

    #: the prefix in ``get("prefix:model")``
    provider = ""
    #: the provider-format name of ``workbench.formats`` (tools out, calls in, results out)
    wire = ""
    #: environment variables holding the key, first found wins
    key_env: tuple[str, ...] = ()
    #: True when the SDK's own retry honours Retry-After (so this class does not retry again)
    sdk_retries = False
    #: the value a "none" tool choice becomes (None: the provider has none)
    none_choice: Any = None

    def __init__(
        self,
        model: str,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        strict: bool = False,
        **params: Any,
    ):
        if not isinstance(model, str) or not model:
            raise ValueError(f"{type(self).__name__}: the model name must be a non-empty string, got {model!r}")
        if strict and self.wire not in STRICT_CAPABLE:
            raise ValueError(f"{type(self).__name__}: strict=True is for {', '.join(STRICT_CAPABLE)} tools only")
        self.name = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.strict = strict
        self.params = dict(params)
        self._api_key = api_key
        self._clients: dict[Any, Any] = {}
        self._lock = threading.Lock()

    # -- hooks ------------------------------------------------------------------------------------
    def _make_client(self, asynchronous: bool) -> Any:
        raise NotImplementedError

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        """The request (JSON-able keyword arguments of the SDK call)."""
        raise NotImplementedError

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request``; the provider's answer as JSON."""
        raise NotImplementedError

    async def _asend(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(self._send, client, request)

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        """Text, tool calls, normalised stop reason and usage of the provider's answer."""
        raise NotImplementedError

    def _failure(self, exc: BaseException) -> Optional[Failure]:
        """The SDK exception taken apart, or None when the SDK does not say what it is (then
        :func:`unrecognised_failure` does)."""
        return None

    # -- the cycle --------------------------------------------------------------------------------
    @property
    def api_key(self) -> Optional[str]:
        """The key in use (argument, else the first of :attr:`key_env` set); never shown anywhere."""
        if self._api_key:
            return self._api_key
        for name in self.key_env:
            if os.environ.get(name):
                return os.environ[name]
        return None

    def _key_secrets(self) -> list[str]:
        """The credentials this model was configured with (masked wherever they show up)."""
        key = self.api_key
        return [key] if key else []

    def _secrets(self) -> list[str]:
        """Every secret of this model: its credentials and those written into its ``base_url``."""
        return self._key_secrets() + url_secrets(self.base_url)

    def _missing_key(self) -> ModelError:
        names = " or ".join(self.key_env)
        return ModelError(
            f"{self.provider} model '{self.name}': no API key — set {names} or pass api_key=",
            kind="authentication",
            provider=self.provider,
            model=self.name,
        )

    def _client(self, asynchronous: bool) -> Any:
        # an async client is bound to the event loop it first ran on
        slot: Any = asyncio.get_running_loop() if asynchronous else "sync"
        client = self._clients.get(slot)
        if client is None:
            with self._lock:
                client = self._clients.get(slot)
                if client is None:
                    if asynchronous:
                        self._clients = {k: v for k, v in self._clients.items() if k == "sync" or not k.is_closed()}
                    client = self._clients[slot] = self._make_client(asynchronous)
        return client

    def prepare(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> tuple[dict[str, Any], list[ToolSpec]]:
        """The provider request this model would send for these arguments (nothing is sent)."""
        specs = tool_specs(tools)
        return self._build(as_messages(messages), specs, tool_choice, {**self.params, **params}), specs

    def complete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        request, specs = self.prepare(messages, tools=tools, tool_choice=tool_choice, **params)
        client = self._client(False)
        started = time.perf_counter()
        attempt = 0
        while True:
            try:
                response = self._send(client, request)
                break
            except ModelError:
                raise
            except Exception as exc:  # noqa: BLE001 - an SDK failure, classified below
                error = self._error(exc, request, started, attempt)
            if not self._again(error, attempt):
                raise error  # outside the handler: the SDK's exception (which may quote the key) is not chained
            time.sleep(self._delay(error, attempt))
            attempt += 1
        return self._turn(request, response, specs, started)

    async def acomplete(
        self, messages: Sequence[Message], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        request, specs = self.prepare(messages, tools=tools, tool_choice=tool_choice, **params)
        client = self._client(True)
        started = time.perf_counter()
        attempt = 0
        while True:
            try:
                response = await self._asend(client, request)
                break
            except ModelError:
                raise
            except Exception as exc:  # noqa: BLE001 - an SDK failure, classified below
                error = self._error(exc, request, started, attempt)
            if not self._again(error, attempt):
                raise error  # outside the handler: the SDK's exception (which may quote the key) is not chained
            await asyncio.sleep(self._delay(error, attempt))
            attempt += 1
        return self._turn(request, response, specs, started)

    def _again(self, error: ModelError, attempt: int) -> bool:
        if error.retry_after is not None and error.retry_after > MAX_RETRY_AFTER:
            return False  # told to come back much later: report it now (the OpenAI SDK does the same)
        return not self.sdk_retries and error.kind in _RETRIED_KINDS and attempt < self.max_retries

    @staticmethod
    def _delay(error: ModelError, attempt: int) -> float:
        if error.retry_after is not None and 0 <= error.retry_after <= MAX_RETRY_AFTER:
            return error.retry_after
        return min(0.5 * 2**attempt, 8.0)

    def _turn(
        self, request: dict[str, Any], response: dict[str, Any], specs: list[ToolSpec], started: float
    ) -> ModelTurn:
        secrets = self._secrets()
        # read from the masked answer (a key echoed back never reaches the text), in valid Unicode only
        response = mask(replace_surrogates(response), secrets)
        turn = self._read(response, specs)
        turn.request = mask(request, secrets)
        turn.response = response
        turn.model = self.id
        turn.latency_ms = (time.perf_counter() - started) * 1000.0
        return turn

    def _error(self, exc: BaseException, request: dict[str, Any], started: float, attempt: int) -> ModelError:
        failure = self._failure(exc) or unrecognised_failure(exc)
        kind = failure_kind(failure, exc)
        secrets = self._secrets()
        retries = self.max_retries if self.sdk_retries else attempt
        hint = _HINTS.get(kind, "").format(
            env=" or ".join(self.key_env) or "the provider's credentials",
            model=self.name,
            retries=retries,
            timeout=self.timeout,
            where=self._where(),
        )
        said = failure.message or str(exc) or type(exc).__name__
        status = f" (HTTP {failure.status})" if failure.status else ""
        message = scrub_text(
            f"{self.provider} model '{self.name}': {kind.replace('_', ' ')}{status}: {said}"
            + (f" — {hint}" if hint else ""),
            secrets,
        )
        message = replace_surrogates(message)  # a provider's message may quote the model's text
        turn = ModelTurn(
            request=mask(request, secrets),
            model=self.id,
            latency_ms=(time.perf_counter() - started) * 1000.0,
            stop_reason="error",
        )
        return ModelError(
            message,
            kind=kind,
            provider=self.provider,
            model=self.name,
            status_code=failure.status,
            retry_after=retry_after(failure.headers),
            turn=turn,
        )

    def _tool_choice(self, tool_choice: Any, specs: list[ToolSpec]) -> Any:
        """``tool_choice`` in this provider's form (None: send none)."""
        what, choice = choice_kind(tool_choice)
        if what is None or not specs:  # a tool choice without tools is an error at every provider
            return None
        if what == "none":
            if self.none_choice is None:
                raise ValueError(
                    f"{self.provider} model '{self.name}': the provider has no tool_choice 'none'; "
                    "offer no tools instead"
                )
            return self.none_choice
        return tool_choice_to_provider(choice, self.wire)

    def _where(self) -> str:
        """Where requests go, as shown to users (credentials in ``base_url`` masked)."""
        return mask_url(self.base_url) if self.base_url else f"the {self.provider} API"

    def __repr__(self) -> str:
        where = f" at {self._where()}" if self.base_url else ""
        return f"<{type(self).__name__} {self.id}{where}>"
