"""``greedy``: a sensible heuristic for each game it plays.

Vändtia: play the lowest legal group, all copies together (sets shed cards fast and set up
burns); keep 2s and 10s for emergencies, using them only when nothing else fits (a 10 when
the pile is worth burning, else a 2) and trying the stock first where the variant allows;
at the set-up swap put the strongest cards face-up (10s and 2s, then aces down), keeping
low cards in hand to play early.
"""

import arena

# Strength for the set-up swap: 10 and 2 best, then A K Q J 9 ... 3.
_STRENGTH = {"10": 20, "2": 19, "A": 14, "K": 13, "Q": 12, "J": 11}
_ORDER = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "J": 11, "Q": 12,
          "K": 13, "A": 14, "2": 2, "10": 10}


def _rank(card: str) -> str:
    return card[:-1]


def _strength(card: str) -> int:
    r = _rank(card)
    return _STRENGTH.get(r) or int(r)


class GreedyVandtia:
    def act(self, observation, legal):
        first = legal[0]
        if first.startswith("swap"):
            return max(legal, key=lambda a: (sum(_strength(c) for c in a.split()[1:]), a))
        if first.startswith("flip"):
            return first
        plays = [a.split()[1:] for a in legal if a.startswith("play")]
        ordinary = [p for p in plays if _rank(p[0]) not in ("2", "10")]
        if ordinary:
            low = min(_ORDER[_rank(p[0])] for p in ordinary)
            best = max((p for p in ordinary if _ORDER[_rank(p[0])] == low), key=len)
            return "play " + " ".join(best)
        if "draw" in legal:
            return "draw"
        specials = {_rank(p[0]): p for p in plays}  # the last, longest play of each rank
        if "10" in specials and (len(observation["pile"]) >= 5 or "2" not in specials):
            return "play " + specials["10"][0]
        if "2" in specials:
            return "play " + specials["2"][0]
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("greedy", GreedyVandtia, games=["vandtia"], options={})
