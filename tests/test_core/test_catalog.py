"""A catalog of many tools (issue #22): ``ToolRegistry.search`` ranking, and the dashboard / MCP
inspector building a form only for the tool selected."""

from __future__ import annotations

import pytest

from workbench import ToolRegistry, tool


def _tool(name: str, description: str):
    def fn(x: int) -> int:
        return x

    fn.__doc__ = description
    return tool(fn, name=name)


@pytest.fixture
def catalog() -> ToolRegistry:
    return ToolRegistry(
        [
            _tool("send_weather_report", "Email a report."),  # word prefix in the name
            _tool("get_user", "Fetch a user by id; weather not involved."),  # only the description
            _tool("weatherly", "A weather station."),  # name prefix
            _tool("forecast", "Tell the WEATHER for a city."),  # description word
            _tool("weather", "The current weather."),  # exact name
            _tool("stormweather_x", "Unrelated."),  # name contains, not a word start
            _tool("ping", "Check the server."),  # no match
        ]
    )


def test_search_ranks_exact_prefix_name_words_then_description(catalog):
    assert catalog.search("weather") == [
        "weather",
        "weatherly",
        "send_weather_report",
        "stormweather_x",
        "get_user",
        "forecast",
    ]


def test_search_is_case_insensitive_and_limited(catalog):
    assert catalog.search("WEATHER", limit=2) == ["weather", "weatherly"]
    assert catalog.search("Weather")[:3] == ["weather", "weatherly", "send_weather_report"]
    assert catalog.search("weather", limit=0) == []


def test_search_every_word_must_match_somewhere(catalog):
    assert catalog.search("weather report") == ["send_weather_report"]
    assert catalog.search("city weather") == ["forecast"]
    assert catalog.search("nothing like this") == []


def test_search_empty_query_lists_all_in_order(catalog):
    assert catalog.search("") == catalog.list_tools()
    assert catalog.search("  ", limit=3) == catalog.list_tools()[:3]


def test_search_bad_limit_is_a_clear_error(catalog):
    with pytest.raises(ValueError, match="limit"):
        catalog.search("x", limit=-1)


def test_search_builds_no_schema_and_skips_docstring_sections():
    def lookup(city: str) -> str:
        """Find a city.

        Args:
            city: the zebra name
        """
        return city

    item = tool(lookup)
    registry = ToolRegistry([item])
    assert registry.search("find") == ["lookup"]
    assert registry.search("zebra") == []  # parameter docs are not the description
    assert item.__dict__["_wb_spec"] is None  # still deferred
    assert item.spec.description == "Find a city."
    assert registry.search("find") == ["lookup"]
    assert ToolRegistry([tool(lookup, description="Explicit text")]).search("explicit") == ["lookup"]


# -- the meta-schema check, remembered per shape ---------------------------------------------------
from workbench._errors import ToolSpecError  # noqa: E402
from workbench.spec import ToolSpec  # noqa: E402


def _spec(parameters: dict) -> ToolSpec:
    return ToolSpec(name="t", description="d", parameters=parameters)


@pytest.mark.parametrize(
    "bad, where",
    [
        (
            {"type": "object", "properties": {"a": {"type": "string", "minLength": -1, "description": "x"}}},
            "properties/a/minLength",
        ),
        ({"type": "object", "properties": {"description": "not a schema"}}, "properties/description"),
        ({"type": "object", "properties": {"default": 3}}, "properties/default"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}, "required"),
        ({"type": "object", "properties": {"a": {"type": "string", "description": 5}}}, "properties/a/description"),
    ],
)
def test_meta_schema_errors_survive_remembered_valid_shapes(bad, where):
    for description in ("one", "two"):  # valid shapes of the same form, remembered first
        _spec(
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "minLength": 1, "description": description},
                    "description": {"type": "string"},
                    "default": {"type": "integer"},
                },
                "required": ["a"],
            }
        ).validate_structure()
    with pytest.raises(ToolSpecError, match=f"not a valid JSON Schema .* at {where}"):
        _spec(bad).validate_structure()


