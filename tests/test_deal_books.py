"""Deal books (arena.games.book, docs/deal-books.md): written by hand, played by ``match``
and ``season run``, exported from stored matches and read back identical."""

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import db
from arena.games import book
from arena.plugins import Registry
from arena.views.exports import stored_match_record
from arena.views.frames import frames_for_row

REGISTRY = Registry()

#: Written by hand: two Vändtia deals for two players - every card once, the stock top first.
HAND_WRITTEN = """\
# two deals that test the tens
game: vandtia cardems 2

deal: tens-in-hand
players 0 hand: 10C 10D 10H
players 0 faceup: 2C 3C 4C
players 0 facedown: 5C 6C 7C
players 1 hand: 8C 9C JC
players 1 faceup: QC KC AC
players 1 facedown: 2D 3D 4D
stock: 5D 6D 7D 8D 9D JD QD KD AD 2H 3H 4H 5H 6H 7H 8H 9H JH QH KH AH 2S 3S 4S
    5S 6S 7S 8S 9S 10S JS QS KS AS
dealer: 1

deal: aces-up
players 0 hand: 2S 3S 4S
players 0 faceup: AC AD AH
players 0 facedown: 5S 6S 7S
players 1 hand: 8S 9S JS
players 1 faceup: QS KS AS
players 1 facedown: 2C 3C 4C
stock: 5C 6C 7C 8C 9C 10C JC QC KC 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD 2H 3H
    4H 5H 6H 7H 8H 9H 10H JH QH KH 10S
dealer: 0
"""

GAMES = [("vandtia", "cardems", 2), ("vandtia", "swedish", 3), ("vandtia", "german", 4),
         ("tractor", "match", 4), ("tractor", "deal", 4), ("cherki", "standard", 3)]


def arena(tmp_path, *args, check=True):
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}"}
    done = subprocess.run([sys.executable, "-m", "arena", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**62), st.integers(0, 2**31))
def test_a_seeds_deal_round_trips_through_a_book_and_plays_the_same_game(which, seed, moves):
    """to_deal of a fresh state, written and read back, is the same deal; started from it
    (with the seed, for a Tractor match's later deals) the game is the seed's, move by move:
    the same observations, legal lists and result."""
    name, variant, players = which
    game = REGISTRY.game(name)
    deal = game.to_deal(game.new_state(variant, players, seed))
    text = book.write(game, variant, players, [("the-deal", deal)])
    read = book.read(text, REGISTRY)
    assert (read.game, read.variant, read.players) == (name, variant, players)
    assert [(e.name, e.deal) for e in read.entries] == [("the-deal", deal)]
    assert book.write(game, variant, players, read.entries) == text
    a = game.new_state(variant, players, seed, record=True)
    b = game.start(variant, players, seed, read.entries[0].deal, record=True)
    if name != "tractor":  # (Tractor's deal event lists a hand as dealt, not sorted)
        assert a.events == b.events  # the deal as a transcript tells it
    rng = random.Random(moves)
    while not a.is_over():
        assert a.to_move == b.to_move and a.observation(a.to_move) == b.observation(b.to_move)
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        action = rng.choice(legal)
        a.apply(action)
        b.apply(action)
    assert b.is_over() and a.result() == b.result()
    assert name == "tractor" or a.events == b.events


def test_a_hand_written_book_reads_and_writes_back_as_written():
    found = book.read(HAND_WRITTEN, REGISTRY, "tens.txt")
    assert [e.name for e in found.entries] == ["tens-in-hand", "aces-up"]
    assert [e.line for e in found.entries] == [4, 15]
    assert found.entries[0].deal["players"][0]["hand"] == ["10C", "10D", "10H"]
    game = REGISTRY.game("vandtia")
    assert book.write(game, "cardems", 2, found.entries,
                      comment="two deals that test the tens") == HAND_WRITTEN


