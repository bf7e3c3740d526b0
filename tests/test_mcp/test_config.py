"""``mcpServers`` configuration (as Claude Desktop, Cursor, VS Code and MCP Inspector write it):
``connection.config()`` exports a connection's entry with every secret masked, and
``connect(config=..., server=...)`` reads one — against server-everything (its ``get-env`` tool shows the
environment a config gave it) and the project's own HTTP server with a bearer token."""

from __future__ import annotations

import json
import re
import sys

import pytest

from tests.mcp_servers import EVERYTHING, WAIT, everything_http, npm_server, server_process
from workbench.executor import SequentialExecutor
from workbench.mcp._config import read_server_config, server_entry
from workbench.registry import ToolRegistry

SECRET = "sk-FAKE-do-not-leak-7f3a"


def test_a_config_entry_starts_the_server_with_its_env_expanded_from_the_environment(tmp_path, monkeypatch):
    from workbench.mcp import connect

    monkeypatch.setenv("WB_TEST_SECRET", SECRET)
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything": {
                        "command": npm_server(EVERYTHING),
                        "args": [],
                        "env": {"EVERYTHING_API_KEY": "${WB_TEST_SECRET}", "PLAIN_SETTING": "blue"},
                    },
                    "other": {"command": "never-started"},
                }
            }
        )
    )
    registry = ToolRegistry()
    with connect(config=path, server="everything", registry=registry, connect_timeout=WAIT) as conn:
        env = json.loads(SequentialExecutor().call(registry, "get-env").text)
        assert env["EVERYTHING_API_KEY"] == SECRET and env["PLAIN_SETTING"] == "blue"
        entry = conn.config()
        assert entry == {
            "command": npm_server(EVERYTHING),
            "args": [],
            "env": {"EVERYTHING_API_KEY": "${EVERYTHING_API_KEY}", "PLAIN_SETTING": "${PLAIN_SETTING}"},
        }
        exported = json.dumps(conn.config("everything"))
        assert SECRET not in exported and "blue" not in exported
        assert json.loads(exported) == {"mcpServers": {"everything": entry}}


def test_an_http_entry_masks_the_token_and_reads_back_with_it_from_the_environment(tmp_path, monkeypatch):
    from workbench.mcp import connect

    serve = [
        sys.executable,
        "-m",
        "workbench.mcp",
        "serve",
        "tests.mcp_sample_tools",
        "--transport",
        "streamable-http",
        "--port",
        "0",
        "--token",
        SECRET,
    ]
    with server_process(serve, lambda line: "serving" in line and "http://" in line) as seen:
        url = seen[-1][seen[-1].index("http://") :].split()[0].strip()
        with connect(
            url=url,
            token=SECRET,
            headers={"X-Api-Key": SECRET, "X-Trace": "on"},
            registry=ToolRegistry(),
            connect_timeout=WAIT,
        ) as conn:
            entry = conn.config()
        assert entry == {
            "type": "http",
            "url": url,
            "headers": {"Authorization": "Bearer ${MCP_TOKEN}", "X-Api-Key": "${X_API_KEY}", "X-Trace": "on"},
        }
        text = json.dumps(conn.config("workbench"))
        assert SECRET not in text and SECRET[:12] not in text
        path = tmp_path / "mcp.json"
        path.write_text(text)
        monkeypatch.setenv("MCP_TOKEN", SECRET)
        monkeypatch.setenv("X_API_KEY", SECRET)
        registry = ToolRegistry()
        with connect(config=str(path), registry=registry, connect_timeout=WAIT) as again:
            assert SequentialExecutor().call(registry, "add", {"a": 2, "b": 3}).value == 5
            assert SECRET not in json.dumps(again.config()) and SECRET not in repr(again)


def test_an_sse_entry_in_vs_code_form_uses_the_sse_transport(monkeypatch):
    from workbench.mcp import connect

    with everything_http("sse") as url:
        monkeypatch.setenv("EVERYTHING_URL", url)
        config = {"servers": {"legacy": {"type": "sse", "url": "${env:EVERYTHING_URL}"}}}
        with connect(config=config, registry=ToolRegistry(), connect_timeout=WAIT) as conn:
            assert conn.server_info.name == "mcp-servers/everything"
            assert conn.config() == {"type": "sse", "url": url}


