"""The compiled Cherki engine (cherki.py compiled by Cython when arena is installed) plays
exactly the games of the pure-Python module it is compiled from; the pure path itself runs
the Cherki tests a second time in tox (``ARENA_PURE=1``)."""

from conftest import compiled_in_use, play_in_lockstep

from arena.games import cherki


def test_the_compiled_engine_is_built_from_this_source_and_in_use():
    compiled_in_use(cherki, "standard", 3)


def test_compiled_and_pure_engines_play_the_same_games():
    """150 random deals in lockstep: legal lists, every seat's observations, events and
    results; a world and a traced playout at move 30 of each."""
    compiled_in_use(cherki, "standard", 3)
    for seed in range(150):
        play_in_lockstep(cherki, "standard", 3, seed, at=lambda s: s.moves == 30)
