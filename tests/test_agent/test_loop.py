"""The agent loop driven by ScriptedModel: turns, parallel calls, approvals, reviews, failures, limits."""

import asyncio
import threading
import warnings

import pytest

from workbench import ConcurrentExecutor, SequentialExecutor, ToolRegistry, tool
from workbench.agent import ModelStep, ToolStep, arun_agent, run_agent
from workbench.models import ModelError, ModelTurn, ScriptedModel


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(permission="ask_user")
def delete_file(path: str) -> str:
    """Delete a file (asks first)."""
    return f"deleted {path}"


@tool(permission="always_deny")
def format_disk() -> str:
    """Never allowed."""
    return "formatted"


def call(name, input, id=None):
    return {"name": name, "input": input, **({"id": id} if id else {})}


def tool_messages(messages):
    return [m for m in messages if m["role"] == "tool"]


def test_a_multi_turn_run_sends_results_back_until_the_model_answers():
    seen = []

    def second(messages, tools):
        seen.append(messages)
        return "1 + 2 = 3"

    model = ScriptedModel([{"tool_calls": [call("add", {"a": 1, "b": 2}, "c1")]}, second])
    transcript = run_agent(model, "what is 1 + 2?", tools=[add], system="be brief", temperature=0, tool_choice="auto")
    assert (
        transcript.stopped_because == "end_turn" and transcript.error is None and transcript.final_text == "1 + 2 = 3"
    )
    assert [type(s) for s in transcript.steps] == [ModelStep, ToolStep, ModelStep]
    assert [m["role"] for m in transcript.messages] == ["system", "user", "assistant", "tool", "assistant"]
    results = seen[0][-1]
    assert results["role"] == "tool" and results["results"][0]["toolUseId"] == "c1"
    assert results["results"][0]["content"] == [{"text": "3"}, {"json": 3}]
    assert seen[0][0] == {"role": "system", "content": "be brief"}
    assert model.calls[0]["params"] == {"temperature": 0} and model.calls[0]["tool_choice"] == "auto"
    assert model.calls[0]["tools"] == ["add"]
    assert [c["name"] for c in transcript.tool_calls] == ["add"] and transcript.tool_results[0].json == 3
    assert transcript.model == "scripted:scripted" and transcript.run_id.startswith("run_")
    assert transcript.settings == {"params": {"temperature": 0}, "tool_choice": "auto", "max_turns": 10}


def test_parallel_calls_of_one_turn_run_concurrently():
    """Both calls start before either finishes: each waits at a barrier for the other (a sequential
    run would time out at the barrier, as the second test shows)."""
    events = []

    @tool
    async def meet(who: str) -> str:
        """Wait for the other caller."""
        events.append(f"start {who}")
        await asyncio.wait_for(barrier.wait(), 5)
        events.append(f"end {who}")
        return who

    barrier = None

    async def main():
        nonlocal barrier
        barrier = asyncio.Barrier(2)
        model = ScriptedModel([{"tool_calls": [call("meet", {"who": "a"}), call("meet", {"who": "b"})]}, "met"])
        return await arun_agent(model, "meet", tools=[meet])

    transcript = asyncio.run(main())
    assert [r.status for r in transcript.tool_results] == ["success", "success"]
    assert events[:2] == ["start a", "start b"] and sorted(events[2:]) == ["end a", "end b"]


def test_sync_tools_of_one_turn_run_in_parallel_threads():
    barrier = threading.Barrier(3, timeout=5)

    @tool
    def meet_sync(who: str) -> str:
        """Wait in a thread for the other two callers."""
        barrier.wait()
        return who

    model = ScriptedModel([{"tool_calls": [call("meet_sync", {"who": w}) for w in "abc"]}, "met"])
    transcript = run_agent(model, "meet", tools=[meet_sync])
    assert [r.text for r in transcript.tool_results] == ["a", "b", "c"]


def test_a_sequential_executor_runs_the_calls_one_after_the_other():
    @tool
    async def meet_alone(who: str) -> str:
        """Waits for a partner who never comes."""
        await asyncio.wait_for(asyncio.Event().wait(), 0.2)
        return who

    model = ScriptedModel([{"tool_calls": [call("meet_alone", {"who": "a"}), call("meet_alone", {"who": "b"})]}, "x"])
    transcript = run_agent(model, "meet", tools=[meet_alone], executor=SequentialExecutor())
    assert [r.status for r in transcript.tool_results] == ["error", "error"]


