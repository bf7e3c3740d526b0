"""The repository's code, tests, docs and notebooks cite only what a reader of the repository can open:
no design document or sibling folder kept outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# spelled in two parts so this file does not match itself
OUTSIDE = re.compile("DESIGN" + r"(\.md)?\s*§|" + "DESIGN" + r"\.md|\.\./" + r"shared\b")


def test_no_file_cites_a_document_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix in (".png", ".jpg", ".gif", ".ico", ".woff", ".woff2") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in OUTSIDE.finditer(text)]
    assert found == []
