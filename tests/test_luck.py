"""Luck-adjusted scores (arena.luck): chance corrections with mean zero, and matches scored
on them with unchanged means and error rates."""

import random
import statistics
from itertools import permutations

import pytest
from conftest import position, seat

from arena.games.cherki import GAME as CHERKI
from arena.games.tractor import GAME as TRACTOR
from arena.games.vandtia import GAME as VANDTIA
from arena.leagues import stats
from arena.leagues.match import BETA_AFTER, SprtSpec, Tally
from arena.luck import correction, luck_value, luck_weights, match_luck, outcomes, place_scores
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy import GreedyVandtia
from arena_bots.greedy_cherki import GreedyCherki
from arena_bots.greedy_tractor import GreedyTractor

GAMES = [(VANDTIA, "cardems", 2), (VANDTIA, "swedish", 4), (VANDTIA, "german", 3),
         (VANDTIA, "swedish", 6), (CHERKI, "standard", 3), (TRACTOR, "deal", 4),
         (TRACTOR, "match", 4)]


@pytest.mark.parametrize("game, variant, players", GAMES,
                         ids=[f"{g.name}-{v}-{n}" for g, v, n in GAMES])
def test_the_luck_model_reads_no_card_nobody_has_seen(game, variant, players):
    """At every step of random games, the unseen cards redealt (and a Tractor match's later
    deals drawn afresh) change neither the features nor the value: the value is a function
    of what the seats know between them, which the correction's mean of zero rests on."""
    rng = random.Random(7)
    steps = 0
    weights = luck_weights(game, variant)
    assert weights
    for seed in range(3 if game is not TRACTOR else 1):
        state = game.new_state(variant, players, seed)
        while not state.is_over() and steps < 1500:
            unseen = game.unseen(state)
            for _ in range(2):
                cards = list(unseen)
                rng.shuffle(cards)
                other = game.redealt(state, cards, rng)
                assert sorted(game.unseen(other)) == sorted(unseen)
                assert game.luck_features(other) == game.luck_features(state)
                assert all(len(f) == len(weights) for f in game.luck_features(state))
                assert luck_value(game, other) == luck_value(game, state)
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
    assert steps > 100


def _exact_mean_zero(game, state, action):
    """The correction for ``action`` over every arrangement of the unseen cards of
    ``state`` (each the true one in turn, its outcomes every arrangement): their mean, and
    how far they spread."""
    unseen = game.unseen(state)
    orders = sorted(set(permutations(unseen)))
    rng = random.Random(1)
    corrections = []
    for order in orders:
        before = game.redealt(state, list(order), rng)
        after = before.copy()
        after.apply(action)
        assert len(outcomes(game, before, rng, samples=len(orders))) == len(orders)
        corrections.append(correction(game, before, action, after, rng, len(orders)))
    means = [statistics.fmean(c[p] for c in corrections) for p in range(len(corrections[0]))]
    spread = max(abs(c[0]) for c in corrections)
    return means, spread


def test_a_stock_draw_and_a_face_down_flip_correct_by_zero_on_average_exactly():
    """Vändtia: a play refilled from the stock, and a face-down card turned, over every way
    the unseen cards could lie."""
    draw = position(seats=[seat(["9S", "4H", "5H"], ["3D", "6D", "8D"], ["KD"]),
                           seat(["3S", "4S", "5S"], ["6S", "7S", "8S"])],
                    stock=["AS", "2C", "7D"], to_move=0)
    flip = position(seats=[seat(facedown=["KD", "3C"]), seat(["3S"], facedown=["4C"])],
                    pile=["9H"], to_move=0)
    for state, action in ((draw, "play 9S"), (flip, "flip 0")):
        means, spread = _exact_mean_zero(VANDTIA, state, action)
        assert all(abs(m) < 1e-12 for m in means), means
        assert spread > 0.001  # a real chance event: its outcomes are worth different amounts


def test_a_cherki_draw_corrects_by_zero_on_average_exactly():
    hands = ["1C 1S 1M 2C 2S 2M 3C 4C", "5C 5S 5M 6C 6S 6M 7C 8C", "9C 9S 9M WF WF RF RF OT"]
    state = CHERKI.from_deal("standard", {"hands": [h.split() for h in hands],
                                          "stock": ["3S", "4S", "OT"], "partial": True,
                                          "dealer": 2})
    means, spread = _exact_mean_zero(CHERKI, state, "draw")
    assert all(abs(m) < 1e-12 for m in means) and spread > 0.001


