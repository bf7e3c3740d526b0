"""Amazon Bedrock models through the Converse API (:class:`BedrockModel`). Needs ``boto3``, imported on first use."""

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
    call_names,
    content_text,
    merge_roles,
    sdk,
    tool_results,
)
from workbench.models._turn import ModelTurn, Usage
from workbench.spec import ToolSpec

#: Converse stopReason → normalised stop reason
STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "model_context_window_exceeded": "max_tokens",
}

#: neutral parameter names → ``inferenceConfig`` fields
INFERENCE = {"max_tokens": "maxTokens", "temperature": "temperature", "top_p": "topP", "stop": "stopSequences"}

#: environment variables whose values are credentials (masked wherever they appear)
SECRET_ENV = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")


class BedrockModel(ProviderModel):
    """A model on Amazon Bedrock through ``bedrock-runtime``'s ``converse``.

    Credentials are boto3's usual chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, a
    profile, an instance role) or the ``aws_access_key_id=`` / ``aws_secret_access_key=`` /
    ``aws_session_token=`` arguments; ``region`` (else ``AWS_REGION`` / ``AWS_DEFAULT_REGION``,
    else us-east-1); ``base_url`` is the ``endpoint_url``. ``max_tokens``, ``temperature``,
    ``top_p`` and ``stop`` go into ``inferenceConfig``, other params to ``converse`` as they are
    (``additionalModelRequestFields=…``); ``stream=True`` uses ``converse_stream`` and joins the
    events into one answer. Throttling is retried here, honouring ``Retry-After``.
    """

    provider = "bedrock"
    wire = "bedrock"
    key_env = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")

    def __init__(
        self,
        model: str,
        *,
        region: Optional[str] = None,
        aws_access_key_id: Optional[str] = None,
        aws_secret_access_key: Optional[str] = None,
        aws_session_token: Optional[str] = None,
        profile: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        api_key: Optional[str] = None,
        **params: Any,
    ):
        if api_key is not None:
            raise TypeError(
                "BedrockModel takes AWS credentials (aws_access_key_id=, aws_secret_access_key=, "
                "aws_session_token=, profile=, or boto3's usual chain), not api_key="
            )
        super().__init__(model, base_url=base_url, timeout=timeout, max_retries=max_retries, **params)
        self.region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        self.profile = profile
        self._credentials = {
            "aws_access_key_id": aws_access_key_id,
            "aws_secret_access_key": aws_secret_access_key,
            "aws_session_token": aws_session_token,
        }

    def _key_secrets(self) -> list[str]:
        given = [self._credentials["aws_secret_access_key"], self._credentials["aws_session_token"]]
        return [s for s in given + [os.environ.get(name) for name in SECRET_ENV] if s]

    def _make_client(self, asynchronous: bool) -> Any:
        boto3 = sdk("boto3", "boto3", self.provider)
        config = sdk("botocore.config", "boto3", self.provider).Config(
            retries={"total_max_attempts": 1, "mode": "standard"},
            read_timeout=self.timeout,
            connect_timeout=min(self.timeout, 10.0),
        )
        session = boto3.Session(profile_name=self.profile) if self.profile else boto3.Session()
        credentials = {k: v for k, v in self._credentials.items() if v}
        return session.client(
            "bedrock-runtime", region_name=self.region, endpoint_url=self.base_url, config=config, **credentials
        )

    def _failure(self, exc: BaseException) -> Optional[Failure]:
        botocore = sdk("botocore.exceptions", "boto3", self.provider)
        if isinstance(exc, botocore.ClientError):
            error = exc.response.get("Error") or {}
            meta = exc.response.get("ResponseMetadata") or {}
            return Failure(
                meta.get("HTTPStatusCode"),
                str(error.get("Code") or ""),
                str(error.get("Message") or ""),
                meta.get("HTTPHeaders"),
            )
        if isinstance(exc, botocore.NoCredentialsError):
            return Failure(
                code="authentication",
                message="no AWS credentials found: set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, use a profile, or pass aws_access_key_id=/aws_secret_access_key=",
            )
        if isinstance(exc, botocore.BotoCoreError):
            return Failure(message=f"{type(exc).__name__}: {exc}")
        if isinstance(exc, sdk("botocore.eventstream", "boto3", self.provider).ParserError):
            return Failure(kind="bad_response", message=f"the answer is not an AWS event stream ({type(exc).__name__})")
        return None

    def _build(
        self, messages: list[Message], specs: list[ToolSpec], tool_choice: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"modelId": self.name, "messages": bedrock_messages(messages)}
        system = [content_text(m.get("content")) for m in messages if m["role"] == "system"]
        if system:
            request["system"] = [{"text": text} for text in system]
        if specs:
            request["toolConfig"] = {"tools": [to_provider_format(s, "bedrock") for s in specs]}
            choice = self._tool_choice(tool_choice, specs)
            if choice is not None:
                request["toolConfig"]["toolChoice"] = choice
        inference: dict[str, Any] = {}
        for key, value in params.items():
            if key == "stream":
                if value:
                    request["stream"] = True  # converse_stream; the SDK call takes no such argument
            elif key in INFERENCE:
                inference[INFERENCE[key]] = [value] if key == "stop" and isinstance(value, str) else value
            else:
                request[key] = value
        if inference:
            request["inferenceConfig"] = {**request.get("inferenceConfig", {}), **inference}
        return request

    def _send(self, client: Any, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stream"):
            call = {k: v for k, v in request.items() if k != "stream"}
            return assemble_stream(client.converse_stream(**call)["stream"])
        response = client.converse(**request)
        meta = response.pop("ResponseMetadata", None) or {}
        if "output" not in response:  # botocore reads a body that is not JSON as an empty answer
            content_type = (meta.get("HTTPHeaders") or {}).get("content-type") or "no content type"
            raise BadResponse(f"the answer is not a Converse response ({content_type}, no 'output')")
        return response

    def _read(self, response: dict[str, Any], specs: list[ToolSpec]) -> ModelTurn:
        calls = parse_tool_calls("bedrock", response, tools=specs or None)
        content = ((response.get("output") or {}).get("message") or {}).get("content") or []
        text = "".join(block.get("text") or "" for block in content if "text" in block)
        reason: Any = response.get("stopReason")
        usage = response.get("usage") or {}
        return ModelTurn(
            text=text,
            tool_calls=calls,
            stop_reason=STOP_REASONS.get(reason, reason),
            usage=Usage(usage.get("inputTokens") or 0, usage.get("outputTokens") or 0),
        )


def assemble_stream(events: Any) -> dict[str, Any]:
    """``ConverseStream`` events as one ``Converse`` response: text deltas joined per block, each
    tool call's input JSON text joined (and parsed — broken JSON stays text), stop reason, usage."""
    blocks: dict[int, dict[str, Any]] = {}
    out: dict[str, Any] = {}
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool_use = (start.get("start") or {}).get("toolUse") or {}
            blocks[start.get("contentBlockIndex", len(blocks))] = {"toolUse": {**tool_use, "input": ""}}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            block = blocks.setdefault(delta.get("contentBlockIndex", 0), {"text": ""})
            part = delta.get("delta") or {}
            if "text" in part:
                block["text"] = block.get("text", "") + part["text"]
            elif "toolUse" in part and "toolUse" in block:
                block["toolUse"]["input"] += (part["toolUse"] or {}).get("input") or ""
        elif "messageStop" in event:
            out["stopReason"] = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            out.update({k: v for k, v in event["metadata"].items() if k in ("usage", "metrics")})
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        if "toolUse" in block:
            raw = block["toolUse"]["input"]
            try:
                block["toolUse"]["input"] = json.loads(raw) if raw else {}
            except ValueError:
                pass  # parse_tool_calls keeps it as the raw text
        content.append(block)
    return {"output": {"message": {"role": "assistant", "content": content}}, **out}


def bedrock_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Neutral messages as Converse messages (content blocks; tool results as the user message
    ``format_tool_results`` makes; roles alternate)."""
    names = call_names(messages)
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "tool":
            out.extend(format_tool_results("bedrock", tool_results(message, names)))
        elif role == "assistant":
            text = content_text(message.get("content"))
            blocks: list[dict[str, Any]] = [{"text": text}] if text else []
            blocks += [
                {
                    "toolUse": {
                        "toolUseId": c["toolUseId"],
                        "name": c.get("name", ""),
                        "input": c.get("input") if isinstance(c.get("input"), dict) else {},
                    }
                }
                for c in message.get("tool_calls") or []
            ]
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif role == "user":
            out.append({"role": "user", "content": [{"text": content_text(message.get("content"))}]})
    return merge_roles(out)
