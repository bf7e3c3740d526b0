"""Google Gemini models through ``generateContent`` (:class:`GeminiModel`). Needs the
``google-genai`` package, imported on first use."""

from __future__ import annotations

from typing import Any, Optional

from workbench.formats import format_tool_results, parse_tool_calls, to_provider_format
from workbench.models._base import Message
from workbench.models._sdk_model import Failure, ProviderModel, call_names, content_text, merge_roles, sdk, tool_results
from workbench.models._turn import ModelTurn, Usage
from workbench.spec import ToolSpec

#: Gemini finishReason → normalised stop reason (STOP with calls is tool_use)
STOP_REASONS = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "LANGUAGE": "content_filter",
    "MALFORMED_FUNCTION_CALL": "malformed_tool_call",
    "UNEXPECTED_TOOL_CALL": "malformed_tool_call",
    "OTHER": "other",
    "FINISH_REASON_UNSPECIFIED": "other",
}

#: neutral parameter names → GenerateContentConfig fields
PARAMS = {"max_tokens": "max_output_tokens", "stop": "stop_sequences"}


class GeminiModel(ProviderModel):
    """A Gemini model through the Gemini API's ``generateContent`` (google-genai's ``Client``).

    The key is ``api_key``, else ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``; ``base_url`` points the
    SDK elsewhere. System messages become ``system_instruction``; params go into the request's
    ``config`` (``max_tokens`` as ``max_output_tokens``, ``stop`` as ``stop_sequences``);
    ``stream=True`` streams (``streamGenerateContent``) and joins the chunks into one answer. Rate limits
    and server errors are retried here, honouring ``Retry-After`` (the SDK's retry does not).
    """

    provider = "gemini"
    wire = "gemini"
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    none_choice = {"function_calling_config": {"mode": "NONE"}}

    #: how many calls' thought signatures a model remembers (to send them back with the calls)
    SIGNATURES_KEPT = 10_000

    def __init__(self, model: str, **options: Any):
        super().__init__(model, **options)
        self._signatures: dict[str, str] = {}

    def _make_client(self, asynchronous: bool) -> Any:
        genai = sdk("google.genai", "google-genai", self.provider)
        if not self.api_key:
            raise self._missing_key()
        options: dict[str, Any] = {"timeout": int(self.timeout * 1000)}
        if self.base_url:
            options["base_url"] = self.base_url
        client = genai.Client(api_key=self.api_key, vertexai=False, http_options=options)
        return client.aio if asynchronous else client

    def _failure(self, exc: BaseException) -> Optional[Failure]:
        errors = sdk("google.genai.errors", "google-genai", self.provider)
        if isinstance(exc, errors.APIError):
            details = exc.details.get("error", exc.details) if isinstance(exc.details, dict) else {}
            reasons = " ".join(str(d.get("reason", "")) for d in details.get("details") or [] if isinstance(d, dict))
            headers = getattr(exc.response, "headers", None)
            return Failure(exc.code, f"{exc.status or ''} {reasons}".strip(), str(exc.message or ""), headers)
        if isinstance(exc, errors.UnknownApiResponseError):  # a streamed answer that is not JSON
            return Failure(kind="bad_response", message=str(exc))
        name = type(exc).__name__
        if "Timeout" in name or "Connect" in name:
            return Failure(message=f"{name}: {exc}")
        return None

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        config: dict[str, Any] = {}
        system = [content_text(m.get("content")) for m in messages if m["role"] == "system"]
        if system:
            config["system_instruction"] = "\n\n".join(system)
        if specs:
            config["tools"] = [{"function_declarations": [to_provider_format(s, "gemini") for s in specs]}]
        choice = self._tool_choice(tool_choice, specs)
        if choice is not None:
            config["tool_config"] = choice
        params = dict(params)
        stream = bool(params.pop("stream", False))
        for key, value in params.items():
            config[PARAMS.get(key, key)] = [value] if key == "stop" and isinstance(value, str) else value
        request: dict[str, Any] = {"model": self.name, "contents": gemini_contents(messages, self._signatures)}
        if config:
            request["config"] = config
        if stream:
            request["stream"] = True  # streamGenerateContent; the SDK call takes no such argument
        return request

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            call = {k: v for k, v in request.items() if k != "stream"}
            return assemble_stream([_json(c) for c in client.models.generate_content_stream(**call)])
        return _json(client.models.generate_content(**request))

    async def _asend(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            call = {k: v for k, v in request.items() if k != "stream"}
            return assemble_stream([_json(c) async for c in await client.models.generate_content_stream(**call)])
        return _json(await client.models.generate_content(**request))

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        calls = parse_tool_calls("gemini", response, tools=specs or None)
        candidates = response.get("candidates") or [{}]
        parts = (candidates[0].get("content") or {}).get("parts") or []
        self._remember_signatures(parts, calls)
        text = "".join(p.get("text") or "" for p in parts if not p.get("thought"))
        block = (response.get("promptFeedback") or {}).get("blockReason")
        reason = candidates[0].get("finishReason")
        stop = "content_filter" if block else "tool_use" if calls else STOP_REASONS.get(reason, reason or "end_turn")
        usage = response.get("usageMetadata") or {}
        return ModelTurn(
            text=text,
            tool_calls=calls,
            stop_reason=stop,
            usage=Usage(
                usage.get("promptTokenCount") or 0,
                (usage.get("candidatesTokenCount") or 0) + (usage.get("thoughtsTokenCount") or 0),
            ),
        )

    def _remember_signatures(self, parts: list[dict[str, Any]], calls: list[Any]) -> None:
        """Keep each call's ``thoughtSignature``: Gemini wants it back with the call in later turns."""
        call_parts = [p for p in parts if p.get("functionCall")]
        for part, call in zip(call_parts, calls):
            if part.get("thoughtSignature"):
                self._signatures[call["toolUseId"]] = part["thoughtSignature"]
        while len(self._signatures) > self.SIGNATURES_KEPT:
            del self._signatures[next(iter(self._signatures))]


def _json(response: Any) -> dict[str, Any]:
    data = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("sdkHttpResponse", None)
    return data


def assemble_stream(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Streamed ``GenerateContentResponse`` chunks (JSON) as one response: consecutive plain text
    parts joined, other parts (calls, thoughts) kept, the last finish reason, usage and feedback."""
    parts: list[dict[str, Any]] = []
    out: dict[str, Any] = {}
    finish = None
    for chunk in chunks:
        for key in ("modelVersion", "responseId", "usageMetadata", "promptFeedback"):
            if chunk.get(key):
                out[key] = chunk[key]
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if set(part) == {"text"} and parts and set(parts[-1]) == {"text"}:
                    parts[-1] = {"text": parts[-1]["text"] + part["text"]}
                else:
                    parts.append(dict(part))
            finish = candidate.get("finishReason") or finish
    if chunks and (parts or finish):
        out["candidates"] = [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}]
    return out


def gemini_contents(messages: list[Message], signatures: Optional[dict[str, str]] = None) -> list[dict[str, Any]]:
    """Neutral messages as Gemini ``contents`` (roles ``user``/``model``; tool results as the
    ``functionResponse`` parts ``format_tool_results`` makes, matched to their calls by name;
    a call's thought signature, when ``signatures`` holds one for its id, goes back with it)."""
    signatures = signatures or {}
    names = call_names(messages)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            out.extend(format_tool_results("gemini", tool_results(message, names)))
        elif role == "assistant":
            text = content_text(message.get("content"))
            parts: list[dict[str, Any]] = [{"text": text}] if text else []
            for call in message.get("tool_calls") or []:
                function_call: dict[str, Any] = {
                    "name": call.get("name", ""),
                    "args": call.get("input") if isinstance(call.get("input"), dict) else {},
                }
                if not str(call.get("toolUseId", "")).startswith("tooluse_"):  # ids made up here never reach Gemini
                    function_call["id"] = call["toolUseId"]
                part: dict[str, Any] = {"functionCall": function_call}
                if call.get("toolUseId") in signatures:
                    part["thoughtSignature"] = signatures[call["toolUseId"]]
                parts.append(part)
            if parts:
                out.append({"role": "model", "parts": parts})
        elif role == "user":
            out.append({"role": "user", "parts": [{"text": content_text(message.get("content"))}]})
    return merge_roles(out, key="parts")
