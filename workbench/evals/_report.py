"""``EvalReport``: the results table, its summary, paired comparisons, failures, and its views."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Optional

from workbench.evals._stats import mcnemar_exact, pass_at_k, pass_hat_k


@dataclass
class Comparison:
    """A paired comparison of two models or variants over the same cases (and repeats).

    ``wins``: pairs only ``b`` passed; ``losses``: only ``a`` passed; ``p_value``: McNemar's exact test.
    """

    a: str
    b: str
    pairs: int
    wins: int
    losses: int
    ties: int
    accuracy_a: float
    accuracy_b: float
    p_value: float

    def __str__(self) -> str:
        verdict = ("better" if self.wins > self.losses else "worse" if self.wins < self.losses else "no different")
        return (f"{self.b} vs {self.a}: {self.accuracy_b:.1%} vs {self.accuracy_a:.1%} over {self.pairs} paired runs; "
                f"{self.wins} wins, {self.losses} losses, {self.ties} ties; {verdict}, McNemar exact p = {self.p_value:.3g}")


class EvalReport:
    """What :func:`run_evals` returns.

    ``results`` is a DataFrame, one row per (case, model, variant, repeat): passed, the one-line
    reason, expected and actual calls, tool-selection counts, arguments_ok, turns, latency, tokens,
    cached. ``transcripts`` maps each row's ``run_id`` to its transcript; ``spec_diffs`` the spec
    changes between consecutive variants; ``interrupted`` says the run was stopped early.
    """

    def __init__(self, rows: list[dict[str, Any]], *, transcripts: Optional[dict] = None, spec_diffs: Optional[dict] = None,
                 cache_hits: int = 0, interrupted: bool = False, total_jobs: Optional[int] = None) -> None:
        import pandas as pd

        self.results = pd.DataFrame(rows, columns=_COLUMNS if not rows else None)
        self.transcripts = transcripts or {}
        self.spec_diffs = spec_diffs or {}
        self.cache_hits = cache_hits
        self.interrupted = interrupted
        self.total_jobs = len(rows) if total_jobs is None else total_jobs

    def __len__(self) -> int:
        return len(self.results)

    # -- numbers -------------------------------------------------------------------------------------
    def summary(self) -> Any:
        """Per model and variant: accuracy, tool-selection precision/recall/F1, argument accuracy,
        irrelevance accuracy, pass@k and pass^k (k = repeats), p50/p90 latency, tokens, cache hits."""
        import pandas as pd

        out = []
        for (model, variant), group in self.results.groupby(["model", "variant"], sort=False):
            tp, fp, fn = (int(group[c].sum()) for c in ("true_positives", "false_positives", "false_negatives"))
            precision = tp / (tp + fp) if tp + fp else 1.0
            recall = tp / (tp + fn) if tp + fn else 1.0
            args = group["arguments_ok"].dropna()
            irrelevance = group[group["expect_no_call"]]
            per_case = group.groupby("case")["passed"].agg(["count", "sum"])
            k = int(per_case["count"].min()) if len(per_case) else 1
            out.append({
                "model": model, "variant": variant, "cases": len(per_case), "runs": len(group),
                "accuracy": float(group["passed"].mean()),
                "precision": precision, "recall": recall,
                "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
                "argument_accuracy": float(args.astype(bool).mean()) if len(args) else float("nan"),
                "irrelevance_accuracy": float(irrelevance["passed"].mean()) if len(irrelevance) else float("nan"),
                "k": k,
                f"pass@{k}": float(sum(pass_at_k(int(n), int(c), k) for n, c in per_case.values) / len(per_case)),
                f"pass^{k}": float(sum(pass_hat_k(int(n), int(c), k) for n, c in per_case.values) / len(per_case)),
                "latency_p50_ms": float(group["latency_ms"].quantile(0.5)),
                "latency_p90_ms": float(group["latency_ms"].quantile(0.9)),
                "input_tokens": int(group["input_tokens"].sum()), "output_tokens": int(group["output_tokens"].sum()),
                "cached": int(group["cached"].sum()),
                "model_errors": int(group["model_error"].notna().sum()),
                "rate_limited": int((group["model_error"] == "rate_limit").sum()),
                **{name: _mean(group[name]) for name in self.scorer_columns},
            })
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
        raise KeyError(f"{name!r} is neither a model ({sorted(models)}) nor a variant ({sorted(variants)}) of this report")

    def compare(self, a: str, b: str) -> Comparison:
        """Pair ``a`` and ``b`` (two models, or two variants) on the same case, repeat and other
        dimension, and count wins and losses of ``b`` with an exact McNemar p-value."""
        side_a, side_b = self._side(a), self._side(b)
        if side_a[0] != side_b[0]:
            raise ValueError(f"compare two models or two variants, not a {side_a[0]} with a {side_b[0]}")
        column = side_a[0]
        other = "variant" if column == "model" else "model"
        keys = ["case", "repeat", other]
        left = self.results[self.results[column] == a].set_index(keys)["passed"]
        right = self.results[self.results[column] == b].set_index(keys)["passed"]
        joined = left.to_frame("a").join(right.to_frame("b"), how="inner")
        wins = int((~joined["a"] & joined["b"]).sum())
        losses = int((joined["a"] & ~joined["b"]).sum())
        pairs = len(joined)
        return Comparison(a, b, pairs, wins, losses, pairs - wins - losses,
                          float(joined["a"].mean()) if pairs else float("nan"),
                          float(joined["b"].mean()) if pairs else float("nan"), mcnemar_exact(wins, losses))

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

    def _repr_html_(self) -> str:
        from workbench.evals._report_html import report_html

        return report_html(self)


_COLUMNS = ["case", "model", "variant", "repeat", "passed", "reason", "error_type", "expected", "actual",
            "expect_no_call", "true_positives", "false_positives", "false_negatives", "arguments_ok", "turns",
            "latency_ms", "input_tokens", "output_tokens", "cached", "tags", "run_id", "model_error"]


def _mean(column: Any) -> float:
    """The mean score of a scorer column (bools as 0/1), over the runs it applied to."""
    values = [float(v) for v in column if v is not None and v == v]
    return sum(values) / len(values) if values else float("nan")


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)
