"""A real JupyterLab server on 127.0.0.1 and Debian's chromium driven by Playwright."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
LAB_SETTINGS = ROOT / "share" / "jupyter" / "lab" / "settings"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """Start ``jupyter lab`` on a copy of notebooks/ (so committed outputs stay untouched)."""
    root = tmp_path_factory.mktemp("lab")
    for item in (ROOT / "notebooks").iterdir():
        if item.suffix in (".ipynb", ".py"):
            shutil.copy(item, root / item.name)
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
    }
    log_file = open(root / "server.log", "w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True",
            "--ServerApp.allow_root=True",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            # the settings defaults the package installs into {sys.prefix}/share/jupyter/lab/settings (widget
            # state saved with the notebook), read from the checkout so an editable install needs no copy
            f"--LabApp.app_settings_dir={LAB_SETTINGS}",
        ],
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=root,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"jupyter lab did not start:\n{(root / 'server.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield {"base": base, "token": token, "root": root}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log_file.close()


@pytest.fixture(scope="module")
def browser():
    # Module scope on purpose: Playwright's sync API keeps an asyncio loop running in the main
    # thread while it is open, which would break asyncio.run() in every later test module.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser, tmp_path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()
