"""pytest collects ``*.evals.json`` suites: one test per case and model.

The model is ``--eval-model`` (repeatable; a model string such as ``openai:gpt-4.1-mini`` or
``replay:path/to/cassette.json``) or else the suite's ``"model"``; CI replays a committed cassette, so
no key and no network are needed. A failing case fails with its one-line reason. Registered through
the ``pytest11`` entry point ``workbench-evals``; nothing heavy is imported until a suite is collected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

SUFFIX = ".evals.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("workbench-evals", "tool-call evaluations (*.evals.json)")
    group.addoption("--eval-model", action="append", metavar="MODEL", default=[],
                    help="model to run *.evals.json suites with (repeatable); default: the suite's \"model\"")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.name.endswith(SUFFIX):
        return EvalFileCollector.from_parent(parent, path=file_path)
    return None


class EvalFileCollector(pytest.File):
    """A suite file: its cases × the models."""

    def collect(self):  # type: ignore[no-untyped-def]
        from workbench.evals import load_evals

        suite = load_evals(self.path)
        models = self.config.getoption("eval_model") or ([suite.model] if suite.model else [])
        if not models:
            yield EvalItem.from_parent(self, name="(no model)", suite=suite, case=None, model=None)
            return
        for case in suite.cases:
            for model in models:
                name = case.id if len(models) == 1 else f"{case.id}[{model}]"
                yield EvalItem.from_parent(self, name=name, suite=suite, case=case, model=model)


class EvalFailed(Exception):
    """A case whose calls did not match."""


class EvalItem(pytest.Item):
    def __init__(self, *, suite: Any, case: Any, model: Optional[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite, self.case, self.model = suite, case, model

    def runtest(self) -> None:
        from workbench.evals import run_evals

        if self.case is None:
            raise EvalFailed(f"{self.suite.path}: no model to run it with: pass --eval-model MODEL "
                             "or give the suite a \"model\" (e.g. \"replay:suite.cassette.json\")")
        report = run_evals(self.suite.__class__(name=self.suite.name, cases=[self.case], tools=self.suite.tools,
                                                model=self.suite.model, path=self.suite.path, max_turns=self.suite.max_turns),
                           self.model, progress=False, max_turns=self.suite.max_turns)
        row = report.results.iloc[0]
        if not row["passed"]:
            raise EvalFailed(f"{row['reason']}\n  expected: {row['expected']}\n  actual:   {row['actual']}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, EvalFailed):
            return f"{self.path.name}::{self.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, Optional[int], str]:
        return self.path, None, f"{self.path.name}::{self.name}"
