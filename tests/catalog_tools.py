"""Generated catalogs of many tools (issue #22) for tests and ``benchmarks/bench_catalog.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Literal, Optional

TOPICS = ("weather", "invoice", "customer", "ticket", "calendar", "repository", "payment", "shipment")


def catalog_source(count: int, offset: int = 0) -> str:
    """A module defining ``count`` ``@tool`` functions ``<topic>_tool_<i>`` with varied names and docstrings."""
    lines = ["from typing import Literal, Optional", "from workbench import tool", ""]
    for i in range(offset, offset + count):
        topic = TOPICS[i % len(TOPICS)]
        lines.append(f'''@tool
def {topic}_tool_{i:04d}(query: str, limit: int = 10, mode: Literal["fast", "full"] = "fast",
                         note: Optional[str] = None) -> dict:
    """Look up {topic} records, variant {i}.

    Args:
        query: what to look for
        limit: how many records at most
        mode: how thoroughly to search
        note: a note kept with the request
    """
    return {{"query": query, "limit": limit, "mode": mode}}
''')
    return "\n".join(lines)


def write_catalog(directory: Path, count: int, name: str = "catalog_tools_gen") -> Path:
    """Write :func:`catalog_source` as ``directory/<name>.py``; returns the path."""
    path = directory / f"{name}.py"
    path.write_text(catalog_source(count))
    return path


def catalog_functions(count: int, offset: int = 0) -> list[Callable[..., Any]]:
    """``count`` fresh (never cached) plain functions with the catalog's signature, not yet tools."""
    out = []
    for i in range(offset, offset + count):
        namespace: dict[str, Any] = {"Literal": Literal, "Optional": Optional}
        source = catalog_source(1, i).split("@tool\n", 1)[1]
        # dont_inherit: real annotations, not this module's postponed (string) ones
        exec(compile(source, f"<catalog tool {i}>", "exec", dont_inherit=True), namespace)  # noqa: S102
        out.append(namespace[f"{TOPICS[i % len(TOPICS)]}_tool_{i:04d}"])
    return out
