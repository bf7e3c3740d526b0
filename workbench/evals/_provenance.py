"""What a saved report records about how it was made: the models (ids and parameters, never keys),
each variant's tool specs and their hash, the suite, the run's settings, package versions and time."""

from __future__ import annotations

import functools
import hashlib
import json
import platform
from typing import Any, Iterable, Optional

from workbench.secrets import mask_params, mask_url
from workbench.types import utc_now_iso

#: distributions whose versions a report records when they are installed
_PACKAGES = ("tool-workbench", "pydantic", "pandas", "openai", "anthropic", "google-genai", "boto3", "mcp", "bfcl-eval")


def specs_hash(specs: list[dict[str, Any]]) -> str:
    """A stable hash of tool spec dicts (key order does not matter): ``sha256:<hex>``."""
    text = json.dumps(specs, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)  # reading package metadata costs ~30 ms; the pytest plugin runs one case at a time
def _installed() -> tuple[tuple[str, str], ...]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return tuple(found.items())


def versions() -> dict[str, str]:
    """Python's version and those of the installed packages that shape a result."""
    return dict(_installed())


def _inner(model: Any) -> Any:
    from workbench.evals._cache import CachedModel

    return model.model if isinstance(model, CachedModel) else model


def describe_model(model: Any, run_params: dict[str, Any]) -> dict[str, Any]:
    """A model's id, class and parameters (its own, then the run's), secret-named ones masked; the
    key is never read here."""
    inner = _inner(model)
    entry: dict[str, Any] = {
        "id": model.id,
        "class": type(inner).__name__,
        "params": mask_params({**(getattr(inner, "params", None) or {}), **run_params}),
    }
    base_url = getattr(inner, "base_url", None)
    if isinstance(base_url, str) and base_url:
        entry["base_url"] = mask_url(base_url)
    return entry


def model_secrets(models: Iterable[Any]) -> list[str]:
    """The keys the models were configured with, to mask wherever they appear (kept in memory only)."""
    found: list[str] = []
    for model in models:
        secrets = getattr(_inner(model), "_secrets", None)
        if callable(secrets):
            found += [s for s in secrets() if isinstance(s, str)]
    return found


def run_provenance(
    models: list[Any],
    variants: dict[str, Any],
    cases: list[Any],
    suite: Optional[Any],
    settings: dict[str, Any],
    params: dict[str, Any],
) -> dict[str, Any]:
    """The keyword arguments :class:`EvalReport` takes to remember how it was made."""
    from workbench.models import tool_specs

    variant_specs = {}
    for name, registry in variants.items():
        specs = [spec.to_json() for spec in tool_specs(registry)]
        variant_specs[name] = {"hash": specs_hash(specs), "specs": specs}
    return {
        "models": [describe_model(m, params) for m in models],
        "variants": variant_specs,
        "suite": {
            "name": getattr(suite, "name", None),
            "path": getattr(suite, "path", None),
            "cases": [case.to_dict() for case in cases],
        },
        "settings": {**settings, "params": mask_params(params)},
        "versions": versions(),
        "created_at": utc_now_iso(),
        "secrets": model_secrets(models),
    }
