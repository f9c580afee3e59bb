"""Tractor in leagues and on the command line: teams of one bot, duplicate deals with the
teams' cards swapped, team ratings, and the reference bots."""

import subprocess
import sys

from arena.games.tractor import GAME
from arena.leagues.ratings import Rater, Standing
from arena.leagues.scheduler import SeasonDef, fixtures
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy_tractor import GreedyTractor
from arena_bots.randombot import RandomBot


def test_each_bot_plays_both_seats_of_a_team_and_each_deal_is_replayed_swapped():
    d = SeasonDef("t", "tractor", "deal", 4, ("a", "b", "c"), 2, 1, teams=2)
    fx = list(fixtures(d))
    assert len(fx) == 2 * 3 * 2
    first, swapped = fx[0], fx[1]
    assert first.seats == ("a", "b", "a", "b") and swapped.seats == ("b", "a", "b", "a")
    assert first.seed == swapped.seed != fx[2].seed


def test_mixed_teams_seat_four_bots_with_partnerships_drawn_each_round():
    d = SeasonDef("t", "tractor", "deal", 4, ("a", "b", "c", "d"), 12, 1, draw_partners=True)
    fx = list(fixtures(d))
    first, second = fx[0].seats, fx[1].seats
    assert second == first[1:] + first[:1], "a deal is replayed with the seats rotated"
    pairings = {frozenset([frozenset(f.seats[0::2]), frozenset(f.seats[1::2])]) for f in fx}
    assert len(pairings) == 3, "over the rounds every partnership occurs"
    assert fx == list(fixtures(d)), "drawn from the season's seed"


def test_a_bot_playing_a_whole_team_is_rated_one_against_one_once_per_match():
    teams, solo = Rater(teams=2), Rater()
    teams.add(["a", "b", "a", "b"], [1, 3, 1, 3], [2, -2, 2, -2], [None] * 4)
    solo.add(["a", "b"], [1, 2], [2, -2], [None, None])
    assert teams.standings() == solo.standings()
    assert teams.table["a"].games == 1 and teams.table["a"].wins == 1


def test_mixed_teams_use_trueskills_team_model():
    r = Rater(teams=2)
    r.add(["a", "b", "c", "d"], [1, 3, 1, 3], [1, -1, 1, -1], [None] * 4)
    env = r.env
    (a, c), (b, d) = env.rate([(env.create_rating(), env.create_rating())] * 2, ranks=[0, 1])
    assert [r.table[x].mu for x in "abcd"] == [a.mu, b.mu, c.mu, d.mu]
    assert isinstance(r.table["a"], Standing) and r.table["b"].losses == 1


def test_greedy_beats_random_on_duplicate_deals():
    wins = 0
    for seed in range(25):
        for swap in (0, 1):
            seats = [GreedyTractor(), RandomBot()] * 2
            seats = seats[swap:] + seats[:swap]
            match, _ = play_match(GAME, "deal", [PythonBot(b) for b in seats], seed)
            wins += match.result.ranks[swap] == 1
    assert wins >= 40, wins


def test_play_two_bots_for_a_team_game_from_the_command_line():
    out = subprocess.run([sys.executable, "-m", "arena", "play", "tractor", "greedy", "random",
                          "--variant", "deal", "--seed", "5", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    assert json.loads(out.stdout)["seats"] == ["greedy", "random", "greedy", "random"]


def _show(*extra):
    return subprocess.run([sys.executable, "-m", "arena", "play", "tractor", "greedy", "random",
                           "--variant", "deal", "--seed", "5", "--public-seed", "--show", *extra],
                          capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "160", "PATH": "/usr/bin:/bin"}).stdout


def test_the_transcript_shows_bidding_tricks_and_the_result_and_hides_the_kitty():
    out = _show()
    assert "deal 1: level rank 2, levels 2/2, bidding starts at seat 2" in out
    assert "declares" in out and "wins the trick" in out and "takes the kitty: 8 cards" in out
    assert "25 hidden" in out and "buried cards shown; attackers 55 points" in out
    omniscient = _show("--omniscient")
    assert "25 hidden" not in omniscient and "takes the kitty: 8 cards" not in omniscient


def test_the_crosstable_counts_a_team_game_once():
    from arena.views.leaderboard import crosstable

    table = crosstable([(["a", "b", "a", "b"], [1, 3, 1, 3], [1, -1, 1, -1], [None] * 4)],
                       ["a", "b"])
    assert list(table.columns[2].cells) == ["1-0-0", "·"]
