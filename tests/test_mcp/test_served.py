"""``@resource`` / ``@prompt`` served beside tools: subscriptions on both protocol eras, completion,
protocol errors, declaration errors, and ``python -m workbench.mcp serve`` on modules of each kind.
Real servers (a process on loopback, or in memory) and the SDK's real client."""

from __future__ import annotations

import subprocess
import textwrap

import anyio
import mcp.types as types
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from tests.mcp_servers import ROOT, eventually, http_server, serve_command
from workbench.mcp import build_server, connect, prompt, resource

# the handshake era is the one with resources/subscribe; the SDK warns that 2026-07-28 removed it
pytestmark = pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")

MODULE = "tests/mcp_conformance_resources.py"
WATCHED = "test://watched-resource"


@pytest.fixture(scope="module")
def server_url():
    with http_server(serve_command(MODULE, "--transport", "streamable-http", "--port", "0")) as url:
        yield url


# -- subscriptions --------------------------------------------------------------------------------------------
MEMOS = textwrap.dedent('''
    from workbench import tool
    from workbench.mcp import resource

    @resource("memo://a")
    def a() -> str:
        """Memo a."""
        return "a"

    @resource("memo://b")
    def b() -> str:
        """Memo b."""
        return "b"

    @tool
    def touch(uri: str) -> str:
        """Announce a change of memo://a or memo://b."""
        {"memo://a": a, "memo://b": b}[uri].updated()
        return uri
''')


def test_a_handshake_era_subscriber_hears_updates_until_it_unsubscribes(tmp_path):
    """resources/subscribe → notifications/resources/updated on each change; after resources/unsubscribe,
    none. The updates travel in order on the session's one stream, so once memo://b's update arrives,
    a stray update of memo://a (sent after the unsubscription) would have arrived before it."""
    path = tmp_path / "memos.py"
    path.write_text(MEMOS)
    updates: list[str] = []

    async def scenario(url: str) -> None:
        arrived = {"memo://a": anyio.Event(), "memo://b": anyio.Event()}

        async def on_message(message) -> None:
            if isinstance(message, types.ResourceUpdatedNotification):
                updates.append(str(message.params.uri))
                arrived[str(message.params.uri)].set()

        async with Client(url, mode="legacy", message_handler=on_message) as client:
            assert client.server_capabilities.resources.subscribe is True
            await client.subscribe_resource("memo://a")
            await client.call_tool("touch", {"uri": "memo://a"})
            with anyio.fail_after(30):
                await arrived["memo://a"].wait()
            assert (await client.read_resource("memo://a")).contents[0].text == "a"
            await client.unsubscribe_resource("memo://a")
            await client.call_tool("touch", {"uri": "memo://a"})  # unsubscribed: no notification
            await client.subscribe_resource("memo://b")
            await client.call_tool("touch", {"uri": "memo://b"})
            with anyio.fail_after(30):
                await arrived["memo://b"].wait()
            assert updates == ["memo://a", "memo://b"]

    with http_server(serve_command(str(path), "--transport", "streamable-http", "--port", "0")) as url:
        anyio.run(scenario, url)


