"""``connect(url, auth=OAuth(...))`` against a real OAuth-protected MCP server (tests/oauth_server.py:
the SDK's authorization-server routes, dynamic registration, PKCE checked by the SDK)."""

from __future__ import annotations

import json
import os
import stat
import sys

import httpx
import pytest

from tests.mcp_servers import ROOT, WAIT, free_port, http_server
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry


@pytest.fixture
def oauth_server(tmp_path, monkeypatch):
    """(url, events path) of a fresh OAuth-protected server; access tokens live 3 s."""
    events = tmp_path / "events.jsonl"
    monkeypatch.setenv("OAUTH_EVENTS", str(events))
    port = free_port()
    with http_server(
        [sys.executable, str(ROOT / "tests" / "oauth_server.py"), str(port), "3"], marker="Uvicorn running"
    ) as base:
        yield f"{base.rstrip('/')}/mcp", events


def _all_events(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _events(path):
    """What the authorization server did (registrations, codes, tokens)."""
    return [e for e in _all_events(path) if e["kind"] != "request"]


def _requests(path):
    """``METHOD /path`` of each request the authorization server's endpoints received."""
    return [f"{e['method']} {e['path']}" for e in _all_events(path) if e["kind"] == "request"]


def _browser(urls):
    """A stand-in for the user's browser: follow the authorization page's redirects (the server
    approves at once), which delivers the code to the client's real local callback."""

    def open_url(url):
        urls.append(url)
        httpx.get(url, follow_redirects=True, timeout=WAIT)

    return open_url


def test_oauth_with_pkce_authorizes_calls_and_stores_tokens_in_a_private_file(oauth_server, tmp_path):
    from workbench.mcp import OAuth, connect

    url, events = oauth_server
    token_file = tmp_path / "tokens.json"
    opened: list[str] = []
    auth = OAuth(token_file=token_file, open_url=_browser(opened), timeout=WAIT)
    registry = ToolRegistry()
    with connect(url=url, auth=auth, registry=registry, connect_timeout=WAIT):
        assert SequentialExecutor().call(registry, "whoami").text == "authorized"
    assert len(opened) == 1 and "code_challenge=" in opened[0] and "code_challenge_method=S256" in opened[0]
    kinds = [e["kind"] for e in _events(events)]
    assert kinds[:4] == ["register", "authorize", "exchange", "token"]
    assert len(_events(events)[1]["code_challenge"]) == 43  # base64url(SHA-256): PKCE S256
    assert _events(events)[1]["redirect_uri"].startswith("http://127.0.0.1:")
    stored = json.loads(token_file.read_text())
    assert stored["tokens"]["access_token"] == _events(events)[3]["access_token"]
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    auth.close()


def test_a_second_connection_reuses_the_stored_tokens_without_a_browser(oauth_server, tmp_path):
    from workbench.mcp import OAuth, connect

    url, events = oauth_server
    token_file = tmp_path / "tokens.json"
    first = OAuth(token_file=token_file, open_url=_browser([]), timeout=WAIT)
    with connect(url=url, auth=first, registry=ToolRegistry(), connect_timeout=WAIT):
        pass
    first.close()

    def no_browser(url):
        raise AssertionError("the stored tokens should have been enough")

    second = OAuth(token_file=token_file, open_url=no_browser, timeout=5)
    registry = ToolRegistry()
    with connect(url=url, auth=second, registry=registry, connect_timeout=WAIT):
        assert SequentialExecutor().call(registry, "whoami").text == "authorized"
    assert [e["kind"] for e in _events(events)].count("authorize") == 1
    second.close()


def test_an_expired_access_token_is_refreshed(oauth_server, tmp_path):
    import time

    from workbench.mcp import OAuth, connect

    url, events = oauth_server
    auth = OAuth(open_url=_browser([]), timeout=WAIT)
    registry = ToolRegistry()
    with connect(url=url, auth=auth, registry=registry, connect_timeout=WAIT):
        first_token = auth.tokens.access_token
        time.sleep(3.5)  # the server's tokens live 3 s
        assert SequentialExecutor().call(registry, "whoami").text == "authorized"
    kinds = [e["kind"] for e in _events(events)]
    assert "refresh" in kinds and kinds.count("authorize") == 1
    assert auth.tokens.access_token != first_token
    auth.close()


def test_an_authorization_that_never_comes_back_is_a_clear_error(oauth_server):
    from workbench.mcp import McpConnectionError, OAuth, connect

    url, _ = oauth_server
    auth = OAuth(open_url=lambda url: None, timeout=1.5)
    with pytest.raises(McpConnectionError, match="no authorization arrived at http://127.0.0.1:.*/callback"):
        connect(url=url, auth=auth, registry=ToolRegistry(), connect_timeout=WAIT)
    auth.close()


def test_oauth_arguments_are_checked():
    from workbench.mcp import OAuth, connect

    with pytest.raises(TypeError, match="list of scope names"):
        OAuth(scopes="tools")
    with pytest.raises(ValueError, match="auth=.*is for url= servers"):
        connect(command=["true"], auth=OAuth())


def test_a_failed_oauth_flow_says_what_failed_and_does_not_suggest_a_token(oauth_server):
    from workbench.mcp import McpConnectionError, OAuth, connect

    url, _ = oauth_server
    auth = OAuth(open_url=lambda url: None, timeout=1.5)
    with pytest.raises(McpConnectionError) as caught:
        connect(url=url, auth=auth, registry=ToolRegistry(), connect_timeout=WAIT)
    auth.close()
    message = str(caught.value)
    assert "the OAuth authorization_code flow failed: OAuthError: no authorization arrived" in message
    assert "token=" not in message  # a bearer token is not the fix when the OAuth flow is what failed


def test_client_credentials_go_to_the_token_endpoint_and_a_refusal_is_named(oauth_server):
    from workbench.mcp import McpConnectionError, OAuth, connect

    url, events = oauth_server
    issuer = url.rsplit("/mcp", 1)[0]
    auth = OAuth(grant="client_credentials", client_id="robot", client_secret="s3cret", issuer=issuer)
    with pytest.raises(McpConnectionError) as caught:  # this server grants no client_credentials
        connect(url=url, auth=auth, registry=ToolRegistry(), connect_timeout=WAIT)
    assert "POST /token" in _requests(events)
    message = str(caught.value)
    assert "the OAuth client_credentials flow failed: OAuthTokenError" in message, message
    assert "token=" not in message and "s3cret" not in message


def test_client_credentials_are_never_sent_to_an_authorization_server_other_than_the_issuer(oauth_server):
    """The attack: an MCP server names an authorization server of its choosing (here: its own, not
    the one the credentials belong to); the client must not present its secret there."""
    from workbench.mcp import McpConnectionError, OAuth, connect

    url, events = oauth_server
    auth = OAuth(
        grant="client_credentials", client_id="robot", client_secret="s3cret", issuer="https://login.example.com"
    )
    with pytest.raises(McpConnectionError, match="the OAuth client_credentials flow failed: .*login.example.com"):
        connect(url=url, auth=auth, registry=ToolRegistry(), connect_timeout=WAIT)
    assert not [r for r in _requests(events) if r.endswith(("/token", "/register"))]


@pytest.mark.parametrize(
    "arguments, complaint",
    [
        (dict(grant="password"), "OAuth\\(grant='password'\\): expected one of 'authorization_code'"),
        (dict(grant="client_credentials", client_id="a", client_secret="b"), "needs issuer="),
        (dict(grant="client_credentials", client_id="a", issuer="https://as.example"), "exactly one of client_secret="),
        (
            dict(
                grant="client_credentials",
                client_id="a",
                client_secret="b",
                private_key="k",
                issuer="https://as.example",
            ),
            "exactly one of client_secret=",
        ),
        (dict(grant="jwt_bearer", client_id="a", client_secret="b", issuer="https://as.example"), "needs assertion="),
        (dict(client_secret="b"), "client_secret=...\\) needs the client_id="),
        (dict(client_metadata_url="http://example.com/client.json"), "client_metadata_url=.*https://"),
        (dict(client_metadata_url="https://example.com"), "client_metadata_url=.*with a path"),
        (dict(client_id="a", token_endpoint_auth_method="client_secret_post"), "needs client_secret="),
        (dict(client_id="a", client_secret="b", token_endpoint_auth_method="tls"), "token_endpoint_auth_method='tls'"),
        (dict(private_key="k"), "has no use for private_key="),
    ],
)
def test_oauth_arguments_for_each_grant_are_checked(arguments, complaint):
    from workbench.mcp import OAuth

    with pytest.raises(ValueError, match=complaint):
        OAuth(**arguments)
