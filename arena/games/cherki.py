"""Cherki: three players, 120 money-suited cards, two triples and a pair (rules: cherki.md).

Faces 0-29: numerals ``1C``-``9C`` (coins), ``1S``-``9S`` (strings), ``1M``-``9M`` (myriads),
then the honours ``WF`` (White Flower), ``RF`` (Red Flower) and ``OT`` (Old Thousand); each
face four times. A card's *kind* is its value: the number of a numeral (``"1"``-``"9"``,
whatever the suit), or the honour itself. Actions are short strings:

====================  ========================================================================
``call 7``            call Cherki before drawing, locking the pair of kind ``7`` (the triples
                      are the other six cards)
``draw`` / ``take``   the top stock card / the top discard
``discard 7C``        discard a card (back to 8)
``discard 7C call 3`` discard and call with the hand left, its pair of kind ``3``
====================  ========================================================================

Observation of a seat: ``seat``, ``players`` (3), ``dealer``, ``phase`` (``turn``: may call,
draw or take; ``discard``: holds nine; ``over``), ``to_move``, ``move``, ``hand`` (own
cards), ``called`` (per seat, true once it called), ``calls`` (per seat, the move of its
call, or null), ``locked`` (own locked pair kind, or null), ``pile`` (the discards still
there, top last), ``discards`` and ``takes`` (every one, in order, with the seat and the
move), ``drawn`` (the card this seat just drew or took, while it must discard; else null),
``draws`` (per seat), ``stock`` (a count), ``winner`` and ``winning_hand`` once won. The
legal actions come beside it, to the mover.

Choices where the rules page is silent (each has a test):

* Dealing: two cards at a time from the top of the shuffled double deck, left of the dealer
  first; the stock is the rest, its top the next card.
* A call names only the pair's kind: the two triples are then the rest of the hand.
* A called player may still choose *which* card to take or draw: ``take`` is offered only
  when the top discard has the locked pair's kind; after any other card, ``discard X`` (that
  very card) is its only action.
* The drawn deal at the cap also holds when the cap falls in the middle of a turn.
"""

from __future__ import annotations

import math
import random

from .. import cards as C
from ..errors import GameError, IllegalAction
from ..hookspecs import hookimpl
from . import Finished, Game, MarkedDeltas, Result, check_keys, take_compiled

SUITS = "CSM"
FACE_NAMES = [f"{n}{s}" for s in SUITS for n in range(1, 10)] + ["WF", "RF", "OT"]
FACES = {name: f for f, name in enumerate(FACE_NAMES)}
KIND = [f % 9 if f < 27 else f - 18 for f in range(30)]  # numerals 0-8, honours 9-11
KIND_NAMES = [str(k + 1) for k in range(9)] + ["WF", "RF", "OT"]
KINDS = {name: k for k, name in enumerate(KIND_NAMES)}
VALUE = [f % 9 + 1 if f < 27 else 1 for f in range(30)]
MOVE_CAP = 250


def face(name: str) -> int:
    try:
        return FACES[name.upper()]
    except (KeyError, AttributeError):
        raise GameError(f"not a Cherki card: {name!r}") from None


DISCARD = [f"discard {n}" for n in FACE_NAMES]
DISCARD_CALL = [[f"discard {n} call {k}" for k in KIND_NAMES] for n in FACE_NAMES]
CALL = [f"call {k}" for k in KIND_NAMES]


def ready_pairs(kinds: list[int]) -> tuple[int, ...]:
    """The pair kinds of every split of an 8-card hand (kind counts) into two triples and a
    pair; empty when the hand is not ready.

    Taking the pair out must leave every count a multiple of three, so the counts mod 3 are
    0 everywhere but at the pair's kind, where they are 2: the split, if any, is unique."""
    rs = [n % 3 for n in kinds]
    if rs.count(2) == 1 and 1 not in rs:
        return (rs.index(2),)
    return ()


def discard_calls(kinds: list[int]) -> dict[int, tuple[int, ...]]:
    """For a 9-card hand (kind counts): the kinds whose discard leaves a ready hand, each
    with the pair kind it could call. By the same counting mod 3: either every count is a
    multiple of three (discard and pair from one kind holding three or more), or exactly one
    kind is 1 mod 3 (the discard) and one is 2 mod 3 (the pair)."""
    rs = [n % 3 for n in kinds]
    ones, twos = rs.count(1), rs.count(2)
    if ones == 1 and twos == 1:
        return {rs.index(1): (rs.index(2),)}
    if not ones and not twos:
        return {k: (k,) for k, n in enumerate(kinds) if n >= 3}
    return _NONE


