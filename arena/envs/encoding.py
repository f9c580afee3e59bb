"""Encodings: a seat's observation as a fixed-size vector, and its legal actions as indices
of a fixed action space with a mask (docs/game-api.md, "Encodings").

An encoding is a pure function of the observation dict a bot is given (and of the legal
list beside it), so a bot in the sandbox and a trainer use the same code, and it holds
nothing the seat does not know. Its sizes depend on the game, variant and player count
only. Every legal action has its own index (no two share one), so the mask has as many ones
as the legal list has actions, and an index names one legal action back (or none: an
index the mask does not allow).

    enc = encoding("vandtia", "cardems", 2)
    vector = enc.observe(observation)              # float32, shape (enc.size,)
    mask = enc.mask(observation, legal)            # int8, shape (enc.actions,)
    action = enc.action(observation, legal, index) # the legal action there, or None
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .. import cards as C
from ..errors import ArenaError

RANKS = list(range(2, 15))  # 2 .. A
SWAPS = list(combinations(range(6), 3))  # which 3 of the 6 set-up cards lie face-up


def _rank(name: str) -> int:
    """A Vändtia card name's rank index, 0 (2) to 12 (A)."""
    return C.rank(C.parse(name)) - 2


class VandtiaEncoding:
    """Vändtia, any variant and player count. Seats are counted from the observing seat
    (0 is itself, 1 the next to play after it, and so on); a copy count is divided by the
    copies of a rank in the deck (4, or 8 with two decks), a card count by the deck's size.

    The vector, in order (``fields`` gives each field's name and width):

    ==================  ====  ===================================================================
    ``phase``           3     one-hot: swap, play, over
    ``hand``            13    own hand, copies per rank (2 .. A)
    ``hand_known``      13    copies per rank of own hand that the others know
    ``pile``            13    the pile, copies per rank
    ``pile_size``       1     the pile's cards
    ``top``             14    one-hot: the rank to match, or (last) anything goes
    ``burned``          13    burned cards, copies per rank
    ``stock``           1     the stock's cards
    ``to_move``         P     one-hot: the seat to move (from this seat)
    ``move``            1     the move number over the move cap
    per seat (P times)  31    its hand's cards; its known hand cards (13); its face-up cards
                              (13); which of its three face-down slots are still there (3); out
    ==================  ====  ===================================================================

    Actions: ``swap`` (20: which three of the six set-up cards, sorted by rank then suit,
    lie face-up; a swap that two choices name alike takes the first), ``play`` (one per rank,
    count and known copies used: 13 x C x (C + 1), C the copies of a rank), ``draw``,
    ``pickup``, ``flip 0-2``.
    """

    def __init__(self, variant: str, players: int):
        from ..games.vandtia import GAME

        variant = GAME.check(variant, players)
        o = GAME.new_state(variant, players, 0).observation(0)  # every card, as dealt
        deck = (len(o["hand"]) + o["stock"] + sum(s["hand"] for s in o["seats"][1:])
                + sum(len(s["faceup"]) + len(s["facedown"]) for s in o["seats"]))
        self.game, self.variant, self.players = "vandtia", variant, players
        self.deck = deck
        self.copies = deck // 13
        c = self.copies
        self.fields = [("phase", 3), ("hand", 13), ("hand_known", 13), ("pile", 13),
                       ("pile_size", 1), ("top", 14), ("burned", 13), ("stock", 1),
                       ("to_move", players), ("move", 1)] + [
            (f"seat{k}", 31) for k in range(players)]
        self.size = sum(width for _, width in self.fields)
        self.play_base = len(SWAPS)
        self.draw = self.play_base + 13 * c * (c + 1)
        self.pickup, self.flip = self.draw + 1, self.draw + 2
        self.actions = self.flip + 3

    # -- the observation ------------------------------------------------------------------

    def observe(self, o: dict) -> np.ndarray:
        """The observation as a float32 vector of ``size``."""
        c, deck, n = float(self.copies), float(self.deck), self.players
        me = o["seat"]
        v = np.zeros(self.size, dtype=np.float32)
        v[("swap", "play", "over").index(o["phase"])] = 1.0
        at = 3
        for name in o["hand"]:
            v[at + _rank(name)] += 1.0 / c
        at += 13
        for name in o["seats"][me]["known"]:
            v[at + _rank(name)] += 1.0 / c
        at += 13
        for name in o["pile"]:
            v[at + _rank(name)] += 1.0 / c
        at += 13
        v[at] = len(o["pile"]) / deck
        at += 1
        v[at + (RANKS.index(_top(o["top"])) if o["top"] is not None else 13)] = 1.0
        at += 14
        for name in o["burned"]:
            v[at + _rank(name)] += 1.0 / c
        at += 13
        v[at] = o["stock"] / deck
        at += 1
        if o["to_move"] is not None:
            v[at + (o["to_move"] - me) % n] = 1.0
        at += n
        v[at] = o["move"] / o.get("move_cap", 250)
        at += 1
        for k in range(n):
            s = o["seats"][(me + k) % n]
            v[at] = s["hand"] / deck
            for name in s["known"]:
                v[at + 1 + _rank(name)] += 1.0 / c
            for name in s["faceup"]:
                v[at + 14 + _rank(name)] += 1.0 / c
            for slot in s["facedown"]:
                v[at + 27 + slot] = 1.0
            v[at + 30] = 1.0 if s["out"] is not None else 0.0
            at += 31
        return v

    # -- the actions ----------------------------------------------------------------------

    def index(self, o: dict, action: str) -> int:
        """The index of a legal ``action`` in observation ``o``."""
        word, _, rest = action.partition(" ")
        if word == "play":
            names = rest.split()
            known: dict[str, int] = {}
            for name in o["seats"][o["seat"]]["known"]:
                known[name] = known.get(name, 0) + 1
            used = 0
            for name in names:
                if known.get(name, 0) > 0:
                    known[name] -= 1
                    used += 1
            c = self.copies
            return self.play_base + (_rank(names[0]) * c + len(names) - 1) * (c + 1) + used
        if word == "draw":
            return self.draw
        if word == "pickup":
            return self.pickup
        if word == "flip":
            return self.flip + int(rest)
        if word == "swap":
            return self._swaps(o)[action]
        raise ArenaError(f"not a Vändtia action: {action!r}")

    def _swaps(self, o: dict) -> dict[str, int]:
        """Each swap's index: the first choice of three of the six set-up cards (sorted by
        rank, then suit) that names it."""
        six = sorted(o["hand"] + o["seats"][o["seat"]]["faceup"], key=C.parse)
        out: dict[str, int] = {}
        for i, chosen in enumerate(SWAPS):
            cards = sorted((six[j] for j in chosen), key=C.parse)
            out.setdefault("swap " + " ".join(cards), i)
        return out

    def mask(self, o: dict, legal: list) -> np.ndarray:
        """1 at the index of every legal action, else 0 (int8, shape ``(actions,)``)."""
        m = np.zeros(self.actions, dtype=np.int8)
        for action in legal:
            m[self.index(o, action)] = 1
        return m

    def action(self, o: dict, legal: list, index: int) -> str | None:
        """The legal action at ``index``, or None where none is."""
        for action in legal:
            if self.index(o, action) == index:
                return action
        return None


def _top(name: str) -> int:
    """A rank's number from its name (``7``, ``Q``)."""
    return next(r for r, n in C.RANK_NAMES.items() if n == name)


def encoding(game: str, variant: str, players: int):
    """The encoding of ``game``'s observations at this variant and player count."""
    if game == "vandtia":
        return VandtiaEncoding(variant, players)
    raise ArenaError(f"no encoding for {game!r} yet (there is one for: vandtia)")
