"""Turn what was tried on a tool into lasting tests: saved cases, property tests, spec-change checks.

* **Saved cases** — :class:`ToolCase` (a call and what its result must satisfy), case files
  ``<folder>/<tool>.cases.json`` (:func:`save_case`, :class:`CaseFile`), cases from the execution
  log (``ExecutionLog.to_cases``), :func:`run_cases` (a pandas DataFrame), and the pytest plugin
  that collects ``*.cases.json`` (``pytest --update-tool-cases`` rewrites expectations).
* **Property tests** — :func:`inputs` (a hypothesis strategy of valid inputs),
  :func:`check_tool` (generated inputs through the executor: crashes, timeouts, results that
  break ``returns``), :func:`fuzz_inputs` (invalid inputs must be refused before the function
  runs), :func:`property_test` (both, as a one-line pytest test).
* **Spec changes** — :func:`spec_diff` (breaking vs compatible changes between two specs or
  registries) and spec snapshots (``pytest --tool-specs tool_specs.json``).

Everything is imported on first use: ``import workbench.testing`` (which pytest does through the
plugin in every run) costs nothing beyond ``import workbench``; hypothesis, jsonschema and pandas
come with the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "ToolCase",
    "CaseFile",
    "CaseOutcome",
    "CaseFileError",
    "save_case",
    "set_case_folder",
    "case_folder",
    "load_cases",
    "find_case_files",
    "run_case",
    "run_cases",
    "update_case_files",
    "cases_from_log",
    "result_value",
    "inputs",
    "invalid_inputs",
    "check_tool",
    "fuzz_inputs",
    "property_test",
    "CheckReport",
    "CheckFailure",
    "spec_diff",
    "SpecDiff",
    "SpecChange",
    "read_spec_snapshot",
    "write_spec_snapshot",
    "check_spec_snapshot",
]

_LAZY = {
    "ToolCase": "_cases",
    "CaseFileError": "_cases",
    "cases_from_log": "_cases",
    "result_value": "_cases",
    "CaseFile": "_case_files",
    "save_case": "_case_files",
    "set_case_folder": "_case_files",
    "case_folder": "_case_files",
    "load_cases": "_case_files",
    "find_case_files": "_case_files",
    "CaseOutcome": "_runner",
    "run_case": "_runner",
    "run_cases": "_runner",
    "update_case_files": "_runner",
    "inputs": "_strategies",
    "invalid_inputs": "_strategies",
    "check_tool": "_check",
    "fuzz_inputs": "_check",
    "property_test": "_check",
    "CheckReport": "_check",
    "CheckFailure": "_check",
    "spec_diff": "_spec_diff",
    "SpecDiff": "_spec_diff",
    "SpecChange": "_spec_diff",
    "read_spec_snapshot": "_snapshot",
    "write_spec_snapshot": "_snapshot",
    "check_spec_snapshot": "_snapshot",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"workbench.testing.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