_NONE: dict[int, tuple[int, ...]] = {}
_FACES = range(30)


class CherkiState(MarkedDeltas, Finished):
    """One deal of Cherki. Build it with :class:`Cherki`."""

    #: the observation's members a mark holds (``_members``), and its logs (``MarkedDeltas``)
    MARKED = ("dealer", "phase", "to_move", "called", "calls", "locked", "drawn", "draws",
              "stock", "winner", "winning_hand")
    LOGS = ("discards", "takes")

    def __init__(self, hands: list[list[int]], stock: list[int], dealer: int,
                 record: bool = False):
        self.n = 3
        self.dealer = dealer
        self.hands = [[0] * 30 for _ in range(3)]
        self.kinds = [[0] * 12 for _ in range(3)]
        for p, cards in enumerate(hands):
            for f in cards:
                self.hands[p][f] += 1
                self.kinds[p][KIND[f]] += 1
        self.stock = list(stock)  # top is the last element
        self.pile: list[int] = []
        self.discards: list[dict] = []
        self.takes: list[dict] = []
        self.draws = [0, 0, 0]
        self.locked: list[int | None] = [None, None, None]
        self.call_moves: list[int | None] = [None, None, None]  # the move of each call
        self.to_move = (dealer + 1) % 3
        self.phase = "turn"
        self.last_drawn: int | None = None
        self.forced: int | None = None  # a caller must discard this card
        self.stock_out = False
        self.moves = 0
        self.over = False
        self.reason: str | None = None
        self.winner: int | None = None
        self.winning_hand: list[int] | None = None
        self._ranks: list[int] | None = None
        self._scores: list[int] | None = None
        self._legal: tuple | None = None
        self.events: list | None = [] if record else None

    def hand_list(self, p: int) -> list[int]:
        """Seat ``p``'s hand, a face per card, by face."""
        hand = self.hands[p]
        out = []
        for f in range(30):
            k = hand[f]
            while k:
                out.append(f)
                k -= 1
        return out

    def hand_names(self, p: int) -> list[str]:
        """``hand_list(p)``, each face by its name."""
        return [FACE_NAMES[f] for f in self.hand_list(p)]

    # -- legal actions --------------------------------------------------------------------

    def legal_actions(self) -> tuple:
        if self._legal is None:
            self._legal = () if self.over else tuple(
                self._turn() if self.phase == "turn" else self._discards())
        return self._legal

    def _turn(self) -> list[str]:
        p = self.to_move
        out = []
        if self.locked[p] is None:
            out += [CALL[k] for k in ready_pairs(self.kinds[p])]
        if self.stock:
            out.append("draw")
        if self.pile and (self.locked[p] is None or KIND[self.pile[-1]] == self.locked[p]):
            out.append("take")
        return out

    def _discards(self) -> list[str]:
        p = self.to_move
        if self.forced is not None:
            return [DISCARD[self.forced]]
        hand = self.hands[p]
        calls = discard_calls(self.kinds[p])
        if not calls:
            return [DISCARD[f] for f in range(30) if hand[f]]
        out = []
        for f in range(30):
            if hand[f]:
                out.append(DISCARD[f])
                if KIND[f] in calls:
                    out += [DISCARD_CALL[f][c] for c in calls[KIND[f]]]
        return out

    # -- moves ----------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal here")
        self._legal = None
        p = self.to_move
        self.moves += 1
        if action == "draw" or action == "take":
            self._pick_up(p, action)
        elif action[0] == "d":
            words = action.split()
            self._discard(p, FACES[words[1]], KINDS[words[3]] if len(words) == 4 else None)
        else:
            self._call(p, KINDS[action[5:]])
        if not self.over and self.moves >= MOVE_CAP:
            self._end(None, "cap")

    def _call(self, p: int, pair: int) -> None:
        self.locked[p], self.call_moves[p] = pair, self.moves
        self._event(p, "call", pair=KIND_NAMES[pair])

    def _pick_up(self, p: int, how: str) -> None:
        if how == "draw":
            f = self.stock.pop()
            self.draws[p] += 1
            self.stock_out = not self.stock
        else:
            f = self.pile.pop()
            self.takes.append({"seat": p, "card": FACE_NAMES[f], "move": self.moves})
        self.hands[p][f] += 1
        self.kinds[p][KIND[f]] += 1
        self.last_drawn = f
        if self.events is not None:
            self._event(p, how, card=FACE_NAMES[f])
        if self.locked[p] is not None:
            if KIND[f] == self.locked[p]:
                self.winning_hand = self.hand_list(p)
                self._end(p, "win")
                return
            self.forced = f
        self.phase = "discard"

    def _discard(self, p: int, f: int, call: int | None) -> None:
        self.hands[p][f] -= 1
        self.kinds[p][KIND[f]] -= 1
        self.pile.append(f)
        self.discards.append({"seat": p, "card": FACE_NAMES[f], "move": self.moves})
        self.forced = None
        if call is not None:
            self.locked[p], self.call_moves[p] = call, self.moves
        if self.events is not None:
            self._event(p, "discard", card=FACE_NAMES[f],
                        call=KIND_NAMES[call] if call is not None else None)
        if self.stock_out:
            self._end(None, "stock")
            return
        self.phase = "turn"
        self.to_move = (p + 1) % 3

    def _end(self, winner: int | None, reason: str) -> None:
        self.winner, self.reason, self.over = winner, reason, True
        if winner is None:
            self._ranks, self._scores = [1, 1, 1], [0, 0, 0]
        else:
            t = sum(VALUE[f] for f in self.winning_hand)
            self._ranks = [1 if p == winner else 2 for p in range(3)]
            self._scores = [2 * t if p == winner else -t for p in range(3)]
        self.to_move, self.phase, self._legal = None, "over", None
        self._event(winner, "end", reason=reason, scores=list(self._scores),
                    hand=[FACE_NAMES[f] for f in self.winning_hand or []] or None)

    def forfeit(self, seat: int) -> None:
        """End now with ``seat`` last: the other two share first place, nothing is paid."""
        if not self.over:
            self._ranks = [3 if p == seat else 1 for p in range(3)]
            self._scores = [0, 0, 0]
            self.over, self.reason, self.to_move, self.phase = True, "forfeit", None, "over"
            self._legal = None

    # -- search ---------------------------------------------------------------------------

    def copy(self) -> CherkiState:
        """An independent copy (no events), for search."""
        new = CherkiState.__new__(CherkiState)
        new.__dict__.update(self.__dict__)
        new.hands = [list(h) for h in self.hands]
        new.kinds = [list(k) for k in self.kinds]
        new.stock, new.pile = list(self.stock), list(self.pile)
        new.discards, new.takes = list(self.discards), list(self.takes)
        new.draws, new.locked = list(self.draws), list(self.locked)
        new.call_moves = list(self.call_moves)
        new.winning_hand = list(self.winning_hand) if self.winning_hand else None
        new.events = None
        return new

    def playout(self, rng: random.Random, trace: list | None = None,
                greedy: float = 0.0) -> Result:
        """Play on to the end and return the result: each move uniformly random among the
        legal actions or, with probability ``greedy``, a cheap greedy one (call when ready;
        take a discard that makes a triple, or wins; else draw; discard a card of the kind
        held least). Modifies this state (``copy`` first); ``trace`` receives the actions.

        One loop over the state's own counts: the legal actions are counted and chosen
        among as numbers, in the order ``legal_actions`` lists them, and no action string
        is built unless ``trace`` asks for it (a test replays traces through ``apply``)."""
        rand = rng.random
        hands, kinds_of, locked, stock, pile = (self.hands, self.kinds, self.locked,
                                                 self.stock, self.pile)
        while not self.over:
            p = self.to_move
            kinds = kinds_of[p]
            self.moves += 1
            if self.phase == "turn":
                lock = locked[p]
                calls = ready_pairs(kinds) if lock is None else ()
                take = bool(pile) and (lock is None or KIND[pile[-1]] == lock)
                n = len(calls) + (1 if stock else 0) + take
                if greedy and rand() < greedy:
                    if calls:
                        x = 0
                    elif take and (lock is not None or kinds[KIND[pile[-1]]] >= 2):
                        x = n - 1
                    else:
                        x = 0  # draw when there is stock, else the take
                else:
                    x = int(rand() * n)
                if x < len(calls):
                    if trace is not None:
                        trace.append(CALL[calls[x]])
                    self._call(p, calls[x])
                else:
                    how = "draw" if stock and x == len(calls) else "take"
                    if trace is not None:
                        trace.append(how)
                    self._pick_up(p, how)
            else:
                if self.forced is not None:
                    f, call = self.forced, None
                else:
                    hand = hands[p]
                    held = [f for f in _FACES if hand[f]]
                    calls = discard_calls(kinds)
                    if calls:
                        options = []
                        for f in held:
                            options.append((f, None))
                            options += [(f, c) for c in calls.get(KIND[f], ())]
                    if greedy and rand() < greedy:
                        if calls:
                            f, call = next(o for o in options if o[1] is not None)
                        else:
                            f, call = min(held, key=lambda f: min(kinds[KIND[f]], 3)), None
                    elif calls:
                        f, call = options[int(rand() * len(options))]
                    else:
                        f, call = held[int(rand() * len(held))], None
                if trace is not None:
                    trace.append(DISCARD[f] if call is None else DISCARD_CALL[f][call])
                self._discard(p, f, call)
            if not self.over and self.moves >= MOVE_CAP:
                self._end(None, "cap")
        self._legal = None
        return self.result()

    # -- what a seat knows ----------------------------------------------------------------

    def observation(self, seat: int) -> dict:
        """What ``seat`` knows. The records of ``discards`` and ``takes`` are the state's
        own, made once and never changed, and shared by every observation (read them, do
        not change them): so building one costs the same late in a deal as early, and the
        runner's observation delta (``arena.sandbox.deltas``) finds an earlier
        observation's records in a later one by identity, not by comparing them."""
        (dealer, phase, to_move, called, calls, locked, drawn, draws, stock, winner,
         winning_hand) = self._members(seat)
        return {
            "game": "cherki", "seat": seat, "players": 3, "dealer": dealer, "phase": phase,
            "to_move": to_move, "move": self.moves,
            "hand": self.hand_names(seat), "called": called,
            "calls": calls, "locked": locked,
            "pile": [FACE_NAMES[f] for f in self.pile], "discards": list(self.discards),
            "takes": list(self.takes), "drawn": drawn, "draws": draws, "stock": stock,
            "winner": winner, "winning_hand": winning_hand,
        }

    def _always(self, seat: int) -> dict:
        """The members of ``seat``'s observation that change nearly every move, set in
        every delta (``MarkedDeltas``)."""
        return {"move": self.moves, "hand": self.hand_names(seat),
                "pile": [FACE_NAMES[f] for f in self.pile]}

    def _logs(self) -> tuple:
        """Each log (``LOGS``), with its length."""
        return (self.discards, len(self.discards)), (self.takes, len(self.takes))

    def _members(self, seat: int) -> tuple:
        """The values of ``seat``'s observation's members that a mark holds (``MARKED``):
        all but its constant ones, ``_always``'s and the logs."""
        return (self.dealer, self.phase, self.to_move,
                [lock is not None for lock in self.locked], list(self.call_moves),
                KIND_NAMES[self.locked[seat]] if self.locked[seat] is not None else None,
                (FACE_NAMES[self.last_drawn] if self.phase == "discard"
                 and self.to_move == seat else None),
                list(self.draws), len(self.stock), self.winner,
                [FACE_NAMES[f] for f in self.winning_hand] if self.winning_hand else None)

    def encode(self, seat: int, out, mask):
        """``seat``'s observation and legal actions as ``arena.envs.encoding``'s Cherki
        encoding makes them, read from the state (``encode``)."""
        return encode(self, seat, out, mask)

    def reveal(self) -> dict:
        """Every hidden card, for a spectator who sees everything (a replay's view of the
        whole table; never sent to a bot): the three hands, each caller's pair, the card
        the mover just drew, and the stock, top first."""
        return {"hands": [self.hand_names(p) for p in range(3)],
                "locked": [KIND_NAMES[k] if k is not None else None for k in self.locked],
                "drawn": (FACE_NAMES[self.last_drawn] if self.phase == "discard"
                          and self.last_drawn is not None else None),
                "stock": [FACE_NAMES[f] for f in reversed(self.stock)]}

    def all_faces(self) -> list[int]:
        return [f for p in range(3) for f in self.hand_list(p)] + self.stock + self.pile

    def _event(self, seat, stage: str, **info) -> None:
        if self.events is not None:
            self.events.append({"move": self.moves, "seat": seat, "stage": stage,
                                **{k: v for k, v in info.items() if v is not None}})