def test_approvals_are_asked_inside_the_loop_and_denials_reach_the_model():
    asked = []

    def approver(tool_use, tool_obj):
        asked.append((tool_use["input"]["path"], tool_obj.tool_name))
        return tool_use["input"]["path"] == "/tmp/ok"

    model = ScriptedModel(
        [
            {"tool_calls": [call("delete_file", {"path": "/tmp/ok"}), call("delete_file", {"path": "/etc/passwd"})]},
            "done",
        ]
    )
    transcript = run_agent(model, "clean up", tools=[delete_file], approver=approver)
    assert asked == [("/tmp/ok", "delete_file"), ("/etc/passwd", "delete_file")]
    ok, denied = transcript.tool_results
    assert ok.status == "success" and ok.text == "deleted /tmp/ok"
    assert denied.status == "error" and denied.metadata["error_type"] == "PermissionDenied"
    assert "denied by the approver" in denied.error
    sent = model.calls[1]["messages"][-1]["results"]
    assert [r["status"] for r in sent] == ["success", "error"]


def test_an_ask_user_tool_without_any_approver_is_denied_and_the_run_goes_on():
    model = ScriptedModel([{"tool_calls": [call("delete_file", {"path": "/x"})]}, "could not"])
    transcript = run_agent(model, "delete", tools=[delete_file])
    assert "no approver is configured" in transcript.tool_results[0].error
    assert transcript.stopped_because == "end_turn" and transcript.final_text == "could not"


def test_the_run_approver_wins_over_the_executors_own_for_that_run_only():
    executor = ConcurrentExecutor(approver=lambda use, t: False)
    model = ScriptedModel([{"tool_calls": [call("delete_file", {"path": "/x"})]}, "ok"])

    async def approve(use, t):
        return True

    assert run_agent(model, "delete", tools=[delete_file], executor=executor, approver=approve).tool_results[0].ok
    model.reset()
    assert not run_agent(model, "delete", tools=[delete_file], executor=executor).tool_results[0].ok


def test_always_deny_tools_never_run():
    model = ScriptedModel([{"tool_calls": [call("format_disk", {})]}, "no"])
    result = run_agent(model, "format", tools=[format_disk], approver=lambda *a: True).tool_results[0]
    assert result.status == "error" and result.metadata["error_type"] == "PermissionDenied"
    assert "always_deny" in result.error


def test_review_runs_denies_and_edits_calls():
    runs = []

    @tool
    def write(path: str, text: str = "") -> str:
        """Write a file."""
        runs.append((path, text))
        return f"wrote {path}"

    decisions = {
        "a": True,
        "b": False,
        "c": {"path": "c-edited", "text": "safe"},
        "d": {"name": "add", "input": {"a": 1, "b": 1}},
    }
    reviewed = []

    async def review(tool_use, tool_obj):
        reviewed.append((tool_use["input"]["path"], tool_obj.tool_name))
        return decisions[tool_use["input"]["path"]]

    calls = [call("write", {"path": p}, f"id-{p}") for p in "abcd"]
    model = ScriptedModel([{"tool_calls": calls}, "done"])
    transcript = run_agent(model, "write files", tools=[write, add], review=review)
    assert reviewed == [(p, "write") for p in "abcd"]
    assert runs == [("a", ""), ("c-edited", "safe")]
    a, b, c, d = transcript.tool_steps
    assert a.ok and a.original is None
    assert b.result.status == "error" and b.result.metadata["error_type"] == "DeniedByUser"
    assert "denied by the user" in b.result.error and b.tool_use["input"] == {"path": "b"}
    assert c.ok and c.tool_use == {"toolUseId": "id-c", "name": "write", "input": {"path": "c-edited", "text": "safe"}}
    assert c.original["input"] == {"path": "c"} and c.edited
    assert d.tool_use["name"] == "add" and d.result.json == 2 and d.original["name"] == "write"
    assert [r.tool_use_id for r in transcript.tool_results] == ["id-a", "id-b", "id-c", "id-d"]
    assert [c["input"]["path"] for c in transcript.tool_calls] == list("abcd")  # the model's own calls


def test_a_failing_review_answers_the_call_with_an_error_and_a_bad_answer_is_a_type_error():
    model = ScriptedModel([{"tool_calls": [call("add", {"a": 1, "b": 2})]}, "ok"])

    def broken(tool_use, tool_obj):
        raise RuntimeError("reviewer crashed")

    result = run_agent(model, "add", tools=[add], review=broken).tool_results[0]
    assert result.metadata["error_type"] == "ReviewFailed" and "reviewer crashed" in result.error
    model.reset()
    with pytest.raises(TypeError, match="review must return True.*returned None for the call of tool 'add'"):
        run_agent(model, "add", tools=[add], review=lambda use, t: None)


def test_a_tool_timeout_is_an_error_result_the_model_sees():
    @tool(timeout=0.05)
    async def slow() -> str:
        """Too slow."""
        await asyncio.sleep(5)
        return "late"

    model = ScriptedModel([{"tool_calls": [call("slow", {})]}, "gave up"])
    transcript = run_agent(model, "wait", tools=[slow])
    result = transcript.tool_results[0]
    assert result.status == "error" and result.metadata["error_type"] == "TimeoutError"
    assert model.calls[1]["messages"][-1]["results"][0]["status"] == "error"


