"""Property tests of a tool: generated inputs through the executor, failures shrunk by hypothesis.

* :func:`check_tool` — valid inputs (:func:`workbench.testing.inputs`); a failure is a call that
  raised (unless its error type was declared expected), timed out, returned a value that does not
  validate against ``returns``, or was refused as invalid input (the schema and the validator
  disagree).
* :func:`fuzz_inputs` — invalid inputs (:func:`workbench.testing.invalid_inputs`); a failure is one
  that was not refused as a ``ToolInputError`` result, or that reached the tool's code at all.
* :func:`property_test` — both, as a pytest test in one line: ``test_add = property_test(add)``.

Each distinct failure (by kind and error type) is shrunk by hypothesis to a minimal input and
reported with the message and the tool's traceback. Calls run one at a time in a
``SequentialExecutor`` (synthetic mode for spec-only tools); an ``ask_user`` tool runs only with an
``approver`` (as the executors take it), else the report says it could not run. Runs are
reproducible: ``seed=0`` by default, no example database.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from workbench.tools import BaseTool

__all__ = ["CheckFailure", "CheckReport", "check_tool", "fuzz_inputs", "property_test"]


@dataclass
class CheckFailure:
    """One (shrunk) failing input.

    ``kind``: ``raised``, ``timed-out``, ``bad-return``, ``input-refused`` (check_tool) or
    ``accepted``, ``reached-function``, ``wrong-error`` (fuzz_inputs).
    """

    kind: str
    input: Any
    message: str
    error_type: Optional[str] = None
    traceback: Optional[str] = None
    mutation: Optional[str] = None

    def text(self) -> str:
        import json

        lines = [
            f"[{self.kind}] {self.message}",
            f"  input: {json.dumps(self.input, ensure_ascii=False, default=repr)}",
        ]
        if self.mutation:
            lines.append(f"  broken: {self.mutation}")
        if self.traceback:
            lines += ["  " + line for line in self.traceback.rstrip().splitlines()]
        return "\n".join(lines)


@dataclass
class CheckReport:
    """What a property run found: ``examples`` (calls made, shrinking included), ``failures`` (one
    per kind and error type, each with its shrunk input), and ``error`` when no inputs could be
    generated (``ok`` is then False too)."""

    tool: str
    mode: str
    examples: int = 0
    failures: list[CheckFailure] = field(default_factory=list)
    error: Optional[str] = None
    seed: Optional[int] = None

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None

    def summary(self) -> str:
        what = "valid inputs" if self.mode == "check" else "invalid inputs"
        if self.error is not None:
            return f"{self.tool}: could not run ({what}): {self.error}"
        found = "no failures" if not self.failures else f"{len(self.failures)} failure(s)"
        return f"{self.tool}: {self.examples} examples of {what}, {found}"

    def text(self) -> str:
        return "\n".join([self.summary()] + [f.text() for f in self.failures])

    __str__ = text

    def __repr__(self) -> str:
        return f"<CheckReport {self.summary()}>"

    def raise_if_failed(self) -> "CheckReport":
        """Raise ``AssertionError`` with the report's text unless it is ``ok``; returns the report."""
        if not self.ok:
            raise AssertionError(self.text())
        return self

    def _repr_html_(self) -> str:
        from workbench.testing._report_html import check_report_html

        return check_report_html(self)