# -- worlds: full deals consistent with one seat's observation -------------------------------

#: Every ready hand as kind counts: a pair of kind ``k`` and triples of kinds ``a <= b``.
# each action's index in arena.envs.encoding's Cherki action space
ACTION_INDEX = {"draw": 12, "take": 13, **{a: k for k, a in enumerate(CALL)},
                **{a: 14 + f for f, a in enumerate(DISCARD)},
                **{a: 44 + f * 12 + k for f, row in enumerate(DISCARD_CALL)
                   for k, a in enumerate(row)}}


def _record_counts(state: CherkiState) -> list:
    """Per seat, its discards then its takes, copies per face (``3 * 60`` counts), kept on
    the state between calls (``_records``) and brought up to date with the records made
    since: they only grow, and a copy of the state, whose lists are its own, counts them
    again. For ``encode``: so a step of a training environment costs the same late in a
    deal as early."""
    discards, takes = state.discards, state.takes
    kept = getattr(state, "_records", None)
    if kept is None or kept[0] is not discards or kept[1] is not takes:
        kept = state._records = [discards, takes, 0, 0, [0] * 180]
    counts, faces = kept[4], FACES
    for i in range(kept[2], len(discards)):
        record = discards[i]
        p, f = record["seat"], faces[record["card"]]
        counts[p * 60 + f] += 1
    for i in range(kept[3], len(takes)):
        record = takes[i]
        p, f = record["seat"], faces[record["card"]]
        counts[p * 60 + 30 + f] += 1
    kept[2], kept[3] = len(discards), len(takes)
    return counts