def test_a_tractor_kitty_turned_up_corrects_by_zero_on_average():
    """Nobody declares, so the kitty's first card names trumps: over 600 true orders of the
    kitty, each corrected against 8 sampled ones, the mean is zero within its error."""
    before = TRACTOR.new_state("deal", 4, 11)
    while True:  # every seat passes, up to the pass that ends the bidding
        after = before.copy()
        after.apply("pass")
        if after.phase != "bid":
            break
        before = after
    rng = random.Random(3)
    values = []
    for _ in range(600):
        cards = TRACTOR.unseen(before)
        rng.shuffle(cards)
        true = TRACTOR.redealt(before, cards, rng)
        after = true.copy()
        after.apply("pass")
        assert after.phase != "bid" and after.kitty_public
        values.append(correction(TRACTOR, true, "pass", after, rng)[0])
    mean, error = statistics.fmean(values), statistics.stdev(values) / len(values) ** 0.5
    assert error > 0 and abs(mean) < 4 * error


class Noisy:
    def __init__(self, greedy, noise, seed):
        self.greedy, self.noise, self.rng = greedy, noise, random.Random(seed)

    def act(self, observation, legal):
        if self.rng.random() < self.noise:
            return self.rng.choice(legal)
        return self.greedy.act(observation, legal)