def test_secrets_in_arguments_urls_and_headers_are_masked():
    entry = server_entry(
        {
            "command": ["srv", "--api-key", SECRET, f"--token={SECRET}", "--port", "8080", "-v"],
            "env": {"HOME_DIR": "/home/x"},
        }
    )
    assert entry == {
        "command": "srv",
        "args": ["--api-key", "${API_KEY}", "--token=${TOKEN}", "--port", "8080", "-v"],
        "env": {"HOME_DIR": "${HOME_DIR}"},
    }
    entry = server_entry(
        {
            "url": f"https://bob:{SECRET}@mcp.example.com/mcp?api_key={SECRET}&region=eu",
            "headers": {"Cookie": f"session={SECRET}", "Authorization": SECRET, "Accept-Language": "en"},
        }
    )
    assert SECRET not in json.dumps(entry)
    assert entry["url"] == "https://bob:${MCP_PASSWORD}@mcp.example.com/mcp?api_key=${API_KEY}&region=eu"
    assert entry["headers"] == {"Cookie": "${COOKIE}", "Authorization": "${MCP_TOKEN}", "Accept-Language": "en"}


def test_bad_configs_say_what_is_wrong(tmp_path, monkeypatch):
    from workbench.mcp import connect

    monkeypatch.delenv("WB_UNSET_VARIABLE", raising=False)
    two = {"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:1/mcp"}}}
    with pytest.raises(ValueError, match="has 2 servers — pick one with server=: a, b"):
        read_server_config(two)
    with pytest.raises(ValueError, match="server='c'.*no such server; it has a, b"):
        read_server_config(two, "c")
    with pytest.raises(ValueError, match=r"server 'a': entry.env.KEY uses \$\{WB_UNSET_VARIABLE\} but the environment"):
        read_server_config({"mcpServers": {"a": {"command": "x", "env": {"KEY": "${WB_UNSET_VARIABLE}"}}}})
    with pytest.raises(ValueError, match="\"type\" is 'websocket'"):
        read_server_config({"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}})
    with pytest.raises(ValueError, match='"args" must be a list of strings'):
        read_server_config({"mcpServers": {"a": {"command": "x", "args": "--flag"}}})
    with pytest.raises(ValueError, match='no "mcpServers"'):
        read_server_config({"other": 1})
    missing = tmp_path / "missing.json"
    with pytest.raises(ValueError, match="cannot read it"):
        connect(config=missing)
    with pytest.raises(ValueError, match="config= and also command="):
        connect(command=["x"], config=two)
    with pytest.raises(ValueError, match="pass config= too"):
        connect(command=["x"], server="a")


# the secret of every shape below; not shaped like a known key, so only the structural rules can find it
S = "s3cr3t-Value-9f2a"
_URL = "https://mcp.example.com/mcp"
#: (shape, connect() arguments, the exported entry): every place a credential goes on a command line or in a URL
SECRET_SHAPES = [
    (
        "env value",
        {"command": ["srv"], "env": {"API_KEY": S}},
        {"command": "srv", "args": [], "env": {"API_KEY": "${API_KEY}"}},
    ),
    ("--token x", ["srv", "--token", S], ["--token", "${TOKEN}"]),
    ("--token=x", ["srv", f"--token={S}"], ["--token=${TOKEN}"]),
    ("--api-key x", ["srv", "--api-key", S], ["--api-key", "${API_KEY}"]),
    ("--api-key=x", ["srv", f"--api-key={S}"], ["--api-key=${API_KEY}"]),
    (
        "mcp-remote --header 'Authorization: Bearer x' (two args)",
        ["npx", "mcp-remote", _URL, "--header", f"Authorization: Bearer {S}"],
        ["mcp-remote", _URL, "--header", "Authorization: Bearer ${MCP_TOKEN}"],
    ),
    (
        "mcp-remote --header=Authorization: Bearer x",
        ["npx", "mcp-remote", _URL, f"--header=Authorization: Bearer {S}"],
        ["mcp-remote", _URL, "--header=Authorization: Bearer ${MCP_TOKEN}"],
    ),
    (
        "--header Authorization:Bearer x (no space)",
        ["npx", "mcp-remote", _URL, "--header", f"Authorization:Bearer {S}"],
        ["mcp-remote", _URL, "--header", "Authorization:Bearer ${MCP_TOKEN}"],
    ),
    ("-H 'X-Api-Key: x'", ["srv", "-H", f"X-Api-Key: {S}"], ["-H", "X-Api-Key: ${X_API_KEY}"]),
    ("--header 'X-Key: x'", ["srv", "--header", f"X-Key: {S}"], ["--header", "X-Key: ${X_KEY}"]),
    (
        "?api_key= in a URL argument",
        ["srv", f"{_URL}?api_key={S}&region=eu"],
        [f"{_URL}?api_key=${{API_KEY}}&region=eu"],
    ),
    ("?key= in a URL argument", ["srv", f"{_URL}?key={S}"], [f"{_URL}?key=${{KEY}}"]),
    ("?sig= in a URL argument", ["srv", f"{_URL}?sv=2024&sig={S}"], [f"{_URL}?sv=2024&sig=${{SIG}}"]),
    (
        "token as a URL argument's user name",
        ["srv", f"https://{S}@mcp.example.com/mcp"],
        ["https://${MCP_USER}@mcp.example.com/mcp"],
    ),
    (
        "password in a URL argument",
        ["srv", f"https://bob:{S}@mcp.example.com/mcp"],
        ["https://bob:${MCP_PASSWORD}@mcp.example.com/mcp"],
    ),
    ("a URL as an option's value", ["srv", f"--url={_URL}?token={S}"], [f"--url={_URL}?token=${{TOKEN}}"]),
    ("-k x", ["srv", "-k", S], ["-k", "${KEY}"]),
    (
        "docker -e NAME=x",
        ["docker", "run", "-e", f"GITHUB_TOKEN={S}", "img"],
        ["run", "-e", "GITHUB_TOKEN=${GITHUB_TOKEN}", "img"],
    ),
    ("a bare key-shaped argument", ["srv", f"sk-{S}"], ["${SECRET}"]),
    (
        "Authorization header",
        {"url": _URL, "headers": {"Authorization": f"Bearer {S}"}},
        {"type": "http", "url": _URL, "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}},
    ),
    (
        "X-Key header",
        {"url": _URL, "headers": {"X-Key": S}},
        {"type": "http", "url": _URL, "headers": {"X-Key": "${X_KEY}"}},
    ),
    (
        "Cookie header",
        {"url": _URL, "headers": {"Cookie": S}},
        {"type": "http", "url": _URL, "headers": {"Cookie": "${COOKIE}"}},
    ),
    (
        "URL password",
        {"url": f"https://bob:{S}@mcp.example.com/mcp"},
        {"type": "http", "url": "https://bob:${MCP_PASSWORD}@mcp.example.com/mcp"},
    ),
    (
        "token as the URL's user name",
        {"url": f"https://{S}@mcp.example.com/mcp", "transport": "sse"},
        {"type": "sse", "url": "https://${MCP_USER}@mcp.example.com/mcp"},
    ),
    (
        "?key= and ?sig= in the URL",
        {"url": f"{_URL}?key={S}&sig={S}&v=1"},
        {"type": "http", "url": f"{_URL}?key=${{KEY}}&sig=${{SIG}}&v=1"},
    ),
]


@pytest.mark.parametrize("shape, arguments, expected", SECRET_SHAPES, ids=[row[0] for row in SECRET_SHAPES])
def test_every_shape_of_secret_is_a_placeholder_that_reads_back(shape, arguments, expected, monkeypatch):
    if isinstance(arguments, list):  # a command line: the expected value is its "args"
        arguments = {"command": arguments}
        expected = {"command": arguments["command"][0], "args": expected, "env": {}}
    entry = server_entry(arguments)
    assert entry == expected
    assert S not in json.dumps(entry)
    # every placeholder is a variable that, set to the secret, gives back what connect() was given
    for name in set(re.findall(r"\$\{([A-Z_]+)\}", json.dumps(entry))):
        monkeypatch.setenv(name, f"sk-{S}" if name == "SECRET" else S)
    back = read_server_config({"mcpServers": {"s": entry}})
    if "command" in arguments:
        assert back["command"] == list(arguments["command"])
        assert (back["env"] or {}) == (arguments.get("env") or {})
    else:
        assert back["url"] == arguments["url"] and (back["headers"] or {}) == (arguments.get("headers") or {})


def test_arguments_and_headers_without_secrets_are_kept_as_written():
    argv = [
        "srv",
        "--port",
        "8080",
        "-v",
        "--header",
        "Accept: text/plain",
        "-H",
        "X-Trace: on",
        "--name=docs",
        f"{_URL}?region=eu&q=a%20b",
        "PLAIN=1",
        "--",
        "-",
    ]
    assert server_entry({"command": argv})["args"] == argv[1:]
    assert server_entry({"url": f"{_URL}?region=eu&q=a%20b", "headers": {"X-Trace": "on"}}) == {
        "type": "http",
        "url": f"{_URL}?region=eu&q=a%20b",
        "headers": {"X-Trace": "on"},
    }
