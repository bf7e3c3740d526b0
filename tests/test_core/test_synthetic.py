"""Synthetic values for spec-only tools.

A synthetic value must validate against the spec's ``returns`` schema — with Draft 2020-12 and
format checking, as the executor's input validator does — for every satisfiable schema, be the same
for the same tool name and input (in any process), and an unsatisfiable schema must give a clear
error result instead of a library traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import SequentialExecutor, ToolRegistry, ToolSpec, ToolSpecError
from workbench._synthetic import UnsatisfiableSchemaError, synthesize, synthetic_seed

SEEDS = range(50)


def check(schema, value):
    """Valid with format checking (as input validation does) and by the executor's returns check."""
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = [e.message for e in validator.iter_errors(value)]
    assert not errors, (schema, value, errors)
    spec = ToolSpec(name="t", description="d", parameters={"type": "object", "properties": {}}, returns=schema)
    assert spec.check_returns(value) is None, (schema, value)


def spec_only(returns, name="prototype"):
    registry = ToolRegistry(synthetic=True)
    registry.register_spec(
        {
            "name": name,
            "description": "A tool that does not exist yet.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            "returns": returns,
        }
    )
    return registry


# == the reported bugs: each failed 200 of 200 seeds with the hand-written generator =================
REGRESSIONS = {
    "pattern": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
    "pattern-in-object": {
        "type": "object",
        "properties": {"sku": {"type": "string", "pattern": "^sku_[a-f0-9]{6}$"}},
        "required": ["sku"],
    },
    "integer-multipleOf": {"type": "integer", "multipleOf": 7, "minimum": 1, "maximum": 100},
    "integer-multipleOf-unbounded": {"type": "integer", "multipleOf": 15},
    "number-multipleOf": {"type": "number", "multipleOf": 0.25, "minimum": -3, "maximum": 3},
    "number-multipleOf-cents": {"type": "number", "multipleOf": 0.01, "minimum": 0, "maximum": 50},
    "integer-negative-maximum": {"type": "integer", "maximum": -5},
    "number-negative-maximum": {"type": "number", "maximum": -5},
    "integer-negative-exclusiveMaximum": {"type": "integer", "exclusiveMaximum": -5},
    "number-negative-exclusiveMaximum": {"type": "number", "exclusiveMaximum": -5},
    "negative-range": {"type": "number", "minimum": -10.5, "exclusiveMaximum": -10},
}


@pytest.mark.parametrize("name", list(REGRESSIONS))
def test_values_validate_for_the_schemas_the_old_generator_broke(name):
    schema = REGRESSIONS[name]
    for seed in SEEDS:
        check(schema, synthesize(schema, seed))


FORMATS = [
    "date",
    "date-time",
    "time",
    "uuid",
    "email",
    "uri",
    "duration",
    "hostname",
    "ipv4",
    "ipv6",
    "uri-reference",
    "json-pointer",
    "idn-email",
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_formats_validate_with_format_checking(fmt):
    schema = {"type": "string", "format": fmt}
    values = [synthesize(schema, seed) for seed in range(20)]
    for value in values:
        check(schema, value)
    assert len(set(values)) > 10, values  # seeded: not one fixed string per format


def test_readable_formats_look_like_what_a_prototype_expects():
    when = synthesize({"type": "string", "format": "date-time"}, 3)
    assert 2020 <= int(when[:4]) <= 2030 and when.endswith("Z"), when
    assert uuid.UUID(synthesize({"type": "string", "format": "uuid"}, 3)).version == 4
    assert synthesize({"type": "string", "format": "email"}, 3).endswith("@example.com")
    assert synthesize({"type": "string", "format": "time"}, 3).endswith("Z")  # RFC 3339 times carry an offset


STRUCTURES = {
    "defs-ref": {
        "type": "object",
        "properties": {"owner": {"$ref": "#/$defs/User"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}},
        "required": ["owner", "tags"],
        "$defs": {
            "User": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}, "email": {"type": "string", "format": "email"}},
                "required": ["id", "email"],
            },
            "Tag": {"enum": ["red", "green"]},
        },
    },
    "ref-with-siblings": {"$defs": {"N": {"type": "integer"}}, "$ref": "#/$defs/N", "minimum": -3, "maximum": -1},
    "recursive-list": {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["value", "next"],
            }
        },
        "$ref": "#/$defs/Node",
    },
    "recursive-root": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["name", "children"],
    },
    "anyOf-null": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]},
    "type-list-null": {"type": ["integer", "null"], "minimum": 10},
    "prefixItems-closed": {
        "type": "array",
        "prefixItems": [{"type": "number", "maximum": -1}, {"type": "string", "format": "date"}],
        "items": False,
    },
    "prefixItems-rest": {
        "type": "array",
        "prefixItems": [{"const": "head"}],
        "items": {"type": "integer", "multipleOf": 3},
        "minItems": 3,
    },
    "empty": {},
    "true-inside": {
        "type": "object",
        "properties": {"anything": True, "meta": {}, "list": {"type": "array", "items": True}},
        "required": ["anything", "meta", "list"],
    },
    "open-dict": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
    "oneOf-discriminated": {
        "oneOf": [
            {
                "type": "object",
                "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}},
                "required": ["kind", "x"],
            },
            {
                "type": "object",
                "properties": {"kind": {"const": "b"}, "y": {"type": "string"}},
                "required": ["kind", "y"],
            },
        ]
    },
    "allOf-objects": {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"b": {"type": "boolean"}}, "required": ["b"]},
        ]
    },
    "unique-items": {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": 3},
        "uniqueItems": True,
        "minItems": 4,
    },
    "dependentRequired": {
        "type": "object",
        "properties": {"card": {"type": "string"}, "cvv": {"type": "string", "pattern": "^\\d{3}$"}},
        "dependentRequired": {"card": ["cvv"]},
        "required": ["card"],
    },
    "pydantic-style": {
        "type": "object",
        "title": "Weather",
        "properties": {
            "city": {"type": "string", "title": "City"},
            "temperature": {"type": "number", "minimum": -50, "maximum": 60},
            "alerts": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        "required": ["city", "temperature", "pair"],
    },
}