class _Found(Exception):
    """Raised inside the hypothesis test for a failing input; one subclass per (kind, error type), so
    hypothesis keeps distinct failures apart and shrinks each."""

    def __init__(self, failure: CheckFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


_FOUND_TYPES: dict[tuple[str, str], type] = {}


def _raise(failure: CheckFailure) -> None:
    key = (failure.kind, failure.error_type or "")
    cls = _FOUND_TYPES.get(key)
    if cls is None:
        name = "Found_" + re.sub(r"\W", "_", f"{failure.kind}_{failure.error_type or ''}")
        cls = _FOUND_TYPES[key] = type(name, (_Found,), {})
    raise cls(failure)


def _leaves(exc: BaseException) -> list[BaseException]:
    nested = getattr(exc, "exceptions", None)
    if isinstance(nested, (list, tuple)):
        return [leaf for inner in nested for leaf in _leaves(inner)]
    return [exc]


# -- running ----------------------------------------------------------------------------------------


def _expected_names(expected: Iterable[Any]) -> set[str]:
    """Error type names: a name as given; a class with its subclasses (results carry only the name)."""
    names: set[str] = set()
    for item in expected:
        if isinstance(item, str):
            names.add(item)
        elif isinstance(item, type) and issubclass(item, BaseException):
            stack = [item]
            while stack:
                cls = stack.pop()
                names.add(cls.__name__)
                stack += cls.__subclasses__()
        else:
            raise TypeError(f"expected_errors lists exception classes or their names, got {item!r}")
    return names


def _run(
    tool: Any,
    strategy: Any,
    judge: Callable[[Any, Any, int], Optional[CheckFailure]],
    mode: str,
    *,
    max_examples: int,
    timeout: Optional[float],
    seed: Optional[int],
    spy: Any = None,
    approver: Any = None,
) -> CheckReport:
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as seed_test
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    from workbench.executor import SequentialExecutor
    from workbench.registry import ToolRegistry
    from workbench.types import make_tool_use

    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive integer, got {max_examples!r}")
    registered = spy if spy is not None else tool
    registry = ToolRegistry(synthetic=True)
    registry.register_tool(registered)
    executor = SequentialExecutor(timeout=timeout, approver=approver, synthetic=True)
    name = tool.tool_name
    report = CheckReport(tool=name, mode=mode, seed=seed)

    checks = [h for h in HealthCheck if h is not HealthCheck.filter_too_much] if mode == "check" else list(HealthCheck)
    run_settings = settings(
        settings(),
        max_examples=max_examples,
        deadline=None,
        database=None,
        verbosity=Verbosity.quiet,
        print_blob=False,
        report_multiple_bugs=True,
        suppress_health_check=checks,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    )

    def body(drawn: Any) -> None:
        report.examples += 1
        mutation, tool_input = drawn if mode == "fuzz" else (None, drawn)
        shown = copy.deepcopy(tool_input)  # the tool may mutate what it gets
        before = spy.calls if spy is not None else 0
        result = executor.run([make_tool_use(name, tool_input)], registry, invocation_state={})[0]
        failure = judge(shown, result, (spy.calls if spy is not None else 0) - before)
        if failure is not None:
            failure.mutation = mutation
            _raise(failure)

    test = settings(run_settings)(given(strategy)(body))
    if seed is not None:
        test = seed_test(seed)(test)
    try:
        _off_the_loop(test)
    except _Found as exc:
        report.failures.append(exc.failure)
    except (Unsatisfiable, FailedHealthCheck) as exc:
        report.error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    except Exception as exc:  # noqa: BLE001 - distinct failures (or a flaky one) come as an exception group
        found = [leaf for leaf in _leaves(exc) if isinstance(leaf, _Found)]
        if not found:
            raise
        for leaf in found:
            if leaf.failure not in report.failures:
                report.failures.append(leaf.failure)
    finally:
        executor.close()
    report.failures.sort(key=lambda f: (f.kind, f.error_type or ""))
    return report


def _off_the_loop(function: Callable[[], None]) -> None:
    """Run ``function`` here, or on a worker thread when this thread runs an event loop (a Jupyter
    kernel): the executor would otherwise start a helper thread for every call that needs a loop, and
    hypothesis sets up each new thread it sees during a test (a full garbage collection)."""
    import asyncio

    try:
        asyncio.get_running_loop()
        in_running_loop = True
    except RuntimeError:
        in_running_loop = False
    if not in_running_loop:  # outside the except block: a failure must not chain to its RuntimeError
        function()
        return
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="workbench-check") as pool:
        pool.submit(function).result()


