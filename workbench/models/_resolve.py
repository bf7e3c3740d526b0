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
        raise ValueError(
            f"a replay model takes no options (got {', '.join(sorted(options))}): it answers from its cassette"
        )
    if not name:
        raise ValueError("'replay:' needs a cassette path: 'replay:path/to/cassette.json'")
    path = Path(name)
    return ReplayModel(path if path.is_absolute() or base_dir is None else base_dir / path)


def _known() -> str:
    return ", ".join(sorted([*MODEL_PROVIDERS, "replay"]))


#: the keys of a model entry (a suite file's ``"model"`` object)
MODEL_ENTRY_KEYS = ("id", "base_url", "params")


def check_model_entry(entry: Any) -> None:
    """Raise ``ValueError`` unless ``entry`` is a model string or a model entry
    ``{"id": "provider:model", "base_url": …, "params": {…}}`` (``base_url`` and ``params`` optional)."""
    if isinstance(entry, str):
        return
    if not isinstance(entry, dict):
        raise ValueError(
            f'a model is a string (\'provider:model\') or an object {{"id", "base_url", "params"}}, '
            f"got {type(entry).__name__}"
        )
    unknown = sorted(set(entry) - set(MODEL_ENTRY_KEYS))
    if unknown:
        raise ValueError(
            f"a model object takes {', '.join(MODEL_ENTRY_KEYS)}; unknown: {', '.join(unknown)} "
            "(keys stay out of files: the provider's environment variable gives them)"
        )
    if not isinstance(entry.get("id"), str) or ":" not in entry["id"]:
        raise ValueError(f'a model object needs an "id" such as "openai:gpt-4.1-mini", got {entry.get("id")!r}')
    if entry.get("base_url") is not None and not isinstance(entry["base_url"], str):
        raise ValueError(f'a model object\'s "base_url" is a URL string, got {entry["base_url"]!r}')
    if not isinstance(entry.get("params", {}), dict):
        raise ValueError(f'a model object\'s "params" is an object of model parameters, got {entry["params"]!r}')


def resolve_model(model: "str | Model | dict", *, base_dir: "str | Path | None" = None, **options: Any) -> Model:
    """The model ``model`` names: a :class:`Model` as it is; ``"provider:model"`` built with ``options``
    (``api_key=``, ``base_url=``…); ``"replay:cassette.json"`` replaying that cassette (a relative path
    is read from ``base_dir``, default the working directory); a model entry ``{"id": …, "base_url":
    …, "params": {…}}`` (a suite file's ``"model"`` object) built from its id with its base URL (an
    explicit ``base_url=`` option wins) and sending its params with every request.

    Raises:
        ValueError: the string names no known provider, or is the label of an offline model that a
            string cannot re-create (the message says what to pass instead).
    """
    if isinstance(model, Model):
        return model
    if isinstance(model, dict):
        check_model_entry(model)
        if model.get("base_url") and "base_url" not in options:
            options = {**options, "base_url": model["base_url"]}
        return resolve_model(model["id"], base_dir=base_dir, **options).with_params(**model.get("params", {}))
    if not isinstance(model, str) or ":" not in model:
        raise ValueError(f"a model is named 'provider:model' (provider one of {_known()}); got {model!r}")
    provider, _, name = model.partition(":")
    if provider in _LABELS_ONLY:
        raise ValueError(
            f"{model!r} is the label of an offline model, which a string cannot re-create: {_LABELS_ONLY[provider]}"
        )
    if provider == "replay":
        return _replay(name, Path(base_dir) if base_dir is not None else None, options)
    if provider not in MODEL_PROVIDERS:
        raise ValueError(f"unknown model provider {provider!r} in {model!r}; known: {_known()}")
    module, cls = MODEL_PROVIDERS[provider]
    return getattr(import_module(module), cls)(name, **options)


def resolve_for_run(
    model: "str | Model | dict", *, base_dir: "str | Path | None" = None, base_url: Optional[str] = None
) -> Model:
    """The model a run from a file or a command line names (the pytest plugin, ``workbench eval``):
    :func:`resolve_model`, with ``base_url`` — a command line's ``--base-url`` — pointing every provider
    model at that server (a cassette has none, so a replay ignores it)."""
    replay = (isinstance(model, str) and model.startswith("replay:")) or (
        isinstance(model, dict) and str(model.get("id", "")).startswith("replay:")
    )
    options = {"base_url": base_url} if base_url and not replay else {}
    return resolve_model(model, base_dir=base_dir, **options)
