"""Checks on the tutorial notebooks themselves (``notebooks/``).

nbval (``pytest --nbval``) re-runs every notebook and compares outputs; these tests cover what nbval
cannot see:

(a) every notebook in ``notebooks/`` is numbered (``NN_name.ipynb``, numbers unique), uses the
    ``python3`` kernel and has its outputs committed: every code cell was executed, top to bottom;
(b) every package a notebook imports (``import``/``from`` statements, including inside ``%%`` cell
    magics such as ``%%tool``, and ``%load_ext X``) is installed by the binder files —
    ``binder/requirements.txt`` (and ``pip install`` lines of ``binder/postBuild``) install this
    project with some extras, so the allowed distributions are the project's dependencies plus those
    extras, followed recursively through the installed distributions' metadata (but not through a
    package installed ``--no-deps``: its requirements are not installed);
(c) what a tutorial needs at run time without importing it (BFCL's MathAPI computes with ``mpmath``)
    is installed by binder and by README's first command too.

The checkers are plain functions, exercised on small synthetic inputs too, so a checker that
silently accepts everything would fail here.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.metadata as metadata
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Iterable, Optional

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the test extra installs tomli
    import tomli as tomllib

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
BINDER = ROOT / "binder"
NOTEBOOK_NAME = re.compile(r"^(?P<number>\d{2})_[a-z0-9]+(?:_[a-z0-9]+)*\.ipynb$")

# Cell magics whose body is Python run in the user namespace (their imports count).
PYTHON_BODY_CELL_MAGICS = frozenset({"tool", "time", "timeit", "capture", "prun"})


# -- helpers: notebooks ------------------------------------------------------------------------------
def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def read_notebook(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def cell_source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def code_cells(nb: dict[str, Any]) -> list[tuple[int, str, dict[str, Any]]]:
    """``(cell index, source, cell)`` of every non-empty code cell."""
    return [
        (i, cell_source(c), c)
        for i, c in enumerate(nb.get("cells", []))
        if c.get("cell_type") == "code" and cell_source(c).strip()
    ]


def unexecuted_cells(nb: dict[str, Any]) -> list[str]:
    """Problems with committed outputs: cells never executed, or executed out of order."""
    problems = []
    previous = 0
    for index, _, cell in code_cells(nb):
        count = cell.get("execution_count")
        if count is None:
            problems.append(f"cell {index} has no execution_count (not executed before committing)")
        elif count <= previous:
            problems.append(
                f"cell {index} has execution_count {count} after {previous} "
                "(run the notebook top to bottom in a fresh kernel)"
            )
        else:
            previous = count
    return problems


# -- helpers: imports --------------------------------------------------------------------------------
def _to_python(source: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _string_args(call: ast.Call) -> Optional[list[str]]:
    if all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args):
        return [a.value for a in call.args]  # type: ignore[union-attr]
    return None


def imported_modules(source: str) -> set[str]:
    """Top-level module names a notebook cell imports (absolute imports, ``%load_ext`` targets,
    and imports inside the body of Python cell magics such as ``%%tool``)."""
    tree = compile(_to_python(source), "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            args = _string_args(node)
            if args is None:
                continue
            if node.func.attr == "run_line_magic" and len(args) == 2 and args[0] == "load_ext":
                found.update(name.split(".")[0] for name in args[1].split())
            elif node.func.attr == "run_cell_magic" and len(args) == 3 and args[0] in PYTHON_BODY_CELL_MAGICS:
                found |= imported_modules(args[2])
    return found


def local_modules() -> set[str]:
    """Modules that live next to the notebooks (importable because the kernel runs there)."""
    names = {p.stem for p in NOTEBOOKS.glob("*.py")}
    names |= {p.parent.name for p in NOTEBOOKS.glob("*/__init__.py")}
    return names


def third_party_imports(nb: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for _, source, _ in code_cells(nb):
        found |= imported_modules(source)
    return {name for name in found if name not in sys.stdlib_module_names and name not in local_modules()}


# -- helpers: what binder installs -----------------------------------------------------------------
def _project_extras(spec: str) -> Optional[set[str]]:
    """The extras of a pip argument naming this project (``.``, ``.[lab]``, ``-e .[lab]``, ``./``), else None."""
    match = re.fullmatch(r"(?:-e\s+|--editable\s+)?\./?(?:\[(?P<extras>[^\]]*)\])?", spec.strip().strip("\"'"))
    if match is None:
        return None
    return {canonicalize_name(e) for e in (match.group("extras") or "").split(",") if e.strip()}


def binder_install_specs(*, no_deps: Optional[bool] = None) -> list[str]:
    """pip arguments from ``binder/requirements.txt`` and the ``pip install`` lines of ``binder/postBuild``
    (``no_deps``: see :func:`pip_install_specs`)."""
    specs: list[str] = []
    requirements = BINDER / "requirements.txt"
    if requirements.exists() and not no_deps:
        for line in requirements.read_text().splitlines():
            line = line.split(" #")[0].strip()
            if line and not line.startswith("#"):
                specs.append(line)
    post_build = BINDER / "postBuild"
    if post_build.exists():
        specs += pip_install_specs(post_build.read_text(), no_deps=no_deps)
    return specs


def pip_install_specs(shell: str, *, no_deps: Optional[bool] = None) -> list[str]:
    """The requirement arguments of every ``pip install`` in ``shell`` (lines, or commands joined by ``&&``);
    with ``no_deps`` True (False), only those of installs with (without) ``--no-deps``."""
    specs: list[str] = []
    for line in shell.splitlines():
        for command in line.split("&&"):
            words = shlex.split(command, comments=True)
            if "pip" not in words or "install" not in words[words.index("pip") :]:
                continue
            if no_deps is not None and ("--no-deps" in words) != no_deps:
                continue
            skip_next = False
            for word in words[words.index("install", words.index("pip")) + 1 :]:
                if skip_next:
                    skip_next = False
                elif word in ("-e", "--editable"):
                    continue
                elif word in ("-r", "--requirement", "-c", "--constraint", "-i", "--index-url"):
                    skip_next = True
                elif not word.startswith("-"):
                    specs.append(word)
    return specs


def readme_lab_command() -> str:
    """README's first command (installs the package and opens JupyterLab on the tutorials)."""
    return re.findall(r"```bash\n(.+?)\n```", (ROOT / "README.md").read_text())[0]


