"""Spec snapshots: the registry's spec dict (``ToolRegistry.to_spec_dict()``) in a committed file.

``write_spec_snapshot(path, registry | sources)`` writes it pretty-printed; ``check_spec_snapshot``
compares the current tools with it (:func:`workbench.testing.spec_diff`). The current tools come
from ``sources`` (modules, ``module:function`` refs and ``.py`` paths, as
``ToolRegistry.process_tools`` takes them) or, when none are given, from the modules that the
snapshot's own refs name — so a snapshot of a package's tools needs no further configuration.
Entries without a ref (spec-only tools) have no code to compare with and count as unchanged.
Importing the modules runs them: the snapshot and its sources are test configuration.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

__all__ = ["SnapshotError", "read_spec_snapshot", "write_spec_snapshot", "check_spec_snapshot", "current_registry"]

PathLike = Union[str, "os.PathLike[str]"]


class SnapshotError(ValueError):
    """The snapshot cannot be read, or the current tools cannot be loaded."""


def read_spec_snapshot(path: PathLike) -> dict[str, Any]:
    """The snapshot's spec dict; ``SnapshotError`` when it is missing or malformed."""
    path = Path(path)
    if not path.is_file():
        raise SnapshotError(
            f"No tool spec snapshot at {path}: create it with pytest --update-tool-specs "
            f"(or workbench.testing.write_spec_snapshot({str(path)!r}, registry))"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        raise SnapshotError(
            f'{path}: a spec snapshot looks like {{"tools": [{{"name", "ref", "spec"}}]}} (ToolRegistry.to_spec_dict())'
        )
    return data


def current_registry(sources: Optional[Sequence[str]] = None, snapshot: Optional[dict[str, Any]] = None) -> Any:
    """The tools as they are now: from ``sources``, else from the modules the snapshot's refs name."""
    from workbench.registry import ToolRegistry

    registry = ToolRegistry()
    if sources:
        try:
            registry.process_tools(list(sources))
        except Exception as exc:  # noqa: BLE001 - the user's module failed to import
            raise SnapshotError(f"Cannot load the tools from {list(sources)!r}: {exc}") from None
        return registry
    if snapshot is None:
        raise SnapshotError(
            "No tool source: pass --tool-specs-source MODULE (or the tool_specs_source ini option) "
            "to say where the tools come from"
        )
    modules: list[str] = []
    for entry in snapshot["tools"]:
        ref = entry.get("ref") if isinstance(entry, dict) else None
        if isinstance(ref, str) and ":" in ref and ref.split(":")[0] not in modules:
            modules.append(ref.split(":")[0])
    for module in modules:
        try:
            registry.process_tools([module])
        except ValueError as exc:
            if "defines no tools" in str(exc):
                continue  # every tool of the module is gone: reported as removed tools
            raise SnapshotError(
                f"Cannot import {module!r}, named by the snapshot's refs: {exc} (if the tools moved, "
                "say where they are now with --tool-specs-source)"
            ) from None
    for entry in snapshot["tools"]:
        if isinstance(entry, dict) and not entry.get("ref") and isinstance(entry.get("spec"), dict):
            name = entry.get("name") or entry["spec"].get("name")
            if name not in registry:  # spec-only: nothing to compare with, so unchanged
                registry.register_spec({**{k: v for k, v in entry["spec"].items() if k != "inputs"}, "name": name})
    return registry


def write_spec_snapshot(path: PathLike, registry: Any = None, *, sources: Optional[Sequence[str]] = None) -> Any:
    """Write the snapshot of ``registry`` (or of the tools ``sources`` load, or of the modules the
    existing snapshot names). Returns the :class:`SpecDiff` against the previous snapshot, or
    ``None`` when there was none."""
    from workbench.testing._spec_diff import spec_diff

    path = Path(path)
    previous = read_spec_snapshot(path) if path.is_file() else None
    if registry is None:
        registry = current_registry(sources, previous)
    data = registry.to_spec_dict()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return spec_diff(previous, data) if previous is not None else None


def check_spec_snapshot(path: PathLike, registry: Any = None, *, sources: Optional[Sequence[str]] = None) -> Any:
    """The :class:`SpecDiff` from the snapshot at ``path`` to the current tools."""
    from workbench.testing._spec_diff import spec_diff

    snapshot = read_spec_snapshot(path)
    if registry is None:
        registry = current_registry(sources, snapshot)
    return spec_diff(snapshot, registry)
