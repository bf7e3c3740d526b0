"""Replay saved cases through an executor and judge each result against its expectation.

Replays are deterministic: every case runs alone in a ``SequentialExecutor`` with
``synthetic=True`` and the case's ``seed`` (spec-only tools return the same generated value every
time) and a fresh ``invocation_state`` (tools taking a ``ToolContext`` get a fresh context).

Case files are data others can write, so replaying one approves nothing by itself: an ``ask_user``
tool runs only through the caller's ``approver`` (``run_cases(..., approver=...)``, ``pytest
--approve-tools``, ``%tool_case run --approve``); without one its call is refused (``PermissionDenied``)
and the case fails saying how to approve — or passes, if it expects that error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from workbench.testing._case_files import CaseFile, load_cases, refresh_notebook_module
from workbench.testing._cases import ToolCase, result_value
from workbench.testing._json_diff import Difference, compare, project_like, render_differences

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["CaseOutcome", "run_case", "run_cases", "update_case_files", "RUN_COLUMNS", "approval_needed"]

#: ``approver(tool_use, tool) -> bool`` (or an awaitable of one), as the executors take it
Approver = Callable[[Any, Any], Any]

#: columns of :func:`run_cases`' DataFrame
RUN_COLUMNS = ("case", "tool", "status", "expect", "duration_ms", "message", "diff")


@dataclass
class CaseOutcome:
    """How one case went.

    ``status``: ``pass``, ``fail`` (the result does not meet the expectation) or ``error`` (the case
    could not run: its tools did not load, the tool is not registered). ``message`` is one line;
    ``diff`` the readable expected-vs-actual report (empty for a pass).
    """

    case: ToolCase
    status: str
    message: str = ""
    diff: str = ""
    duration_ms: float = 0.0
    result: Any = None
    differences: list[Difference] = field(default_factory=list)
    case_file: Optional[CaseFile] = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def actual(self) -> Any:
        """The result value of the replayed call (``None`` if it did not run)."""
        return None if self.result is None else result_value(self.result)

    def updated_case(self) -> Optional[ToolCase]:
        """The case with its ``exact``/``subset`` expectation rewritten from the actual result, or
        ``None`` when there is nothing to rewrite (a pass, another expectation, a failed call)."""
        if (
            self.status != "fail"
            or self.case.expect not in ("exact", "subset")
            or self.result is None
            or self.result.status != "success"
        ):
            return None
        actual = self.actual
        value = actual if self.case.expect == "exact" else project_like(self.case.value, actual)
        return replace(self.case, value=value)

    def report(self) -> str:
        """The failure report pytest shows: the case, what went wrong, and the diff."""
        head = f"{self.case.name} ({self.case.expect}) {self.status}: {self.message}"
        return head + ("\n" + self.diff if self.diff else "")


# -- judging ----------------------------------------------------------------------------------------
def _failed_call(result: Any) -> str:
    return f"{result.metadata.get('error_type', 'error')}: {result.metadata.get('error') or result.text}"


def _judge_compare(case: ToolCase, result: Any, spec: Any) -> tuple[str, str, list[Difference]]:
    if result.status != "success":
        return f"expected a result, but the call failed — {_failed_call(result)}", "", []
    actual = result_value(result)
    differences = compare(case.value, actual, case.expect, case.ignore)
    if not differences:
        return "", "", []
    count = f"{len(differences)} difference{'s' if len(differences) != 1 else ''}"
    return (
        f"result differs from the expected value ({count})",
        render_differences(differences, case.value, actual),
        differences,
    )


def _judge_schema(case: ToolCase, result: Any, spec: Any) -> tuple[str, str, list[Difference]]:
    if result.status != "success":
        return f"expected a result, but the call failed — {_failed_call(result)}", "", []
    mismatch = result.metadata.get("returns_mismatch")
    if mismatch is None and spec is not None:
        mismatch = spec.check_returns(result_value(result))
    if mismatch:
        return f"the result does not match the tool's returns schema: {mismatch}", "", []
    return "", "", []


def _judge_error(case: ToolCase, result: Any, spec: Any) -> tuple[str, str, list[Difference]]:
    if result.status != "error":
        return f"expected an error, but the call succeeded with {_shown(result_value(result))}", "", []
    error_type = result.metadata.get("error_type")
    message = str(result.metadata.get("error") or "")
    if case.error_type is not None and error_type != case.error_type:
        return f"expected error type {case.error_type}, got {error_type}: {message}", "", []
    if case.message is not None and case.message not in message:
        return f"expected the error message to contain {case.message!r}, got {message!r}", "", []
    return "", "", []


def _shown(value: Any, limit: int = 100) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_JUDGES: dict[str, Callable[[ToolCase, Any, Any], tuple[str, str, list[Difference]]]] = {
    "exact": _judge_compare,
    "subset": _judge_compare,
    "schema": _judge_schema,
    "error": _judge_error,
}


# -- running ----------------------------------------------------------------------------------------
def approval_needed(name: str, how: str = "pass approver= to run_cases") -> str:
    """What a case (or a property test) refused for want of an approver says."""
    return (
        f"tool {name!r} needs approval (permission: ask_user), and replaying cases approves nothing by "
        f"itself: {how} (e.g. approver=lambda tool_use, tool: True), --approve-tools to pytest "
        "(or approve_tools = true in its ini file), or --approve to %tool_case run"
    )


def _refused_for_want_of_approver(result: Any, spec: Any) -> bool:
    from workbench.types import Permission

    return (
        result.status == "error"
        and result.metadata.get("error_type") == "PermissionDenied"
        and Permission.coerce(spec.permission) is Permission.ASK_USER
    )


class _Registries:
    """Registries by case file, built once per run (a case file's modules are imported once)."""

    def __init__(self, given: Any) -> None:
        self.given = given
        self.built: dict[int, Any] = {}

    def for_case(self, case: ToolCase, case_file: Optional[CaseFile]) -> Any:
        if self.given is not None and case.tool in self.given:
            return self.given
        if case_file is not None and (case_file.tools or case_file.spec is not None):
            key = id(case_file)
            if key not in self.built:
                self.built[key] = case_file.build_registry()
            return self.built[key]
        if self.given is not None:
            return self.given
        from workbench.registry import default_registry

        return default_registry()


def run_case(
    case: ToolCase,
    registry: Any = None,
    *,
    approver: Optional[Approver] = None,
    case_file: Optional[CaseFile] = None,
    _registries: Optional[_Registries] = None,
) -> CaseOutcome:
    """Replay one case and judge it. ``registry``: where to find the tool (default: the case file's
    ``tools``, else the default registry). ``approver``: ``approver(tool_use, tool) -> bool`` (sync or
    async) deciding the calls of ``ask_user`` tools; without one they are refused."""
    from workbench._validation_mode import validating
    from workbench.executor import SequentialExecutor, approving
    from workbench.testing._cases import CaseFileError
    from workbench.types import make_tool_use

    registries = _registries or _Registries(registry)
    try:
        target = registries.for_case(case, case_file)
    except CaseFileError as exc:
        return CaseOutcome(case, "error", str(exc), case_file=case_file)
    if case.tool not in target:
        where = (
            f" (its case file {case_file.path} lists tools {case_file.tools!r})"
            if case_file is not None and case_file.path is not None
            else ""
        )
        return CaseOutcome(case, "error", f"tool {case.tool!r} is not registered{where}", case_file=case_file)
    spec = target.get_tool(case.tool).spec
    executor = SequentialExecutor(synthetic=True, seed=case.seed or 0, approver=approver)
    started = time.perf_counter()
    try:
        # a case runs as its file and the caller's approver= say, whatever run it is replayed in: an
        # enclosing run's approver (a "run tests" tool called in run_agent(approver=...)) approves
        # nothing here, and an enclosing run's validation mode does not change what the case expects
        with approving(None), validating(None):
            result = executor.run([make_tool_use(case.tool, _copy(case.input))], target, invocation_state={})[0]
    finally:
        executor.close()
    duration = (time.perf_counter() - started) * 1000.0
    message, diff, differences = _JUDGES[case.expect](case, result, spec)
    if message and approver is None and _refused_for_want_of_approver(result, spec):
        message = approval_needed(case.tool)
    return CaseOutcome(case, "fail" if message else "pass", message, diff, duration, result, differences, case_file)


def _copy(value: Any) -> Any:
    import copy

    return copy.deepcopy(value)


def run_cases(
    cases_or_path: Any, registry: Any = None, *, update: bool = False, approver: Optional[Approver] = None
) -> "pandas.DataFrame":
    """Replay cases and return one row per case (columns :data:`RUN_COLUMNS`).

    Args:
        cases_or_path: a case file, a folder (every ``*.cases.json`` under it), a ``ToolCase``, a
            ``CaseFile``, or a list of those.
        registry: where to find the tools; default: each case file's ``tools`` (imported — a case
            file is test configuration), else the default registry.
        update: rewrite the ``exact``/``subset`` expectations of failing cases from the actual
            results in their files (as ``pytest --update-tool-cases``); their rows say ``updated``.
        approver: ``approver(tool_use, tool) -> bool`` (sync or async, as the executors') for the
            calls of ``ask_user`` tools. Case files are data anyone may have written, so by default
            nothing is approved: such a call is refused (``PermissionDenied``) and its case fails
            saying so (a case expecting that error passes).

    ``status`` is ``pass``, ``fail`` or ``error`` (``updated`` with ``update=True``); ``diff`` the
    readable expected-vs-actual report. ``df.attrs["outcomes"]`` keeps the :class:`CaseOutcome` objects.
    """
    import pandas as pd

    registries = _Registries(registry)
    outcomes = [
        run_case(case, approver=approver, case_file=case_file, _registries=registries)
        for case_file, case in load_cases(cases_or_path)
    ]
    statuses = [o.status for o in outcomes]
    if update:
        updated = update_case_files(outcomes, registry)
        statuses = ["updated" if id(o) in updated else s for o, s in zip(outcomes, statuses)]
    frame = pd.DataFrame(
        {
            "case": [o.case.name for o in outcomes],
            "tool": [o.case.tool for o in outcomes],
            "status": statuses,
            "expect": [o.case.expect for o in outcomes],
            "duration_ms": pd.Series([o.duration_ms for o in outcomes], dtype="float64"),
            "message": [o.message for o in outcomes],
            "diff": [o.diff for o in outcomes],
        },
        columns=list(RUN_COLUMNS),
    )
    frame.attrs["outcomes"] = outcomes
    return frame


def update_case_files(outcomes: list[CaseOutcome], registry: Any = None) -> set[int]:
    """Rewrite, in their case files, the expectations of the outcomes that have an update
    (:meth:`CaseOutcome.updated_case`). Returns the ``id()`` of the outcomes rewritten.

    A file whose ``tools`` is a notebook tool's generated ``<tool>_tool.py`` also gets that module
    rewritten from the tool of that name in ``registry`` (the notebook's), as the results came from it."""
    by_file: dict[int, tuple[CaseFile, list[tuple[CaseOutcome, ToolCase]]]] = {}
    for outcome in outcomes:
        new = outcome.updated_case()
        if new is None or outcome.case_file is None or outcome.case_file.path is None:
            continue
        by_file.setdefault(id(outcome.case_file), (outcome.case_file, []))[1].append((outcome, new))
    done: set[int] = set()
    for case_file, changes in by_file.values():
        if case_file.path is None:  # (kept above only with a path)
            continue
        fresh = CaseFile.load(case_file.path)  # re-read: keep edits made since it was loaded
        for outcome, new in changes:
            for index, existing in enumerate(fresh.cases):
                if existing.id == new.id:
                    fresh.cases[index] = new
                    done.add(id(outcome))
        fresh.save()
        refresh_notebook_module(fresh, registry)
    return done