@pytest.mark.parametrize("name", list(STRUCTURES))
def test_structures_validate(name):
    schema = STRUCTURES[name]
    for seed in range(25):
        check(schema, synthesize(schema, seed))


def test_recursive_refs_give_small_values():
    schema = STRUCTURES["recursive-list"]
    depths = []
    for seed in range(25):
        node, depth = synthesize(schema, seed), 0
        while node is not None:
            node, depth = node["next"], depth + 1
        depths.append(depth)
    assert max(depths) <= 4, depths


def test_values_stay_small_and_readable():
    strings = [synthesize({"type": "string"}, seed) for seed in SEEDS]
    assert all(s.isascii() and s.isprintable() and len(s) <= 20 for s in strings), strings
    ints = [synthesize({"type": "integer"}, seed) for seed in SEEDS]
    assert all(abs(i) <= 1000 for i in ints), ints
    obj = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}
    for seed in SEEDS:  # no random undeclared keys, even though the schema allows them
        assert set(synthesize(obj, seed)) <= {"a", "b"}
    lists = [synthesize({"type": "array", "items": {"type": "integer"}}, seed) for seed in SEEDS]
    assert all(len(v) <= 5 for v in lists), lists


# == determinism ====================================================================================
def test_same_input_same_value_different_input_different_value():
    schema = STRUCTURES["pydantic-style"]
    seed = synthetic_seed("weather", {"city": "Oslo", "days": 2})
    assert seed == synthetic_seed("weather", {"days": 2, "city": "Oslo"})  # key order does not matter
    assert synthesize(schema, seed) == synthesize(schema, seed)
    values = [
        json.dumps(synthesize(schema, synthetic_seed("weather", {"city": f"city-{i}"})), sort_keys=True)
        for i in range(20)
    ]
    assert len(set(values)) >= 18, values
    assert synthetic_seed("weather", {"city": "Oslo"}) != synthetic_seed("forecast", {"city": "Oslo"})
    assert synthetic_seed("weather", {"city": "Oslo"}) != synthetic_seed("weather", {"city": "Oslo"}, seed=1)


def test_same_value_in_another_process_whatever_the_hash_seed():
    schema = STRUCTURES["pydantic-style"]
    here = [synthesize(schema, synthetic_seed("weather", {"city": c})) for c in ("Oslo", "Lima")]
    code = (
        "import json, sys\nfrom workbench._synthetic import synthesize, synthetic_seed\n"
        "schema = json.loads(sys.argv[1])\n"
        "print(json.dumps([synthesize(schema, synthetic_seed('weather', {'city': c})) for c in ('Oslo', 'Lima')]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(schema)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )  # this process' hash seed is random
    assert json.loads(out.stdout) == here


def test_importing_the_module_does_not_import_hypothesis():
    code = (
        "import sys, workbench, workbench._synthetic\nprint('hypothesis' in sys.modules, 'jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# == end to end through the registry and executor ===================================================
TRICKY = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{2}\\d{3}$"},
        "step": {"type": "integer", "multipleOf": 5},
        "below": {"type": "integer", "maximum": -10},
        "strictly_below": {"type": "number", "exclusiveMaximum": -0.5},
        "at": {"type": "string", "format": "date-time"},
        "id": {"type": "string", "format": "uuid"},
        "parent": {"anyOf": [{"$ref": "#/$defs/Ref"}, {"type": "null"}]},
    },
    "required": ["code", "step", "below", "strictly_below", "at", "id", "parent"],
    "$defs": {
        "Ref": {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}, "required": ["day"]}
    },
}


