"""Vändtia, the Swedish shedding game, in three variants (rules: shared rules/vandtia.md).

Actions are short strings, so legal lists are cheap to build, compare and send:

==================  ==========================================================================
``swap 3H KD KS``   set-up swap: these cards lie face-up, the rest of the six go to the hand
``play 7C 7H``      play these cards of one rank from the current stage (hand or face-up)
``draw``            draw-and-try (``swedish``, ``german``): turn the top stock card
``pickup``          take the whole pile into the hand
``flip 2``          turn face-down card in slot 2 (slots 0-2, as dealt) onto the pile
==================  ==========================================================================

Suits never matter after the start, so the legal list offers one play per (rank, count); the
cards of a play are the lowest of its rank (clubs, diamonds, hearts, spades), except that the
``german`` starter's required card always comes first - and except where the others know
some copies of a rank in the hand (picked up, swapped from face-up) but not others: then a
play is offered per (rank, count, known copies it uses), so a seat holding a known 7 and a
hidden 7 may play the known one and keep the other hidden (``_choice_plays``; with two
decks a play's known copies are counted by name, as the others see it).

Observation of a seat (a dict): ``seat``, ``players``, ``dealer``, ``phase`` (``swap``,
``play``, ``over``), ``to_move``, ``move``, ``hand`` (own cards), ``pile`` (bottom first),
``top`` (rank that must be matched, ``null`` when anything goes), ``burned``, ``stock`` (a
count), ``seats`` (per seat: ``hand`` count, ``known`` hand cards that are public, ``faceup``,
``facedown`` slots still there, ``out`` place or ``null``). The legal actions are not part of
it: the referee hands them to the mover beside it.

Choices where the rules page is silent (each has a test):

* The dealer is drawn from the deal seed in every variant, not only ``cardems``; the set-up
  swaps start left of the dealer.
* The ``swedish`` starter's free first play may also be a draw-and-try.
* A seat that forfeits takes last place; the others are ranked as at the cap (seats out keep
  their places, the rest by cards held, fewer first).
* Scores: the number of seats a seat beat minus the number that beat it (zero-sum).
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from itertools import combinations

from .. import cards as C
from ..errors import GameError, IllegalAction
from ..hookspecs import hookimpl
from . import Game, Result, check_keys, competition_ranks, take_compiled, zero_sum_scores

MOVE_CAP = 250
HAND, FACEUP, FACEDOWN = "hand", "faceup", "facedown"

# variant -> (player counts, draw-and-try, transparent 7, play on after the first is out,
#             suit order for the starting card or None, starter must include that card)
RULES = {
    "cardems": ((2,), False, False, False, None, False),
    "swedish": (tuple(range(2, 9)), True, False, False, "HDCS", False),
    "german": (tuple(range(2, 6)), True, True, True, "SHDC", True),
}

# Action strings are built once and parsed once: these caches map them to card tuples.
_PLAY_CARDS: dict[str, tuple[int, ...]] = {}
_PLAY_NAMES: dict[tuple[int, ...], str] = {}
_SWAP_CARDS: dict[str, tuple[int, ...]] = {}
_SWAP_NAMES: dict[tuple[int, ...], str] = {}
_FLIPS = ("flip 0", "flip 1", "flip 2")
_FLIP_SLOT = {a: i for i, a in enumerate(_FLIPS)}
_NAMES = tuple(C.CARD_NAMES.get(c, "") for c in range(max(C.CARD_NAMES) + 1))  # card -> name


def _play_name(cards: tuple[int, ...]) -> str:
    name = _PLAY_NAMES.get(cards)
    if name is None:
        name = "play " + " ".join(C.CARD_NAMES[c] for c in cards)
        _PLAY_NAMES[cards] = name
        _PLAY_CARDS[name] = cards
    return name


_DRAW = ("draw",)
_PICKUP = ("pickup",)
_GROUP_PLAYS: dict[tuple[int, ...], tuple[str, ...]] = {}  # same-rank cards -> their plays


def _group_plays(group: tuple[int, ...]) -> tuple[str, ...]:
    plays = _GROUP_PLAYS.get(group)
    if plays is None:
        plays = _GROUP_PLAYS[group] = tuple(
            _play_name(group[:k]) for k in range(1, len(group) + 1))
    return plays


_CHOICE_PLAYS: dict[tuple, tuple[str, ...]] = {}  # (known, unknown, must) -> their plays


def _choice_plays(known: tuple[int, ...], unknown: tuple[int, ...],
                  must: int | None) -> tuple[str, ...]:
    """The plays of one rank whose copies differ in what the others know: one play per
    (count, known copies it uses), fewest cards first, then fewest known copies; its cards
    the lowest that make that pair; ``must`` (the ``german`` starter's card, in neither
    list) first in every play.

    A play is its card names, so the known copies it uses are counted by name: it uses, of
    each name, as many known copies as it plays of that name (at most as many as are
    known) - with two decks a hidden copy may bear a known copy's very name, and then the
    others cannot tell which one went, so it counts as the known one. After the play the
    others are sure of the known copies it did not use (``_remove_known``). So two offered
    plays never put down the same names, and a hidden card is kept hidden only by a play
    that shows no name the others know (rules version 3)."""
    key = (known, unknown, must)
    plays = _CHOICE_PLAYS.get(key)
    if plays is None:
        fixed = () if must is None else (must,)
        have: dict[int, int] = {}
        for c in known + unknown:
            have[c] = have.get(c, 0) + 1
        seen: dict[int, int] = {}
        for c in known:
            seen[c] = seen.get(c, 0) + 1
        names = sorted(have)
        best: dict[tuple[int, int], tuple[int, ...]] = {}

        def choose(i: int, picked: tuple[int, ...], used: int) -> None:
            if i == len(names):
                if picked:
                    pair = (len(picked), used)
                    if pair not in best or picked < best[pair]:
                        best[pair] = picked
                return
            c = names[i]
            for n in range(have[c] + 1):
                choose(i + 1, picked + (c,) * n, used + min(n, seen.get(c, 0)))

        choose(0, (), 0)
        out = [_play_name(fixed + tuple(sorted(best[pair]))) for pair in sorted(best)]
        if must is not None:
            out.insert(0, _play_name(fixed))
        plays = _CHOICE_PLAYS[key] = tuple(out)
    return plays


def _plays(cards: list[int], top: int, must: int | None = None,
           known: list[int] | None = None) -> tuple[str, ...]:
    """The plays of ``cards`` (a sorted stage) that may go on ``top``: one per (rank,
    count), its cards the lowest of the rank - except where some copies of a rank are
    ``known`` (public hand cards) and others not: then one per (rank, count, known copies
    used), so a seat may keep a hidden card hidden (``_choice_plays``).

    ``must`` (the ``german`` starting card) is put first in its group.
    """
    out = ()
    n = len(cards)
    if top <= 2:
        regions = ((0, n),)
    else:  # the playable cards lie in up to three runs: 2s, 10s, and ranks from the top up
        twos = bisect_left(cards, 12)
        regions = ((0, twos),) if twos else ()
        if top > 10:
            regions += ((bisect_left(cards, 40), bisect_left(cards, 44)),)
        regions += ((bisect_left(cards, top << 2), n),)
    counts = None
    if known:
        counts = {}
        for c in known:
            counts[c] = counts.get(c, 0) + 1
    for i, end in regions:
        while i < end:
            j = bisect_left(cards, ((cards[i] >> 2) + 1) << 2, i, end)
            group = cards[i:j]
            if counts is not None and not counts.keys().isdisjoint(group):
                fixed = must if must is not None and must in group else None
                seen, hidden, left = [], [], dict(counts)
                for c in group:
                    if c == fixed:  # one deck whenever there is a starting card
                        continue
                    if left.get(c, 0) > 0:
                        left[c] -= 1
                        seen.append(c)
                    else:
                        hidden.append(c)
                if seen and hidden:
                    out += _choice_plays(tuple(seen), tuple(hidden), fixed)
                    i = j
                    continue
            if must is not None and must in group:
                group.remove(must)
                group.insert(0, must)
            group = tuple(group)
            out += _GROUP_PLAYS.get(group) or _group_plays(group)
            i = j
    return out


# top -> a bit for every card that may go on it (rank << 2 | suit): the legal list gives
# their plays by rank, lowest first - 2s, 10s, then from the top up
_ON = tuple(sum(15 << (r << 2) for r in range(2, 15) if top <= 2 or r in (2, 10) and r < top
                or r >= top) for top in range(15))
# (rank << 8 | suits << 4 | known suits) -> the plays of that group (filled as they are met)
_GROUPS: list = [None] * (15 << 8)


def _group(key: int) -> tuple[str, ...]:
    r, m, k = key >> 8, key >> 4 & 15, key & 15
    cards = [(r << 2) | s for s in range(4) if m >> s & 1]
    if k:
        plays = _choice_plays(tuple(c for c in cards if k >> (c & 3) & 1),
                              tuple(c for c in cards if not k >> (c & 3) & 1), None)
    else:
        plays = _group_plays(tuple(cards))
    _GROUPS[key] = plays
    return plays


def _plays1(cards: list[int], top: int, known: list[int] | None) -> tuple[str, ...]:
    """``_plays`` for a single deck, without a starting card: the same list, from a bit
    per card (rank << 2 | suit) of the stage and of its known cards, each group's plays
    looked up once made."""
    one = 1
    mask = seen = 0
    for c in cards:
        mask |= one << c
    if known:
        for c in known:
            seen |= one << c
    on = _ON[top]
    mask &= on
    out = ()
    for r in range(2, 15):
        m = mask >> (r << 2) & 15
        if m:
            k = seen >> (r << 2) & m
            key = (r << 8) | (m << 4) | (0 if k == m else k)
            plays = _GROUPS[key]
            out += _group(key) if plays is None else plays
    return out


def _starter_plays(hand: list[int], top: int, must: int, known: list[int]) -> tuple[str, ...]:
    """The ``german`` starter's plays: those that include its starting card ``must``."""
    return tuple([a for a in _plays(hand, top, must, known) if must in _PLAY_CARDS[a]])


