"""The client the official MCP conformance suite runs (``conformance client --command "python
tests/mcp_conformance_client.py"``): it connects with :func:`workbench.mcp.connect` — the project's
client, as a notebook user would call it — and does what the scenario's server waits for.

The suite passes the scenario's server URL as the last argument, its name in
``$MCP_CONFORMANCE_SCENARIO`` and, for the scenarios that need them, the credentials a user would
have been given (pre-registered client, private key, identity provider token) as JSON in
``$MCP_CONFORMANCE_CONTEXT``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.executor import SequentialExecutor  # noqa: E402
from workbench.mcp import OAuth, connect, identity_assertion  # noqa: E402
from workbench.registry import ToolRegistry  # noqa: E402

WAIT = 20.0  # the suite gives a client 30 s in all
#: the URL-based client id (Client ID Metadata Document) the suite's authorization servers expect
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


def browser(url: str) -> None:
    """The user's browser: the suite's authorization pages approve at once and redirect to the
    client's local callback; following the redirects delivers the code there."""
    httpx.get(url, follow_redirects=True, timeout=WAIT)


def authorization_server(url: str) -> str:
    """The MCP server's authorization server, read from its protected resource metadata — what a
    user of a machine-to-machine client is told by whoever runs the server (the suite's context
    does not carry it)."""
    base, _, path = url.partition("//")[2].partition("/")
    scheme = url.partition("//")[0]
    metadata = httpx.get(f"{scheme}//{base}/.well-known/oauth-protected-resource/{path}", timeout=WAIT).json()
    return metadata["authorization_servers"][0]


def accept(params: Any) -> str:
    """Accept every elicitation as is: the fields the user left alone take the schema's defaults."""
    return "accept"


def oauth_for(scenario: str, url: str, context: dict[str, Any]) -> OAuth:
    """The ``OAuth`` a user would configure for this scenario's server."""
    if scenario == "auth/client-credentials-basic":
        return OAuth(
            grant="client_credentials",
            client_id=context["client_id"],
            client_secret=context["client_secret"],
            issuer=authorization_server(url),
        )
    if scenario == "auth/client-credentials-jwt":
        return OAuth(
            grant="client_credentials",
            client_id=context["client_id"],
            private_key=context["private_key_pem"],
            signing_algorithm=context["signing_algorithm"],
            issuer=authorization_server(url),
        )
    if scenario == "auth/cross-app-access-complete-flow":
        id_jag = identity_assertion(
            context["idp_token_endpoint"], context["idp_id_token"], client_id=context["idp_client_id"]
        )
        return OAuth(
            grant="jwt_bearer",
            client_id=context["client_id"],
            client_secret=context["client_secret"],
            token_endpoint_auth_method="client_secret_basic",
            issuer=authorization_server(url),
            assertion=id_jag,
        )
    # the authorization-code flow, with a pre-registered client when the suite hands one out
    return OAuth(
        open_url=browser,
        timeout=WAIT,
        client_metadata_url=CLIENT_METADATA_URL,
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
    )


def call(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> None:
    result = SequentialExecutor().call(registry, name, arguments)
    print(f"{name}: {result.status}: {result.text}", flush=True)


def first_tool(registry: ToolRegistry, connection: Any) -> None:
    """The auth scenarios' servers check the token on every request; one tool call proves the
    access token works for calls too."""
    if connection.tools:
        call(registry, connection.tools[0], {})


SCENARIOS: dict[str, Callable[[ToolRegistry, Any], None]] = {
    "initialize": lambda registry, connection: None,
    "tools_call": lambda registry, connection: call(registry, "add_numbers", {"a": 5, "b": 3}),
    "sse-retry": lambda registry, connection: call(registry, "test_reconnection", {}),
    "elicitation-sep1034-client-defaults": lambda registry, connection: call(
        registry, "test_client_elicitation_defaults", {}
    ),
}


def main() -> None:
    url = sys.argv[-1]
    scenario = os.environ["MCP_CONFORMANCE_SCENARIO"]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    auth = oauth_for(scenario, url, context) if scenario.startswith("auth/") else None
    registry = ToolRegistry()
    try:
        with connect(url=url, auth=auth, elicitation=accept, registry=registry, connect_timeout=WAIT) as connection:
            SCENARIOS.get(scenario, first_tool)(registry, connection)
    finally:
        if auth is not None:
            auth.close()


if __name__ == "__main__":
    main()
