"""How big a notebook gets once saved with its widgets. A plain script:
``python benchmarks/bench_saved_size.py [notebooks/08_models_in_the_loop.ipynb ...]``.

Each notebook is run top to bottom in a fresh kernel (``nbclient``), from its own folder, and then
"saved" as JupyterLab saves it: its outputs, plus the state of every widget still open in the kernel,
defaults dropped (``Widget.get_manager_state(drop_defaults=True)``, what the widget manager writes
under ``metadata.widgets``; a closed widget is not saved). ``nbconvert --execute`` with
``store_widget_state`` is *not* that measure: it keeps every widget ever opened, closed ones too.

The baseline, measured in the same run the same way: a notebook with one tool's form and the log
table. The target (the notebook round's size budget) is at most twice that baseline per view the
notebook shows; the script prints each notebook's size, its widget count, and its ratio to that budget.
Nothing here asserts: sizes depend on the ipywidgets version.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parent.parent
#: the tutorials measured by default, with the number of workbench views each one shows
DEFAULT = {"notebooks/08_models_in_the_loop.ipynb": 2, "notebooks/09_evaluating_tool_calls.ipynb": 1}

_MEASURE = """
import json as _json
import ipywidgets as _W
_state = _W.Widget.get_manager_state(drop_defaults=True)
print(_json.dumps({"models": len(_state["state"]), "state": _json.dumps(_state)}))
"""

_BASELINE = [
    "%load_ext workbench",
    "%%tool\ndef greet(name: str, times: int = 1) -> str:\n    '''Greet someone.'''\n    return name * times",
    "from workbench.jupyter import get_workbench\nget_workbench().form('greet')",
    "get_workbench().log_table()",
]


def saved_size(notebook: nbformat.NotebookNode, folder: Path) -> tuple[int, int]:
    """(bytes of the saved file, widget models in it) after running ``notebook`` in ``folder``."""
    notebook.cells.append(nbformat.v4.new_code_cell(_MEASURE))
    nbclient.NotebookClient(notebook, timeout=900, resources={"metadata": {"path": str(folder)}}).execute()
    measure = notebook.cells.pop()
    printed = json.loads("".join(o.get("text", "") for o in measure.outputs).strip().splitlines()[-1])
    state = json.loads(printed["state"])
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    return len(nbformat.writes(notebook).encode("utf-8")), printed["models"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", help="notebooks to measure (default: tutorials 08 and 09)")
    parser.add_argument("--views", type=int, default=None, help="views the given notebooks show (default 1)")
    args = parser.parse_args()
    chosen = {name: args.views or 1 for name in args.notebooks} if args.notebooks else DEFAULT

    with tempfile.TemporaryDirectory() as scratch:
        baseline = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in _BASELINE])
        base_bytes, base_models = saved_size(baseline, Path(scratch))
    print(f"baseline (one form and the log table): {base_bytes / 1024:,.0f} KB, {base_models} widget models")
    print(f"{'notebook':44} {'views':>5} {'saved':>10} {'models':>7} {'budget':>9} {'ratio':>6}")
    for name, views in chosen.items():
        path = (ROOT / name).resolve()
        size, models = saved_size(nbformat.read(path, as_version=4), path.parent)
        budget = 2 * base_bytes * views
        print(
            f"{path.name:44} {views:>5} {size / 1024:>8,.0f} KB {models:>7} {budget / 1024:>6,.0f} KB "
            f"{size / budget:>6.2f}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
