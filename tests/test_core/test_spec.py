"""ToolSpec: construction styles, validate(), check_inputs(), build_input(), exports."""

from __future__ import annotations

import json

import pytest

from workbench import ToolInputError, ToolParam, ToolSpec, ToolSpecError, tool

PARAMS = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
    "required": ["q"],
}


def test_three_construction_styles_agree():
    plain = ToolSpec(name="s", description="d", parameters=PARAMS)
    wrapped = ToolSpec(name="s", description="d", parameters={"json": PARAMS})
    styled = ToolSpec(
        name="s",
        description="d",
        inputs=[ToolParam(name="q", type="string"), ToolParam("n", "integer", required=False)],
    )
    assert plain.parameters == wrapped.parameters == PARAMS
    assert styled.parameters == {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["q"],
    }
    assert styled.param_names == ["q", "n"]


def test_provider_shaped_dicts_are_accepted():
    spec = ToolSpec.coerce({"name": "s", "description": "d", "input_schema": PARAMS})
    assert spec.parameters == PARAMS
    spec = ToolSpec.coerce({"name": "s", "description": "d", "inputSchema": PARAMS, "outputSchema": {"type": "object"}})
    assert spec.returns == {"type": "object"}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name="", description="d"), "missing a name"),
        (dict(name="has space", description="d"), "Invalid tool name 'has space'"),
        (dict(name="x" * 65, description="d"), "Invalid tool name"),
        (dict(name="ok", description=""), "missing a description"),
        (
            dict(name="ok", description="d", parameters={"type": "array"}),
            'parameters must be a JSON Schema with "type": "object"',
        ),
        (
            dict(name="ok", description="d", parameters={"type": "object", "properties": {"a": {"type": "float"}}}),
            "ok.a has unsupported type 'float'",
        ),
        (
            dict(name="ok", description="d", parameters={"type": "object", "properties": {"a": {"minimum": "one"}}}),
            r"parameters is not a valid JSON Schema \(Draft 2020-12\) at properties/a/minimum",
        ),
        (
            dict(name="ok", description="d", parameters={"type": "object", "properties": {}, "required": ["ghost"]}),
            "required parameter 'ghost' is not declared",
        ),
        (dict(name="ok", description="d", returns={"type": "decimal"}), "return value has unsupported type 'decimal'"),
    ],
)
def test_validate_names_the_problem(kwargs, message):
    with pytest.raises(ToolSpecError, match=message):
        ToolSpec(**kwargs).validate()


def test_construction_errors_are_tool_spec_errors():
    with pytest.raises(ToolSpecError, match="Invalid ToolSpec: parameters"):
        ToolSpec(name="x", description="d", parameters="not a dict")
    with pytest.raises(ToolSpecError, match="Invalid ToolSpec: bogus"):
        ToolSpec(name="x", bogus=1)
    with pytest.raises(ToolSpecError, match="Expected a ToolSpec or a dict"):
        ToolSpec.coerce(42)


def test_check_inputs_message_names_tool_path_expected_received():
    spec = ToolSpec(
        name="order",
        description="d",
        parameters={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}},
                },
                "note": {"type": "string", "maxLength": 3},
            },
            "required": ["items", "customer"] if False else ["items"],
        },
    )
    with pytest.raises(ToolInputError) as info:
        spec.check_inputs({"items": [{"qty": 1}, {"qty": 0}, {"qty": "2"}], "note": "toolong", "extra": True})
    message = str(info.value)
    assert message.startswith("Invalid input for tool 'order' (4 errors):")
    assert "items[1].qty: expected a number >= 1, received 0 (integer)" in message
    assert "items[2].qty: expected integer, received '2' (string)" in message
    assert "note: expected a string of at most 3 characters, received 'toolong' (string)" in message
    assert "extra: unexpected field" in message
    paths = {e["path"] for e in info.value.errors}
    assert {"$.items[1].qty", "$.items[2].qty", "$.note", "$.extra"} == paths


def test_check_inputs_missing_and_non_dict():
    spec = ToolSpec(name="s", description="d", parameters=PARAMS)
    with pytest.raises(ToolInputError, match="q: required field is missing \\(expected string\\)"):
        spec.check_inputs({})
    with pytest.raises(
        ToolInputError, match=r"\$: expected an object mapping parameter names to values, received \[1, 2\] \(array\)"
    ):
        spec.check_inputs([1, 2])
    with pytest.raises(ToolInputError, match="received null$"):
        spec.check_inputs(None)


