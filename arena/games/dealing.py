"""Dealing hidden cards uniformly under constraints, for worlds (``game.world``).

The unseen cards go into *places* (hands, a kitty...) of fixed sizes; each card may go only
to some of them (a seat that showed a void in a suit takes none of that suit; a card known
to be in one of two places goes to one of those). :class:`Dealer` draws an assignment
uniformly among all that fit: cards are grouped by the places they allow; the number of
ways to place groups ``i..`` into the room left is

    W(i, room) = sum over splits x of group i:  m_i! / prod(x_j!) * W(i + 1, room - x)

with the groups that allow every place merged into one last, free group, placed in
``m! / prod(room_j!)`` ways. The last constrained group and the free one together need no
sum (Vandermonde's identity): with ``m`` cards allowed in places ``A``, ``f`` free cards
and the room filled exactly,

    W(last, room) = m! f! / prod(room_j!) * C(sum of room_j over A, m).

A draw chooses each earlier group's split with probability proportional to its term, then
which of its cards go where uniformly; the last group's cards take uniformly chosen slots
among the room left in ``A``, and the free cards the slots left anywhere.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, product


class Dealer:
    """Uniform assignments of ``groups`` - ``(cards, allowed places)`` - into places of
    ``sizes``; ``ways`` counts them (0: nothing fits)."""

    def __init__(self, groups: list[tuple[list, frozenset[int]]], sizes: list[int]):
        self.sizes = tuple(sizes)
        everywhere = frozenset(range(len(sizes)))
        merged: dict[frozenset, list] = {}
        for cards, allowed in groups:
            if cards:
                merged.setdefault(frozenset(allowed) & everywhere, []).extend(cards)
        self.free = merged.pop(everywhere, [])
        self.groups = [(cards, sorted(allowed)) for allowed, cards in
                       sorted(merged.items(), key=lambda kv: (len(kv[0]), sorted(kv[0])))]
        self._count = lru_cache(maxsize=None)(self._ways)
        self.ways = self._count(0, self.sizes)
        self._options: dict = {}  # (group, room) -> the splits that fit, running weights

    def _splits(self, i: int, room: tuple[int, ...]):
        cards, allowed = self.groups[i]
        m = len(cards)
        for head in product(*(range(min(m, room[j]) + 1) for j in allowed[:-1])):
            last = m - sum(head)
            if 0 <= last <= room[allowed[-1]]:
                yield dict(zip(allowed, (*head, last), strict=True))

    def _terms(self, i: int, room: tuple[int, ...]):
        """``(split, room left, ways)`` for each split of group ``i`` into ``room``."""
        m = math.factorial(len(self.groups[i][0]))
        for split in self._splits(i, room):
            rest = tuple(r - split.get(j, 0) for j, r in enumerate(room))
            yield split, rest, (m // math.prod(map(math.factorial, split.values()))
                                * self._count(i + 1, rest))

    def _ways(self, i: int, room: tuple[int, ...]) -> int:
        free = len(self.free)
        if i == len(self.groups):
            if sum(room) != free:
                return 0
            return math.factorial(free) // math.prod(map(math.factorial, room))
        if i == len(self.groups) - 1:  # the last constrained group: Vandermonde
            cards, allowed = self.groups[i]
            m = len(cards)
            if sum(room) != m + free:
                return 0
            return (math.factorial(m) * math.factorial(free)
                    * math.comb(sum(room[j] for j in allowed), m)
                    // math.prod(map(math.factorial, room)))
        return sum(w for _, _, w in self._terms(i, room))

    def deal(self, rng: random.Random) -> list[list]:
        """One assignment, each fitting one equally likely: the cards of every place."""
        if not self.ways:
            raise ValueError("no assignment fits")
        places: list[list] = [[] for _ in self.sizes]
        room = self.sizes
        for i, (cards, _) in enumerate(self.groups[:-1]):
            found = self._options.get((i, room))
            if found is None:  # worlds drawn again and again meet the same rooms
                options = [t for t in self._terms(i, room) if t[2]]
                found = self._options[i, room] = (options, list(accumulate(
                    w for _, _, w in options)))
            options, running = found
            split, rest, _ = options[bisect_right(running, rng.randrange(running[-1]))]
            shuffled = list(cards)
            rng.shuffle(shuffled)
            for j, n in split.items():
                places[j] += shuffled[:n]
                shuffled = shuffled[n:]
            room = rest
        if self.groups:  # the last group: uniformly chosen slots among its places' room
            cards, allowed = self.groups[-1]
            slots = [j for j in allowed for _ in range(room[j])]
            room = list(room)
            for card, j in zip(cards, rng.sample(slots, len(cards)), strict=True):
                places[j].append(card)
                room[j] -= 1
        free = list(self.free)
        rng.shuffle(free)
        for j, n in enumerate(room):
            places[j] += free[:n]
            free = free[n:]
        return places