def _flips(facedown: list) -> tuple[str, ...]:
    return tuple([_FLIPS[i] for i in range(3) if facedown[i] is not None])


def _swaps(visible: list[int], k: int) -> tuple[str, ...]:
    """The set-up swaps of a seat whose hand and face-up cards are ``visible`` (sorted): one
    per set of ``k`` cards to lie face-up, in order (with two decks, each set once)."""
    out = []
    for cards in (combinations(visible, k) if len(set(visible)) == len(visible) else
                  sorted(set(combinations(visible, k)))):
        name = _SWAP_NAMES.get(cards)
        if name is None:
            name = _SWAP_NAMES[cards] = "swap " + " ".join([_NAMES[c] for c in cards])
            _SWAP_CARDS[name] = cards
        out.append(name)
    return tuple(out)


def _greedy_choice(src: list[int], shift: int, top: int, b0: int, tens: int, a1: int,
                   a2: int, plays: int, draw: int, pile: int) -> int:
    """The choice index (as the playouts number them) of ``greedy``'s move: the lowest
    ordinary rank (not 2 or 10) it may play, all copies; else draw-and-try; else one 10
    when the pile holds five cards or more (or there is no 2), else one 2. ``src`` is the
    sorted stage, a card's rank ``c >> shift``."""
    size = len(src)
    start = 0 if top <= 2 else a2
    pos = max(start, bisect_left(src, 3 << shift))
    if pos < size and src[pos] >> shift == 10:
        pos = bisect_left(src, 11 << shift)
    if pos < size:  # the last card of that rank: the play of all its copies
        pos = bisect_left(src, ((src[pos] >> shift) + 1) << shift) - 1
    elif draw:
        return plays
    else:
        twos = bisect_left(src, 3 << shift) if top <= 2 else b0
        ten = bisect_left(src, 10 << shift)
        has_ten = (tens > 0) if top > 10 else (ten < size and src[ten] >> shift == 10)
        pos = ten if has_ten and (pile >= 5 or not twos) else 0
    if top <= 2 or pos < b0:
        return pos
    if tens and a1 <= pos < a1 + tens:
        return b0 + pos - a1
    return b0 + tens + pos - a2


_BITS = tuple(n.bit_length() for n in range(106))  # n -> bits, for shuffles of two decks


#: a rank's class among a seat's luck features (Vandtia.luck_features): 2 and 10, Q K A,
#: 8 9 J, 3 to 7
_LUCK_CLASS = (3, 3, 0, 3, 3, 3, 3, 3, 2, 2, 0, 2, 1, 1, 1)


def _shuffle(rng: random.Random, cards: list) -> None:
    """``rng.shuffle(cards)``: the same permutation from the same generator (a test holds
    the two equal), in the engine's own code - compiled with it - for a ``random.Random``
    (anything else shuffles itself)."""
    if type(rng) is not random.Random or len(cards) >= len(_BITS):
        rng.shuffle(cards)
        return
    bits = rng.getrandbits
    i = len(cards) - 1
    while i > 0:
        n = i + 1
        k = _BITS[n]
        j = bits(k)
        while j >= n:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


def _remove_known(known: list[int], played) -> None:
    for c in played:
        if c in known:
            known.remove(c)