def encode(state: CherkiState, seat: int, out, mask):
    """Write ``seat``'s observation, as ``arena.envs.encoding.CherkiEncoding`` encodes it,
    into the float32 array ``out`` (of that encoding's ``size``), and where ``seat`` is to
    move, 1 at its legal actions' indices into the int8 array ``mask`` (zero before),
    returning those indices in order (else None): what the encoding makes of the
    observation and the legal list, read from the state without building either (for
    training environments; tested in lockstep with the encoding). A copy count is 1/4 a
    copy, at most 1 (a face may be discarded more than four times)."""
    out[:] = 0
    phase = state.phase
    out[0 if phase == "turn" else 1 if phase == "discard" else 2] = 1
    if state.to_move is not None:
        out[3 + (state.to_move - seat) % 3] = 1
    out[6] = state.moves / 250
    hand = state.hands[seat]
    for f in range(30):
        n = hand[f]
        if n:
            out[7 + f] = 0.25 * n if n < 4 else 1.0
    locked = state.locked[seat]
    out[37 + (locked if locked is not None else 12)] = 1
    out[50 + (state.last_drawn if phase == "discard" and state.to_move == seat else 30)] = 1
    for f in state.pile:
        if out[81 + f] < 1:
            out[81 + f] += 0.25
    out[111 + (state.pile[-1] if state.pile else 30)] = 1
    out[142] = len(state.stock) / 120
    out[143 + ((state.winner - seat) % 3 if state.winner is not None else 3)] = 1
    if state.winning_hand:
        for f in state.winning_hand:
            if out[147 + f] < 1:
                out[147 + f] += 0.25
    for k in range(3):
        p = (seat + k) % 3
        base = 177 + 62 * k
        if state.locked[p] is not None:
            out[base] = 1
        out[base + 61] = state.draws[p] / 120
    counts = _record_counts(state)
    for k in range(3):
        p = (seat + k) % 3
        base = 178 + 62 * k
        for f in range(60):  # its discards, then its takes
            n = counts[p * 60 + f]
            if n:
                out[base + f] = 0.25 * n if n < 4 else 1.0
    if state.over or seat != state.to_move:
        return None
    indices = [ACTION_INDEX[a] for a in state.legal_actions()]
    for f in indices:
        mask[f] = 1
    return indices


