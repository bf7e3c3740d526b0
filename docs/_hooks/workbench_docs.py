"""MkDocs hooks for the Tool Workbench site.

* The API reference is generated at build time from ``__all__``: one page for ``workbench`` and one
  per public subpackage, each name rendered by mkdocstrings from its docstring. Nothing is written by
  hand, so the reference cannot drift from the code (``tests/project/test_docs.py`` checks every name is there).
* The tutorials are the notebooks of ``notebooks/`` (the ones nbval runs), rendered by mkdocs-jupyter
  from copies without their widget views: a static site has no kernel, so each widget output shows
  the escaped HTML copy the workbench saves beside it (and loads no widget manager from a CDN).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# pages written on other branches: shown in the navigation as soon as the file exists
def public_packages() -> list[str]:
    """``workbench`` and its public subpackages (and modules turned into packages later): the reference's pages.
    An old import path kept as an alias of another package (``workbench.providers`` is ``workbench.formats``)
    has no page of its own."""
    import workbench

    names = ["workbench"]
    for info in pkgutil.iter_modules(workbench.__path__):
        name = f"workbench.{info.name}"
        if info.ispkg and not info.name.startswith("_") and importlib.import_module(name).__name__ == name:
            names.append(name)
    return names


def exported(package: str) -> list[tuple[str, str]]:
    """``(name, path)`` for every name in the package's ``__all__``: ``path`` is where mkdocstrings finds
    it — the defining module when the object names one (the package may import it lazily), else the
    package itself."""
    module = importlib.import_module(package)
    rows = []
    for name in module.__all__:
        obj = getattr(module, name)
        owner, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        defined_there = isinstance(owner, str) and isinstance(qualname, str) and "<" not in qualname
        if defined_there and owner.startswith("workbench"):
            try:
                target: Any = importlib.import_module(owner)
                for part in qualname.split("."):
                    target = getattr(target, part)
            except (ImportError, AttributeError):
                defined_there = False
            else:
                defined_there = target is obj
        rows.append((name, f"{owner}.{qualname}" if defined_there and owner.startswith("workbench") else f"{package}.{name}"))
    return rows


def reference_pages() -> dict[str, str]:
    """Each package's reference page. An object is rendered once, on the page of the first package
    exporting it (subpackages before ``workbench``, so the top-level page links to ``workbench.agent``'s
    ``Transcript``); every other name for it is a heading with a link there."""
    packages = public_packages()
    order = packages[1:] + packages[:1]
    rendered: set[str] = set()
    pages = {}
    for package in order:
        module = importlib.import_module(package)
        summary = (module.__doc__ or "").strip().split("\n\n")[0]
        lines = [f"# `{package}`", "", summary, ""]
        for name, path in sorted(exported(package), key=lambda row: row[0].lower()):
            if path in rendered:
                lines += [f"## `{name}` {{#{package}.{name}}}", "", f"The same object as [`{path.rsplit('.', 1)[-1]}`][{path}].", ""]
                continue
            rendered.add(path)
            lines += [f"::: {path}", "    options:", f"      heading: \"{name}\"", "      show_root_heading: true",
                      "      show_root_full_path: false", ""]
        pages[package] = "\n".join(lines)
    return {package: pages[package] for package in packages}


def reference_uri(package: str) -> str:
    return f"reference/{package}.md"


def on_config(config: Any) -> Any:
    for entry in config["nav"]:  # the reference's pages, one per package, in the API reference section
        if isinstance(entry, dict) and "API reference" in entry:
            entry["API reference"] = [{package: reference_uri(package)} for package in public_packages()]
    return config


def static_notebook(source: Path) -> str:
    """The notebook without widget views and saved widget state: each widget output keeps its other
    representations (the workbench's static ``text/html`` copy, ``text/plain``)."""
    notebook = json.loads(source.read_text(encoding="utf-8"))
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    return json.dumps(notebook, ensure_ascii=False, indent=1)


_COPIES: list[Path] = []  # the folders of notebook copies this build made, removed after it


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns .ipynb files into pages
def on_files(files: Files, config: Any) -> Files:
    copies = Path(tempfile.mkdtemp(prefix="workbench-docs-"))
    _COPIES.append(copies)
    (copies / "tutorials").mkdir()
    for source in sorted((ROOT / "notebooks").glob("*.ipynb")):
        (copies / "tutorials" / source.name).write_text(static_notebook(source), encoding="utf-8")
        files.append(File(f"tutorials/{source.name}", src_dir=str(copies), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    for package, content in reference_pages().items():
        files.append(File.generated(config, reference_uri(package), content=content))
    return files


def on_post_build(config: Any) -> None:
    while _COPIES:
        shutil.rmtree(_COPIES.pop(), ignore_errors=True)