@pytest.mark.parametrize("change,line,message", [
    (("players 1 facedown: 2D 3D 4D", "players 1 facedown: 2D 3D 3D"), 4, "3D appears more "
     "than 1 time"),
    (("stock: 5C 6C", "stock: 5C 6C ZZ"), 15, "not a card: 'ZZ'"),
    (("dealer: 0", "dealer: 3"), 15, "dealer must be a seat number 0-1"),
    (("players 0 faceup: AC AD AH", "players 0 faceup AC AD AH"), 17,
     "not a 'key: value' line"),
    (("dealer: 1", "dealer: 1\ndealer: 0"), 14, "dealer is given twice"),
    (("deal: aces-up", "deal: tens-in-hand"), 15, "a second deal named tens-in-hand"),
    (("game: vandtia cardems 2", "game: vandtia cardems 3"), 2, "played by 2 players, not 3"),
    (("game: vandtia cardems 2", "game: poker holdem 2"), 2, "poker"),
    (("deal: tens-in-hand\n", "dealer: 0\ndeal: tens-in-hand\n"), 4,
     "a key before the first 'deal: NAME' line"),
    (("dealer: 1", "dealer: 1\n    2C"), 14, "an indented line goes on a list"),
    (("    4H 5H", "    4H 4H 5H"), 15, "4H appears more than 1 time"),
])
def test_a_book_with_one_bad_line_is_refused_with_its_line_number(change, line, message):
    text = HAND_WRITTEN.replace(*change, 1)
    with pytest.raises(book.BookError, match=message) as caught:
        book.read(text, REGISTRY, "tens.txt")
    assert str(caught.value).startswith(f"tens.txt:{line}: ")