def _adjusted_match(game, variant, players, make, pairs, seed=0):
    """A tally of ``pairs`` duplicate deals played in process: ``make(side, deal)`` the bot
    of the candidate's side (0) or the baseline's (1), with ``players - 2`` baseline copies
    around in a field."""
    field = players > 2 and not game.teams
    tally = Tally("a", "b", 2, field=field, adjust=True)
    for deal in range(pairs):
        deal_seed = seed + deal
        if field:
            where = deal % players
            fixtures = [["f"] * players, ["f"] * players]
            fixtures[0][where], fixtures[1][where] = "a", "b"
        elif game.teams:
            fixtures = [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
        else:
            fixtures = [["a", "b"], ["b", "a"]]
        for seats in fixtures:
            bots = [PythonBot(make(0 if s == "a" else 1, deal * 8 + i), s)
                    for i, s in enumerate(seats)]
            match, _ = play_match(game, variant, bots, deal_seed, seats)
            tally.add(seats, match.result.ranks,
                      match_luck(game, variant, players, deal_seed, match.actions))
    return tally


CASES = {
    "vandtia": (VANDTIA, "cardems", 2, GreedyVandtia, 120),
    "cherki": (CHERKI, "standard", 3, GreedyCherki, 60),
    "tractor": (TRACTOR, "deal", 4, GreedyTractor, 40),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_adjusted_scores_are_unbiased(name):
    """Two copies of one bot (true Elo 0): the adjusted mean is 1/2 within its interval;
    a better bot against a worse: adjusted and raw means agree within their intervals."""
    game, variant, players, greedy, pairs = CASES[name]

    def same(side, seed):  # copies whose random streams differ: pairs are not all ½
        return Noisy(greedy(), 0.1, seed + 7919 * side)

    def apart(side, seed):
        return Noisy(greedy(), 0.0 if side == 0 else 0.5, seed)

    alike = _adjusted_match(game, variant, players, same, pairs)
    e = alike.estimate()
    assert e.elo_low < 0 < e.elo_high and alike.pair_count == pairs
    assert len(alike.raw_scores()) > 1 and len(alike.adjusted) > 1  # not ½ by construction
    differ = _adjusted_match(game, variant, players, apart, pairs, seed=10_000)
    adjusted, raw = differ.estimate(), differ.raw_estimate()
    assert raw.elo_low > 0  # the sample tells the two apart
    assert adjusted.elo_low < raw.elo_high and raw.elo_low < adjusted.elo_high
    assert differ.adjusted != differ.raw_scores()  # the luck did change the scores


def test_a_tally_takes_a_fitted_multiple_of_each_pairs_luck():
    two = Tally("a", "b", 2, adjust=True)
    two.add(("a", "b"), [1, 2], [0.25, -0.25])  # won: the luck added 0.25 to the 1
    two.add(("b", "a"), [1, 2], [0.1, -0.1])  # lost: the luck took 0.1 from the 0
    assert two.fit == (1, 0.5, 0.075, 0.075 ** 2, 0.5 * 0.075)  # a pair's luck: the mean
    assert two.adjusted == {0.5: 1} and two.pairs == [0, 0, 1, 0, 0]  # raw while beta is 0
    teams = Tally("a", "b", 2, adjust=True)  # a team's seats gap 2/3 in place score
    teams.add(("a", "b", "a", "b"), [1, 2, 1, 2], [0.2, -0.2, 0.2, -0.2])
    teams.add(("b", "a", "b", "a"), [1, 1, 1, 1], [0.0] * 4)
    assert teams.fit[2] == pytest.approx((0.4 / (4 / 3) + 0) / 2)
    field = Tally("a", "b", field=True, adjust=True)
    field.add(("a", "f", "f"), [1, 2, 2], [0.3, -0.15, -0.15])
    field.add(("b", "f", "f"), [2, 1, 2], [-0.2, 0.1, 0.1])
    # the gap 1 - 0.25 owes 0.3 - (-0.2) to the luck: the pair (0.875) owes half of it
    assert field.fit[1:3] == (0.875, 0.25) and field.table == {0.875: 1}
    with pytest.raises(Exception, match="needs each fixture's luck"):
        Tally("a", "b", 2, adjust=True).add(("a", "b"), [1, 2])
    # scores that are all luck: beta goes to 1 and takes it all off, from BETA_AFTER pairs
    lucky = Tally("a", "b", 2, adjust=True)
    rng = random.Random(2)
    for _ in range(40):
        luck = rng.uniform(-0.4, 0.4)
        lucky._count(0.5 + luck, luck)
    assert lucky.beta() == pytest.approx(1.0)
    assert sum(n for s, n in lucky.adjusted.items() if s == 0.5) == 40 - BETA_AFTER


def test_the_sprt_on_adjusted_scores_keeps_its_false_positive_rate():
    """Pair scores of any value under H0 (the mean exactly at elo0): 400 SPRTs of elo0=0
    against elo1=30 drawn from a skewed, lumpy distribution accept H1 no more often than
    alpha (5 %) allows, beyond three standard errors of the simulation."""
    rng = random.Random(5)
    pool = [rng.choice((0.0, 0.25, 0.5, 0.5, 0.75, 1.0)) + rng.gauss(0, 0.1) * rng.random()
            for _ in range(5000)]
    shift = 0.5 - statistics.fmean(pool)
    pool = [x + shift for x in pool]
    accepted = decided = 0
    for _ in range(400):
        tally = Tally("a", "b", 2, SprtSpec(0, 30), adjust=True)
        for _pair in range(20000):
            tally._count(rng.choice(pool), 0.0)
            test = tally.sprt()
            if test.decision:
                break
        decided += test.decision is not None
        accepted += test.decision == "H1"
    assert decided == 400
    assert accepted <= 400 * 0.05 + 3 * (400 * 0.05 * 0.95) ** 0.5, accepted


@pytest.mark.slow
def test_two_copies_differing_in_their_random_stream_are_rarely_judged_better():
    """Two copies of one noisy greedy bot, each with its own random stream, play 300
    duplicate deals in process (real games, real luck): the pairs vary, and the adjusted
    estimate holds Elo 0. Their (raw, luck) pairs, with the mirror of each (the copies are
    exchangeable, so H0 - Elo 0 - holds exactly), feed 300 adjusted SPRTs of elo0=0 against
    elo1=20: H1 is accepted no more often than alpha (5 %) allows, beyond three standard
    errors, and every test ends."""
    pairs = []
    counted = Tally._count

    def keep(self, raw, luck):
        pairs.append((raw, luck))
        counted(self, raw, luck)

    def copy(side, seed):
        return Noisy(GreedyVandtia(), 0.3, seed + 7919 * side)

    Tally._count = keep
    try:
        played = _adjusted_match(VANDTIA, "cardems", 2, copy, 300, seed=20_000)
    finally:
        Tally._count = counted
    assert len({raw for raw, _ in pairs}) >= 3 and played.pair_count == 300
    e = played.estimate()
    assert e.elo_low < 0 < e.elo_high
    pool = pairs + [(1.0 - raw, -luck) for raw, luck in pairs]
    rng = random.Random(3)
    accepted = decided = 0
    for _ in range(300):
        tally = Tally("a", "b", 2, SprtSpec(0, 20), adjust=True)
        for _pair in range(20_000):
            tally._count(*rng.choice(pool))
            test = tally.sprt()
            if test.decision:
                break
        decided += test.decision is not None
        accepted += test.decision == "H1"
    assert decided == 300
    assert accepted <= 300 * 0.05 + 3 * (300 * 0.05 * 0.95) ** 0.5, accepted


def test_the_adjusted_sprt_decides_when_every_pair_ties():
    """Two copies of one bot with one random stream mirror each other: every pair is
    exactly ½. The adjusted SPRT accepts H0 (for a positive elo1), as the raw GSPRT does,
    instead of running to the game cap."""
    adjusted = Tally("a", "b", 2, SprtSpec(0, 10), adjust=True)
    raw = Tally("a", "b", 2, SprtSpec(0, 10))
    ends = {}
    for tally, name in ((adjusted, "adjusted"), (raw, "raw")):
        for pair in range(1, 1000):
            tally.add(("a", "b"), [1, 2], [0.0, 0.0])
            if tally.add(("b", "a"), [1, 2], [0.0, 0.0]):
                ends[name] = pair
                break
    assert adjusted.decision == raw.decision == "H0"
    assert 50 < ends["adjusted"] < 200 and 50 < ends["raw"] < 200, ends


def test_the_normal_llr_grows_with_evidence_and_is_zero_without_it():
    assert stats.llr_normal(stats.NORMAL_MIN_PAIRS - 1, 0.9, 0.1, 0, 50) == 0.0
    assert stats.llr_normal(stats.NORMAL_MIN_PAIRS, 0.9, 0.1, 0, 50) > 0
    assert stats.llr_normal(100, 0.6, 0.0, 0, 50) > 0  # pairs all alike still tell
    s0, s1 = stats.expected_score(0), stats.expected_score(50)
    assert stats.llr_normal(100, (s0 + s1) / 2, 0.05, 0, 50) == pytest.approx(0.0, abs=1e-12)
    assert stats.llr_normal(400, s1, 0.05, 0, 50) > stats.llr_normal(100, s1, 0.05, 0, 50) > 0


def test_the_deal_correction_compares_the_deal_with_fresh_ones():
    """A match's luck starts with its deal: the same seed and secret give the same luck to
    the bit, another secret other draws (and so other sampled means)."""
    match, _ = play_match(VANDTIA, "cardems", [PythonBot(GreedyVandtia(), "a"),
                                               PythonBot(GreedyVandtia(), "b")], 4)
    one = match_luck(VANDTIA, "cardems", 2, 4, match.actions, "s1")
    assert one == match_luck(VANDTIA, "cardems", 2, 4, match.actions, "s1")
    assert one != match_luck(VANDTIA, "cardems", 2, 4, match.actions, "s2")
    assert abs(sum(one)) < 1e-9  # two seats: what one gains the other loses
    assert place_scores([1, 2, 2]) == [1.0, 0.25, 0.25]


def test_a_season_run_with_adjust_luck_shows_luck_adjusted_pairs(tmp_path):
    """``season run --adjust luck`` stores each match's luck; ``season show --pairs`` then
    scores the pairs of bots on adjusted games - the same deals and results as without."""
    import subprocess
    import sys

    def arena(*args):
        out = subprocess.run([sys.executable, "-m", "arena", "--db",
                              f"sqlite:///{tmp_path}/s.db", *args], capture_output=True,
                             text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout

    for name, adjust in (("plain", "none"), ("lucky", "luck")):
        arena("season", "run", "vandtia", "--bots", "greedy,random", "--rounds", "4",
              "--seed", "2", "--public-seed", "--name", name, "--adjust", adjust)
    plain, lucky = (arena("season", "show", name, "--pairs") for name in ("plain", "lucky"))
    assert "luck-adjusted" in lucky and "luck-adjusted" not in plain
    row = [line for line in lucky.splitlines() if line.startswith("greedy vs random")]
    assert row and row[0] not in plain  # other scores on the same deals
    from arena import db

    engine = db.connect(f"sqlite:///{tmp_path}/s.db")
    rows = [list(db.season_results(engine, db.get_season(engine, n).id, luck=True))
            for n in ("plain", "lucky")]
    assert [r[:6] for r in rows[0]] == [r[:6] for r in rows[1]]
    assert all(r[6] is None for r in rows[0]) and all(len(r[6]) == 2 for r in rows[1])
