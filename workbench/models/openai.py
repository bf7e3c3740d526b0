"""OpenAI models: Chat Completions (:class:`OpenAIModel`), the Responses API
(:class:`OpenAIResponsesModel`), and any OpenAI-compatible server through ``base_url``
(:class:`OllamaModel` is that for Ollama). Needs the ``openai`` package, imported on first use.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from workbench.formats import format_tool_results, parse_tool_calls, to_provider_format
from workbench.models._base import Message
from workbench.models._sdk_model import (
    BadResponse,
    Failure,
    ProviderModel,
    arguments_text,
    call_names,
    content_text,
    sdk,
    sdk_call,
    status_failure,
    tool_results,
)
from workbench.models._turn import ModelTurn, Usage
from workbench.spec import ToolSpec

#: Chat Completions finish_reason → normalised stop reason
CHAT_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filter",
}

#: Responses ``incomplete_details.reason`` → normalised stop reason
RESPONSES_INCOMPLETE = {"max_output_tokens": "max_tokens", "content_filter": "content_filter"}


class _OpenAIBase(ProviderModel):
    key_env: tuple[str, ...] = ("OPENAI_API_KEY",)
    sdk_retries = True
    none_choice = "none"

    def __init__(
        self,
        model: str,
        *,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        organization: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        strict: bool = False,
        **params: Any,
    ):
        super().__init__(
            model, api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries, strict=strict, **params
        )
        self.organization = organization

    def _make_client(self, asynchronous: bool) -> Any:
        openai = sdk("openai", "openai", self.provider)
        key = self.api_key or ("no-key" if self.base_url else None)  # local servers take any key
        if key is None:
            raise self._missing_key()
        cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
        return cls(
            api_key=key,
            base_url=self.base_url,
            organization=self.organization,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def _failure(self, exc: BaseException) -> Optional[Failure]:
        return status_failure(exc, sdk("openai", "openai", self.provider))

    def _tools(self, specs: list[ToolSpec]) -> list[dict[str, Any]]:
        return [to_provider_format(spec, self.wire, strict=self.strict) for spec in specs]


class OpenAIModel(_OpenAIBase):
    """An OpenAI Chat Completions model — or any OpenAI-compatible server's, with ``base_url``
    (Ollama ``http://localhost:11434/v1``, vLLM, llama.cpp's server, LM Studio).

    The key is ``api_key`` or ``OPENAI_API_KEY`` (any text for a local server). ``params`` are
    Chat Completions parameters sent with every turn (``temperature=0``, ``max_tokens=…``); a
    turn's own params override them. ``stream=True`` streams the answer and assembles it into the
    same :class:`ModelTurn`. ``strict=True`` sends tools in OpenAI's strict mode.
    """

    provider = "openai"
    wire = "openai"

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.name, "messages": chat_messages(messages)}
        if specs:
            request["tools"] = self._tools(specs)
        choice = self._tool_choice(tool_choice, specs)
        if choice is not None:
            request["tool_choice"] = choice
        request.update(params)
        if request.get("stream"):
            request.setdefault("stream_options", {"include_usage": True})
        return request

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            return assemble_chat_stream(
                chunk.model_dump(mode="json", exclude_none=True)
                for chunk in sdk_call(client.chat.completions.create, request)
            )
        return json.loads(sdk_call(client.chat.completions.with_raw_response.create, request).http_response.content)

    async def _asend(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            chunks = [
                chunk.model_dump(mode="json", exclude_none=True)
                async for chunk in await sdk_call(client.chat.completions.create, request)
            ]
            return assemble_chat_stream(chunks)
        raw = await sdk_call(client.chat.completions.with_raw_response.create, request)
        return json.loads(raw.http_response.content)

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        choices = response.get("choices") or [{}]
        message = choices[0].get("message") or {}
        calls = parse_tool_calls("openai", message, tools=specs or None, strict=self.strict)
        reason = choices[0].get("finish_reason")
        stop = "refusal" if message.get("refusal") else CHAT_STOP_REASONS.get(reason, reason)
        usage = response.get("usage") or {}
        return ModelTurn(
            text=message.get("content") or message.get("refusal") or "",
            tool_calls=calls,
            stop_reason=stop or ("tool_use" if calls else "end_turn"),
            usage=Usage(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0),
        )


def chat_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Neutral messages as Chat Completions messages (tool results through ``format_tool_results``)."""
    names = call_names(messages)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            out.extend(format_tool_results("openai", tool_results(message, names)))
        elif role == "assistant":
            item: dict[str, Any] = {"role": "assistant", "content": content_text(message.get("content")) or None}
            calls = message.get("tool_calls") or []
            if calls:
                item["tool_calls"] = [
                    {
                        "id": c["toolUseId"],
                        "type": "function",
                        "function": {"name": c.get("name", ""), "arguments": arguments_text(c.get("input"))},
                    }
                    for c in calls
                ]
            out.append(item)
        else:
            out.append({"role": role, "content": message.get("content", "")})
    return out


def assemble_chat_stream(chunks: Any) -> dict[str, Any]:
    """Streamed ``chat.completion.chunk``s (as dicts) assembled into one ``chat.completion``."""
    head: dict[str, Any] = {}
    text: list[str] = []
    refusal: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    seen = False
    for chunk in chunks:
        seen = True
        head = head or {k: chunk.get(k) for k in ("id", "created", "model", "system_fingerprint") if k in chunk}
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text.append(delta.get("content") or "")
            refusal.append(delta.get("refusal") or "")
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(
                    part.get("index", len(calls)),
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    if not seen:  # an answer that is not a stream of events (a proxy's page) reads as none
        raise BadResponse("the answer carried no chat.completion.chunk (not a Chat Completions stream)")
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(text) or None,
        "refusal": "".join(refusal) or None,
    }
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {
        **head,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


class OpenAIResponsesModel(_OpenAIBase):
    """An OpenAI model through the Responses API (``client.responses.create``).

    System messages become ``instructions``; ``max_tokens`` is sent as ``max_output_tokens``;
    ``stream=True`` streams and keeps the final response. Otherwise as :class:`OpenAIModel`.
    """

    provider = "openai-responses"
    wire = "openai-responses"

    #: how many turns' reasoning items a model remembers (to send them back with their calls)
    REASONING_KEPT = 10_000

    def __init__(self, model: str, **options: Any):
        super().__init__(model, **options)
        self._reasoning: dict[str, list[dict[str, Any]]] = {}

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        names = call_names(messages)
        items: list[dict[str, Any]] = []
        instructions = [content_text(m.get("content")) for m in messages if m["role"] == "system"]
        for message in messages:
            role = message["role"]
            if role == "tool":
                items.extend(format_tool_results("openai-responses", tool_results(message, names)))
            elif role == "assistant":
                calls = message.get("tool_calls") or []
                if calls:  # a reasoning model's calls go back after the reasoning that led to them
                    items.extend(self._reasoning.get(calls[0]["toolUseId"], []))
                text = content_text(message.get("content"))
                if text:
                    items.append({"role": "assistant", "content": text})
                items.extend(
                    {
                        "type": "function_call",
                        "call_id": c["toolUseId"],
                        "name": c.get("name", ""),
                        "arguments": arguments_text(c.get("input")),
                    }
                    for c in message.get("tool_calls") or []
                )
            elif role == "user":
                items.append({"role": "user", "content": message.get("content", "")})
        request: dict[str, Any] = {"model": self.name, "input": items}
        if instructions:
            request["instructions"] = "\n\n".join(instructions)
        if specs:
            request["tools"] = self._tools(specs)
        choice = self._tool_choice(tool_choice, specs)
        if choice is not None:
            request["tool_choice"] = choice
        params = dict(params)
        if "max_tokens" in params:
            params["max_output_tokens"] = params.pop("max_tokens")
        request.update(params)
        return request

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            return _final_response(
                event.model_dump(mode="json", exclude_none=True) for event in sdk_call(client.responses.create, request)
            )
        return json.loads(sdk_call(client.responses.with_raw_response.create, request).http_response.content)

    async def _asend(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            events = [
                event.model_dump(mode="json", exclude_none=True)
                async for event in await sdk_call(client.responses.create, request)
            ]
            return _final_response(events)
        raw = await sdk_call(client.responses.with_raw_response.create, request)
        return json.loads(raw.http_response.content)

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        calls = parse_tool_calls("openai-responses", response, tools=specs or None, strict=self.strict)
        texts, refusals = [], []
        reasoning = [item for item in response.get("output") or [] if item.get("type") == "reasoning"]
        if reasoning and calls:
            self._reasoning[calls[0]["toolUseId"]] = reasoning
            while len(self._reasoning) > self.REASONING_KEPT:
                del self._reasoning[next(iter(self._reasoning))]
        for item in response.get("output") or []:
            if item.get("type") == "message":
                for part in item.get("content") or []:
                    if part.get("type") == "output_text":
                        texts.append(part.get("text") or "")
                    elif part.get("type") == "refusal":
                        refusals.append(part.get("refusal") or "")
        reason: Any = (response.get("incomplete_details") or {}).get("reason")
        if response.get("status") == "incomplete":
            stop = RESPONSES_INCOMPLETE.get(reason, reason or "incomplete")
        else:
            stop = "refusal" if refusals else "tool_use" if calls else "end_turn"
        usage = response.get("usage") or {}
        return ModelTurn(
            text="".join(texts) or "".join(refusals),
            tool_calls=calls,
            stop_reason=stop,
            usage=Usage(usage.get("input_tokens") or 0, usage.get("output_tokens") or 0),
        )


def _final_response(events: Any) -> dict[str, Any]:
    """The response a Responses stream ends with (``response.completed`` / ``incomplete`` / ``failed``)."""
    final: Optional[dict[str, Any]] = None
    for event in events:
        if event.get("type") in ("response.completed", "response.incomplete", "response.failed"):
            final = event.get("response") or {}
    if final is None:
        raise BadResponse("the stream ended without response.completed, .incomplete or .failed")
    return final


class OllamaModel(OpenAIModel):
    """A local model served by Ollama, through its OpenAI-compatible API:
    ``OpenAIModel(model, base_url="http://localhost:11434/v1", api_key="ollama")``.
    ``OLLAMA_HOST`` (``host:port`` or a URL) moves the server."""

    provider = "ollama"
    wire = "openai"
    key_env = ()

    def __init__(self, model: str, *, base_url: Optional[str] = None, api_key: Optional[str] = None, **options: Any):
        if base_url is None:
            host = os.environ.get("OLLAMA_HOST") or "localhost:11434"
            base_url = (host if "://" in host else f"http://{host}").rstrip("/") + "/v1"
        super().__init__(model, base_url=base_url, api_key=api_key or "ollama", **options)

    def _key_secrets(self) -> list[str]:
        return [] if self.api_key == "ollama" else super()._key_secrets()  # the placeholder is no secret
