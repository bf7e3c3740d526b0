"""The executor's public phases (``start_run`` → ``prepare`` → ``invoke``/``ainvoke`` → ``finish``) and
the ``CallPlan`` of a tool that needs nothing but validate-and-call: ``prepare`` answers a bad call with
its final result naming the tool and field, ``invoke``/``ainvoke`` run and time out, and a planned call
(``run_planned``, or ``prepare`` with a plan) answers exactly as the phases do without one — and stops
being planned the moment the tool or spec changes so that a step applies again."""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from workbench import ExecutionLog, Permission, SequentialExecutor, ToolRegistry, ToolResponse, tool
from workbench.executor import CallRun, ConcurrentExecutor, PreparedCall, ToolExecutor, call_plan
from workbench.types import ToolResult, error_result


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
CALLS = [
    ("add", {"a": 1}),
    ("add", {"a": 1, "b": 5}),
    ("add", {"a": "1"}),
    ("add", {"a": 1, "zzz": 0}),
    ("add", {}),
    ("shout", {"text": "hi"}),
    ("pair", {"a": 3}),
    ("lies", {"a": 1}),
    ("boom", {"a": 7}),
    ("wrapped", {"a": 4}),
    ("sneaky", {"a": 2}),
    ("async_add", {"a": 1}),
    ("async_add", {"a": True}),
    ("async_boom", {"a": 1}),
]


def _comparable(result: Any) -> tuple:
    metadata = {k: v for k, v in result.metadata.items() if k not in ("latency_ms", "traceback")}
    return result.tool_use_id, result.status, result.content, metadata, result.value


def _unplanned(executor: ToolExecutor, registry: Any) -> CallRun:
    """A run whose calls take every step (no ``CallPlan``)."""
    run = executor.start_run(registry)
    run.planned = False
    return run


def _by_phases(executor: ToolExecutor, use: dict, run: CallRun) -> ToolResult:
    prepared = executor.prepare(use, run)
    if type(prepared) is not PreparedCall:
        return prepared
    outcome = executor.invoke(prepared, run)
    if type(outcome) is PreparedCall:  # needs a loop
        return asyncio.run(executor.ainvoke(outcome, run))
    return outcome


# -- prepare ---------------------------------------------------------------------------------------------


@tool(permission="always_deny")
def forbidden(a: int) -> int:
    """Never runs."""
    return a


@pytest.mark.parametrize("planned", [True, False])
def test_prepare_validates_and_converts_the_arguments(planned):
    executor, registry = SequentialExecutor(), ToolRegistry([add])
    run = executor.start_run(registry)
    run.planned = planned
    prepared = executor.prepare(_use("add", {"a": 1}), run, index=3)
    assert type(prepared) is PreparedCall
    assert (prepared.arguments, prepared.index, prepared.spec.name, prepared.tool) == ({"a": 1, "b": 2}, 3, "add", add)


@pytest.mark.parametrize(
    "use,error_type,names",
    [
        (_use("nope", {}), "ToolNotFoundError", ["nope"]),
        (_use("forbidden", {"a": 1}), "PermissionDenied", ["forbidden", "always_deny"]),
        (_use("add", {"a": "one"}), "ToolInputError", ["add", "a"]),
        (_use("add", {"b": 1}), "ToolInputError", ["add", "a"]),
        ({"toolUseId": "t1", "input": {}}, "TypeError", ["name"]),
        ("add", "TypeError", ["add"]),
    ],
)
@pytest.mark.parametrize("planned", [True, False])
def test_prepare_answers_a_bad_call_with_its_result_naming_tool_and_field(use, error_type, names, planned):
    executor, registry = SequentialExecutor(), ToolRegistry([add, forbidden])
    log: list = []
    executor.log = type("Log", (), {"append": lambda self, result, tool_use, **kw: log.append(result)})()
    run = executor.start_run(registry)
    run.planned = planned
    result = executor.prepare(use, run)
    assert type(result) is ToolResult and result.status == "error"
    assert result.metadata["error_type"] == error_type
    assert all(name in result.error for name in names), result.error
    assert log == [result]  # prepare finished it: logged once
    if error_type == "ToolNotFoundError":
        assert result.metadata["available"] == ["add", "forbidden"]
    if error_type == "ToolInputError":
        assert [e["field"] for e in result.metadata["errors"]] == ["a"]


# -- invoke / ainvoke --------------------------------------------------------------------------------------


def test_invoke_runs_a_sync_call_here_and_hands_back_one_that_needs_a_loop():
    @tool(timeout=5)
    def limited(a: int) -> int:
        """Has a time limit: runs under a loop."""
        return a

    executor, registry = SequentialExecutor(), ToolRegistry([add, async_add, limited])
    run = executor.start_run(registry)
    done = executor.invoke(executor.prepare(_use("add", {"a": 1}), run), run)
    assert type(done) is ToolResult and done.value == 3
    for name in ("async_add", "limited"):
        prepared = executor.prepare(_use(name, {"a": 1}), run)
        assert executor.invoke(prepared, run) is prepared
        assert asyncio.run(executor.ainvoke(prepared, run)).status == "success"