def binder_roots(pyproject: dict[str, Any], specs: Iterable[str]) -> list[Requirement]:
    """The requirements binder installs directly: the project (with its deps and requested extras)
    and any other requirement lines."""
    project = pyproject["project"]
    optional = {canonicalize_name(k): v for k, v in project.get("optional-dependencies", {}).items()}
    roots: list[Requirement] = []
    for spec in specs:
        extras = _project_extras(spec)
        if extras is None:
            try:
                roots.append(Requirement(spec))
            except InvalidRequirement:
                pytest.fail(f"binder installs {spec!r}, which this test cannot interpret")
            continue
        roots.append(Requirement(project["name"]))
        roots += [Requirement(r) for r in project.get("dependencies", [])]
        for extra in extras:
            if extra not in optional:
                pytest.fail(f"binder installs the extra {extra!r}, which pyproject.toml does not define")
            roots += [Requirement(r) for r in optional[extra]]
    return roots


def _applies(marker: Optional[Marker], extra: str) -> bool:
    return marker is None or marker.evaluate({"extra": extra})


def distribution_closure(roots: Iterable[Requirement], alone: Iterable[str] = ()) -> tuple[set[str], set[str]]:
    """Canonical names of the distributions the roots install (following installed metadata, except
    for the ``alone`` ones, installed ``--no-deps``), and the names of required distributions that are
    not installed here."""
    installed: set[str] = set()
    missing: set[str] = set()
    seen: set[tuple[str, str]] = set()
    alone = {canonicalize_name(Requirement(a).name) for a in alone}
    queue = [r for r in roots if _applies(r.marker, "")]
    while queue:
        req = queue.pop()
        name = canonicalize_name(req.name)
        wanted = [e for e in ("", *sorted(canonicalize_name(x) for x in req.extras)) if (name, e) not in seen]
        if not wanted:
            continue
        seen.update((name, e) for e in wanted)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            missing.add(name)
            continue
        installed.add(name)
        if name in alone:
            continue
        for text in dist.requires or []:
            sub = Requirement(text)
            if any(_applies(sub.marker, e) for e in wanted):
                queue.append(sub)
    return installed, missing


def project_import_names(pyproject: dict[str, Any]) -> set[str]:
    """This project's own top-level packages (in case the install is not visible in metadata)."""
    patterns = pyproject.get("tool", {}).get("setuptools", {}).get("packages", {}).get("find", {}).get("include", [])
    return {
        p.name
        for p in ROOT.iterdir()
        if (p / "__init__.py").exists() and any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns)
    }