def check_tool(
    tool: Any,
    *,
    max_examples: int = 200,
    timeout: Optional[float] = None,
    expected_errors: Iterable[Any] = (),
    registry: Any = None,
    seed: Optional[int] = 0,
    approver: Any = None,
) -> CheckReport:
    """Run generated valid inputs through the executor and report each kind of failure, shrunk.

    Args:
        tool: a tool, a function (wrapped with ``@tool``), a ``ToolSpec`` or a tool name.
        max_examples: how many inputs hypothesis generates (before shrinking).
        timeout: per-call timeout in seconds (a tool's own ``timeout`` wins); a call past it fails.
        expected_errors: exception classes (their subclasses too) or names the tool may raise on
            valid input (e.g. ``[ZeroDivisionError]``): such calls are not failures.
        registry: where to look a tool name up (default: the default registry).
        seed: hypothesis seed (``None``: a fresh random run).
        approver: ``approver(tool_use, tool) -> bool`` (sync or async) for an ``ask_user`` tool, as
            the executors take it; without one such a tool is not run (the report's ``error`` says so).
    """
    from workbench.testing._strategies import inputs, resolve_tool

    item = _runnable(resolve_tool(tool, registry))
    refused = _needs_approver(item, approver, "check", seed)
    if refused is not None:
        return refused
    allowed = _expected_names(expected_errors)

    def judge(tool_input: Any, result: Any, calls: int) -> Optional[CheckFailure]:
        metadata = result.metadata
        if result.status == "success":
            mismatch = metadata.get("returns_mismatch")
            if mismatch:
                return CheckFailure(
                    "bad-return", tool_input, f"the result does not match the returns schema: {mismatch}"
                )
            return None
        error_type = metadata.get("error_type")
        message = str(metadata.get("error") or result.text)
        if error_type == "TimeoutError" and "timeout" in metadata:
            return CheckFailure("timed-out", tool_input, message, error_type)
        if error_type == "ToolInputError":
            return CheckFailure(
                "input-refused",
                tool_input,
                f"a generated input was refused (the schema allows it, the validator does not): {message}",
                error_type,
            )
        if error_type in allowed:
            return None
        return CheckFailure("raised", tool_input, message, error_type, _tool_frames(metadata.get("traceback")))

    try:
        strategy = inputs(item)
    except Exception as exc:  # noqa: BLE001 - ToolSpecError: the schema cannot be generated from
        return CheckReport(tool=item.tool_name, mode="check", error=str(exc), seed=seed)
    return _run(
        item, strategy, judge, "check", max_examples=max_examples, timeout=timeout, seed=seed, approver=approver
    )


def fuzz_inputs(
    tool: Any, *, max_examples: int = 200, registry: Any = None, seed: Optional[int] = 0, approver: Any = None
) -> CheckReport:
    """Run generated *invalid* inputs (wrong types, missing or undeclared keys, values past bounds,
    lengths, enums, patterns, formats) through the executor: each must come back as a
    ``ToolInputError`` result without reaching the tool's code. Arguments as :func:`check_tool`."""
    from workbench.testing._strategies import invalid_inputs, resolve_tool

    item = _runnable(resolve_tool(tool, registry))
    refused = _needs_approver(item, approver, "fuzz", seed)
    if refused is not None:
        return refused
    spy = _Spy(item)

    def judge(tool_input: Any, result: Any, calls: int) -> Optional[CheckFailure]:
        if calls:
            return CheckFailure(
                "reached-function", tool_input, "an invalid input reached the tool's code instead of being refused"
            )
        error_type = result.metadata.get("error_type")
        if result.status == "success":
            return CheckFailure("accepted", tool_input, "an invalid input was accepted")
        if error_type != "ToolInputError":
            return CheckFailure(
                "wrong-error",
                tool_input,
                f"refused as {error_type}, not ToolInputError: {result.metadata.get('error')}",
                error_type,
            )
        return None

    try:
        strategy = invalid_inputs(item)
    except Exception as exc:  # noqa: BLE001
        return CheckReport(tool=item.tool_name, mode="fuzz", error=str(exc), seed=seed)
    return _run(
        item, strategy, judge, "fuzz", max_examples=max_examples, timeout=None, seed=seed, spy=spy, approver=approver
    )