@pytest.mark.parametrize("executor_class", [SequentialExecutor, ConcurrentExecutor])
def test_ainvoke_ends_a_call_past_its_timeout_as_timed_out(executor_class):
    @tool(timeout=0.05)
    def sleepy(seconds: float) -> str:
        """Sleeps."""
        time.sleep(seconds)
        return "woke"

    @tool(timeout=0.05)
    async def nap(seconds: float) -> str:
        """Sleeps without blocking."""
        await asyncio.sleep(seconds)
        return "woke"

    executor, registry = executor_class(), ToolRegistry([sleepy, nap])
    run = executor.start_run(registry)
    for name in ("sleepy", "nap"):
        result = asyncio.run(executor.ainvoke(executor.prepare(_use(name, {"seconds": 1.0}), run), run))
        assert (result.status, result.metadata["error_type"], result.metadata["timeout"]) == (
            "error",
            "TimeoutError",
            0.05,
        )
        assert f"Tool '{name}' timed out" in result.error
    executor.close()


def test_finish_logs_with_secrets_masked_and_announces_the_end():
    @tool
    def login(user: str, api_key: SecretStr) -> str:
        """Echoes what it got."""
        return f"{user}:{api_key.get_secret_value()}"

    rows: list = []
    executor, registry = SequentialExecutor(), ToolRegistry([login])
    executor.log = type(
        "Log", (), {"append": lambda self, result, tool_use, input=None, **kw: rows.append((result, input))}
    )()
    events: list = []
    executor.on_event(lambda event: events.append(event.kind))
    run = executor.start_run(registry)
    prepared = executor.prepare(_use("login", {"user": "ann", "api_key": "hunter2"}), run)
    result = executor.invoke(prepared, run)
    assert result.value == "ann:hunter2"  # the caller gets the tool's answer
    ((logged, logged_input),) = rows
    assert logged_input == {"user": "ann", "api_key": "***"} and "hunter2" not in str(logged.content)
    assert events == ["start", "end"]


def test_the_error_constructor_gives_the_one_shape_of_a_failed_call():
    result = error_result(
        "t9",
        "it broke",
        "ValueError",
        tool_name="add",
        extra={"errors": []},
        carried={"tool_name": "old", "trace_id": "x"},
        latency_ms=1.5,
    )
    assert (result.tool_use_id, result.status, result.content) == ("t9", "error", [{"text": "Error: it broke"}])
    assert result.metadata == {
        "tool_name": "add",
        "trace_id": "x",
        "error_type": "ValueError",
        "error": "it broke",
        "errors": [],
        "latency_ms": 1.5,
    }
    assert result.completed_at and result.error == "it broke"
    unknown = SequentialExecutor().run([_use("nope", {})], ToolRegistry([add]))[0]
    assert list(unknown.metadata)[:3] == ["tool_name", "error_type", "error"]


def test_run_sync_lives_with_the_async_helpers_and_is_still_importable_from_the_executor():
    import workbench._async
    import workbench.executor

    assert workbench.executor.run_sync is workbench._async.run_sync


# -- a step added in one place -----------------------------------------------------------------------------


class RateLimit:
    """The example of docs/architecture-executor.md: at most ``limit`` calls run; the others end as
    ``RateLimited`` errors. One override of ``prepare``; ``finished`` counts what ``finish`` saw."""

    limit = 2

    def prepare(self, tool_use, run, index=0):
        call = super().prepare(tool_use, run, index)
        if type(call) is PreparedCall:
            self.taken = getattr(self, "taken", 0) + 1
            if self.taken > self.limit:
                return self.finish(
                    call, self.result_of_error(call, f"Tool '{call.spec.name}' is rate-limited", "RateLimited"), run
                )
        return call

    def finish(self, call, result, run):
        self.finished = getattr(self, "finished", 0) + 1
        return super().finish(call, result, run)


@pytest.mark.parametrize("base", [SequentialExecutor, ConcurrentExecutor])
@pytest.mark.parametrize("how", ["run", "execute", "map"])
@pytest.mark.parametrize("name", ["add", "async_add"])
def test_a_step_added_by_overriding_a_phase_applies_to_every_call(base, how, name):
    executor = type("Limited", (RateLimit, base), {})()
    registry = ToolRegistry([add, async_add])
    uses = [_use(name, {"a": i}, f"r{i}") for i in range(4)]
    if how == "run":
        results = executor.run(uses, registry)
        statuses = [r.metadata.get("error_type", r.status) for r in results]
    elif how == "execute":
        results = asyncio.run(executor.execute(uses, registry))
        statuses = [r.metadata.get("error_type", r.status) for r in results]
    else:
        frame = executor.map(
            add if name == "add" else async_add, [{"a": i} for i in range(4)], registry=registry, progress=False
        )
        statuses = [e if isinstance(e, str) else s for s, e in zip(frame["status"], frame["error_type"])]
    assert sorted(statuses) == ["RateLimited", "RateLimited", "success", "success"]
    assert executor.finished == 4
    executor.close()


