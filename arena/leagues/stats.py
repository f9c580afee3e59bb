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

* Score, its variance and the Elo interval, on pairs, as in OpenBench (``OpenBench/
  stats.py``): mean pair score ``m``, variance ``v = sum p_i (s_i - m)^2``, interval
  ``m +- q sqrt(v / N)`` mapped through the logistic ``Elo(s) = -400 log10(1 / s - 1)``,
  with ``q`` Student's t quantile at 0.975 with ``N - 1`` degrees of freedom (OpenBench's
  since late 2024: a few pairs give an honestly wide interval; many give the normal one).
  Reference: counts [398, 4112, 7672, 4336, 430] give Elo +2.95 +- 2.18,
  [56, 1144, 2546, 1310, 77] give +7.04 +- 3.62, and [1, 2, 3, 4, 5] give [-4.2, +287.2]
  (published OpenBench results; tests/test_stats.py).
* **Regularisation**, as fishtest's (``LLRcalc.regularize``, ``stat_util.elo``): a table is
  given a count of 1e-3 at each score it lacks of those a pair may have - the five of a
  pentanomial; for a field table (more seats, any score in 0-1) its two ends, 0 and 1 -
  and an expected score is kept within [0.001, 0.999]. So a table in which every pair
  scored alike still has a width, no Elo is infinite (ten double wins: +1199.8 +- 188.9
  with the normal quantile, fishtest's figure; seven split pairs: 0 +- 4.9), and the SPRT
  of a candidate that never did worse than the baseline moves (its LLR is not 0).
* **Few pairs, or pairs all alike** - the one rule for every interval, LOS and normal SPRT
  arena shows (:func:`pair_variance`): a pair's variance is taken as at least what
  ``PRIOR_PAIRS`` = 2 pseudo pairs of ``PRIOR_VARIANCE`` = 1/8 (the spread of a pair of two
  independent even games) give among ``N + 2`` pairs, ``v >= 2 (1/8) / (N + 2)``. Where
  the pairs carry their own spread (any table with a few hundred varied pairs, every
  published reference above) this changes nothing; where they do not - three level deals,
  five split pairs, a hundred pairs of two copies of one bot all exactly 1/2 - it keeps
  the interval as wide as so few pairs can honestly say (three level deals: every Elo;
  a hundred: +-6.8) instead of collapsing to a point, and lets the normal SPRT decide
  (H0 for a positive ``elo1``) when every pair ties, as the GSPRT does. A mean is rounded
  to 12 places, so a symmetric table is exactly level (``+0``, never ``-0``).
* LOS (likelihood of superiority): ``Phi((m - 1/2) / sqrt(v / N))``, regularised.
* SPRT: the generalised sequential probability ratio test of fishtest
  (``server/fishtest/stats/LLRcalc.py``, ``LLR_logistic``; M. Van den Bergh,
  "Maximum likelihood estimation for a multinomial distribution with a given expectation",
  cantate.be/Fishtest/support_MLE_multinomial.pdf, Proposition 1.1): the log-likelihood
  ratio of the empirical distribution's maximum-likelihood fits with expected score
  ``L(elo1)`` against ``L(elo0)``, ``L(e) = 1 / (1 + 10^(-e/400))``, times N; zero counts
  of a pentanomial become 1e-3 (fishtest's regularisation). The fit with expectation ``s``
  is ``p_i / (1 + x (a_i - s))`` where ``x`` solves ``sum p_i (a_i - s) / (1 + x (a_i -
  s)) = 0``, found here by bisection (the sum falls monotonically in ``x``). Bounds are
  Wald's: ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``. Pair scores of any
  value (luck-adjusted, ``arena.luck``) have a table with a count at nearly every score;
  their SPRT is the normal approximation, from the moments alone (:func:`llr_normal`).
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


#: an expected score is kept within [EPSILON, 1 - EPSILON] (fishtest's ``stat_util.elo``):
#: Elo lies within +-1199.8
EPSILON = 1e-3
#: the count a lacking score of a table is given (fishtest's ``LLRcalc.regularize``)
PSEUDO = 1e-3


def elo(score: float) -> float:
    """Logistic Elo difference of an expected score, the score kept within [0.001, 0.999]:
    never infinite (at most +-1199.8)."""
    score = min(max(score, EPSILON), 1.0 - EPSILON)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # never -0.0


def regularise(table: dict[float, float]) -> dict[float, float]:
    """``table`` with a count of 1e-3 at each score it lacks of those a pair may have: the
    pentanomial's five, or for any other table 0 and 1 (module docstring)."""
    support = PENTANOMIAL if set(table) <= set(PENTANOMIAL) else (0.0, 1.0)
    out = {s: c for s, c in table.items() if c > 0}
    for s in support:
        if out.get(s, 0) <= 0:
            out[s] = PSEUDO
    return out


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (the inverse of its distribution function), by bisection on
    the regularised incomplete beta function."""
    if df <= 0:
        return math.inf
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return (lo + hi) / 2.0


def t_cdf(x: float, df: float) -> float:
    """Student's t distribution function."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + x * x))
    return 1.0 - tail if x > 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction
    (modified Lentz), on the side where it converges fast."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * f / a


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


#: the small-sample rule (module docstring): pseudo pairs, and the variance of each
PRIOR_PAIRS = 2
PRIOR_VARIANCE = 1 / 8


def pair_variance(pairs: float, variance: float) -> float:
    """The variance of one pair's score that intervals, LOS and the normal SPRT use: the
    sample's, but never below ``PRIOR_PAIRS * PRIOR_VARIANCE / (pairs + PRIOR_PAIRS)``
    (module docstring: few pairs, or pairs all alike, never look precise)."""
    return max(variance, PRIOR_PAIRS * PRIOR_VARIANCE / (pairs + PRIOR_PAIRS))


def _moments(table: dict[float, float]) -> tuple[float, float, float]:
    n = float(sum(table.values()))
    if n <= 0:
        return 0.0, 0.5, 0.0
    mean = round(sum(s * c for s, c in table.items()) / n, 12)
    var = sum(c * (s - mean) ** 2 for s, c in table.items()) / n
    return n, mean, var


def estimate(table: dict[float, float], quantile: str = "t") -> Estimate:
    """Score, Elo with its 95 % interval and LOS of a table ``{pair score: count}``,
    regularised, its variance never below the small-sample rule's (:func:`pair_variance`);
    the interval Student's (``quantile="t"``, df = pairs - 1) or the normal one
    (``"normal"``, fishtest's). ``pairs`` counts the pairs played."""
    played = float(sum(table.values()))
    if played <= 0:
        return Estimate(0, 0.5, 0.0, 0.0, -elo(1.0), elo(1.0), 0.5)
    n, mean, var = _moments(regularise(table))
    var = pair_variance(played, var)
    q = Z975 if quantile == "normal" or played < 2 else t_quantile(0.975, played - 1)
    error = q * math.sqrt(var / n)
    los = phi((mean - 0.5) / math.sqrt(var / n))
    return Estimate(played, mean, var, elo(mean), elo(mean - error), elo(mean + error), los)


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
    logistic Elo, as fishtest computes it, on the regularised table (module docstring). 0
    while it cannot tell: an empty table, or the hypotheses' scores outside its range."""
    if not any(c > 0 for c in table.values()):
        return 0.0
    table = regularise(table)
    n = float(sum(table.values()))
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if len(table) < 2 or not min(table) < min(s0, s1) <= max(s0, s1) < max(table):
        return 0.0
    pdf = sorted((s, c / n) for s, c in table.items())
    p0, p1 = _fit(pdf, s0), _fit(pdf, s1)
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in
                   zip(pdf, p0, p1, strict=True))


#: pairs before the normal approximation's LLR counts (:func:`llr_normal`)
NORMAL_MIN_PAIRS = 30


def llr_normal(pairs: float, mean: float, variance: float, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 against H0 for pair scores of any value (luck-adjusted
    ones, ``arena.leagues.match``), from their count, mean and variance: the normal
    approximation ``N (s1 - s0) (2 m - s0 - s1) / (2 v)``, the LLR of two normal means with
    the sample's variance (fishtest's before the GSPRT; the two agree as pairs grow). 0 while
    it cannot tell: before ``NORMAL_MIN_PAIRS`` pairs, whose variance is too uncertain (from
    the second pair on, 16 % of simulated SPRTs under H0 accepted H1, against alpha's 5 %:
    tests/test_luck.py). The variance is the small-sample rule's (:func:`pair_variance`):
    pairs that all tie still say something, and the test ends."""
    if pairs < NORMAL_MIN_PAIRS:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return pairs * (s1 - s0) * (2 * mean - s0 - s1) / (2 * pair_variance(pairs, variance))


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


def sprt_normal(pairs: float, mean: float, variance: float, elo0: float, elo1: float,
                alpha: float = 0.05, beta: float = 0.05) -> Sprt:
    """The SPRT on pair scores of any value, from their moments (:func:`llr_normal`)."""
    if not elo1 > elo0:
        raise ValueError("elo1 must be greater than elo0")
    lower, upper = sprt_bounds(alpha, beta)
    return Sprt(elo0, elo1, alpha, beta, llr_normal(pairs, mean, variance, elo0, elo1),
                lower, upper)
