"""Luck: how much each chance event of a match gave each seat, for luck-adjusted scores.

The chance terms of AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling, "AIVAT: A New
Variance Reduction Technique for Agent Evaluation in Imperfect Information Games", AAAI
2018). At every chance event - the deal, and every move that shows a seat a card nobody had
seen (a stock card drawn, a face-down card turned, a kitty taken or turned up, the next deal
of a Tractor match) - the referee, which sees the whole state, takes for each seat

    correction = value(after the event) - mean of value over the event's outcomes

and a seat's *luck* is the sum of its corrections over the match. Its adjusted score is
its raw score minus its luck (``arena.leagues.match``).

Why the mean of a correction is zero, whatever the value function:

* The *value* is a fixed function of what the seats know between them (``luck_value``
  below, from the game's ``luck_features``): it never reads a card nobody has seen.
* Given everything the seats have seen, the cards nobody has seen are a uniformly shuffled
  deck in their places (the deal shuffled them uniformly, and no seat's choice depended on
  them: a bot sees only its own observation). The game's ``redealt`` puts those cards back
  in their places in any order (and draws afresh what the engine would draw later, a Tractor
  match's next deals), so a state redealt from a uniform shuffle of ``unseen`` is distributed
  exactly as the true state is, given what is known.
* So the value after the event, with the action the seat took, has the same expectation as
  the value after the same action in a redealt state: the mean over the event's outcomes.
  The correction's expectation, given the match so far, is zero; so is the luck's, and the
  adjusted score's expectation is the raw score's - for any bots and any value function.

The outcomes are every arrangement of the unseen cards when there are no more than
``samples`` of them (exact), else ``samples`` redealt states drawn from a generator keyed
by the season's secret and the deal's seed (an unbiased estimate of the mean; the same
draws on every machine, in every worker, after any resume). A better value function only
lowers the variance of the adjusted score; it never moves its mean. The deal is the first
event: its outcomes are fresh deals of the same variant and seats.

A move that shows nobody a new card has no correction: its outcomes all have the value it
has. The engine says which moves those are by the number of its unseen cards, which a
chance event changes.
"""

from __future__ import annotations

import math
import random
from itertools import permutations
from operator import mul

from .cards import PUBLIC_SECRET, keyed_seed
from .errors import ArenaError

#: outcomes enumerated whole up to this many arrangements of the unseen cards; fresh deals
#: per deal correction, and redeals where nothing is unseen but later deals
SAMPLES = 8
#: rotations of a shuffle of the unseen cards, at most, per chance event (``outcomes``)
ROTATIONS = 16


def place_scores(ranks: list[int]) -> list[float]:
    """Each seat's score by place: the share of the other seats it beat, a tie half (what
    ``arena match`` scores a game by)."""
    n = len(ranks)
    return [(sum(r > mine for r in ranks) + 0.5 * (sum(r == mine for r in ranks) - 1))
            / (n - 1) for mine in ranks]


def luck_value(game, state) -> list[float]:
    """Each seat's value of ``state``, in place-score units (0: last, 1: first): at the
    end the place scores, before it ``1/2 + w . (f_seat - mean f_others)`` with the game's
    fitted ``luck_weights`` ``w`` over its ``luck_features`` ``f`` - what the seats know
    between them, never a card nobody has seen. In a team game each seat's features are its
    team's."""
    if state.is_over():
        return place_scores(state.result().ranks)
    weights = luck_weights(game, getattr(state, "variant", game.default_variant))
    # w . (f_s - (sum f - f_s) / (n - 1)) = (n w.f_s - sum of w.f) / (n - 1)
    dots = [sum(map(mul, weights, f)) for f in game.luck_features(state)]
    n, total = len(dots), sum(dots)
    return [0.5 + (n * d - total) / (n - 1) for d in dots]


def luck_weights(game, variant: str) -> tuple[float, ...]:
    """The game's luck weights for ``variant`` (``Game.luck_weights``: one tuple, or one
    per variant); empty when it has none."""
    weights = game.luck_weights
    return weights.get(variant, ()) if isinstance(weights, dict) else weights


