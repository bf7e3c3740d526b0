"""Paired comparisons by case: two models or variants of one report (:class:`Comparison`), and two
reports of the same suite (:func:`compare_reports`: regressions, fixes and the same statistics)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Sequence

from workbench._html import pre
from workbench.evals._stats import CONFIDENCE, mean_interval, sign_flip_test

#: how a comparison's p-value and interval are computed (docs/evaluations-statistics.md)
METHOD = "exact sign-flip test and t interval on per-case pass-rate differences"


@dataclass
class Comparison:
    """``b`` against ``a`` over the cases both ran, the case being the unit of evidence.

    Each case's pass rate (over its repeats, and over the other dimension's values it was paired on)
    is computed for both sides; ``difference`` is the mean per-case difference ``b − a`` with its
    95 % interval (``ci_low``, ``ci_high``: t interval, standard error clustered by case);
    ``p_value`` the exact sign-flip permutation test of those differences (McNemar's exact test when
    each case ran once). ``wins``/``losses``/``ties`` count cases whose pass rate rose, fell or stayed.
    Repeats of a deterministic model change none of these numbers.
    """

    a: str
    b: str
    cases: int
    wins: int
    losses: int
    ties: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    runs: int

    @property
    def verdict(self) -> str:
        """ "better"/"worse" when the difference is significant at the 5 % level, else "no clear difference"."""
        if self.p_value < 1 - CONFIDENCE and self.difference:
            return "better" if self.difference > 0 else "worse"
        return "no clear difference"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        interval = (
            "" if self.ci_low != self.ci_low else f", 95% CI [{100 * self.ci_low:+.1f}, {100 * self.ci_high:+.1f}]"
        )
        return (
            f"{self.b} vs {self.a}: {self.accuracy_b:.1%} vs {self.accuracy_a:.1%} over {self.cases} cases "
            f"({self.runs} runs); {self.wins} cases better, {self.losses} worse, {self.ties} unchanged; "
            f"difference {100 * self.difference:+.1f} points{interval}; {self.verdict}, "
            f"sign-flip exact p = {self.p_value:.3g}"
        )


def paired(a_runs: Any, b_runs: Any, a: str, b: str, cell: Sequence[str] = ()) -> Comparison:
    """Compare two tables of runs (columns ``case``, ``passed`` and the ``cell`` columns): runs pair
    on (case, *cell); each case's difference is the mean over its paired cells of the pass-rate
    difference; the test and interval are over cases."""
    keys = ["case", *cell]
    left = a_runs.groupby(keys, sort=False)["passed"].agg(["sum", "count"])
    right = b_runs.groupby(keys, sort=False)["passed"].agg(["sum", "count"])
    joined = left.add_suffix("_a").join(right.add_suffix("_b"), how="inner")
    per_case: dict[Any, list[tuple[Fraction, Fraction]]] = {}
    for key, row in zip(joined.index, joined.itertuples(index=False)):
        case = key[0] if isinstance(key, tuple) else key
        per_case.setdefault(case, []).append(
            (Fraction(int(row.sum_a), int(row.count_a)), Fraction(int(row.sum_b), int(row.count_b)))
        )
    rates = {
        case: (sum(x for x, _ in cells) / len(cells), sum(y for _, y in cells) / len(cells))
        for case, cells in per_case.items()
    }
    differences = [rb - ra for ra, rb in rates.values()]
    wins = sum(d > 0 for d in differences)
    losses = sum(d < 0 for d in differences)
    mean, low, high = mean_interval([float(d) for d in differences])
    # a difference of pass rates lies in [-1, 1]; the t interval knows nothing of that bound
    low, high = (max(-1.0, low), min(1.0, high)) if low == low else (low, high)
    n = len(rates)
    return Comparison(
        a,
        b,
        n,
        wins,
        losses,
        n - wins - losses,
        float(sum(ra for ra, _ in rates.values()) / n) if n else float("nan"),
        float(sum(rb for _, rb in rates.values()) / n) if n else float("nan"),
        mean,
        low,
        high,
        sign_flip_test(differences),
        int(joined["count_a"].sum() + joined["count_b"].sum()),
    )


@dataclass
class ReportComparison:
    """What changed between two reports of the same suite: ``regressions`` (cases whose pass rate
    fell: with one run per case, passed in ``old`` and failed in ``new``), ``fixes`` (rose), and per
    model and variant a :class:`Comparison` (``comparisons``; as a table: ``statistics``).
    ``only_old``/``only_new``: (case, model, variant) that ran in one report only."""

    regressions: Any
    fixes: Any
    comparisons: dict[tuple[str, str], Comparison]
    only_old: list[tuple[str, str, str]]
    only_new: list[tuple[str, str, str]]

    @property
    def statistics(self) -> Any:
        """One row per (model, variant): the :class:`Comparison`'s figures."""
        import pandas as pd

        rows = [
            {"model": model, "variant": variant, **{k: v for k, v in c.to_dict().items() if k not in ("a", "b")}}
            for (model, variant), c in self.comparisons.items()
        ]
        fields = [f for f in Comparison.__dataclass_fields__ if f not in ("a", "b")]
        return pd.DataFrame(rows, columns=["model", "variant", *fields])

    def __str__(self) -> str:
        lines = [f"{len(self.regressions)} regression(s), {len(self.fixes)} fix(es)"]
        lines += [
            f"  regressed: {r.case} [{r.model}, {r.variant}] {r.old_pass_rate:.0%} -> {r.new_pass_rate:.0%}: {r.reason}"
            for r in self.regressions.itertuples()
        ]
        lines += [
            f"  fixed: {r.case} [{r.model}, {r.variant}] {r.old_pass_rate:.0%} -> {r.new_pass_rate:.0%}"
            for r in self.fixes.itertuples()
        ]
        lines += [f"  {c}" for c in self.comparisons.values()]
        for label, missing in (("only in old", self.only_old), ("only in new", self.only_new)):
            if missing:
                lines.append(
                    f"  {len(missing)} run(s) {label}: "
                    + ", ".join(f"{c} [{m}, {v}]" for c, m, v in missing[:5])
                    + (" …" if len(missing) > 5 else "")
                )
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return pre(str(self))


