"""The executors' plain path (``workbench.executor._Plan``): a tool that needs nothing but validate, call
and wrap skips the pipeline's other steps. It must answer exactly as the full pipeline does, and stop
being taken the moment the tool or spec changes so that a step applies again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from workbench import ExecutionLog, Permission, SequentialExecutor, ToolRegistry, ToolResponse, tool
from workbench.executor import _plan_of


def _use(name: str, payload: Any, use_id: str = "t1") -> dict:
    return {"toolUseId": use_id, "name": name, "input": payload}


@tool
def add(a: int, b: int = 2) -> int:
    """Add."""
    return a + b


@tool
def shout(text: str) -> str:
    """Upper-case."""
    return text.upper()


@tool
def pair(a: int) -> dict:
    """A dict."""
    return {"a": a, "double": 2 * a}


@tool
def lies(a: int) -> int:
    """Returns a string although it says int."""
    return "not an int"  # type: ignore[return-value]


@tool
def boom(a: int) -> int:
    """Raises."""
    raise ValueError(f"bad {a}")


@tool
def wrapped(a: int) -> int:
    """A ToolResponse."""
    return ToolResponse(observation=a, final_answer=True)  # type: ignore[return-value]


@tool
def sneaky(a: int) -> int:
    """An undeclared coroutine."""
    async def later() -> int:
        return a * 10
    return later()  # type: ignore[return-value]


@tool
async def async_add(a: int, b: int = 2) -> int:
    """Async add."""
    return a + b


@tool
async def async_boom(a: int) -> int:
    """Async raise."""
    raise KeyError(a)


TOOLS = [add, shout, pair, lies, boom, wrapped, sneaky, async_add, async_boom]
CALLS = [("add", {"a": 1}), ("add", {"a": 1, "b": 5}), ("add", {"a": "1"}), ("add", {"a": 1, "zzz": 0}), ("add", {}),
         ("shout", {"text": "hi"}), ("pair", {"a": 3}), ("lies", {"a": 1}), ("boom", {"a": 7}), ("wrapped", {"a": 4}),
         ("sneaky", {"a": 2}), ("async_add", {"a": 1}), ("async_add", {"a": True}), ("async_boom", {"a": 1})]


def _comparable(result: Any) -> tuple:
    metadata = {k: v for k, v in result.metadata.items() if k not in ("latency_ms", "traceback")}
    return result.tool_use_id, result.status, result.content, metadata, result.value


def _full_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call through every step: the executor says it adds something, so nothing is plain."""
    monkeypatch.setattr("workbench.executor.ToolExecutor._adds_nothing", lambda self: False)


