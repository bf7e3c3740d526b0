"""Build the documentation site (``mkdocs build --strict``) into a folder, for the docs tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_site(site_dir: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of the repository's site into ``site_dir`` (the checkout is left as it
    is, but for mkdocs-jupyter's cache in the ignored ``.cache/``). Returns the finished process."""
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def page_paths(site_dir: Path) -> list[str]:
    """The site's pages as URL paths (``getting-started/``), the home page as ``""``; not the 404 page."""
    pages = []
    for html in sorted(site_dir.rglob("index.html")):
        relative = html.parent.relative_to(site_dir).as_posix()
        pages.append("" if relative == "." else relative + "/")
    return pages
