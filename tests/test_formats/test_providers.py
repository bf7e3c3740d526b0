"""Provider formats, checked against the providers' own published types.

OpenAI and Anthropic ship TypedDicts for request params and pydantic models for responses; MCP
ships pydantic models; botocore ships the Bedrock Converse service model; google-genai ships
pydantic models with ``extra="forbid"``. Every exported dict is validated against them, and also
key by key (pydantic ignores unknown keys in TypedDicts, so ``assert_typed_dict`` walks them).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import json
import types
import typing
from typing import Annotated, Any, Literal, Optional, Union

import jsonschema
import pytest
import typing_extensions
from pydantic import BaseModel, Field, TypeAdapter

from workbench import providers as P
from workbench._errors import ToolSpecError
from workbench.providers import (
    PROVIDERS,
    format_tool_results,
    normalize_arguments,
    parse_tool_calls,
    to_provider_format,
    tool_choice_to_provider,
)
from workbench.spec import ToolSpec
from workbench.types import ToolResult

try:  # google-genai is not part of the test extra everywhere; the allow-list check always runs
    from google.genai import types as genai_types
except ImportError:  # pragma: no cover - depends on the machine
    genai_types = None

try:
    import botocore.session
    import botocore.validate

    _BEDROCK = botocore.session.get_session().get_service_model("bedrock-runtime")
except ImportError:  # pragma: no cover
    _BEDROCK = None


# =====================================================================================================
# fixtures: specs built both ways
# =====================================================================================================
class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: Optional[str] = None


class Person(BaseModel):
    name: Annotated[str, Field(min_length=1, description="Full name")]
    address: Address
    tags: list[str] = []
    nickname: Optional[str] = None


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Tree(BaseModel):
    label: str
    children: list["Tree"] = []


def make_booking(
    person: Person,
    mode: Literal["fast", "cheap"],
    when: dt.date,
    seats: Annotated[int, Field(ge=1, le=9)] = 1,
    note: str | None = None,
    color: Color = Color.RED,
    waypoints: list[Point] = [],
    coords: tuple[float, float] = (0.0, 0.0),
    priority: Literal[1, 2, 3] = 2,
) -> list[int]:
    """Book a trip.

    Args:
        person: Who travels.
        mode: Fast or cheap.
        when: Travel date.
        seats: Number of seats.
        note: Free text for the driver.
    """
    return [1]


def free_form(config: dict[str, Any], label: str = "x") -> dict:
    """Store a free-form config.

    Args:
        config: Anything.
    """
    return config


def typed_map(scores: dict[str, int]) -> int:
    """Sum scores."""
    return sum(scores.values())


def plant(tree: Tree) -> str:
    """Plant a tree."""
    return tree.label


def ping() -> str:
    """Ping."""
    return "pong"


WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 1},
        },
        "required": ["city"],
    },
    returns={"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]},
)

BOOKING = ToolSpec.from_function(make_booking)
FREE = ToolSpec.from_function(free_form)
TYPED_MAP = ToolSpec.from_function(typed_map)
TREE = ToolSpec.from_function(plant)
PING = ToolSpec.from_function(ping)
EXPRESSIBLE = [WEATHER, BOOKING, PING]  # strict mode can express these
ALL_SPECS = [WEATHER, BOOKING, FREE, TYPED_MAP, PING]  # every provider but strict/gemini-recursion


# =====================================================================================================
# helpers: validation against the providers' own types
# =====================================================================================================
def _strip(tp: Any) -> tuple[Any, bool | None]:
    """(inner type, required?) with Required/NotRequired/Annotated/ReadOnly peeled off."""
    required = None
    while True:
        origin = typing_extensions.get_origin(tp)
        if origin in (typing_extensions.Required, typing.Required):
            tp, required = typing_extensions.get_args(tp)[0], True
        elif origin in (typing_extensions.NotRequired, typing.NotRequired):
            tp, required = typing_extensions.get_args(tp)[0], False
        elif origin in (typing_extensions.Annotated, typing.Annotated) or origin is getattr(
            typing_extensions, "ReadOnly", None
        ):
            tp = typing_extensions.get_args(tp)[0]
        else:
            return tp, required


def _key_problems(tp: Any, value: Any, where: str) -> list[str]:
    """Keys outside (or required keys missing from) the TypedDicts in ``tp``, recursively."""
    tp, _ = _strip(tp)
    origin = typing_extensions.get_origin(tp)
    if typing_extensions.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: expected a dict for {tp.__name__}, got {type(value).__name__}"]
        hints = typing_extensions.get_type_hints(tp, include_extras=True)
        problems = [f"{where}: unexpected key {k!r} for {tp.__name__}" for k in value if k not in hints]
        for key, hint in hints.items():
            inner, required = _strip(hint)
            if required is None:
                required = tp.__total__
            if key not in value:
                if required:
                    problems.append(f"{where}: missing required key {key!r} of {tp.__name__}")
                continue
            problems += _key_problems(hint, value[key], f"{where}.{key}")
        return problems
    if origin in (Union, types.UnionType):
        options = [_key_problems(arg, value, where) for arg in typing_extensions.get_args(tp)]
        matching = [o for o in options if not o]
        return [] if matching else min(options, key=len)
    if origin is Literal:
        return (
            []
            if value in typing_extensions.get_args(tp)
            else [f"{where}: {value!r} not in {typing_extensions.get_args(tp)}"]
        )
    if origin in (list, tuple, set, frozenset) or (
        origin is not None and getattr(origin, "__name__", "") in ("Iterable", "Sequence")
    ):
        args = typing_extensions.get_args(tp)
        if not isinstance(value, (list, tuple)) or not args:
            return [] if isinstance(value, (list, tuple)) else [f"{where}: expected a list, got {type(value).__name__}"]
        out = []
        for i, item in enumerate(value):
            out += _key_problems(args[0], item, f"{where}[{i}]")
        return out
    if tp is str:
        return [] if isinstance(value, str) else [f"{where}: expected str, got {type(value).__name__}"]
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{where}: expected bool, got {type(value).__name__}"]
    return []


def assert_typed_dict(tp: Any, value: Any) -> None:
    """``value`` validates as ``tp`` with pydantic AND uses no key the TypedDict does not declare."""
    TypeAdapter(tp).validate_python(value)
    problems = _key_problems(tp, value, "$")
    assert not problems, "\n".join(problems)


def assert_model_keys(model: type[BaseModel], value: dict, where: str = "$") -> None:
    """No key in ``value`` that ``model`` (which may ignore extras) does not declare."""
    allowed = set()
    for name, info in model.model_fields.items():
        allowed |= {name, info.alias or name, info.validation_alias if isinstance(info.validation_alias, str) else name}
    unknown = set(value) - allowed
    assert not unknown, f"{where}: keys {unknown} are not fields of {model.__name__}"


_BEDROCK_BLOCKS = {"text": str, "json": object, "image": dict, "toolUse": dict, "toolResult": dict}


def _bedrock_fallback(params: dict) -> None:
    """The parts of the Converse shape these tests use, by hand (when botocore is not installed)."""
    for tool in params.get("toolConfig", {}).get("tools", []):
        assert set(tool) == {"toolSpec"} and set(tool["toolSpec"]) <= {"name", "description", "inputSchema"}
        assert set(tool["toolSpec"]["inputSchema"]) == {"json"}
    choice = params.get("toolConfig", {}).get("toolChoice")
    if choice is not None:
        assert len(choice) == 1 and next(iter(choice)) in ("auto", "any", "tool")
    for message in params["messages"]:
        assert message["role"] in ("user", "assistant")
        for block in message["content"]:
            assert len(block) == 1 and isinstance(block[next(iter(block))], _BEDROCK_BLOCKS[next(iter(block))])
            result = block.get("toolResult")
            if result is not None:
                assert set(result) <= {"toolUseId", "content", "status"} and result["status"] in ("success", "error")
                for part in result["content"]:
                    assert len(part) == 1 and next(iter(part)) in ("text", "json", "image")
                    if "image" in part:
                        assert isinstance(part["image"]["source"]["bytes"], bytes)


def bedrock_validate(operation: str, params: dict) -> None:
    """Validate ``params`` against botocore's Bedrock Runtime model (the AWS SDK's own checker)."""
    if _BEDROCK is None:  # pragma: no cover - botocore ships with boto3, not with the test extra
        _bedrock_fallback(params)
        return
    shape = _BEDROCK.operation_model(operation).input_shape
    report = botocore.validate.ParamValidator().validate(params, shape)
    assert not report.has_errors(), report.generate_report()


GEMINI_KEYS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "propertyOrdering",
}
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def gemini_schema_problems(schema: Any, where: str = "$") -> list[str]:
    """Everything in ``schema`` outside the subset Gemini accepts."""
    if not isinstance(schema, dict):
        return [f"{where}: schema must be an object, got {schema!r}"]
    problems = [f"{where}: key {k!r} is not accepted by Gemini" for k in schema if k not in GEMINI_KEYS]
    if "type" in schema and schema["type"] not in GEMINI_TYPES:
        problems.append(f"{where}: type {schema['type']!r} is not a Gemini type")
    if "enum" in schema and not all(isinstance(v, str) for v in schema["enum"]):
        problems.append(f"{where}: enum values must be strings: {schema['enum']!r}")
    if schema.get("type") == "object" and not schema.get("properties"):
        problems.append(f"{where}: an OBJECT needs properties")
    if schema.get("type") == "array" and not isinstance(schema.get("items"), dict):
        problems.append(f"{where}: an ARRAY needs items")
    if schema.get("format") and schema["format"] not in {"date-time", "enum", "int32", "int64", "float", "double"}:
        problems.append(f"{where}: format {schema['format']!r} is not accepted")
    for name, sub in (schema.get("properties") or {}).items():
        problems += gemini_schema_problems(sub, f"{where}.{name}")
    for r in schema.get("required") or []:
        if r not in (schema.get("properties") or {}):
            problems.append(f"{where}: required {r!r} is not a property")
    if "items" in schema:
        problems += gemini_schema_problems(schema["items"], f"{where}[]")
    for i, member in enumerate(schema.get("anyOf") or []):
        problems += gemini_schema_problems(member, f"{where}.anyOf[{i}]")
    return problems


def walk_objects(schema: Any, where: str = "$"):
    """Yield ``(path, node)`` for every object schema, including inside $defs."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            yield where, schema
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    yield from walk_objects(sub, f"{where}.{key}.{name}")
            elif key in ("items", "additionalProperties"):
                yield from walk_objects(value, f"{where}.{key}")
            elif key in ("anyOf", "oneOf", "allOf"):
                for i, sub in enumerate(value):
                    yield from walk_objects(sub, f"{where}.{key}[{i}]")


