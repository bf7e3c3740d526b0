"""pytest plugin of workbench.testing (registered through the ``pytest11`` entry point).

* Collects every ``*.cases.json`` under the test paths: one item per case, id ``tool::case``,
  failing with a readable expected-vs-actual JSON diff. ``--update-tool-cases`` rewrites the
  ``exact``/``subset`` expectations of failing cases from the actual results instead.
* Case files are data anyone may have written: their calls of ``ask_user`` tools are refused unless
  ``--approve-tools`` (or the ini option ``approve_tools = true``) approves them all.
* ``--tool-specs PATH`` (or the ini option ``tool_specs``) adds one item that compares the tools'
  current specs with the snapshot at PATH and fails on breaking changes; ``--update-tool-specs``
  (re)writes the snapshot. The tools come from ``--tool-specs-source`` / the ini option
  ``tool_specs_source`` (modules, ``module:function`` refs, ``.py`` paths), else from the modules
  the snapshot's refs name.

Loaded in every pytest run of an environment where workbench is installed, so it imports nothing
heavy at module level, and it collects only files named ``*.cases.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

CASE_SUFFIX = ".cases.json"
_UPDATES = pytest.StashKey[list]()
_SPEC_NOTES = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("workbench", "Tool Workbench: saved tool cases and tool spec snapshots")
    group.addoption(
        "--update-tool-cases",
        action="store_true",
        default=False,
        help="rewrite the exact/subset expectations of failing *.cases.json cases from the actual results",
    )
    group.addoption(
        "--approve-tools",
        action="store_true",
        default=False,
        help="approve the calls *.cases.json cases make of ask_user tools (by default they are refused)",
    )
    group.addoption(
        "--tool-specs",
        metavar="PATH",
        default=None,
        help="fail on breaking changes of the tools' specs against the snapshot at PATH (tool_specs.json)",
    )
    group.addoption(
        "--update-tool-specs",
        action="store_true",
        default=False,
        help="(re)write the tool spec snapshot (--tool-specs PATH, the tool_specs ini option, or tool_specs.json)",
    )
    group.addoption(
        "--tool-specs-source",
        action="append",
        metavar="MODULE",
        default=[],
        help="where the tools of the spec snapshot come from: a module, module:function ref or .py path "
        "(repeatable; default: the modules the snapshot's refs name)",
    )
    parser.addini(
        "approve_tools",
        "approve the calls cases make of ask_user tools (as --approve-tools)",
        type="bool",
        default=False,
    )
    parser.addini("tool_specs", "tool spec snapshot checked in every run (as --tool-specs)", default="")
    parser.addini(
        "tool_specs_source",
        "modules / refs / .py paths the spec snapshot's tools come from",
        type="linelist",
        default=[],
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_UPDATES] = []
    config.stash[_SPEC_NOTES] = []


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.name.endswith(CASE_SUFFIX):
        return CaseFileCollector.from_parent(parent, path=file_path)
    return None


# -- saved cases ------------------------------------------------------------------------------------
class CaseFileCollector(pytest.File):
    """A ``*.cases.json`` file: one item per case."""

    registries: Any = None

    def collect(self):
        from workbench.testing._case_files import CaseFile
        from workbench.testing._cases import CaseFileError
        from workbench.testing._runner import _Registries

        try:
            case_file = CaseFile.load(self.path)
        except CaseFileError as exc:
            raise self.CollectError(str(exc)) from None
        self.registries = _Registries(None)
        for case in case_file.cases:
            yield CaseItem.from_parent(self, name=f"{case.tool}::{case.id}", case=case, case_file=case_file)


def _approve_all(tool_use: Any, tool: Any) -> bool:
    return True


class CaseFailed(Exception):
    def __init__(self, outcome: Any) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


class CaseItem(pytest.Item):
    """One saved case, replayed through the executor."""

    def __init__(self, *, case: Any, case_file: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.case_file = case_file
        self.extra_keyword_matches.update(case.tags)  # `-k tag` selects a case by its tags

    def runtest(self) -> None:
        from workbench.testing._runner import run_case

        approve = self.config.getoption("approve_tools") or self.config.getini("approve_tools")
        outcome = run_case(
            self.case,
            approver=_approve_all if approve else None,
            case_file=self.case_file,
            _registries=getattr(self.parent, "registries", None),
        )
        if outcome.passed:
            return
        if self.config.getoption("update_tool_cases") and outcome.updated_case() is not None:
            self.config.stash[_UPDATES].append(outcome)
            return
        raise CaseFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.outcome.report()
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, Optional[int], str]:
        return self.path, None, f"tool case {self.case.tool}::{self.case.id}"


# -- spec snapshot ----------------------------------------------------------------------------------
def _spec_settings(config: pytest.Config) -> Optional[tuple[Path, list[str], bool]]:
    """(snapshot path, sources, update) when a spec check was asked for, else None."""
    update = bool(config.getoption("update_tool_specs"))
    option = config.getoption("tool_specs")
    ini = config.getini("tool_specs")
    if option:
        path = Path(config.invocation_params.dir) / option
    elif ini:
        path = _ini_dir(config) / ini
    elif update:
        path = Path(config.invocation_params.dir) / "tool_specs.json"
    else:
        return None
    sources = [_as_source(s, Path(config.invocation_params.dir)) for s in config.getoption("tool_specs_source")]
    if not sources:
        sources = [_as_source(s, _ini_dir(config)) for s in config.getini("tool_specs_source")]
    return path, sources, update


def _ini_dir(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath is not None else config.rootpath


def _as_source(text: str, base: Path) -> str:
    if text.endswith(".py") and not Path(text).is_absolute():
        return str((base / text).resolve())
    return text


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so they apply to this item too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    settings = _spec_settings(config)
    if settings is None:
        return
    path, sources, update = settings
    try:
        where = path.relative_to(config.rootpath).as_posix()
    except ValueError:
        where = str(path)
    items.append(
        SpecSnapshotItem.from_parent(
            session,
            name="tool-specs",
            nodeid=f"{where}::tool-specs",
            path=path,
            snapshot=path,
            sources=sources,
            update=update,
        )
    )


class SpecChanged(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class SpecSnapshotItem(pytest.Item):
    """The current tool specs against the committed snapshot."""

    def __init__(self, *, snapshot: Path, sources: list[str], update: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.snapshot = snapshot
        self.sources = sources
        self.update = update

    def runtest(self) -> None:
        from workbench.testing._snapshot import SnapshotError, check_spec_snapshot, write_spec_snapshot

        notes = self.config.stash[_SPEC_NOTES]
        try:
            if self.update:
                diff = write_spec_snapshot(self.snapshot, sources=self.sources or None)
                notes.append(
                    f"wrote {self.snapshot} ({len(diff.changes)} change(s) recorded)"
                    if diff is not None
                    else f"wrote {self.snapshot}"
                )
                return
            diff = check_spec_snapshot(self.snapshot, sources=self.sources or None)
        except SnapshotError as exc:
            raise SpecChanged(str(exc)) from None
        if diff.breaking:
            raise SpecChanged(
                f"{self.snapshot}: breaking tool spec changes against the snapshot\n{diff.text()}\n"
                "(if they are intended, record them with pytest --update-tool-specs)"
            )
        if diff.changes:
            notes.append(
                f"{self.snapshot}: {len(diff.changes)} compatible change(s) not yet in the snapshot "
                f"(record them with --update-tool-specs)\n{diff.text()}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, SpecChanged):
            return excinfo.value.text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, Optional[int], str]:
        return self.snapshot, None, f"tool spec snapshot {self.snapshot.name}"


# -- end of session ---------------------------------------------------------------------------------
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    outcomes = session.config.stash.get(_UPDATES, [])
    if outcomes:
        from workbench.testing._runner import update_case_files

        done = update_case_files(outcomes)
        files = {str(o.case_file.path) for o in outcomes if id(o) in done}
        session.config.stash[_SPEC_NOTES].append(
            f"rewrote {len(done)} tool case expectation(s) in {len(files)} file(s): {', '.join(sorted(files))}"
        )


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    notes = config.stash.get(_SPEC_NOTES, [])
    if notes:
        terminalreporter.section("workbench")
        for note in notes:
            terminalreporter.write_line(note)
