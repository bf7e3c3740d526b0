"""Keeping keys out of everything serialised: masking known secrets and secret-looking fields."""

from __future__ import annotations

import base64
from typing import Any, Iterable

MASK = "***"

#: field names whose values are credentials wherever they appear (headers, params, configs)
SECRET_FIELDS = frozenset({"api_key", "api-key", "apikey", "authorization", "x-api-key", "x-goog-api-key",
                           "aws_secret_access_key", "aws_session_token", "aws_access_key_id", "secret_key",
                           "session_token", "token", "access_token", "proxy-authorization"})


def mask(value: Any, secrets: Iterable[str]) -> Any:
    """A JSON-able copy of ``value`` with every secret string replaced by ``***``, the values of
    credential-named fields masked, and bytes as base64 text."""
    secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
    return _mask(value, secrets)


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