def accepts_null(schema: dict, root: dict) -> bool:
    return jsonschema.Draft202012Validator({**schema, "$defs": root.get("$defs", {})}).is_valid(None)


# =====================================================================================================
# to_provider_format — shapes, validated by each provider's types
# =====================================================================================================
def test_providers_tuple_and_unknown_provider():
    assert PROVIDERS == ("openai", "openai-responses", "anthropic", "bedrock", "gemini", "mcp")
    with pytest.raises(ValueError) as info:
        to_provider_format(WEATHER, "cohere")
    for name in PROVIDERS:
        assert name in str(info.value)


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_openai_chat_tool_validates_as_chat_completion_tool_param(spec):
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.shared_params import FunctionDefinition

    out = to_provider_format(spec, "openai")
    assert_typed_dict(ChatCompletionToolParam, out)
    assert_typed_dict(FunctionDefinition, out["function"])
    assert out == {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
    }
    assert "strict" not in out["function"]


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_openai_responses_tool_validates_as_function_tool_param(spec):
    from openai.types.responses import FunctionToolParam

    out = to_provider_format(spec, "openai-responses")
    assert_typed_dict(FunctionToolParam, out)
    assert out == {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": False,
    }


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_anthropic_tool_validates_as_tool_param(spec):
    from anthropic.types import ToolParam

    out = to_provider_format(spec, "anthropic")
    assert_typed_dict(ToolParam, out)
    assert out == {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_bedrock_tool_validates_against_botocore_converse_model(spec):
    out = to_provider_format(spec, "bedrock")
    assert out == {
        "toolSpec": {"name": spec.name, "description": spec.description, "inputSchema": {"json": spec.parameters}}
    }
    bedrock_validate(
        "Converse",
        {
            "modelId": "anthropic.claude-3-haiku",
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "toolConfig": {"tools": [out]},
        },
    )


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_mcp_tool_validates_as_mcp_tool(spec):
    import mcp.types
    from mcp_types import _v2025_11_25 as wire  # the 2025-11-25 wire model: outputSchema must be an object

    out = to_provider_format(spec, "mcp")
    tool = mcp.types.Tool.model_validate(out)
    assert tool.name == spec.name and tool.input_schema == spec.parameters
    wire.Tool.model_validate(out)
    assert_model_keys(mcp.types.Tool, out)
    assert set(out) == {"name", "description", "inputSchema"} | ({"outputSchema"} if spec.returns else set())
    if spec.returns:
        assert out["outputSchema"]["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(out["outputSchema"])


def test_mcp_output_schema_object_is_kept_and_others_are_wrapped_under_result():
    assert to_provider_format(WEATHER, "mcp")["outputSchema"] == WEATHER.returns
    wrapped = to_provider_format(BOOKING, "mcp")["outputSchema"]
    assert wrapped == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
        "required": ["result"],
    }
    assert "outputSchema" not in to_provider_format(ToolSpec(name="n", description="d"), "mcp")


def test_mcp_wrapped_output_schema_keeps_defs_resolvable():
    def people() -> list[Person]:
        """List people."""
        return []

    spec = ToolSpec.from_function(people)
    out = to_provider_format(spec, "mcp")["outputSchema"]
    assert "$defs" in out and "$defs" not in out["properties"]["result"]
    value = {"result": [{"name": "Ada", "address": {"street": "Main"}}]}
    jsonschema.validate(value, out)  # refs resolve from the wrapper's root
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"result": [{"name": "Ada"}]}, out)