def adjust_option(game, variant: str, adjust: str) -> str:
    """A season's ``adjust`` from the ``--adjust`` option (``"none"`` or ``"luck"``): ``""``
    or ``"luck"``; ArenaError when the game has no luck model for ``variant``."""
    if adjust != "luck":
        return ""
    if not luck_weights(game, variant):
        raise ArenaError(f"{game.title} {variant} has no luck model: --adjust luck is not "
                         "offered for it")
    return adjust


def outcomes(game, state, rng: random.Random, samples: int = SAMPLES) -> list:
    """The states ``state`` could be, given what the seats know: every arrangement of its
    unseen cards when they have at most ``samples`` (each distinct arrangement once: equally
    likely); else the *rotations* of one uniform shuffle of them - up to ``ROTATIONS``, evenly
    spaced. Each rotation of a uniform shuffle is a uniform shuffle, so their mean is
    unbiased; and every card lies in every place in exactly one of all ``n`` rotations, so a
    move that shows one card (a draw, a flip) gets the exact mean over which card it is.
    With nothing unseen (a Tractor match's deal about to end), ``samples`` redeals of the
    later chance alone."""
    unseen = game.unseen(state)
    if _arrangements(unseen) <= samples and not game.later_chance(state):
        return [game.redealt(state, list(order), rng)
                for order in sorted(set(permutations(unseen)))]
    if not unseen:
        return [game.redealt(state, [], rng) for _ in range(samples)]
    base = list(unseen)
    rng.shuffle(base)
    n = len(base)
    count = min(n, ROTATIONS)
    return [game.redealt(state, base[k:] + base[:k], rng)
            for k in (i * n // count for i in range(count))]


def _arrangements(cards: list) -> int:
    """Distinct orders of ``cards`` (a multiset)."""
    counts: dict = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return math.factorial(len(cards)) // math.prod(map(math.factorial, counts.values()))


def correction(game, before, action, after, rng: random.Random,
               samples: int = SAMPLES) -> list[float]:
    """Each seat's correction for ``action`` taken in ``before`` (leading to ``after``):
    its value after it minus the mean over the outcomes of ``before``."""
    now = luck_value(game, after)
    alternatives = outcomes(game, before, rng, samples)
    means = [0.0] * len(now)
    for alt in alternatives:
        alt.apply(action)
        for seat, v in enumerate(luck_value(game, alt)):
            means[seat] += v
    return [v - m / len(alternatives) for v, m in zip(now, means, strict=True)]


def deal_correction(game, variant: str, state, rng: random.Random,
                    samples: int = SAMPLES) -> list[float]:
    """Each seat's correction for the deal: the value of the dealt state minus the mean over
    ``samples`` fresh deals of the same variant and seats."""
    now = luck_value(game, state)
    means = [0.0] * len(now)
    for _ in range(samples):
        fresh = game.new_state(variant, len(now), rng.getrandbits(63))
        for seat, v in enumerate(luck_value(game, fresh)):
            means[seat] += v
    return [v - m / samples for v, m in zip(now, means, strict=True)]


def match_luck(game, variant: str, players: int, seed: int, actions: list,
               secret: str = PUBLIC_SECRET, samples: int = SAMPLES,
               deal: dict | None = None) -> list[float]:
    """Each seat's luck in the match ``(seed, actions)``: the sum of its corrections over
    the deal and every move that showed a seat an unseen card. Reproducible to the bit from
    the same arguments (its draws are keyed by ``secret`` and ``seed``)."""
    rng = random.Random(keyed_seed(secret, "luck", seed))
    state = game.start(variant, players, seed, deal)
    luck = deal_correction(game, variant, state, rng, samples)
    hidden = len(game.unseen(state))
    for action in actions:
        before = state.copy()
        state.apply(action)
        now = len(game.unseen(state))
        if now != hidden:
            for seat, c in enumerate(correction(game, before, action, state, rng, samples)):
                luck[seat] += c
        hidden = now
    return luck