def test_subscribing_to_an_unknown_resource_is_a_protocol_error(server_url):
    async def scenario() -> None:
        async with Client(server_url, mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.subscribe_resource("test://nothing-here")
            assert caught.value.error.code == types.INVALID_PARAMS
            assert "test://nothing-here" in caught.value.error.message

    anyio.run(scenario)


def test_a_2026_era_connection_hears_updates_on_its_listen_stream():
    server = build_server(MODULE)
    updates: list[str] = []
    with connect(server=server) as conn:
        assert conn.protocol_version == "2026-07-28"
        unsubscribe = conn.subscribe_resource(WATCHED, updates.append)
        conn.call_tool("touch_watched")
        eventually(lambda: updates, what="notifications/resources/updated on the listen stream")
        assert updates[0] == WATCHED
        unsubscribe()


def test_updated_needs_a_uri_of_the_resource():
    @resource("memo://{id}")
    def memo(id: str) -> str:
        """A memo."""
        return id

    with pytest.raises(ValueError, match=r"updated\(\) needs the URI.*memo://1"):
        memo.updated()
    with pytest.raises(ValueError, match="'other://1' is not a URI of this template"):
        memo.updated("other://1")
    memo.updated("memo://7")  # served nowhere: nobody to tell, no error


# -- completion -----------------------------------------------------------------------------------------------
def test_completion_offers_hook_values_with_the_other_arguments_and_caps_the_answer():
    many = [f"v{i:03d}" for i in range(150)]

    @prompt(
        complete={
            "city": ["Paris", "Parma", "Oslo"],
            "street": lambda typed, others: [f"{others['city']}/{typed}"],
            "code": lambda typed: many,
        }
    )
    def visit(city: str, street: str, code: str = "") -> str:
        """Plan a visit."""
        return f"{city} {street} {code}"

    @resource("memo://{id}", complete={"id": ["12", "13", "20"]})
    def memo(id: str) -> str:
        """A memo."""
        return id

    async def scenario() -> None:
        async with Client(build_server([visit, memo])) as client:
            ref = types.PromptReference(type="ref/prompt", name="visit")
            found = await client.complete(ref, {"name": "city", "value": "par"})
            assert found.completion.values == ["Paris", "Parma"]
            found = await client.complete(ref, {"name": "street", "value": "Main"}, context_arguments={"city": "Oslo"})
            assert found.completion.values == ["Oslo/Main"]
            found = await client.complete(ref, {"name": "code", "value": ""})
            assert (len(found.completion.values), found.completion.total, found.completion.has_more) == (100, 150, True)
            template = types.ResourceTemplateReference(type="ref/resource", uri="memo://{id}")
            assert (await client.complete(template, {"name": "id", "value": "1"})).completion.values == ["12", "13"]
            with pytest.raises(MCPError, match="no prompt 'nope'"):
                await client.complete(types.PromptReference(type="ref/prompt", name="nope"), {"name": "x", "value": ""})

    anyio.run(scenario)


def test_a_failing_completion_hook_names_the_argument():
    def broken(typed: str) -> list:
        raise RuntimeError("the city list is offline")

    @prompt(complete={"city": broken})
    def visit(city: str) -> str:
        """Plan a visit."""
        return city

    async def scenario() -> None:
        async with Client(build_server([visit])) as client:
            with pytest.raises(MCPError, match="Completing 'city' failed: RuntimeError: the city list is offline"):
                await client.complete(
                    types.PromptReference(type="ref/prompt", name="visit"), {"name": "city", "value": ""}
                )

    anyio.run(scenario)


# -- prompts/get errors ------------------------------------------------------------------------------------------
def test_prompt_errors_name_the_prompt_and_the_missing_arguments():
    async def scenario() -> None:
        async with Client(build_server(MODULE)) as client:
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("nope")
            assert caught.value.error.code == types.INVALID_PARAMS
            assert "Unknown prompt 'nope'" in caught.value.error.message
            assert "test_simple_prompt" in caught.value.error.message
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("test_prompt_with_arguments", {"arg1": "x"})
            assert caught.value.error.code == types.INVALID_PARAMS
            assert "'arg2'" in caught.value.error.message
            listed = {p.name: p for p in (await client.list_prompts()).prompts}
            [arg1, _] = listed["test_prompt_with_arguments"].arguments
            assert (arg1.description, arg1.required) == ("First test argument", True)  # from the docstring

    anyio.run(scenario)


# -- declaration errors -----------------------------------------------------------------------------------------
def test_declaration_errors_name_the_function_and_what_was_expected():
    with pytest.raises(TypeError, match=r"@resource needs the URI"):

        @resource
        def bare() -> str:
            return ""

    with pytest.raises(ValueError, match=r"@resource\('memo://\{id\}'\) on .*wrong_params.*Mismatch"):

        @resource("memo://{id}")
        def wrong_params(key: str) -> str:
            return key

    with pytest.raises(ValueError, match=r"cannot complete 'city', which is not one of its arguments \(name\)"):

        @prompt(complete={"city": ["x"]})
        def greet(name: str) -> str:
            return name

    with pytest.raises(TypeError, match="must be a list of strings or a function"):

        @prompt(complete={"name": "Ann"})
        def greet2(name: str) -> str:
            return name

    @resource("memo://a")
    def first() -> str:
        return "a"

    @resource("memo://a")
    def second() -> str:
        return "b"

    with pytest.raises(ValueError, match="two resources are declared as 'memo://a'"):
        build_server([first, second])
    with pytest.raises(TypeError, match="served= takes what @resource and @prompt return"):
        build_server([first], served=["memo://a"])


def test_a_decorated_function_is_still_callable():
    @prompt
    def greet(name: str) -> str:
        """Greet."""
        return f"hello {name}"

    assert greet("Ann") == "hello Ann"
    assert greet.__doc__ == "Greet." and greet.__name__ == "greet"


# -- python -m workbench.mcp serve ----------------------------------------------------------------------------------
def test_serve_takes_a_module_with_only_prompts(tmp_path):
    path = tmp_path / "only_prompts.py"
    path.write_text(
        textwrap.dedent('''
        from workbench.mcp import prompt

        @prompt
        def hello(name: str) -> str:
            """Say hello."""
            return f"Hello {name}"
    ''')
    )
    with http_server(
        serve_command(str(path), "--transport", "streamable-http", "--port", "0"), marker="serving 0 tools, 1 prompt"
    ) as url:

        async def scenario() -> None:
            async with Client(url, mode="legacy") as client:
                got = await client.get_prompt("hello", {"name": "Ann"})
                assert got.messages[0].content.text == "Hello Ann"
                assert client.server_capabilities.resources is None  # nothing declared, nothing offered

        anyio.run(scenario)


def test_serve_refuses_a_module_with_nothing_to_serve(tmp_path):
    path = tmp_path / "empty_module.py"
    path.write_text("X = 1\n")
    done = subprocess.run(
        serve_command(str(path)), cwd=str(ROOT), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert "defines no tools, resources or prompts" in done.stderr and "Traceback" not in done.stderr


def test_a_tools_only_server_offers_no_resources_prompts_or_completion():
    async def scenario() -> None:
        async with Client(build_server("tests.mcp_sample_tools"), mode="legacy") as client:
            capabilities = client.server_capabilities
            assert (capabilities.resources, capabilities.prompts, capabilities.completions) == (None, None, None)

    anyio.run(scenario)


def test_building_a_server_leaves_the_root_logger_alone() -> None:
    """The SDK's MCPServer gives the root logger an INFO handler when built; build_server (which builds one
    for its resources and prompts) must not, or a notebook that serves prints every later HTTP request."""
    import logging
    import subprocess
    import sys

    code = (
        "import logging\nfrom workbench import ToolRegistry\nfrom workbench.mcp import build_server, resource\n"
        "@resource('memo://{id}')\ndef memo(id: str) -> str:\n    return id\n"
        "build_server(ToolRegistry(), served=[memo])\n"
        "root = logging.getLogger()\nprint(len(root.handlers), logging.getLevelName(root.level))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert shown.stdout.split() == ["0", logging.getLevelName(logging.WARNING)], shown
