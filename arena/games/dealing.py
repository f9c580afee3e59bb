"""Dealing hidden cards uniformly under constraints, for worlds (``game.world``).

The unseen cards go into *places* (hands, a kitty...) of fixed sizes; each card may go only
to some of them (a seat that showed a void in a suit takes none of that suit; a card known
to be in one of two places goes to one of those). :class:`Dealer` draws an assignment
uniformly among all that fit: cards are grouped by the places they allow; the number of
ways to place groups ``i..`` into the room left is

    W(i, room) = sum over splits x of group i:  m_i! / prod(x_j!) * W(i + 1, room - x)

with the groups that allow every place merged into one last group, placed in
``m! / prod(room_j!)`` ways. A draw chooses each group's split with probability proportional
to its term, then which of its cards go where uniformly.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from itertools import product


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
        if i == len(self.groups):
            if sum(room) != len(self.free):
                return 0
            return math.factorial(len(self.free)) // math.prod(map(math.factorial, room))
        return sum(w for _, _, w in self._terms(i, room))

    def deal(self, rng: random.Random) -> list[list]:
        """One assignment, each fitting one equally likely: the cards of every place."""
        if not self.ways:
            raise ValueError("no assignment fits")
        places: list[list] = [[] for _ in self.sizes]
        room = self.sizes
        for i, (cards, _) in enumerate(self.groups):
            options = [t for t in self._terms(i, room) if t[2]]
            weights = [w for _, _, w in options]
            pick, k = rng.randrange(sum(weights)), 0
            while pick >= weights[k]:
                pick -= weights[k]
                k += 1
            split, rest, _ = options[k]
            shuffled = list(cards)
            rng.shuffle(shuffled)
            for j, n in split.items():
                places[j] += shuffled[:n]
                shuffled = shuffled[n:]
            room = rest
        free = list(self.free)
        rng.shuffle(free)
        for j, n in enumerate(room):
            places[j] += free[:n]
            free = free[n:]
        return places
