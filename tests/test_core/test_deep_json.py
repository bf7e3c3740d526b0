"""JSON text nested thousands of levels deep never reaches a recursive parser (issue 18, item 3).

Arguments strings, JSON-string parameters, case files, notebook JSON and tool results texts are
measured without recursion before they are decoded: text deeper than ``MAX_JSON_DEPTH`` is refused
as malformed (a ``json.JSONDecodeError`` saying how deep it nests), so a model's call answers with a
``ToolInputError`` under its id and the rest of the response survives.
"""

from __future__ import annotations

import json

import pytest

from workbench import ConcurrentExecutor, SequentialExecutor, tool
from workbench._errors import ToolInputError
from workbench._json_text import MAX_JSON_DEPTH, JSONTooDeepError, loads
from workbench.providers import format_tool_results, parse_tool_calls
from workbench.spec import ToolSpec

DEEP_ARRAY = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000
DEEP_MIXED = '[{"k":' * 2500 + "null" + "}]" * 2500
DEEP = [DEEP_ARRAY, DEEP_OBJECT, DEEP_MIXED]
DEEP_IDS = ["arrays", "objects", "mixed"]
# the arguments object itself nesting deep
DEEP_ARGS = ['{"items": ' + DEEP_ARRAY + "}", '{"config": ' + DEEP_OBJECT + "}"]


# -- the shared helper --------------------------------------------------------------------------------------


def test_loads_takes_what_json_loads_takes():
    for text in ['{"a": [1, 2, {"b": null}]}', "[]", "3", '"[[[["', '{"s": "}}}]]]{{{"}', '"\\"[[[["']:
        assert loads(text) == json.loads(text)
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads(nested) == json.loads(nested)


@pytest.mark.parametrize("text", DEEP, ids=DEEP_IDS)
def test_loads_refuses_text_nested_too_deep(text):
    with pytest.raises(JSONTooDeepError, match=f"nests deeper than {MAX_JSON_DEPTH} levels") as caught:
        loads(text)
    assert isinstance(caught.value, json.JSONDecodeError) and isinstance(caught.value, ValueError)
    assert caught.value.lineno == 1 and caught.value.pos >= MAX_JSON_DEPTH and text[caught.value.pos] in "[{"


def test_loads_counts_depth_not_brackets():
    wide = "[" + ",".join(["[1]"] * 5000) + "]"  # many brackets, two levels
    assert len(loads(wide)) == 5000
    one_more = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(JSONTooDeepError):
        loads(one_more)
    in_strings = json.dumps({"text": "[" * 10_000 + "{" * 10_000})  # brackets inside strings are text
    assert loads(in_strings)["text"].startswith("[[[")
    assert loads(json.dumps(['\\"[' * 3000]))  # escaped quotes do not end the string
    assert loads(text := "[" * 50 + '"\\\\"' + "]" * 50) == json.loads(text)


# -- parse_tool_calls keeps a too-deep arguments string as received, siblings parsed -------------------------

_GOOD = '{"x": 2}'


def _openai(args):
    return {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "deep", "type": "function", "function": {"name": "double", "arguments": args}},
                        {"id": "good", "type": "function", "function": {"name": "double", "arguments": _GOOD}},
                    ],
                }
            }
        ]
    }


def _responses(args):
    return {
        "output": [
            {"type": "function_call", "call_id": "deep", "name": "double", "arguments": args},
            {"type": "function_call", "call_id": "good", "name": "double", "arguments": _GOOD},
        ]
    }


def _anthropic(args):
    return {
        "content": [
            {"type": "tool_use", "id": "deep", "name": "double", "input": args},
            {"type": "tool_use", "id": "good", "name": "double", "input": _GOOD},
        ]
    }


def _gemini(args):
    return {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"functionCall": {"id": "deep", "name": "double", "args": args}},
                        {"functionCall": {"id": "good", "name": "double", "args": _GOOD}},
                    ]
                }
            }
        ]
    }