def test_executor_gets_valid_synthetic_values_without_returns_mismatch():
    registry = spec_only(TRICKY)
    uses = [{"toolUseId": f"u{i}", "name": "prototype", "input": {"q": f"query {i}"}} for i in range(30)]
    results = SequentialExecutor().run(uses, registry)
    for result in results:
        assert result.status == "success", result
        assert result.metadata["synthetic"] is True
        assert "returns_mismatch" not in result.metadata, result.metadata
        check(TRICKY, result.json)
    again = SequentialExecutor(synthetic=True).run(uses[:3], registry)
    assert [r.json for r in again] == [r.json for r in results[:3]]


UNSATISFIABLE = {
    "empty-range": {"type": "integer", "minimum": 5, "maximum": 1},
    "string-and-integer": {"allOf": [{"type": "string"}, {"type": "integer"}]},
    "not-anything": {"not": {}},
    "items-false": {"type": "array", "items": False, "minItems": 1},
    "required-property-is-false": {"type": "object", "properties": {"a": False}, "required": ["a"]},
}


@pytest.mark.parametrize("name", list(UNSATISFIABLE))
def test_unsatisfiable_returns_schema_is_a_clear_error(name):
    schema = UNSATISFIABLE[name]
    with pytest.raises(
        UnsatisfiableSchemaError, match="Tool 'prototype': its returns schema is unsatisfiable"
    ) as caught:
        synthesize(schema, 1, tool="prototype")
    assert isinstance(caught.value, ToolSpecError)
    assert "hypothesis" not in str(caught.value).lower()
    [result] = SequentialExecutor().run(
        [{"toolUseId": "u", "name": "prototype", "input": {"q": "x"}}], spec_only(schema)
    )
    assert result.status == "error"
    assert result.metadata["error_type"] == "UnsatisfiableSchemaError"
    assert "returns schema is unsatisfiable" in result.error


@pytest.mark.parametrize(
    "schema, fragment",
    [
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}, "required": ["a"]},
            "$ref '#/$defs/Missing' points nowhere",
        ),
        ({"type": "object", "properties": {"a": {"$ref": "#/required"}}, "required": ["a"]}, "not to a schema"),
        ({"type": "string", "pattern": "\\p{L}+"}, "pattern '\\\\p{L}+' is not a valid regular expression"),
    ],
)
def test_a_schema_that_cannot_be_applied_is_a_clear_spec_error(schema, fragment):
    with pytest.raises(ToolSpecError) as caught:
        synthesize(schema, 1, tool="prototype")
    assert str(caught.value).startswith("Tool 'prototype': its returns schema cannot be applied: ")
    assert fragment in str(caught.value)


def test_a_generator_failure_is_a_spec_error_naming_the_tool(monkeypatch):
    import workbench._synthetic_draw as draw_module

    def broken(strategy, seed):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(draw_module, "draw", broken)
    with pytest.raises(
        ToolSpecError, match=r"^Tool 'prototype': no synthetic value could be generated .*\(RuntimeError: boom\)$"
    ):
        synthesize({"type": "integer"}, 1, tool="prototype")


def test_when_readable_narrowing_leaves_nothing_the_exact_schema_is_used():
    # "anything but a string, integer or boolean": the readable stand-in for {} is exactly what is excluded
    schema = {
        "type": "object",
        "properties": {"a": {}},
        "required": ["a"],
        "not": {"properties": {"a": {"type": ["string", "integer", "boolean"]}}},
    }
    nul_key = {
        "type": "object",
        "properties": {"\u0000": {"const": 1}},
        "required": ["\u0000"],
        "additionalProperties": False,
    }
    for seed in range(10):
        check(schema, synthesize(schema, seed))
        assert synthesize(nul_key, seed) == {"\u0000": 1}


def test_threads_get_the_same_values():
    import concurrent.futures

    jobs = [(schema, seed) for schema in (TRICKY, STRUCTURES["pydantic-style"]) for seed in range(12)]
    alone = [synthesize(schema, seed) for schema, seed in jobs]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        assert list(pool.map(lambda job: synthesize(*job), jobs)) == alone


@pytest.fixture(scope="module")
def outside():
    return {seed: synthesize(TRICKY, seed) for seed in range(5)}


