"""A connection's label — its command line or URL — is shown in ``repr(conn)``, a proxy tool's repr, error
messages, log rows and the inspector's Server tab: the credentials written into it are masked there
(``workbench.secrets.mask_command`` / ``mask_url``), against real server processes."""

from __future__ import annotations

import socket
import sys

import pytest

from tests.mcp_servers import EVERYTHING, ROOT, WAIT, http_server, npm_server, serve_command
from workbench.mcp import McpConnectionError, connect
from workbench.registry import ToolRegistry

SECRET = "wb-label-secret-4d2e9a"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_command_with_a_secret_is_masked_in_reprs_and_the_inspector():
    from workbench.jupyter._mcp_inspector import McpInspector
    from workbench.jupyter._workbench import Workbench

    workbench = Workbench()
    command = ["env", f"API_KEY={SECRET}", *serve_command("tests.mcp_sample_tools")]
    with connect(command, cwd=str(ROOT), registry=workbench.registry, connect_timeout=WAIT) as conn:
        assert "API_KEY=***" in conn.label and "mcp_sample_tools" in conn.label
        proxy = next(iter(conn.proxies.values()))
        view = McpInspector(conn, workbench)
        shown = [repr(conn), repr(proxy), str(proxy.get_display_properties()), view.server_html.value, view.title.value]
        for text in shown:
            assert SECRET not in text, text


def test_a_failed_command_says_so_without_its_secret_even_when_the_server_prints_it():
    script = "import sys; print('started as', sys.argv, file=sys.stderr); sys.exit(3)"
    with pytest.raises(McpConnectionError) as caught:
        connect(
            [sys.executable, "-c", script, "--api-key", SECRET, "--header", f"Authorization: Bearer {SECRET}x"],
            registry=ToolRegistry(),
            connect_timeout=WAIT,
        )
    message = str(caught.value)
    assert "Could not connect to MCP server" in message and "--api-key '***'" in message
    assert "started as" in message  # the server's stderr is still shown
    assert SECRET not in message


def test_a_url_with_credentials_is_masked_in_the_repr_and_the_inspector():
    from workbench.jupyter._mcp_inspector import McpInspector
    from workbench.jupyter._workbench import Workbench

    with http_server(
        serve_command("tests.mcp_sample_tools", "--transport", "streamable-http", "--port", "0", "--token", SECRET)
    ) as url:
        workbench = Workbench()
        with connect(
            url=f"{url}?api_key={SECRET}q", token=SECRET, registry=workbench.registry, connect_timeout=WAIT
        ) as conn:
            assert conn.label.endswith("?api_key=***")
            view = McpInspector(conn, workbench)
            for text in (repr(conn), repr(next(iter(conn.proxies.values()))), view.server_html.value, view.title.value):
                assert SECRET not in text, text


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/mcp?api_key={secret}",
        "http://user:{secret}@127.0.0.1:{port}/mcp",
        "http://{secret}@127.0.0.1:{port}/mcp",
    ],
)
def test_a_failed_url_connection_says_so_without_its_secret(url):
    url = url.format(port=_free_port(), secret=SECRET)
    with pytest.raises(McpConnectionError) as caught:
        connect(url=url, registry=ToolRegistry(), connect_timeout=WAIT)
    message = str(caught.value)
    assert "Could not connect to MCP server http://" in message and "127.0.0.1" in message
    assert SECRET not in message
    # nor in what a traceback prints: the SDK's exception, which may quote the URL, is not kept as the cause
    import traceback

    printed = "".join(traceback.format_exception(caught.value))
    assert SECRET not in printed and caught.value.__cause__ is None


def test_the_credentials_of_a_command_and_of_headers_are_found_for_masking_elsewhere():
    from workbench.secrets import command_secrets, header_secrets

    argv = [
        "npx",
        "mcp-remote",
        f"https://u:{SECRET}1@h/x?api_key={SECRET}2&a=1",
        "--header",
        f"Authorization: Bearer {SECRET}3",
        f"--api-key={SECRET}4",
        "-k",
        f"{SECRET}5",
        f"TOKEN={SECRET}6",
        "plain",
        "--verbose",
    ]
    assert command_secrets(argv) == [f"{SECRET}{n}" for n in range(1, 7)]
    assert command_secrets(["python", "-m", "server", "--port", "8000"]) == []
    assert header_secrets({"Authorization": f"Bearer {SECRET}", "X-Api-Key": "k-1234", "X-Trace": "on"}) == [
        SECRET,
        "k-1234",
    ]


def test_an_elicitation_answer_with_a_secret_is_logged_masked(tmp_path):
    """The client's log row of an elicitation keeps the user's answer: its secret-named fields are ***
    (server-everything asks for a form; the answer carries a password field too)."""
    from workbench.executor import SequentialExecutor
    from workbench.log import ExecutionLog

    path = tmp_path / "runs.sqlite"
    log = ExecutionLog(path)
    registry = ToolRegistry()

    def elicit(params):
        return {"name": "Ada", "check": True, "password": SECRET}

    with connect(
        command=[npm_server(EVERYTHING)], registry=registry, elicitation=elicit, log=log, connect_timeout=WAIT
    ):
        assert "Ada" in SequentialExecutor().call(registry, "trigger-elicitation-request").text
    [row] = log.rows(tool="mcp:elicitation/create")
    content = row["output"][0]["json"]["content"]
    assert content["name"] == "Ada" and content["password"] == "***"
    log.close()
    assert SECRET.encode() not in path.read_bytes()


def test_the_kernels_own_interpreter_is_shown_as_python_not_its_path():
    """A label is read by people and saved with notebooks (banners, the inspector): the kernel's own
    interpreter, ``sys.executable``, shows as ``python`` — its path is this machine's. The server still
    runs under that interpreter."""
    from workbench.jupyter._mcp_inspector import McpInspector
    from workbench.jupyter._workbench import Workbench

    workbench = Workbench()
    command = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
    with connect(command, cwd=str(ROOT), registry=workbench.registry, connect_timeout=WAIT) as conn:
        assert conn.label == "python -m workbench.mcp serve tests.mcp_sample_tools"
        view = McpInspector(conn, workbench)
        for text in (repr(conn), view.server_html.value, view.title.value):
            assert sys.executable not in text, text
