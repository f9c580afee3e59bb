"""Invariants of the Vändtia engine, checked over many random games."""

import copy
import random
from collections import Counter

import pytest
from conftest import play_randomly
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.vandtia import GAME, MOVE_CAP

CONFIGS = [(v, n) for v, counts in GAME.variants.items() for n in counts]


def random_game(variant, players, seed, choice_seed, step=None):
    return play_randomly(GAME.new_state(variant, players, seed), choice_seed, step)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_cards_are_conserved_at_every_step(config, seed, choice_seed):
    variant, players = config
    start = Counter(GAME.new_state(variant, players, seed).all_cards())

    def check(state):
        assert Counter(state.all_cards()) == start
        for p in range(players):
            assert not Counter(state.known[p]) - Counter(state.hands[p]), "known ⊆ hand"

    check(random_game(variant, players, seed, choice_seed, step=check))


def _permute_hidden(state, seat, rng):
    """A copy of ``state`` with every card hidden from ``seat`` shuffled among the places
    that hold hidden cards: other hands (beyond their public cards), the stock, face-down."""
    s = copy.deepcopy(state)
    pool, slots = [], []
    for p in range(s.n):
        if p != seat:
            unknown = list((Counter(s.hands[p]) - Counter(s.known[p])).elements())
            pool += unknown
            slots.append(("hand", p, len(unknown)))
        for i, c in enumerate(s.facedown[p]):
            if c is not None:
                pool.append(c)
                slots.append(("down", p, i))
    pool += s.stock
    slots.append(("stock", len(s.stock)))
    rng.shuffle(pool)
    for slot in slots:
        if slot[0] == "hand":
            _, p, k = slot
            s.hands[p] = sorted(s.known[p] + [pool.pop() for _ in range(k)])
        elif slot[0] == "down":
            s.facedown[slot[1]][slot[2]] = pool.pop()
        else:
            s.stock = [pool.pop() for _ in range(slot[1])]
    assert not pool
    return s


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_observation_is_unchanged_when_hidden_cards_are_permuted(config, seed, choice_seed):
    variant, players = config
    rng = random.Random(choice_seed)

    def check(state):
        if rng.random() < 0.1:
            seat = rng.randrange(players)
            other = _permute_hidden(state, seat, rng)
            assert other.observation(seat) == state.observation(seat)

    random_game(variant, players, seed, choice_seed, step=check)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32))
def test_same_seed_gives_the_same_game(config, seed):
    variant, players = config
    a = random_game(variant, players, seed, seed)
    b = random_game(variant, players, seed, seed)
    assert a.fields() == b.fields()


@pytest.mark.parametrize("variant,players", CONFIGS)
def test_a_thousand_random_games_end_within_the_cap_with_valid_ranks(variant, players):
    reasons = Counter()
    for seed in range(1000):
        state = random_game(variant, players, seed, seed + 1)
        r = state.result()
        assert state.moves <= MOVE_CAP and len(r.ranks) == players
        assert r.ranks == [1 + sum(o < x for o in r.ranks) for x in r.ranks]
        assert sum(r.scores) == 0
        if r.reason == "out":
            if variant == "german":
                assert sorted(r.ranks) == list(range(1, players + 1))
            else:
                assert sorted(r.ranks) == [1] + [2] * (players - 1)
        else:
            assert r.reason == "cap" and state.moves == MOVE_CAP
        reasons[r.reason] += 1
    assert reasons["out"] > 0, "some random games finish naturally"


def _feasible(hand: list[int], known: list[int], rank: int) -> set[tuple[int, int]]:
    """Every (count, known copies used) a play of ``rank`` from ``hand`` can make, by brute
    force over which copies it puts down: a play uses, of each name, as many known copies
    as it plays of that name (at most as many as are known) - all the others can see."""
    cards = [c for c in hand if c >> 2 == rank]
    seen = Counter(c for c in known if c >> 2 == rank)
    pairs = set()
    for mask in range(1, 1 << len(cards)):
        played = Counter(c for i, c in enumerate(cards) if mask >> i & 1)
        pairs.add((sum(played.values()), sum(min(n, seen[c]) for c, n in played.items())))
    return pairs


def _used(cards, known) -> int:
    seen = Counter(known)
    return sum(min(n, seen[c]) for c, n in Counter(cards).items())


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_plays_are_one_per_rank_count_and_known_copies_and_keep_the_rest_known(
        config, seed, choice_seed):
    """Every variant, 2-8 players (two decks from 6): no legal list holds an action twice;
    of every rank it offers, one play per (count, known copies used), none missing; and
    after a play from the hand the others are sure of exactly the known copies it left."""
    from arena.cards import parse

    def cards_of(action):
        return tuple(parse(w) for w in action.split()[1:])

    variant, players = config
    state = GAME.new_state(variant, players, seed)
    rng = random.Random(choice_seed)
    while not state.is_over():
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal), legal
        p = state.to_move
        hand, known = list(state.hands[p]), list(state.known[p])
        plays = [cards_of(a) for a in legal if a.startswith("play ")]
        if hand and plays and state.must_include is None and not state.swapping:
            by_rank: dict[int, set] = {}
            for cards in plays:
                assert not Counter(cards) - Counter(hand), (cards, hand)
                pair = (len(cards), _used(cards, known))
                assert pair not in by_rank.setdefault(cards[0] >> 2, set()), (legal, known)
                by_rank[cards[0] >> 2].add(pair)
            for rank, pairs in by_rank.items():
                assert pairs == _feasible(hand, known, rank), (rank, legal, hand, known)
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        if action.startswith("play ") and hand and not state.is_over():
            cards = cards_of(action)
            assert Counter(state.known[p]) == Counter(known) - Counter(cards), (action, known)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_every_position_play_reaches_is_a_deal_from_deal_accepts(config, seed, choice_seed):
    """``from_deal`` refuses what play cannot reach (a pile with four of one rank in a row,
    burned cards no burns leave, a pile no play stacks): so every position play reaches -
    its pile and its burned cards as they are - must pass, a whole deal."""
    from arena.cards import name

    variant, players = config

    def check(state):
        if state.swapping or state.over:
            return
        deal = {"players": [{"hand": [name(c) for c in state.hands[p]],
                             "known": [name(c) for c in state.known[p]],
                             "faceup": [name(c) for c in state.faceup[p]],
                             "facedown": [None if c is None else name(c)
                                          for c in state.facedown[p]]}
                            for p in range(players)],
                "stock": [name(c) for c in state.stock[::-1]],
                "pile": [name(c) for c in state.pile], "burned": [name(c) for c in state.burned],
                "dealer": state.dealer, "to_move": state.to_move, "out": list(state.out),
                "moves": state.moves}
        again = GAME.from_deal(variant, deal)
        assert again.pile == state.pile and again.burned == state.burned

    random_game(variant, players, seed, choice_seed, step=check)
