"""Case files: ``<folder>/<tool>.cases.json``, one per tool.

The format (written pretty-printed with a fixed key order, so diffs review well)::

    {
      "tool": "add",
      "tools": ["mypkg.tools"],
      "cases": [
        {"id": "small-numbers", "input": {"a": 1, "b": 2}, "expect": "exact", "value": 3},
        {"id": "bad-type", "input": {"a": "x", "b": 2}, "expect": "error", "error_type": "ToolInputError"}
      ]
    }

``tools`` says how to load the tools, as ``ToolRegistry.process_tools`` takes them: module names
(``"mypkg.tools"``, every tool of the module), refs (``"mypkg.tools:add"``) and ``.py`` paths
(relative to the case file's folder). **A case file is test configuration, like ``conftest.py``:
running it imports the modules it names** — run case files you trust. A spec-only tool (no code
yet) is stored as ``"spec": {...}`` instead, and its cases replay in synthetic mode.

A plain JSON list of cases is accepted too (each case then names its ``tool``); its tools come
from the registry the runner is given.
"""

from __future__ import annotations

import json
import linecache
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

from workbench._json_text import MAX_JSON_DEPTH
from workbench._json_text import loads as load_json
from workbench.testing._cases import CaseFileError, ToolCase

__all__ = [
    "CaseFile",
    "save_case",
    "set_case_folder",
    "case_folder",
    "find_case_files",
    "load_cases",
    "CASE_SUFFIX",
    "DEFAULT_FOLDER",
]

CASE_SUFFIX = ".cases.json"
#: a case file nests its cases a few levels around inputs and expectations of up to MAX_JSON_DEPTH levels
_MAX_FILE_DEPTH = 2 * MAX_JSON_DEPTH
DEFAULT_FOLDER = "tool_cases"
PathLike = Union[str, "os.PathLike[str]"]

_folder: Optional[Path] = None
_lock = threading.Lock()


def set_case_folder(folder: Optional[PathLike]) -> Optional[Path]:
    """Set where :func:`save_case` writes when no folder is given (per process, so per kernel);
    ``None`` restores the default ``tool_cases/``. Returns the previous setting."""
    global _folder
    previous, _folder = _folder, None if folder is None else Path(folder)
    return previous


def case_folder() -> Path:
    """The folder :func:`save_case` writes to by default (``tool_cases/`` unless set)."""
    return _folder if _folder is not None else Path(DEFAULT_FOLDER)


