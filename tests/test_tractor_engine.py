"""The compiled Tractor engine (tractor.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
the Tractor tests a second time in tox (``ARENA_PURE=1``). And the follow list, built in
one pass over the hand, is exactly the picks the rule function ``completable`` allows."""

import random

import pytest
from conftest import compiled_module, pure_module

from arena.games import tractor
from arena.games.tractor import FACE_NAMES, GAME, completable
from arena.plugins import Registry


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    fast = compiled_module("tractor")
    assert tractor.ENGINE == "compiled (Cython)"
    assert GAME.__class__ is fast.Tractor and tractor.TractorState is fast.TractorState
    assert GAME.new_state("deal", 4, 0).__class__ is fast.TractorState
    assert Registry().game("tractor") is GAME  # the hook registers the compiled game


@pytest.mark.parametrize("variant,seeds", [("deal", 40), ("match", 2)])
def test_compiled_and_pure_engines_play_the_same_games(variant, seeds):
    """Random games in lockstep: the same legal lists and observations (every seat), move by
    move, the same events and results; traced playouts and worlds the same too."""
    compiled_module("tractor")
    pure = pure_module(tractor).GAME
    assert type(pure.new_state(variant, 4, 0)) is not type(GAME.new_state(variant, 4, 0))
    for seed in range(seeds):
        a = GAME.new_state(variant, 4, seed, record=True)
        b = pure.new_state(variant, 4, seed, record=True)
        rng = random.Random(seed)
        while not a.is_over():
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            for seat in range(4):
                assert a.observation(seat) == b.observation(seat)
            if a.deal_moves == 40:  # a world and a playout from here, in both engines
                o = a.observation(a.to_move)
                wa, wb = GAME.world(o, random.Random(seed)), pure.world(o, random.Random(seed))
                assert [wa.hand_list(p) for p in range(4)] == [wb.hand_list(p) for p in range(4)]
                ta, tb = [], []
                assert (a.copy().playout(random.Random(seed), ta, greedy=0.5)
                        == b.copy().playout(random.Random(seed), tb, greedy=0.5))
                assert ta == tb
            action = legal[rng.randrange(len(legal))]
            a.apply(action)
            b.apply(action)
        assert a.result() == b.result() and a.events == b.events


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
