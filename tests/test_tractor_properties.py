"""Invariants of the Tractor engine over random play."""

import random
from collections import Counter

from conftest import play_randomly
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.tractor import FACES_BY_NAME, GAME, points


def random_deal(seed, choice_seed, variant="deal", step=None, record=False):
    return play_randomly(GAME.new_state(variant, 4, seed, record=record), choice_seed, step)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_the_108_cards_are_conserved_at_every_step(seed, choice_seed):
    every = Counter(f for f in range(54) for _ in (0, 1))

    def check(state):
        assert Counter(state.all_faces()) == every

    random_deal(seed, choice_seed, step=check)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_trick_points_and_the_kitty_add_up_to_200(seed, choice_seed):
    state = random_deal(seed, choice_seed)
    tricks = sum(t["points"] for t in state.tricks)
    assert tricks + sum(points(f) for f in state.buried) == 200
    attackers = sum(t["points"] for t in state.tricks if t["winner"] % 2 == state.attackers)
    assert state.points >= attackers


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_seat_sees_its_hand_by_face_then_in_trump_order_once_there_is_one(seed,
                                                                            choice_seed):
    """Every seat's observed hand at every step: every card it holds (``hands``, copies per
    face), a face's copies side by side, the faces in trump order once the trump is
    known (the deal's ``order``), else by face."""
    def check(state):
        for seat in range(4):
            faces = [FACES_BY_NAME[name] for name in state.observation(seat)["hand"]]
            assert Counter(faces) == {f: k for f, k in enumerate(state.hands[seat]) if k}
            rank = state.order.pos.__getitem__ if state.order is not None else int
            assert [rank(f) for f in faces] == sorted(rank(f) for f in faces)

    random_deal(seed, choice_seed, step=check)


def _permute_hidden(state, seat, rng):
    """The same position with every card ``seat`` cannot see dealt again at random."""
    import copy

    s = copy.deepcopy(state)
    others = [p for p in range(4) if p != seat]
    pool = [f for p in others for f in s.hand_list(p)]
    sizes = [len(s.hand_list(p)) for p in others]
    hidden_kitty = s.phase == "bid" and not s.kitty_public
    hidden_bury = s.phase != "bid" and seat != s.dealer
    pool += s.kitty if hidden_kitty else []
    pool += s.buried if hidden_bury else []
    rng.shuffle(pool)
    for p, k in zip(others, sizes, strict=True):
        s.hands[p] = [0] * 54
        for f in pool[:k]:
            s.hands[p][f] += 1
        pool = pool[k:]
    if hidden_kitty:
        s.kitty, pool = pool[:8], pool[8:]
    if hidden_bury:
        s.buried, pool = pool[:len(s.buried)], pool[len(s.buried):]
    assert not pool
    return s


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_observations_leak_nothing_hidden(seed, choice_seed):
    rng = random.Random(choice_seed)

    def check(state):
        if rng.random() < 0.1:
            seat = rng.randrange(4)
            assert _permute_hidden(state, seat, rng).observation(seat) == \
                state.observation(seat)

    random_deal(seed, choice_seed, step=check)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_the_same_seed_gives_the_same_match(seed):
    a = random_deal(seed, seed, "match", record=True)
    b = random_deal(seed, seed, "match", record=True)
    assert a.events == b.events and a.result() == b.result()
    assert random_deal(seed + 1, seed, "match", record=True).events != a.events