def test_function_tool_check_inputs_converts():
    import datetime as dt

    @tool
    def f(day: dt.date, n: int = 1):
        """Doc."""

    assert f.spec.check_inputs({"day": "2026-11-23"}) == {"day": dt.date(2026, 11, 23), "n": 1}
    with pytest.raises(ToolInputError) as info:
        f.spec.check_inputs({"day": "not a date", "n": 1.5, "zzz": 0})
    text = str(info.value)
    assert "Invalid input for tool 'f' (3 errors)" in text
    assert "day: expected a valid date" in text and "received 'not a date' (string)" in text
    assert "n: expected integer, received 1.5 (number)" in text
    assert "zzz: unexpected field (expected one of the parameters (day, n))" in text


def test_schema_allowing_extras():
    spec = ToolSpec(
        name="s", description="d", parameters={"type": "object", "properties": {}, "additionalProperties": True}
    )
    assert spec.check_inputs({"anything": 1}) == {"anything": 1}
    assert spec.build_input(anything=1) == {"anything": 1}


def test_build_input_errors():
    spec = ToolSpec(
        name="get_user",
        description="d",
        parameters={"type": "object", "properties": {"user_id": {"type": "string"}, "x": {"type": "boolean"}}},
    )
    assert spec.build_input("u1", x=True) == {"user_id": "u1", "x": True}
    with pytest.raises(ToolInputError, match="too many positional arguments: expected at most 2"):
        spec.build_input(1, 2, 3)
    with pytest.raises(ToolInputError, match="user_id: given both positionally and by keyword"):
        spec.build_input("u1", user_id="u2")
    with pytest.raises(ToolInputError, match="nope: unexpected keyword argument"):
        spec.build_input(nope=1)


def test_to_schema_to_json_round_trip():
    spec = ToolSpec(
        name="s",
        description="d",
        parameters=PARAMS,
        returns={"type": "string"},
        when_to_use="w",
        idempotent=True,
        timeout=2,
        permission="ask",
    )
    data = spec.to_json()
    json.dumps(data)  # serialisable
    assert data["permission"] == "ask_user" and data["timeout"] == 2.0 and data["inputs"][0]["name"] == "q"
    again = ToolSpec(**{k: v for k, v in data.items() if k != "inputs"})
    assert again == spec
    assert spec.to_schema() == {"name": "s", "description": "d", "parameters": PARAMS, "returns": {"type": "string"}}


def test_check_returns():
    @tool
    def f() -> list[int]:
        """Doc."""

    assert f.spec.check_returns([1, 2]) is None
    assert f.spec.check_returns((1, 2)) is None  # JSON semantics: a tuple is an array
    assert "result[1]" in f.spec.check_returns([1, "x"])
    spec = ToolSpec(name="s", description="d", returns={"type": "object", "required": ["id"]})
    assert spec.check_returns({"id": 1}) is None
    assert "'id' is a required property" in spec.check_returns({})


def test_reprs_escape_html():
    spec = ToolSpec(name="s", description="<script>alert(1)</script>", parameters=PARAMS)
    assert "<script>" not in spec._repr_html_() and "&lt;script&gt;" in spec._repr_html_()
    assert repr(spec) == "ToolSpec(name='s', params=[q: string, n: integer?], returns=any)"


def test_tool_options_reach_the_spec():
    @tool(long_running=True, idempotent=True, permission="deny", timeout=1.5, when_to_use="never")
    def f():
        """Doc."""

    spec = f.spec
    assert (spec.long_running, spec.idempotent, spec.permission.value, spec.timeout, spec.when_to_use) == (
        True,
        True,
        "always_deny",
        1.5,
        "never",
    )
    with pytest.raises(ToolSpecError, match="timeout must be a positive number"):
        tool(timeout=-1)(lambda: None)
    with pytest.raises(ValueError, match="Unknown permission 'sometimes'"):
        tool(permission="sometimes")(lambda: None)


def test_parameters_override_is_validated_and_used():
    @tool(parameters={"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
    def f(**kwargs):
        """Doc."""
        return kwargs

    assert f.spec.check_inputs({"x": 1}) == {"x": 1}
    with pytest.raises(ToolSpecError):
        tool(parameters={"type": "object", "properties": {"x": {"type": 5}}})(lambda x: x)


def test_check_returns_with_an_invalid_returns_schema_reports_instead_of_crashing():
    spec = ToolSpec(name="s", description="d", returns={"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}})
    message = spec.check_returns({"a": 1})
    assert isinstance(message, str) and message


def test_dangling_ref_in_parameters_is_a_spec_error_and_an_error_result():
    from workbench import SequentialExecutor, ToolRegistry

    spec = ToolSpec(
        name="s", description="d", parameters={"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}
    )
    with pytest.raises(ToolSpecError, match="Tool 's': its parameters schema cannot be applied: .*nowhere"):
        spec.check_inputs({"a": 1})
    registry = ToolRegistry(synthetic=True)
    registry.register_spec(spec)
    result = SequentialExecutor(synthetic=True).call(registry, "s", {"a": 1})
    assert result.status == "error" and "cannot be applied" in result.error
