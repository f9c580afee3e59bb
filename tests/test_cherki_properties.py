"""Invariants of the Cherki engine over random play."""

import copy
import random
from collections import Counter

from conftest import play_randomly
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.cherki import FACE_NAMES, GAME, KIND


def random_deal(seed, choice_seed, step=None, record=False):
    return play_randomly(GAME.new_state("standard", 3, seed, record=record), choice_seed, step)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_the_120_cards_are_conserved_at_every_step(seed, choice_seed):
    every = Counter(f for f in range(30) for _ in range(4))

    def check(state):
        assert Counter(state.all_faces()) == every

    random_deal(seed, choice_seed, step=check)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_settlements_are_zero_sum(seed, choice_seed):
    r = random_deal(seed, choice_seed).result()
    assert sum(r.scores) == 0 and (r.reason == "win") == any(r.scores)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_seat_sees_every_card_of_its_hand_by_face(seed, choice_seed):
    """Every seat's observed hand at every step: every card it holds (``hands``, copies per
    face), by face (1C-9C, 1S-9S, 1M-9M, WF, RF, OT), a face's copies side by side."""
    def check(state):
        for seat in range(3):
            faces = [FACE_NAMES.index(name) for name in state.observation(seat)["hand"]]
            assert Counter(faces) == {f: k for f, k in enumerate(state.hands[seat]) if k}
            assert faces == sorted(faces)

    random_deal(seed, choice_seed, step=check)


def _permute_hidden(state, seat, rng):
    """The same position with the other hands and the stock dealt again at random."""
    s = copy.deepcopy(state)
    others = [p for p in range(3) if p != seat]
    pool = [f for p in others for f in s.hand_list(p)] + s.stock
    rng.shuffle(pool)
    for p in others:
        k = len(s.hand_list(p))
        s.hands[p] = [0] * 30
        s.kinds[p] = [0] * 12
        for f in pool[:k]:
            s.hands[p][f] += 1
            s.kinds[p][KIND[f]] += 1
        pool = pool[k:]
    s.stock = pool
    return s


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_observations_leak_nothing_hidden(seed, choice_seed):
    rng = random.Random(choice_seed)

    def check(state):
        if rng.random() < 0.05:
            seat = rng.randrange(3)
            assert _permute_hidden(state, seat, rng).observation(seat) == \
                state.observation(seat)

    random_deal(seed, choice_seed, step=check)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_the_same_seed_gives_the_same_deal(seed):
    a, b = (random_deal(seed, seed, record=True) for _ in range(2))
    assert a.events == b.events and a.result() == b.result()
