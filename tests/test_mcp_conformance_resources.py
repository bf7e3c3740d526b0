"""The official MCP conformance suite's resource, prompt and completion scenarios, run against
``python -m workbench.mcp serve tests/mcp_conformance_resources.py`` (streamable HTTP on loopback),
at every spec version each scenario lists. All of them must pass; none is an expected failure."""

from __future__ import annotations

import pytest

from tests.mcp_conformance import failures, run_conformance
from tests.mcp_servers import http_server, serve_command

BOTH = ("2025-06-18", "2025-11-25")
SCENARIOS = ("resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read",
             "resources-subscribe", "resources-unsubscribe", "prompts-list", "prompts-get-simple",
             "prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image",
             "completion-complete")


@pytest.fixture(scope="module")
def server_url():
    with http_server(serve_command("tests/mcp_conformance_resources.py", "--transport", "streamable-http",
                                   "--port", "0")) as url:
        yield url


@pytest.mark.parametrize("spec_version", BOTH)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(server_url, scenario, spec_version):
    checks = run_conformance("server", scenario, url=server_url, spec_version=spec_version)
    assert checks, f"{scenario}: the suite ran no checks"
    assert not failures(checks, warnings=True), failures(checks, warnings=True)
    assert any(check.get("status") == "SUCCESS" for check in checks), checks
