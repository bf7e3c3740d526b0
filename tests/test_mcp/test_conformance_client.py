"""Every client scenario of the official MCP conformance suite against ``workbench.mcp.connect``
(tests/mcp_conformance_client.py is the client the suite runs), including the draft and extension
scenarios and every auth/* one."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from tests.mcp_conformance import failures, run_conformance
from tests.mcp_servers import NODE_BIN, ROOT

CLIENT = ROOT / "tests" / "mcp_conformance_client.py"

#: scenario -> why it fails: the suite's own inconsistencies, not defects of the client
SUITE_INCONSISTENCIES = {
    "auth/2025-03-26-oauth-metadata-backcompat": "the suite serves authorization server metadata at the server's root whose issuer is "
    "<root>/oauth; RFC 8414 section 3.3 says a client must reject metadata whose issuer is not the "
    "one it derived the well-known URL from, and the SDK does (the suite's other 2025-03-26 "
    "scenario, oauth-endpoint-fallback, passes)",
}


def _client_scenarios() -> list[str]:
    listing = subprocess.run(
        [str(NODE_BIN / "conformance"), "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": f"{NODE_BIN}:/usr/bin:/bin"},
    ).stdout
    names, client = [], False
    for line in listing.splitlines():
        if line.startswith("Client scenarios"):
            client = True
        elif client and line.strip().startswith("- "):
            names.append(line.strip()[2:].split(" [")[0])
    return names


SCENARIOS = _client_scenarios()


def test_every_client_scenario_of_the_suite_is_listed():
    # the parametrization below comes from the suite itself: an empty list would pass vacuously
    assert len(SCENARIOS) >= 26 and "auth/cross-app-access-complete-flow" in SCENARIOS
    assert set(SUITE_INCONSISTENCIES) <= set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(scenario):
    checks = run_conformance("client", scenario, command=f"{shlex.quote(sys.executable)} {shlex.quote(str(CLIENT))}")
    assert checks, f"{scenario}: the suite recorded no checks"
    bad = failures(checks, warnings=True)
    if scenario in SUITE_INCONSISTENCIES:
        assert bad, f"{scenario} passes now: drop it from SUITE_INCONSISTENCIES ({SUITE_INCONSISTENCIES[scenario]})"
        return
    assert not bad, f"{scenario}:\n" + "\n".join(bad)
