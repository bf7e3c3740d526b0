"""The one model-string resolver: ``"provider:model"`` → a :class:`Model`, for every entry point.

``models.get``, ``run_agent``, ``rerun``, ``run_evals`` and the pytest plugin all turn a model string
into a model here, so a string that works in one works in all. Strings come in three kinds (the
table :data:`MODEL_STRINGS`): a provider SDK (``openai:gpt-4.1-mini``), a cassette
(``replay:path.json``, relative to ``base_dir`` when given) and the labels of offline models built in
code (``scripted:…``, ``schema:…``), which a string cannot re-create: those are refused with what to
pass instead.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any, Optional

from workbench.models._base import Model

#: provider prefix → (module, class) of the model class a provider string builds; imported on use
MODEL_PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("workbench.models.openai", "OpenAIModel"),
    "openai-responses": ("workbench.models.openai", "OpenAIResponsesModel"),
    "ollama": ("workbench.models.openai", "OllamaModel"),
    "anthropic": ("workbench.models.anthropic", "AnthropicModel"),
    "gemini": ("workbench.models.gemini", "GeminiModel"),
    "bedrock": ("workbench.models.bedrock", "BedrockModel"),
}

#: offline model labels (a model's ``provider``) → what to pass instead of the string
_LABELS_ONLY: dict[str, str] = {
    "scripted": "a ScriptedModel is built from its turns in code; pass the ScriptedModel object itself",
    "schema": "a SchemaModel's seed, call_tools and text are not in its label; pass the SchemaModel object itself "
              "(e.g. SchemaModel(seed=0))",
}


def _replay(name: str, base_dir: Optional[Path], options: dict[str, Any]) -> Model:
    from workbench.models._cassette import ReplayModel

    if options:
        raise ValueError(f"a replay model takes no options (got {', '.join(sorted(options))}): "
                         "it answers from its cassette")
    if not name:
        raise ValueError("'replay:' needs a cassette path: 'replay:path/to/cassette.json'")
    path = Path(name)
    return ReplayModel(path if path.is_absolute() or base_dir is None else base_dir / path)


def _known() -> str:
    return ", ".join(sorted([*MODEL_PROVIDERS, "replay"]))


def resolve_model(model: "str | Model", *, base_dir: "str | Path | None" = None, **options: Any) -> Model:
    """The model ``model`` names: a :class:`Model` as it is; ``"provider:model"`` built with ``options``
    (``api_key=``, ``base_url=``…); ``"replay:cassette.json"`` replaying that cassette (a relative path
    is read from ``base_dir``, default the working directory).

    Raises:
        ValueError: the string names no known provider, or is the label of an offline model that a
            string cannot re-create (the message says what to pass instead).
    """
    if isinstance(model, Model):
        return model
    if not isinstance(model, str) or ":" not in model:
        raise ValueError(f"a model is named 'provider:model' (provider one of {_known()}); got {model!r}")
    provider, _, name = model.partition(":")
    if provider in _LABELS_ONLY:
        raise ValueError(f"{model!r} is the label of an offline model, which a string cannot re-create: "
                         f"{_LABELS_ONLY[provider]}")
    if provider == "replay":
        return _replay(name, Path(base_dir) if base_dir is not None else None, options)
    if provider not in MODEL_PROVIDERS:
        raise ValueError(f"unknown model provider {provider!r} in {model!r}; known: {_known()}")
    module, cls = MODEL_PROVIDERS[provider]
    return getattr(import_module(module), cls)(name, **options)
