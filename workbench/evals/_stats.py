"""The numbers a report quotes: pass@k, pass^k, the paired sign-flip test, clustered intervals.

The unit of evidence is the case: repeats estimate a case's pass rate and never count as extra
independent cases (docs/evaluations-statistics.md explains the method). scipy is not a dependency,
so the two distributions needed are computed here: the exact sign-flip distribution (by counting)
and Student's t (Abramowitz & Stegun 26.7.3-4, exact for an integer number of degrees of freedom).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from numbers import Rational
from statistics import NormalDist
from typing import Iterable, Sequence

#: the two-sided level of every interval a report quotes
CONFIDENCE = 0.95
#: beyond this many distinct partial sums the sign-flip distribution is sampled, not counted
MAX_EXACT_SUMS = 1 << 20
#: draws of the sampled sign-flip test (seeded: the same data give the same p-value)
SIGN_FLIP_DRAWS = 200_000


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of ``k`` attempts passes, from ``c`` passes in ``n`` attempts
    (the unbiased estimator of Chen et al., 2021)."""
    _check(n, c, k)
    return 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """τ-bench's pass^k: the chance that all ``k`` attempts pass, from ``c`` passes in ``n``."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value for paired verdicts: ``wins`` cases only B passed, ``losses``
    cases only A passed (ties carry no information). 1.0 when there is no discordant pair."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2.0 * tail)


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN when the denominator is 0 (an undefined figure is shown "–",
    never as 0 or 1)."""
    return numerator / denominator if denominator else math.nan


# -- the paired test -------------------------------------------------------------------------------


def _fraction(value: float | Rational) -> Fraction:
    if isinstance(value, Rational):
        return Fraction(value)
    if not math.isfinite(value):
        raise ValueError(f"a difference must be a finite number, got {value!r}")
    # pass-rate differences are fractions with small denominators (2/3 - 1/4); a float is read as the
    # nearest such fraction so that 2/3 stored as 0.666… counts as 2/3 in the exact distribution
    return Fraction(value).limit_denominator(1_000_000)


def sign_flip_test(
    differences: Iterable[float | Rational],
    *,
    max_exact_sums: int = MAX_EXACT_SUMS,
    draws: int = SIGN_FLIP_DRAWS,
    seed: int = 0,
) -> float:
    """Two-sided p-value of the paired sign-flip (permutation) test that the per-case differences
    are symmetric about 0: the share of the 2^m sign assignments of the m non-zero differences whose
    sum is at least as far from 0 as the observed sum.

    Exact (the distribution of sums is counted) while it has at most ``max_exact_sums`` distinct
    sums — always, for pass-rate differences of any realistic suite — else estimated from ``draws``
    seeded random sign assignments, as (hits + 1) / (draws + 1). On differences in {-1, 0, 1} (one
    run per case) it equals :func:`mcnemar_exact`.
    """
    values = [v for v in map(_fraction, differences) if v != 0]
    if not values:
        return 1.0
    scale = math.lcm(*(v.denominator for v in values))
    steps = [int(v * scale) for v in values]
    observed = abs(sum(steps))
    counts: Counter[int] = Counter({0: 1})
    for step in steps:
        following: Counter[int] = Counter()
        for total, count in counts.items():
            following[total + step] += count
            following[total - step] += count
        if len(following) > max_exact_sums:
            return _sampled_sign_flip([s / scale for s in steps], observed / scale, draws, seed)
        counts = following
    extreme = sum(count for total, count in counts.items() if abs(total) >= observed)
    return min(1.0, extreme / 2 ** len(steps))


