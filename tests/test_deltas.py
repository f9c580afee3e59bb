"""Observation deltas (arena.sandbox.deltas): what a seat is sent after its first
observation of a match, rebuilt whole by the worker."""

import random

import orjson
import pytest

from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox.deltas import diff, patch, rebuild
from arena.sandbox.process import SandboxBot

REGISTRY = Registry()
GAMES = [("vandtia", "cardems", 2), ("vandtia", "swedish", 4), ("vandtia", "german", 3),
         ("vandtia", "swedish", 7), ("cherki", "standard", 3), ("tractor", "deal", 4),
         ("tractor", "match", 4)]


@pytest.mark.parametrize("game, variant, players", GAMES,
                         ids=[f"{g}-{v}-{n}" for g, v, n in GAMES])
def test_every_rebuilt_observation_equals_the_whole_one(game, variant, players):
    """At every step of random matches, each seat's observation rebuilt from the delta (sent
    as JSON) equals the whole one - also after the bot has changed the copy it was given."""
    g = REGISTRY.game(game)
    rng = random.Random(3)
    checked = 0
    for seed in range(2 if game != "tractor" else 1):
        state = g.new_state(variant, players, seed)
        sent = [None] * players  # the runner's last whole observation per seat
        rebuilt: dict = {}  # the worker's, by seat (as it keeps them by match)
        while not state.is_over() and checked < 3000:
            for seat in range(players):
                whole = state.observation(seat)
                if sent[seat] is None:
                    message = orjson.loads(orjson.dumps({"observation": whole}))
                else:
                    message = orjson.loads(orjson.dumps({"delta": diff(sent[seat], whole)}))
                sent[seat] = whole
                given = rebuild(rebuilt, seat, message)
                assert rebuilt[seat] == whole
                assert given == whole
                for value in given.values():  # a bot that changes what it was given
                    if isinstance(value, list):
                        value.clear()
                    elif isinstance(value, dict):
                        value.clear()
                assert rebuilt[seat] == whole
                checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 100


#: (game, variant, players, matches played)
ENGINE_DELTAS = [("cherki", "standard", 3, 3), ("tractor", "deal", 4, 12),
                 ("tractor", "match", 4, 1)]


@pytest.mark.parametrize("game, variant, players, matches", ENGINE_DELTAS,
                         ids=[f"{g}-{v}" for g, v, _, _ in ENGINE_DELTAS])
def test_an_engines_own_delta_rebuilds_every_observation(game, variant, players, matches):
    """Cherki's and Tractor's states make a seat's delta themselves
    (``observation_delta``, from a mark of the last observation): sent as JSON and
    patched onto the rebuilt one, it gives the whole observation each time a seat is asked,
    at random moves of random matches (so a log may grow by many records, or start anew,
    between two)."""
    g = REGISTRY.game(game)
    rng = random.Random(5)
    checked = grown = restarted = 0
    for seed in range(matches):
        state = g.new_state(variant, players, seed)
        marks = [None] * players
        rebuilt: list = [None] * players
        while not state.is_over() and checked < 4000:
            for seat in range(players):
                if marks[seat] is not None and rng.random() < 0.7:
                    continue
                if marks[seat] is None:
                    rebuilt[seat] = orjson.loads(orjson.dumps(state.observation(seat)))
                    marks[seat] = state.observation_mark(seat)
                else:
                    delta, marks[seat] = state.observation_delta(seat, marks[seat])
                    grown += "extend" in delta
                    restarted += any(type(v) is list and v and type(v[0]) is dict
                                     for v in delta["set"].values())
                    rebuilt[seat] = patch(rebuilt[seat], orjson.loads(orjson.dumps(delta)))
                assert rebuilt[seat] == state.observation(seat)
                checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 500 and grown > 50
    if variant == "match":
        assert restarted  # a new deal's bids or tricks, set whole


def test_a_delta_stays_small_however_long_the_deal():
    """Tractor's observations grow with every trick; their deltas do not: late in a deal a
    delta is a small part of the whole observation."""
    g = REGISTRY.game("tractor")
    state = g.new_state("deal", 4, 5)
    rng = random.Random(1)
    sizes = []
    last = state.observation(0)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
        whole = state.observation(0)
        sizes.append((len(orjson.dumps(diff(last, whole))), len(orjson.dumps(whole))))
        last = whole
    late = sizes[len(sizes) * 9 // 10:]
    assert max(d for d, _ in late) < min(w for _, w in late) / 4
    assert max(d for d, _ in late) < 2 * max(d for d, _ in sizes[:len(sizes) // 10]) + 200


def test_patch_and_diff_handle_new_dropped_and_shrunk_members():
    old = {"a": [1, 2], "b": 1, "c": [3], "gone": True}
    new = {"a": [1, 2, 3], "b": 2, "c": [], "new": {"x": 1}}
    delta = diff(old, new)
    assert delta == {"set": {"b": 2, "c": [], "new": {"x": 1}}, "extend": {"a": [3]},
                     "drop": ["gone"]}
    assert patch(old, delta) == new and old["a"] == [1, 2]
    assert diff(new, new) == {}


@pytest.mark.parametrize("game, variant, players, bot",
                         [("vandtia", "cardems", 2, "greedy"),
                          ("cherki", "standard", 3, "greedy"),
                          ("tractor", "deal", 4, "greedy")])
def test_a_sandboxed_bot_plays_the_same_with_deltas_and_without(game, variant, players, bot):
    """The same bots in real sandboxes, offered deltas (they ask for them) and not: every
    match the same, move for move. Vändtia's observations are small: never offered."""
    g = REGISTRY.game(game)
    entry = REGISTRY.bot(bot, game)
    played = {}
    for offer in (True, False):
        bots = [SandboxBot(entry.name, entry.spec, offer_deltas=offer) for _ in range(players)]
        try:
            played[offer] = []
            for seed in range(3):
                match, _ = play_match(g, variant, bots, seed)
                played[offer].append((match.actions, match.result.to_json()))
            assert all(b.deltas is (offer and game != "vandtia") for b in bots)
        finally:
            for b in bots:
                b.close()
    assert played[True] == played[False]


def test_the_compiled_build_is_the_one_in_use_where_it_was_built():
    """``setup.py`` compiles this module with Cython too (``arena.sandbox._deltas``): where
    it was built from this source, the module's functions are the build's (tox runs this
    file again on the plain-Python module, ``ARENA_PURE=1``)."""
    from conftest import compiled_module

    from arena.sandbox import deltas

    fast = compiled_module("deltas", "arena.sandbox")
    assert deltas.BUILD == "compiled (Cython)"
    assert deltas.diff is fast.diff and deltas.patch is fast.patch
    assert deltas.fresh is fast.fresh and deltas.rebuild is fast.rebuild


def test_the_states_own_deltas_run_compiled_where_they_were_built():
    """``arena.games.marks`` - the deltas Cherki's and Tractor's states make - is compiled
    too (``arena.games._marks``): the states' class is the build's."""
    from conftest import compiled_module

    from arena.games import MarkedDeltas, marks
    from arena.games.tractor import TractorState

    fast = compiled_module("marks")
    assert marks.BUILD == "compiled (Cython)"
    assert MarkedDeltas is marks.MarkedDeltas is fast.MarkedDeltas
    assert marks.delta is fast.delta and issubclass(TractorState, fast.MarkedDeltas)