@dataclass
class CaseFile:
    """The cases of one tool and how to load it."""

    tool: Optional[str]
    cases: list[ToolCase] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    spec: Optional[dict[str, Any]] = None
    path: Optional[Path] = None

    # -- reading -----------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: PathLike) -> "CaseFile":
        """Read a case file; ``CaseFileError`` names the file, the case and the field at fault."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CaseFileError(f"Cannot read case file {str(path)!r}: {exc.strerror or exc}") from None
        try:
            data = load_json(text, max_depth=_MAX_FILE_DEPTH)
        except json.JSONDecodeError as exc:
            raise CaseFileError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        return cls.from_data(data, path)

    @classmethod
    def from_data(cls, data: Any, path: Optional[Path] = None) -> "CaseFile":
        where = str(path) if path is not None else "case file"
        if isinstance(data, list):
            data = {"cases": data}
        if not isinstance(data, dict):
            raise CaseFileError(
                f'{where}: a case file is a JSON object {{"tool", "tools", "cases"}} '
                f"(or a list of cases), got {type(data).__name__}"
            )
        unknown = [k for k in data if k not in ("tool", "tools", "spec", "cases")]
        if unknown:
            raise CaseFileError(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; a case file has "
                "'tool', 'tools' (or 'spec') and 'cases'"
            )
        tool = data.get("tool")
        if tool is not None and (not isinstance(tool, str) or not tool):
            raise CaseFileError(f"{where}: 'tool' must be the tool's name, got {tool!r}")
        tools = data.get("tools", [])
        if isinstance(tools, str):
            tools = [tools]
        if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
            raise CaseFileError(
                f"{where}: 'tools' must be a module, ref or .py path, or a list of them "
                f"(as ToolRegistry.process_tools takes), got {data.get('tools')!r}"
            )
        spec = data.get("spec")
        if spec is not None and not isinstance(spec, dict):
            raise CaseFileError(f"{where}: 'spec' must be a tool spec object, got {type(spec).__name__}")
        raw_cases = data.get("cases", [])
        if not isinstance(raw_cases, list):
            raise CaseFileError(f"{where}: 'cases' must be a list, got {type(raw_cases).__name__}")
        cases: list[ToolCase] = []
        seen: dict[Optional[str], int] = {}
        for index, raw in enumerate(raw_cases):
            label = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else f"#{index + 1}"
            case = ToolCase.from_dict(raw, tool, where=f"{where}: case {label}")
            if case.id is None:
                case = case.with_id(f"case-{index + 1}")
            if tool is not None and case.tool != tool:
                raise CaseFileError(f"{where}: case {case.id} is for tool {case.tool!r} but the file is for {tool!r}")
            if case.id in seen:
                raise CaseFileError(
                    f"{where}: case id {case.id!r} is used twice (cases #{seen[case.id] + 1} and "
                    f"#{index + 1}); ids must be unique in a file"
                )
            seen[case.id] = index
            cases.append(case)
        return cls(tool=tool, cases=cases, tools=list(tools), spec=spec, path=path)

    # -- writing -----------------------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.spec is not None:
            data["spec"] = self.spec
        else:
            data["tools"] = list(self.tools)
        data["cases"] = [c.to_dict(with_tool=self.tool is None) for c in self.cases]
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_data(), indent=2, ensure_ascii=False) + "\n"

    def save(self, path: Optional[PathLike] = None) -> Path:
        """Write the file (atomically: a temporary file renamed over it)."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("CaseFile.save needs a path")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(self.dumps(), encoding="utf-8")
        os.replace(tmp, target)
        self.path = target
        return target

    # -- editing -----------------------------------------------------------------------------------
    def add(self, case: ToolCase) -> ToolCase:
        """Add a case (an identical one already there is kept instead; a case with an existing id
        replaces it). Gives the case an id when it has none. Returns the case as stored."""
        for index, existing in enumerate(self.cases):
            if case.id is not None and existing.id == case.id:
                self.cases[index] = case
                return case
            if case.id is None and existing.same_call(case):
                return existing
        if case.id is None:
            taken = {c.id for c in self.cases}
            number = len(self.cases) + 1
            while f"case-{number}" in taken:
                number += 1
            case = case.with_id(f"case-{number}")
        self.cases.append(case)
        return case

    def source_dir(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def resolved_tools(self) -> list[str]:
        """``tools`` with ``.py`` paths made absolute (relative ones are relative to this file)."""
        out = []
        for item in self.tools:
            if item.endswith(".py") or "/" in item or os.sep in item:
                candidate = Path(item)
                out.append(str(candidate if candidate.is_absolute() else (self.source_dir() / candidate).resolve()))
            else:
                out.append(item)
        return out

    def build_registry(self) -> Any:
        """A fresh registry with this file's tools (importing the modules ``tools`` names)."""
        from workbench.registry import ToolRegistry

        registry = ToolRegistry(synthetic=True)
        where = str(self.path) if self.path is not None else "case file"
        if self.spec is not None:
            try:
                registry.register_spec(self.spec)
            except Exception as exc:  # noqa: BLE001 - a malformed spec: say where it came from
                raise CaseFileError(f"{where}: its 'spec' is not a valid tool spec: {exc}") from None
        sources = self.resolved_tools()
        if sources:
            sys.path.insert(0, str(self.source_dir()))  # modules next to the file, as pytest's rootdir-relative imports
            try:
                registry.process_tools(sources)
            except Exception as exc:  # noqa: BLE001 - an import error in the user's module
                raise CaseFileError(f"{where}: cannot load its tools {self.tools!r}: {exc}") from None
            finally:
                try:
                    sys.path.remove(str(self.source_dir()))
                except ValueError:
                    pass
        return registry


def _source_of(tool: Any, registry: Any, folder: Path) -> tuple[list[str], Optional[dict[str, Any]]]:
    """(``tools`` entries, spec) that load ``tool`` again: its module, its ``.py`` file, or its spec."""
    from workbench.tools import DecoratedFunctionTool

    if not getattr(tool, "has_implementation", True):
        return [], _spec_json(tool)
    ref = registry.get_tool_ref(tool.tool_name) if registry is not None else None
    if ref:
        module = ref.split(":")[0]
    elif isinstance(tool, DecoratedFunctionTool):
        module = getattr(tool, "__module__", None)
    else:
        module = type(tool).__module__
    if module == "__main__" and isinstance(tool, DecoratedFunctionTool):
        written = _write_notebook_module(tool, folder)
        if written is not None:  # beside the case file, so pytest in a fresh process can import it
            return [written.name], None
    if not module or module == "__main__" or module == "workbench" or module.startswith("workbench."):
        return [], None  # a notebook's tool, or one of workbench's own kinds (an MCP proxy): nothing to import
    file = getattr(sys.modules.get(module), "__file__", None)
    if module.startswith("workbench_tools_") and file:  # loaded from a .py path by process_tools
        path = Path(file).resolve()
        try:
            return [Path(os.path.relpath(path, folder.resolve())).as_posix()], None
        except ValueError:  # another drive
            return [str(path)], None
    return [module], None


def generated_module_name(tool_name: str) -> str:
    """The file :func:`save_case` writes a notebook tool's source to: ``<tool>_tool.py``."""
    return f"{tool_name}_tool.py"


_OPTION_DEFAULTS: dict[str, Any] = {
    "description": None,
    "when_to_use": None,
    "long_running": False,
    "idempotent": False,
    "permission": "always_allow",
    "timeout": None,
}


def notebook_module_text(tool: Any) -> Optional[str]:
    """A module defining ``tool`` again: the source of the notebook cell its function came from
    (IPython keeps it in ``linecache``) and ``@tool(...)`` with the tool's options; ``None`` when the
    cell's source is not available (a function ``exec``'d from a string, a script file)."""
    func: Any = getattr(tool, "_func", None)
    code = getattr(func, "__code__", None)
    if code is None or os.path.exists(code.co_filename):  # a real file (a script run as __main__): not a cell
        return None
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    spec = tool.spec
    options: dict[str, Any] = {"name": spec.name}
    values = {
        "description": spec.description,
        "when_to_use": spec.when_to_use,
        "long_running": spec.long_running,
        "idempotent": spec.idempotent,
        "permission": getattr(spec.permission, "value", spec.permission),
        "timeout": spec.timeout,
    }
    options.update({k: v for k, v in values.items() if v != _OPTION_DEFAULTS[k]})
    context = tool.__dict__.get("_wb_ctx")
    if context:
        options["context"] = context
    arguments = "".join(f", {key}={value!r}" for key, value in options.items())
    cell = "".join(lines).rstrip() + "\n"
    return (
        f"# Generated by workbench's save_case from the notebook cell that defines tool {spec.name!r};\n"
        "# saving a case of the tool again regenerates this file.\n"
        "from workbench import tool\n\n"
        f"{cell}\n"
        f"{func.__name__} = tool({func.__name__}{arguments})  # no-op when the cell already applied @tool\n"
    )


def _write_notebook_module(tool: Any, folder: Path) -> Optional[Path]:
    text = notebook_module_text(tool)
    if text is None:
        return None
    target = folder / generated_module_name(tool.tool_name)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target


def refresh_notebook_module(case_file: CaseFile, registry: Any) -> Optional[Path]:
    """Rewrite the generated ``<tool>_tool.py`` a case file names from the notebook tool of that name
    in ``registry`` (its current cell), so rewritten expectations and the module stay in step.
    Returns the path written, or ``None`` (not a generated module, or no cell tool to take it from)."""
    from workbench.tools import DecoratedFunctionTool

    if case_file.tool is None or case_file.path is None or case_file.tools != [generated_module_name(case_file.tool)]:
        return None
    tool = registry.get(case_file.tool) if registry is not None and hasattr(registry, "get") else None
    if not isinstance(tool, DecoratedFunctionTool) or getattr(tool, "__module__", None) != "__main__":
        return None
    return _write_notebook_module(tool, case_file.path.parent)


def _spec_json(tool: Any) -> dict[str, Any]:
    data = tool.spec.to_json()
    data.pop("inputs", None)
    return data


def save_case(
    case: ToolCase, folder: Optional[PathLike] = None, *, registry: Any = None, tools: Optional[Iterable[str]] = None
) -> Path:
    """Add ``case`` to ``<folder>/<tool>.cases.json`` (created if missing) and return the file's path.

    Args:
        case: the case; it gets an id (``case-N``) if it has none. A case identical to one in the
            file is not added twice; a case with the id of an existing one replaces it.
        folder: the folder; default :func:`case_folder` (``tool_cases/`` unless :func:`set_case_folder`).
        registry: where the tool is registered (default: the default registry); used to write a new
            file's ``tools`` (the tool's module or ``.py`` file) or, for a spec-only tool, its ``spec``.
        tools: the ``tools`` entries to write instead of the derived ones.

    A tool defined in a notebook cell (``%%tool``; module ``__main__``) has no module to import: its
    cell's source is written beside the case file as ``<tool>_tool.py`` (with ``@tool(...)`` and the
    tool's options) and ``tools`` names that file; saving again regenerates it. When the cell's source
    is unknown the file is written with ``"tools": []`` and a warning.
    """
    if not isinstance(case, ToolCase):
        raise TypeError(f"save_case expects a ToolCase, got {type(case).__name__}")
    target_dir = Path(folder) if folder is not None else case_folder()
    path = target_dir / f"{case.tool}{CASE_SUFFIX}"
    with _lock:
        case_file = CaseFile.load(path) if path.exists() else CaseFile(tool=case.tool, path=path)
        if tools is not None:
            case_file.tools, case_file.spec = list(tools), None
        elif case_file.spec is None and case_file.tools in ([], [generated_module_name(case.tool)]):
            derived = _derive_source(case.tool, registry, target_dir)
            if derived != ([], None):
                case_file.tools, case_file.spec = derived
            elif not case_file.tools:
                warnings.warn(
                    f"save_case: tool {case.tool!r} has no importable module (defined in a notebook?); "
                    f'{path} is written with "tools": [] — add the module that defines it so pytest '
                    "can load it",
                    UserWarning,
                    stacklevel=2,
                )
        case_file.add(case)
        return case_file.save(path)


def _derive_source(name: str, registry: Any, folder: Path) -> tuple[list[str], Optional[dict[str, Any]]]:
    if registry is None:
        from workbench.registry import default_registry

        registry = default_registry()
    tool = registry.get(name) if hasattr(registry, "get") else None
    if tool is None:
        return [], None
    return _source_of(tool, registry, folder)


def find_case_files(root: PathLike) -> list[Path]:
    """Every ``*.cases.json`` under ``root`` (itself if it is one), sorted."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.exists():
        raise CaseFileError(f"No case file or folder at {str(root)!r}")
    return sorted(p for p in root.rglob(f"*{CASE_SUFFIX}") if p.is_file())


def load_cases(source: Any) -> Iterator[tuple[Optional[CaseFile], ToolCase]]:
    """(case file or None, case) pairs from a path (file or folder), a ``CaseFile``, a ``ToolCase``
    or a list of those."""
    if isinstance(source, ToolCase):
        yield None, source if source.id is not None else source.with_id("case-1")
    elif isinstance(source, CaseFile):
        for case in source.cases:
            yield source, case
    elif isinstance(source, (str, os.PathLike)):
        for path in find_case_files(source):
            case_file = CaseFile.load(path)
            for case in case_file.cases:
                yield case_file, case
    elif isinstance(source, (list, tuple)):
        for index, item in enumerate(source):
            if isinstance(item, ToolCase) and item.id is None:  # unsaved cases: named by their position
                yield None, item.with_id(f"case-{index + 1}")
            else:
                yield from load_cases(item)
    else:
        raise TypeError(
            f"Expected a case file path, a folder, a CaseFile, a ToolCase or a list of them, "
            f"got {type(source).__name__}"
        )