def test_exports_are_copies_and_never_touch_the_spec():
    before = json.dumps(BOOKING.parameters, sort_keys=True)
    for provider in PROVIDERS:
        out = to_provider_format(BOOKING, provider)
        json.dumps(out)  # JSON-serialisable
    out = to_provider_format(BOOKING, "openai")
    out["function"]["parameters"]["properties"].clear()
    to_provider_format(BOOKING, "openai", strict=True)
    assert json.dumps(BOOKING.parameters, sort_keys=True) == before


def test_accepts_tools_dicts_and_spec_method():
    from workbench import tool

    wrapped = tool(make_booking)
    assert to_provider_format(wrapped, "anthropic") == to_provider_format(BOOKING, "anthropic")
    as_dict = {
        "name": "lookup",
        "description": "Look up.",
        "parameters": {"json": {"type": "object", "properties": {"q": {"type": "string"}}}},
    }
    assert to_provider_format(as_dict, "bedrock")["toolSpec"]["inputSchema"]["json"]["properties"] == {
        "q": {"type": "string"}
    }
    assert WEATHER.to_provider_format("gemini") == to_provider_format(WEATHER, "gemini")
    with pytest.raises(ToolSpecError):
        to_provider_format(42, "openai")


def test_strict_is_refused_for_providers_without_a_strict_mode():
    for provider in ("bedrock", "gemini", "mcp"):
        with pytest.raises(ValueError, match="strict"):
            to_provider_format(WEATHER, provider, strict=True)