READY_PATTERNS = [(k, a, b) for k in range(12) for a in range(12) for b in range(a, 12)]


def _ways(pool: list[int], need: list[int]) -> int:
    """Ways to choose ``need[kind]`` of the ``pool[kind]`` unseen cards of every kind."""
    out = 1
    for have, n in zip(pool, need, strict=True):
        if n:
            if n > have:
                return 0
            out *= math.comb(have, n)
    return out


def _ready_needs(pool: list[int], known: list[int], size: int, ninth: bool,
                 excluded: frozenset = frozenset()):
    """``(weights, needs)`` over READY_PATTERNS for a called hand: how many unseen cards of
    each kind complete it around its ``known`` kinds (``size`` unseen cards in all), weighted
    by the ways to choose them - and, with a ``ninth`` card (drawn, must be discarded: not
    of the pair's kind, or it would have won), by the ways to choose that one too. No pair
    of an ``excluded`` kind (one the caller has discarded since it called: drawn, that card
    would have won)."""
    weights, needs = [], []
    total = sum(pool)
    for k, a, b in READY_PATTERNS:
        need = [-n for n in known]
        need[k] += 2
        need[a] += 3
        need[b] += 3
        if min(need) < 0 or sum(need) != size or k in excluded:
            weights.append(0)
            needs.append(need)
            continue
        w = _ways(pool, need)
        if ninth and w:
            w *= total - size - (pool[k] - need[k])
        weights.append(w)
        needs.append(need)
    return weights, needs


