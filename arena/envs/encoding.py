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


#: the arrays' dtypes, as objects: an allocation with one is quicker than with a type's name
#: (an environment allocates two arrays a step)
_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)
#: a card name's rank index, 0 (2) to 12 (A)
_RANK = {name: C.rank(card) - 2 for card, name in C.CARD_NAMES.items()}
#: a rank's name (``7``, ``Q``) to its index
_TOP = {name: r - 2 for r, name in C.RANK_NAMES.items()}


def _counts(names, scale: float) -> list[float]:
    """Copies per rank of the cards ``names``, each counting ``scale``."""
    out = [0.0] * 13
    rank = _RANK
    for name in names:
        out[rank[name]] += scale
    return out


class Encoding:
    """What every game's encoding has: ``size``, ``actions`` and ``fields``; ``observe`` and
    ``indices`` (each game's own), and from them ``index``, ``mask`` and ``action``."""

    size = actions = 0
    fields: list = []

    def observe(self, o: dict) -> np.ndarray:
        raise NotImplementedError

    def indices(self, o: dict, legal) -> list[int]:
        """The index of each action of ``legal`` (legal in observation ``o``), in order."""
        raise NotImplementedError

    def index(self, o: dict, action: str) -> int:
        """The index of a legal ``action`` in observation ``o``."""
        return self.indices(o, [action])[0]

    def mask(self, o: dict, legal) -> np.ndarray:
        """1 at the index of every legal action, else 0 (int8, shape ``(actions,)``)."""
        m = np.zeros(self.actions, dtype=np.int8)
        m[self.indices(o, legal)] = 1
        return m

    # -- read from the state (the environments' path) -----------------------------------

    def state_observation(self, state, seat: int):
        """``seat``'s vector, mask and indices (None where it is not to move: its mask is
        then all zero), as ``observe``, ``mask`` and ``indices`` make them of its
        observation and the legal list, but read from the state itself: the engine writes
        them (``state.encode``, compiled with it), building no observation (tests/
        test_envs.py checks the two paths give the same at every step of random games)."""
        vector, mask = np.empty(self.size, _FLOAT32), np.zeros(self.actions, _INT8)
        return vector, mask, state.encode(seat, vector, mask)

    def action(self, o: dict, legal, index: int) -> str | None:
        """The legal action at ``index``, or None where none is."""
        for action, i in zip(legal, self.indices(o, legal), strict=True):
            if i == index:
                return action
        return None