# -- the plan: the same phases, cached -------------------------------------------------------------------


@pytest.mark.parametrize("name,payload", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_a_planned_call_answers_as_the_phases_without_a_plan(name, payload):
    registry = ToolRegistry(TOOLS)
    executor = SequentialExecutor()
    planned_run = executor.run([_use(name, payload)], registry)[0]
    planned_execute = asyncio.run(executor.execute([_use(name, payload)], registry))[0]
    planned_phases = _by_phases(executor, _use(name, payload), executor.start_run(registry))
    unplanned = _by_phases(executor, _use(name, payload), _unplanned(executor, registry))
    assert _comparable(planned_run) == _comparable(unplanned)
    assert _comparable(planned_execute) == _comparable(unplanned)
    assert _comparable(planned_phases) == _comparable(unplanned)
    assert planned_run.started_at and planned_run.completed_at and planned_run.metadata["latency_ms"] >= 0


def test_run_planned_takes_a_planned_call_and_declines_the_others():
    executor, registry = SequentialExecutor(), ToolRegistry([add, forbidden])
    result = executor.run_planned(_use("add", {"a": 1}), registry.registry)
    assert type(result) is ToolResult and result.value == 3
    assert executor.run_planned(_use("forbidden", {"a": 1}), registry.registry) is None
    assert executor.run_planned(_use("nope", {}), registry.registry) is None


def test_validate_and_call_tools_have_a_plan_and_the_others_do_not():
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

    assert call_plan(add) is not None and call_plan(add).func is add._func
    assert call_plan(async_add).is_async
    assert [call_plan(t) for t in (slow, once, ask)] == [None, None, None]


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


def test_listeners_and_the_log_still_see_planned_calls(tmp_path):
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


def test_a_planned_async_call_can_still_be_cancelled_by_id():
    @tool
    async def nap(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "woke"

    result = _cancelled_while_running(nap)
    assert result.status == "error" and result.metadata["error_type"] == "CancelledError"


def test_an_async_planned_tool_that_waits_several_times_and_then_fails_or_answers():
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
        return await SequentialExecutor().execute(
            [_use("steps", {"n": 3}, "a"), _use("steps", {"n": -2}, "b"), _use("steps", {"n": 0}, "c")], registry
        )

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


# -- the executors use the phases, nothing private ---------------------------------------------------------

PACKAGE = Path(__file__).resolve().parents[2] / "workbench"


def _private_names_of_the_base() -> set[str]:
    classes = {klass for executor in (SequentialExecutor, ConcurrentExecutor) for klass in executor.__mro__}
    names = {name for klass in classes for name in vars(klass) if name.startswith("_")}
    return {name for name in names if not name.startswith("__")}


@pytest.mark.parametrize("path", ["dask.py", "_batch.py"])
def test_other_executors_and_the_batch_use_only_public_phases(path):
    tree = ast.parse((PACKAGE / path).read_text(encoding="utf-8"))
    private = _private_names_of_the_base()
    reach_ins = sorted(
        {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in private}
    )
    imported = sorted(
        {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("workbench.executor")
            for alias in node.names
            if alias.name.startswith("_")
        }
    )
    looked_up = sorted(
        {
            node.args[1].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "getattr"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and (
                node.args[1].value in private
                or getattr(node.args[0], "id", None) in ("executor", "self")
                and node.args[1].value.startswith("_")
            )
        }
    )
    assert (reach_ins, imported, looked_up) == ([], [], [])


def test_only_the_spec_module_reads_the_specs_private_state():
    sources = [
        *PACKAGE.glob("executor*.py"),
        *(PACKAGE / "executor").glob("*.py"),
        PACKAGE / "dask.py",
        PACKAGE / "_batch.py",
    ]
    readers = sorted(
        str(path.relative_to(PACKAGE)) for path in sources if "__pydantic_private__" in path.read_text(encoding="utf-8")
    )
    assert readers == []


@pytest.mark.parametrize("executor_class", [SequentialExecutor, ConcurrentExecutor])
def test_ctx_log_lines_go_with_the_result_of_a_sync_and_an_async_tool_alike(executor_class):
    from workbench import ToolContext

    @tool
    async def noted(x: int, ctx: ToolContext) -> int:
        """Logs a line (async)."""
        ctx.log("seen")
        return x

    @tool
    def noted_sync(x: int, ctx: ToolContext) -> int:
        """Logs a line."""
        ctx.log("seen")
        return x

    executor = executor_class()  # no log, no listener: finish has nothing else to do
    results = executor.run(
        [_use("noted", {"x": 1}, "a"), _use("noted_sync", {"x": 1}, "b")], ToolRegistry([noted, noted_sync])
    )
    assert [[entry["message"] for entry in r.metadata.get("logs", [])] for r in results] == [["seen"], ["seen"]]
    executor.close()