# =====================================================================================================
# OpenAI strict mode
# =====================================================================================================
@pytest.mark.parametrize("spec", EXPRESSIBLE, ids=lambda s: s.name)
def test_openai_strict_closes_every_object_and_requires_every_property(spec):
    from openai.types.chat import ChatCompletionToolParam

    out = to_provider_format(spec, "openai", strict=True)
    assert_typed_dict(ChatCompletionToolParam, out)
    assert out["function"]["strict"] is True
    params = out["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)
    objects = list(walk_objects(params))
    assert objects
    for where, node in objects:
        assert node.get("additionalProperties") is False, where
        assert node.get("required", []) == list(node.get("properties", {})), where
    assert '"default"' not in json.dumps(params)
    assert "oneOf" not in json.dumps(params) and "prefixItems" not in json.dumps(params)


def test_openai_strict_makes_optional_properties_nullable_and_keeps_required_ones_non_null():
    original = BOOKING.parameters
    params = to_provider_format(BOOKING, "openai", strict=True)["function"]["parameters"]
    for name, sub in params["properties"].items():
        was_required = name in original["required"]
        assert accepts_null(sub, params) is (
            not was_required or accepts_null(original["properties"][name], original)
        ), name
    # nested model inside $defs: Person.nickname / tags were optional, name/address required
    person = params["$defs"]["Person"]
    assert person["required"] == ["name", "address", "tags", "nickname"]
    assert accepts_null(person["properties"]["tags"], params)
    assert not accepts_null(person["properties"]["name"], params)
    assert params["properties"]["note"] == {
        "description": "Free text for the driver.",
        "anyOf": [{"type": "string"}, {"type": "null"}],
    }


def test_openai_strict_described_values_and_supported_keywords():
    params = to_provider_format(WEATHER, "openai", strict=True)["function"]["parameters"]
    days = params["properties"]["days"]
    assert "default: 1" in days["description"]  # the dropped default is kept as a hint
    assert days["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 7}  # numeric bounds are supported
    name = to_provider_format(BOOKING, "openai", strict=True)["function"]["parameters"]["$defs"]["Person"][
        "properties"
    ]["name"]
    assert (
        "minLength" not in name
        and "minLength: 1" in name["description"]
        and name["description"].startswith("Full name")
    )


def test_openai_strict_instances_validate_like_the_original():
    """A value the strict schema accepts (after undoing the nulls) is valid for the original."""
    params = to_provider_format(BOOKING, "openai", strict=True)["function"]["parameters"]
    answer = {
        "person": {"name": "Ada", "address": {"street": "Main", "zip": None}, "tags": None, "nickname": None},
        "mode": "fast",
        "when": "2025-01-02",
        "seats": None,
        "note": None,
        "color": None,
        "waypoints": None,
        "coords": None,
        "priority": 3,
    }
    jsonschema.validate(answer, params)
    restored = normalize_arguments(BOOKING, answer, "openai", strict=True)
    # nulls go for optional non-nullable fields (tags, seats…); nullable ones (zip, nickname, note) keep theirs
    assert restored == {
        "person": {"name": "Ada", "address": {"street": "Main", "zip": None}, "nickname": None},
        "mode": "fast",
        "when": "2025-01-02",
        "note": None,
        "priority": 3,
    }
    jsonschema.validate(restored, BOOKING.parameters)
    assert BOOKING.check_inputs(restored)["seats"] == 1
    assert answer["seats"] is None  # the input was not modified


def test_openai_responses_strict():
    from openai.types.responses import FunctionToolParam

    out = to_provider_format(BOOKING, "openai-responses", strict=True)
    assert_typed_dict(FunctionToolParam, out)
    assert out["strict"] is True
    assert out["parameters"] == to_provider_format(BOOKING, "openai", strict=True)["function"]["parameters"]


def test_openai_strict_inlines_refs_that_carry_siblings_and_keeps_recursion():
    # pydantic puts the parameter description beside $ref: strict mode forbids siblings of $ref
    person = to_provider_format(BOOKING, "openai", strict=True)["function"]["parameters"]["properties"]["person"]
    assert "$ref" not in person and person["description"] == "Who travels." and person["additionalProperties"] is False
    tree = to_provider_format(TREE, "openai", strict=True)["function"]["parameters"]
    children = tree["$defs"]["Tree"]["properties"]["children"]
    assert {"type": "array", "items": {"$ref": "#/$defs/Tree"}} in children["anyOf"]


@pytest.mark.parametrize("fn, field", [(free_form, "config"), (typed_map, "scores")])
def test_openai_strict_refuses_open_objects_naming_tool_and_field(fn, field):
    spec = ToolSpec.from_function(fn)
    for provider in ("openai", "openai-responses"):
        with pytest.raises(ToolSpecError) as info:
            to_provider_format(spec, provider, strict=True)
        message = str(info.value)
        assert f"'{spec.name}'" in message and f"'{field}'" in message and "strict" in message


def test_openai_strict_refuses_nested_open_objects_and_untyped_values():
    class Inner(BaseModel):
        extra: dict[str, Any]

    def nested(inner: Inner) -> None:
        """Nested."""

    with pytest.raises(ToolSpecError, match=r"'nested'.*'\$defs\.Inner\.extra'|'nested'.*'inner\.extra'"):
        to_provider_format(ToolSpec.from_function(nested), "openai", strict=True)

    def anything(value: Any) -> None:
        """Anything."""

    with pytest.raises(ToolSpecError, match="'value'.*any value"):
        to_provider_format(ToolSpec.from_function(anything), "openai", strict=True)

    def bare_list(values: list) -> None:
        """List."""

    with pytest.raises(ToolSpecError, match="'values'.*item type"):
        to_provider_format(ToolSpec.from_function(bare_list), "openai", strict=True)

    closed = ToolSpec(
        name="c",
        description="d",
        parameters={"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
    )
    with pytest.raises(ToolSpecError, match="open object"):
        to_provider_format(closed, "openai", strict=True)


def test_anthropic_strict_closes_objects_but_keeps_optional_fields_optional():
    from anthropic.types import ToolParam

    out = to_provider_format(BOOKING, "anthropic", strict=True)
    assert_typed_dict(ToolParam, out)
    assert out["strict"] is True
    schema = out["input_schema"]
    for where, node in walk_objects(schema):
        assert node["additionalProperties"] is False, where
    assert schema["required"] == BOOKING.parameters["required"]
    seats = schema["properties"]["seats"]
    assert "minimum" not in seats and "minimum: 1" in seats["description"]  # moved into the description
    with pytest.raises(ToolSpecError, match="free_form"):
        to_provider_format(FREE, "anthropic", strict=True)


# =====================================================================================================
# Gemini
# =====================================================================================================
@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
def test_gemini_declaration_uses_only_the_gemini_subset(spec):
    out = to_provider_format(spec, "gemini")
    assert set(out) <= {"name", "description", "parameters"}
    if "parameters" in out:
        assert out["parameters"]["type"] == "object"
        problems = gemini_schema_problems(out["parameters"])
        assert not problems, "\n".join(problems)
        text = json.dumps(out)
        for key in (
            "$ref",
            "$defs",
            "additionalProperties",
            "default",
            "prefixItems",
            "uniqueItems",
            "exclusiveMinimum",
            "title",
            "const",
            "oneOf",
            "allOf",
        ):
            assert f'"{key}"' not in text, key
    if genai_types is not None:
        genai_types.FunctionDeclaration.model_validate(out)  # extra="forbid" all the way down


def test_gemini_rewrites_refs_nullables_enums_and_formats():
    params = to_provider_format(BOOKING, "gemini")["parameters"]
    person = params["properties"]["person"]
    assert person["type"] == "object" and person["description"] == "Who travels."
    assert person["properties"]["address"]["properties"]["zip"] == {"type": "string", "nullable": True}
    assert person["required"] == ["name", "address"]
    assert params["properties"]["note"] == {
        "type": "string",
        "description": "Free text for the driver.",
        "nullable": True,
    }
    assert params["properties"]["mode"] == {
        "type": "string",
        "description": "Fast or cheap.",
        "enum": ["fast", "cheap"],
    }
    assert params["properties"]["color"]["enum"] == ["red", "blue"]
    when = params["properties"]["when"]
    assert when["type"] == "string" and "format" not in when and "format: date" in when["description"]
    priority = params["properties"]["priority"]  # Literal[1, 2, 3]: Gemini enums are strings only
    assert priority["type"] == "integer" and "enum" not in priority and "1, 2, 3" in priority["description"]
    assert params["properties"]["seats"]["minimum"] == 1 and params["properties"]["seats"]["maximum"] == 9
    coords = params["properties"]["coords"]
    assert coords["items"] == {"type": "number"} and coords["minItems"] == coords["maxItems"] == 2
    assert params["properties"]["waypoints"]["items"]["properties"]["x"] == {"type": "integer"}


def test_gemini_handwritten_schema_const_type_lists_and_unions():
    spec = ToolSpec(
        name="odd",
        description="Odd shapes.",
        parameters={
            "type": "object",
            "properties": {
                "kind": {"const": "circle", "title": "Kind"},
                "size": {"type": ["number", "null"], "exclusiveMinimum": 0},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "choice": {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "blob": {"type": "object", "additionalProperties": True},
                "anything": {"type": "array"},
            },
            "required": ["kind"],
            "$defs": {
                "A": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                "B": {"type": "object", "properties": {"b": {"type": "integer"}}},
            },
        },
    )
    params = to_provider_format(spec, "gemini")["parameters"]
    assert not gemini_schema_problems(params)
    props = params["properties"]
    assert props["kind"] == {"type": "string", "enum": ["circle"]}
    assert props["size"] == {"type": "number", "nullable": True}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": True}
    assert props["choice"]["anyOf"][0] == {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["blob"]["type"] == "string" and "JSON object" in props["blob"]["description"]
    assert props["anything"]["type"] == "string" and "JSON array" in props["anything"]["description"]
    if genai_types is not None:
        genai_types.FunctionDeclaration.model_validate(to_provider_format(spec, "gemini"))


def test_gemini_free_form_objects_are_json_text_and_parsed_back():
    out = to_provider_format(FREE, "gemini")
    config = out["parameters"]["properties"]["config"]
    assert config["type"] == "string" and config["description"].startswith("Anything.")
    call = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "free_form", "args": {"config": '{"depth": 2}', "label": "y"}}}
                    ],
                }
            }
        ]
    }
    [use] = parse_tool_calls("gemini", call, tools=[FREE])
    assert use["input"] == {"config": {"depth": 2}, "label": "y"}
    assert FREE.check_inputs(use["input"])["config"] == {"depth": 2}


