"""The package's layers import strictly downward, and no module imports itself round a circle.

Read from the source with ``ast`` (every ``import``, at module level or inside a function): a module
may import modules of its own layer or of a lower one, never a higher one; and the import graph of
the modules has no cycle — a package's ``__init__`` imports its submodules, so a submodule that
imports its own package's ``__init__`` closes a circle too. The conveniences a lower layer offers
but a higher one carries out go through ``workbench._entry_points`` (filled in by the package).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "workbench"

# lowest first; a module's layer is the first whose pattern matches its dotted name
LAYERS = [
    (
        "types",
        r"workbench\.(types|_async|_errors|_events|_content|_html|_text|_refs|_styles|_docstrings|_version|_entry_points|_json_text|_json_copy|_unicode|secrets|content|_peer|context)",
    ),
    (
        "spec",
        r"workbench\.(spec|schema|_schema|_field_schemas|_meta_schema|_strict_json|_validation|_validation_mode|_error_order|_synthetic\w*)",
    ),
    ("formats", r"workbench\.(formats|providers)(\..+)?"),
    ("tools", r"workbench\.(tools|builtins|transforms|protocols)"),
    ("registry", r"workbench\.registry"),
    ("executor", r"workbench\.(executor(\..+)?|_batch|summary)"),
    ("log", r"workbench\.log(\..+)?"),
    ("models", r"workbench\.models(\..+)?"),
    ("agent", r"workbench\.agent(\..+)?"),
    ("applications", r"workbench\.(mcp|testing|dask|evals|adapters)(\..+)?"),
    # the notebook layer sits on the applications: MCP offers no notebook view, the notebook offers
    # one of an MCP connection (``workbench.jupyter.inspect``)
    ("notebook", r"workbench\.jupyter(\..+)?"),
    ("command line", r"workbench\.(cli|__main__)"),
    ("package", r"workbench"),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    for index, (_name, pattern) in enumerate(LAYERS):
        if re.fullmatch(pattern, module):
            return index
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def imports_of(module: str, path: Path) -> set[tuple[str, int]]:
    """(imported workbench module, line) for every import in ``module``'s source at ``path``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update((alias.name, node.lineno) for alias in node.names if alias.name.split(".")[0] == "workbench")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            if base.split(".")[0] != "workbench":
                continue
            for alias in node.names:  # ``from package import submodule`` imports the submodule
                submodule = f"{base}.{alias.name}"
                found.add((submodule if submodule in MODULES else base, node.lineno))
    return {(target, line) for target, line in found if target in MODULES and target != module}


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    upward = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]}) at line {line}"
        for target, line in sorted(GRAPH[module])
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_no_import_cycles():
    edges = {module: {target for target, _ in targets} for module, targets in GRAPH.items()}
    cycles = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                cycles.append(
                    " -> ".join(path[path.index(target) :] + [module, target])
                    if target in path
                    else f"{module} -> {target}"
                )
            elif target not in state:
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])
    assert cycles == []


def test_the_reader_sees_function_level_relative_and_submodule_imports(tmp_path):
    """So that the checks above can fail: an upward import inside a function is found."""
    path = tmp_path / "spec.py"
    path.write_text(
        "import json\nfrom . import types\nfrom .mcp import _server\n\n"
        "def f():\n    from workbench.executor import SequentialExecutor\n    import workbench.log\n"
    )
    found = imports_of("workbench.spec", path)
    assert found == {
        ("workbench.types", 2),
        ("workbench.mcp._server", 3),
        ("workbench.executor", 6),
        ("workbench.log", 7),
    }
    assert [target for target, _ in found if layer_of(target) > layer_of("workbench.spec")]


def test_the_mcp_layer_may_not_import_the_notebook(tmp_path):
    """An MCP module that imports a notebook view (as ``mcp.inspect`` once did) is an upward import."""
    path = tmp_path / "_inspect.py"
    path.write_text("def inspect():\n    from workbench.jupyter._mcp_inspector import McpInspector\n")
    found = imports_of("workbench.mcp._inspect", path)
    assert found == {("workbench.jupyter._mcp_inspector", 2)}
    assert layer_of("workbench.jupyter._mcp_inspector") > layer_of("workbench.mcp._inspect")
    assert layer_of("workbench.log._store") == layer_of("workbench.log") < layer_of("workbench.mcp._client")
