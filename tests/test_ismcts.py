"""``ismcts``: reproducible, resets between matches, never illegal."""

import random
import subprocess
import sys

import pytest

from arena.games.cherki import GAME as CHERKI
from arena.games.tractor import GAME as TRACTOR
from arena.games.vandtia import GAME as VANDTIA
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.ismcts import ISMCTS
from arena_bots.randombot import RandomBot


class Tuned(PythonBot):
    def __init__(self, **options):
        super().__init__(ISMCTS(), "ismcts")
        self.given = options

    def start(self, info):
        super().start({**info, "options": self.given})


def test_ismcts_is_reproducible_with_the_same_seed_and_options():
    runs = [play_match(VANDTIA, "cardems", [Tuned(iterations=30), PythonBot(RandomBot())],
                       5)[0].actions for _ in range(2)]
    assert runs[0] == runs[1]
    other = play_match(VANDTIA, "cardems", [Tuned(iterations=31), PythonBot(RandomBot())],
                       5)[0].actions
    assert other != runs[0]  # the options are used
    for sweep in (0, 1):
        table = [Tuned(iterations=20, sweep=sweep), PythonBot(RandomBot()),
                 PythonBot(RandomBot())]
        cherki = [play_match(CHERKI, "standard", table, 3)[0].actions for _ in range(2)]
        assert cherki[0] == cherki[1]


@pytest.mark.parametrize("game, variants", [
    (VANDTIA, [("cardems", 2), ("swedish", 3), ("german", 4), ("swedish", 6)]),
    (CHERKI, [("standard", 3)]),
    (TRACTOR, [("deal", 4)]),
])
@pytest.mark.slow
def test_ismcts_never_plays_an_illegal_action_in_200_random_games(game, variants):
    rng = random.Random(0)
    for g in range(200):
        variant, players = variants[g % len(variants)]
        seats = [Tuned(iterations=1 if game is TRACTOR else 4, sweep=g % 2)] + [
            PythonBot(RandomBot()) for _ in range(players - 1)]
        rng.shuffle(seats)
        match, _ = play_match(game, variant, seats, g)
        assert match.result.faults == [None] * players, match.result.faults


@pytest.mark.slow
def test_check_bot_passes_ismcts():
    run = subprocess.run([sys.executable, "-m", "arena", "check-bot", "ismcts:iterations=3",
                          "--matches", "2"], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("ok    vandtia") == 3 and "resets between matches" in run.stdout
    assert run.stdout.count("ok    cherki") == 1 and run.stdout.count("ok    tractor") == 2


def test_a_season_of_ismcts_and_greedy_times_out_nobody_and_shows_time_per_move(tmp_path):
    db = f"sqlite:///{tmp_path}/a.db"
    base = [sys.executable, "-m", "arena", "--db", db]
    run = subprocess.run(base + ["season", "run", "vandtia", "--bots", "ismcts,greedy",
                                 "--rounds", "2", "--workers", "2", "--name", "s"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    from arena import db as store

    engine = store.connect(db, create=False)
    season = store.get_season(engine, "s")
    seats = [s for _, match in store.season_matches(engine, season.id) for s in match]
    assert len(seats) == 8 and all(s.fault is None for s in seats)  # no timeout, no fault
    assert all(s.move_mean_s is not None and 0 < s.move_mean_s <= s.move_max_s
               for s in seats)
    times = store.move_times(engine, season.id)
    assert set(times) == {"ismcts", "greedy"} and times["ismcts"][2] == 4
    show = subprocess.run(base + ["season", "show", "s"], capture_output=True, text=True,
                          timeout=600).stdout
    assert "time per move" in show and "max ms" in show


def test_a_season_with_a_clock_bound_entrant_says_it_is_not_reproducible(tmp_path):
    db = f"sqlite:///{tmp_path}/a.db"
    base = [sys.executable, "-m", "arena", "--db", db]
    run = subprocess.run(base + ["season", "run", "vandtia", "--bots",
                                 "ismcts:think_s=0.01,greedy", "--rounds", "1", "--name", "s"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    assert "ismcts:think_s=0.01 think(s) by the clock" in run.stdout
    assert "not reproducible" in run.stdout
    show = subprocess.run(base + ["season", "show", "s"], capture_output=True, text=True,
                          timeout=600).stdout
    assert "not reproducible" in show


def test_ismcts_credits_greedys_move_with_its_prior():
    """With a prior far above its iterations, ismcts plays greedy's every move; without
    one, its own."""
    from arena_bots.greedy_tractor import GreedyTractor

    def actions(make):
        seats = [make(), PythonBot(RandomBot()), make(), PythonBot(RandomBot())]
        return play_match(TRACTOR, "deal", seats, 11)[0].actions

    greedy = actions(lambda: PythonBot(GreedyTractor()))
    assert actions(lambda: Tuned(iterations=4, prior=1000)) == greedy
    assert actions(lambda: Tuned(iterations=4, prior=0)) != greedy


def test_ismcts_rewards_a_tractor_deal_by_its_winner_and_points():
    """Half the rank (the winners of a deal may go up no levels), half the team's share of
    the points: the winners always get more, and more points is more for the attackers."""
    bot = ISMCTS()
    bot.start({"seed": 0, "game": "tractor", "players": 4})
    seen = []
    for seed in range(30):
        state = TRACTOR.new_state("deal", 4, seed)
        result = state.playout(random.Random(seed), greedy=0.7)
        reward = bot.reward(state, result)
        winners = [p for p in range(4) if result.ranks[p] == 1]
        assert min(reward[p] for p in winners) > max(reward[p] for p in range(4)
                                                     if p not in winners)
        attackers = state.attackers
        seen.append((state.points, reward[attackers]))
    seen.sort()
    assert [r for _, r in seen] == sorted(r for _, r in seen)  # monotone in points
    assert len({p for p, _ in seen}) > 5


def test_ismcts_plays_its_heuristics_move_in_the_phase_named_by_heuristic_in():
    from arena_bots.efficient_cherki import EfficientCherki
    from arena_bots.greedy_cherki import GreedyCherki

    bot, seen = Tuned(iterations=20, sweep=True, heuristic_in="discard"), []
    search = bot.act

    def act(observation, legal):
        action = search(observation, legal)
        seen.append((observation, list(legal), action))
        return action

    bot.act = act
    for seed in range(8):
        play_match(CHERKI, "standard", [bot, PythonBot(GreedyCherki()),
                                        PythonBot(RandomBot())], seed)
    discards = [(o, legal, a) for o, legal, a in seen
                if o["phase"] == "discard" and len(legal) > 1]
    assert len(discards) > 20
    assert all(EfficientCherki().act(o, legal) == a for o, legal, a in discards)


def test_ismcts_spends_200_playouts_at_two_seats_and_800_at_more_by_default():
    """``iterations`` 0, the default, is 200 at a Vändtia table of two and 800 at more
    (``bots/ismcts.py`` says why): the same moves as those budgets given."""
    for variant, players, budget in (("cardems", 2, 200), ("swedish", 3, 800)):
        def table(players=players, **options):
            return [Tuned(**options)] + [PythonBot(RandomBot()) for _ in range(players - 1)]

        default = play_match(VANDTIA, variant, table(), 4)[0].actions
        assert default == play_match(VANDTIA, variant, table(iterations=budget), 4)[0].actions
        assert default != play_match(VANDTIA, variant, table(iterations=budget + 1),
                                     4)[0].actions