class VandtiaState:
    """One game of Vändtia. Build it with :class:`Vandtia` (``new_state`` or ``from_deal``)."""

    def __init__(self, variant: str, players: int, dealer: int, hands, faceup, facedown,
                 stock, pile=(), burned=(), to_move=None, moves=0, out=(), record=False):
        (_, self.draw_allowed, self.transparent7, self.play_on, self.suit_order,
         self.starter_must_include) = RULES[variant]
        self.variant = variant
        self.n = players
        self.single = Vandtia.decks(variant, players) == 1
        self.dealer = dealer
        self.hands = [sorted(h) for h in hands]  # stage cards are kept sorted (legal memo)
        self.faceup = [sorted(f) for f in faceup]
        self.facedown = [list(f) for f in facedown]
        self.stock = list(stock)  # top of the stock is the last element
        self.pile = list(pile)
        self.burned = list(burned)
        self.known = [[] for _ in range(players)]  # public cards in each hand
        self.out = list(out)
        self.moves = moves
        self.must_include = None
        self.over = False
        self.reason = None
        self._ranks = None
        self._legal = None
        self.events = [] if record else None
        if to_move is None:
            self.swapping = [(dealer + 1 + i) % players for i in range(players)
                             if (dealer + 1 + i) % players not in self.out]
            self.to_move = self.swapping[0]
        else:
            self.swapping = []
            self.to_move = to_move

    # -- queries -------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.over

    def stage(self, seat: int) -> str | None:
        """The stage ``seat`` plays from (rules "Stages"), or None when it is out."""
        if self.hands[seat]:
            return HAND
        if self.faceup[seat]:
            return FACEUP
        if any(c is not None for c in self.facedown[seat]):
            return FACEDOWN
        return None

    def cards_held(self, seat: int) -> int:
        return (len(self.hands[seat]) + len(self.faceup[seat])
                + sum(c is not None for c in self.facedown[seat]))

    def top(self) -> int:
        """Rank a play must equal or beat; 0 when anything goes (empty pile or a 2).

        In ``german`` sevens are transparent: the nearest non-7 below a run of sevens counts.
        """
        pile = self.pile
        if not pile:
            return 0
        r = pile[-1] >> 2
        if r == 7 and self.transparent7:
            for c in reversed(pile):
                r = c >> 2
                if r != 7:
                    break
            else:
                return 0
        return 0 if r == 2 else r

    def legal_actions(self) -> tuple[str, ...]:
        """The legal actions, as a tuple (shared with a cache: never modify it)."""
        legal = self._legal
        if legal is not None:
            return legal
        if self.over:
            legal = ()
        elif self.swapping:
            legal = self._swaps(self.to_move)
        else:
            p = self.to_move
            hand = self.hands[p]
            if self.must_include is not None:
                legal = _starter_plays(hand, self.top(), self.must_include, self.known[p])
            elif hand:
                legal = (_plays1(hand, self.top(), self.known[p]) if self.single else
                         _plays(hand, self.top(), known=self.known[p]))
                if self.draw_allowed and self.stock:
                    legal += _DRAW
                elif not legal:
                    legal = _PICKUP
            elif self.faceup[p]:
                legal = (_plays1(self.faceup[p], self.top(), None) if self.single else
                         _plays(self.faceup[p], self.top())) or _PICKUP
            else:
                legal = _flips(self.facedown[p])
        self._legal = legal
        return legal

    def _swaps(self, p: int) -> tuple[str, ...]:
        return _swaps(sorted(self.hands[p] + self.faceup[p]), len(self.faceup[p]))

    # -- moves ---------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(f"{action!r} is not legal here")
        self._legal = None
        p = self.to_move
        if self.swapping:
            self._swap(p, _SWAP_CARDS[action])
            return
        self.moves += 1
        cards = _PLAY_CARDS.get(action)
        if cards is not None:
            self._play(p, cards)
        elif action == "pickup":
            self._pickup(p)
        elif action == "draw":
            self._draw(p)
        else:
            self._flip(p, _FLIP_SLOT[action])
        if not self.over and self.moves >= MOVE_CAP:
            self._finish("cap")

    def playout(self, rng: random.Random, trace: list | None = None,
                greedy: float = 0.0) -> Result:
        """Play on to the end, each move chosen uniformly among the legal moves (a play
        counts once per rank and count, whichever copies it shows: that changes what the
        others know, not the game) - or, with probability ``greedy``, as the ``greedy`` bot
        would (from the deal's first play on) - and return the result: a playout for
        search. Modifies this state (``copy`` first). ``trace``, a list, receives the
        actions as ``legal_actions`` names them.

        The set-up swaps and the ``german`` starter's first play go through ``apply``; the
        rest is one loop over the state's own lists, without building any action string:
        each legal play (rank, count) is one card of the sorted stage - the count-th card of
        its rank - so a uniform choice is a uniform card among the playable ones, which lie
        in at most three runs (2s, 10s, ranks from the top up) found by bisection. A test
        replays traced playouts through ``apply`` in lockstep."""
        rand = rng.random
        while not self.over and (self.swapping or self.must_include is not None
                                 or self.events is not None):
            legal = self.legal_actions()
            action = legal[int(rand() * len(legal))]
            if trace is not None:
                trace.append(action)
            self.apply(action)
        if not self.over:
            if trace is None:
                self._playout_ranks(rand, greedy)
            else:
                self._playout(rand, trace, greedy)
        return self.result()

    def _playout_ranks(self, rand, greedy: float) -> None:
        """``_playout`` on ranks alone - suits never matter after the start, and a playout
        shows nobody its cards - making the same choices from the same random numbers (a
        test holds the two in lockstep). Only the result is kept: the state is over, its
        cards left where the playout began."""
        n, out, moves, p = self.n, list(self.out), self.moves, self.to_move
        hands = [[c >> 2 for c in h] for h in self.hands]
        faceup = [[c >> 2 for c in f] for f in self.faceup]
        facedown = [[None if c is None else c >> 2 for c in f] for f in self.facedown]
        left = [sum(c is not None for c in f) for f in facedown]
        stock = [c >> 2 for c in self.stock]
        pile = [c >> 2 for c in self.pile]
        draw_allowed, transparent7 = self.draw_allowed, self.transparent7
        play_on = self.play_on
        reason = None
        while True:
            moves += 1
            if pile:
                top = pile[-1]
                if top == 7 and transparent7:
                    for top in reversed(pile):
                        if top != 7:
                            break
                    else:
                        top = 0
                if top == 2:
                    top = 0
            else:
                top = 0
            hand = hands[p]
            src = hand or faceup[p]
            taken = None
            if src:
                size = len(src)
                if top <= 2:
                    plays = b0 = size
                    tens = a1 = a2 = 0
                else:
                    b0 = bisect_left(src, 3)
                    if top > 10:
                        a1 = bisect_left(src, 10)
                        tens = bisect_left(src, 11) - a1
                    else:
                        tens = a1 = 0
                    a2 = bisect_left(src, top)
                    plays = b0 + tens + size - a2
                draw = 1 if hand and draw_allowed and stock else 0
                if plays + draw == 0:
                    taken = pile
                else:
                    if greedy and rand() < greedy:
                        x = _greedy_choice(src, 0, top, b0, tens, a1, a2, plays, draw,
                                           len(pile))
                    else:
                        x = int(rand() * (plays + draw))
                    if x == plays:
                        r = stock.pop()
                        k = 1
                        if not (r >= top or r == 2 or r == 10):
                            taken = pile + [r]
                    else:
                        if x < b0:
                            pos = x
                        elif x < b0 + tens:
                            pos = a1 + x - b0
                        else:
                            pos = a2 + x - b0 - tens
                        r = src[pos]
                        first = bisect_left(src, r)
                        k = pos + 1 - first
                        del src[first:pos + 1]
            else:
                down = facedown[p]
                slots = [i for i in range(3) if down[i] is not None]
                slot = slots[0] if greedy and rand() < greedy else slots[
                    int(rand() * len(slots))]
                r = down[slot]
                down[slot] = None
                left[p] -= 1
                k = 1
                if not (r >= top or r == 2 or r == 10):
                    taken = pile + [r]
            if taken is not None:
                hand.extend(taken)
                hand.sort()
                pile = []
                nxt = True
            else:
                pile += [r] * k
                burn = r == 10 or (len(pile) >= 4 and pile[-2] == r and pile[-3] == r and
                                   pile[-4] == r)
                if burn:
                    pile = []
                if stock and src is hand:
                    while stock and len(hand) < 3:
                        insort(hand, stock.pop())
                nxt = not burn
                if not hand and not faceup[p] and not left[p]:
                    out.append(p)
                    if not play_on or n - len(out) <= 1:
                        reason = "out"
                        break
                    nxt = True
            if nxt:
                p = (p + 1) % n
                while p in out:
                    p = (p + 1) % n
            if moves >= MOVE_CAP:
                reason = "cap"
                break
        held = [len(hands[q]) + len(faceup[q]) + left[q] for q in range(n)]
        place = {q: i + 1 for i, q in enumerate(out)}
        if reason == "out" and not play_on:
            ranks = [1 if q in place else 2 for q in range(n)]
        else:
            ranks = competition_ranks([(0, place[q]) if q in place else (1, held[q])
                                       for q in range(n)])
        self._ranks, self.over, self.reason, self.moves = ranks, True, reason, moves
        self.to_move, self._legal, self.out = None, None, out

    def _playout(self, rand, trace, greedy: float) -> None:
        hands, faceup, facedown, known = self.hands, self.faceup, self.facedown, self.known
        stock, burned, out, n = self.stock, self.burned, self.out, self.n
        pile, moves, p = self.pile, self.moves, self.to_move
        draw_allowed, transparent7, play_on = self.draw_allowed, self.transparent7, self.play_on
        reason = None
        self._legal = None
        while True:
            moves += 1
            if pile:  # the top (see ``top``)
                top = pile[-1] >> 2
                if top == 7 and transparent7:
                    for c in reversed(pile):
                        top = c >> 2
                        if top != 7:
                            break
                    else:
                        top = 0
                if top == 2:
                    top = 0
            else:
                top = 0
            hand = hands[p]
            src = hand or faceup[p]
            played = taken = None
            if src:
                size = len(src)
                if top <= 2:
                    plays = b0 = size
                    tens = a1 = a2 = 0
                else:
                    b0 = bisect_left(src, 12)
                    if top > 10:
                        a1 = bisect_left(src, 40)
                        tens = bisect_left(src, 44) - a1
                    else:
                        tens = a1 = 0
                    a2 = bisect_left(src, top * 4)
                    plays = b0 + tens + size - a2
                draw = 1 if hand and draw_allowed and stock else 0
                if plays + draw == 0:
                    taken = pile
                    if trace is not None:
                        trace.append("pickup")
                else:
                    if greedy and rand() < greedy:
                        x = _greedy_choice(src, 2, top, b0, tens, a1, a2, plays, draw,
                                           len(pile))
                    else:
                        x = int(rand() * (plays + draw))
                    if x == plays:  # draw-and-try
                        c = stock.pop()
                        r = c >> 2
                        if trace is not None:
                            trace.append("draw")
                        if r >= top or r == 2 or r == 10:
                            played = [c]
                        else:
                            taken = pile + [c]
                    else:
                        if x < b0:
                            pos = x
                        elif x < b0 + tens:
                            pos = a1 + x - b0
                        else:
                            pos = a2 + x - b0 - tens
                        first = bisect_left(src, (src[pos] >> 2) * 4)
                        played = src[first:pos + 1]
                        del src[first:pos + 1]
                        if trace is not None:
                            trace.append(_play_name(tuple(played)))
                        if src is hand and known[p]:
                            _remove_known(known[p], played)
            else:  # a face-down card, turned onto the pile
                down = facedown[p]
                slots = [i for i in range(3) if down[i] is not None]
                slot = slots[0] if greedy and rand() < greedy else slots[
                    int(rand() * len(slots))]
                c = down[slot]
                down[slot] = None
                if trace is not None:
                    trace.append(_FLIPS[slot])
                r = c >> 2
                if r >= top or r == 2 or r == 10:
                    played = [c]
                else:
                    taken = pile + [c]
            if taken is not None:  # into the hand, public
                hand.extend(taken)
                hand.sort()
                known[p].extend(taken)
                pile = []
                nxt = True
            else:
                pile += played
                r = played[0] >> 2
                burn = r == 10 or (len(pile) >= 4 and pile[-2] >> 2 == r and
                                   pile[-3] >> 2 == r and pile[-4] >> 2 == r)
                if burn:
                    burned += pile
                    pile = []
                if stock and src is hand:  # refill to three (a draw-and-try too)
                    while stock and len(hand) < 3:
                        insort(hand, stock.pop())
                nxt = not burn
                if not hand and not faceup[p] and not any(c is not None for c in facedown[p]):
                    out.append(p)
                    if not play_on or n - len(out) <= 1:
                        reason = "out"
                        break
                    nxt = True
            if nxt:
                p = (p + 1) % n
                while p in out:
                    p = (p + 1) % n
            if moves >= MOVE_CAP:
                reason = "cap"
                break
        self.pile, self.moves, self.to_move, self.must_include = pile, moves, p, None
        self._finish(reason)

    def _pickup(self, p: int) -> None:
        stage = HAND if self.hands[p] else FACEUP
        picked = self.pile
        self._take(p, picked)
        if self.events is not None:
            self._event(p, stage, "pickup", picked_up=C.names(picked))
        self._next(p)

    def _swap(self, p: int, up: tuple[int, ...]) -> None:
        visible = self.hands[p] + self.faceup[p]
        old_up = list(self.faceup[p])
        for c in up:
            visible.remove(c)
            if c in old_up:
                old_up.remove(c)
        self.faceup[p] = list(up)
        self.hands[p] = sorted(visible)
        self.known[p] = old_up  # face-up cards that went into the hand are public
        if self.events is not None:
            self._event(p, "swap", "swap " + " ".join(C.names(up)), faceup=C.names(up))
        self.swapping.pop(0)
        if self.swapping:
            self.to_move = self.swapping[0]
        else:
            self._choose_starter()

    def _choose_starter(self) -> None:
        """Rules "Who starts": after the swaps, by variant."""
        first = (self.dealer + 1) % self.n
        self.to_move = first
        if self.suit_order is None:
            return
        best = None
        for i in range(self.n):
            p = (first + i) % self.n
            for c in self.hands[p]:
                r = c >> 2
                if r == 2 or r == 10:
                    continue
                key = (r, self.suit_order.index(C.SUITS[c & 3]))
                if best is None or key < best[0]:
                    best = (key, p, c)
        if best is not None:
            self.to_move = best[1]
            if self.starter_must_include:
                self.must_include = best[2]

    def _play(self, p: int, cards: tuple[int, ...]) -> None:
        hand = self.hands[p]
        if hand:
            stage, src = HAND, hand
            known = self.known[p]
            if known:
                _remove_known(known, cards)
        else:
            stage, src = FACEUP, self.faceup[p]
        for c in cards:
            src.remove(c)
        self.must_include = None
        burn = self._put(cards)
        drew = self._refill(p) if src is hand and self.stock else None
        if self.events is not None:
            self._event(p, stage, "play " + " ".join(C.names(cards)), cards=C.names(cards),
                        burn=burn, drew=C.names(drew or ()))
        self._after_play(p, burn)

    def _draw(self, p: int) -> None:
        c = self.stock.pop()
        r = c >> 2
        top = self.top()
        if r >= top or r == 2 or r == 10:
            burn = self._put((c,))
            drew = self._refill(p)
            if self.events is not None:
                self._event(p, HAND, "draw", tried=C.CARD_NAMES[c], cards=[C.CARD_NAMES[c]],
                            burn=burn, drew=C.names(drew))
            self._after_play(p, burn)
        else:
            picked = self.pile + [c]
            self._take(p, picked)
            if self.events is not None:
                self._event(p, HAND, "draw", tried=C.CARD_NAMES[c], picked_up=C.names(picked))
            self._next(p)

    def _flip(self, p: int, slot: int) -> None:
        c = self.facedown[p][slot]
        self.facedown[p][slot] = None
        r = c >> 2
        top = self.top()
        if r >= top or r == 2 or r == 10:
            burn = self._put((c,))
            if self.events is not None:
                self._event(p, FACEDOWN, _FLIPS[slot], flipped=C.CARD_NAMES[c],
                            cards=[C.CARD_NAMES[c]], burn=burn)
            self._after_play(p, burn)
        else:
            picked = self.pile + [c]
            self._take(p, picked)
            if self.events is not None:
                self._event(p, FACEDOWN, _FLIPS[slot], flipped=C.CARD_NAMES[c],
                            picked_up=C.names(picked))
            self._next(p)

    def _put(self, cards) -> str | None:
        """Put cards on the pile; burn it on a 10 or four of a kind on top (rules "Burn")."""
        pile = self.pile
        pile.extend(cards)
        r = cards[0] >> 2
        if r == 10:
            burn = "10"
        elif (len(pile) >= 4 and pile[-2] >> 2 == r and pile[-3] >> 2 == r
              and pile[-4] >> 2 == r):
            burn = "four"
        else:
            return None
        self.burned.extend(pile)
        self.pile = []
        return burn

    def _take(self, p: int, cards: list[int]) -> None:
        hand = self.hands[p]
        hand.extend(cards)
        hand.sort()
        self.known[p].extend(cards)
        self.pile = []

    def _refill(self, p: int) -> list[str]:
        hand, stock = self.hands[p], self.stock
        drew = []
        while stock and len(hand) < 3:
            c = stock.pop()
            insort(hand, c)
            drew.append(c)
        return drew

    def _after_play(self, p: int, burn: str | None) -> None:
        if not self.hands[p] and self.stage(p) is None:
            self.out.append(p)
            if self.events is not None:
                self.events[-1]["out"] = len(self.out)
            if not self.play_on or self.n - len(self.out) <= 1:
                self._finish("out")
                return
            self._next(p)
        elif burn:
            self.to_move = p
        else:
            self._next(p)

    def _next(self, p: int) -> None:
        n, out = self.n, self.out
        q = (p + 1) % n
        if out:
            while q in out:
                q = (q + 1) % n
        self.to_move = q

    def _event(self, seat: int, stage: str, action: str, **info) -> None:
        if self.events is not None:
            ev = {"move": self.moves if stage != "swap" else None, "seat": seat,
                  "stage": stage, "action": action}
            ev.update({k: v for k, v in info.items() if v})
            self.events.append(ev)

    # -- the end -------------------------------------------------------------------------

    def _finish(self, reason: str, loser: int | None = None) -> None:
        """Rank the seats (rules "End of the game and results")."""
        n = self.n
        place = {p: i + 1 for i, p in enumerate(self.out)}
        if reason == "out" and not self.play_on:
            ranks = [1 if p in place else 2 for p in range(n)]
        else:
            # Seats out keep their places; the rest follow by cards held (the cap ranking);
            # a forfeiting seat comes after everyone.
            keys = []
            for p in range(n):
                if p in place:
                    keys.append((0, place[p]))
                elif p == loser:
                    keys.append((2, 0))
                else:
                    keys.append((1, self.cards_held(p)))
            ranks = competition_ranks(keys)
        self._ranks = ranks
        self.over = True
        self.reason = reason
        self.to_move = None
        self._legal = None

    def forfeit(self, seat: int) -> None:
        """End the game now with ``seat`` in last place (a bot fault)."""
        if not self.over:
            self._finish("forfeit", loser=seat)

    def result(self) -> Result:
        if not self.over:
            raise ValueError("the game is not over")
        return Result(ranks=list(self._ranks), scores=zero_sum_scores(self._ranks),
                      reason=self.reason, moves=self.moves)

    # -- what a seat knows ---------------------------------------------------------------

    def observation(self, seat: int) -> dict:
        """What ``seat`` knows (the legal actions come beside it, to the mover only).

        Hands and face-up cards are kept sorted, so they are named as they lie."""
        top = self.top()
        out = self.out
        n = _NAMES
        return {
            "game": "vandtia",
            "variant": self.variant,
            "seat": seat,
            "players": self.n,
            "dealer": self.dealer,
            "phase": "over" if self.over else ("swap" if self.swapping else "play"),
            "to_move": self.to_move,
            "move": self.moves,
            "move_cap": MOVE_CAP,
            "hand": [n[c] for c in self.hands[seat]],
            "pile": [n[c] for c in self.pile],
            "top": C.RANK_NAMES[top] if top else None,
            "burned": [n[c] for c in self.burned],
            "stock": len(self.stock),
            "seats": [
                {
                    "hand": len(self.hands[p]),
                    "known": [n[c] for c in sorted(self.known[p])],
                    "faceup": [n[c] for c in self.faceup[p]],
                    "facedown": [i for i, c in enumerate(self.facedown[p]) if c is not None],
                    "out": out.index(p) + 1 if p in out else None,
                }
                for p in range(self.n)
            ],
        }

    def encode(self, seat: int, out, mask, unit: float, deck: float, copies: int):
        """Write ``seat``'s observation, as ``arena.envs.encoding.VandtiaEncoding`` encodes
        it, into the float32 array ``out`` (that encoding's ``size``; ``unit``: 1 over the
        ``copies`` of a rank in the deck, ``deck``: its cards), and where ``seat`` is to
        move, 1 at its legal actions' indices into the int8 array ``mask`` (zero before),
        returning those indices in order (else None): what the encoding makes of the
        observation and the legal list, read from the state without building either (for
        training environments; tested in lockstep with the encoding)."""
        n = self.n
        out[:] = 0
        out[2 if self.over else (0 if self.swapping else 1)] = 1
        for c in self.hands[seat]:
            out[1 + (c >> 2)] += unit
        for c in self.known[seat]:
            out[14 + (c >> 2)] += unit
        for c in self.pile:
            out[27 + (c >> 2)] += unit
        out[42] = len(self.pile) / deck
        top = self.top()
        out[41 + top if top else 56] = 1
        for c in self.burned:
            out[55 + (c >> 2)] += unit
        out[70] = len(self.stock) / deck
        if self.to_move is not None:
            out[71 + (self.to_move - seat) % n] = 1
        out[71 + n] = self.moves / MOVE_CAP
        i = 72 + n
        for k in range(n):
            p = (seat + k) % n
            out[i] = len(self.hands[p]) / deck
            for c in self.known[p]:
                out[i - 1 + (c >> 2)] += unit
            for c in self.faceup[p]:
                out[i + 12 + (c >> 2)] += unit
            for slot in range(3):
                if self.facedown[p][slot] is not None:
                    out[i + 27 + slot] = 1
            if p in self.out:
                out[i + 30] = 1
            i += 31
        if self.over or seat != self.to_move:
            return None
        return self._action_indices(copies, mask)

    def _action_indices(self, copies: int, mask) -> list:
        legal = self.legal_actions()
        out = []
        if self.swapping:
            six = sorted(self.hands[self.to_move] + self.faceup[self.to_move])
            first = {}  # a swap's index: the first three of the six (sorted) that name it
            for i, chosen in enumerate(combinations(six, 3)):
                first.setdefault("swap " + " ".join([_NAMES[c] for c in chosen]), i)
            out = [first[a] for a in legal]
        else:
            c = copies
            draw = 20 + 13 * c * (c + 1)
            known = self.known[self.to_move]  # the cards of this hand the others know
            for action in legal:
                cards = _PLAY_CARDS.get(action)
                if cards is not None:
                    # the known copies it uses (a card is its name): the k-th copy of a
                    # card in the play is a known one where the others know k copies
                    used = 0
                    if known:
                        for j in range(len(cards)):
                            card, k, seen = cards[j], 0, 0
                            for q in range(j + 1):
                                if cards[q] == card:
                                    k += 1
                            for q in known:
                                if q == card:
                                    seen += 1
                            if k <= seen:
                                used += 1
                    card = cards[0]
                    i = 20 + ((card >> 2) - 2) * c * (c + 1) + (len(cards) - 1) * (c + 1) + used
                    out.append(i)
                elif action == "draw":
                    out.append(draw)
                elif action == "pickup":
                    out.append(draw + 1)
                else:
                    out.append(draw + 2 + _FLIP_SLOT[action])
        for i in out:
            mask[i] = 1
        return out

    def reveal(self) -> dict:
        """Every hidden card, for a spectator who sees everything (a replay's view of the
        whole table; never sent to a bot): each seat's hand and face-down cards (``null``
        where one was turned), and the stock, top first."""
        n = _NAMES
        return {"hands": [[n[c] for c in self.hands[p]] for p in range(self.n)],
                "facedown": [[n[c] if c is not None else None for c in self.facedown[p]]
                             for p in range(self.n)],
                "stock": [n[c] for c in reversed(self.stock)]}

    def copy(self) -> VandtiaState:
        """An independent copy (for search: play it out, the original stays as it is).
        Events are not copied: a copy records none."""
        new = VandtiaState.__new__(VandtiaState)
        (new.variant, new.n, new.single, new.dealer, new.draw_allowed, new.transparent7,
         new.play_on, new.suit_order, new.starter_must_include, new.moves, new.must_include,
         new.over, new.reason, new._ranks, new._legal, new.to_move) = (
            self.variant, self.n, self.single, self.dealer, self.draw_allowed,
            self.transparent7, self.play_on, self.suit_order, self.starter_must_include,
            self.moves, self.must_include, self.over, self.reason, self._ranks, self._legal,
            self.to_move)
        new.hands = [list(h) for h in self.hands]
        new.faceup = [list(f) for f in self.faceup]
        new.facedown = [list(f) for f in self.facedown]
        new.known = [list(k) for k in self.known]
        new.stock, new.pile, new.burned = list(self.stock), list(self.pile), list(self.burned)
        new.out, new.swapping = list(self.out), list(self.swapping)
        new.events = None
        return new

    FIELDS = ("variant", "n", "single", "dealer", "draw_allowed", "transparent7", "play_on",
              "suit_order", "starter_must_include", "moves", "must_include", "over",
              "reason", "_ranks", "_legal", "to_move", "hands", "faceup", "facedown", "known",
              "stock", "pile", "burned", "out", "swapping", "events")

    def fields(self) -> dict:
        """Everything the state holds, by name (two states with equal fields are the same
        position with the same history of what was shown)."""
        return {f: getattr(self, f) for f in self.FIELDS}

    def all_cards(self) -> list[int]:
        """Every card in the game wherever it lies (for conservation checks)."""
        cards = self.stock + self.pile + self.burned
        for p in range(self.n):
            cards += self.hands[p] + self.faceup[p]
            cards += [c for c in self.facedown[p] if c is not None]
        return cards



