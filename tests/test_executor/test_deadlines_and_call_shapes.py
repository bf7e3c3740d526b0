"""Executor hardening (issue 14): timeouts under a late event loop, one rule for every call shape in
every executor, and one rule for tools without a description on every construction path."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid

import pytest

from workbench import (
    BaseTool,
    ConcurrentExecutor,
    SequentialExecutor,
    ToolParam,
    ToolParameter,
    ToolRegistry,
    ToolResult,
    ToolSpec,
    ToolSpecError,
    tool,
)

EXECUTORS = [SequentialExecutor, ConcurrentExecutor]


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def registry_of(*tools):
    return ToolRegistry(list(tools))


def error_type(result: ToolResult):
    return result.metadata.get("error_type")


# == 1. a result that arrives after the deadline is a timeout ==========================================
TIMEOUT = 0.02  # the tool's timeout
WORK = 0.06  # how long each tool runs: always past its deadline
BLOCK = 0.2  # how long the event loop is kept busy: longer than the tool runs, so the loop is late
CALLS = 4  # calls per case; every one must be reported as timed out


def _loop_blocker(loop: asyncio.AbstractEventLoop) -> threading.Event:
    """Keep ``loop`` busy for BLOCK seconds from a worker thread; the returned event is set once it is."""
    blocked = threading.Event()

    def block() -> None:
        blocked.set()
        time.sleep(BLOCK)  # the loop can neither fire the timeout's timer nor see the result meanwhile

    loop.call_soon_threadsafe(block)
    return blocked


def _late_loop_tools(loops: list):
    @tool(timeout=TIMEOUT)
    def sync_overrun() -> str:
        """Makes the loop late, then finishes after its deadline but before the loop wakes up."""
        assert _loop_blocker(loops[-1]).wait(5)
        time.sleep(WORK)
        return "late"

    @tool(timeout=TIMEOUT)
    async def async_overrun() -> str:
        """An async tool that blocks its own loop past the deadline (no await to time out at)."""
        time.sleep(WORK)
        return "late"

    return sync_overrun, async_overrun


@pytest.mark.parametrize("executor_cls", EXECUTORS)
@pytest.mark.parametrize("tool_name", ["sync_overrun", "async_overrun"])
def test_a_result_after_the_deadline_is_a_timeout_even_when_the_loop_is_late(executor_cls, tool_name):
    loops: list = []
    registry = registry_of(*_late_loop_tools(loops))

    async def one_call() -> ToolResult:
        loops.append(asyncio.get_running_loop())
        [result] = await executor_cls().execute([{"toolUseId": "late", "name": tool_name, "input": {}}], registry)
        return result

    outcomes = [asyncio.run(one_call()) for _ in range(CALLS)]
    assert [(r.status, error_type(r)) for r in outcomes] == [("error", "TimeoutError")] * CALLS, [
        r.metadata.get("latency_ms") for r in outcomes
    ]
    for result in outcomes:
        assert result.metadata["timeout"] == TIMEOUT
        assert f"timed out after {TIMEOUT:g} s" in result.error
        assert result.value is None  # the late value is not passed off as an answer


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_a_failure_after_the_deadline_is_a_timeout_too(executor_cls):
    loops: list = []

    @tool(timeout=TIMEOUT)
    def late_failure() -> str:
        """Raises, but only after its deadline while the loop is late."""
        assert _loop_blocker(loops[-1]).wait(5)
        time.sleep(WORK)
        raise ValueError("too late to matter")

    async def one_call() -> ToolResult:
        loops.append(asyncio.get_running_loop())
        return (
            await executor_cls().execute(
                [{"toolUseId": "f", "name": "late_failure", "input": {}}], registry_of(late_failure)
            )
        )[0]

    result = asyncio.run(one_call())
    assert (result.status, error_type(result)) == ("error", "TimeoutError")


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_a_call_within_its_timeout_still_succeeds(executor_cls):
    @tool(timeout=30)
    def quick(x: int) -> int:
        """Returns at once."""
        return x + 1

    @tool(timeout=30)
    async def aquick(x: int) -> int:
        """Returns after one await."""
        await asyncio.sleep(0)
        return x + 2

    results = executor_cls().run(
        [
            {"toolUseId": "q", "name": "quick", "input": {"x": 1}},
            {"toolUseId": "a", "name": "aquick", "input": {"x": 1}},
        ],
        registry_of(quick, aquick),
    )
    assert [(r.status, r.value) for r in results] == [("success", 2), ("success", 3)], [r.metadata for r in results]


# == 2. every executor treats every call shape alike =================================================
def _outcome(result: ToolResult):
    return result.status, error_type(result), result.value, result.metadata.get("error")


def _all_entry_points(batch, registry):
    """Results of every executor through run, execute and execute_streaming (sorted by input index)."""

    async def streamed(executor):
        return [
            r
            for _, r in sorted(
                [item async for item in executor.execute_streaming(batch, registry)], key=lambda pair: pair[0]
            )
        ]

    out = {}
    for executor_cls in EXECUTORS:
        name = executor_cls.__name__
        out[f"{name}.run"] = executor_cls().run(batch, registry)
        out[f"{name}.execute"] = asyncio.run(executor_cls().execute(batch, registry))
        out[f"{name}.execute_streaming"] = asyncio.run(streamed(executor_cls()))
    return out


NUMBER_ID = 5
ID_CASES = [  # toolUseId sent -> (status, error_type, id the result carries; None: a fresh one)
    ("call-1", ("success", None, "call-1")),
    ("", ("success", None, "")),
    (NUMBER_ID, ("success", None, "5")),
    (1.5, ("success", None, "1.5")),
    (uuid.UUID(int=7), ("success", None, str(uuid.UUID(int=7)))),
    (None, ("success", None, None)),
    (True, ("error", "TypeError", None)),
    ({"a": 1}, ("error", "TypeError", None)),
    ([1, 2], ("error", "TypeError", None)),
    (b"id", ("error", "TypeError", None)),
]


@pytest.mark.parametrize("use_id, expected", ID_CASES, ids=[repr(c[0]) for c in ID_CASES])
def test_every_executor_applies_one_tool_use_id_rule(use_id, expected):
    batch = [{"toolUseId": use_id, "name": "add", "input": {"a": 1, "b": 2}}]
    status, kind, answered_id = expected
    for where, [result] in _all_entry_points(batch, registry_of(add)).items():
        assert (result.status, error_type(result)) == (status, kind), where
        if answered_id is None:
            assert result.tool_use_id.startswith("tooluse_"), where
        else:
            assert result.tool_use_id == answered_id, where
        ToolResult.model_validate(result.model_dump(by_alias=True))  # always a valid ToolResult
        if status == "error":
            assert "'toolUseId' must be a string" in result.error, where
        else:
            assert result.value == 3, where


BAD_ITEMS = [  # item -> (error_type, words in the message)
    (42, "TypeError", ["Cannot interpret 42 (int) as a tool call"]),
    ("add", "TypeError", ["Cannot interpret 'add' (str) as a tool call"]),
    (None, "TypeError", ["Cannot interpret None (NoneType)"]),
    ([{"toolUseId": "x"}], "TypeError", ["(list) as a tool call"]),
    ({"toolUseId": "x", "input": {}}, "TypeError", ["no 'name'"]),
    ({"toolUseId": "x", "name": None, "input": {}}, "TypeError", ["no 'name'"]),
    ({"toolUseId": "x", "name": "", "input": {}}, "TypeError", ["empty 'name'"]),
    ({"toolUseId": "x", "name": 5, "input": {}}, "TypeError", ["'name' must be a string", "5 (int)"]),
    ({"toolUseId": "x", "name": "nope", "input": {}}, "ToolNotFoundError", ["Unknown tool 'nope'"]),
    ({"toolUseId": "x", "name": "add", "input": [1, 2]}, "ToolInputError", ["Invalid input for tool 'add'", "object"]),
    (
        {"toolUseId": "x", "name": "add", "input": '{"a": 1, "b": 2}'},
        "ToolInputError",
        ["Invalid input for tool 'add'"],
    ),
    ({"toolUseId": "x", "name": "add", "input": None}, "ToolInputError", ["a: required field is missing"]),
    ({"toolUseId": "x", "name": "add"}, "ToolInputError", ["a: required field is missing"]),
    ({"toolUseId": "x", "name": "add", "input": {"a": float("nan"), "b": 1}}, "ToolInputError", ["'add'", "a"]),
]


@pytest.mark.parametrize("item, kind, words", BAD_ITEMS, ids=[repr(c[0])[:40] for c in BAD_ITEMS])
def test_every_bad_item_is_the_same_clear_error_result_everywhere(item, kind, words):
    batch = [item, {"toolUseId": "ok", "name": "add", "input": {"a": 2, "b": 2}}]
    outcomes = {
        where: [_outcome(r) for r in results] for where, results in _all_entry_points(batch, registry_of(add)).items()
    }
    first = next(iter(outcomes.values()))
    assert all(o == first for o in outcomes.values()), outcomes
    bad, good = first
    assert bad[:2] == ("error", kind), bad
    for word in words:
        assert word in bad[3], (word, bad[3])
    assert good == ("success", None, 4, None)  # a bad item does not spoil the batch


def test_other_call_shapes_get_the_same_id_rule():
    class ToolCall:
        def __init__(self, id, name, arguments):
            self.id, self.name, self.arguments = id, name, arguments

    batch = [
        {"id": 7, "name": "add", "arguments": {"a": 1, "b": 1}},
        ToolCall(8, "add", {"a": 2, "b": 2}),
        ToolCall({"x": 1}, "add", {"a": 1, "b": 1}),
        ToolCall("c", 9, {}),
    ]
    for where, results in _all_entry_points(batch, registry_of(add)).items():
        assert [(r.tool_use_id, r.value) for r in results[:2]] == [("7", 2), ("8", 4)], where
        assert [error_type(r) for r in results[2:]] == ["TypeError", "TypeError"], where
        assert "'toolUseId' must be a string" in results[2].error and "'name' must be a string" in results[3].error


NOT_A_LIST = [None, "add", b"add", 5, 1.5, {"toolUseId": "x", "name": "add", "input": {}}, object()]


@pytest.mark.parametrize("tool_uses", NOT_A_LIST, ids=[type(v).__name__ for v in NOT_A_LIST])
@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_a_batch_that_is_not_a_list_of_calls_raises_a_clear_type_error(executor_cls, tool_uses):
    registry = registry_of(add)

    async def streamed():
        return [item async for item in executor_cls().execute_streaming(tool_uses, registry)]

    entry_points = {
        "run": lambda: executor_cls().run(tool_uses, registry),
        "execute": lambda: asyncio.run(executor_cls().execute(tool_uses, registry)),
        "execute_streaming": lambda: asyncio.run(streamed()),
    }
    for where, call in entry_points.items():
        with pytest.raises(TypeError) as raised:
            call()
        assert "tool_uses must be a list of tool calls" in str(raised.value), where
        assert type(tool_uses).__name__ in str(raised.value), where
    if isinstance(tool_uses, dict):
        assert "pass [call]" in str(raised.value)


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_any_iterable_of_calls_is_a_batch(executor_cls):
    calls = ({"toolUseId": str(i), "name": "add", "input": {"a": i, "b": 1}} for i in range(3))
    assert [r.value for r in executor_cls().run(calls, registry_of(add))] == [1, 2, 3]
    assert [r.value for r in executor_cls().run((), registry_of(add))] == []


# == 4. a tool without a description builds on every construction path ===========================
def _no_doc_parameters():
    @tool(parameters={"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
    def no_doc_explicit(x):
        return x * 2

    return no_doc_explicit


def _no_doc_plain():
    @tool
    def no_doc_plain(x: int) -> int:
        return x * 2

    return no_doc_plain


def _no_doc_neurosurfer():
    class NoDocNeuro(BaseTool):
        spec = ToolSpec(name="no_doc_neuro", inputs=[ToolParam("x", "integer")])

        def __call__(self, x):
            return x * 2

    return NoDocNeuro()


def _no_doc_allos():
    class NoDocAllos(BaseTool):
        name = "no_doc_allos"
        parameters = [ToolParameter("x", "integer")]

        def execute(self, **kwargs):
            return kwargs["x"] * 2

    return NoDocAllos()


NO_DOC_SPEC = {
    "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    "returns": {"type": "integer"},
}


def _registered(item) -> tuple[ToolRegistry, str]:
    registry = ToolRegistry(synthetic=True)
    return registry, registry.register_tool(item)


def _from_spec_dict() -> tuple[ToolRegistry, str]:
    registry = ToolRegistry.from_spec_dict(
        {"tools": [{"name": "no_doc_dict", "spec": {"name": "no_doc_dict", **NO_DOC_SPEC}}]}, synthetic=True
    )
    return registry, "no_doc_dict"


def _register_spec() -> tuple[ToolRegistry, str]:
    registry = ToolRegistry(synthetic=True)
    return registry, registry.register_spec(ToolSpec(name="no_doc_spec", **NO_DOC_SPEC))


CONSTRUCTIONS = {  # each builds and registers a tool that has no description anywhere
    "@tool": lambda: _registered(_no_doc_plain()),
    "@tool(parameters=...)": lambda: _registered(_no_doc_parameters()),
    "neurosurfer spec=": lambda: _registered(_no_doc_neurosurfer()),
    "Allos class": lambda: _registered(_no_doc_allos()),
    "register_spec": _register_spec,
    "from_spec_dict": _from_spec_dict,
}


@pytest.mark.parametrize("how", list(CONSTRUCTIONS))
def test_a_tool_without_a_description_builds_registers_and_runs_on_every_path(how):
    registry, name = CONSTRUCTIONS[how]()
    item = registry.get_tool(name)
    assert item.spec.description == ""
    [result] = SequentialExecutor().run([{"toolUseId": "n", "name": name, "input": {"x": 21}}], registry)
    assert result.status == "success", result.error
    if item.has_implementation:
        assert result.value == 42
    else:
        assert result.metadata["synthetic"] is True and isinstance(result.value, int)
    with pytest.raises(ToolSpecError, match=f"Tool '{name}' is missing a description"):
        item.spec.validate()  # the stricter lint still says so


def test_parameters_are_still_checked_as_a_json_schema_without_a_description():
    with pytest.raises(ToolSpecError, match="not a valid JSON Schema"):

        @tool(parameters={"type": "object", "properties": {"x": {"type": "integer", "minimum": "zero"}}})
        def no_doc_bad_schema(x):
            return x

    with pytest.raises(ToolSpecError, match="unsupported type"):

        class BadNeuro(BaseTool):
            spec = ToolSpec(name="bad_neuro", inputs=[ToolParam("x", "float")])

            def __call__(self, x):
                return x

        BadNeuro()
