"""The Cherki efficiency heuristic that ``ismcts`` discards by (bots/efficient_cherki.py)."""

import random
from itertools import combinations_with_replacement

from conftest import play_randomly
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.cherki import GAME, KIND, face, ready_pairs
from arena_bots.efficient_cherki import EfficientCherki, kept, ready_pair, unseen, worth

PATTERNS = [(k, a, b) for k in range(12) for a, b in combinations_with_replacement(range(12), 2)]


def brute_kept(counts) -> int:
    best = 0
    for k, a, b in PATTERNS:
        need = [0] * 12
        need[k] += 2
        need[a] += 3
        need[b] += 3
        best = max(best, sum(min(c, n) for c, n in zip(counts, need, strict=True)))
    return best


def counts_of(text: str) -> list[int]:
    k = [0] * 12
    for n in text.split():
        k[KIND[face(n)]] += 1
    return k


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 11), min_size=8, max_size=9))
def test_kept_is_the_best_fit_to_two_triples_and_a_pair(kinds):
    counts = [kinds.count(k) for k in range(12)]
    assert kept(tuple(counts)) == brute_kept(counts)
    if len(kinds) == 8:
        assert (kept(tuple(counts)) == 8) == bool(ready_pairs(counts))
        assert ready_pair(counts) == (ready_pairs(counts) or (None,))[0]


def test_a_kind_may_fill_a_triple_and_the_pair():
    assert kept(tuple(counts_of("7C 7C 7S 7M 7M 3C 3S 3M"))) == 8
    assert kept(tuple(counts_of("7C 7C 7S 7M 7M 7S 3C 3S"))) == 8  # two triples of 7, pair 3
    assert kept(tuple(counts_of("1C 2C 3C 4C 5C 6C 7C 8C"))) == 3


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_unseen_counts_the_stock_and_the_hidden_part_of_the_other_hands(seed, choice_seed):
    rng = random.Random(choice_seed)

    def check(state):
        if state.is_over() or rng.random() > 0.1:
            return
        seat = rng.randrange(3)
        obs = state.observation(seat)
        hidden = [0] * 12
        for f in state.stock:
            hidden[KIND[f]] += 1
        for p in range(3):
            if p != seat:
                for f in state.hand_list(p):
                    hidden[KIND[f]] += 1
        left = unseen(obs)
        assert all(0 <= x <= h for x, h in zip(left, hidden, strict=True))
        assert sum(left) >= len(state.stock)
        if not any(t["seat"] != seat for t in obs["takes"]):
            assert left == hidden  # nothing known of the other hands

    play_randomly(GAME.new_state("standard", 3, seed), choice_seed, step=check)


def position(hand, pile="", stock="1C 2C 3C 4C 5C 6C", h1="4S 4S 5S 6S 7M 8M 9M 9S",
             h2="1M 1M 2M 3M 5M 6M RF 2S"):
    return GAME.from_deal("standard", {"hands": [hand.split(), h1.split(), h2.split()],
                                       "stock": stock.split(), "pile": pile.split(),
                                       "dealer": 2, "partial": True})


def test_a_ready_hand_with_a_live_pair_calls():
    state = position("3C 3S 3M 7C 7C 7S 9C 9C")
    assert EfficientCherki().act(state.observation(0), list(state.legal_actions())) == "call 9"


def test_a_ready_hand_whose_pair_is_dead_does_not_call():
    """Every other Old Thousand is in the pile: the call could never win."""
    state = position("3C 3S 3M 7C 7C 7S OT OT", pile="OT OT")
    legal = list(state.legal_actions())
    assert "call OT" in legal
    assert EfficientCherki().act(state.observation(0), legal) == "draw"


def test_it_takes_a_discard_that_brings_the_hand_nearer_and_draws_otherwise():
    bot = EfficientCherki()
    near = position("3C 3S 7C 7C 7S 9C 9C 1S", pile="3M")
    assert bot.act(near.observation(0), list(near.legal_actions())) == "take"
    far = position("3C 3S 7C 7C 7S 9C 9C 1S", pile="5M")
    assert bot.act(far.observation(0), list(far.legal_actions())) == "draw"


def test_of_two_equally_near_hands_it_keeps_the_one_worth_more():
    """One card from ready either way, with as many cards to come: the 9 is kept, the 1
    thrown (a win with it counts 8 more)."""
    high = counts_of("3C 3S 3M 7C 7C 7S 9C 2M")
    low = counts_of("3C 3S 3M 7C 7C 7S 1C 2M")
    left = [12] * 9 + [4] * 3
    assert worth(high, left)[0] == worth(low, left)[0] == -1
    assert worth(high, left) > worth(low, left)
    state = position("3C 3S 3M 7C 7C 7S 9C 1C", stock="2M 2C")
    state.apply("draw")
    assert EfficientCherki().act(state.observation(0), list(state.legal_actions())) == \
        "discard 1C"