def test_schema_helpers_are_public_and_match_the_exports():
    assert P.GEMINI_SCHEMA_KEYS == GEMINI_KEYS
    assert P.gemini_schema(BOOKING.parameters, "make_booking") == to_provider_format(BOOKING, "gemini")["parameters"]
    assert (
        P.openai_strict_schema(WEATHER.parameters, "get_weather")
        == to_provider_format(WEATHER, "openai", strict=True)["function"]["parameters"]
    )
    with pytest.raises(ToolSpecError, match="'my_tool'"):
        P.openai_strict_schema({"type": "object", "properties": {"d": {"type": "object"}}}, "my_tool")
    assert P.mcp_output_schema({}) is None


def test_gemini_omits_parameters_for_a_tool_without_any():
    assert to_provider_format(PING, "gemini") == {"name": "ping", "description": "Ping."}


def test_gemini_recursive_schema_raises_naming_tool_and_field():
    with pytest.raises(ToolSpecError) as info:
        to_provider_format(TREE, "gemini")
    message = str(info.value)
    assert "'plant'" in message and "recursive" in message and "tree.children" in message


# =====================================================================================================
# ToolChoice
# =====================================================================================================
CHOICES = [{"auto": {}}, {"any": {}}, {"tool": {"name": "get_weather"}}]


def test_tool_choice_openai():
    from openai.types.chat import ChatCompletionNamedToolChoiceParam, ChatCompletionToolChoiceOptionParam

    got = [tool_choice_to_provider(c, "openai") for c in CHOICES]
    assert got == ["auto", "required", {"type": "function", "function": {"name": "get_weather"}}]
    for value in got:
        TypeAdapter(ChatCompletionToolChoiceOptionParam).validate_python(value)
    assert_typed_dict(ChatCompletionNamedToolChoiceParam, got[2])


def test_tool_choice_openai_responses():
    from openai.types.responses import ToolChoiceFunctionParam
    from openai.types.responses.response_create_params import ToolChoice

    got = [tool_choice_to_provider(c, "openai-responses") for c in CHOICES]
    assert got == ["auto", "required", {"type": "function", "name": "get_weather"}]
    for value in got:
        TypeAdapter(ToolChoice).validate_python(value)
    assert_typed_dict(ToolChoiceFunctionParam, got[2])


def test_tool_choice_anthropic():
    from anthropic.types import ToolChoiceParam

    got = [tool_choice_to_provider(c, "anthropic") for c in CHOICES]
    assert got == [{"type": "auto"}, {"type": "any"}, {"type": "tool", "name": "get_weather"}]
    for value in got:
        assert_typed_dict(ToolChoiceParam, value)


