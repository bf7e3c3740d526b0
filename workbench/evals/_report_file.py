"""A saved evaluation report: one versioned JSON file (``EvalReport.save`` / ``EvalReport.load``).

It holds the rows, every transcript, the models (ids and parameters), each variant's tool specs and
their hash, the suite's cases, the run's settings, package versions and times; every secret is
masked through :mod:`workbench.secrets` on the way out (the models' keys, secret-named fields).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Union

from workbench.evals._files import EvalFileError
from workbench.secrets import mask
from workbench.types import utc_now_iso

FORMAT = "workbench.eval-report"
VERSION = 1

PathLike = Union[str, "os.PathLike[str]"]


class EvalReportFileError(EvalFileError):
    """A saved report that cannot be read, naming the file and what is wrong."""


def _plain(value: Any) -> Any:
    """A DataFrame cell as JSON: numpy scalars as Python ones, NaN and pandas' NA as null."""
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (list, dict, str)):
        value = item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def report_document(report: Any) -> dict[str, Any]:
    """The JSON document of ``report``, secrets masked."""
    frame = report.results
    columns = [str(c) for c in frame.columns]
    rows = [[_plain(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    document = {
        "format": f"{FORMAT}/{VERSION}",
        "created_at": report.created_at,
        "saved_at": utc_now_iso(),
        "versions": report.versions,
        "models": report.models,
        "variants": report.variants,
        "suite": report.suite,
        "settings": report.settings,
        "cache_hits": report.cache_hits,
        "interrupted": report.interrupted,
        "total_jobs": report.total_jobs,
        "columns": columns,
        "rows": rows,
        "spec_diffs": [
            {"from": a, "to": b, "changes": [_change(c) for c in diff]} for (a, b), diff in report.spec_diffs.items()
        ],
        "transcripts": [t.to_dict() for t in report.transcripts.values()],
    }
    return mask(document, report.secrets)


def _change(change: Any) -> dict[str, Any]:
    return {
        "tool": change.tool,
        "pointer": change.pointer,
        "kind": change.kind,
        "breaking": change.breaking,
        "message": change.message,
    }


def save_report(report: Any, path: PathLike) -> Path:
    from pydantic_core import to_json

    target = Path(os.fspath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    text = to_json(report_document(report), indent=1, fallback=repr, bytes_mode="base64")
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(text + b"\n")
    os.replace(tmp, target)  # a reader never sees half a report
    return target


def _version(found: Any, where: str) -> int:
    prefix = FORMAT + "/"
    if not isinstance(found, str) or not found.startswith(prefix) or not found[len(prefix) :].isdigit():
        raise EvalReportFileError(
            f'{where}: not a saved evaluation report (expected "format": "{FORMAT}/{VERSION}", got {found!r})'
        )
    version = int(found[len(prefix) :])
    if version > VERSION:
        raise EvalReportFileError(
            f"{where}: written in report format {version} by a newer tool-workbench; this "
            f"version reads format {VERSION} at most — upgrade tool-workbench to load it"
        )
    return version


def load_document(path: PathLike) -> dict[str, Any]:
    from pydantic_core import from_json

    source = Path(os.fspath(path))
    try:
        data = from_json(source.read_bytes())
    except FileNotFoundError:
        raise EvalReportFileError(f"{source}: no such evaluation report file") from None
    except ValueError as exc:
        raise EvalReportFileError(f"{source}: not JSON ({exc})") from None
    _version(data.get("format") if isinstance(data, dict) else type(data).__name__, str(source))
    missing = [k for k in ("columns", "rows", "transcripts") if not isinstance(data.get(k), list)]
    if missing:
        raise EvalReportFileError(f"{source}: a saved evaluation report needs the lists {missing}")
    width = len(data["columns"])
    bad = next((i for i, row in enumerate(data["rows"]) if not isinstance(row, list) or len(row) != width), None)
    if bad is not None:
        raise EvalReportFileError(f"{source}: row {bad} does not have the {width} columns {data['columns']}")
    return data


def report_arguments(data: dict[str, Any], where: str) -> dict[str, Any]:
    """``EvalReport(**...)`` of a loaded document."""
    from workbench.agent import Transcript
    from workbench.testing._spec_diff import SpecChange, SpecDiff

    try:
        transcripts = [Transcript.from_dict(t) for t in data["transcripts"]]
        diffs = {
            (d["from"], d["to"]): SpecDiff([SpecChange(**c) for c in d["changes"]])
            for d in data.get("spec_diffs") or []
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise EvalReportFileError(
            f"{where}: a transcript or spec diff cannot be read ({type(exc).__name__}: {exc})"
        ) from None
    return {
        "rows": [dict(zip(data["columns"], row)) for row in data["rows"]],
        "columns": data["columns"],
        "transcripts": {t.run_id: t for t in transcripts},
        "spec_diffs": diffs,
        "cache_hits": int(data.get("cache_hits") or 0),
        "interrupted": bool(data.get("interrupted")),
        "total_jobs": data.get("total_jobs"),
        "models": data.get("models") or [],
        "variants": data.get("variants") or {},
        "suite": data.get("suite"),
        "settings": data.get("settings") or {},
        "versions": data.get("versions") or {},
        "created_at": data.get("created_at"),
    }