class VandtiaEncoding(Encoding):
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
        self.deck = float(deck)
        self.copies = deck // 13
        self.unit = 1.0 / self.copies
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
        unit, deck, n = 1.0 / self.copies, float(self.deck), self.players
        me, seats = o["seat"], o["seats"]
        top = [0.0] * 14
        top[_TOP[o["top"]] if o["top"] is not None else 13] = 1.0
        turn = [0.0] * n
        if o["to_move"] is not None:
            turn[(o["to_move"] - me) % n] = 1.0
        out = [1.0 if o["phase"] == "swap" else 0.0, 1.0 if o["phase"] == "play" else 0.0,
               1.0 if o["phase"] == "over" else 0.0]
        out += _counts(o["hand"], unit)
        out += _counts(seats[me]["known"], unit)
        out += _counts(o["pile"], unit)
        out.append(len(o["pile"]) / deck)
        out += top
        out += _counts(o["burned"], unit)
        out.append(o["stock"] / deck)
        out += turn
        out.append(o["move"] / o.get("move_cap", 250))
        for k in range(n):
            s = seats[(me + k) % n]
            out.append(s["hand"] / deck)
            out += _counts(s["known"], unit)
            out += _counts(s["faceup"], unit)
            slots = [0.0, 0.0, 0.0]
            for slot in s["facedown"]:
                slots[slot] = 1.0
            out += slots
            out.append(1.0 if s["out"] is not None else 0.0)
        return np.array(out, dtype=np.float32)

    # -- the actions ----------------------------------------------------------------------

    def indices(self, o: dict, legal) -> list[int]:
        """The index of each action of ``legal`` (legal in observation ``o``), in order."""
        known: dict[str, int] = {}
        for name in o["seats"][o["seat"]]["known"]:
            known[name] = known.get(name, 0) + 1
        c, swaps, out = self.copies, None, []
        for action in legal:
            word, _, rest = action.partition(" ")
            if word == "play":
                names = rest.split()
                used = 0
                if known:  # the known copies it uses, counted by name
                    left = dict(known)
                    for name in names:
                        if left.get(name, 0) > 0:
                            left[name] -= 1
                            used += 1
                out.append(self.play_base + (_RANK[names[0]] * c + len(names) - 1) * (c + 1)
                           + used)
            elif word == "draw":
                out.append(self.draw)
            elif word == "pickup":
                out.append(self.pickup)
            elif word == "flip":
                out.append(self.flip + int(rest))
            elif word == "swap":
                swaps = swaps or self._swaps(o)
                out.append(swaps[action])
            else:
                raise ArenaError(f"not a Vändtia action: {action!r}")
        return out

    def state_observation(self, state, seat: int):
        vector, mask = np.empty(self.size, _FLOAT32), np.zeros(self.actions, _INT8)
        return vector, mask, state.encode(seat, vector, mask, self.unit, self.deck, self.copies)

    def _swaps(self, o: dict) -> dict[str, int]:
        """Each swap's index: the first choice of three of the six set-up cards (sorted by
        rank, then suit) that names it."""
        six = sorted(o["hand"] + o["seats"][o["seat"]]["faceup"], key=C.parse)
        out: dict[str, int] = {}
        for i, chosen in enumerate(SWAPS):
            out.setdefault("swap " + " ".join(six[j] for j in chosen), i)
        return out


class CherkiEncoding(Encoding):
    """Cherki (three seats). Seats are counted from the observing seat; a copy count is
    divided by 4 (the copies of a face), a card count by the deck's 120.

    The vector, in order (``fields`` gives each field's name and width):

    ================  ====  ===================================================================
    ``phase``         3     one-hot: turn, discard, over
    ``to_move``       3     one-hot: the seat to move (from this seat)
    ``move``          1     the move number over the move cap
    ``hand``          30    own hand, copies per face (1C-9C, 1S-9S, 1M-9M, WF, RF, OT)
    ``locked``        13    one-hot: own locked pair's kind (1-9, WF, RF, OT), or (last) none
    ``drawn``         31    one-hot: the card just drawn or taken, or (last) none
    ``pile``          30    the discards still there, copies per face
    ``pile_top``      31    one-hot: the top discard, or (last) an empty pile
    ``stock``         1     the stock's cards
    ``winner``        4     one-hot: the winner (from this seat), or (last) none
    ``winning_hand``  30    the winner's hand, copies per face (all zero before)
    per seat (3x)     62    whether it called; its discards (30) and takes (30), copies per
                            face (at most 1: a face may come round more than four times); its
                            draws over 120
    ================  ====  ===================================================================

    Actions (404): ``call K`` (12, by kind), ``draw``, ``take``, ``discard F`` (30, by face),
    ``discard F call K`` (30 x 12).
    """

    def __init__(self, variant: str, players: int):
        from ..games.cherki import GAME

        self.game, self.variant, self.players = "cherki", GAME.check(variant, players), players
        self.fields = [("phase", 3), ("to_move", 3), ("move", 1), ("hand", 30), ("locked", 13),
                       ("drawn", 31), ("pile", 30), ("pile_top", 31), ("stock", 1),
                       ("winner", 4), ("winning_hand", 30)] + [
            (f"seat{k}", 62) for k in range(3)]
        self.size = sum(width for _, width in self.fields)
        self.actions = 12 + 2 + 30 + 30 * 12

    def observe(self, o: dict) -> np.ndarray:
        """The observation as a float32 vector of ``size``."""
        from ..games.cherki import FACES, KINDS

        me = o["seat"]

        def counts(names):  # a seat may discard a face more often than 4: at most 1
            out = [0.0] * 30
            for name in names:
                out[FACES[name]] += 0.25
            return [min(x, 1.0) for x in out]

        def one_hot(width, at):
            out = [0.0] * width
            out[at] = 1.0
            return out

        v = one_hot(3, ("turn", "discard", "over").index(o["phase"]))
        v += [0.0] * 3 if o["to_move"] is None else one_hot(3, (o["to_move"] - me) % 3)
        v.append(o["move"] / 250)
        v += counts(o["hand"])
        v += one_hot(13, KINDS[o["locked"]] if o["locked"] is not None else 12)
        v += one_hot(31, FACES[o["drawn"]] if o["drawn"] is not None else 30)
        v += counts(o["pile"])
        v += one_hot(31, FACES[o["pile"][-1]] if o["pile"] else 30)
        v.append(o["stock"] / 120)
        v += one_hot(4, (o["winner"] - me) % 3 if o["winner"] is not None else 3)
        v += counts(o["winning_hand"] or [])
        for k in range(3):
            seat = (me + k) % 3
            v.append(1.0 if o["called"][seat] else 0.0)
            v += counts(d["card"] for d in o["discards"] if d["seat"] == seat)
            v += counts(t["card"] for t in o["takes"] if t["seat"] == seat)
            v.append(o["draws"][seat] / 120)
        return np.array(v, dtype=np.float32)

    def indices(self, o: dict, legal) -> list[int]:
        """The index of each action of ``legal``, in order (``arena.games.cherki``'s
        ``ACTION_INDEX``, which ``encode`` uses too)."""
        from ..games.cherki import ACTION_INDEX

        try:
            return [ACTION_INDEX[action] for action in legal]
        except KeyError as e:
            raise ArenaError(f"not a Cherki action: {e.args[0]!r}") from None


