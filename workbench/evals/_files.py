"""``*.evals.json`` suite files: ``save_evals`` / ``load_evals``.

A suite file is test configuration, like a case file or ``conftest.py``: its ``tools`` name modules,
``module:function`` refs or ``.py`` paths (relative to the file) that are **imported** when the suite
is run, or hold spec dicts (spec-only tools, imported from nowhere)::

    {"name": "weather", "tools": ["mypkg.tools"], "model": "replay:weather.cassette.json",
     "cases": [{"id": "paris", "prompt": "Weather in Paris?",
                "expect_calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}]}
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Union

from workbench._json_text import MAX_JSON_DEPTH, loads
from workbench.evals._case import EvalCase, EvalSuite

PathLike = Union[str, "os.PathLike[str]"]
SUFFIX = ".evals.json"
#: a suite nests its cases a few levels around messages and expected values of up to MAX_JSON_DEPTH levels
MAX_FILE_DEPTH = 2 * MAX_JSON_DEPTH


class EvalFileError(ValueError):
    """A suite file that cannot be read, naming the file and what is wrong."""


def save_evals(suite: EvalSuite, path: PathLike | None = None) -> Path:
    """Write ``suite`` to ``path`` (default: its own path, else ``<name>.evals.json``); returns the path.
    Tools given as objects are written as their refs or, without one, their spec dicts."""
    target = Path(path or suite.path or f"{suite.name}{SUFFIX}")
    data = {
        "name": suite.name,
        "tools": [_tool_entry(t) for t in suite.tools],
        **({"model": suite.model} if suite.model else {}),
        **({"max_turns": suite.max_turns} if suite.max_turns != 1 else {}),
        "cases": [c.to_dict() for c in suite.cases],
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    suite.path = str(target)
    return target


def _tool_entry(item: Any) -> Any:
    if isinstance(item, (str, dict)):
        return item
    spec = getattr(item, "spec", item)
    ref = getattr(item, "ref", None)
    if isinstance(ref, str) and ref:
        return ref
    module, name = getattr(item, "__module__", None), getattr(getattr(item, "func", None), "__name__", None)
    if module and name and module != "__main__" and not module.startswith("__"):
        return f"{module}:{name}"
    return spec.to_json() if hasattr(spec, "to_json") else item


def add_eval_case(path: PathLike, case: EvalCase, *, tools: Any = None) -> Path:
    """Add ``case`` to the suite file at ``path`` (created with ``tools`` when it does not exist yet;
    a case with the same id is replaced). What the playground's *Save as eval case* does."""
    where = Path(path)
    suite = load_evals(where) if where.exists() else EvalSuite(where.name.removesuffix(SUFFIX), tools=list(tools or []))
    if tools and where.exists():
        known = {json.dumps(_tool_entry(t), sort_keys=True) for t in suite.tools}
        suite.tools += [t for t in tools if json.dumps(_tool_entry(t), sort_keys=True) not in known]
    suite.cases = [c for c in suite.cases if c.id != case.id] + [case]
    return save_evals(suite, where)


def load_evals(path: PathLike) -> EvalSuite:
    """Read a suite file (its tools are resolved when the suite is run, see :func:`suite_registry`).
    Its JSON is measured before it is parsed: a file nested deeper than any suite needs is refused."""
    where = Path(path)
    try:
        data = loads(where.read_text(encoding="utf-8"), max_depth=MAX_FILE_DEPTH)
    except FileNotFoundError:
        raise EvalFileError(f"{where}: no such suite file") from None
    except OSError as exc:
        raise EvalFileError(f"{where}: cannot read the suite file ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise EvalFileError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise EvalFileError(f"{where}: a suite file is an object with 'cases' (a list)")
    try:
        cases = [EvalCase.from_dict(c) for c in data["cases"]]
        return EvalSuite(
            name=str(data.get("name") or where.name.removesuffix(SUFFIX)),
            cases=cases,
            tools=list(data.get("tools") or []),
            model=data.get("model"),
            path=str(where),
            max_turns=data.get("max_turns", 1),
        )
    except (TypeError, ValueError) as exc:
        raise EvalFileError(f"{where}: {exc}") from None


def suite_registry(suite: EvalSuite) -> Any:
    """A registry of the suite's tools: objects as they are, spec dicts as spec-only tools, names
    and refs imported (``.py`` paths relative to the suite file)."""
    from workbench.registry import ToolRegistry
    from workbench.spec import ToolSpec

    registry = ToolRegistry(synthetic=True)
    folder = Path(suite.path).parent if suite.path else Path.cwd()
    names = []
    for item in suite.tools:
        if isinstance(item, dict):
            registry.register_spec(ToolSpec(**item))
        elif isinstance(item, str) and (item.endswith(".py") or "/" in item):
            names.append(str(item if Path(item).is_absolute() else (folder / item).resolve()))
        elif isinstance(item, str) and (folder / f"{item}.py").is_file():
            # the suite's own module, by its file: a module of the same name imported earlier from
            # elsewhere (another folder on sys.path) must not stand in for it
            names.append(str((folder / f"{item}.py").resolve()))
        else:
            names.append(item)
    if names:
        sys.path.insert(0, str(folder))
        try:
            registry.process_tools(names)
        except Exception as exc:  # noqa: BLE001 - the user's module failed to import: say which suite
            raise EvalFileError(f"{suite.path or suite.name}: cannot load its tools {names!r}: {exc}") from None
        finally:
            sys.path.remove(str(folder))
    return registry


def find_eval_files(root: PathLike) -> list[Path]:
    """Every ``*.evals.json`` below ``root`` (or ``root`` itself), sorted."""
    root = Path(root)
    if root.is_file():
        return [root] if root.name.endswith(SUFFIX) else []
    return sorted(p for p in root.rglob(f"*{SUFFIX}") if ".ipynb_checkpoints" not in p.parts)