def unprovided_imports(
    modules: Iterable[str],
    allowed: set[str],
    distributions_of: dict[str, list[str]],
    own_modules: set[str] = frozenset(),
) -> dict[str, str]:
    """``{module: why}`` for each module not provided by one of the ``allowed`` distributions."""
    problems = {}
    for module in sorted(modules):
        if module in own_modules:
            continue
        providers = {canonicalize_name(d) for d in distributions_of.get(module, [])}
        if not providers:
            problems[module] = "no installed distribution provides it"
        elif not providers & allowed:
            problems[module] = f"provided by {sorted(providers)}, which binder does not install"
    return problems


#: what a tutorial needs at run time without importing it: (what its code does, the distribution, why)
RUNTIME_NEEDS = [
    (re.compile(r"""load_bfcl\(\s*["']multi_turn"""), "mpmath", "BFCL's MathAPI (multi-turn) computes with mpmath"),
]


def runtime_needs(nb: dict[str, Any]) -> dict[str, str]:
    """``{distribution: why}`` a notebook's code needs installed though it does not import it."""
    code = "\n".join(source for _, source, _ in code_cells(nb))
    return {dist: why for pattern, dist, why in RUNTIME_NEEDS if pattern.search(code)}


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def binder_distributions(pyproject) -> set[str]:
    specs = binder_install_specs()
    assert specs, "binder/requirements.txt (or postBuild) installs nothing"
    roots = binder_roots(pyproject, specs)
    assert any(canonicalize_name(r.name) == canonicalize_name(pyproject["project"]["name"]) for r in roots), (
        "binder does not install this project (binder/requirements.txt should list '.' or '.[lab]')"
    )
    installed, _ = distribution_closure(roots, binder_install_specs(no_deps=True))
    return installed


# -- (a) numbered notebooks with committed outputs ----------------------------------------------------
def test_there_are_numbered_tutorials():
    paths = notebook_paths()
    assert paths, f"no notebooks in {NOTEBOOKS}"
    bad = [p.name for p in paths if not NOTEBOOK_NAME.match(p.name)]
    assert not bad, f"notebooks must be named NN_lowercase_words.ipynb: {bad}"
    numbers = [NOTEBOOK_NAME.match(p.name)["number"] for p in paths]
    duplicates = sorted({n for n in numbers if numbers.count(n) > 1})
    assert not duplicates, f"two notebooks share a number: {duplicates}"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_outputs_are_committed(path):
    nb = read_notebook(path)
    assert code_cells(nb), f"{path.name} has no code cells"
    problems = unexecuted_cells(nb)
    assert not problems, f"{path.name}: " + "; ".join(problems)
    kernel = nb.get("metadata", {}).get("kernelspec", {}).get("name")
    assert kernel == "python3", f"{path.name}: kernelspec is {kernel!r}, expected 'python3'"


# -- (b) every imported package is installed by binder ----------------------------------------------
@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_imports_are_installed_by_binder(path, pyproject, binder_distributions):
    imports = third_party_imports(read_notebook(path))
    assert imports, f"{path.name} imports no package at all (expected at least workbench)"
    problems = unprovided_imports(
        imports, binder_distributions, metadata.packages_distributions(), project_import_names(pyproject)
    )
    assert not problems, f"{path.name} imports packages binder does not install: " + "; ".join(
        f"{module} ({why})" for module, why in problems.items()
    )


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_imports_are_installed_by_the_readme_lab_command(path, pyproject):
    """README's first command opens JupyterLab on the tutorials: it must install what they import (it once
    installed ``.[lab]`` only, and tutorials 09 and 10 failed on a fresh machine)."""
    specs = pip_install_specs(readme_lab_command())
    roots = binder_roots(pyproject, specs)
    assert any(canonicalize_name(r.name) == canonicalize_name(pyproject["project"]["name"]) for r in roots), specs
    installed, _ = distribution_closure(roots, pip_install_specs(readme_lab_command(), no_deps=True))
    problems = unprovided_imports(
        third_party_imports(read_notebook(path)),
        installed,
        metadata.packages_distributions(),
        project_import_names(pyproject),
    )
    assert not problems, f"{path.name} imports packages README's first command does not install: " + "; ".join(
        f"{module} ({why})" for module, why in problems.items()
    )
    if "load_bfcl(" in json.dumps(read_notebook(path)):  # BFCL's data: read through workbench.evals, not imported
        assert any(
            canonicalize_name(Requirement(spec).name) == "bfcl-eval" for spec in specs if _project_extras(spec) is None
        ), f"{path.name} loads BFCL data; the command does not install bfcl-eval"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_runtime_needs_are_installed(path, pyproject, binder_distributions):
    needs = runtime_needs(read_notebook(path))
    readme_specs = pip_install_specs(readme_lab_command())
    readme, _ = distribution_closure(
        binder_roots(pyproject, readme_specs), pip_install_specs(readme_lab_command(), no_deps=True)
    )
    for where, installed in (("binder", binder_distributions), ("README's first command", readme)):
        missing = {dist: why for dist, why in needs.items() if canonicalize_name(dist) not in installed}
        assert not missing, f"{path.name} needs what {where} does not install: " + "; ".join(
            f"{dist} ({why})" for dist, why in missing.items()
        )


