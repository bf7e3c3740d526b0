"""A tool's ``ctx.log`` lines and questions (``ctx.elicit`` / ``ctx.sample``) kept with its call's row in
the execution log (``metadata["logs"]``), shown as rows under the call in ``LogTable``; a served tool's
questions land in the server's log the same way."""

from __future__ import annotations

import json

from workbench import ToolContext, tool
from workbench._peer import PEER_KEY, Elicitation, Sampled
from workbench.executor import ConcurrentExecutor, SequentialExecutor
from workbench.log import ExecutionLog
from workbench.registry import ToolRegistry
from workbench.types import make_tool_use

WAIT = 30


@tool(context=True)
def chatty(n: int, tool_context: ToolContext) -> int:
    """Logs at several levels, asks the user and a model."""
    tool_context.log("starting")
    tool_context.log("warning", f"n is {n}")
    answer = tool_context.elicit(
        "Your login?",
        {
            "type": "object",
            "properties": {"user": {"type": "string"}, "password": {"type": "string", "format": "password"}},
        },
    )
    sampled = tool_context.sample("Say hi", max_tokens=20)
    tool_context.log("debug", f"{answer.action} / {sampled.text}")
    return n


@tool(context=True)
async def async_chatty(tool_context: ToolContext) -> str:
    """The async form."""
    tool_context.log("error", "<b>not bold</b>")
    return (await tool_context.asample("Say hi")).text


@tool(context=True)
def lonely(tool_context: ToolContext) -> str:
    """Asks where nobody can answer."""
    tool_context.log("notice", "about to ask")
    return tool_context.sample("anyone?").text


class AnsweringPeer:
    loop = None

    def log(self, level, message, tool_name):
        pass

    async def elicit(self, message, schema, tool_name):
        return Elicitation("accept", {"user": "ann", "password": "hunter2-secret"})

    async def sample(self, messages, options, tool_name):
        return Sampled("hi there", "test-model", "endTurn")

    def release_stream(self):
        return False


def _registry(*tools) -> ToolRegistry:
    registry = ToolRegistry()
    registry.process_tools(list(tools))
    return registry


def _run(executor, uses, log, peer=True):
    state = {PEER_KEY: AnsweringPeer()} if peer else None
    return executor(log=log).run(uses, _registry(chatty, async_chatty, lonely), invocation_state=state)


def test_log_lines_and_questions_are_kept_with_the_call_row(tmp_path) -> None:
    path = tmp_path / "runs.sqlite"
    for executor in (SequentialExecutor, ConcurrentExecutor):
        with ExecutionLog(path) as log:
            _run(executor, [make_tool_use("chatty", {"n": 3}), make_tool_use("async_chatty", {})], log)
    with ExecutionLog(path) as log:  # read back from the file
        rows = log.rows()
    assert len(rows) == 4
    entries = [row["metadata"]["logs"] for row in rows if row["tool_name"] == "chatty"][0]
    assert [(e["level"], e.get("kind", "log"), e["message"]) for e in entries] == [
        ("info", "log", "starting"),
        ("warning", "log", "n is 3"),
        ("info", "elicitation", "Your login?"),
        ("info", "sampling", "Say hi"),
        ("debug", "log", "accept / hi there"),
    ]
    asked, sampled = entries[2], entries[3]
    assert asked["action"] == "accept" and asked["content"] == {"user": "ann", "password": "***"}
    assert "hunter2-secret" not in path.read_bytes().decode("utf-8", "replace")
    assert sampled["model"] == "test-model" and sampled["answer"] == "hi there"
    assert all(e["at"].endswith("Z") for e in entries)
    async_entries = [row["metadata"]["logs"] for row in rows if row["tool_name"] == "async_chatty"][0]
    assert [e["message"] for e in async_entries] == ["<b>not bold</b>", "Say hi"]


def test_a_question_nobody_answers_is_logged_as_an_error_line() -> None:
    log = ExecutionLog()
    [result] = _run(SequentialExecutor, [make_tool_use("lonely", {})], log, peer=False)
    assert result.status == "error" and result.metadata["error_type"] == "NobodyToAsk"
    notice, asked = log.rows()[0]["metadata"]["logs"]
    assert notice["level"] == "notice"
    assert asked["kind"] == "sampling" and asked["level"] == "error"
    assert asked["error"].startswith("NobodyToAsk: Tool 'lonely' called ToolContext.sample()")


