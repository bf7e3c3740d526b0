"""The numbers a report quotes: pass@k, pass^k and McNemar's exact test."""

from __future__ import annotations

from math import comb


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of ``k`` attempts passes, from ``c`` passes in ``n`` attempts
    (the unbiased estimator of Chen et al., 2021)."""
    _check(n, c, k)
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """τ-bench's pass^k: the chance that all ``k`` attempts pass, from ``c`` passes in ``n``."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value for paired verdicts: ``wins`` cases only B passed, ``losses``
    cases only A passed (ties carry no information). 1.0 when there is no discordant pair."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n
    return min(1.0, 2.0 * tail)
