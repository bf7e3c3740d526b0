"""``EvalReport``: the results table, its summary, paired comparisons, failures, and its views."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from workbench.evals._compare import Comparison, paired
from workbench.evals._stats import accuracy_interval, pass_at_k, pass_hat_k, ratio


class EvalReport:
    """What :func:`run_evals` returns, and what :meth:`load` reads back.

    ``results`` is a DataFrame, one row per (case, model, variant, repeat): passed, the one-line
    reason, expected and actual calls, tool-selection counts, arguments_ok, turns, latency, tokens,
    cached. ``transcripts`` maps each row's ``run_id`` to its transcript; ``spec_diffs`` the spec
    changes between consecutive variants; ``interrupted`` says the run was stopped early.
    How it was made: ``models`` (ids and parameters, secret ones masked), ``variants`` (each
    variant's tool specs and their hash), ``suite`` (its name, path and cases), ``settings``
    (repeats, max_turns, tool_choice, model parameters), ``versions`` (Python and packages) and
    ``created_at``.
    """

    def __init__(
        self,
        rows: list[dict[str, Any]],
        *,
        transcripts: Optional[dict] = None,
        spec_diffs: Optional[dict] = None,
        cache_hits: int = 0,
        interrupted: bool = False,
        total_jobs: Optional[int] = None,
        models: Optional[list[dict]] = None,
        variants: Optional[dict[str, dict]] = None,
        suite: Optional[dict] = None,
        settings: Optional[dict] = None,
        versions: Optional[dict] = None,
        created_at: Optional[str] = None,
        secrets: Sequence[str] = (),
        columns: Optional[list[str]] = None,
    ) -> None:
        import pandas as pd

        self.results = pd.DataFrame(rows, columns=columns or (_COLUMNS if not rows else None))
        self.transcripts = transcripts or {}
        self.spec_diffs = spec_diffs or {}
        self.cache_hits = cache_hits
        self.interrupted = interrupted
        self.total_jobs = len(rows) if total_jobs is None else total_jobs
        self.models = models or []
        self.variants = variants or {}
        self.suite = suite
        self.settings = settings or {}
        self.versions = versions or {}
        self.created_at = created_at
        # the models' keys, masked wherever they appear when the report is saved; never saved themselves
        self.secrets = list(secrets)

    # -- files ---------------------------------------------------------------------------------------
    def save(self, path: Union[str, "os.PathLike[str]"]) -> Path:
        """Write the whole report to one JSON file (rows, transcripts, models, variant specs and
        their hash, suite, settings, package versions, times), every secret masked; returns the
        path. :meth:`load` reads it back into the same tables, views and comparisons."""
        from workbench.evals._report_file import save_report

        return save_report(self, path)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "EvalReport":
        """A report written by :meth:`save`. A file that is not one, or was written in a newer
        format, raises :class:`EvalReportFileError` naming the file."""
        from workbench.evals._report_file import load_document, report_arguments

        arguments = report_arguments(load_document(path), os.fspath(path))
        return cls(arguments.pop("rows"), **arguments)

    def to_html(self, path: Union[str, "os.PathLike[str]"]) -> Path:
        """Write the report's view (summary, charts, comparisons, failures) as one self-contained
        HTML page — no script, no network — that any browser opens; returns the path."""
        from workbench.evals._report_html import report_page

        target = Path(os.fspath(path))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(report_page(self), encoding="utf-8")
        return target

    def __len__(self) -> int:
        return len(self.results)

    # -- numbers -------------------------------------------------------------------------------------
    def summary(self) -> Any:
        """Per model and variant: accuracy with its 95 % interval (``accuracy_low``/``accuracy_high``:
        Wilson's, clustered by case when there are repeats), tool-selection precision/recall/F1,
        argument accuracy, irrelevance accuracy, pass@k and pass^k (k = repeats), p50/p90 latency,
        tokens, cache hits. A figure with nothing to measure (precision when no tool was called) is NaN."""
        import pandas as pd

        out = []
        for (model, variant), group in self.results.groupby(["model", "variant"], sort=False):
            tp, fp, fn = (int(group[c].sum()) for c in ("true_positives", "false_positives", "false_negatives"))
            args = group["arguments_ok"].dropna()
            irrelevance = group[group["expect_no_call"]]
            per_case = group.groupby("case", sort=False)["passed"].agg(["count", "sum"])
            k = int(per_case["count"].min()) if len(per_case) else 1
            low, high = accuracy_interval(
                [list(map(float, runs)) for _, runs in group.groupby("case", sort=False)["passed"]]
            )
            out.append(
                {
                    "model": model,
                    "variant": variant,
                    "cases": len(per_case),
                    "runs": len(group),
                    "accuracy": float(group["passed"].mean()),
                    "accuracy_low": low,
                    "accuracy_high": high,
                    "precision": ratio(tp, tp + fp),
                    "recall": ratio(tp, tp + fn),
                    "f1": ratio(2 * tp, 2 * tp + fp + fn),
                    "argument_accuracy": float(args.astype(bool).mean()) if len(args) else float("nan"),
                    "irrelevance_accuracy": float(irrelevance["passed"].mean()) if len(irrelevance) else float("nan"),
                    "k": k,
                    f"pass@{k}": float(sum(pass_at_k(int(n), int(c), k) for n, c in per_case.values) / len(per_case)),
                    f"pass^{k}": float(sum(pass_hat_k(int(n), int(c), k) for n, c in per_case.values) / len(per_case)),
                    "latency_p50_ms": float(group["latency_ms"].quantile(0.5)),
                    "latency_p90_ms": float(group["latency_ms"].quantile(0.9)),
                    "input_tokens": int(group["input_tokens"].sum()),
                    "output_tokens": int(group["output_tokens"].sum()),
                    "cached": int(group["cached"].sum()),
                    "model_errors": int(group["model_error"].notna().sum()),
                    "rate_limited": int((group["model_error"] == "rate_limit").sum()),
                    **{name: _mean(group[name]) for name in self.scorer_columns},
                }
            )
        return pd.DataFrame(out)

    @property
    def scorer_columns(self) -> list[str]:
        """The results' scorer columns (one per scorer of the run: its score, or empty where it did not apply)."""
        return [c for c in self.results.columns if c not in _COLUMNS]

    def _side(self, name: str) -> tuple[str, str]:
        models, variants = set(self.results["model"]), set(self.results["variant"])
        if name in variants:
            return "variant", name
        if name in models:
            return "model", name
        raise KeyError(
            f"{name!r} is neither a model ({sorted(models)}) nor a variant ({sorted(variants)}) of this report"
        )

    def compare(self, a: str, b: str) -> Comparison:
        """``b`` against ``a`` (two models, or two variants), paired by case: each case's pass rate
        over its repeats (and the other dimension's values both ran) on each side; cases that rose,
        fell or stayed; the mean difference with a 95 % interval clustered by case; and an exact
        sign-flip p-value over cases (see :class:`Comparison`)."""
        side_a, side_b = self._side(a), self._side(b)
        if side_a[0] != side_b[0]:
            raise ValueError(f"compare two models or two variants, not a {side_a[0]} with a {side_b[0]}")
        column = side_a[0]
        other = "variant" if column == "model" else "model"
        rows = self.results
        return paired(rows[rows[column] == a], rows[rows[column] == b], a, b, cell=[other])

    def failures(self) -> Any:
        """The failed rows with their one-line reasons."""
        failed = self.results[~self.results["passed"]]
        return failed[["case", "model", "variant", "repeat", "reason", "expected", "actual"]].reset_index(drop=True)

    def failure_reasons(self) -> Any:
        """Failures counted by kind (``error_type``) per model and variant."""
        failed = self.results[~self.results["passed"]]
        return failed.groupby(["model", "variant", "error_type"]).size().rename("failures").reset_index()

    # -- views ---------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        state = " (interrupted)" if self.interrupted else ""
        lines = [f"EvalReport: {len(self.results)}/{self.total_jobs} runs{state}, {self.cache_hits} cache hits"]
        for row in self.summary().itertuples():
            lines.append(f"  {row.model} [{row.variant}]: {row.accuracy:.1%} of {row.runs} runs")
        return "\n".join(lines)

    def __str__(self) -> str:
        """``print(report)``: the summary table per model and variant, then the failed runs' reasons."""
        from workbench.evals._report_text import report_text

        return report_text(self)

    def _repr_html_(self) -> str:
        from workbench.evals._report_html import report_html

        return report_html(self)


_COLUMNS = [
    "case",
    "model",
    "variant",
    "repeat",
    "passed",
    "reason",
    "error_type",
    "expected",
    "actual",
    "expect_no_call",
    "true_positives",
    "false_positives",
    "false_negatives",
    "arguments_ok",
    "turns",
    "latency_ms",
    "input_tokens",
    "output_tokens",
    "cached",
    "tags",
    "run_id",
    "model_error",
]


def _mean(column: Any) -> float:
    """The mean score of a scorer column (bools as 0/1), over the runs it applied to."""
    values = [float(v) for v in column if v is not None and v == v]
    return sum(values) / len(values) if values else float("nan")