def _longest_run(cards: list[int]) -> int:
    """The longest run of cards of one rank in a row."""
    longest = run = 0
    for i, c in enumerate(cards):
        run = run + 1 if i and c >> 2 == cards[i - 1] >> 2 else 1
        longest = max(longest, run)
    return longest


def _burned_pile(cards: list[int], transparent7) -> bool:
    """Whether ``cards`` (bottom first) is a pile a burn could leave: it ends with a play
    of 10s, or with four or more of one rank (rules "Burn"), and holds no 10 and no four of
    one rank in a row before that last run; with ``transparent7`` not None (a whole deal),
    each card could also be played on the ones beneath it (``_check_pile``)."""
    last = cards[-1] >> 2
    start = len(cards)
    while start and cards[start - 1] >> 2 == last:
        start -= 1
    before = cards[:start]
    if last != 10 and len(cards) - start < 4:
        return False
    if any(c >> 2 == 10 for c in before) or _longest_run(before) >= 4:
        return False
    if transparent7 is not None:
        try:
            Vandtia._check_pile(cards, transparent7)
        except GameError:
            return False
    return True


def _burns_leave(burned: list[int], transparent7) -> bool:
    """Whether the ``burned`` cards, in order, are piles burns leave one after another
    (``_burned_pile``): some split of them into such piles exists."""
    n = len(burned)
    fits = [False] * n + [True]  # fits[i]: burned[i:] splits into burned piles
    for i in range(n - 1, -1, -1):
        fits[i] = any(fits[j] and _burned_pile(burned[i:j], transparent7)
                      for j in range(i + 1, n + 1))
    return fits[0]