def test_a_season_plays_a_hand_written_book_and_exports_it_back_identical(tmp_path):
    """season run --deals: every group plays each deal in every seating, its matches start
    from the book's cards (replay --json shows the deal, verify replays it), and deals
    export gives the same book back."""
    (tmp_path / "tens.txt").write_text(HAND_WRITTEN)
    arena(tmp_path, "season", "run", "vandtia", "--bots", "random,greedy,first", "--deals",
          "tens.txt", "--public-seed", "--seed", "3", "--name", "tens")
    engine = db.connect(f"sqlite:///{tmp_path / 'arena.db'}")
    row = db.get_season(engine, "tens")
    assert row.rounds == 2 and row.fixtures == 2 * 3 * 2  # deals x pairs of bots x seatings
    found = book.read(HAND_WRITTEN, REGISTRY)
    matches = list(db.season_matches(engine, row.id))
    assert len(matches) == 12
    game = REGISTRY.game("vandtia")
    for match, seats in matches:  # (as replay --json gives them, below for one)
        record = stored_match_record(game, row, match, seats)
        entry = found.entries[match.fixture // 6]
        assert record["deal"] == entry.deal
        first = game.start("cardems", 2, match.seed, entry.deal)
        assert record["actions"][0]["seat"] == first.to_move
    shown = json.loads(arena(tmp_path, "replay", str(matches[7][0].id), "--json").stdout)
    assert shown["deal"] == found.entries[1].deal
    assert "verified" in arena(tmp_path, "replay", str(matches[5][0].id), "--verify").stdout
    match, seats = matches[7]  # the second deal: the viewer's frames and a review start there
    frames = frames_for_row(REGISTRY, match, row, seats)
    hand = found.entries[1].deal["players"][0]["hand"]
    shown = [r for zone in frames["frames"][0]["views"][-1] for r in zone["rows"]
             if r[3] == "hand"][0]
    assert sorted(shown[1].split()) == sorted(hand)
    reviewed = json.loads(arena(tmp_path, "review", str(match.id), "--reviewer",
                                "ismcts:iterations=20", "--all", "--format", "json").stdout)
    assert reviewed["decisions"] and all(d["taken"] for d in reviewed["decisions"])
    arena(tmp_path, "season", "export", "tens", "-o", "tens.jsonl")
    assert "12 match(es) verified" in arena(tmp_path, "verify", "tens.jsonl").stdout
    exported = arena(tmp_path, "deals", "export", "tens").stdout
    again = book.read(exported, REGISTRY)
    assert [(e.name, e.deal) for e in again.entries] == [(e.name, e.deal)
                                                          for e in found.entries]
    assert exported.split("\n", 1)[1] == HAND_WRITTEN.split("\n", 1)[1]  # all but the comment


def test_a_stored_seasons_deals_exported_are_played_again_by_a_match(tmp_path):
    """deals export of a season dealt by seeds: one deal per group and round, each the
    seed's cards; a match on that book plays exactly those cards, every deal twice."""
    arena(tmp_path, "season", "run", "vandtia", "--bots", "random,greedy,first", "--rounds",
          "2", "--public-seed", "--seed", "11", "--name", "seeded")
    arena(tmp_path, "deals", "export", "seeded", "-o", "seeded.txt")
    engine = db.connect(f"sqlite:///{tmp_path / 'arena.db'}")
    game = REGISTRY.game("vandtia")
    seeds = list(dict.fromkeys(m.seed for m, _ in
                               db.season_matches(engine, db.get_season(engine, "seeded").id)))
    found = book.read((tmp_path / "seeded.txt").read_text(), REGISTRY)
    assert [e.name for e in found.entries] == [f"seeded.r{r}.g{g}" for r in range(2)
                                               for g in range(3)]
    assert [e.deal for e in found.entries] == [
        game.to_deal(game.new_state("cardems", 2, s)) for s in seeds]
    checked = arena(tmp_path, "deals", "check", "seeded.txt").stdout
    assert checked.startswith("seeded.txt: 6 deals of vandtia cardems for 2 players")
    out = json.loads(arena(tmp_path, "match", "greedy", "random", "--deals", "seeded.txt",
                           "--public-seed", "--seed", "1", "--name", "again",
                           "--format", "json").stdout)
    assert (out["games"], out["pairs"]) == (12, 6)
    row = db.get_season(engine, "again")
    for match, _ in db.season_matches(engine, row.id):
        deal = found.entries[match.fixture // 2].deal
        start = game.start("cardems", 2, match.seed, deal)
        assert start.observation(0) == game.new_state(
            "cardems", 2, seeds[match.fixture // 2]).observation(0)
    assert arena(tmp_path, "deals", "export", "again").stdout.split("\n", 1)[1] == (
        (tmp_path / "seeded.txt").read_text().split("\n", 1)[1])


def test_a_bad_book_stores_nothing_and_says_where(tmp_path):
    (tmp_path / "bad.txt").write_text(HAND_WRITTEN.replace("dealer: 0", "dealer: 7"))
    for args in (("match", "greedy", "random"),
                 ("season", "run", "vandtia", "--bots", "greedy,random")):
        done = arena(tmp_path, *args, "--deals", "bad.txt", "--public-seed", check=False)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.strip() == ("arena: error: bad.txt:15: deal aces-up: deal: dealer "
                                       "must be a seat number 0-1")
    assert not (tmp_path / "arena.db").exists() or not db.list_seasons(
        db.connect(f"sqlite:///{tmp_path / 'arena.db'}"))
    (tmp_path / "tens.txt").write_text(HAND_WRITTEN)
    done = arena(tmp_path, "season", "run", "tractor", "--bots", "greedy,random", "--deals",
                 "tens.txt", check=False)
    assert done.returncode == 2 and "tens.txt is a book of vandtia cardems for 2 players: " \
        "its game is vandtia, not tractor" in done.stderr
    done = arena(tmp_path, "match", "greedy", "random", "--deals", "tens.txt", "--games", "8",
                 check=False)
    assert done.returncode == 2 and "leave out --games" in done.stderr
