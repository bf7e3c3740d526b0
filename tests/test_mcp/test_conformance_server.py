"""Every server scenario of the official MCP conformance suite against ``python -m workbench.mcp serve``
over streamable HTTP, serving tests/mcp_conformance_server.py (tools written with the project's own
``@tool`` and ``ToolContext``) and tests/mcp_conformance_resources.py (resources, prompts and completion
written with ``@resource`` and ``@prompt``): one server, every scenario passing at every spec version
it lists."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.mcp_conformance import CONFORMANCE, failures, run_conformance
from tests.mcp_servers import NODE_BIN, http_server, serve_command

#: the modules served together (resources, prompts and completion join here)
SERVER_MODULES = ("tests/mcp_conformance_server.py", "tests/mcp_conformance_resources.py")

#: every server scenario of the suite (0.1.16) → the spec versions it runs under
SCENARIOS = {
    "server-initialize": ("2025-06-18", "2025-11-25"),
    "logging-set-level": ("2025-06-18", "2025-11-25"),
    "ping": ("2025-06-18", "2025-11-25"),
    "completion-complete": ("2025-06-18", "2025-11-25"),
    "tools-list": ("2025-06-18", "2025-11-25"),
    "tools-call-simple-text": ("2025-06-18", "2025-11-25"),
    "tools-call-image": ("2025-06-18", "2025-11-25"),
    "tools-call-audio": ("2025-06-18", "2025-11-25"),
    "tools-call-embedded-resource": ("2025-06-18", "2025-11-25"),
    "tools-call-mixed-content": ("2025-06-18", "2025-11-25"),
    "tools-call-with-logging": ("2025-06-18", "2025-11-25"),
    "tools-call-error": ("2025-06-18", "2025-11-25"),
    "tools-call-with-progress": ("2025-06-18", "2025-11-25"),
    "tools-call-sampling": ("2025-06-18", "2025-11-25"),
    "tools-call-elicitation": ("2025-06-18", "2025-11-25"),
    "json-schema-2020-12": ("2025-11-25",),
    "elicitation-sep1034-defaults": ("2025-11-25",),
    "server-sse-polling": ("2025-11-25",),
    "server-sse-multiple-streams": ("2025-11-25",),
    "elicitation-sep1330-enums": ("2025-11-25",),
    "resources-list": ("2025-06-18", "2025-11-25"),
    "resources-read-text": ("2025-06-18", "2025-11-25"),
    "resources-read-binary": ("2025-06-18", "2025-11-25"),
    "resources-templates-read": ("2025-06-18", "2025-11-25"),
    "resources-subscribe": ("2025-06-18", "2025-11-25"),
    "resources-unsubscribe": ("2025-06-18", "2025-11-25"),
    "prompts-list": ("2025-06-18", "2025-11-25"),
    "prompts-get-simple": ("2025-06-18", "2025-11-25"),
    "prompts-get-with-args": ("2025-06-18", "2025-11-25"),
    "prompts-get-embedded-resource": ("2025-06-18", "2025-11-25"),
    "prompts-get-with-image": ("2025-06-18", "2025-11-25"),
    "dns-rebinding-protection": ("2025-11-25",),
}

_OLD_HEADER = (
    "the suite's raw requests send 'mcp-protocol-version: 2025-03-26' on a 2025-11-25 session, and the SDK "
    "primes (and offers close_sse_stream to) clients of 2025-11-25 and later only - older ones cannot parse "
    "an empty-data event; tests/test_mcp/test_stream_resumption.py checks priming, retry and Last-Event-ID replay "
    "with the negotiated version's header"
)
#: warnings (check ids) that are the suite's own inconsistencies, with the reason; every other warning fails
SUITE_WARNINGS = {
    "server-sse-polling": ({"server-sse-priming-event", "server-sse-retry-field"}, _OLD_HEADER),
}


def _cases() -> list:
    cases = []
    for scenario, versions in SCENARIOS.items():
        cases += [pytest.param(scenario, version, id=f"{scenario}[{version}]") for version in versions]
    return cases


@pytest.fixture(scope="module")
def server_url():
    with http_server(serve_command(*SERVER_MODULES, "--transport", "streamable-http", "--port", "0")) as url:
        yield url


@pytest.mark.parametrize("scenario, version", _cases())
def test_server_scenario(server_url: str, scenario: str, version: str) -> None:
    checks = run_conformance("server", scenario, url=server_url, spec_version=version)
    assert checks, f"{scenario} produced no checks"
    accepted, _reason = SUITE_WARNINGS.get(scenario, (set(), ""))
    bad = failures([c for c in checks if not (c.get("status") == "WARNING" and c.get("id") in accepted)], warnings=True)
    assert not bad, f"{scenario} [{version}]:\n" + "\n".join(bad)


def test_the_table_lists_every_server_scenario_of_the_suite() -> None:
    """:data:`SCENARIOS` is the suite's own list (a new suite version with new scenarios fails here)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])}
    listed = subprocess.run(
        [str(CONFORMANCE), "list", "--server"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    found = {}
    for line in (listed.stdout + listed.stderr).splitlines():
        line = line.strip()
        if line.startswith("- "):
            name, _, versions = line[2:].partition(" ")
            found[name] = tuple(versions.strip("[]").split(",")) if versions else ()
    assert found == SCENARIOS
