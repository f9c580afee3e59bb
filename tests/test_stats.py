"""arena.leagues.stats against published reference values and against simulated matches."""

import math
import random

import numpy as np
import pytest
import scipy.optimize
import scipy.stats

from arena.leagues import stats
from arena.leagues.stats import estimate, expected_score, llr, pentanomial, sprt


@pytest.mark.parametrize("counts, elo, error", [
    ([398, 4112, 7672, 4336, 430], 2.95, 2.18),  # published OpenBench results
    ([56, 1144, 2546, 1310, 77], 7.04, 3.62),
])
def test_elo_and_its_interval_match_published_openbench_results(counts, elo, error):
    e = estimate(pentanomial(counts))
    assert round(e.elo, 2) == elo
    assert round(e.elo_error, 2) == error
    assert e.pairs == sum(counts)


# fishtest's LLRcalc.LLR_logistic(elo0, elo1, results) on these pentanomials
# (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py, commit 0753fcc6), computed
# with fishtest's code, which solves the same equation with scipy's brentq
FISHTEST_LLR = [
    ([398, 4112, 7672, 4336, 430], 0, 5, 1.8293864917189924),
    ([398, 4112, 7672, 4336, 430], -1.75, 0.25, 5.990259012547874),
    ([56, 1144, 2546, 1310, 77], 0, 5, 6.645342700833059),
    ([56, 1144, 2546, 1310, 77], 0, 10, 5.972520582086756),
    ([0, 3, 10, 30, 50], 0, 50, 12.423723631093596),  # zero counts: regularised to 1e-3
    ([10, 5, 2, 5, 10], -1.75, 0.25, 0.0005655332872556151),
    ([0, 0, 0, 0, 3], -1.75, 0.25, 0.0173182130855859),
    ([12, 40, 90, 41, 10], 0, 10, -0.5620069568750187),
]


@pytest.mark.parametrize("counts, elo0, elo1, expected", FISHTEST_LLR)
def test_llr_matches_fishtests_computation(counts, elo0, elo1, expected):
    assert llr(pentanomial(counts), elo0, elo1) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_the_constrained_fit_solves_the_secular_equation_as_brentq_does():
    rng = random.Random(5)
    for _ in range(200):
        table = {s: rng.randint(1, 500) for s in stats.PENTANOMIAL}
        n = sum(table.values())
        pdf = sorted((s, c / n) for s, c in table.items())
        target = rng.uniform(0.05, 0.95)
        shifted = [(a - target, p) for a, p in pdf]
        x = scipy.optimize.brentq(lambda x, sh=shifted: sum(p * a / (1 + x * a) for a, p in sh),
                                  -1 / shifted[-1][0] + 1e-9, -1 / shifted[0][0] - 1e-9)
        mine = stats._fit(pdf, target)
        theirs = [p / (1 + x * a) for a, p in shifted]
        assert mine == pytest.approx(theirs, rel=1e-7)
        assert sum(mine) == pytest.approx(1)
        assert sum(a * p for (a, _), p in zip(pdf, mine, strict=True)) == pytest.approx(target)


def test_bounds_and_decisions():
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    assert (round(lower, 2), round(upper, 2)) == (-2.94, 2.94)
    assert sprt(pentanomial([398, 4112, 7672, 4336, 430]), -1.75, 0.25).decision == "H1"
    assert sprt(pentanomial([430, 4336, 7672, 4112, 398]), 0, 5).decision == "H0"
    assert sprt(pentanomial([40, 41, 80, 41, 40]), 0, 5).decision is None


@pytest.mark.parametrize("call", [
    lambda: sprt(pentanomial([1, 2, 3, 4, 5]), 5, 5),  # elo1 <= elo0
    lambda: sprt(pentanomial([1, 2, 3, 4, 5]), 0, 5, alpha=0),
    lambda: sprt(pentanomial([1, 2, 3, 4, 5]), 0, 5, beta=1.5),
    lambda: pentanomial([1, 2, 3]),
    lambda: pentanomial([1, 2, 3, -4, 5]),
])
def test_bad_parameters_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_an_empty_table_says_nothing():
    e = estimate({})
    assert e.pairs == 0 and e.score == 0.5 and e.elo == 0.0
    assert llr({}, 0, 5) == 0.0


@pytest.mark.parametrize("counts, elo, error", [
    ([0, 0, 0, 0, 10], 1199.8, 188.9),  # ten double wins
    ([0, 0, 7, 0, 0], 0.0, 4.9),  # seven split pairs
])
def test_a_table_of_one_score_is_regularised_as_fishtest_does(counts, elo, error):
    """fishtest's stat_util.get_elo on these pentanomials (zero counts 1e-3, scores kept
    within [0.001, 0.999]): a width, and no infinite Elo. So few pairs all alike say less
    than that: arena's interval (the small-sample rule) is wider still."""
    n, mean, var = stats._moments(stats.regularise(pentanomial(counts)))
    half = stats.Z975 * math.sqrt(var / n)
    fishtest = (stats.elo(mean), (stats.elo(mean + half) - stats.elo(mean - half)) / 2)
    assert (round(fishtest[0], 1), round(fishtest[1], 1)) == (elo, error)
    e = estimate(pentanomial(counts), quantile="normal")
    assert round(e.elo, 1) == elo and e.elo_error > 2 * error
    assert e.pairs == sum(counts)
    assert all(math.isfinite(x) for x in (e.elo, e.elo_low, e.elo_high))
    assert estimate(pentanomial(counts)).elo_error > e.elo_error  # Student's: wider still