@settings(max_examples=5, deadline=None, database=None)
@given(seed=st.integers(0, 4))
def test_synthetic_calls_work_inside_a_hypothesis_test(outside, seed):
    # hypothesis refuses a nested @given: the draw must not run in the test's own context
    assert synthesize(TRICKY, seed) == outside[seed]


# == a fuzzer: random satisfiable schemas =============================================================
PATTERNS = [
    "^[a-z]{3,8}$",
    "^[A-Z]{2}-\\d{2,4}$",
    "^\\d{5}(-\\d{4})?$",
    "^(red|green|blue)$",
    "^[a-f0-9]{8}$",
    "^v\\d+\\.\\d+\\.\\d+$",
]


@st.composite
def integer_schemas(draw):
    step = draw(st.sampled_from([None, 1, 2, 3, 5, 7, 10]))
    witness = draw(st.integers(-500, 500)) * (step or 1)  # a value the schema must accept: satisfiable by construction
    schema = {"type": "integer"}
    if step:
        schema["multipleOf"] = step
    below, above = draw(st.one_of(st.none(), st.integers(0, 40))), draw(st.one_of(st.none(), st.integers(0, 40)))
    if below is not None:
        if draw(st.booleans()):
            schema["exclusiveMinimum"] = witness - below - 1
        else:
            schema["minimum"] = witness - below
    if above is not None:
        if draw(st.booleans()):
            schema["exclusiveMaximum"] = witness + above + 1
        else:
            schema["maximum"] = witness + above
    return schema


@st.composite
def number_schemas(draw):
    step = draw(st.sampled_from([None, 0.5, 0.25, 2]))
    witness = draw(st.integers(-400, 400)) * step if step else draw(st.floats(-1000, 1000))
    schema = {"type": "number"}
    if step:
        schema["multipleOf"] = step
    if draw(st.booleans()):
        schema["minimum"] = witness - draw(st.floats(0, 50))
    if draw(st.booleans()):
        schema["exclusiveMaximum"] = witness + draw(st.floats(0.001, 50))
    return schema


def string_schemas():
    plain = st.builds(
        lambda lo, extra: {"type": "string", "minLength": lo, "maxLength": lo + extra},
        st.integers(0, 12),
        st.integers(0, 12),
    )
    return st.one_of(
        plain,
        st.sampled_from(PATTERNS).map(lambda p: {"type": "string", "pattern": p}),
        st.sampled_from(["date", "date-time", "uuid", "email", "uri"]).map(lambda f: {"type": "string", "format": f}),
    )


LEAVES = st.one_of(
    integer_schemas(),
    number_schemas(),
    string_schemas(),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.just({}),
    st.lists(st.one_of(st.integers(-5, 5), st.text("abc", max_size=3)), min_size=1, max_size=4, unique=True).map(
        lambda e: {"enum": e}
    ),
    st.one_of(st.integers(-9, 9), st.sampled_from(["on", "off"])).map(lambda c: {"const": c}),
)


def _object(props, required_flags, closed):
    schema = {"type": "object", "properties": props, "required": [k for k, r in zip(props, required_flags) if r]}
    if closed:
        schema["additionalProperties"] = False
    return schema


def _compound(children):
    names = st.lists(
        st.sampled_from(["id", "name", "value", "items", "meta", "when"]), min_size=1, max_size=4, unique=True
    )
    return st.one_of(
        st.builds(
            lambda items, lo, extra: {"type": "array", "items": items, "minItems": lo, "maxItems": lo + extra},
            children,
            st.integers(0, 2),
            st.integers(0, 3),
        ),
        st.builds(
            lambda prefix: {"type": "array", "prefixItems": prefix, "items": False},
            st.lists(children, min_size=1, max_size=3),
        ),
        names.flatmap(
            lambda keys: st.builds(
                _object,
                st.fixed_dictionaries({k: children for k in keys}),
                st.lists(st.booleans(), min_size=len(keys), max_size=len(keys)),
                st.booleans(),
            )
        ),
        children.map(lambda child: {"anyOf": [child, {"type": "null"}]}),
    )


SCHEMAS = st.recursive(LEAVES, _compound, max_leaves=8)


def _with_defs(schema):
    return {
        "$defs": {"Inner": schema},
        "type": "object",
        "properties": {"inner": {"$ref": "#/$defs/Inner"}},
        "required": ["inner"],
    }


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=st.one_of(SCHEMAS, SCHEMAS.map(_with_defs)), seed=st.integers(0, 2**32))
def test_fuzz_random_satisfiable_schemas_give_valid_values(schema, seed):
    jsonschema.Draft202012Validator.check_schema(schema)
    check(schema, synthesize(schema, seed))