def test_tool_choice_bedrock():
    got = [tool_choice_to_provider(c, "bedrock") for c in CHOICES]
    assert got == CHOICES
    for value in got:
        bedrock_validate(
            "Converse",
            {
                "modelId": "m",
                "messages": [{"role": "user", "content": [{"text": "hi"}]}],
                "toolConfig": {"tools": [to_provider_format(WEATHER, "bedrock")], "toolChoice": value},
            },
        )


def test_tool_choice_gemini():
    got = [tool_choice_to_provider(c, "gemini") for c in CHOICES]
    assert got == [
        {"function_calling_config": {"mode": "AUTO"}},
        {"function_calling_config": {"mode": "ANY"}},
        {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["get_weather"]}},
    ]
    if genai_types is not None:
        for value in got:
            genai_types.ToolConfig.model_validate(value)


@pytest.mark.parametrize("bad", [{}, {"none": {}}, {"tool": {}}, {"auto": {}, "any": {}}, "required", None])
def test_tool_choice_rejects_invalid_choices(bad):
    with pytest.raises(ValueError, match="Invalid ToolChoice"):
        tool_choice_to_provider(bad, "openai")


def test_tool_choice_unknown_provider():
    with pytest.raises(ValueError, match="openai-responses"):
        tool_choice_to_provider({"auto": {}}, "cohere")


# =====================================================================================================
# parse_tool_calls
# =====================================================================================================
OPENAI_COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo", "days": 2}'},
                    },
                    {"id": "call_2", "type": "function", "function": {"name": "ping", "arguments": ""}},
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}
EXPECTED = [
    {"toolUseId": "call_1", "name": "get_weather", "input": {"city": "Oslo", "days": 2}},
    {"toolUseId": "call_2", "name": "ping", "input": {}},
]


def test_parse_openai_sdk_object_dict_message_and_list():
    from openai.types.chat import ChatCompletion

    sdk = ChatCompletion.model_validate(OPENAI_COMPLETION)
    assert parse_tool_calls("openai", sdk) == EXPECTED
    assert parse_tool_calls("openai", OPENAI_COMPLETION) == EXPECTED
    message = OPENAI_COMPLETION["choices"][0]["message"]
    assert parse_tool_calls("openai", message) == EXPECTED
    assert parse_tool_calls("openai", sdk.choices[0].message) == EXPECTED
    assert parse_tool_calls("openai", message["tool_calls"]) == EXPECTED
    assert parse_tool_calls("openai", {"role": "assistant", "content": "no tools", "tool_calls": None}) == []


def test_parse_openai_malformed_arguments_keep_the_call_and_its_valid_siblings():
    calls = [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        {"id": "call_9", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Os'}},
        {"id": "call_8", "type": "function", "function": {"name": "get_weather", "arguments": "[1, 2]"}},
    ]
    uses = parse_tool_calls("openai", calls, tools=[WEATHER])
    assert [use["toolUseId"] for use in uses] == ["call_1", "call_9", "call_8"]
    assert uses[0]["input"] == {"city": "Oslo"}
    assert uses[1]["input"] == '{"city": "Os' and uses[2]["input"] == "[1, 2]"  # kept as received


@pytest.mark.parametrize(
    "provider, response",
    [
        (
            "openai",
            [
                {"id": "call_1", "type": "function", "function": {"name": "shout", "arguments": '{"text": "hi"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "shout", "arguments": '{"text": "h'}},
            ],
        ),
        (
            "openai-responses",
            {
                "output": [
                    {"type": "function_call", "call_id": "call_1", "name": "shout", "arguments": '{"text": "hi"}'},
                    {"type": "function_call", "call_id": "call_2", "name": "shout", "arguments": "not json"},
                ]
            },
        ),
    ],
)
def test_a_malformed_call_gets_an_error_result_and_the_siblings_run(provider, response):
    from workbench import SequentialExecutor, tool

    @tool
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    uses = parse_tool_calls(provider, response, tools=[shout])
    results = SequentialExecutor().run(uses, [shout])
    assert [r.tool_use_id for r in results] == ["call_1", "call_2"]
    assert results[0].status == "success" and results[0].value == "HI"
    assert results[1].status == "error" and results[1].metadata["error_type"] == "ToolInputError"
    message = results[1].metadata["error"]
    assert "'shout'" in message and "not valid JSON" in message
    answers = format_tool_results(provider, results)
    ids = [a.get("tool_call_id") or a.get("call_id") for a in answers]
    assert ids == ["call_1", "call_2"]  # every call id gets an answer to send back
    assert "not valid JSON" in json.dumps(answers[1])


def test_arguments_that_are_json_but_not_an_object_say_so():
    from workbench import SequentialExecutor, tool

    @tool
    def ping(n: int) -> int:
        """Echo."""
        return n

    uses = parse_tool_calls(
        "openai", [{"id": "c", "type": "function", "function": {"name": "ping", "arguments": "[1, 2]"}}]
    )
    [result] = SequentialExecutor().run(uses, [ping])
    assert "the arguments are a JSON array, not an object" in result.metadata["error"]


def test_parse_openai_responses():
    from openai.types.responses import Response

    data = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-4.1",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [to_provider_format(WEATHER, "openai-responses")],
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_a",
                "name": "get_weather",
                "arguments": '{"city": "Rome"}',
                "status": "completed",
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "checking", "annotations": []}],
            },
        ],
    }
    expected = [{"toolUseId": "call_a", "name": "get_weather", "input": {"city": "Rome"}}]
    assert parse_tool_calls("openai-responses", Response.model_validate(data)) == expected
    assert parse_tool_calls("openai-responses", data) == expected
    assert parse_tool_calls("openai-responses", data["output"]) == expected