@pytest.mark.parametrize("table, low", [
    ({0.5: 1}, -1199.8), ({0.5: 2}, -1199.8), ({0.5: 3}, -1199.8),  # 1-3 level deals
    ({0.0: 1, 1.0: 1}, -1199.8),  # two split pairs
    ({0.5: 5}, -176.8), ({0.25: 2, 0.75: 3}, None),  # five level or split deals
    ({0.5: 100}, -6.8), (pentanomial([0, 0, 100, 0, 0]), -6.8),  # a hundred alike
])
def test_few_pairs_or_pairs_all_alike_never_look_precise(table, low):
    """The small-sample rule (stats.pair_variance): a pair's variance never below 2 pseudo
    pairs of 1/8 among N + 2. Three level deals say nothing (any Elo), five little, a
    hundred ties +-6.8; a level table is +0 exactly, and wider the fewer its pairs."""
    e = estimate(table)
    n = sum(table.values())
    assert e.variance >= stats.PRIOR_PAIRS * stats.PRIOR_VARIANCE / (n + stats.PRIOR_PAIRS)
    if low is not None:
        assert round(e.elo_low, 1) == low and round(e.elo_high, 1) == -low
        assert e.elo == 0.0 and math.copysign(1, e.elo) == 1 and e.los == 0.5
    assert e.elo_low < -100 if n <= 5 else e.elo_high - e.elo_low < 20
    fewer = estimate({s: c / 2 for s, c in table.items()}) if n >= 4 else None
    assert fewer is None or fewer.elo_error >= e.elo_error


def test_the_rule_changes_nothing_where_the_pairs_carry_their_own_spread():
    for counts in ([398, 4112, 7672, 4336, 430], [1, 2, 3, 4, 5]):
        n, mean, var = stats._moments(stats.regularise(pentanomial(counts)))
        assert estimate(pentanomial(counts)).variance == var  # the sample's own


def test_a_field_table_is_regularised_so_its_sprt_moves():
    """A candidate never placing worse than the baseline (no pair below 1/2): the table is
    given its ends, 0 and 1, and the LLR is no longer 0."""
    table = {0.5: 70, 0.625: 20, 0.75: 10}
    e = estimate(table)
    assert round(e.elo, 1) == 34.9 and e.elo_low > 0
    assert llr(table, 0, 10) > 1.0
    assert sprt({s: 2 * c for s, c in table.items()}, 0, 10).decision == "H1"  # it ends


def test_the_interval_is_students_as_openbench_gives_it_for_few_pairs():
    """OpenBench (since late 2024): t quantile with pairs - 1 degrees of freedom."""
    e = estimate(pentanomial([1, 2, 3, 4, 5]))
    assert (round(e.elo_low, 1), round(e.elo_high, 1)) == (-4.2, 287.2)


@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 14, 30, 100, 1000, 100000])
def test_the_t_quantile_is_scipys(df):
    assert stats.t_quantile(0.975, df) == pytest.approx(scipy.stats.t.ppf(0.975, df),
                                                        rel=1e-10)


def test_los_is_the_normal_probability_of_a_positive_difference():
    e = estimate(pentanomial([398, 4112, 7672, 4336, 430]))
    z = (e.score - 0.5) / math.sqrt(e.variance / e.pairs)
    assert e.los == pytest.approx(scipy.stats.norm.cdf(z), rel=1e-12)


def test_the_interval_covers_the_true_elo_about_95_percent_of_the_time():
    """400 matches of 100,000 pairs drawn from a known pentanomial distribution."""
    p = np.array([0.05, 0.22, 0.40, 0.25, 0.08])
    true = stats.elo(float(np.dot(p, stats.PENTANOMIAL)))
    draws = np.random.default_rng(1).multinomial(100_000, p, size=400)
    covered = 0
    for counts in draws:
        e = estimate(pentanomial(counts.tolist()))
        covered += e.elo_low <= true <= e.elo_high
    assert 0.92 <= covered / 400 <= 0.98


def _run(rng, p, elo0, elo1, step=10, cap=20_000):
    counts = np.zeros(5, dtype=np.int64)
    while counts.sum() < cap:
        counts += rng.multinomial(step, p)
        decision = sprt(pentanomial(counts.tolist()), elo0, elo1).decision
        if decision:
            return decision
    return None


def test_sprts_false_positive_rate_is_near_alpha():
    """2,000 SPRTs of H0: Elo 0 against H1: Elo 30 where the truth is Elo 0: H1 is accepted
    in about alpha = 5 % of them (a little less, as the LLR is looked at every 10 pairs)."""
    p = np.array([0.05, 0.25, 0.40, 0.25, 0.05])  # an expected score of exactly 1/2
    rng = np.random.default_rng(7)
    runs = [_run(rng, p, 0, 30) for _ in range(2000)]
    assert runs.count(None) == 0
    assert 0.025 <= runs.count("H1") / 2000 <= 0.065


def test_sprt_accepts_h1_when_the_truth_is_elo1():
    s1 = expected_score(30)
    moved = 2 * (s1 - 0.5)  # pairs moved from LD to WD: the score of Elo 30, the same spread
    p = np.array([0.05, 0.25 - moved, 0.40, 0.25 + moved, 0.05])
    assert float(np.dot(p, stats.PENTANOMIAL)) == pytest.approx(s1)
    rng = np.random.default_rng(8)
    runs = [_run(rng, p, 0, 30) for _ in range(500)]
    assert runs.count("H1") / 500 >= 0.90