def _sampled_sign_flip(values: list[float], observed: float, draws: int, seed: int) -> float:
    import numpy as np

    rng = np.random.default_rng(seed)
    vector = np.asarray(values, dtype=float)
    tolerance = 1e-9 * max(1.0, float(np.abs(vector).sum()))
    hits, done, chunk = 0, 0, max(1, min(draws, 1_000_000 // len(values)))
    while done < draws:
        size = min(chunk, draws - done)
        signs = rng.integers(0, 2, size=(size, len(values)), dtype=np.int8) * 2 - 1
        hits += int((np.abs(signs @ vector) >= observed - tolerance).sum())
        done += size
    return (hits + 1) / (draws + 1)


# -- intervals -------------------------------------------------------------------------------------


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with ``df`` degrees of freedom (A&S 26.7.3 and 26.7.4)."""
    theta = math.atan(t / math.sqrt(df))
    c, s = math.cos(theta), math.sin(theta)
    if df % 2:
        term, series = c, c if df > 1 else 0.0
        for j in range(3, df - 1, 2):  # c + (2/3)c^3 + (2·4)/(3·5)c^5 + … up to c^(df-2)
            term *= (j - 1) / j * c * c
            series += term
        return 2 / math.pi * (theta + s * series)
    term = series = 1.0
    for j in range(2, df - 1, 2):  # 1 + (1/2)c^2 + (1·3)/(2·4)c^4 + … up to c^(df-2)
        term *= (j - 1) / j * c * c
        series += term
    return s * series


def t_quantile(probability: float, df: int) -> float:
    """The ``probability`` quantile (> 0.5) of Student's t with ``df`` (a positive integer) degrees
    of freedom, by bisection on the exact distribution function."""
    if not (0.5 < probability < 1) or df < 1 or int(df) != df:
        raise ValueError(f"need 0.5 < probability < 1 and a positive integer df, got {probability}, {df}")
    target, low, high = 2 * probability - 1, 0.0, 1.0
    while _t_two_sided(high, int(df)) < target:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _t_two_sided(middle, int(df)) < target:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Mean, and the t interval of the mean, of independent ``values`` (one per case): mean ± t(n-1)
    · sd/√n. With repeats, ``values`` are per-case means, so this is the standard error clustered by
    case (with the usual n/(n-1) small-sample factor). t rather than normal: suites are often tens of
    cases, where 1.96 understates the width. NaN bounds with fewer than two values."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan, math.nan
    se = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1) / n)
    half = t_quantile((1 + confidence) / 2, n - 1) * se
    return mean, mean - half, mean + half


def clustered_se(clusters: Sequence[Sequence[float]]) -> float:
    """The standard error of the mean of all observations, clustered (Miller 2024, eq. 4):
    sqrt(Σ_c (Σ_i (x_ic − x̄))²) / N, without a small-sample factor. NaN with no observation."""
    total = sum(len(c) for c in clusters)
    if not total:
        return math.nan
    mean = math.fsum(x for c in clusters for x in c) / total
    return math.sqrt(math.fsum(math.fsum(x - mean for x in c) ** 2 for c in clusters)) / total


def wilson_interval(p: float, n: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed on ``n`` (possibly effective, so not
    necessarily whole) trials; stays inside [0, 1] and does not collapse at 0 or 1."""
    if n <= 0 or not math.isfinite(p):
        return math.nan, math.nan
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n)))
    return max(0.0, centre - half), min(1.0, centre + half)


def accuracy_interval(clusters: Sequence[Sequence[float]], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """A ``confidence`` interval for an accuracy measured on cases (each a cluster of its repeats'
    0/1 outcomes): Wilson's interval on the effective number of trials p(1−p)/SE², SE clustered by
    case (:func:`clustered_se`), kept between the number of cases and of runs. With one run per case
    that is the number of cases; a model that answers every repeat alike gets the same interval
    whatever the repeats. At p = 0 or 1 (no variation to measure) the cases are the trials."""
    clusters = [c for c in clusters if len(c)]
    runs = sum(len(c) for c in clusters)
    if not runs:
        return math.nan, math.nan
    p = math.fsum(x for c in clusters for x in c) / runs
    se = clustered_se(clusters)
    effective = len(clusters) if p in (0.0, 1.0) else runs if se == 0 else p * (1 - p) / se**2
    return wilson_interval(p, min(runs, max(len(clusters), effective)), confidence)
