"""Anthropic Messages models (:class:`AnthropicModel`). Needs the ``anthropic`` package, imported on first use."""

from __future__ import annotations

import json
from typing import Any, Optional

from workbench.formats import format_tool_results, parse_tool_calls, to_provider_format
from workbench.models._base import Message
from workbench.models._sdk_model import (
    BadResponse,
    Failure,
    ProviderModel,
    call_names,
    content_text,
    merge_roles,
    sdk,
    sdk_call,
    status_failure,
    tool_results,
)
from workbench.models._turn import ModelTurn, Usage
from workbench.spec import ToolSpec

#: Anthropic stop_reason → normalised stop reason
STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    "model_context_window_exceeded": "max_tokens",
}

#: why a stream that carried no message (a proxy's page, not server-sent events) is a bad response
_NO_MESSAGE = "the answer carried no message_start (not a Messages stream)"

#: the max_tokens sent when none is given (the Messages API requires one)
DEFAULT_MAX_TOKENS = 4096


class AnthropicModel(ProviderModel):
    """A Claude model through the Messages API.

    The key is ``api_key`` or ``ANTHROPIC_API_KEY``; ``base_url`` points the SDK elsewhere (a proxy,
    a gateway). System messages become ``system``; ``max_tokens`` defaults to 4096; ``stop`` is sent
    as ``stop_sequences``; ``stream=True`` streams through the SDK's ``messages.stream`` and keeps
    its final message. ``strict=True`` sends tools with Anthropic's strict tool use.
    """

    provider = "anthropic"
    wire = "anthropic"
    key_env = ("ANTHROPIC_API_KEY",)
    sdk_retries = True
    none_choice = {"type": "none"}

    #: how many turns' thinking blocks a model remembers (to send them back with their calls)
    THINKING_KEPT = 10_000

    def __init__(self, model: str, **options: Any):
        super().__init__(model, **options)
        self._thinking: dict[str, list[dict[str, Any]]] = {}

    def _make_client(self, asynchronous: bool) -> Any:
        anthropic = sdk("anthropic", "anthropic", self.provider)
        if not self.api_key:
            raise self._missing_key()
        cls = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
        return cls(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=self.max_retries)

    def _failure(self, exc: BaseException) -> Optional[Failure]:
        return status_failure(exc, sdk("anthropic", "anthropic", self.provider))

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        params = dict(params)
        request: dict[str, Any] = {
            "model": self.name,
            "max_tokens": params.pop("max_tokens", DEFAULT_MAX_TOKENS),
            "messages": anthropic_messages(messages, self._thinking),
        }
        system = [content_text(m.get("content")) for m in messages if m["role"] == "system"]
        if system:
            request["system"] = "\n\n".join(system)
        if specs:
            request["tools"] = [to_provider_format(spec, "anthropic", strict=self.strict) for spec in specs]
        choice = self._tool_choice(tool_choice, specs)
        if choice is not None:
            request["tool_choice"] = choice
        if "stop" in params:
            stop = params.pop("stop")
            params["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
        request.update(params)
        return request

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            with sdk_call(client.messages.stream, _without_stream(request)) as stream:
                try:
                    message = stream.get_final_message()
                except AssertionError:  # the SDK asserts that a message arrived
                    raise BadResponse(_NO_MESSAGE) from None
                return message.model_dump(mode="json", exclude_none=True)
        return json.loads(sdk_call(client.messages.with_raw_response.create, request).http_response.content)

    async def _asend(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            async with sdk_call(client.messages.stream, _without_stream(request)) as stream:
                try:
                    message = await stream.get_final_message()
                except AssertionError:
                    raise BadResponse(_NO_MESSAGE) from None
                return message.model_dump(mode="json", exclude_none=True)
        raw = await sdk_call(client.messages.with_raw_response.create, request)
        return json.loads(raw.http_response.content)

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        calls = parse_tool_calls("anthropic", response, tools=specs or None, strict=self.strict)
        content = response.get("content") or []
        text = "".join(b.get("text") or "" for b in content if b.get("type") == "text")
        thinking = [b for b in content if b.get("type") in ("thinking", "redacted_thinking")]
        if thinking and calls:  # with extended thinking, a turn's thinking must come back with its calls
            self._thinking[calls[0]["toolUseId"]] = thinking
            while len(self._thinking) > self.THINKING_KEPT:
                del self._thinking[next(iter(self._thinking))]
        reason: Any = response.get("stop_reason")
        usage = response.get("usage") or {}
        return ModelTurn(
            text=text,
            tool_calls=calls,
            stop_reason=STOP_REASONS.get(reason, reason),
            usage=Usage(usage.get("input_tokens") or 0, usage.get("output_tokens") or 0),
        )


def _without_stream(request: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in request.items() if k != "stream"}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content or [])


def anthropic_messages(
    messages: list[Message], thinking: Optional[dict[str, list[dict[str, Any]]]] = None
) -> list[dict[str, Any]]:
    """Neutral messages as Messages API messages: roles alternate, tool results are user messages
    made by ``format_tool_results``, system messages go to ``system`` (left out here). An assistant
    turn whose first call ``thinking`` knows gets its thinking blocks back in front."""
    thinking = thinking or {}
    names = call_names(messages)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            out.extend(format_tool_results("anthropic", tool_results(message, names)))
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            blocks = list(thinking.get(calls[0].get("toolUseId"), [])) if calls else []
            blocks += _blocks(message.get("content"))
            blocks += [
                {
                    "type": "tool_use",
                    "id": c["toolUseId"],
                    "name": c.get("name", ""),
                    "input": c.get("input") if isinstance(c.get("input"), dict) else {},
                }
                for c in message.get("tool_calls") or []
            ]
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif role == "user":
            out.append({"role": "user", "content": _blocks(message.get("content"))})
    return merge_roles(out)
