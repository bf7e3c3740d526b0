"""Deterministic synthetic values for spec-only tools (README.md, "Behaviour worth knowing": spec-only tools).

``synthesize(schema, seed)`` returns a value that validates against ``schema`` (Draft 2020-12, with
format checking), drawn by hypothesis-jsonschema from a seed that ``synthetic_seed`` derives from
the tool name and the canonical input: the same call gives the same value in any process.
Values are kept plausible for a prototype — small numbers, word-like text, readable dates, ids and
e-mails, no undeclared extra keys, short lists (see ``_synthetic_schema`` and ``_synthetic_draw``).

Hypothesis and jsonschema are imported on the first synthetic value, never by ``import workbench``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any, Optional

from workbench._content import canonical_json as _canonical
from workbench._errors import ToolSpecError

__all__ = ["synthesize", "synthetic_seed", "UnsatisfiableSchemaError"]


class UnsatisfiableSchemaError(ToolSpecError):
    """No value can match a spec-only tool's ``returns`` schema, so it has no synthetic value."""


def synthetic_seed(name: str, arguments: Any, seed: int = 0) -> int:
    """A stable integer from (tool name, canonical JSON of the input, seed) — no ``hash()``."""
    text = json.dumps([name, arguments, seed], sort_keys=True, separators=(",", ":"), default=str)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def synthesize(schema: Any, seed: int, *, tool: Optional[str] = None) -> Any:
    """A value valid against ``schema``, the same for the same seed.

    ``tool`` names the tool in error messages. Raises ``UnsatisfiableSchemaError`` when no value
    matches the schema, ``ToolSpecError`` when the schema cannot be used (a ``$ref`` that cannot
    be followed).
    """
    from workbench._synthetic_draw import NoValueFound, draw
    from workbench._synthetic_schema import UnusableSchema

    who = f"Tool '{tool}'" if tool else "A spec-only tool"
    key = _canonical(schema)
    try:
        candidates = _strategies(key)
    except UnusableSchema as exc:
        raise ToolSpecError(f"{who}: its returns schema cannot be applied: {exc}") from None
    failure: Optional[BaseException] = None
    for strategy in candidates:  # readable first, then the exact schema: the last failure tells why
        try:
            return draw(strategy, seed)
        except Exception as exc:  # noqa: BLE001 - NoValueFound, or a schema the generator cannot handle
            failure = exc
    shown = key if len(key) <= 200 else key[:197] + "..."
    if isinstance(failure, NoValueFound) and failure.empty:
        raise UnsatisfiableSchemaError(
            f"{who}: its returns schema is unsatisfiable — no value can match it, so there is no synthetic value "
            f"to return. Fix the spec's returns schema: {shown}"
        )
    if isinstance(failure, NoValueFound):
        raise UnsatisfiableSchemaError(
            f"{who}: its returns schema is unsatisfiable or too constrained — no value matching it was found. "
            f"Fix or loosen the spec's returns schema: {shown}"
        )
    problem = (str(failure).strip().splitlines() or [""])[0][:200]
    raise ToolSpecError(
        f"{who}: no synthetic value could be generated for its returns schema ({type(failure).__name__}: {problem})"
    ) from failure


_PROBE_SEED = 0


@functools.lru_cache(maxsize=256)
def _strategies(key: str) -> tuple:
    """The candidate strategies of one schema (by canonical JSON): readable (if it yields values),
    then exact — each filtered by a Draft 2020-12 validator with format checking."""
    import jsonschema

    from workbench._synthetic_draw import draw, strategy_for
    from workbench._synthetic_schema import prepare, readable

    schema = json.loads(key)
    cls = (
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        if isinstance(schema, dict)
        else jsonschema.Draft202012Validator
    )
    is_valid = cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid
    exact = prepare(schema, draft_2020=cls is jsonschema.Draft202012Validator)
    exact_strategy = strategy_for(exact, is_valid, readable=False)
    readable_strategy = strategy_for(readable(exact), is_valid, readable=True)
    # The narrowing may leave nothing (e.g. a ``not`` excludes the readable stand-ins), and finding
    # that out per call costs hypothesis ~1000 tries. Decide once per schema, with a fixed probe
    # seed, so the choice is the same in every process whatever the calls before.
    try:
        draw(readable_strategy, _PROBE_SEED)
    except Exception:  # noqa: BLE001 - NoValueFound, or anything else: the exact schema it is
        return (exact_strategy,)
    return (readable_strategy, exact_strategy)
