"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, pinned in tests/node and
installed by ``.ci/system-deps``), run as a real process against the project's server or client.

It needs Node 22 (``fs.globSync``); tests/node pins the ``node`` package from npm, whose binary sits in
``tests/node/node_modules/.bin`` and is put first on the suite's PATH — Debian's Node 20 keeps running
the other npm servers.

``run_conformance("server", scenario, url=...)`` / ``run_conformance("client", scenario, command=...)``
returns the suite's checks (dicts with ``id``, ``status`` — ``SUCCESS``, ``FAILURE``, ``WARNING``,
``INFO`` … — and ``errorMessage``); :func:`failures` picks the ones that failed with their messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from tests.mcp_servers import NODE_BIN

CONFORMANCE = NODE_BIN / "conformance"
TIMEOUT = 180.0  # one scenario, including the suite's own start-up (a few seconds)


def run_conformance(
    kind: str,
    scenario: str,
    *,
    url: Optional[str] = None,
    command: Optional[str] = None,
    spec_version: Optional[str] = None,
    extra: Sequence[str] = (),
) -> list[dict]:
    """Run one ``scenario`` of the suite's ``kind`` side (``"server"``: against ``url``; ``"client"``:
    the suite starts ``command`` with the scenario's server URL as its last argument) and return its checks."""
    if not CONFORMANCE.exists():
        raise AssertionError(f"{CONFORMANCE} is missing: run `bash .ci/system-deps` (npm ci --prefix tests/node)")
    argv = [str(CONFORMANCE), kind, "--scenario", scenario]
    if kind == "server":
        assert url, "a server scenario needs the server's url"
        argv += ["--url", url]
    else:
        assert command, "a client scenario needs the client's command"
        argv += ["--command", command]
    if spec_version:
        argv += ["--spec-version", spec_version]
    env = {**os.environ, "PATH": os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])}
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        done = subprocess.run(
            [*argv, *extra, "--output-dir", out],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        results = sorted(Path(out).rglob("checks.json"))  # auth/* scenarios nest one level deeper
        if not results:
            raise AssertionError(
                f"the conformance suite wrote no results for {kind} scenario {scenario!r} "
                f"(exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            )
        return [check for path in results for check in json.loads(path.read_text())]


def failures(checks: list[dict], *, warnings: bool = False) -> list[str]:
    """The checks that failed (and, with ``warnings``, warned), each as ``id: message``."""
    bad = {"FAILURE", "ERROR"} | ({"WARNING"} if warnings else set())
    return [f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}" for c in checks if c.get("status") in bad]