def test_pip_install_specs_reads_chained_commands():
    assert pip_install_specs(
        'python3 -m venv .venv && pip install ".[tutorials]" && pip install --no-deps "x==1" && jupyter lab notebooks/'
    ) == [".[tutorials]", "x==1"]
    assert pip_install_specs("pip install -e .[lab] -c constraints.txt y  # comment") == [".[lab]", "y"]
    command = 'pip install ".[tutorials]" && pip install --no-deps "x==1" z'
    assert pip_install_specs(command, no_deps=True) == ["x==1", "z"]
    assert pip_install_specs(command, no_deps=False) == [".[tutorials]"]


# -- the checkers catch what they are meant to catch --------------------------------------------------
def _fake_notebook(*sources: str, counts: Optional[list] = None) -> dict[str, Any]:
    counts = counts or list(range(1, len(sources) + 1))
    return {
        "cells": [
            {"cell_type": "code", "source": s, "execution_count": c, "outputs": []} for s, c in zip(sources, counts)
        ],
        "metadata": {"kernelspec": {"name": "python3"}},
    }


def test_unexecuted_and_out_of_order_cells_are_reported():
    assert unexecuted_cells(_fake_notebook("a = 1", "b = 2")) == []
    assert unexecuted_cells(_fake_notebook("a = 1", "   ", counts=[1, None])) == []  # blank cells never run
    assert len(unexecuted_cells(_fake_notebook("a = 1", "b = 2", counts=[1, None]))) == 1
    assert len(unexecuted_cells(_fake_notebook("a = 1", "b = 2", counts=[2, 1]))) == 1


def test_runtime_needs_are_read_from_the_code():
    assert runtime_needs(_fake_notebook('suite = load_bfcl("multi_turn_base", limit=3)')) == {
        "mpmath": "BFCL's MathAPI (multi-turn) computes with mpmath"
    }
    assert runtime_needs(_fake_notebook('load_bfcl("simple_python")')) == {}


def test_import_collector_sees_statements_and_magics():
    nb = _fake_notebook(
        "import numpy.linalg as la\nfrom scipy import stats\nfrom . import sibling\nimport os, json",
        "%load_ext some_extension\n!pip list\nresult = await coroutine()",
        "%%tool --name f\nimport requests\ndef f(x: int) -> int:\n    return x",
        "%%bash\nimport notpython",
    )
    assert third_party_imports(nb) == {"numpy", "scipy", "some_extension", "requests"}


def test_unprovided_imports_are_reported():
    distributions_of = {"pandas": ["pandas"], "yaml": ["PyYAML"]}
    assert unprovided_imports({"pandas", "yaml"}, {"pandas", "pyyaml"}, distributions_of) == {}
    problems = unprovided_imports({"pandas", "yaml", "nowhere"}, {"pandas"}, distributions_of)
    assert set(problems) == {"yaml", "nowhere"}
    assert unprovided_imports({"workbench"}, set(), {}, own_modules={"workbench"}) == {}


def test_binder_closure_follows_extras_and_requirements():
    # pytest is installed here: its own requirements (e.g. pluggy) must be in its closure
    installed, missing = distribution_closure([Requirement("pytest")])
    assert {"pytest", "pluggy"} <= installed and not missing
    installed, missing = distribution_closure([Requirement("surely-not-an-installed-distribution-xyz")])
    assert not installed and missing == {"surely-not-an-installed-distribution-xyz"}
    # installed --no-deps: the distribution, none of its requirements
    installed, missing = distribution_closure([Requirement("pytest")], alone=["pytest==8"])
    assert installed == {"pytest"} and not missing
    assert _project_extras(".[lab]") == {"lab"} and _project_extras("-e .") == set()
    assert _project_extras("pandas>=2") is None
