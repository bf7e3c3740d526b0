"""Scoring a model's tool calls against a case's expected calls, by BFCL's AST rules.

The rules are those of BFCL's ``ast_checker`` (``bfcl_eval.eval_checker.ast_eval.ast_checker``):

* a call matches an expected call when the names are equal, every required parameter is present,
  no parameter is unexpected (undeclared, or not among the expected ones), every given value is
  among the acceptable values and every expected parameter is given unless ``""`` ("may be
  omitted") is among its values;
* a value's type is checked against the parameter's schema type first (an integer is accepted,
  and compared as a float, where a number is expected; a bool is never a number); a value whose
  type is that of the acceptable values instead is compared as it is (BFCL's "variable" case);
* strings are compared after BFCL's normalisation (lower case; spaces and ``,./-_*^`` removed;
  ``'`` read as ``"``) — also inside lists and one level of objects;
* lists are compared element by element, objects key by key (an unexpected key fails, a missing
  key fails unless ``""`` is allowed), lists of objects object by object; ``""`` among a list
  parameter's values also accepts ``[]``, and lets any list past the item-type check (as in BFCL);
* a Python tuple is read as a list for a parameter BFCL types ``tuple`` (``x-bfcl-type``), and
  fails the type check anywhere else (as in BFCL);
* without a schema for the tool, arguments are judged by the expectation alone: every argument
  must be an expected one, typed as its expected values are;
* ``order="exact"`` requires the calls in the given order, ``order="any"`` matches each expected
  call, in turn, with the first still unmatched actual call that fits (BFCL's parallel checker);
  the number of calls must be the expected number either way;
* ``expect_no_call``: any call fails — also one whose arguments are not a JSON object, which BFCL's
  runner counts as "no call" (its output-format check drops it). Here a call attempted is a call:
  the agent loop would run it. This is the one documented difference from BFCL's verdicts.

bfcl-eval itself cannot be imported here (its checker module imports every model handler of the
leaderboard and their SDKs), so the rules are restated; ``tests/test_evals/test_bfcl_agreement.py``
scores BFCL's own data with both and requires identical verdicts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from workbench.formats._bfcl_schema import TUPLE_MARK
from workbench.secrets import is_secret_schema

_NORMALISE = re.compile(r"[ ,./\-_*^]")

#: JSON Schema type → the Python type BFCL checks a value against (no type: BFCL's "any", a string)
_PY_TYPES: dict[str, type] = {
    "integer": int,
    "number": float,
    "string": str,
    "boolean": bool,
    "array": list,
    "object": dict,
}
#: a Python value's type → its JSON Schema type (a parameter without a schema is typed by its expected values)
_JSON_TYPES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def normalise_string(text: str) -> str:
    """BFCL's ``standardize_string``: spaces and ``,./-_*^`` removed, lower case, ``'`` → ``"``."""
    return _NORMALISE.sub("", text).lower().replace("'", '"')


def _norm(value: Any) -> Any:
    return normalise_string(value) if type(value) is str else value


