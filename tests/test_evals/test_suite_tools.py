"""A suite's ``tools`` names its own module, found beside the suite file, whatever else is imported."""

from __future__ import annotations

import sys
import types

from workbench import tool
from workbench.evals import EvalCase, EvalSuite, save_evals, suite_registry

SUITE_TOOLS = '''
from workbench import tool


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city
'''


def test_the_suites_own_module_wins_over_one_of_the_same_name_imported_from_elsewhere(tmp_path, monkeypatch):
    @tool
    def stranger(x: int) -> int:
        """Not the suite's tool."""
        return x

    elsewhere = types.ModuleType("suite_tools")
    elsewhere.stranger = stranger
    elsewhere.__file__ = "/elsewhere/suite_tools.py"
    monkeypatch.setitem(sys.modules, "suite_tools", elsewhere)  # as if another folder's module came first
    (tmp_path / "suite_tools.py").write_text(SUITE_TOOLS)
    suite = EvalSuite(
        "cities", cases=[EvalCase("a", prompt="Paris?", expect_calls=[{"name": "lookup"}])], tools=["suite_tools"]
    )
    path = save_evals(suite, tmp_path / "cities.evals.json")

    from workbench.evals import load_evals

    registry = suite_registry(load_evals(path))
    assert registry.list_tools() == ["lookup"]
