"""Evaluation statistics with known answers: the case is the unit of evidence (issue 27, defects 1 and 8).

Every expected number below is worked out by hand in the comment next to it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from workbench import tool
from workbench.evals import EvalCase, EvalReport, mcnemar_exact, run_evals, sign_flip_test
from workbench.evals._stats import accuracy_interval, clustered_se, mean_interval, t_quantile, wilson_interval
from workbench.models import ScriptedModel

Z = 1.959963984540054  # the normal 0.975 quantile


@tool
def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city}


CITIES = [f"City{i}" for i in range(8)]
CASES = [
    EvalCase(
        f"c{i}", prompt=f"Weather in {city}?", expect_calls=[{"name": "get_weather", "arguments": {"city": [city]}}]
    )
    for i, city in enumerate(CITIES)
]


def model_passing(indices, name):
    """A deterministic model: the right call for the cases in ``indices``, a wrong city for the others."""

    def answer(messages, tools):
        city = messages[-1]["content"].split()[-1].rstrip("?")
        right = int(city[len("City") :]) in indices
        return {"tool_calls": [{"name": "get_weather", "input": {"city": city if right else "Atlantis"}}]}

    return ScriptedModel([answer], repeat_last=True, name=name)


def rows_of(outcomes, model="m", variant="default"):
    """Report rows from ``{case: [passed per repeat]}`` (the columns the statistics read)."""
    return [
        {
            "case": case,
            "model": model,
            "variant": variant,
            "repeat": r,
            "passed": bool(p),
            "reason": "" if p else "wrong",
            "error_type": None if p else "value",
            "expected": "[]",
            "actual": "[]",
            "expect_no_call": False,
            "true_positives": int(p),
            "false_positives": int(not p),
            "false_negatives": int(not p),
            "arguments_ok": bool(p),
            "turns": 1,
            "latency_ms": 1.0,
            "input_tokens": 1,
            "output_tokens": 1,
            "cached": False,
            "tags": "",
            "run_id": f"{model}-{variant}-{case}-{r}",
            "model_error": None,
        }
        for case, runs in outcomes.items()
        for r, p in enumerate(runs)
    ]


# -- (a) a deterministic model gains no significance from repeats -----------------------------------


def test_a_deterministic_pair_has_the_same_p_value_and_interval_whatever_the_repeats():
    # a passes c0-c3, b passes c0-c2 and c4-c7: per case b - a = [0, 0, 0, -1, 1, 1, 1, 1]
    a, b = model_passing({0, 1, 2, 3}, "a"), model_passing({0, 1, 2, 4, 5, 6, 7}, "b")
    seen = {}
    for repeats in (1, 3, 10):
        report = run_evals(CASES, [a, b], tools=[get_weather], repeats=repeats, progress=False)
        c = report.compare("scripted:a", "scripted:b")
        summary = report.summary().set_index("model")
        seen[repeats] = (
            c.cases,
            c.wins,
            c.losses,
            c.ties,
            c.difference,
            c.ci_low,
            c.ci_high,
            c.p_value,
            tuple(summary[["accuracy", "accuracy_low", "accuracy_high"]].itertuples(index=False, name=None)),
        )
    assert seen[1] == seen[3] == seen[10]
    cases, wins, losses, ties, difference, low, high, p, _ = seen[10]
    assert (cases, wins, losses, ties) == (8, 4, 1, 3)  # cases, not runs
    # 5 non-zero ±1 differences summing to 3: P(|S| >= 3) = (1 + 5 + 5 + 1) / 32, McNemar's exact test
    assert p == pytest.approx(12 / 32) == mcnemar_exact(4, 1)
    # mean 3/8; sum of squared deviations 3(3/8)^2 + (11/8)^2 + 4(5/8)^2 = 31/8; se = sqrt(31/8 / 7 / 8)
    se = math.sqrt(31 / 8 / 7 / 8)
    assert difference == pytest.approx(3 / 8)
    assert (low, high) == pytest.approx((3 / 8 - 2.364624251592785 * se, 3 / 8 + 2.364624251592785 * se))


# -- (b) the exact sign-flip test -------------------------------------------------------------------


def test_sign_flip_p_values_worked_by_hand():
    # signs of [1, 1, 1, -1]: sums ±4 (2 ways), ±2 (8 ways), 0 (6 ways); |S| >= 2 in 10 of 16
    assert sign_flip_test([1, 1, 1, -1]) == 10 / 16
    # ±1/2 ±1 ±1/4 gives ±1.75, ±1.25, ±0.75, ±0.25: |S| >= 1.25 in 4 of 8
    assert sign_flip_test([Fraction(1, 2), 1, Fraction(-1, 4)]) == 0.5
    # pass-rate differences as floats are read exactly: ±2/3 ±1/3 ±1/3, |S| >= 4/3 only for ±4/3
    assert sign_flip_test([2 / 3, 1 / 3, 1 / 3]) == 2 / 8
    assert sign_flip_test([0, 0]) == 1.0 and sign_flip_test([]) == 1.0
    assert sign_flip_test([1] * 8 + [0] * 5) == 2 / 2**8  # ties carry no information


@pytest.mark.parametrize("wins, losses", [(0, 0), (1, 0), (6, 2), (3, 3), (10, 0), (12, 7), (0, 9)])
def test_sign_flip_on_single_runs_is_mcnemars_exact_test(wins, losses):
    assert sign_flip_test([1] * wins + [-1] * losses + [0] * 4) == pytest.approx(mcnemar_exact(wins, losses))


def test_the_sampled_sign_flip_test_agrees_with_the_exact_one():
    differences = [Fraction(i, 7) for i in range(1, 15)] + [Fraction(-3, 5), Fraction(-11, 13)]
    exact = sign_flip_test(differences)
    sampled = sign_flip_test(differences, max_exact_sums=16)  # forced to sample (seeded: repeatable)
    assert sampled == sign_flip_test(differences, max_exact_sums=16)
    assert 0 < exact < 0.01 and abs(sampled - exact) < 0.003  # 200,000 draws: a standard error of ~0.0002


# -- (c) the interval of a paired difference, clustered by case -------------------------------------


def test_student_t_quantiles_match_the_tables():
    for df, value in [
        (1, 12.706204736),
        (2, 4.302652730),
        (3, 3.182446305),
        (7, 2.364624252),
        (30, 2.042272456),
        (100, 1.983971519),
    ]:
        assert t_quantile(0.975, df) == pytest.approx(value, abs=1e-8)


def test_paired_interval_with_repeats_worked_by_hand():
    # two repeats per case; per-case pass rates a = (1, 1/2, 0), b = (1, 1, 1/2): differences (0, 1/2, 1/2)
    old = rows_of({"c1": [1, 1], "c2": [1, 0], "c3": [0, 0]}, variant="old")
    new = rows_of({"c1": [1, 1], "c2": [1, 1], "c3": [1, 0]}, variant="new")
    c = EvalReport(old + new).compare("old", "new")
    assert (c.cases, c.wins, c.losses, c.ties, c.runs) == (3, 2, 0, 1, 12)
    # mean 1/3; squared deviations 1/9 + 1/36 + 1/36 = 1/6; variance 1/12; se = sqrt(1/12 / 3) = 1/6
    assert c.difference == pytest.approx(1 / 3) and c.accuracy_b - c.accuracy_a == pytest.approx(1 / 3)
    # t(2) = 4.30265: 1/3 ± 0.71711, the upper end clipped to the largest possible difference, 1
    assert (c.ci_low, c.ci_high) == pytest.approx((1 / 3 - 4.302652730 / 6, 1.0))
    assert c.p_value == 0.5  # ±1/2 ±1/2: |S| >= 1 in 2 of 4
    # the same standard error as Miller's clustered formula on the per-run differences, times sqrt(G/(G-1)):
    # cluster residual sums -2/3, 1/3, 1/3 -> sqrt(6/9) / 6 runs
    assert clustered_se([[0, 0], [0, 1], [1, 0]]) == pytest.approx(math.sqrt(6 / 9) / 6)
    assert clustered_se([[0, 0], [0, 1], [1, 0]]) * math.sqrt(3 / 2) == pytest.approx(1 / 6)
    assert mean_interval([0, 1, 1, 1]) == pytest.approx((0.75, 0.75 - 3.182446305 * 0.25, 0.75 + 3.182446305 * 0.25))
    assert all(math.isnan(x) for x in mean_interval([0.5])[1:])  # one case: no interval


# -- (d) accuracy intervals in summary() ------------------------------------------------------------


def wilson(p, n):
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def test_accuracy_intervals_are_wilson_on_cases():
    assert wilson_interval(6 / 8, 8) == pytest.approx((0.409275, 0.928521), abs=1e-6)  # the tables' 6 of 8
    assert wilson_interval(1.0, 8) == pytest.approx((8 / (8 + Z * Z), 1.0))  # 8 of 8 is not certainty
    row = EvalReport(rows_of({f"c{i}": [i < 6] for i in range(8)})).summary().iloc[0]
    assert (row["accuracy"], row["accuracy_low"], row["accuracy_high"]) == pytest.approx((0.75, *wilson(0.75, 8)))


@pytest.mark.parametrize(
    "outcomes, effective",
    [
        # every case answered alike on each repeat: the cases are the trials (4), not the 12 runs
        ({"a": [1, 1, 1], "b": [1, 1, 1], "c": [0, 0, 0], "d": [0, 0, 0]}, 4),
        # p = 1/2; cluster residual sums 3/2, 1/2, -3/2, -1/2: SE² = 5/144, effective trials p(1-p)/SE² = 7.2
        ({"a": [1, 1, 1], "b": [1, 1, 0], "c": [0, 0, 0], "d": [1, 0, 0]}, 7.2),
        # every case half passed: no variation between cases, the runs are the trials (8)
        ({"a": [1, 0], "b": [0, 1], "c": [1, 0], "d": [0, 1]}, 8),
    ],
)
def test_accuracy_intervals_with_repeats_are_clustered_by_case(outcomes, effective):
    row = EvalReport(rows_of(outcomes)).summary().iloc[0]
    assert (row["accuracy_low"], row["accuracy_high"]) == pytest.approx(wilson(0.5, effective))
    assert accuracy_interval(list(outcomes.values())) == pytest.approx(wilson(0.5, effective))


# -- defect 8: 0/0 is undefined, not 1 --------------------------------------------------------------


def test_a_model_that_never_calls_a_tool_has_no_precision():
    silent = ScriptedModel(["I would rather not."], repeat_last=True, name="silent")
    report = run_evals(CASES[:3], silent, tools=[get_weather], progress=False)
    row = report.summary().iloc[0]
    assert math.isnan(row["precision"]) and row["recall"] == 0.0 and row["f1"] == 0.0
    assert math.isnan(row["argument_accuracy"]) and math.isnan(row["irrelevance_accuracy"])
    html = report._repr_html_()
    header = html.split("<thead>")[1].split("</thead>")[0]
    columns = re.findall(r"<th[^>]*>(.*?)</th>", header)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html.split("<tbody>")[1].split("</tr>")[0])
    shown = dict(zip(columns, cells))
    assert (shown["precision"], shown["recall"], shown["f1"]) == ("–", "0", "0")


def test_nothing_expected_and_nothing_called_leaves_every_selection_figure_undefined():
    hello = EvalCase("hello", prompt="Hello", expect_no_call=True)
    row = (
        run_evals([hello], ScriptedModel(["Hi!"], repeat_last=True), tools=[get_weather], progress=False)
        .summary()
        .iloc[0]
    )
    assert all(math.isnan(row[c]) for c in ("precision", "recall", "f1")) and row["irrelevance_accuracy"] == 1.0
