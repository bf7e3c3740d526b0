"""What every exporter shares: the parameters (strict or copied), refusing strict mode."""

from __future__ import annotations

from workbench._json_copy import copy_json
from workbench.formats._common import Schema
from workbench.formats._strict import _STRICT_PROFILES, _strict_schema
from workbench.spec import ToolSpec


def _parameters(spec: ToolSpec, provider: str, strict: bool) -> Schema:
    if strict:
        return _strict_schema(spec.parameters, spec.name, _STRICT_PROFILES[provider])
    return copy_json(spec.parameters)


def _reject_strict(provider: str, strict: bool) -> None:
    if strict:
        raise ValueError(
            f"strict=True is not supported for provider '{provider}' (supported: {', '.join(STRICT_CAPABLE)})"
        )


#: the providers with a strict variant, in the order of the provider table
STRICT_CAPABLE = ("openai", "openai-responses", "anthropic")
