"""``greedy`` for Cherki: a sensible heuristic, no search.

* Calls as soon as it is ready (before drawing, or with the discard that makes it ready).
* Takes the top discard only when it makes a triple with its hand (or, once called, when it
  wins); otherwise draws.
* Discards the card that builds least: isolated cards before pairs before triples, and among
  those, the one whose value is deadest - the fewest copies still unseen, counting its own
  hand, the pile and the cards others took.
"""

from __future__ import annotations

import arena
from arena.games.cherki import KIND, face

COPIES = [12] * 9 + [4] * 3  # cards of each kind in the double deck


class GreedyCherki:
    def act(self, observation, legal):
        calls = [a for a in legal if "call" in a]
        if calls:
            return calls[0]
        if observation["phase"] == "turn":
            return self._turn(observation, legal)
        return self._discard(observation, legal)

    @staticmethod
    def _kinds(names) -> list[int]:
        k = [0] * 12
        for n in names:
            k[KIND[face(n)]] += 1
        return k

    def _turn(self, observation, legal):
        if "take" in legal:
            top = KIND[face(observation["pile"][-1])]
            if observation["locked"] is not None or self._kinds(observation["hand"])[top] >= 2:
                return "take"
        return "draw" if "draw" in legal else legal[0]

    def _discard(self, observation, legal):
        mine = self._kinds(observation["hand"])
        seen = self._kinds(observation["pile"])
        me = observation["seat"]
        for take in observation["takes"]:
            if take["seat"] != me:
                seen[KIND[face(take["card"])]] += 1

        def keep(action):
            k = KIND[face(action.split()[1])]
            return (min(mine[k], 3), COPIES[k] - mine[k] - seen[k])

        return min(legal, key=keep)


@arena.hookimpl
def register_bots(register):
    register("greedy", GreedyCherki, games=["cherki"], options={})