@dataclass
class ExpectedCall:
    """One call a case expects: the tool's name and, per argument, the acceptable values."""

    name: str
    arguments: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def coerce(cls, raw: Any) -> "ExpectedCall":
        """From ``{"name": ..., "arguments": {...}}`` or BFCL's ``{name: {...}}``; a non-list
        argument value means that value alone."""
        if isinstance(raw, ExpectedCall):
            return raw
        if not isinstance(raw, Mapping):
            raise TypeError(f"an expected call is {{'name': ..., 'arguments': {{...}}}}, not {raw!r:.80}")
        if "name" in raw:
            name, arguments = raw["name"], raw.get("arguments", {}) or {}
        elif len(raw) == 1:
            ((name, arguments),) = raw.items()
        else:
            raise ValueError(f"an expected call needs a 'name': {dict(raw)!r:.120}")
        if not isinstance(name, str) or not isinstance(arguments, Mapping):
            raise TypeError(f"expected call {dict(raw)!r:.120}: 'name' must be a string and 'arguments' an object")
        return cls(name, {k: list(v) if isinstance(v, list) else [v] for k, v in arguments.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": {k: list(v) for k, v in self.arguments.items()}}


@dataclass
class Verdict:
    """The score of one transcript's calls: passed or not, the one-line reason, and the counts the
    report aggregates (tool selection true/false positives and negatives, arguments)."""

    passed: bool
    reason: str = ""
    error_type: str = ""
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    arguments_ok: Optional[bool] = None


def _fmt_call(call: Mapping[str, Any]) -> str:
    args = found if isinstance(found := call.get("input"), Mapping) else {}
    text = ", ".join(f"{k}={v!r}" for k, v in list(args.items())[:4])
    text = text if len(text) <= 60 else text[:59] + "…"
    return f"{call.get('name', '?')}({text})"


def _param_type(schema: Mapping[str, Any]) -> tuple[type, Optional[type]]:
    """(the type BFCL checks, the item type for arrays) for a parameter's JSON Schema."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    outer = _PY_TYPES.get(kind, str) if isinstance(kind, str) else str
    inner = None
    if outer is list:
        items = found if isinstance(found := schema.get("items"), Mapping) else {}
        item_kind = items.get("type")
        inner = _PY_TYPES.get(item_kind, str) if isinstance(item_kind, str) else str
    return outer, inner


def _answer_type(acceptable: Sequence[Any]) -> Optional[type]:
    return next((type(a) for a in acceptable if a != ""), None)


def _type_ok(value: Any, acceptable: Sequence[Any], outer: type, inner: Optional[type]) -> tuple[bool, bool]:
    """(valid, is_variable), as BFCL's ``type_checker``."""
    answer_type = _answer_type(acceptable)
    is_variable = answer_type is not None and answer_type is not outer
    if type(value) is outer:
        if inner is None:
            return True, is_variable
        values: Any = value  # of type outer: a list
        for candidate in acceptable:  # BFCL: a candidate that is not a list ("", "may be omitted") passes
            if type(candidate) is not list or all(_type_ok(item, candidate, inner, None)[0] for item in values):
                return True, is_variable
        return False, False  # BFCL: a failed item check is final, even for a "variable"
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, False


def _dict_ok(value: Mapping[str, Any], acceptable: Sequence[Any]) -> Optional[str]:
    """None when ``value`` matches one acceptable object, else why not (BFCL's ``dict_checker``)."""
    problem: Optional[str] = "no acceptable object"
    for candidate in acceptable:
        if candidate == "":
            continue
        problem = None
        for key, item in value.items():
            if key not in candidate:
                problem = f"unexpected key {key!r}"
                break
            if _norm(item) not in [_norm(c) for c in candidate[key]]:
                problem = f"{key} {item!r} not in {candidate[key]!r}"
                break
        if problem is None:
            missing = [k for k, v in candidate.items() if k not in value and "" not in v]
            problem = f"missing key {missing[0]!r}" if missing else None
        if problem is None:
            return None
    return problem


def _expected_schema(acceptable: Sequence[Any]) -> dict[str, Any]:
    """The schema a parameter without one is judged by: the JSON type of its first expected value
    (and, for a list, of that list's first item); none when only ``""`` is expected."""
    answer = next((a for a in acceptable if a != ""), None)
    kind = _JSON_TYPES.get(type(answer))
    if kind is None:
        return {}
    if kind == "array" and answer and type(answer[0]) in _JSON_TYPES:
        return {"type": kind, "items": {"type": _JSON_TYPES[type(answer[0])]}}
    return {"type": kind}


def _value_problem(param: str, value: Any, acceptable: list[Any], schema: Mapping[str, Any]) -> Optional[str]:
    if type(value) is tuple and schema.get(TUPLE_MARK) == "tuple":  # BFCL reads a tuple as a list for its tuple type
        value = list(value)
    outer, inner = _param_type(schema)
    if outer is float and type(value) is int:  # BFCL: an integer is fine where a float is expected
        value = float(value)
    ok, is_variable = _type_ok(value, acceptable, outer, inner)
    if not ok:
        return f"{param} has type {type(value).__name__}, expected {schema.get('type', 'any')}"
    if not is_variable:
        if outer is dict:
            problem = _dict_ok(value, acceptable)
            return None if problem is None else f"{param}: {problem}"
        if outer is list and inner is dict:
            for candidate in acceptable:  # BFCL compares lengths first, so "" (len 0) accepts []
                if (
                    isinstance(candidate, (list, str))
                    and len(candidate) == len(value)
                    and all(_dict_ok(v, [c]) is None for v, c in zip(value, candidate))
                ):
                    return None
            return f"{param} {value!r:.80} not in {acceptable!r:.120}"
        if outer is str:
            if normalise_string(value) in [normalise_string(a) for a in acceptable if type(a) is str]:
                return None
            return f"{param} {value!r} not in {acceptable!r}"
        if outer is list:
            wanted = [[_norm(x) for x in a] for a in acceptable if isinstance(a, (list, str))]  # "" → [] as in BFCL
            return None if [_norm(x) for x in value] in wanted else f"{param} {value!r:.80} not in {acceptable!r:.120}"
    if value not in acceptable:
        return f"{param} {value!r} not in {acceptable!r}"
    return None


def call_problem(call: Mapping[str, Any], expected: ExpectedCall, schema: Optional[Mapping[str, Any]]) -> Optional[str]:
    """None when ``call`` (a ToolUse) matches ``expected`` by BFCL's rules, else the reason in a few words
    (prefixed by the tool's name). ``schema`` is the tool's parameters JSON Schema; without one
    (None) the arguments are judged by the expectation alone: each must be an expected one, typed
    as its expected values are."""
    if call.get("name") != expected.name:
        return f"expected {expected.name}, got {call.get('name')}"
    args = call.get("input")
    if not isinstance(args, Mapping):
        return f"{expected.name}: arguments are not a JSON object"
    if schema is None:
        properties = {param: _expected_schema(values) for param, values in expected.arguments.items()}
        schema = {}
    else:
        properties = schema.get("properties", {}) or {}
    for param in schema.get("required", []) or []:
        if param not in args:
            return f"{expected.name}: missing required argument {param}"
    for param, value in args.items():
        if param not in properties or param not in expected.arguments:
            return f"{expected.name}: unexpected argument {param}"
        problem = _value_problem(param, value, expected.arguments[param], properties[param])
        if problem is not None and is_secret_schema(properties[param]) and not problem.startswith(f"{param} has type"):
            problem = f"{param} is not an expected value (a secret: values not shown)"
        if problem is not None:
            return f"{expected.name}: {problem}"
    for param, acceptable in expected.arguments.items():
        if param not in args and "" not in acceptable:
            return f"{expected.name}: missing argument {param}"
    return None


def score_calls(
    calls: Sequence[Mapping[str, Any]],
    expected: Sequence[Any],
    schemas: Optional[Mapping[str, Mapping[str, Any]]] = None,
    *,
    order: str = "any",
    expect_no_call: bool = False,
) -> Verdict:
    """Score ``calls`` (ToolUse dicts, in the order the model made them) against ``expected``.

    ``schemas`` maps a tool name to its parameters JSON Schema; a tool without one (or no
    ``schemas`` at all) has its arguments judged by the expectation alone. ``order`` is ``"any"``
    or ``"exact"``.
    """
    schemas = schemas or {}
    if order not in ("any", "exact"):
        raise ValueError(f"order must be 'any' or 'exact', not {order!r}")
    calls = list(calls)
    called = Counter(str(c.get("name")) for c in calls)
    if expect_no_call:
        if calls:
            return Verdict(
                False,
                f"expected no call, got {', '.join(_fmt_call(c) for c in calls[:3])}",
                "irrelevance",
                false_positives=len(calls),
            )
        return Verdict(True)
    wanted = [ExpectedCall.coerce(e) for e in expected]
    names = Counter(e.name for e in wanted)
    tp = sum((called & names).values())
    counts: dict[str, Any] = dict(
        true_positives=tp, false_positives=sum(called.values()) - tp, false_negatives=sum(names.values()) - tp
    )
    if not calls and wanted:
        return Verdict(False, "no call made; missing call: " + ", ".join(e.name for e in wanted), "no_call", **counts)
    missing = names - called
    if missing:
        return Verdict(False, "missing call: " + ", ".join(sorted(missing.elements())), "wrong_function", **counts)
    if len(calls) != len(wanted):
        extra = ", ".join(sorted((called - names).elements()))  # no call is missing, so some are extra
        return Verdict(
            False,
            f"expected {len(wanted)} call(s), got {len(calls)} (unexpected call: {extra})",
            "wrong_count",
            **counts,
        )
    if order == "exact":
        for call, want in zip(calls, wanted):
            problem = call_problem(call, want, schemas.get(want.name))
            if problem is not None:
                return Verdict(
                    False,
                    problem,
                    "wrong_order" if call.get("name") != want.name else "arguments",
                    arguments_ok=False if call.get("name") == want.name else None,
                    **counts,
                )
        return Verdict(True, arguments_ok=True, **counts)
    matched: set[int] = set()
    for want in wanted:
        problems = []
        for index, call in enumerate(calls):
            if index in matched:
                continue
            problem = call_problem(call, want, schemas.get(want.name))
            if problem is None:
                matched.add(index)
                break
            problems.append(problem)
        else:
            same_name = [p for p in problems if p.startswith(f"{want.name}:")]
            return Verdict(
                False,
                (same_name or problems or [f"missing call: {want.name}"])[0],
                "arguments",
                arguments_ok=False,
                **counts,
            )
    return Verdict(True, arguments_ok=True, **counts)
