"""Statistics of head-to-head results: score, Elo with a 95 % interval, LOS and SPRT.

Pure functions, no I/O. A result is a frequency table of *pair scores*: each pair of games
played on one duplicate deal scores 0-1 for the candidate (the mean of its two games). In a
two-seat game the pair is the deal with the seats swapped, and its scores are the
pentanomial 0, 1/4, 1/2, 3/4, 1 (lost both, lost and drew, one each or two draws, won and
drew, won both); ``pentanomial([LL, LD, DD+WL, WD, WW])`` makes that table. Scoring pairs
rather than games is what makes duplicate deals pay: the luck of the cards is in both games
of a pair and cancels in its score, so the variance of a pair is smaller than that of two
unpaired games (fastchess, OpenBench and fishtest score chess openings the same way).

Sources:

* Score, its variance and the Elo interval: the normal approximation on pairs, as in
  fastchess and OpenBench (``OpenBench/stats.py``): mean pair score ``m``, variance
  ``v = sum p_i (s_i - m)^2``, interval ``m +- z sqrt(v / N)`` mapped through the logistic
  ``Elo(s) = -400 log10(1 / s - 1)``, with ``z = Phi^-1(0.975)``. Reference: counts
  [398, 4112, 7672, 4336, 430] give Elo +2.95 +- 2.18 and [56, 1144, 2546, 1310, 77] give
  +7.04 +- 3.62 (published OpenBench results; tests/test_stats.py).
* LOS (likelihood of superiority): ``Phi((m - 1/2) / sqrt(v / N))``.
* SPRT: the generalised sequential probability ratio test of fishtest
  (``server/fishtest/stats/LLRcalc.py``, ``LLR_logistic``; M. Van den Bergh,
  "Maximum likelihood estimation for a multinomial distribution with a given expectation",
  cantate.be/Fishtest/support_MLE_multinomial.pdf, Proposition 1.1): the log-likelihood
  ratio of the empirical distribution's maximum-likelihood fits with expected score
  ``L(elo1)`` against ``L(elo0)``, ``L(e) = 1 / (1 + 10^(-e/400))``, times N; zero counts
  of a pentanomial become 1e-3 (fishtest's regularisation). The fit with expectation ``s``
  is ``p_i / (1 + x (a_i - s))`` where ``x`` solves ``sum p_i (a_i - s) / (1 + x (a_i -
  s)) = 0``, found here by bisection (the sum falls monotonically in ``x``). Bounds are
  Wald's: ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z975 = 1.959963984540054  # Phi^-1(0.975)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)


def pentanomial(counts) -> dict[float, float]:
    """The pair-score table of pentanomial counts ``[LL, LD, DD+WL, WD, WW]``."""
    counts = list(counts)
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise ValueError("a pentanomial is five counts, none negative")
    return dict(zip(PENTANOMIAL, counts, strict=True))


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def elo(score: float) -> float:
    """Logistic Elo difference of an expected score (``inf`` at 1, ``-inf`` at 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_difference: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


@dataclass(frozen=True)
class Estimate:
    """What a table of pair scores says: ``pairs``, mean ``score`` (0-1) and the variance of
    one pair's score, the Elo difference with its 95 % interval, and the LOS."""

    pairs: float
    score: float
    variance: float
    elo: float
    elo_low: float
    elo_high: float
    los: float

    @property
    def elo_error(self) -> float:
        """Half the width of the interval (the ``+-`` of ``Elo +2.95 +- 2.18``)."""
        return (self.elo_high - self.elo_low) / 2.0


def _moments(table: dict[float, float]) -> tuple[float, float, float]:
    n = float(sum(table.values()))
    if n <= 0:
        return 0.0, 0.5, 0.0
    mean = sum(s * c for s, c in table.items()) / n
    var = sum(c * (s - mean) ** 2 for s, c in table.items()) / n
    return n, mean, var


def estimate(table: dict[float, float]) -> Estimate:
    """Score, Elo with its 95 % interval and LOS of a table ``{pair score: count}``."""
    n, mean, var = _moments(table)
    if n == 0:
        return Estimate(0, 0.5, 0.0, 0.0, -math.inf, math.inf, 0.5)
    error = Z975 * math.sqrt(var / n)
    if var == 0:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    else:
        los = phi((mean - 0.5) / math.sqrt(var / n))
    return Estimate(n, mean, var, elo(mean), elo(mean - error), elo(mean + error), los)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds on the LLR: below the first H0 is accepted, above the second H1."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must lie strictly between 0 and 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _fit(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The maximum-likelihood probabilities with expectation ``s`` (Proposition 1.1)."""
    shifted = [(a - s, p) for a, p in pdf]
    low = -1.0 / max(a for a, _ in shifted)
    high = -1.0 / min(a for a, _ in shifted)

    def f(x):
        return sum(p * a / (1.0 + x * a) for a, p in shifted)

    lo, hi = low + 1e-12 * (high - low), high - 1e-12 * (high - low)
    for _ in range(200):  # f falls from +inf to -inf across (low, high)
        mid = (lo + hi) / 2.0
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, abs(mid)):
            break
    x = (lo + hi) / 2.0
    return [p / (1.0 + x * a) for a, p in shifted]


def llr(table: dict[float, float], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``),
    logistic Elo, as fishtest computes it (module docstring). 0 while the table cannot
    tell: fewer than two distinct scores, or the hypotheses' scores outside its range."""
    if set(table) == set(PENTANOMIAL):  # fishtest's regularisation of a pentanomial
        table = {s: (c if c > 0 else 1e-3) for s, c in table.items()}
    table = {s: c for s, c in table.items() if c > 0}
    n = float(sum(table.values()))
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if len(table) < 2 or not min(table) < min(s0, s1) <= max(s0, s1) < max(table):
        return 0.0
    pdf = sorted((s, c / n) for s, c in table.items())
    p0, p1 = _fit(pdf, s0), _fit(pdf, s1)
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in
                   zip(pdf, p0, p1, strict=True))


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str | None:
        """``"H1"`` (the candidate is better by about ``elo1``), ``"H0"`` (not by more than
        about ``elo0``) or None while the test goes on."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def sprt(table: dict[float, float], elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05) -> Sprt:
    """The SPRT of H0: Elo = ``elo0`` against H1: Elo = ``elo1`` on a table of pair scores."""
    if not elo1 > elo0:
        raise ValueError("elo1 must be greater than elo0")
    lower, upper = sprt_bounds(alpha, beta)
    return Sprt(elo0, elo1, alpha, beta, llr(table, elo0, elo1), lower, upper)