def test_meta_schema_check_is_remembered_per_shape(monkeypatch):
    import workbench._meta_schema as meta

    checked = []
    real = meta._check
    monkeypatch.setattr(meta, "_check", lambda schema: checked.append(schema) or real(schema))
    for i in range(20):
        _spec(
            {
                "type": "object",
                "properties": {
                    "q": {"type": "string", "description": f"query {i}", "default": f"d{i}", "pattern": "^[a-z]+$"},
                    "n": {"type": "number", "default": i, "pattern": "x"},
                },
            }
        ).validate_structure()
    assert 1 <= len(checked) <= 3  # the root and two property shapes, checked once each


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": ["string", "null"], "minLength": 0, "enum": ["x", None]}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "integer", "minimum": 1.5}},
        },
        {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, True]}, "b": {"items": {"const": 1}}}},
        {"type": "object", "x-vendor": {"anything": [1]}, "required": ["a"], "examples": [{}], "deprecated": False},
        {
            "type": "object",
            "properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}], "uniqueItems": True}},
        },
    ],
)
def test_plainly_valid_schemas_are_valid_for_jsonschema(schema):
    import jsonschema

    from workbench._meta_schema import plainly_valid

    assert plainly_valid(schema)
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strng"},
        {"type": []},
        {"type": ["string", "string"]},
        {"minLength": 1.5},
        {"minLength": True},
        {"required": ["a", "a"]},
        {"anyOf": []},
        {"properties": {"a": 1}},
        {"$ref": "http://x y"},
        {"multipleOf": 0},
        {"pattern": "("},
        {"enum": "x"},
        {"items": [{"type": "string"}]},
    ],
)
def test_plainly_valid_never_accepts_an_invalid_schema(schema):
    import jsonschema

    from workbench._meta_schema import meta_schema_error, plainly_valid

    assert not plainly_valid(schema)
    assert meta_schema_error(schema) is not None
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_everyday_schemas_are_checked_without_importing_jsonschema():
    import subprocess
    import sys

    code = (
        "import sys\nfrom workbench.spec import ToolSpec\n"
        "ToolSpec(name='t', description='d', parameters={'type': 'object', 'properties': {'q': {'type': 'string', "
        "'description': 'x', 'maxLength': 9}}, 'required': ['q']}).validate_structure()\n"
        "print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- schemas identical to those built before the speed-ups -----------------------------------------
def test_schemas_and_exports_unchanged_by_the_catalog_speedups():
    import json

    from tests.catalog_schemas import FIXTURE, current_schemas

    expected = json.loads(FIXTURE.read_text())
    current = json.loads(json.dumps(current_schemas(), sort_keys=True, default=repr))
    assert current.keys() == expected.keys()
    for key in expected:
        assert current[key] == expected[key], key


@pytest.mark.parametrize(
    "default", [0, -5, 10**30, 1.5, -0.0, float("inf"), float("nan"), True, None, "x", "", [1, "a"], {"k": 1}, (1, 2)]
)
def test_default_encoding_matches_pydantics(default):
    import math

    from pydantic.json_schema import GenerateJsonSchema

    from workbench._schema import ToolJsonSchema

    ours, theirs = ToolJsonSchema().encode_default(default), GenerateJsonSchema().encode_default(default)
    assert type(ours) is type(theirs)
    assert ours == theirs or (isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs))


def test_return_schemas_are_shared_but_copied():
    @tool
    def a() -> list[str]:
        return []

    @tool
    def b() -> list[str]:
        return []

    assert a.spec.returns == b.spec.returns == {"type": "array", "items": {"type": "string"}}
    a.spec.returns["items"]["type"] = "integer"
    assert b.spec.returns == {"type": "array", "items": {"type": "string"}}


_DOCSTRINGS = [
    "Add.\n\nArgs:\n    a: the first\n    b: the second\n\nReturns:\n    the sum",
    "Add.\n\n:param a: the first\n:returns: the sum",
    "Add.\n\nParameters\n----------\na : int\n    the first\n\nReturns\n-------\nint",
    "Add.\n\n@param a: the first\n@return: the sum",
    "Add.\n\nArgs:\n    a: the first\n\nExample:\n    >>> add(1, 2)\n    :odd: line",
    "Just a sentence: with a colon.",
    "Title\n\nLonger text.\nArgs:\n  a (int): typed\n  b: two\n    lines\nRaises:\n    ValueError: bad",
    "Mixed.\n\nArgs:\n    a: x\n\nParameters\n----------\nb : int",
    "Args:\n    a: only a section",
    "Weird.\n\nArgs:\nnot indented",
]


@pytest.mark.parametrize("doc", _DOCSTRINGS)
def test_google_fast_path_parses_like_auto_detection(doc, monkeypatch):
    import workbench._docstrings as docstrings

    def fn():
        pass

    fn.__doc__ = doc
    fast = docstrings.parse_docstring(fn)
    monkeypatch.setattr(docstrings, "_google", lambda _doc: None)
    assert fast == docstrings.parse_docstring(fn)


def test_google_fast_path_is_taken_for_google_docstrings_only():
    from workbench._docstrings import _google

    assert _google(_DOCSTRINGS[0]) is not None and _google(_DOCSTRINGS[6]) is not None
    assert _google(_DOCSTRINGS[1]) is None and _google(_DOCSTRINGS[2]) is None and _google(_DOCSTRINGS[5]) is None