_CHANGE_COLUMNS = ["case", "model", "variant", "old_pass_rate", "new_pass_rate", "reason"]


def compare_reports(old: Any, new: Any) -> ReportComparison:
    """Did today's change break anything? Pair ``old`` and ``new`` (two :class:`EvalReport`s, e.g.
    one loaded with ``EvalReport.load``) on (case, model, variant): the cases that regressed and the
    ones fixed, and per model and variant the paired statistics of :meth:`EvalReport.compare`."""
    import pandas as pd

    keys = ["case", "model", "variant"]
    rates = [r.results.groupby(keys, sort=False)["passed"].mean() for r in (old, new)]
    joined = rates[0].to_frame("old_pass_rate").join(rates[1].to_frame("new_pass_rate"), how="inner")
    reasons = new.results[~new.results["passed"]].groupby(keys, sort=False)["reason"].first()
    table = joined.join(reasons, how="left").reset_index()
    table["reason"] = table["reason"].fillna("")
    regressions = table[table["new_pass_rate"] < table["old_pass_rate"]][_CHANGE_COLUMNS].reset_index(drop=True)
    fixes = table[table["new_pass_rate"] > table["old_pass_rate"]][_CHANGE_COLUMNS].reset_index(drop=True)
    comparisons = {}
    for model, variant in dict.fromkeys(zip(table["model"], table["variant"])):
        pick = [r.results[(r.results["model"] == model) & (r.results["variant"] == variant)] for r in (old, new)]
        comparisons[(model, variant)] = paired(pick[0], pick[1], "old", "new")
    old_keys, new_keys = set(rates[0].index), set(rates[1].index)
    return ReportComparison(
        regressions if len(regressions) else pd.DataFrame(columns=_CHANGE_COLUMNS),
        fixes if len(fixes) else pd.DataFrame(columns=_CHANGE_COLUMNS),
        comparisons,
        sorted(old_keys - new_keys),
        sorted(new_keys - old_keys),
    )