def test_parse_anthropic():
    from anthropic.types import Message

    data = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_2", "name": "ping", "input": {}},
        ],
    }
    expected = [
        {"toolUseId": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"toolUseId": "toolu_2", "name": "ping", "input": {}},
    ]
    assert parse_tool_calls("anthropic", Message.model_validate(data)) == expected
    assert parse_tool_calls("anthropic", data) == expected
    assert parse_tool_calls("anthropic", data["content"]) == expected


def test_parse_bedrock_converse_response():
    data = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": "Looking it up."},
                    {"toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather", "input": {"city": "Lima"}}},
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
        "metrics": {"latencyMs": 5},
    }
    expected = [{"toolUseId": "tooluse_abc", "name": "get_weather", "input": {"city": "Lima"}}]
    assert parse_tool_calls("bedrock", data) == expected
    assert parse_tool_calls("bedrock", data["output"]["message"]) == expected
    # the assistant message we parsed is itself a valid Converse message (round trip)
    bedrock_validate(
        "Converse",
        {"modelId": "m", "messages": [{"role": "user", "content": [{"text": "hi"}]}, data["output"]["message"]]},
    )


def test_parse_gemini_with_and_without_ids():
    data = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Calling."},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Kyiv"}}},
                        {"functionCall": {"id": "fc-7", "name": "ping"}},
                    ],
                },
                "finishReason": "STOP",
            }
        ]
    }
    uses = parse_tool_calls("gemini", data)
    assert [u["name"] for u in uses] == ["get_weather", "ping"]
    assert uses[0]["input"] == {"city": "Kyiv"} and uses[1]["input"] == {}
    assert uses[0]["toolUseId"].startswith("tooluse_") and uses[1]["toolUseId"] == "fc-7"
    assert parse_tool_calls("gemini", data)[0]["toolUseId"] != uses[0]["toolUseId"]  # fresh ids
    if genai_types is not None:
        sdk = genai_types.GenerateContentResponse.model_validate(data)
        again = parse_tool_calls("gemini", sdk)
        assert [(u["name"], u["input"]) for u in again] == [(u["name"], u["input"]) for u in uses]
        assert again[1]["toolUseId"] == "fc-7"


def test_parse_mcp_tools_call_request():
    import mcp.types

    request = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Nuuk"}},
    }
    mcp.types.CallToolRequest.model_validate(request)
    assert parse_tool_calls("mcp", request) == [{"toolUseId": "3", "name": "get_weather", "input": {"city": "Nuuk"}}]
    [use] = parse_tool_calls("mcp", request["params"])
    assert use["name"] == "get_weather" and use["toolUseId"].startswith("tooluse_")


def test_parse_with_tools_undoes_strict_nulls():
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "arguments": json.dumps({"city": "Oslo", "unit": None, "days": None}),
                },
            }
        ],
    }
    [raw] = parse_tool_calls("openai", message)
    assert raw["input"] == {"city": "Oslo", "unit": None, "days": None}
    [use] = parse_tool_calls("openai", message, tools=[WEATHER], strict=True)
    assert use["input"] == {"city": "Oslo"}
    WEATHER.check_inputs(use["input"])
    [kept] = parse_tool_calls("openai", message, tools=[WEATHER])  # not strict: nothing to undo
    assert kept["input"] == raw["input"]


def test_parse_rejects_unreadable_shapes_and_unknown_providers():
    with pytest.raises(ValueError, match="parse_tool_calls"):
        parse_tool_calls("anthropic", 42)
    with pytest.raises(ValueError, match="bedrock"):
        parse_tool_calls("cohere", {})


# =====================================================================================================
# format_tool_results
# =====================================================================================================
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PNG_B64 = base64.b64encode(PNG).decode("ascii")

OK_TEXT = ToolResult(toolUseId="t1", status="success", content=[{"text": "hi"}], metadata={"tool_name": "x"})
OK_JSON = ToolResult(
    toolUseId="t2",
    status="success",
    content=[{"text": '{"temp": 21.5}'}, {"json": {"temp": 21.5}}],
    metadata={"tool_name": "get_weather"},
)
OK_IMAGE = ToolResult(
    toolUseId="t3",
    status="success",
    content=[{"text": "a chart"}, {"image": {"format": "png", "source": {"bytes": PNG_B64}}}],
    metadata={"tool_name": "plot"},
)
FAILED = ToolResult(
    toolUseId="t4",
    status="error",
    content=[],
    metadata={"tool_name": "x", "error": "division by zero", "error_type": "ZeroDivisionError"},
)
RESULTS = [OK_TEXT, OK_JSON, OK_IMAGE, FAILED]


def test_format_openai_tool_messages():
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam

    out = format_tool_results("openai", RESULTS)
    assert [m["tool_call_id"] for m in out] == ["t1", "t2", "t3", "t4"]
    for message in out:
        assert_typed_dict(ChatCompletionToolMessageParam, message)
        TypeAdapter(ChatCompletionMessageParam).validate_python(message)
    assert out[0]["content"] == "hi"
    assert json.loads(out[1]["content"]) == {"temp": 21.5}  # json block not duplicated
    assert out[2]["content"] == f"a chart\n[image: png, {len(PNG)} bytes]"
    assert "division by zero" in out[3]["content"]


def test_format_openai_responses_items():
    from openai.types.responses import ResponseInputItemParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    out = format_tool_results("openai-responses", RESULTS)
    for item in out:
        assert_typed_dict(FunctionCallOutput, item)
        TypeAdapter(ResponseInputItemParam).validate_python(item)
    assert out[0] == {"type": "function_call_output", "call_id": "t1", "output": "hi"}
    assert "division by zero" in out[3]["output"]
    # images are sent as input_image items (the output list form), not dropped to a "[image: …]" note
    assert out[2]["output"] == [
        {"type": "input_text", "text": "a chart"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}", "detail": "auto"},
    ]
    from openai.types.responses import ResponseFunctionCallOutputItemList

    TypeAdapter(ResponseFunctionCallOutputItemList).validate_python(out[2]["output"])


