"""pytest collects ``*.evals.json`` suites: one test per case and model.

The model is ``--eval-model`` (repeatable; a model string such as ``openai:gpt-4.1-mini`` or
``replay:path/to/cassette.json``) or else the suite's ``"model"`` (a string, or an object ``{"id",
"base_url", "params"}``); CI replays a committed cassette, so no key and no network are needed.
``--eval-base-url URL`` points the models at a server (an OpenAI-compatible one needs no key).
``--eval-repeats K`` asks each case K times; the case passes when its pass rate reaches
``--eval-min-pass F`` (default 1: every repeat). A failing case fails with its one-line reason. Registered through
the ``pytest11`` entry point ``workbench-evals``; nothing heavy is imported until a suite is collected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

SUFFIX = ".evals.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("workbench-evals", "tool-call evaluations (*.evals.json)")
    group.addoption(
        "--eval-model",
        action="append",
        metavar="MODEL",
        default=[],
        help='model to run *.evals.json suites with (repeatable); default: the suite\'s "model"',
    )
    group.addoption(
        "--eval-repeats",
        type=int,
        default=1,
        metavar="K",
        help="ask each case K times (default 1); the case passes when its pass rate reaches --eval-min-pass",
    )
    group.addoption(
        "--eval-min-pass",
        type=float,
        default=1.0,
        metavar="F",
        help="the pass rate (0..1) a case needs over its repeats (default 1: every repeat passes)",
    )
    group.addoption(
        "--eval-base-url",
        default=None,
        metavar="URL",
        help="the models' server (e.g. an OpenAI-compatible server's http://host:port/v1; no key needed)",
    )


def pytest_configure(config: pytest.Config) -> None:
    repeats, min_pass = config.getoption("eval_repeats", 1), config.getoption("eval_min_pass", 1.0)
    if repeats < 1:
        raise pytest.UsageError(f"--eval-repeats must be a positive integer, got {repeats}")
    if not 0.0 <= min_pass <= 1.0:
        raise pytest.UsageError(f"--eval-min-pass must be a number from 0 to 1, got {min_pass}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.name.endswith(SUFFIX):
        return EvalFileCollector.from_parent(parent, path=file_path)
    return None


class EvalFileCollector(pytest.File):
    """A suite file: its cases × the models."""

    def collect(self):
        from workbench.evals import load_evals

        suite = load_evals(self.path)
        models = self.config.getoption("eval_model") or ([suite.model] if suite.model else [])
        if not models:
            yield EvalItem.from_parent(self, name="(no model)", suite=suite, case=None, model=None)
            return
        for case in suite.cases:
            for model in models:
                name = case.id if len(models) == 1 else f"{case.id}[{_label(model)}]"
                yield EvalItem.from_parent(self, name=name, suite=suite, case=case, model=model)


class EvalFailed(Exception):
    """A case whose calls did not match."""


class EvalItem(pytest.Item):
    def __init__(self, *, suite: Any, case: Any, model: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite, self.case, self.model = suite, case, model

    def runtest(self) -> None:
        from workbench.evals import run_evals

        if self.case is None:
            raise EvalFailed(
                f"{self.suite.path}: no model to run it with: pass --eval-model MODEL "
                'or give the suite a "model" (e.g. "replay:suite.cassette.json")'
            )
        from pathlib import Path

        from workbench.models._resolve import resolve_for_run

        config = self.config
        repeats, min_pass = config.getoption("eval_repeats"), config.getoption("eval_min_pass")
        base_url = config.getoption("eval_base_url")
        model = resolve_for_run(
            self.model, base_dir=Path(self.suite.path).parent if self.suite.path else None, base_url=base_url
        )
        report = run_evals(
            self.suite.__class__(
                name=self.suite.name,
                cases=[self.case],
                tools=self.suite.tools,
                model=self.suite.model,
                path=self.suite.path,
                max_turns=self.suite.max_turns,
            ),
            model,
            progress=False,
            max_turns=self.suite.max_turns,
            repeats=repeats,
        )
        rows = report.results
        rate = float(rows["passed"].mean())
        if rate < min_pass:
            failed = rows[~rows["passed"].astype(bool)].iloc[0]
            said = (
                f"passed {int(rows['passed'].sum())} of {len(rows)} runs (needs {min_pass:.0%}): "
                if repeats > 1
                else ""
            )
            raise EvalFailed(
                f"{said}{failed['reason']}\n  expected: {failed['expected']}\n  actual:   {failed['actual']}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, EvalFailed):
            return f"{self.path.name}::{self.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, Optional[int], str]:
        return self.path, None, f"{self.path.name}::{self.name}"


def _label(model: Any) -> str:
    return model.get("id", "?") if isinstance(model, dict) else str(model)