class Cherki(Game):
    """Factory and metadata for Cherki."""

    name = "cherki"
    title = "Cherki"
    variants = {"standard": (3,)}
    default_variant = "standard"
    move_cap = MOVE_CAP
    description = "three-player draw-and-discard game with money-suited cards"
    # TrueSkill sees a tie between the two losers of every won deal, and between all three
    # in a drawn one: at least half of the adjacent places it compares are shared.
    draw_probability = 0.5
    money = True  # a result's scores are what each seat was paid (rules: the settlement)
    season_batch = 256  # about 8 ms a deal with three sandboxed bots
    seatings = "all"  # duplicate deals go through all six seatings of three bots
    #: 2: discards and takes carry their move, and a seat sees its drawn card; 3: the
    #: observation says when each seat called (a world's caller never gets a pair kind it
    #: has discarded since)
    rules_version = 3

    # -- luck (arena.luck) ---------------------------------------------------------------

    #: ``luck_features``' weights: ``python benchmarks/fit_luck.py --game cherki --games
    #: 2000`` (R^2 0.126 over every state of those games)
    luck_weights = (0.303037, 1.84752, 0.0935519, 0.130366, 0.067024, 0.0959031, -0.000177037)

    def luck_features(self, state: CherkiState) -> list[list[float]]:
        """Per seat: whether it has called; a caller's chance to win on a draw (copies of its
        pair's kind left in the stock over the stock's size); for one that has not called,
        whether its hand is ready, its kinds held three or more times and twice, and those
        held twice when it has two triples already; whether it is to move. What the seats
        know between them: every hand, so what the stock holds (not its order)."""
        left = [0] * 12
        for f in state.stock:
            left[KIND[f]] += 1
        stock = max(1, len(state.stock))
        out = []
        for p in range(3):
            kinds = state.kinds[p]
            called = state.locked[p] is not None
            triples = sum(k >= 3 for k in kinds)
            pairs = sum(k == 2 for k in kinds)
            out.append([
                1.0 if called else 0.0,
                left[state.locked[p]] / stock if called else 0.0,
                0.0 if called else float(bool(ready_pairs(kinds))),
                0.0 if called else float(min(triples, 2)),
                0.0 if called else float(pairs),
                0.0 if called or triples < 2 else float(pairs),
                1.0 if state.to_move == p else 0.0,
            ])
        return out

    def unseen(self, state: CherkiState) -> list[int]:
        """The stock, bottom first: every hand is known to its owner, every discard to all."""
        return list(state.stock)

    def redealt(self, state: CherkiState, cards: list, rng: random.Random) -> CherkiState:
        """A copy with the stock in the order ``cards`` (nothing is drawn later)."""
        new = state.copy()
        new.stock = list(cards)
        return new

    def new_state(self, variant: str, players: int, seed: int,
                  record: bool = False) -> CherkiState:
        self.check(variant, players)
        rng = random.Random(C.derive_seed(seed, "deal"))
        dealer = rng.randrange(3)
        deck = [f for f in range(30) for _ in range(4)]
        rng.shuffle(deck)
        hands: list[list[int]] = [[], [], []]
        top = 0
        for _ in range(4):
            for i in range(3):
                hands[(dealer + 1 + i) % 3] += deck[top:top + 2]
                top += 2
        state = CherkiState(hands, deck[top:][::-1], dealer, record)
        state._event(None, "deal", dealer=dealer,
                     hands=[[FACE_NAMES[f] for f in state.hand_list(p)] for p in range(3)])
        return state

    def world(self, observation: dict, rng: random.Random) -> CherkiState:
        """A full state consistent with everything the observing seat knows, the cards it
        has not seen dealt uniformly among the deals that fit: its own hand, the pile, the
        cards known to be in a hand (a take, until that seat discards a card of that face)
        and every count, and each seat that has called holding a ready hand (two triples
        and a pair; with a ninth card if it drew and must discard it, not of the pair's
        kind), whose pair is of no kind it has discarded since it called (``calls``). The
        world of a finished deal is finished too, with its result: a winner holds its
        winning hand; at the cap the seat whose turn it was may hold nine cards. A called
        hand is drawn by its kind pattern, weighted by the ways to fill it,
        then its cards; with two callers the second one's count of ways accepts the first
        (rejection), so the pair of hands is uniform too. Not used: what a seat's choices
        imply (a seat that has not called may hold a ready hand). Reads only the
        observation."""
        return next(self.worlds(observation, rng))

    def worlds(self, observation: dict, rng: random.Random):
        """``world`` again and again for one observation, which it reads once."""
        o = observation
        me = o["seat"]
        own = [face(n) for n in o["hand"]]
        pile = [face(n) for n in o["pile"]]
        record = sorted([(t["move"], t["seat"], face(t["card"]), True) for t in o["takes"]] +
                        [(d["move"], d["seat"], face(d["card"]), False)
                         for d in o["discards"]])
        known: list[list[int]] = [[], [], []]
        for _, p, f, took in record:  # what each seat is seen to hold
            if took:
                known[p].append(f)
            elif f in known[p]:
                known[p].remove(f)
        known[me] = []
        over = o["phase"] == "over"
        winner = o.get("winner") if over else None
        others = [(me + 1) % 3, (me + 2) % 3]
        if winner is not None and winner != me:  # shown: its winning hand
            known[winner] = [face(n) for n in o["winning_hand"]]
        unseen = [f for f in range(30) for _ in range(4)]
        for f in own + pile + known[(me + 1) % 3] + known[(me + 2) % 3]:
            try:
                unseen.remove(f)
            except ValueError:
                raise GameError("no world fits this observation") from None
        discarding = o["phase"] == "discard"
        sizes = [9 if discarding and o["to_move"] == p else 8 for p in range(3)]
        if winner is not None:
            sizes[winner] = 9
        elif over and 120 - len(own) - len(pile) - o["stock"] == 17:  # the cap, mid-turn
            last = max(o["discards"], key=lambda d: d["move"], default=None)
            turn = (last["seat"] if last else o["dealer"]) + 1
            sizes[next(q for q in (turn % 3, (turn + 1) % 3) if q != me)] = 9
        callers = [p for p in others if o["called"][p] and p != winner]
        call_moves = o.get("calls") or [None, None, None]
        excluded = {q: frozenset(KIND[face(d["card"])] for d in o["discards"]
                                 if d["seat"] == q and call_moves[q] is not None
                                 and d["move"] > call_moves[q]) for q in callers}
        by_kind = [[f for f in unseen if KIND[f] == k] for k in range(12)]
        pool = [len(cards) for cards in by_kind]
        first = None
        if callers:
            q = callers[0]
            first = _ready_needs(pool, self._kinds(known[q]), 8 - len(known[q]), sizes[q] == 9,
                                 excluded[q])
            if not any(first[0]):
                raise GameError("no world fits this observation")
        if len(callers) == 2:  # the second caller's ways with every unseen card: a bound
            q = callers[1]
            bound = sum(_ready_needs(pool, self._kinds(known[q]), 8 - len(known[q]),
                                     sizes[q] == 9, excluded[q])[0])
        while True:
            hands = {me: list(own)}
            locks: dict[int, int] = {}
            ninths: dict[int, int] = {}
            left = [list(cards) for cards in by_kind]
            for c in left:
                rng.shuffle(c)
            accepted = True
            for i, q in enumerate(callers):
                counts = [len(c) for c in left]
                if i == 0:
                    weights, needs = first
                else:
                    weights, needs = _ready_needs(counts, self._kinds(known[q]),
                                                  8 - len(known[q]), sizes[q] == 9,
                                                  excluded[q])
                    if rng.random() * bound >= sum(weights):
                        accepted = False
                        break
                (choice,) = rng.choices(range(len(READY_PATTERNS)), weights)
                hand = list(known[q])
                for kind, n in enumerate(needs[choice]):
                    hand += [left[kind].pop() for _ in range(n)]
                locks[q] = READY_PATTERNS[choice][0]
                if sizes[q] == 9:
                    rest = [f for k, c in enumerate(left) if k != locks[q] for f in c]
                    ninth = rest[int(rng.random() * len(rest))]
                    left[KIND[ninth]].remove(ninth)
                    hand.append(ninth)
                    ninths[q] = ninth
                hands[q] = hand
            if not accepted:
                continue
            rest = [f for c in left for f in c]
            rng.shuffle(rest)
            for q in others:
                if q not in hands:
                    n = sizes[q] - len(known[q])
                    hands[q] = known[q] + rest[:n]
                    rest = rest[n:]
            if winner is not None:
                locks[winner] = self._winning_kind(o, known[winner] if winner != me else own,
                                                   call_moves)
            if len(rest) != o["stock"]:
                raise GameError("no world fits this observation")
            state = CherkiState([hands[p] for p in range(3)], rest, o["dealer"])
            state.pile = list(pile)
            state.discards = [dict(d) for d in o["discards"]]
            state.takes = [dict(t) for t in o["takes"]]
            state.draws = list(o["draws"])
            if o["locked"] is not None:
                locks[me] = KINDS[o["locked"]]
            state.locked = [locks.get(p) for p in range(3)]
            state.call_moves = list(call_moves)
            state.moves, state.phase = o["move"], o["phase"]
            state.to_move = o["to_move"]
            state.stock_out = o["stock"] == 0
            if over:
                if winner is not None:
                    state.winning_hand = state.hand_list(winner)
                state._end(winner, "win" if winner is not None else
                           "stock" if o["stock"] == 0 else "cap")
            if discarding:
                mover = o["to_move"]
                drawn = face(o["drawn"]) if mover == me and o["drawn"] else ninths.get(mover)
                state.last_drawn = drawn
                if state.locked[mover] is not None:
                    state.forced = drawn
            yield state

    @staticmethod
    def _winning_kind(o: dict, hand: list[int], call_moves=(None, None, None)) -> int:
        """A winner's locked kind, as far as a seat can tell: its own, or the kind of the
        discard it took to win, or else one of the kinds it holds three of - never a kind
        it discarded after its call (holding that pair, the card it let go would have won
        it the deal then: the same exclusion a caller's world keeps, ``_ready_needs``)."""
        winner = o["winner"]
        if o["locked"] is not None and winner == o["seat"]:
            return KINDS[o["locked"]]
        took = [t for t in o["takes"] if t["seat"] == winner and t["move"] == o["move"]]
        if took:
            return KIND[face(took[-1]["card"])]
        called = call_moves[winner]
        let_go = set() if called is None else {
            KIND[face(d["card"])] for d in o["discards"]
            if d["seat"] == winner and d["move"] > called}
        counts = Cherki._kinds(hand)
        triples = [k for k in range(12) if counts[k] >= 3]
        return next((k for k in triples if k not in let_go), triples[0])

    @staticmethod
    def _kinds(cards: list[int]) -> list[int]:
        counts = [0] * 12
        for f in cards:
            counts[KIND[f]] += 1
        return counts

    def from_deal(self, variant: str, deal: dict, record: bool = False) -> CherkiState:
        """A state from an explicit deal: ``hands`` (three lists of 8 names), ``stock``
        (names, top first), optional ``pile`` (bottom first) and ``dealer`` (default 0).
        No card may appear more than four times, and all 120 must be there unless
        ``"partial": true`` (a puzzle position)."""
        self.check(variant, 3)
        if not isinstance(deal, dict) or not isinstance(deal.get("hands"), list) \
                or len(deal["hands"]) != 3:
            raise GameError("a Cherki deal is an object with three 'hands'")
        check_keys(deal, ("hands", "stock", "pile", "dealer", "partial"), "a Cherki deal")
        hands = [[face(n) for n in h] for h in deal["hands"]]
        if any(len(h) != 8 for h in hands):
            raise GameError("a Cherki hand holds 8 cards")
        stock = [face(n) for n in deal.get("stock", [])]
        pile = [face(n) for n in deal.get("pile", [])]
        everything = [f for h in hands for f in h] + stock + pile
        if any(everything.count(f) > 4 for f in range(30)):
            raise GameError("a Cherki deal holds no card more than four times")
        if not deal.get("partial", False) and len(everything) != 120:
            raise GameError(f"a Cherki deal holds all 120 cards, not {len(everything)} (add "
                            '"partial": true for a puzzle position)')
        if deal.get("dealer", 0) not in range(3):
            raise GameError("a Cherki deal's dealer is a seat 0-2")
        state = CherkiState(hands, stock[::-1], deal.get("dealer", 0), record)
        state.pile = pile
        state._event(None, "deal", dealer=state.dealer,
                     hands=[[FACE_NAMES[f] for f in state.hand_list(p)] for p in range(3)])
        return state

    def to_deal(self, state: CherkiState) -> dict:
        """The explicit deal of a fresh state (see ``Game.to_deal``)."""
        return {"hands": [[FACE_NAMES[f] for f in state.hand_list(p)] for p in range(3)],
                "stock": [FACE_NAMES[f] for f in state.stock[::-1]],
                "dealer": state.dealer}


GAME = Cherki()


@hookimpl
def register_games(register):
    register(GAME)


#: "compiled (Cython)" where the compiled build runs (``arena.games.take_compiled``)
ENGINE = take_compiled(globals())
