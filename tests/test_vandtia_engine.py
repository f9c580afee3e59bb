"""The compiled Vändtia engine (vandtia.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
every Vändtia test a second time in tox (``ARENA_PURE=1``)."""

import random

import pytest
from conftest import compiled_in_use, play_in_lockstep, pure_module

from arena.games import vandtia
from arena.games.vandtia import GAME, _shuffle

CONFIGS = [(v, n) for v, counts in GAME.variants.items() for n in counts]


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    compiled_in_use(vandtia, "cardems", 2)


def test_compiled_and_pure_engines_play_the_same_games():
    """Random games of every variant and player count, in lockstep: the same legal lists,
    observations, events and results, and every field at the end; a world and a traced
    playout at move 20 of each."""
    compiled_in_use(vandtia, "cardems", 2)
    for variant, players in CONFIGS:
        for seed in range(30):
            play_in_lockstep(vandtia, variant, players, seed, at=lambda s: s.moves == 20,
                             held=lambda s: s.fields())


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
