"""The compiled Cherki engine (cherki.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
the Cherki tests a second time in tox (``ARENA_PURE=1``)."""

import random

from conftest import compiled_module, pure_module

from arena.games import cherki
from arena.games.cherki import GAME
from arena.plugins import Registry


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    fast = compiled_module("cherki")
    assert cherki.ENGINE == "compiled (Cython)"
    assert GAME.__class__ is fast.Cherki and cherki.CherkiState is fast.CherkiState
    assert GAME.new_state("standard", 3, 0).__class__ is fast.CherkiState
    assert Registry().game("cherki") is GAME  # the hook registers the compiled game


def test_compiled_and_pure_engines_play_the_same_games():
    """Random deals in lockstep: the same legal lists and observations (every seat), move by
    move, the same events and results; traced playouts and worlds the same too."""
    compiled_module("cherki")
    pure = pure_module(cherki).GAME
    assert type(pure.new_state("standard", 3, 0)) is not type(GAME.new_state("standard", 3, 0))
    for seed in range(150):
        a = GAME.new_state("standard", 3, seed, record=True)
        b = pure.new_state("standard", 3, seed, record=True)
        rng = random.Random(seed)
        while not a.is_over():
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            for seat in range(3):
                assert a.observation(seat) == b.observation(seat)
            if a.moves == 30:  # a world and a playout from here, in both engines
                o = a.observation(a.to_move)
                wa, wb = GAME.world(o, random.Random(seed)), pure.world(o, random.Random(seed))
                assert [wa.hand_list(p) for p in range(3)] == [wb.hand_list(p) for p in range(3)]
                assert wa.stock == wb.stock
                ta, tb = [], []
                assert (a.copy().playout(random.Random(seed), ta, greedy=0.5)
                        == b.copy().playout(random.Random(seed), tb, greedy=0.5))
                assert ta == tb
            action = legal[rng.randrange(len(legal))]
            a.apply(action)
            b.apply(action)
        assert a.result() == b.result() and a.events == b.events
