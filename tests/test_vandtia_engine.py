"""The compiled Vändtia engine (vandtia.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
every Vändtia test a second time in tox (``ARENA_PURE=1``)."""

import random

import pytest
from conftest import compiled_module, pure_module

from arena.games import vandtia
from arena.games.vandtia import GAME, _shuffle
from arena.plugins import Registry

CONFIGS = [(v, n) for v, counts in GAME.variants.items() for n in counts]


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    fast = compiled_module("vandtia")
    assert vandtia.ENGINE == "compiled (Cython)"
    assert GAME.__class__ is fast.Vandtia and vandtia.VandtiaState is fast.VandtiaState
    assert GAME.new_state("cardems", 2, 0).__class__ is fast.VandtiaState
    assert Registry().game("vandtia") is GAME  # the hook registers the compiled game


def test_compiled_and_pure_engines_play_the_same_games():
    """Random games of every variant and player count, in lockstep: the same legal lists,
    observations and results, move by move; traced playouts and worlds the same too."""
    compiled_module("vandtia")
    pure = pure_module(vandtia).GAME
    assert type(pure.new_state("cardems", 2, 0)) is not type(GAME.new_state("cardems", 2, 0))
    for variant, players in CONFIGS:
        for seed in range(60):
            a = GAME.new_state(variant, players, seed, record=True)
            b = pure.new_state(variant, players, seed, record=True)
            rng = random.Random(seed)
            while not a.is_over():
                legal = a.legal_actions()
                assert legal == b.legal_actions()
                seat = a.to_move
                assert a.observation(seat) == b.observation(seat)
                if a.moves == 20:  # a world and a playout from here, in both engines
                    o = a.observation(seat)
                    assert (GAME.world(o, random.Random(seed)).fields()
                            == pure.world(o, random.Random(seed)).fields())
                    ta, tb = [], []
                    assert (a.copy().playout(random.Random(seed), ta, greedy=0.5)
                            == b.copy().playout(random.Random(seed), tb, greedy=0.5))
                    assert ta == tb
                action = legal[rng.randrange(len(legal))]
                a.apply(action)
                b.apply(action)
            assert a.result() == b.result() and a.events == b.events
            assert a.fields() == b.fields()


@pytest.mark.parametrize("copies", [1, 2])
def test_the_engines_shuffle_is_randoms_shuffle(copies):
    """Deals depend on it: the same permutation as ``random.Random.shuffle`` from the same
    generator state, for the decks the games use (and anything else falls back to it)."""
    for seed in range(2000):
        mine, theirs = list(range(52 * copies)), list(range(52 * copies))
        a, b = random.Random(seed), random.Random(seed)
        _shuffle(a, mine)
        b.shuffle(theirs)
        assert mine == theirs and a.getstate() == b.getstate()

    class Mine(random.Random):
        pass

    cards = list(range(52))
    _shuffle(Mine(3), cards)
    expected = list(range(52))
    random.Random(3).shuffle(expected)
    assert cards == expected


def test_a_state_names_all_it_holds_in_fields():
    """``copy`` and the equality tests go by ``fields``: in the pure engine (where a state
    has a ``__dict__``) nothing is held outside them."""
    state = pure_module(vandtia).GAME.new_state("german", 3, 1, record=True)
    assert set(vars(state)) == set(state.FIELDS)
    copied = state.copy()
    assert copied.fields() == {**state.fields(), "events": None}
