"""Worlds from an observation (``game.world(observation, rng)``): a full state that the
observing seat cannot tell from the real one, its hidden cards dealt uniformly."""

import random
from collections import Counter

import pytest
from scipy.stats import chisquare

from arena.cards import parse
from arena.games.vandtia import GAME as VANDTIA

POSITIONS = 1000


def random_positions(game, variant, players, count, seed):
    """``count`` positions of random games, from the deal to the end, and a seat each."""
    rng = random.Random(seed)
    for g in range(count):
        state = game.new_state(variant, players, seed * 100000 + g)
        for _ in range(rng.choice([0, 1, 2, 4, 8, rng.randrange(250)])):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        yield state, rng.randrange(players)


@pytest.mark.parametrize("variant, players", [("cardems", 2), ("swedish", 3),
                                              ("swedish", 6), ("german", 4), ("german", 2)])
def test_a_vandtia_world_fits_everything_its_seat_knows(variant, players):
    rng = random.Random(7)
    for state, seat in random_positions(VANDTIA, variant, players, POSITIONS, players):
        seen = state.observation(seat)
        world = VANDTIA.world(seen, rng)
        assert world.observation(seat) == seen  # the seat cannot tell them apart
        assert sorted(world.all_cards()) == sorted(state.all_cards())  # cards conserved
        assert world.is_over() == state.is_over()
        if not state.is_over():
            assert world.to_move == state.to_move
            if seat == state.to_move:
                assert world.legal_actions() == state.legal_actions()
            for _ in range(3):  # and it plays on like any state
                if not world.is_over():
                    world.apply(rng.choice(world.legal_actions()))


def test_a_vandtia_world_reads_only_the_observation():
    state = VANDTIA.new_state("cardems", 2, 11)
    seen = state.observation(0)
    before = repr(seen)
    VANDTIA.world(seen, random.Random(1))
    assert repr(seen) == before  # and does not change it


def test_vandtia_hidden_cards_are_dealt_uniformly():
    """A late position: seat 0 has seen all but eight cards, which lie in seat 1's hand (two
    unknown cards beside one it picked up), its three face-down slots and seat 0's own three.
    Each unseen card is equally likely in each place (chi-square, 8 x 8 cells)."""
    deal = {"players": [{"hand": ["3C", "4C"], "faceup": [], "facedown": ["5C", "6C", "7C"]},
                        {"hand": ["3D", "4D", "8C"], "known": ["8C"], "faceup": [],
                         "facedown": ["5D", "6D", "7D"]}],
            "burned": [c for c in ("2C 2D 2H 2S 3H 3S 4H 4S 5H 5S 6H 6S 7H 7S 8D 8H 8S 9C 9D "
                                   "9H 9S 10C 10D 10H 10S JC JD JH JS QC QD QH QS KC KD KH "
                                   "KS AC AD AH AS").split()],
            "to_move": 0, "dealer": 1, "moves": 80}
    state = VANDTIA.from_deal("cardems", deal)
    seen = state.observation(0)
    rng = random.Random(3)
    unseen = [parse(c) for c in ("4D 3D 5C 6C 7C 5D 6D 7D").split()]
    places = Counter()
    draws = 8000
    for _ in range(draws):
        world = VANDTIA.world(seen, rng)
        hand = [c for c in world.hands[1] if c != parse("8C")]
        spots = [("hand", c) for c in hand] + [
            (f"down{p}.{i}", c) for p in (0, 1) for i, c in enumerate(world.facedown[p])]
        for where, c in spots:
            places[where if not where.startswith("hand") else "hand", c] += 1
    for where, share in (("hand", 2 / 8), *((f"down{p}.{i}", 1 / 8)
                                            for p in (0, 1) for i in range(3))):
        counts = [places[where, c] for c in unseen]
        assert sum(counts) == round(draws * share * 8)
        assert chisquare(counts).pvalue > 1e-4, (where, counts)


def playout_positions(variants, count):
    for variant, players in variants:
        for state, _ in random_positions(VANDTIA, variant, players, count, players + 17):
            yield state


VARIANTS = [("cardems", 2), ("swedish", 3), ("swedish", 6), ("german", 4), ("german", 2),
            ("german", 5)]


def test_a_vandtia_playout_makes_only_legal_moves_and_follows_the_rules():
    """A traced playout, replayed through ``apply`` (which checks every move), ends in the
    same state: the playout's own loop plays by the same rules as the state API."""
    for state in playout_positions(VARIANTS, 300):
        if state.is_over():
            continue
        played, trace = state.copy(), []
        result = played.playout(random.Random(state.moves), trace)
        replayed = state.copy()
        for action in trace:
            replayed.apply(action)
        assert replayed.result() == result
        for a, b in ((played, replayed),):
            assert (a.hands, a.faceup, a.facedown, a.stock, a.pile, a.burned, a.out,
                    a.moves) == (b.hands, b.faceup, b.facedown, b.stock, b.pile, b.burned,
                                 b.out, b.moves)
            assert [sorted(k) for k in a.known] == [sorted(k) for k in b.known]


def test_the_fast_vandtia_playout_on_ranks_makes_the_same_moves():
    for state in playout_positions(VARIANTS, 300):
        if state.is_over():
            continue
        traced, fast = state.copy(), state.copy()
        seed = state.moves * 1000 + state.n
        assert traced.playout(random.Random(seed), []) == fast.playout(random.Random(seed))
        assert traced.moves == fast.moves


def _move(action: str):
    """A legal action as a playout counts it: a play by (rank, count), whichever copies it
    shows (the choice of copies changes what others know, not the game)."""
    words = action.split()
    return ("play", words[1][:-1], len(words) - 1) if words[0] == "play" else action


def test_a_vandtia_playout_chooses_uniformly_among_the_legal_moves():
    rng = random.Random(5)
    for state in playout_positions(VARIANTS, 40):
        legal = state.legal_actions() if not state.is_over() else ()
        moves = sorted({_move(a) for a in legal}, key=str)
        if len(moves) < 2 or state.swapping or state.must_include is not None:
            continue
        first = Counter()
        for _ in range(60 * len(moves)):
            trace = []
            state.copy().playout(rng, trace)
            assert trace[0] in legal
            first[_move(trace[0])] += 1
        assert set(first) == set(moves)  # every legal move, nothing else
        assert chisquare([first[m] for m in moves]).pvalue > 1e-4, (moves, first)
