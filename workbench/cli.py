"""The ``workbench`` command (also ``python -m workbench``): evaluations from a terminal and in CI.

``workbench eval SUITE.evals.json --model M [--model M2] [--repeats K] [--concurrency N] [--cache FILE]
[--base-url URL] [--min-pass F] [--save out.json] [--html out.html]`` runs a suite and prints its
summary; ``workbench eval --compare old.json new.json`` prints what changed between two saved reports.

Exit codes, so a CI step can gate on them:

* ``0`` — every threshold holds (each model's accuracy ≥ ``--min-pass``; no regression with
  ``--compare``);
* ``1`` — a threshold does not hold (the summary says which), or ``--compare`` found a regression;
* ``2`` — a usage error: a bad or missing file, an unknown model, a server that cannot be reached —
  one line on stderr saying what and where, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence, TextIO

__all__ = ["main"]

EXIT_OK, EXIT_THRESHOLD, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with what the command was given: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (``workbench eval: argument --repeats: …``) rather
    than the whole usage block: a CI log shows the line that matters."""

    def error(self, message: str) -> "NoReturn":
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workbench", description="Tool Workbench from a terminal.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    evaluate = commands.add_parser(
        "eval",
        help="run a *.evals.json suite against models, or compare two saved reports",
        description="Run a *.evals.json suite and print its summary (exit 0: every threshold holds, "
        "1: one does not, 2: usage error); or --compare OLD NEW saved reports (exit 1 on a regression).",
    )
    evaluate.add_argument("suite", nargs="?", metavar="SUITE.evals.json", help="the suite to run")
    evaluate.add_argument(
        "--model",
        "-m",
        action="append",
        default=[],
        metavar="MODEL",
        help='a model string (openai:gpt-4.1-mini, replay:cassette.json…); repeatable; default: the suite\'s "model"',
    )
    evaluate.add_argument(
        "--repeats",
        type=_positive_int,
        default=1,
        metavar="K",
        help="runs per case (the case stays the unit of evidence)",
    )
    evaluate.add_argument(
        "--concurrency", type=_positive_int, default=8, metavar="N", help="model requests in flight at once"
    )
    evaluate.add_argument(
        "--cache", metavar="FILE", help="a request cache file: identical requests are answered from it"
    )
    evaluate.add_argument(
        "--base-url", metavar="URL", help="the models' server (an OpenAI-compatible server needs no key)"
    )
    evaluate.add_argument(
        "--max-turns",
        type=_positive_int,
        default=None,
        metavar="T",
        help="1 scores the first answer (BFCL's setting); more runs the agent loop",
    )
    evaluate.add_argument(
        "--min-pass",
        type=_fraction,
        default=None,
        metavar="F",
        help="fail (exit 1) when a model's accuracy is below F (0..1)",
    )
    evaluate.add_argument("--save", metavar="OUT.json", help="save the report (reload with EvalReport.load)")
    evaluate.add_argument("--html", metavar="OUT.html", help="write the report as a self-contained HTML page")
    evaluate.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD.json", "NEW.json"),
        help="compare two saved reports: regressions and fixes (exit 1 on a regression)",
    )
    evaluate.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def main(argv: Optional[Sequence[str]] = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its usage line
        return EXIT_USAGE if exc.code else EXIT_OK
    if args.command != "eval":
        parser.print_help(out)
        return EXIT_USAGE
    try:
        if args.compare:
            return _compare(args, out)
        return _evaluate(args, out, err)
    except UsageError as exc:
        print(f"workbench eval: {exc}", file=err)
        return EXIT_USAGE


def _evaluate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from workbench.evals import EvalFileError, load_evals, run_evals

    if not args.suite:
        raise UsageError("give a suite file (SUITE.evals.json) or --compare OLD.json NEW.json")
    path = Path(args.suite)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    _importable(path.parent)
    try:
        suite = load_evals(path)
    except (EvalFileError, ValueError, OSError) as exc:
        raise UsageError(_one_line(exc)) from None
    models = _models(args, suite)
    try:
        report = run_evals(
            suite,
            models,
            repeats=args.repeats,
            concurrency=args.concurrency,
            cache=args.cache,
            max_turns=args.max_turns,
            progress=not args.no_progress and err.isatty(),
        )
    except (ValueError, OSError) as exc:
        raise UsageError(_one_line(exc)) from None
    unreachable = _unreachable(report)
    if unreachable:
        raise UsageError(unreachable)
    if args.save:
        report.save(args.save)
    if args.html:
        report.to_html(args.html)
    return _print_summary(report, args.min_pass, out)


def _importable(folder: Path) -> None:
    """Let a suite name its tool modules as they sit beside it (and in the current folder), as a
    test run from that folder would import them."""
    for entry in (str(folder.resolve()), str(Path.cwd())):
        if entry not in sys.path:
            sys.path.insert(0, entry)


def _models(args: argparse.Namespace, suite: Any) -> list[Any]:
    """The models to run: ``--model`` strings (or the suite's model), built by the one model resolver
    with ``--base-url`` applied; an unknown model or a missing cassette is a usage error."""
    from workbench.models._resolve import resolve_for_run

    wanted = list(args.model) or ([suite.model] if suite.model else [])
    if not wanted:
        raise UsageError(f'{args.suite}: no model: pass --model MODEL or give the suite a "model"')
    base_dir = Path(suite.path).parent if suite.path else None
    models = []
    for item in wanted:
        try:
            models.append(resolve_for_run(item, base_dir=base_dir, base_url=args.base_url))
        except (ValueError, KeyError, ImportError, TypeError, OSError) as exc:
            raise UsageError(f"model {_label(item)!r}: {_one_line(exc)}") from None
    return models


def _label(item: Any) -> str:
    return item.get("id", "?") if isinstance(item, dict) else str(item)


def _unreachable(report: Any) -> Optional[str]:
    """One line when every job failed because the model's server could not be reached."""
    rows = report.results
    if not len(rows) or not (rows["model_error"] == "connection").all():
        return None
    return _one_line(rows["reason"].iloc[0])


#: the summary columns a terminal shows (the saved report and --html hold every column)
_TERMINAL_COLUMNS = [
    "model",
    "variant",
    "cases",
    "runs",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "precision",
    "recall",
    "f1",
    "argument_accuracy",
    "irrelevance_accuracy",
]


def _print_summary(report: Any, min_pass: Optional[float], out: TextIO) -> int:
    summary = report.summary()
    shown = summary[[c for c in _TERMINAL_COLUMNS if c in summary.columns]].rename(
        columns={
            "accuracy_low": "95% low",
            "accuracy_high": "95% high",
            "argument_accuracy": "arguments",
            "irrelevance_accuracy": "irrelevance",
        }
    )
    print(shown.to_string(index=False, na_rep="–", float_format=lambda v: f"{v:.3f}"), file=out)
    print(
        f"accuracy: the mean of the per-case pass rates over {int(summary['cases'].max()) if len(summary) else 0} "
        "cases; 95% interval by case (the case is the unit of evidence)",
        file=out,
    )
    if min_pass is None:
        return EXIT_OK
    below = [
        (row["model"], row["variant"], row["accuracy"])
        for _, row in summary.iterrows()
        if not (isinstance(row["accuracy"], float) and not math.isnan(row["accuracy"]) and row["accuracy"] >= min_pass)
    ]
    for model, variant, accuracy in below:
        print(f"below --min-pass {min_pass:g}: {model} [{variant}] accuracy {accuracy:.3f}", file=out)
    return EXIT_THRESHOLD if below else EXIT_OK


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    from workbench.evals import EvalReport, compare_reports

    reports = []
    for name in args.compare:
        if not Path(name).is_file():
            raise UsageError(f"{name}: no such file")
        try:
            reports.append(EvalReport.load(name))
        except (ValueError, OSError) as exc:
            raise UsageError(f"{name}: {_one_line(exc)}") from None
    diff = compare_reports(*reports)
    print(str(diff), file=out)
    return EXIT_THRESHOLD if len(diff.regressions) else EXIT_OK


def _one_line(exc: Any) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


if __name__ == "__main__":  # pragma: no cover - python -m workbench.cli
    raise SystemExit(main())
