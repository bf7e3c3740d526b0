"""Scoring where it differed from bfcl-eval's checker, and scoring without schemas (issue 27, items 5 and 7).

BFCL's own verdicts on these cases are checked in tests/test_evals/test_bfcl_agreement.py (on BFCL's data,
with these perturbations among others); here each rule is pinned on a small, readable case.
"""

from __future__ import annotations

import pytest

from workbench.evals import load_bfcl, score_calls


def use(name, **arguments):
    return {"toolUseId": name, "name": name, "input": arguments}


INGREDIENTS = {
    "type": "object",
    "properties": {"dish": {"type": "string"}, "ingredients": {"type": "array", "items": {"type": "string"}}},
    "required": ["dish"],
}
OPTIONAL_LIST = [{"name": "recipe", "arguments": {"dish": ["soup"], "ingredients": [""]}}]


@pytest.mark.parametrize("ingredients, passed", [([], True), (["salt"], False), ([1, 2], False)])
def test_an_empty_list_for_an_optional_list_parameter_passes_as_in_bfcl(ingredients, passed):
    # simple_python_353 and others: BFCL reads "" (may be omitted) as the empty list
    verdict = score_calls([use("recipe", dish="soup", ingredients=ingredients)], OPTIONAL_LIST, {"recipe": INGREDIENTS})
    assert verdict.passed is passed, verdict.reason


def test_a_python_tuple_passes_for_bfcls_tuple_type_only():
    suite = load_bfcl("simple_python")
    case = next(c for c in suite if c.id == "simple_python_83")  # coord1, coord2: BFCL "tuple" of floats
    schemas = {s["name"]: s["parameters"] for s in case.tools}
    [expected] = case.expected
    arguments = {k: v[0] for k, v in expected.arguments.items() if v[0] != ""}
    as_tuples = {k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()}
    assert score_calls([use(expected.name, **arguments)], case.expected, schemas).passed
    assert score_calls([use(expected.name, **as_tuples)], case.expected, schemas).passed
    # for a plain array a tuple is the wrong type, as BFCL says
    plain = {"p": {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "number"}}}}}
    verdict = score_calls([use("p", xs=(1.0, 2.0))], [{"name": "p", "arguments": {"xs": [[1.0, 2.0]]}}], plain)
    assert not verdict.passed and verdict.reason == "p: xs has type tuple, expected array"


def test_an_irrelevance_case_fails_any_call_even_with_malformed_arguments():
    # the documented difference: BFCL's runner counts a call whose arguments are not an object as no call
    for arguments in ("[]", "none", [], None):
        call = {"toolUseId": "1", "name": "get_weather", "input": arguments}
        verdict = score_calls([call], [], {}, expect_no_call=True)
        assert not verdict.passed and verdict.error_type == "irrelevance"
    assert score_calls([], [], {}, expect_no_call=True).passed


ORDER = [{"name": "get_order", "arguments": {"order_id": ["A-17"], "verbose": [True, ""], "items": [[1, 2]]}}]


@pytest.mark.parametrize(
    "arguments, passed, reason",
    [
        ({"order_id": "A-17", "items": [1, 2]}, True, ""),
        ({"order_id": "a 17", "items": [1, 2], "verbose": True}, True, ""),  # BFCL's string normalisation
        ({"order_id": "A-17"}, False, "get_order: missing argument items"),
        ({"order_id": "A-18", "items": [1, 2]}, False, "get_order: order_id 'A-18' not in ['A-17']"),
        ({"order_id": "A-17", "items": [1, 2], "extra": 1}, False, "get_order: unexpected argument extra"),
        ({"order_id": 17, "items": [1, 2]}, False, "get_order: order_id has type int, expected string"),
        ({"order_id": "A-17", "items": [1, 3]}, False, "get_order: items [1, 3] not in [[1, 2]]"),
    ],
)
def test_without_schemas_arguments_are_judged_by_the_expectation(arguments, passed, reason):
    for schemas in (None, {}, {"other_tool": {"type": "object", "properties": {}}}):
        verdict = score_calls([use("get_order", **arguments)], ORDER, schemas)
        assert (verdict.passed, verdict.reason) == (passed, reason)
    assert score_calls([use("get_order", **arguments)], ORDER).passed is passed