@pytest.mark.parametrize("name,payload", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_the_plain_path_answers_as_the_full_pipeline(name, payload, monkeypatch):
    registry = ToolRegistry(TOOLS)
    plain_run = SequentialExecutor().run([_use(name, payload)], registry)[0]
    plain_execute = asyncio.run(SequentialExecutor().execute([_use(name, payload)], registry))[0]
    _full_pipeline(monkeypatch)
    full_run = SequentialExecutor().run([_use(name, payload)], registry)[0]
    full_execute = asyncio.run(SequentialExecutor().execute([_use(name, payload)], registry))[0]
    assert _comparable(plain_run) == _comparable(full_run)
    assert _comparable(plain_execute) == _comparable(full_execute)
    assert plain_run.started_at and plain_run.completed_at and plain_run.metadata["latency_ms"] >= 0


def test_the_comparison_above_does_take_two_paths(monkeypatch):
    registry = ToolRegistry([add])
    seen: list[str] = []
    original = SequentialExecutor._call_sync
    monkeypatch.setattr(SequentialExecutor, "_call_sync", lambda self, *a: seen.append("pipeline") or original(self, *a))
    SequentialExecutor().run([_use("add", {"a": 1})], registry)
    assert seen == []  # the plain path did it all
    _full_pipeline(monkeypatch)
    SequentialExecutor().run([_use("add", {"a": 1})], registry)
    assert seen == ["pipeline"]


def test_plain_tools_have_a_plan_and_the_others_do_not():
    @tool(timeout=5)
    def slow(a: int) -> int:
        """Has a timeout."""
        return a

    @tool(idempotent=True)
    def once(a: int) -> int:
        """Idempotent."""
        return a

    @tool(permission="ask_user")
    def ask(a: int) -> int:
        """Asks."""
        return a

    assert _plan_of(add) is not None and _plan_of(add).func is add._func
    assert _plan_of(async_add).is_async
    assert [_plan_of(t) for t in (slow, once, ask)] == [None, None, None]


def test_a_spec_change_after_a_call_is_obeyed():
    @tool
    def double(a: int) -> int:
        """Double."""
        return 2 * a

    registry, executor = ToolRegistry([double]), SequentialExecutor()
    assert executor.run([_use("double", {"a": 2})], registry)[0].json == 4
    double.spec.permission = Permission.ALWAYS_DENY
    denied = executor.run([_use("double", {"a": 2})], registry)[0]
    assert denied.status == "error" and denied.metadata["error_type"] == "PermissionDenied"
    double.spec.permission = Permission.ALWAYS_ALLOW
    double.spec.idempotent = True
    first, second = executor.run([_use("double", {"a": 2}, "x1"), _use("double", {"a": 2}, "x2")], registry)
    assert second.metadata.get("idempotent_reuse") is True and second.metadata["original_tool_use_id"] == "x1"


def test_a_new_validator_is_used_at_once():
    @tool
    def echo(a: int) -> int:
        """Echo."""
        return a

    registry = ToolRegistry([echo])
    assert SequentialExecutor().run([_use("echo", {"a": "7"})], registry)[0].status == "error"
    echo.spec._input_validator = lambda name, raw: {"a": int(raw["a"])}
    assert SequentialExecutor().run([_use("echo", {"a": "7"})], registry)[0].json == 7


def test_a_copied_spec_gets_its_own_plan():
    @tool
    def one(a: int) -> int:
        """One."""
        return a

    SequentialExecutor().run([_use("one", {"a": 1})], ToolRegistry([one]))
    copy = one.spec.model_copy(update={"permission": Permission.ALWAYS_DENY})
    other = type(one)(one._func, copy)
    result = SequentialExecutor().run([_use("one", {"a": 1})], ToolRegistry([other]))[0]
    assert result.status == "error" and result.metadata["error_type"] == "PermissionDenied"


def test_listeners_and_the_log_still_see_plain_calls(tmp_path):
    log = ExecutionLog(str(tmp_path / "calls.db"))
    executor = SequentialExecutor(log=log)
    events: list[str] = []
    executor.on_event(lambda event: events.append(event.kind))
    registry = ToolRegistry([add, async_add])
    executor.run([_use("add", {"a": 1}, "s1")], registry)
    asyncio.run(executor.execute([_use("async_add", {"a": 1}, "s2")], registry))
    assert events == ["start", "end", "start", "end"]
    assert sorted((row["tool_use_id"], row["status"]) for row in log.rows()) == [("s1", "success"), ("s2", "success")]


def _cancelled_while_running(slow_tool: Any) -> Any:
    """The result of a 5 s call of ``slow_tool`` through ``execute``, cancelled by id once it runs."""
    executor = SequentialExecutor()

    async def main() -> Any:
        use = _use(slow_tool.tool_name, {"seconds": 5}, "c1")
        task = asyncio.ensure_future(executor.execute([use], ToolRegistry([slow_tool])))
        for _ in range(100):
            await asyncio.sleep(0.01)
            if executor.running() == ["c1"]:
                break
        assert executor.cancel("c1")
        return (await task)[0]

    return asyncio.run(main())


def test_a_plain_async_call_can_still_be_cancelled_by_id():
    @tool
    async def nap(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "woke"

    result = _cancelled_while_running(nap)
    assert result.status == "error" and result.metadata["error_type"] == "CancelledError"


def test_an_async_plain_tool_that_waits_several_times_and_then_fails_or_answers():
    import contextvars

    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")

    @tool
    async def steps(n: int) -> str:
        """Waits n times, then answers with the caller's context variable (or raises for n < 0)."""
        for _ in range(abs(n)):
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        if n < 0:
            raise ValueError(f"negative {n}")
        return f"{n}:{request_id.get()}"

    registry = ToolRegistry([steps])

    async def main() -> list:
        request_id.set("r-42")
        return await SequentialExecutor().execute([_use("steps", {"n": 3}, "a"),
                                                   _use("steps", {"n": -2}, "b"), _use("steps", {"n": 0}, "c")], registry)

    ok, failed, quick = asyncio.run(main())
    assert (ok.status, ok.value) == ("success", "3:r-42") and quick.value == "0:r-42"
    assert failed.status == "error" and failed.metadata["error_type"] == "ValueError" and "negative -2" in failed.error


def test_a_sync_tool_returning_a_coroutine_runs_once_under_execute():
    calls: list[int] = []

    @tool
    def counted(a: int) -> int:
        """Returns a coroutine."""
        calls.append(a)

        async def later() -> int:
            await asyncio.sleep(0)
            return a + 1
        return later()  # type: ignore[return-value]

    result = asyncio.run(SequentialExecutor().execute([_use("counted", {"a": 1})], ToolRegistry([counted])))[0]
    assert result.value == 2 and calls == [1]


def test_a_tool_that_swallows_its_cancellation_still_ends_cancelled():
    @tool
    async def stubborn(seconds: float) -> str:
        """Catches the cancellation and answers anyway."""
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            return "ignored"
        return "slept"

    result = _cancelled_while_running(stubborn)
    assert result.status == "error" and result.metadata["error_type"] == "CancelledError"