class TractorEncoding(Encoding):
    """Tractor (four seats, two teams; both variants). Seats are counted from the observing
    seat (its partner is 2); a copy count is divided by 2 (each face is twice in the double
    deck). Faces in order: ``2C``, ``2D``, ``2H``, ``2S``, ``3C`` ... ``AS``, ``SJ``, ``BJ``.

    The vector, in order (``fields`` gives each field's name and width):

    ================  ====  ===================================================================
    ``phase``         4     one-hot: bid, bury, play, over
    ``to_move``       4     one-hot: the seat to move (from this seat)
    ``levels``        26    one-hot each: own team's level, the other team's (2 .. A)
    ``level_rank``    13    one-hot: the rank being played
    ``dealer``        5     one-hot: the dealer, or (last) not known yet
    ``trump``         6     one-hot: C, D, H, S, no trump suit, or not known yet
    ``standing``      10    the strongest declaration so far: its strength (none, single,
                            pair, small jokers, big jokers) and its seat (or none)
    ``hand``          54    own hand, copies per face
    ``kitty``         55    the kitty where this seat sees it, and whether it does
    ``buried``        54    own bury (the dealer's)
    ``picks``         54    own picks of the follow in progress
    ``leader``        5     one-hot: the trick's leader, or (last) none
    ``trick``         216   the trick's plays so far, per seat, copies per face
    ``played``        216   the cards each seat played in this deal's finished tricks
    ``points``        1     the attackers' points over 400 (at most 1)
    ``deal``          2     the deal number over 60, the finished tricks over 25
    ================  ====  ===================================================================

    Actions (2,603): bids (``pass``, ``declare`` a single or a pair of each suit, the small
    or the big jokers: 11), ``bury F`` (54), ``pick F`` (54), leads: a single, a pair (54
    each) and a tractor, by its first face, its pairs (2-12) and the suit of the level card
    it passes through after its first (each tier of a tractor has one face but the tier of
    the level cards outside the trump suit: 54 x 11 x 4).
    """

    TRACTOR = 227  # where the tractors' actions start

    def __init__(self, variant: str, players: int):
        from ..games.tractor import GAME

        self.game, self.variant, self.players = "tractor", GAME.check(variant, players), players
        self.fields = [("phase", 4), ("to_move", 4), ("levels", 26), ("level_rank", 13),
                       ("dealer", 5), ("trump", 6), ("standing", 10), ("hand", 54),
                       ("kitty", 55), ("buried", 54), ("picks", 54), ("leader", 5),
                       ("trick", 216), ("played", 216), ("points", 1), ("deal", 2)]
        self.size = sum(width for _, width in self.fields)
        self.actions = self.TRACTOR + 54 * 11 * 4

    def observe(self, o: dict) -> np.ndarray:
        """The observation as a float32 vector of ``size``."""
        from ..games.tractor import FACES_BY_NAME as FACES

        me = o["seat"]

        def counts(names, out=None):
            out = [0.0] * 54 if out is None else out
            for name in names:
                out[FACES[name]] += 0.5
            return out

        def one_hot(width, at):
            out = [0.0] * width
            out[at] = 1.0
            return out

        v = one_hot(4, ("bid", "bury", "play", "over").index(o["phase"]))
        v += [0.0] * 4 if o["to_move"] is None else one_hot(4, (o["to_move"] - me) % 4)
        team = me % 2
        v += one_hot(13, min(o["levels"][team], 14) - 2)
        v += one_hot(13, min(o["levels"][1 - team], 14) - 2)
        v += one_hot(13, o["level_rank"] - 2)
        v += one_hot(5, (o["dealer"] - me) % 4 if o["dealer"] is not None else 4)
        v += one_hot(6, "CDHS".index(o["trump"]) if o["trump"] in ("C", "D", "H", "S") else
                     4 if o["trump"] == "none" else 5)
        strength, seat = 0, 4
        for b in o["bids"]:
            if b["bid"] != "pass":
                first = b["bid"][0]
                strength = 4 if first == "BJ" else 3 if first == "SJ" else len(b["bid"])
                seat = (b["seat"] - me) % 4
        v += one_hot(5, strength) + one_hot(5, seat)
        v += counts(o["hand"])
        v += counts(o["kitty"] or []) + [1.0 if o["kitty"] is not None else 0.0]
        v += counts(o["buried"] or [])
        v += counts(o["picks"])
        leader = o["trick"]["leader"]
        v += one_hot(5, (leader - me) % 4 if leader is not None else 4)
        trick = [[0.0] * 54 for _ in range(4)]
        for seat_, cards in o["trick"]["plays"]:
            counts(cards, trick[(seat_ - me) % 4])
        played = [[0.0] * 54 for _ in range(4)]
        for t in o["tricks"]:
            for seat_, cards in t["plays"]:
                counts(cards, played[(seat_ - me) % 4])
        for rows in (trick, played):
            for row in rows:
                v += row
        v.append(min(o["points"] / 400, 1.0))
        v += [min(o["deal"] / 60, 1.0), len(o["tricks"]) / 25]
        return np.array(v, dtype=np.float32)

    def indices(self, o: dict, legal) -> list[int]:
        """The index of each action of ``legal``, in order (``arena.games.tractor``'s
        ``action_index``, which ``encode`` uses too)."""
        from ..games.tractor import action_index

        return [action_index(a, o["level_rank"]) for a in legal]


ENCODINGS = {"vandtia": VandtiaEncoding, "cherki": CherkiEncoding,
             "tractor": TractorEncoding}


def encoding(game: str, variant: str, players: int):
    """The encoding of ``game``'s observations at this variant and player count."""
    if game not in ENCODINGS:
        raise ArenaError(f"no encoding for {game!r} yet (there is one for: "
                         f"{', '.join(ENCODINGS)})")
    return ENCODINGS[game](variant, players)