def test_malformed_and_unknown_calls_are_error_results_never_exceptions():
    turn = ModelTurn(
        tool_calls=[
            {"toolUseId": "bad", "name": "add", "input": '{"a": 1, "b":'},
            {"toolUseId": "nope", "name": "sub", "input": {}},
            {"toolUseId": "good", "name": "add", "input": {"a": 2, "b": 2}},
        ],
        stop_reason="tool_use",
    )
    model = ScriptedModel([turn, "sorry"])
    transcript = run_agent(model, "add", tools=[add])
    bad, nope, good = transcript.tool_results
    assert bad.metadata["error_type"] == "ToolInputError" and "not valid JSON" in bad.error and "'add'" in bad.error
    assert nope.metadata["error_type"] == "ToolNotFoundError" and "sub" in nope.error
    assert good.json == 4
    assert [r["toolUseId"] for r in model.calls[1]["messages"][-1]["results"]] == ["bad", "nope", "good"]
    assert transcript.stopped_because == "end_turn"


def test_max_turns_stops_a_model_that_keeps_calling():
    model = ScriptedModel([{"tool_calls": [call("add", {"a": 1, "b": 1})]}], repeat_last=True)
    transcript = run_agent(model, "loop", tools=[add], max_turns=3)
    assert transcript.stopped_because == "max_turns" and len(transcript.model_steps) == 3
    assert len(transcript.tool_steps) == 3 and transcript.messages[-1]["role"] == "tool"  # every call answered
    with pytest.raises(ValueError, match="max_turns must be a positive integer"):
        run_agent(model, "loop", tools=[add], max_turns=0)


def test_a_model_error_ends_the_run_with_the_transcript_returned():
    failed = ModelTurn(request={"model": "m", "messages": []}, latency_ms=12.0)

    def fail(messages, tools):
        raise ModelError("rate limited, retry in 2 s", kind="rate_limit", provider="scripted", turn=failed)

    model = ScriptedModel([{"tool_calls": [call("add", {"a": 1, "b": 1})]}, fail])
    transcript = run_agent(model, "add", tools=[add])
    assert transcript.stopped_because == "model_error" and transcript.error == "rate limited, retry in 2 s"
    last = transcript.steps[-1]
    assert (
        isinstance(last, ModelStep)
        and last.error_kind == "rate_limit"
        and last.turn.request == {"model": "m", "messages": []}
    )
    assert last.turn.latency_ms == 12.0 and transcript.final_text == ""
    exhausted = run_agent(ScriptedModel([]), "hi", tools=[add])
    assert exhausted.stopped_because == "model_error" and exhausted.steps[0].error_kind == "script_exhausted"


def test_a_model_raising_anything_else_is_a_model_error_with_secrets_masked():
    def crash(messages, tools):
        raise RuntimeError("401 for Authorization: Bearer sk-live-abcdefghijklmnop at /v1?key=AIzaSECRET123")

    transcript = run_agent(ScriptedModel([crash]), "hi", tools=[add])
    assert transcript.stopped_because == "model_error" and transcript.error.startswith("RuntimeError: 401")
    for secret in ("sk-live-abcdefghijklmnop", "AIzaSECRET123", "abcdefghijklmnop"):
        assert secret not in transcript.to_json()


def test_secret_params_are_masked_in_the_transcript():
    transcript = run_agent(ScriptedModel(["hi"]), "hi", tools=[add], api_key="sk-secret-123456789", temperature=1)
    assert transcript.settings["params"] == {"api_key": "***", "temperature": 1}
    assert "sk-secret-123456789" not in transcript.to_json()


def test_on_step_sees_each_step_in_order_and_a_broken_listener_only_warns():
    seen = []

    async def listener(step):
        seen.append(step.kind)

    model = ScriptedModel([{"tool_calls": [call("add", {"a": 1, "b": 1}), call("add", {"a": 2, "b": 2})]}, "done"])
    transcript = run_agent(model, "add", tools=[add], on_step=listener)
    assert seen == ["model", "tool", "tool", "model"] and len(transcript.steps) == 4

    def broken(step):
        raise ValueError("ui gone")

    model.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        transcript = run_agent(model, "add", tools=[add], on_step=broken)
    assert transcript.stopped_because == "end_turn"
    assert any("ui gone" in str(w.message) for w in caught)