def test_a_call_that_logged_nothing_has_no_logs_entry() -> None:
    @tool
    def quiet(x: int) -> int:
        return x

    log = ExecutionLog()
    SequentialExecutor(log=log).run([make_tool_use("quiet", {"x": 1})], _registry(quiet))
    assert "logs" not in log.rows()[0]["metadata"]


def test_the_log_table_shows_each_line_as_a_row_under_its_call() -> None:
    from workbench.jupyter import LogTable
    from workbench.jupyter._log_html import plain_text, table_html

    log = ExecutionLog()
    _run(SequentialExecutor, [make_tool_use("chatty", {"n": 3}), make_tool_use("async_chatty", {})], log)
    table = LogTable(log)
    try:
        html = table.table.value
        assert html.count("class='workbench-log-row") == 2  # the calls are still one row each
        assert html.count("<tr class='workbench-log-line") == 7
        # newest first: async_chatty's row, its two lines, then chatty's row and its five
        order = [chunk.split("'")[0] for chunk in html.split("<tr class='")[1:]]
        assert order == [
            "workbench-log-row",
            "workbench-log-line workbench-log-line-log",
            "workbench-log-line workbench-log-line-sampled",
            "workbench-log-row",
            *["workbench-log-line workbench-log-line-log"] * 2,
            "workbench-log-line workbench-log-line-asked",
            "workbench-log-line workbench-log-line-sampled",
            "workbench-log-line workbench-log-line-log",
        ]
        assert "workbench-log-level-warning'>warning</span>" in html
        assert "&lt;b&gt;not bold&lt;/b&gt;" in html and "<b>not bold</b>" not in html
        assert "Your login? → accept {&quot;user&quot;: &quot;ann&quot;, &quot;password&quot;: &quot;***&quot;}" in html
        assert "Say hi → test-model: hi there" in html
        # a line's row opens its call
        chatty_id = [r["id"] for r in table.rows if r["tool_name"] == "chatty"][0]
        assert html.count(f"data-key='{chatty_id}'") == 6
        table.select(chatty_id)
        assert "Tool log" in table.details_html.value and "warning n is 3" in table.details_html.value
    finally:
        table.close()
    rows = log.rows()
    static = table_html(rows, total=2, static=True)
    assert "workbench-log-level-error' style='color:color-mix" in static  # saved notebooks colour levels too
    text = plain_text(rows, total=2)
    assert "warning n is 3" in text and "sampling" not in text.split("\n")[0]


def test_served_questions_land_in_the_servers_log(tmp_path) -> None:
    """A served tool's ``ctx.log``, ``ctx.elicit`` and ``ctx.sample`` (a 2025-11-25 client answers the
    server's requests) are entries of the call's row in the server's own log."""
    import mcp.types as types

    from workbench.mcp import build_server, connect

    server_log = ExecutionLog(tmp_path / "server.sqlite")
    server = build_server(_registry(chatty), log=server_log)

    def sample(params: types.CreateMessageRequestParams) -> str:
        return "hello from the client"

    def elicit(params):
        return {"user": "bo", "password": "pw-secret-1234"}

    with connect(
        server=server,
        registry=ToolRegistry(),
        protocol_version="2025-11-25",
        sampling=sample,
        elicitation=elicit,
        connect_timeout=WAIT,
    ) as connection:
        result = connection.call_tool("chatty", {"n": 5})
    assert not result.is_error, result
    [row] = server_log.rows()
    entries = row["metadata"]["logs"]
    assert [e.get("kind", "log") for e in entries] == ["log", "log", "elicitation", "sampling", "log"]
    assert entries[2]["content"] == {"user": "bo", "password": "***"}
    assert entries[3]["answer"] == "hello from the client"
    assert entries[4]["message"] == "accept / hello from the client"
    assert "pw-secret-1234" not in json.dumps(server_log.rows())