def test_format_anthropic_single_user_message():
    from anthropic.types import MessageParam, ToolResultBlockParam

    out = format_tool_results("anthropic", RESULTS)
    assert len(out) == 1
    message = out[0]
    assert_typed_dict(MessageParam, message)
    blocks = message["content"]
    for block in blocks:
        assert_typed_dict(ToolResultBlockParam, block)
    assert [b["tool_use_id"] for b in blocks] == ["t1", "t2", "t3", "t4"]
    assert blocks[0] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "hi"}],
        "is_error": False,
    }
    assert blocks[2]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
    }
    assert blocks[3]["is_error"] is True and "division by zero" in blocks[3]["content"][0]["text"]


def test_format_bedrock_single_user_message():
    out = format_tool_results("bedrock", RESULTS)
    assert len(out) == 1
    results = [c["toolResult"] for c in out[0]["content"]]
    assert [r["status"] for r in results] == ["success", "success", "success", "error"]
    assert results[1]["content"] == [{"text": '{"temp": 21.5}'}, {"json": {"temp": 21.5}}]
    assert results[2]["content"][1] == {"image": {"format": "png", "source": {"bytes": PNG}}}
    assert "division by zero" in results[3]["content"][0]["text"]
    assistant = {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": r["toolUseId"], "name": "x", "input": {}}} for r in results],
    }
    bedrock_validate(
        "Converse",
        {
            "modelId": "m",
            "messages": [{"role": "user", "content": [{"text": "go"}]}, assistant, out[0]],
            "toolConfig": {"tools": [to_provider_format(WEATHER, "bedrock")]},
        },
    )


def test_format_gemini_function_responses():
    out = format_tool_results("gemini", RESULTS)
    assert len(out) == 1 and out[0]["role"] == "user"
    parts = out[0]["parts"]
    assert parts[0] == {"functionResponse": {"name": "x", "response": {"output": "hi"}, "id": "t1"}}
    assert parts[1]["functionResponse"]["response"] == {"output": {"temp": 21.5}}
    assert "division by zero" in parts[3]["functionResponse"]["response"]["error"]
    if genai_types is not None:
        genai_types.Content.model_validate(out[0])
    # ids made up by parse_tool_calls are not sent back to Gemini
    generated = ToolResult(
        toolUseId="tooluse_0123456789abcdef01234567",
        status="success",
        content=[{"text": "ok"}],
        metadata={"tool_name": "ping"},
    )
    assert "id" not in format_tool_results("gemini", [generated])[0]["parts"][0]["functionResponse"]
    with pytest.raises(ValueError, match="tool_name"):
        format_tool_results("gemini", [ToolResult(toolUseId="t", status="success", content=[{"text": "x"}])])


def test_format_mcp_call_tool_results():
    import mcp.types

    out = format_tool_results("mcp", RESULTS)
    for item in out:
        mcp.types.CallToolResult.model_validate(item)
        assert_model_keys(mcp.types.CallToolResult, item)
    assert out[0] == {"content": [{"type": "text", "text": "hi"}], "isError": False}
    assert out[1]["structuredContent"] == {"temp": 21.5}
    assert out[2]["content"][1] == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
    assert out[3]["isError"] is True and "division by zero" in out[3]["content"][0]["text"]
    # a non-object result is wrapped under "result", matching the wrapped outputSchema
    listed = ToolResult(
        toolUseId="t5",
        status="success",
        content=[{"text": "[1]"}, {"json": [1]}],
        metadata={"tool_name": "make_booking"},
    )
    [item] = format_tool_results("mcp", [listed], tools=[BOOKING])
    assert item["structuredContent"] == {"result": [1]}
    jsonschema.validate(item["structuredContent"], to_provider_format(BOOKING, "mcp")["outputSchema"])


def test_format_error_message_from_content_when_metadata_has_none():
    err = ToolResult(
        toolUseId="e", status="error", content=[{"text": "Error: boom"}], metadata={"tool_name": "x", "error": "boom"}
    )
    for provider in ("openai", "openai-responses"):
        [message] = format_tool_results(provider, [err])
        assert (message.get("content") or message.get("output")) == "Error: boom"
    bare = ToolResult(toolUseId="e", status="error", metadata={"tool_name": "x"})
    assert format_tool_results("openai", [bare])[0]["content"].startswith("Error")


def test_format_accepts_dicts_and_single_results_and_refuses_in_progress():
    as_dict = OK_TEXT.to_dict()
    assert format_tool_results("openai", as_dict) == format_tool_results("openai", [OK_TEXT])
    running = ToolResult(toolUseId="p", status="in_progress", progress=0.5, metadata={"tool_name": "x"})
    with pytest.raises(ValueError, match="in progress"):
        format_tool_results("anthropic", [running])
    with pytest.raises(ValueError, match="gemini"):
        format_tool_results("cohere", [OK_TEXT])


# =====================================================================================================
# round trip through the executor
# =====================================================================================================
def test_round_trip_parse_execute_format():
    from workbench import SequentialExecutor, ToolRegistry, tool

    @tool
    def get_weather(city: str, days: int = 1) -> dict:
        """Weather.

        Args:
            city: City.
            days: Days.
        """
        return {"city": city, "days": days}

    registry = ToolRegistry([get_weather])
    uses = parse_tool_calls("openai", OPENAI_COMPLETION["choices"][0]["message"]["tool_calls"][:1])
    results = SequentialExecutor().run(uses, registry)
    [message] = format_tool_results("openai", results)
    assert message["tool_call_id"] == "call_1"
    assert json.loads(message["content"]) == {"city": "Oslo", "days": 2}
    [anthropic] = format_tool_results("anthropic", results)
    assert anthropic["content"][0]["tool_use_id"] == "call_1"
