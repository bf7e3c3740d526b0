"""``workbench.log`` is a package of parts with one job each, behind the ``ExecutionLog`` facade.

The facade keeps every public method; ``workbench.log`` still offers every public name (and the
private ones other modules import); no class of the package grows past a few hundred lines of code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import workbench.log

PUBLIC_METHODS = {
    "append",
    "append_many",
    "subscribe",
    "unsubscribe",
    "rows",
    "success_rows",
    "page",
    "tool_names",
    "get",
    "to_dataframe",
    "export",
    "replay",
    "to_cases",
    "start_run",
    "append_turn",
    "end_run",
    "runs",
    "run",
    "rows_of_run",
    "clear",
    "close",
    "closed",
    "__len__",
    "__iter__",
    "__bool__",
    "__enter__",
    "__exit__",
    "__repr__",
    "_repr_html_",
}
# the log's parts and the job of each (a new part is added here, with its job)
PARTS = {"_schema", "_rows", "_record", "_store", "_events", "_export", "_runs", "_replay", "_html", "_log"}
MAX_CLASS_CODE_LINES = 250  # lines of a class that are not docstrings ("a few hundred at most")


def _code_lines(node: ast.ClassDef) -> int:
    docstrings: set[int] = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and ast.get_docstring(inner):
            first = inner.body[0]
            docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return len(set(range(node.lineno, (node.end_lineno or node.lineno) + 1)) - docstrings)


def test_the_log_is_a_package_of_its_parts():
    folder = Path(workbench.log.__file__).parent
    assert folder.name == "log" and Path(workbench.log.__file__).name == "__init__.py"
    assert {path.stem for path in folder.glob("_*.py") if path.stem != "__init__"} == PARTS


def test_no_class_of_the_log_is_large():
    folder = Path(workbench.log.__file__).parent
    sizes = {}
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                sizes[f"{path.name}:{node.name}"] = _code_lines(node)
    assert sizes and {name: size for name, size in sizes.items() if size > MAX_CLASS_CODE_LINES} == {}


def test_the_facade_keeps_every_public_method():
    members = dict(inspect.getmembers(workbench.log.ExecutionLog))
    assert PUBLIC_METHODS - set(members) == set()


def test_every_name_is_still_importable_from_workbench_log():
    names = [*workbench.log.__all__, "_output_summary", "_DDL", "_INSERT_SQL"]
    module = importlib.import_module("workbench.log")
    assert [name for name in names if not hasattr(module, name)] == []
    assert workbench.log.EXPORT_FORMATS == (".csv", ".jsonl", ".parquet")
    assert workbench.log.OUTCOMES == ("success", "error", "cancelled")
