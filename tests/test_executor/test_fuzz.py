"""Property test (issue 14): every executor entry point treats every call shape alike and never raises.

Random batches of tool calls — valid and invalid: ids of every JSON type (and none), names present,
missing, unknown or not strings, inputs valid, invalid, missing or not objects (NaN and infinities
included), items that are no call at all — go through ``run``, ``execute`` and ``execute_streaming`` of
``SequentialExecutor`` and ``ConcurrentExecutor``. All six must give the same status, error type,
error message and value for every call, answer with the id the documented rule gives, produce valid
``ToolResult``s, and announce every call once (start and end events).
"""

from __future__ import annotations

import asyncio
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import ConcurrentExecutor, SequentialExecutor, ToolContext, ToolRegistry, ToolResult, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def half(x: float) -> float:
    """Half of x."""
    return x / 2


@tool
async def aecho(text: str) -> str:
    """Echo a text, asynchronously."""
    await asyncio.sleep(0)
    return text


@tool
def boom() -> str:
    """Always fails."""
    raise ValueError("boom")


@tool(idempotent=True)
def twice(n: int) -> int:
    """Double n (idempotent: identical calls in a run share one execution)."""
    return n * 2


@tool
def steps(n: int, ctx: ToolContext) -> int:
    """Report progress, then return n."""
    ctx.report_progress(0.5, "half way")
    return n


REGISTRY = ToolRegistry([add, half, aecho, boom, twice, steps])

# -- strategies ---------------------------------------------------------------------------------------------
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
    max_leaves=4,
)
HUGE = st.just(10**5000)  # past Python's int -> str limit: str() and repr() raise ValueError
IDS = st.one_of(
    st.text(max_size=5),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(SCALARS, max_size=2),
    st.dictionaries(st.text(max_size=2), SCALARS, max_size=2),
    HUGE,
)
NUMBERS = st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=True, allow_infinity=True))
VALID_INPUTS = {
    "add": st.fixed_dictionaries({"a": st.integers(-1000, 1000), "b": st.integers(-1000, 1000)}),
    "half": st.fixed_dictionaries({"x": NUMBERS}),
    "aecho": st.fixed_dictionaries({"text": st.text(max_size=5)}),
    "boom": st.just({}),
    "twice": st.fixed_dictionaries({"n": st.sampled_from([1, 2])}),  # few values: identical calls happen
    "steps": st.fixed_dictionaries({"n": st.integers(0, 9)}),
}
NAMES = st.one_of(
    st.sampled_from([*VALID_INPUTS, "nope", "", "ADD", "add "]),
    st.text(max_size=3),
    st.integers(),
    st.none(),
    st.lists(st.text(max_size=2), max_size=1),
    HUGE,
)


@st.composite
def tool_calls(draw):
    """One item of a batch: mostly call-shaped dicts, sometimes anything at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)  # not a call (or a dict of any keys)
    call: dict = {}
    name = draw(NAMES)
    if draw(st.integers(0, 9)):
        call["name"] = name
    id_key = draw(st.sampled_from(["toolUseId", "toolUseId", "id", None]))
    if id_key is not None:
        call[id_key] = draw(IDS)
    if type(name) is str and name in VALID_INPUTS and draw(st.booleans()):
        arguments = draw(VALID_INPUTS[name])
        if arguments and draw(st.integers(0, 3)) == 0:  # one argument replaced by anything
            key = draw(st.sampled_from(sorted(arguments)))
            arguments = {**arguments, key: draw(JSON)}
    else:
        arguments = draw(JSON)
    input_key = draw(st.sampled_from(["input", "input", "arguments", None]))
    if input_key is not None:
        call[input_key] = arguments
    return call


# -- the documented rules, restated independently ----------------------------------------------------------
def expected_id(item):
    """The id a result answers with, or None for a fresh generated one (``ToolExecutor.execute``)."""
    if not isinstance(item, dict):
        return None
    raw = item.get("toolUseId")
    if raw is None:
        raw = item.get("id")
    if type(raw) is str:
        return raw
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        try:
            return str(raw)
        except ValueError:  # an int too long to print: not usable as an id
            return None
    return None


def id_is_invalid(item) -> bool:
    if not isinstance(item, dict):
        return False
    raw = item.get("toolUseId")
    if raw is None:
        raw = item.get("id")
    return raw is not None and expected_id(item) is None


def canonical(value):
    """Equal for equal values, NaN included."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return repr(value)


def outcome(result: ToolResult):
    metadata = result.metadata
    return result.status, metadata.get("error_type"), metadata.get("error"), canonical(result.value)


# -- running every entry point -------------------------------------------------------------------------------
def run_everywhere(batch):
    """``{entry point: (results, events)}``; results in input order."""

    async def streamed(executor):
        pairs = [pair async for pair in executor.execute_streaming(batch, REGISTRY)]
        assert sorted(i for i, _ in pairs) == list(range(len(batch)))
        return [result for _, result in sorted(pairs, key=lambda pair: pair[0])]

    runs = {
        "run": lambda executor: executor.run(batch, REGISTRY),
        "execute": lambda executor: asyncio.run(executor.execute(batch, REGISTRY)),
        "execute_streaming": lambda executor: asyncio.run(streamed(executor)),
    }
    out = {}
    for executor_cls in (SequentialExecutor, ConcurrentExecutor):
        for entry, call in runs.items():
            executor = executor_cls()
            events: list = []
            executor.on_event(lambda event, events=events: events.append((event.kind, event.index)))
            try:
                out[f"{executor_cls.__name__}.{entry}"] = (call(executor), events)
            finally:
                executor.close()
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(tool_calls(), max_size=4))
def test_every_executor_entry_point_agrees_on_every_call_shape(batch):
    everywhere = run_everywhere(batch)  # never raises: any exception fails the example
    reference = None
    for where, (results, events) in everywhere.items():
        assert len(results) == len(batch), where
        for item, result in zip(batch, results):
            ToolResult.model_validate(result.model_dump(by_alias=True))  # always a valid result
            answered = expected_id(item)
            if answered is None:
                assert result.tool_use_id.startswith("tooluse_"), (where, item, result.tool_use_id)
            else:
                assert result.tool_use_id == answered, (where, item)
            if id_is_invalid(item):
                assert (result.status, result.metadata["error_type"]) == ("error", "TypeError"), (where, item)
                assert "'toolUseId' must be a string" in result.error
            if result.status == "error":
                assert result.error and result.metadata["error_type"], (where, item)
            assert isinstance(result.metadata["tool_name"], str)
        # every call is announced once, start and end
        for kind in ("start", "end"):
            assert sorted(i for k, i in events if k == kind) == list(range(len(batch))), (where, kind)
        outcomes = [outcome(r) for r in results]
        if reference is None:
            reference = (where, outcomes)
        else:
            assert outcomes == reference[1], (where, reference[0], batch)
