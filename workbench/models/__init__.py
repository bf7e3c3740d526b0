"""Models in the loop: one interface for real provider SDKs and offline models.

``get("openai:gpt-4.1-mini")`` names a model by ``"provider:model"``; the provider classes import
their SDK (an optional extra) only when constructed. Offline models — :class:`ScriptedModel`,
``SchemaModel``, ``ReplayModel`` — need no network. See :class:`Model` for the message format.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from workbench.models._base import Message, Model, as_messages, tool_specs
from workbench.models._cassette import RecordingModel, ReplayModel
from workbench.models._schema_model import SchemaModel
from workbench.models._scripted import ScriptedModel
from workbench.models._turn import ERROR_KINDS, ModelError, ModelTurn, Usage

__all__ = ["ERROR_KINDS", "Message", "Model", "ModelError", "ModelTurn", "RecordingModel", "ReplayModel",
           "SchemaModel", "ScriptedModel", "Usage", "as_messages", "get", "record", "tool_specs", "MODEL_PROVIDERS"]

#: provider prefix → (module, class) of the model class :func:`get` builds; imported on use
MODEL_PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("workbench.models.openai", "OpenAIModel"),
    "openai-responses": ("workbench.models.openai", "OpenAIResponsesModel"),
    "ollama": ("workbench.models.openai", "OllamaModel"),
    "anthropic": ("workbench.models.anthropic", "AnthropicModel"),
    "gemini": ("workbench.models.gemini", "GeminiModel"),
    "bedrock": ("workbench.models.bedrock", "BedrockModel"),
}


def get(model_id: "str | Model", **options: Any) -> Model:
    """The model named ``"provider:model"`` (``"openai:gpt-4.1-mini"``, ``"anthropic:claude-…"``),
    built with ``options`` (``api_key=``, ``base_url=``…). A :class:`Model` is returned as it is."""
    if isinstance(model_id, Model):
        return model_id
    if not isinstance(model_id, str) or ":" not in model_id:
        raise ValueError(f"a model is named 'provider:model' (one of {', '.join(sorted(MODEL_PROVIDERS))}); "
                         f"got {model_id!r}")
    provider, _, name = model_id.partition(":")
    if provider not in MODEL_PROVIDERS:
        raise ValueError(f"unknown model provider {provider!r} in {model_id!r}; "
                         f"known: {', '.join(sorted(MODEL_PROVIDERS))}")
    module, cls = MODEL_PROVIDERS[provider]
    return getattr(import_module(module), cls)(name, **options)


def record(model: "str | Model", path: Any, **options: Any) -> RecordingModel:
    """``model`` (a :class:`Model` or a ``"provider:model"`` string built with ``options``) writing
    every request and its turn into the cassette at ``path`` (started afresh); replay it with
    :class:`ReplayModel`. Secrets are never written."""
    return RecordingModel(get(model, **options), path)
