"""Keeping keys out of everything serialised: masking known secrets and secret-looking fields."""

from __future__ import annotations

import base64
import json
from typing import Any, Iterable

MASK = "***"

#: field names whose values are credentials wherever they appear (headers, params, configs)
SECRET_FIELDS = frozenset({"api_key", "api-key", "apikey", "authorization", "x-api-key", "x-goog-api-key",
                           "aws_secret_access_key", "aws_session_token", "aws_access_key_id", "secret_key",
                           "session_token", "token", "access_token", "proxy-authorization"})


def mask(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` as JSON with every secret string replaced by ``***``, the values of
    credential-named fields masked, and bytes as base64 text — a copy when anything changes,
    else ``value`` itself."""
    secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
    try:  # the common case, checked at C speed: plain JSON holding no secret and no credential field
        text = json.dumps(value)
    except (TypeError, ValueError):
        return _mask(value, secrets)
    lower = text.lower()
    if any(secret in text for secret in secrets) or any(f'"{name}"' in lower for name in SECRET_FIELDS):
        return _mask(value, secrets)
    return value


def _mask(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {str(k): (MASK if str(k).lower() in SECRET_FIELDS and isinstance(v, str) and v else _mask(v, secrets))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mask(v, secrets) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _mask(dump(mode="json", by_alias=True, exclude_none=True), secrets)
    return _mask(str(value), secrets)


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by ``***``."""
    return mask(str(text), secrets)
