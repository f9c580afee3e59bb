"""The compiled Tractor engine (tractor.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
the Tractor tests a second time in tox (``ARENA_PURE=1``). And the follow list, built in
one pass over the hand, is exactly the picks the rule function ``completable`` allows."""

import random

import pytest
from conftest import compiled_in_use, play_in_lockstep

from arena.games import tractor
from arena.games.tractor import FACE_NAMES, GAME, completable


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    compiled_in_use(tractor, "deal", 4)


@pytest.mark.parametrize("variant,seeds", [("deal", 40), ("match", 2)])
def test_compiled_and_pure_engines_play_the_same_games(variant, seeds):
    """Random games in lockstep: legal lists, every seat's observations, events and
    results; a world and a traced playout at move 40 of each deal."""
    compiled_in_use(tractor, variant, 4)
    for seed in range(seeds):
        play_in_lockstep(tractor, variant, 4, seed, at=lambda s: s.deal_moves == 40)


def test_the_follow_list_is_every_pick_completable_allows():
    """At every pick of random deals: each face held and not yet picked is offered exactly
    when ``completable`` (rules "Following", pick by pick) says a legal follow remains."""
    rng, checked = random.Random(7), 0
    for seed in range(120):
        s = GAME.new_state("deal", 4, seed)
        while not s.is_over():
            legal = s.legal_actions()
            if s.phase == "play" and s.trick:
                hand, picks = s.hands[s.to_move], s.picks
                expected = [f"pick {FACE_NAMES[f]}" for f in sorted(range(54), key=s.order.key)
                            if hand[f] > picks.count(f)
                            and completable(hand, picks + [f], s.trick[0][1], s.order)]
                assert list(legal) == expected
                checked += 1
            s.apply(legal[rng.randrange(len(legal))])
    assert checked > 5000