def _bedrock(args):
    return {
        "output": {
            "message": {
                "content": [
                    {"toolUse": {"toolUseId": "deep", "name": "double", "input": args}},
                    {"toolUse": {"toolUseId": "good", "name": "double", "input": _GOOD}},
                ]
            }
        }
    }


def _mcp(args):
    return [
        {"jsonrpc": "2.0", "id": "deep", "method": "tools/call", "params": {"name": "double", "arguments": args}},
        {"jsonrpc": "2.0", "id": "good", "method": "tools/call", "params": {"name": "double", "arguments": _GOOD}},
    ]


RESPONSES = {
    "openai": _openai,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "mcp": _mcp,
}


@tool
def double(x: int) -> int:
    """Double x."""
    return 2 * x


@pytest.mark.parametrize("args", DEEP + DEEP_ARGS, ids=DEEP_IDS + ["deep-array-arg", "deep-object-arg"])
@pytest.mark.parametrize("provider", sorted(RESPONSES))
def test_parse_tool_calls_keeps_too_deep_arguments_as_received(provider, args):
    for tools in (None, [double]):
        uses = parse_tool_calls(provider, RESPONSES[provider](args), tools=tools)
        assert [u["toolUseId"] for u in uses] == ["deep", "good"]
        assert uses[0]["input"] == args and uses[1]["input"] == {"x": 2}


@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
@pytest.mark.parametrize("provider", sorted(RESPONSES))
def test_executor_answers_a_too_deep_call_under_its_id_and_runs_its_sibling(provider, executor):
    uses = parse_tool_calls(provider, RESPONSES[provider](DEEP_OBJECT))
    deep, good = executor().run(uses, [double])
    assert (deep.tool_use_id, deep.status, deep.metadata["error_type"]) == ("deep", "error", "ToolInputError")
    assert "'double'" in deep.error and f"nests deeper than {MAX_JSON_DEPTH} levels" in deep.error
    assert (good.tool_use_id, good.status, good.value) == ("good", "success", 4)
    answers = format_tool_results(provider, [deep, good])
    assert "nests deeper" in json.dumps(answers)


@pytest.mark.parametrize("text", DEEP, ids=DEEP_IDS)
@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
def test_a_too_deep_arguments_string_given_as_the_input(executor, text):
    for spec in (double.spec, SCHEMA_TOOL):
        with pytest.raises(ToolInputError, match=f"nests deeper than {MAX_JSON_DEPTH} levels"):
            spec.check_inputs(text)
    [result] = executor().run([{"toolUseId": "a", "name": "double", "input": text}], [double])
    assert result.status == "error" and result.metadata["error_type"] == "ToolInputError"
    assert "'double'" in result.error and "nests deeper than" in result.error


# -- a JSON string given for an array / object parameter -------------------------------------------------------


@tool
def takes_list(items: list, tag: str = "") -> int:
    """Count items."""
    return len(items)


@tool
def takes_dict(config: dict) -> int:
    """Count keys."""
    return len(config)


SCHEMA_TOOL = ToolSpec(
    name="schema_tool",
    description="Schema only.",
    parameters={"type": "object", "properties": {"items": {"type": "array"}, "config": {"type": "object"}}},
)


@pytest.mark.parametrize("text", DEEP, ids=DEEP_IDS)
@pytest.mark.parametrize(
    "spec, name",
    [(takes_list.spec, "items"), (takes_dict.spec, "config"), (SCHEMA_TOOL, "items"), (SCHEMA_TOOL, "config")],
    ids=["function-list", "function-dict", "schema-array", "schema-object"],
)
def test_check_inputs_refuses_a_too_deep_json_string(spec, name, text):
    with pytest.raises(ToolInputError, match=f"nests deeper than {MAX_JSON_DEPTH} levels") as caught:
        spec.check_inputs({name: text})
    assert caught.value.errors[0]["field"] == name


def test_check_inputs_still_parses_json_strings_within_the_limit():
    assert takes_list.spec.check_inputs({"items": "[[1], [2]]"})["items"] == [[1], [2]]
    assert SCHEMA_TOOL.check_inputs({"config": '{"a": {"b": 1}}'}) == {"config": {"a": {"b": 1}}}


