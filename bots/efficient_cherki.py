"""The heuristic ``ismcts`` plays Cherki's discards by: keep the hand that is nearest to
ready and has the most cards left to bring it nearer, as mahjong players judge tile
efficiency (shanten and acceptance), each such card weighted by what the hand would be
worth.

* **Distance**: the cards of a hand (kind counts) outside its best fit to two triples and
  a pair, ``8 - kept(counts)``; 0 is ready.
* **Acceptance**: the unseen cards (not in the hand, the pile, or a hand that took them and
  still holds them) whose draw would bring the hand nearer, each weighted by the hand's
  points with it (the sum of its values, as the settlement counts them): among equally
  near hands the one with more ways forward, and worth more, is kept. For a ready hand,
  the unseen cards of its pair's kind, weighted by the points of the win.
* A ready hand whose pair kind has no unseen card left is dead (counted one from ready)
  and is not called.
* The turn: call when ready with a live pair; take the top discard when it brings the hand
  nearer (once called, ``take`` is offered only when it wins); else draw.

Against ``greedy`` (which keeps what builds most and ignores values) it wins more money
from the same seat of a table with ``greedy`` and ``random``: see ``ismcts``'s docstring
and the README for the figures.
"""

from __future__ import annotations

from functools import lru_cache

from arena.games.cherki import KIND, KINDS, face

COPIES = (12,) * 9 + (4,) * 3  # cards of each kind in the double deck
VALUE = tuple(range(1, 10)) + (1, 1, 1)  # an honour counts 1


@lru_cache(maxsize=1 << 16)
def kept(counts: tuple[int, ...]) -> int:
    """The most cards of a hand (kind counts) that fit one ready pattern: two triples and a
    pair, a kind filling several of them (a kind of five, a triple and the pair). By
    dynamic programming over the kinds, the state being (triples used, pair used)."""
    best = {(0, 0): 0}
    for n in counts:
        if not n:
            continue
        nxt = dict(best)
        for (t, p), v in best.items():
            for dt in range(3 - t):
                for dp in range(2 - p):
                    if dt or dp:
                        key, value = (t + dt, p + dp), v + min(n, 3 * dt + 2 * dp)
                        if nxt.get(key, -1) < value:
                            nxt[key] = value
        best = nxt
    return max(best.values())


def ready_pair(counts) -> int | None:
    """The pair kind of a ready hand of 8 (kind counts), else None (the split is unique:
    ``arena.games.cherki.ready_pairs``)."""
    rs = [n % 3 for n in counts]
    return rs.index(2) if rs.count(2) == 1 and 1 not in rs else None


def unseen(observation: dict) -> list[int]:
    """Per kind, the cards this seat has not seen: not in its hand, not in the pile, not
    known to be in another hand (taken, and not discarded again)."""
    left = list(COPIES)
    for name in observation["hand"] + observation["pile"]:
        left[KIND[face(name)]] -= 1
    record = sorted([(t["move"], t["seat"], t["card"], True) for t in observation["takes"]]
                    + [(d["move"], d["seat"], d["card"], False)
                       for d in observation["discards"]])
    held: dict[int, list[str]] = {}
    for _, seat, card, took in record:
        cards = held.setdefault(seat, [])
        if took:
            cards.append(card)
        elif card in cards:
            cards.remove(card)
    for seat, cards in held.items():
        if seat != observation["seat"]:
            for card in cards:
                left[KIND[face(card)]] -= 1
    return left


def worth(counts: list[int], left: list[int]) -> tuple[int, int]:
    """How good a hand of 8 (kind counts, modified and restored) is: (minus its distance,
    its weighted acceptance); greater is better."""
    near = kept(tuple(counts))
    points = sum(VALUE[k] * n for k, n in enumerate(counts))
    pair = ready_pair(counts) if near == 8 else None
    if pair is not None:
        if left[pair]:
            return 0, left[pair] * (points + VALUE[pair])
        near = 7  # a dead pair
    accept = 0
    for k in range(12):
        if left[k]:
            counts[k] += 1
            if kept(tuple(counts)) > near:
                accept += left[k] * (points + VALUE[k])
            counts[k] -= 1
    return near - 8, accept


class EfficientCherki:
    """The policy: ``act(observation, legal)`` like any bot."""

    def act(self, observation: dict, legal: list[str]) -> str:
        left = unseen(observation)
        counts = [0] * 12
        for name in observation["hand"]:
            counts[KIND[face(name)]] += 1
        if observation["phase"] == "turn":
            return self._turn(observation, legal, counts, left)
        best, choice = None, legal[0]
        for action in legal:
            words = action.split()
            k = KIND[face(words[1])]
            counts[k] -= 1
            key = worth(counts, left)
            counts[k] += 1
            if len(words) == 4 and key[0] == 0:  # a live ready hand: call with the discard
                key = (0, key[1], 1)
            if best is None or key > best:
                best, choice = key, action
        return choice

    @staticmethod
    def _turn(observation, legal, counts, left) -> str:
        for action in legal:
            if action.startswith("call") and left[KINDS[action.split()[1]]]:
                return action
        if "take" in legal:
            if observation["locked"] is not None:
                return "take"  # offered only when it wins
            top = KIND[face(observation["pile"][-1])]
            before = kept(tuple(counts))
            counts[top] += 1
            if kept(tuple(counts)) > before:
                return "take"
        return "draw" if "draw" in legal else legal[0]
