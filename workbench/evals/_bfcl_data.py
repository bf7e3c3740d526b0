"""Where BFCL's data is and how it is read: shared by the single-turn and multi-turn loaders."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any, Iterator


def bfcl_data_dir() -> Path:
    """Where the installed ``bfcl-eval`` keeps its data (found without importing the package)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("load_bfcl needs BFCL's data: pip install 'tool-workbench[bfcl]' (the bfcl-eval package)")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _data_file(folder: Path, category: str) -> Path:
    matches = sorted(
        p
        for p in folder.glob(f"BFCL_v*_{category}.json")
        if re.fullmatch(rf"BFCL_v\d+_{re.escape(category)}\.json", p.name)
    )
    if not matches:
        raise FileNotFoundError(f"no BFCL data file for category {category!r} in {folder}")
    return matches[-1]
