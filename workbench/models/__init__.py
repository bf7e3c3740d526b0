"""Models in the loop: one interface for real provider SDKs and offline models.

``get("openai:gpt-4.1-mini")`` names a model by ``"provider:model"``; the provider classes import
their SDK (an optional extra) only when constructed. Offline models — :class:`ScriptedModel`,
``SchemaModel``, ``ReplayModel`` — need no network. See :class:`Model` for the message format.
"""

from __future__ import annotations

from typing import Any

from workbench.models._base import Message, Model, as_messages, tool_specs
from workbench.models._cassette import RecordingModel, ReplayModel
from workbench.models._resolve import MODEL_PROVIDERS, resolve_model
from workbench.models._schema_model import SchemaModel
from workbench.models._scripted import ScriptedModel
from workbench.models._turn import ERROR_KINDS, ModelError, ModelTurn, Usage

__all__ = [
    "ERROR_KINDS",
    "Message",
    "Model",
    "ModelError",
    "ModelTurn",
    "RecordingModel",
    "ReplayModel",
    "SchemaModel",
    "ScriptedModel",
    "Usage",
    "as_messages",
    "get",
    "record",
    "tool_specs",
    "MODEL_PROVIDERS",
    "resolve_model",
]


def get(model_id: "str | Model", **options: Any) -> Model:
    """The model named ``"provider:model"`` (``"openai:gpt-4.1-mini"``, ``"anthropic:claude-…"``,
    ``"replay:cassette.json"``), built with ``options`` (``api_key=``, ``base_url=``…). A
    :class:`Model` is returned as it is. The same resolver serves ``run_agent``, ``rerun`` and
    ``run_evals``; the label of an offline model (``scripted:…``, ``schema:…``) is refused with what
    to pass instead."""
    return resolve_model(model_id, **options)


def record(model: "str | Model", path: Any, **options: Any) -> RecordingModel:
    """``model`` (a :class:`Model` or a ``"provider:model"`` string built with ``options``) writing
    every request and its turn into the cassette at ``path`` (started afresh); replay it with
    :class:`ReplayModel`. Secrets are never written."""
    return RecordingModel(get(model, **options), path)