@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
def test_executor_answers_a_too_deep_json_string_parameter_with_tool_input_error(executor):
    results = executor().run(
        [
            {"toolUseId": "a", "name": "takes_list", "input": {"items": DEEP_ARRAY}},
            {"toolUseId": "b", "name": "takes_list", "input": {"items": "[1, 2]"}},
        ],
        [takes_list],
    )
    assert [r.status for r in results] == ["error", "success"]
    assert results[0].metadata["error_type"] == "ToolInputError" and "nests deeper than" in results[0].error


# -- other places that decode JSON from outside -------------------------------------------------------------


def test_gemini_normalize_leaves_too_deep_json_text_alone():
    from workbench.providers import normalize_arguments

    spec = ToolSpec(
        name="free",
        description="Free-form.",
        parameters={"type": "object", "properties": {"config": {"type": "object"}, "rows": {"type": "array"}}},
    )
    out = normalize_arguments(spec, {"config": DEEP_OBJECT, "rows": DEEP_ARRAY}, "gemini")
    assert out == {"config": DEEP_OBJECT, "rows": DEEP_ARRAY}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "bedrock", "gemini", "mcp"])
def test_format_tool_results_with_a_too_deep_text_block(provider):
    from workbench.types import ToolResult

    result = ToolResult(
        toolUseId="a", status="success", content=[{"text": DEEP_ARRAY}, {"json": [1]}], metadata={"tool_name": "double"}
    )
    assert format_tool_results(provider, [result])


def test_case_file_nested_too_deep_is_a_case_file_error(tmp_path):
    from workbench.testing import CaseFile, CaseFileError

    path = tmp_path / "deep.json"
    path.write_text('{"cases": [{"input": ' + DEEP_OBJECT + "}]}")
    with pytest.raises(CaseFileError, match="nests deeper than"):
        CaseFile.load(path)


def test_notebook_json_inputs_nested_too_deep_are_refused_plainly():
    from workbench.jupyter._json_mode import parse_input
    from workbench.jupyter._magics import parse_call_arguments
    from workbench.jupyter._mcp_render import _text_html

    value, error = parse_input('{"items": ' + DEEP_ARRAY + "}", ["items"], "takes_list")
    assert value is None and "nests deeper than" in error
    with pytest.raises(Exception, match="nests deeper than") as caught:
        parse_call_arguments('{"items": ' + DEEP_ARRAY + "}")
    assert type(caught.value).__name__ == "UsageError"
    assert parse_call_arguments("items=" + DEEP_ARRAY) == {"items": DEEP_ARRAY}  # kept as text, like other non-JSON
    assert "<pre" in _text_html(DEEP_ARRAY, "application/json")


# -- the depth check is one linear pass (issue 26, item 5) ----------------------------------------------------

from hypothesis import given  # noqa: E402 - the section's own imports
from hypothesis import strategies as st  # noqa: E402 - the section's own imports

from workbench import _json_text  # noqa: E402 - the section's own imports
from workbench._json_text import too_deep_at  # noqa: E402 - the section's own imports


def _reference_depth(value) -> int:
    """How deeply a decoded JSON value nests arrays and objects (recursive: the values are shallow)."""
    if isinstance(value, list):
        return 1 + max(map(_reference_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_reference_depth, value.values()), default=0)
    return 0


def _reference_too_deep_at(text: str, max_depth: int) -> int:
    """Character by character: a backslash escapes the next character; a string ends at the next quote
    (an unterminated one runs to the end)."""
    depth, in_string, escaped = 0, False, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_string:
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                return i
        elif char in "]}":
            depth -= 1
    return -1


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab[]{}"\\\n'),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(alphabet='k[]{"\\', max_size=3), children, max_size=3)
    ),
    max_leaves=30,
)


