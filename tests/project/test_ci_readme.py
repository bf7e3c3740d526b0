"""README.md's two commands and .ci/run agree, and the test command works without sudo."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.+?)\n```", text)[:2]


def test_readme_opens_with_the_lab_command_and_the_test_command():
    lab, test = _readme_commands()
    assert "jupyter lab notebooks/" in lab and "pip install" in lab
    assert test.endswith("python -m pytest")
    assert "[test,lab,mcp]" in test


def test_ci_runs_the_readme_test_command_verbatim():
    test_command = _readme_commands()[1]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_test_command_installs_into_a_fresh_virtual_environment():
    test_command = _readme_commands()[1]
    venv_at = test_command.index("python3 -m venv --clear .venv")
    assert venv_at < test_command.index(". .venv/bin/activate") < test_command.index("pip install")


def test_test_command_needs_no_sudo(tmp_path):
    test_command = _readme_commands()[1]
    assert "sudo" not in test_command.split()
    # The system-deps script chooses root or sudo itself; with chromium present it is a no-op.
    script = (ROOT / ".ci" / "system-deps").read_text()
    assert "id -u" in script and "command -v sudo" in script
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\nexit 0\n")
    chromium.chmod(0o755)
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "system-deps")],
        capture_output=True,
        text=True,
        env={"PATH": f"{tmp_path}:/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