class Vandtia(Game):
    """Factory and metadata for Vändtia."""

    name = "vandtia"
    title = "Vändtia"
    variants = {v: rules[0] for v, rules in RULES.items()}
    default_variant = "cardems"
    move_cap = MOVE_CAP
    description = "shedding game of the Palace family"
    #: 2: a play may choose which copies of a rank it shows; 3: with two decks, the copies
    #: it shows are counted by name (no play offered twice, none missing)
    rules_version = 3
    # Shared first places come only from the move cap: 2.7-3.7 % of random games in every
    # variant (2,000 games each); reference bots reach the cap less often.
    draw_probability = 0.03
    season_batch = 512  # about 4 ms a two-player match with sandboxed bots: ~2 s a batch

    @staticmethod
    def decks(variant: str, players: int) -> int:
        return 2 if variant == "swedish" and players >= 6 else 1

    def new_state(self, variant: str, players: int, seed: int,
                  record: bool = False) -> VandtiaState:
        variant = self.check(variant, players)
        rng = random.Random(C.derive_seed(seed, "deal"))
        dealer = rng.randrange(players)
        deck = C.deck(self.decks(variant, players))
        _shuffle(rng, deck)
        hands, faceup, facedown = [], [], []
        for p in range(players):
            base = 9 * p
            facedown.append(deck[base:base + 3])
            faceup.append(deck[base + 3:base + 6])
            hands.append(deck[base + 6:base + 9])
        stock = deck[9 * players:]
        state = VandtiaState(variant, players, dealer, hands, faceup, facedown, stock,
                             record=record)
        if record:
            state.events.append(self._deal_event(state))
        return state

    # -- luck (arena.luck) ---------------------------------------------------------------

    #: ``luck_features``' weights: ``python benchmarks/fit_luck.py --game vandtia --games
    #: 3000`` (cardems, 2 seats; R^2 0.130 over every state of those games)
    luck_weights = (
        0.0039041, 0.0039041, -0.00396733, 0.0107693, 0.00429968, -0.00719755,
        0.0230623, 0.0533641, -0.00756291, -0.0688635, 0, 0.00561365, -0.000770381,
        -0.000271262, -0.0516545, 0.00663252, -0.0104879, 0.0405555, 0.00035292,
        -0.023788, 0.0258371, 0.0455341, -0.0100778, -0.0791826, -0.0403977,
        0.0311642, -0.00395332, 0.00104916)

    def luck_features(self, state: VandtiaState) -> list[list[float]]:
        """Per seat: its cards held, its hand's size, its hand's and its face-up cards'
        counts in four classes (2 and 10; Q K A; 8 9 J; 3 to 7), its face-down count, whether
        it is to move and the pile it would then face, and its cards held squared - the same
        fourteen twice, the first set while the stock lasts and the second after. Only what
        the seats know between them: hands (each known to its owner), the table, counts."""
        stocked = 1 if state.stock else 0
        out = []
        for p in range(state.n):
            f = [0.0] * 28
            base = 0 if stocked else 14
            down = sum(c is not None for c in state.facedown[p])
            held = len(state.hands[p]) + len(state.faceup[p]) + down
            f[base] = held
            f[base + 1] = len(state.hands[p])
            for c in state.hands[p]:
                f[base + 2 + _LUCK_CLASS[c >> 2]] += 1
            for c in state.faceup[p]:
                f[base + 6 + _LUCK_CLASS[c >> 2]] += 1
            f[base + 10] = down
            if state.to_move == p:
                f[base + 11] = 1
                f[base + 12] = len(state.pile)
            f[base + 13] = held * held
            out.append(f)
        return out

    def unseen(self, state: VandtiaState) -> list[int]:
        """The stock (bottom first) and every face-down card still down, seat by seat."""
        return list(state.stock) + [c for row in state.facedown for c in row if c is not None]

    def redealt(self, state: VandtiaState, cards: list, rng: random.Random) -> VandtiaState:
        """A copy with ``cards`` in the stock and the face-down places, in ``unseen`` order
        (Vändtia draws nothing later: the whole deck was shuffled at the deal)."""
        new = state.copy()
        k = len(state.stock)
        new.stock = list(cards[:k])
        rest = iter(cards[k:])
        new.facedown = [[next(rest) if c is not None else None for c in row]
                        for row in state.facedown]
        return new

    DEAL_KEYS = ("players", "stock", "pile", "burned", "dealer", "to_move", "out", "moves",
                 "partial")
    SEAT_KEYS = ("hand", "known", "faceup", "facedown")

    def to_deal(self, state: VandtiaState) -> dict:
        """The explicit deal of a fresh state (see ``Game.to_deal``)."""
        return {"players": [{"hand": C.names(state.hands[p]),
                             "faceup": C.names(state.faceup[p]),
                             "facedown": [None if c is None else C.name(c)
                                          for c in state.facedown[p]]}
                            for p in range(state.n)],
                "stock": C.names(state.stock[::-1]), "dealer": state.dealer}

    def from_deal(self, variant: str, deal: dict, record: bool = False) -> VandtiaState:
        """A state from an explicit deal (the JSON form in docs/game-api.md).

        Every card of the variant's deck(s) must be somewhere - unless ``"partial": true``,
        for puzzle positions - and no more than once per deck. A seat's ``known`` cards are
        hand cards everyone has seen (picked up or swapped). A pile never holds a 10, nor
        four of one rank in a row: either would have burned it; ``burned`` must be piles
        burns leave, one after another (each ending with its 10s, or with four or more of
        one rank, and holding neither before: ``_burns_leave``). A whole deal (not
        ``partial``) must also be one play can reach: each pile card could go on the pile
        beneath it (a 7 not on a 9; in ``german`` a 7 is played under the ordinary rule and
        only counts as transparent once down), and every hand holds three cards or more
        while the stock lasts (a hand is filled up to three after every play)."""
        if not isinstance(deal, dict) or not isinstance(deal.get("players"), list):
            raise GameError("a deal is an object with a 'players' list")
        check_keys(deal, self.DEAL_KEYS, "deal")
        players = len(deal["players"])
        variant = self.check(variant, players)
        copies = self.decks(variant, players)

        def cards(value, what, allow_gaps=False):
            if not isinstance(value, list):
                raise GameError(f"deal: {what} must be a list of cards")
            try:
                return [None if (allow_gaps and v is None) else C.parse(v) for v in value]
            except ValueError as e:
                raise GameError(f"deal: {what}: {e}") from None

        hands, known, faceup, facedown = [], [], [], []
        for p, seat in enumerate(deal["players"]):
            if not isinstance(seat, dict):
                raise GameError(f"deal: players[{p}] must be an object")
            check_keys(seat, self.SEAT_KEYS, f"deal: players[{p}]")
            hands.append(cards(seat.get("hand", []), f"players[{p}].hand"))
            known.append(cards(seat.get("known", []), f"players[{p}].known"))
            rest = list(hands[-1])
            for c in known[-1]:
                if c not in rest:
                    raise GameError(f"deal: players[{p}].known: {C.name(c)} is not in its hand")
                rest.remove(c)
            faceup.append(cards(seat.get("faceup", []), f"players[{p}].faceup"))
            down = cards(seat.get("facedown", []), f"players[{p}].facedown", allow_gaps=True)
            if len(down) > 3:
                raise GameError(f"deal: players[{p}].facedown has more than 3 slots")
            facedown.append(down + [None] * (3 - len(down)))
        stock = cards(deal.get("stock", []), "stock")[::-1]
        pile = cards(deal.get("pile", []), "pile")
        burned = cards(deal.get("burned", []), "burned")
        everything = stock + pile + burned + [c for group in hands + faceup + facedown
                                              for c in group if c is not None]
        for c in set(everything):
            if everything.count(c) > copies:
                raise GameError(f"deal: {C.name(c)} appears more than {copies} time(s)")
        if not deal.get("partial", False) and len(everything) != 52 * copies:
            missing = sorted(set(C.FULL_DECK) - set(everything)) or sorted(
                c for c in C.FULL_DECK if everything.count(c) < copies)
            raise GameError(f"deal: {52 * copies - len(everything)} card(s) of the deck are "
                            f"missing (first: {C.name(missing[0])}); add \"partial\": true "
                            "for a puzzle position")
        if any(C.rank(c) == 10 for c in pile):
            raise GameError("deal: a 10 in the pile (a 10 burns the pile)")
        if len(pile) >= 4 and len({C.rank(c) for c in pile[-4:]}) == 1:
            raise GameError("deal: four of one rank on top of the pile (they burn it)")
        if _longest_run(pile) >= 4:
            raise GameError("deal: four of one rank in a row in the pile (the fourth would "
                            "have burned it)")
        whole = not deal.get("partial", False)
        if whole:
            self._check_pile(pile, RULES[variant][2])
        if not _burns_leave(burned, RULES[variant][2] if whole else None):
            raise GameError("deal: burned: no burns leave these cards in this order (each "
                            "burned pile ends with its 10s or four of one rank, and holds "
                            "neither before; a whole deal's each as play stacks it)")
        dealer = deal.get("dealer", 0)
        to_move = deal.get("to_move")
        out = deal.get("out", [])
        moves = deal.get("moves", 0)
        for label, value in (("dealer", dealer), ("to_move", to_move)):
            if value is not None and (not isinstance(value, int) or not 0 <= value < players):
                raise GameError(f"deal: {label} must be a seat number 0-{players - 1}")
        if not isinstance(moves, int) or not 0 <= moves < MOVE_CAP:
            raise GameError(f"deal: moves must be a number 0-{MOVE_CAP - 1}")
        if not isinstance(out, list) or any(p not in range(players) for p in out):
            raise GameError("deal: out must be a list of seat numbers")
        state = VandtiaState(variant, players, dealer, hands, faceup, facedown, stock,
                             pile=pile, burned=burned, to_move=to_move, moves=moves,
                             out=out, record=record)
        state.known = known
        for p in range(players):
            held = state.cards_held(p)
            if (p in out) != (held == 0):
                raise GameError(f"deal: seat {p} must be listed in 'out' exactly when it "
                                "holds no cards")
            if held and stock and not hands[p]:
                raise GameError(f"deal: seat {p} has no hand cards while the stock lasts")
            if whole and stock and len(hands[p]) < 3:
                raise GameError(f"deal: seat {p} holds {len(hands[p])} hand card(s) while the "
                                "stock lasts (a hand is filled up to three after every play; "
                                'add "partial": true for a puzzle position)')
        if to_move in out:
            raise GameError("deal: to_move is a seat that is already out")
        if record:
            state.events.append(self._deal_event(state))
        return state

    @staticmethod
    def _check_pile(pile: list[int], transparent7: bool) -> None:
        """GameError unless each pile card could be played on the cards beneath it."""
        top = 0
        for i, c in enumerate(pile):
            r = c >> 2
            if top > 2 and r not in (2, 10) and r < top:
                raise GameError(f"deal: pile: {C.name(c)} cannot lie on {C.name(pile[i - 1])} "
                                f"({C.RANK_NAMES[r]} may not go on {C.RANK_NAMES[top]}; "
                                'add "partial": true for a puzzle position)')
            if not (transparent7 and r == 7):
                top = 0 if r == 2 else r

    def world(self, observation: dict, rng: random.Random) -> VandtiaState:
        """A full state consistent with everything the observing seat knows, its hidden
        cards dealt uniformly: the cards it has not seen (other hands less their ``known``
        cards, every face-down card - its own too - and the stock) are shuffled into those
        places. Reads only ``observation`` (what a bot receives), so a bot may call it.

        What the seats' choices imply is not used, with one exception: at the first play of
        ``swedish`` and ``german`` the seat to move holds the lowest starting card (rules
        "Who starts"), and worlds are drawn under that condition (by rejection). A pickup
        that shows a hand had nothing to play is not used: later draws and plays blur it.

        The stock holds as many cards as the observation says. In a game every unseen card
        fills a place; in a partial position (``from_deal`` with ``partial``) the cards the
        deal leaves out are out of play in every world too, not put into the stock."""
        return next(self.worlds(observation, rng))

    def worlds(self, observation: dict, rng: random.Random):
        """``world(observation, rng)`` again and again: an endless iterator of independent
        worlds for one observation, which it reads once (the faster way to draw many)."""
        o = observation
        n, variant = o["players"], o["variant"]
        seats = o["seats"]
        parse = C.parse
        seen = [parse(c) for c in o["hand"] + o["pile"] + o["burned"]]
        known = [[parse(c) for c in s["known"]] for s in seats]
        faceup = [[parse(c) for c in s["faceup"]] for s in seats]
        for p in range(n):
            seen += faceup[p] + (known[p] if p != o["seat"] else [])
        unseen = C.deck(self.decks(variant, n))
        for c in seen:
            unseen.remove(c)
        counts = [s["hand"] - (len(known[p]) if p != o["seat"] else s["hand"])
                  for p, s in enumerate(seats)]
        out = sorted((p for p in range(n) if seats[p]["out"]), key=lambda p: seats[p]["out"])
        starting = (o["phase"] == "play" and o["move"] == 0 and RULES[variant][4] is not None)
        own, pile, burned = ([parse(c) for c in o[k]] for k in ("hand", "pile", "burned"))
        own_known = [parse(c) for c in seats[o["seat"]]["known"]]
        order = [(o["dealer"] + 1 + i) % n for i in range(n)]
        misses = 0
        while misses < 10000:
            _shuffle(rng, unseen)
            cards = iter(unseen)
            hands = [list(own) if p == o["seat"] else
                     known[p] + [next(cards) for _ in range(counts[p])] for p in range(n)]
            facedown = [[next(cards) if i in s["facedown"] else None for i in range(3)]
                        for s in seats]
            stock = [next(cards) for _ in range(o["stock"])]  # a puzzle's others: gone
            state = VandtiaState(variant, n, o["dealer"], hands, faceup, facedown, stock,
                                 pile=pile, burned=burned, to_move=o["to_move"],
                                 moves=o["move"], out=out)
            if o["phase"] == "over":
                state._finish("cap" if o["move"] >= MOVE_CAP else "out")
            if o["phase"] == "swap":  # the seats still to swap, from the one to move on
                state.swapping = order[order.index(o["to_move"]):]
            state.known = [list(k) for k in known]
            state.known[o["seat"]] = list(own_known)
            if starting:
                state._choose_starter()
                if state.to_move != o["to_move"]:
                    misses += 1
                    continue
            misses = 0
            yield state
        raise GameError("no world fits this observation")

    @staticmethod
    def _deal_event(state: VandtiaState) -> dict:
        return {
            "move": None, "seat": None, "stage": "deal", "action": "deal",
            "dealer": state.dealer,
            "hands": [C.names(h) for h in state.hands],
            "faceup": [C.names(f) for f in state.faceup],
            "facedown": [[C.name(c) if c is not None else None for c in f]
                         for f in state.facedown],
            "stock": len(state.stock),
        }


GAME = Vandtia()


@hookimpl
def register_games(register):
    register(GAME)


#: "compiled (Cython)" where the compiled build runs (``arena.games.take_compiled``)
ENGINE = take_compiled(globals())