def test_cancelling_the_run_returns_the_transcript_with_every_call_answered():
    started = None

    @tool
    async def forever() -> str:
        """Never returns."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    async def main():
        nonlocal started
        started = asyncio.Event()
        model = ScriptedModel([{"tool_calls": [call("forever", {}, "f1")]}, "unreachable"])
        task = asyncio.ensure_future(arun_agent(model, "go", tools=[forever]))
        await started.wait()
        task.cancel()
        return await task

    transcript = asyncio.run(main())
    assert transcript.stopped_because == "cancelled" and transcript.error == "the run was cancelled"
    assert transcript.messages[-1]["role"] == "tool"
    assert transcript.messages[-1]["results"][0]["toolUseId"] == "f1"
    assert transcript.tool_results[0].metadata["error_type"] == "CancelledError"


def test_idempotent_calls_of_one_turn_run_once():
    count = []

    @tool(idempotent=True)
    def lookup(key: str) -> str:
        """Look a key up."""
        count.append(key)
        return key.upper()

    model = ScriptedModel([{"tool_calls": [call("lookup", {"key": "k"}), call("lookup", {"key": "k"})]}, "K"])
    transcript = run_agent(model, "look", tools=[lookup])
    assert count == ["k"] and [r.text for r in transcript.tool_results] == ["K", "K"]


def test_spec_only_tools_answer_with_generated_values():
    spec = {
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "returns": {"type": "object", "properties": {"temp_c": {"type": "number"}}, "required": ["temp_c"]},
    }
    model = ScriptedModel([{"tool_calls": [call("weather", {"city": "Oslo"})]}, "cold"])
    transcript = run_agent(model, "weather?", tools=[spec])
    result = transcript.tool_results[0]
    assert result.ok and isinstance(result.json["temp_c"], (int, float))
    registry = ToolRegistry([spec])  # a registry the caller built keeps its own setting: not synthetic
    model.reset()
    assert (
        run_agent(model, "weather?", tools=registry).tool_results[0].metadata["error_type"] == "NoImplementationError"
    )


def test_a_bad_model_name_says_what_is_expected():
    with pytest.raises(ValueError, match="provider:model"):
        run_agent("gpt-4", "hi", tools=[add])


def test_run_agent_works_inside_a_running_event_loop_as_in_a_notebook():
    import workbench

    async def cell():
        model = ScriptedModel([{"tool_calls": [call("add", {"a": 2, "b": 3})]}, "5"])
        return workbench.run_agent(model, "add", tools=[add], approver=lambda *a: True)

    transcript = asyncio.run(cell())
    assert transcript.final_text == "5" and transcript.tool_results[0].text == "5"
    assert workbench.Transcript is type(transcript)


def test_approving_sets_the_approver_of_the_calls_made_in_its_context():
    from workbench.executor import approving

    executor = SequentialExecutor(approver=lambda use, t: False)
    use = {"toolUseId": "d1", "name": "delete_file", "input": {"path": "/x"}}
    with approving(lambda use, t: True):
        assert executor.run([use], [delete_file])[0].ok
    assert "denied by the approver" in executor.run([use], [delete_file])[0].error


def test_on_step_sees_each_call_as_it_finishes_and_the_transcript_keeps_the_models_order():
    seen = None

    @tool
    async def slow() -> str:
        """Finishes once the live view has shown the fast call."""
        await asyncio.wait_for(seen.wait(), 5)
        return "slow"

    @tool
    async def fast() -> str:
        """Finishes at once."""
        return "fast"

    def on_step(step):
        if isinstance(step, ToolStep) and step.name == "fast":
            seen.set()  # the slow call is still running: it only ends after this

    async def main():
        nonlocal seen
        seen = asyncio.Event()
        model = ScriptedModel([{"tool_calls": [call("slow", {}, "s"), call("fast", {}, "f")]}, "both"])
        return await arun_agent(model, "go", tools=[slow, fast], on_step=on_step)

    transcript = asyncio.run(main())
    assert [r.text for r in transcript.tool_results] == ["slow", "fast"]  # the model's order, not the finish order
    assert [r["toolUseId"] for r in transcript.messages[2]["results"]] == ["s", "f"]


def test_a_cancel_keeps_the_results_of_the_calls_that_finished():
    finished = None

    @tool
    async def hang() -> str:
        """Never returns."""
        await asyncio.sleep(60)
        return "never"

    def on_step(step):
        if isinstance(step, ToolStep):
            finished.set()  # the quick call is done; the other still hangs

    async def main():
        nonlocal finished
        finished = asyncio.Event()
        model = ScriptedModel([{"tool_calls": [call("hang", {}, "h"), call("add", {"a": 1, "b": 1}, "a")]}, "x"])
        task = asyncio.ensure_future(arun_agent(model, "go", tools=[hang, add], on_step=on_step))
        await finished.wait()
        task.cancel()
        return await task

    transcript = asyncio.run(main())
    assert transcript.stopped_because == "cancelled"
    assert [(s.result.tool_use_id, s.result.status) for s in transcript.tool_steps] == [
        ("h", "error"),
        ("a", "success"),
    ]
    assert [r["toolUseId"] for r in transcript.messages[-1]["results"]] == ["h", "a"]
