"""Cherki in leagues and on the command line: all six seatings of a deal, settlements on
the leaderboard, the transcript, and the reference bots."""

import json
import subprocess
import sys
from itertools import permutations

from arena.games.cherki import GAME
from arena.leagues.scheduler import SeasonDef, fixture_count, fixtures
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy_cherki import GreedyCherki
from arena_bots.randombot import RandomBot


def arena(*args, **kw):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=120, **kw)


def test_a_deal_goes_through_all_six_seatings_of_three_bots():
    d = SeasonDef("c", "cherki", "standard", 3, ("a", "b", "c", "d"), 2, 1, every_seating=True)
    fx = list(fixtures(d))
    assert len(fx) == fixture_count(d) == 2 * 4 * 6
    first = fx[:6]
    assert {f.seats for f in first} == set(permutations(("a", "b", "c")))
    assert len({f.seed for f in first}) == 1 and fx[6].seed != first[0].seed


def test_greedy_wins_most_decided_deals_against_two_random_bots():
    wins = decided = money = 0
    for seed in range(15):
        for order in permutations(range(3)):
            bots = [(GreedyCherki, RandomBot, RandomBot)[i]() for i in order]
            match, _ = play_match(GAME, "standard", [PythonBot(b) for b in bots], seed)
            me = order.index(0)
            decided += match.result.reason == "win"
            wins += match.result.reason == "win" and match.result.ranks[me] == 1
            money += match.result.scores[me]
    assert wins >= 0.6 * decided and money > 0


def test_a_season_rates_bots_and_shows_their_settlements(tmp_path):
    (tmp_path / "rnd2.py").write_text(
        "import arena\nfrom arena_bots.randombot import RandomBot\n"
        "@arena.hookimpl\ndef register_bots(register):\n"
        "    register('random2', RandomBot, games=['cherki'])\n")
    db = f"sqlite:///{tmp_path}/c.db"
    run = arena("--db", db, "--bots-dir", str(tmp_path), "season", "run", "cherki", "--bots",
                "greedy,random,random2", "--rounds", "3", "--seed", "4")
    assert run.returncode == 0, run.stderr
    board = json.loads(arena("--db", db, "leaderboard", "cherki", "--format", "json").stdout)
    assert board[0]["bot"] == "greedy" and board[0]["games"] == 18
    assert sum(r["total_score"] for r in board) == 0, "settlements are zero-sum"


def test_the_transcript_shows_takes_and_discards_but_not_draws():
    out = arena("play", "cherki", "greedy", "random", "random", "--seed", "9", "--public-seed",
                "--show", env={"COLUMNS": "140", "PATH": "/usr/bin:/bin"}).stdout
    assert "takes     RF" in out and "draws     ?" in out and "8 hidden" in out
    assert "wins with" in out and "settlement +60 -30 -30" in out
    omniscient = arena("play", "cherki", "greedy", "random", "random", "--seed", "9",
                       "--public-seed",
                       "--omniscient", env={"COLUMNS": "140", "PATH": "/usr/bin:/bin"}).stdout
    assert "draws     ?" not in omniscient and "8 hidden" not in omniscient