def property_test(
    tool: Any,
    *,
    max_examples: int = 100,
    timeout: Optional[float] = None,
    expected_errors: Iterable[Any] = (),
    fuzz: bool = True,
    registry: Any = None,
    seed: Optional[int] = None,
    approver: Any = None,
) -> Callable[[], None]:
    """A pytest test function: ``test_add = property_test(add)`` in a test module runs
    :func:`check_tool` (and :func:`fuzz_inputs` unless ``fuzz=False``) and fails with the reports.

    ``seed=None`` (the default here) explores new examples on each run, as hypothesis tests do
    (a loaded hypothesis profile, e.g. ``derandomize=True`` on CI, applies). ``approver`` as for
    :func:`check_tool` (an ``ask_user`` tool needs one).
    """
    label = getattr(tool, "tool_name", None) or getattr(tool, "name", None) or getattr(tool, "__name__", "tool")

    def test() -> None:
        __tracebackhide__ = True  # pytest shows the reports, not this wrapper
        reports = [
            check_tool(
                tool,
                max_examples=max_examples,
                timeout=timeout,
                expected_errors=expected_errors,
                registry=registry,
                seed=seed,
                approver=approver,
            )
        ]
        if fuzz:
            reports.append(
                fuzz_inputs(tool, max_examples=max_examples, registry=registry, seed=seed, approver=approver)
            )
        bad = [r for r in reports if not r.ok]
        if bad:
            raise AssertionError("\n\n".join(r.text() for r in bad))

    test.__name__ = test.__qualname__ = f"test_{re.sub(r'[^0-9A-Za-z_]', '_', str(label))}_properties"
    test.__doc__ = f"Property tests of tool {label!r} (workbench.testing.property_test)."
    return test


def _tool_frames(text: Optional[str]) -> Optional[str]:
    """A traceback without the executor's own frames (the ones under the ``workbench`` package)."""
    if not text:
        return text
    import os

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # workbench/
    head: list[str] = []
    blocks: list[list[str]] = []
    tail: list[str] = []
    for line in text.rstrip("\n").splitlines():
        if line.startswith("  File "):
            blocks.append([line])
        elif line.startswith("    ") and blocks and not tail:
            blocks[-1].append(line)
        elif not blocks:
            head.append(line)
        else:
            tail.append(line)
    kept = [b for b in blocks if not b[0].startswith(f'  File "{package}')] or blocks
    return "\n".join(head + [line for b in kept for line in b] + tail)


def _runnable(item: Any) -> Any:
    from workbench.types import Permission

    if Permission.coerce(item.spec.permission) is Permission.ALWAYS_DENY:
        raise ValueError(
            f"Tool '{item.tool_name}' has permission always_deny: it never runs, so there is nothing to property-test"
        )
    return item


def _needs_approver(item: Any, approver: Any, mode: str, seed: Optional[int]) -> Optional[CheckReport]:
    """The report of an ``ask_user`` tool given no approver (it is not run), else None."""
    from workbench.testing._runner import approval_needed
    from workbench.types import Permission

    if approver is not None or Permission.coerce(item.spec.permission) is not Permission.ASK_USER:
        return None
    how = "pass approver= to " + ("check_tool" if mode == "check" else "fuzz_inputs") + " or property_test"
    return CheckReport(tool=item.tool_name, mode=mode, error=approval_needed(item.tool_name, how), seed=seed)


class _Spy(BaseTool):
    """Wraps a tool and counts the calls that reach its code (for :func:`fuzz_inputs`)."""

    inner: Any  # the wrapped tool
    calls: int  # the calls that reached it

    def __init__(self, inner: Any) -> None:  # no BaseTool.__init__: the wrapped tool was checked already
        self.__dict__.update(_wb_spec=inner.spec, _wb_ctx=inner.context_param, inner=inner, calls=0)

    @property
    def tool_type(self) -> str:
        return self.inner.tool_type

    @property
    def has_implementation(self) -> bool:
        return self.inner.has_implementation

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner(*args, **kwargs)

    def _invoke(self, arguments: dict, context: Any = None) -> Any:
        self.calls += 1
        return self.inner._invoke(arguments, context)