@given(_json_values, st.integers(min_value=0, max_value=8), st.booleans())
def test_too_deep_at_agrees_with_the_decoded_depth(value, max_depth, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    position = too_deep_at(text, max_depth)
    assert (position >= 0) == (_reference_depth(value) > max_depth)
    assert position == _reference_too_deep_at(text, max_depth)


@given(st.text(alphabet='[]{}"\\ a'), st.integers(min_value=0, max_value=6))
def test_too_deep_at_agrees_with_a_character_scan_on_any_text(text, max_depth):
    assert too_deep_at(text, max_depth) == _reference_too_deep_at(text, max_depth)


@given(
    st.lists(st.sampled_from(['"', "\\", "[", "]", "{", "}", "a"]), min_size=1, max_size=40),
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=1, max_value=8),
)
def test_too_deep_at_is_the_same_whatever_the_slices(pieces, max_depth, chunk):
    """Strings, escapes and brackets cut across the slices the text is measured in."""
    text = "".join(pieces) * 3
    expected = _reference_too_deep_at(text, max_depth)
    original = _json_text._CHUNK
    _json_text._CHUNK = chunk
    try:
        assert too_deep_at(text, max_depth) == expected
    finally:
        _json_text._CHUNK = original


def test_too_deep_at_known_answers():
    assert too_deep_at("[[[", 2) == 2
    assert too_deep_at('[["[[["]', 2) == -1 and too_deep_at('[["[[[", [', 2) == 9
    assert too_deep_at('[["\\"[", [[', 2) == 9  # an escaped quote does not end the string
    assert too_deep_at('[["\\\\", [[', 2) == 8  # an escaped backslash does
    assert too_deep_at('[[[ "unterminated [[[[', 2) == 2
    assert too_deep_at('[ "unterminated [[[[', 2) == -1  # the rest is inside the string: the parser says so
    assert too_deep_at('[[ "ends in a backslash\\', 2) == -1
    assert too_deep_at("[]" * 500 + "[[[", 2) == 1002
    assert too_deep_at("[]" * 40_000 + '"' + "x" * 70_000 + '"' + "[[[", 2) == 150_004  # strings across slices


# quotes the old scan restarted at, each one scanning to the end of the text: quadratic
ADVERSARIAL = [
    '\\"' * 200_000 + "[" * (MAX_JSON_DEPTH + 1),
    "[" * MAX_JSON_DEPTH + '"' + '\\"' * 200_000 + "]" * MAX_JSON_DEPTH,
    '"' + "\\" * 400_001 + "[" * (MAX_JSON_DEPTH + 1),
    "[]" * 200_000 + "[" * (MAX_JSON_DEPTH + 1),
]


class _Counted:
    """A compiled pattern that notes how many characters each call was given."""

    def __init__(self, pattern, calls):
        self.pattern, self.calls = pattern, calls

    def sub(self, replacement, text):
        self.calls.append(len(text))
        return self.pattern.sub(replacement, text)

    def finditer(self, text, pos=0):
        self.calls.append(len(text) - pos)
        return self.pattern.finditer(text, pos)


@pytest.mark.parametrize("text", ADVERSARIAL, ids=["escaped-quotes", "unterminated-string", "backslashes", "pairs"])
def test_the_depth_scan_is_one_pass(text, monkeypatch):
    """Structurally linear: every pattern is given each character a bounded number of times, in slices
    of at most ``_CHUNK`` characters, and the string pattern matches at any quote (a pattern that failed at
    a quote after reading ahead to the end is what rescanned the text once per quote)."""
    calls = []
    for name in ("_STRING", "_NOT_BRACKET", "_TOKENS"):
        monkeypatch.setattr(_json_text, name, _Counted(getattr(_json_text, name), calls))
    assert too_deep_at(text) == _reference_too_deep_at(text, MAX_JSON_DEPTH)
    assert max(calls, default=0) <= _json_text._CHUNK and sum(calls) <= 3 * len(text)
    blank = text.replace("\\\\", "__").replace('\\"', "__")
    string = _json_text._STRING.pattern
    assert all(string.match(blank, i) for i, char in enumerate(blank) if char == '"')
