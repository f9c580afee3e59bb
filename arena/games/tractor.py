"""Tractor (Shengji, "80 points"): four seats in two teams, two decks (rules: tractor.md).

Cards are *faces* 0-53: ``(rank - 2) * 4 + suit`` for the 52 suited faces (suits C D H S),
52 the small joker ``SJ`` and 53 the big joker ``BJ``; each face exists twice. Identical
cards are interchangeable, so a hand is 54 counts and every action names faces:

==========================  ===================================================================
``pass``                    bidding: pass
``declare 5H`` / ``declare 5H 5H`` / ``declare SJ SJ`` / ``declare BJ BJ``   bidding: declare
``bury KH``                 the dealer buries one card; eight of these are one move
``play KH``, ``play 9S 9S``, ``play 9S 9S 10S 10S``   a lead: single, pair or tractor (lowest
                            tier first); leads are listed whole
``pick KH``                 one card of a follow; a follow of *n* cards is *n* picks by the same
                            seat (one move), each offered only if a legal completion remains
==========================  ===================================================================

Variants: ``match`` (default; deals until a team goes past A, at most 60 deals, then the
higher level wins or equal levels draw) and ``deal`` (one deal, played as deal 1 of a match).

Observation of a seat: ``seat``, ``team`` (0: seats 0 and 2, 1: seats 1 and 3), ``phase``
(``bid``, ``bury``, ``play``, ``over``), ``to_move``, ``move``, ``deal`` (number, from 1),
``levels`` (per team), ``level_rank``, ``dealer`` (``null`` while unknown in deal 1),
``bidding_start``, ``hand`` (own cards), ``bids`` (every pass and declaration, in order),
``trump`` (suit letter, ``"none"``, or ``null`` before it is known), ``kitty`` (the eight
dealt kitty cards, when they were turned up, or to the dealer), ``buried`` (the dealer's own
bury), ``picks`` (own picks of the decision in progress), ``trick`` (leader and the plays so
far), ``tricks`` (this deal's finished tricks with winner and points), ``points`` (the
attackers' so far), ``history`` (earlier deals: dealer, trump, buried cards, attackers'
points, who went up). The legal actions come beside it, to the mover.

Choices where the rules page is silent (each has a test):

* Cards are dealt in one block per seat (seat 0 first) from the shuffled double deck; the
  last eight are the kitty, in that order.
* Every multi-card follow is made of picks, not only the long ones, so bots meet one form.
* Scores: the final level margin of the seat's team (a team past A counts 15); in ``deal``,
  the levels the winning team went up (0 when the attackers take control with 80-115).
  A forfeit scores +1 for the other team and -1 for the faulty one.
"""

from __future__ import annotations

import random
from itertools import product

from .. import cards as C
from ..errors import GameError, IllegalAction
from ..hookspecs import hookimpl
from . import Finished, Game, MarkedDeltas, Result, check_keys, competition_ranks, take_compiled

SJ, BJ = 52, 53
TRUMP = 4  # the effective suit of every trump
MOVE_CAP = 250  # per deal, a guard: a deal cannot exceed 117 moves
DEAL_CAP = 60
RANK_ORDER = list(range(2, 15))
FACE_NAMES = [C.RANK_NAMES[f // 4 + 2] + C.SUITS[f % 4] for f in range(52)] + ["SJ", "BJ"]
FACES_BY_NAME = {n: f for f, n in enumerate(FACE_NAMES)}
ALL_FACES = list(range(54))  # before there is a trump: a hand's faces in this order
#: the actions that name one face or a pair of it, made once (a legal list holds these)
PICK = [f"pick {n}" for n in FACE_NAMES]
BURY = [f"bury {n}" for n in FACE_NAMES]
PLAY = [f"play {n}" for n in FACE_NAMES]
PLAY_PAIR = [f"play {n} {n}" for n in FACE_NAMES]
DECLARE = [f"declare {n}" for n in FACE_NAMES]
DECLARE_PAIR = [f"declare {n} {n}" for n in FACE_NAMES]


def face(name: str) -> int:
    try:
        return FACES_BY_NAME[name.upper()]
    except (KeyError, AttributeError):
        raise GameError(f"not a Tractor card: {name!r}") from None


def rank_of(f: int) -> int:
    return f // 4 + 2 if f < 52 else 0


def points(f: int) -> int:
    r = rank_of(f)
    return 5 if r == 5 else 10 if r in (10, 13) else 0


POINTS = [points(f) for f in range(54)]


class Order:
    """Effective suit and tier of every face, for one level rank and trump suit."""

    def __init__(self, level: int, trump: int | None):
        self.level, self.trump = level, trump
        self.suit = [0] * 54
        self.tier = [0] * 54
        others = [r for r in RANK_ORDER if r != level]
        for f in range(52):
            r, s = f // 4 + 2, f % 4
            if r == level or s == trump:
                self.suit[f] = TRUMP
            else:
                self.suit[f] = s
                self.tier[f] = others.index(r)
        base = len(others) if trump is not None else 0
        for f in range(52):
            if self.suit[f] == TRUMP:
                r, s = f // 4 + 2, f % 4
                if r != level:
                    self.tier[f] = others.index(r)  # trump suit, below the level cards
                else:
                    self.tier[f] = base + (1 if s == trump else 0)
        top = base + (2 if trump is not None else 1)
        self.suit[SJ] = self.suit[BJ] = TRUMP
        self.tier[SJ], self.tier[BJ] = top, top + 1
        #: every face in ``key`` order, and each face's place in it (``pos[f]``)
        self.faces = sorted(range(54), key=self.key)
        self.pos = [0] * 54
        for i, f in enumerate(self.faces):
            self.pos[f] = i

    def key(self, f: int) -> tuple[int, int]:
        """Sort key: effective suit, then tier (trumps last, highest last)."""
        return (self.suit[f], self.tier[f], f)


def _held(hand: list[int], faces: list[int], names: list) -> list:
    """The cards of a hand of counts (``hands[p]``: how many of each face), in the order of
    ``faces``: ``names[f]`` for each card of face ``f``."""
    out = []
    for f in faces:
        k = hand[f]
        while k:
            out.append(names[f])
            k -= 1
    return out


class TractorState(MarkedDeltas, Finished):
    """A Tractor match (or one deal). Build it with :class:`Tractor`."""

    #: the observation's members a mark holds (``_members``), and its logs (``MarkedDeltas``)
    MARKED = ("phase", "to_move", "deal", "levels", "level_rank", "dealer", "bidding_start",
              "trump", "kitty", "buried", "picks", "points")
    LOGS = ("bids", "tricks", "history")

    def __init__(self, variant: str, seed: int, record: bool = False):
        self.variant = variant
        self.seed = seed
        self.n = 4
        self.levels = [2, 2]
        self.dealer: int | None = None
        self.deal_number = 0
        self.moves = 0
        self.deal_moves = 0
        self.history: list[dict] = []
        self.over = False
        self.reason: str | None = None
        self._ranks: list[int] | None = None
        self._scores: list[int] | None = None
        self._legal: tuple | None = None
        self.events: list | None = [] if record else None

    # -- a deal ---------------------------------------------------------------------------

    def start_deal(self, hands: list[list[int]], kitty: list[int], bidding_start: int) -> None:
        self.deal_number += 1
        self.deal_moves = 0
        self.hands = [[0] * 54 for _ in range(4)]
        for p, cards in enumerate(hands):
            for f in cards:
                self.hands[p][f] += 1
        self.kitty = list(kitty)
        self.level_rank = 2 if self.dealer is None else self.levels[self.dealer % 2]
        self.bidding_start = bidding_start
        self.phase = "bid"
        self.to_move = bidding_start
        self.bids: list[dict] = []
        self.standing: tuple[int, int, int | None] | None = None  # seat, strength, suit
        self.first_declarer: int | None = None
        self.passes = 0
        self.trump: int | None = None
        self.trump_known = False
        self.kitty_public = False
        self.buried: list[int] = []
        self.picks: list[int] = []
        self.trick: list[tuple[int, list[int]]] = []
        self.tricks: list[dict] = []
        self.points = 0
        self.order: Order | None = None
        self._legal = None
        self._event(None, "deal", hands=[self._names(h) for h in hands],
                    kitty=self._names(kitty), bidding_start=bidding_start,
                    level_rank=self.level_rank, levels=list(self.levels))

    def _names(self, faces) -> list[str]:
        return [FACE_NAMES[f] for f in faces]

    def hand_list(self, p: int) -> list[int]:
        """Seat ``p``'s hand, a face per card: in trump order once there is one, else by
        face (two copies of a face side by side)."""
        return _held(self.hands[p], ALL_FACES if self.order is None else self.order.faces,
                     ALL_FACES)

    def hand_names(self, p: int) -> list[str]:
        """``hand_list(p)``, each face by its name."""
        return _held(self.hands[p], ALL_FACES if self.order is None else self.order.faces,
                     FACE_NAMES)

    @property
    def attackers(self) -> int:
        return 1 - self.dealer % 2

    # -- queries ------------------------------------------------------------------------

    def legal_actions(self) -> tuple:
        if self._legal is None:
            self._legal = () if self.over else tuple(
                self._bids() if self.phase == "bid" else
                self._buries() if self.phase == "bury" else
                self._leads() if not self.trick and not self.picks and
                self.to_move == self._leader() else self._follows())
        return self._legal

    def _leader(self) -> int:
        return self.trick[0][0] if self.trick else self.leader

    def _bids(self) -> list[str]:
        hand, level = self.hands[self.to_move], self.level_rank
        strength = self.standing[1] if self.standing else 0
        out = ["pass"]
        for s in range(4):
            f = (level - 2) * 4 + s
            if hand[f] >= 1 and strength < 1:
                out.append(DECLARE[f])
            if hand[f] == 2 and strength < 2:
                out.append(DECLARE_PAIR[f])
        if hand[SJ] == 2 and strength < 3:
            out.append(DECLARE_PAIR[SJ])
        if hand[BJ] == 2 and strength < 4:
            out.append(DECLARE_PAIR[BJ])
        return out

    def _buries(self) -> list[str]:
        hand, picks = self.hands[self.to_move], self.picks
        return [BURY[f] for f in self.order.faces
                if hand[f] and hand[f] > picks.count(f)]

    def _leads(self) -> list[str]:
        hand, order = self.hands[self.to_move], self.order
        held = [f for f in order.faces if hand[f]]
        out = [PLAY[f] for f in held]
        pairs = [f for f in held if hand[f] == 2]
        out += [PLAY_PAIR[f] for f in pairs]
        for tractor in tractors(pairs, order):
            out.append("play " + " ".join(FACE_NAMES[f] for f in tractor for _ in (0, 1)))
        return out

    def _follows(self) -> list[str]:
        """Each face whose pick leaves a legal follow within reach: :func:`completable` for
        every face at once (the suit's counts read once, then one step per face)."""
        hand, picks, order = self.hands[self.to_move], self.picks, self.order
        suit = order.suit
        led = self.trick[0][1]
        n, s = len(led), suit[led[0]]
        room = n - len(picks) - 1  # after this pick
        in_suit = [f for f in order.faces if hand[f] and suit[f] == s]
        m = sum(hand[f] for f in in_suit)
        if m < n:  # short: all of the led suit, then anything
            others = sum(1 for f in picks if suit[f] != s)
            off = others + 1 <= n - m
            return [PICK[f] for f in order.faces
                    if hand[f] > picks.count(f) and (off or suit[f] == s)]
        if n == 1:
            return [PICK[f] for f in in_suit]
        # enough of the led suit: only its cards, making as many pairs as can still be made
        need = min(n // 2, sum(1 for f in in_suit if hand[f] == 2))
        count = {}
        for f in picks:
            count[f] = count.get(f, 0) + 1
        have = sum(1 for k in count.values() if k == 2)
        halves = sum(1 for f, k in count.items() if k == 1 and hand[f] == 2)
        fresh = sum(1 for f in in_suit if hand[f] == 2 and f not in count)
        out = []
        for f in in_suit:
            k = count.get(f, 0)
            if k >= hand[f]:
                continue
            h, v, fr = have, halves, fresh
            if k == 1:  # completes a pair
                h, v = h + 1, v - 1
            elif hand[f] == 2:  # starts one
                v, fr = v + 1, fr - 1
            finish = min(room, v)
            if h + finish + min(fr, (room - finish) // 2) >= need:
                out.append(PICK[f])
        return out

    # -- moves --------------------------------------------------------------------------

    def apply(self, action: str) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal here")
        self._legal = None
        p = self.to_move
        word, _, rest = action.partition(" ")
        faces = [face(n) for n in rest.split()]
        if self.phase == "bid":
            self._bid(p, faces)
        elif self.phase == "bury":
            self.picks.append(faces[0])
            if len(self.picks) == 8:
                self._bury(p)
        elif word == "play":
            self._play(p, faces)
        else:
            self.picks.append(faces[0])
            if len(self.picks) == len(self.trick[0][1]):
                picks, self.picks = self.picks, []
                self._play(p, picks)
        if not self.over and self.deal_moves >= MOVE_CAP:
            self._finish_match("cap")

    def _move(self) -> None:
        self.moves += 1
        self.deal_moves += 1

    def _bid(self, p: int, faces: list[int]) -> None:
        self._move()
        if not faces:
            self.bids.append({"seat": p, "bid": "pass"})
            self.passes += 1
            self._event(p, "bid", action="pass")
            done = self.passes == (3 if self.standing else 4)
        else:
            strength = (4 if faces[0] == BJ else 3 if faces[0] == SJ else len(faces))
            suit = faces[0] % 4 if strength <= 2 else None
            self.standing = (p, strength, suit)
            if self.first_declarer is None:
                self.first_declarer = p
            self.passes = 0
            self.bids.append({"seat": p, "bid": self._names(faces)})
            self._event(p, "bid", action="declare", cards=self._names(faces))
            done = False
        if not done:
            self.to_move = (p + 1) % 4
            return
        if self.standing:
            self.trump = self.standing[2]
            if self.dealer is None:
                self.dealer = self.first_declarer
        else:  # nobody declared: the kitty is turned up and names the trump
            self.kitty_public = True
            self.trump = next(f % 4 for f in self.kitty if f < 52)
            if self.dealer is None:
                self.dealer = self.bidding_start
        self.trump_known = True
        self.level_rank = self.levels[self.dealer % 2]
        self.order = Order(self.level_rank, self.trump)
        for f in self.kitty:
            self.hands[self.dealer][f] += 1
        self.phase = "bury"
        self.to_move = self.dealer
        self._event(self.dealer, "trump", trump=self.trump_name(), dealer=self.dealer,
                    kitty_public=self.kitty_public, kitty=self._names(self.kitty),
                    level_rank=self.level_rank)

    def trump_name(self) -> str | None:
        if not self.trump_known:
            return None
        return "none" if self.trump is None else C.SUITS[self.trump]

    def _bury(self, p: int) -> None:
        self._move()
        for f in self.picks:
            self.hands[p][f] -= 1
        self.buried, self.picks = self.picks, []
        self._event(p, "bury", cards=self._names(self.buried))
        self.phase = "play"
        self.leader = self.to_move = p

    def _play(self, p: int, faces: list[int]) -> None:
        self._move()
        for f in faces:
            self.hands[p][f] -= 1
        faces = sorted(faces, key=self.order.pos.__getitem__)
        self.trick.append((p, faces))
        if len(self.trick) < 4:
            self.to_move = (p + 1) % 4
            if self.events is not None:
                self._event(p, "play", cards=self._names(faces))
            return
        winner = trick_winner(self.trick, self.order)
        won = sum(POINTS[f] for _, cards in self.trick for f in cards)
        if winner % 2 == self.attackers:
            self.points += won
        last = not any(self.hands[winner])
        bonus = 0
        if last and winner % 2 == self.attackers:
            bonus = sum(POINTS[f] for f in self.buried) * 2 * len(faces)
            self.points += bonus
        self.tricks.append({"leader": self.trick[0][0], "plays": [
            [s, self._names(c)] for s, c in self.trick], "winner": winner, "points": won})
        if self.events is not None:
            self._event(p, "play", cards=self._names(faces), winner=winner, points=won,
                        kitty_bonus=bonus if last else None)
        self.trick = []
        if last:
            self._end_deal()
        else:
            self.leader = self.to_move = winner

    def _end_deal(self) -> None:
        score, dealer = self.points, self.dealer
        side, up = outcome(score)
        team = dealer % 2 if side == "defenders" else self.attackers
        next_dealer = (dealer + 2) % 4 if side == "defenders" else (dealer + 1) % 4
        self.levels[team] += up
        self.history.append({"deal": self.deal_number, "dealer": dealer,
                             "trump": self.trump_name(), "buried": self._names(self.buried),
                             "points": score, "up": {"team": team, "levels": up}})
        self._event(dealer, "score", points=score, team=team, up=up, levels=list(self.levels),
                    buried=self._names(self.buried))
        if self.variant == "deal":
            self._set_result("out", team, up)
        elif max(self.levels) > 14:
            self._set_result("out", 0 if self.levels[0] > 14 else 1)
        elif self.deal_number >= DEAL_CAP:
            self._finish_match("cap")
        else:
            self.dealer = next_dealer
            self.deal_from_seed(next_dealer)

    def deal_from_seed(self, bidding_start: int | None = None) -> None:
        deck = [f for f in range(54) for _ in (0, 1)]
        random.Random(C.derive_seed(self.seed, "deal", self.deal_number)).shuffle(deck)
        if bidding_start is None:
            bidding_start = random.Random(C.derive_seed(self.seed, "start")).randrange(4)
        self.start_deal([deck[25 * p:25 * p + 25] for p in range(4)], deck[100:], bidding_start)

    # -- the end ------------------------------------------------------------------------

    def _margin(self, team: int) -> int:
        mine, theirs = (min(x, 15) for x in (self.levels[team], self.levels[1 - team]))
        return mine - theirs

    def _set_result(self, reason: str, winners: int | None, up: int | None = None) -> None:
        if winners is None:
            ranks = [1, 1, 1, 1]
        else:
            ranks = competition_ranks([0 if p % 2 == winners else 1 for p in range(4)])
        if reason == "forfeit":
            scores = [1 if p % 2 == winners else -1 for p in range(4)]
        elif self.variant == "deal":
            scores = [up if p % 2 == winners else -up for p in range(4)]
        else:
            scores = [self._margin(p % 2) for p in range(4)]
        self._ranks, self._scores = ranks, scores
        self.over, self.reason, self.to_move, self._legal = True, reason, None, None
        self.phase = "over"

    def _finish_match(self, reason: str) -> None:
        a, b = self.levels
        self._set_result(reason, None if a == b else (0 if a > b else 1))

    def forfeit(self, seat: int) -> None:
        """End now: ``seat``'s team loses."""
        if not self.over:
            self._set_result("forfeit", 1 - seat % 2)

    # -- search -------------------------------------------------------------------------

    def copy(self) -> TractorState:
        """An independent copy (no events), for search."""
        new = TractorState.__new__(TractorState)
        new.__dict__.update(self.__dict__)
        new.levels, new.history = list(self.levels), list(self.history)
        if hasattr(self, "hands"):
            new.hands = [list(h) for h in self.hands]
            new.kitty, new.bids, new.buried = list(self.kitty), list(self.bids), list(self.buried)
            new.picks, new.trick, new.tricks = list(self.picks), list(self.trick), list(self.tricks)
        new.events = None
        return new

    def playout(self, rng: random.Random, trace: list | None = None,
                greedy: float = 0.0) -> Result:
        """Play on to the end and return the result. Modifies this state (``copy`` first);
        ``trace`` receives the actions, which replay through ``apply``.

        Each move is random or, with probability ``greedy``, a cheap greedy one. Bids and
        the bury go through ``apply`` (random: uniform over the legal actions; greedy: pass,
        and bury the cheapest cards). Tricks are played on the state's own counts, a whole
        follow at a time, by :meth:`_lead` and :meth:`_follow` (no legal lists, no strings):
        a random lead is uniform over the legal leads, a random follow of *n* cards is drawn
        whole - uniformly chosen pairs of the led suit as many as must be played, then
        uniformly chosen cards of the led suit, then of the rest of the hand. The greedy
        policy is the ``greedy`` bot's (arena_bots.greedy_tractor) on the state's own cards,
        except that it makes a follow of several cards whole, not pick by pick.

        In a ``match`` the playout ends with the deal it is in (the rest of a match of up to
        60 deals would cost a hundred times more): the result is then the one a match would
        have with the levels as they stand (scores: each team's level margin; reason
        ``"deal"``)."""
        rand = rng.random
        deal = self.deal_number
        while not self.over and self.deal_number == deal and (
                self.phase != "play" or self.picks):
            legal = self.legal_actions()
            if greedy and rand() < greedy:
                action = legal[0] if self.phase != "bury" else min(legal, key=self._bury_cost)
            else:
                action = legal[int(rand() * len(legal))]
            if trace is not None:
                trace.append(action)
            self.apply(action)
        while not self.over and self.deal_number == deal:
            p = self.to_move
            choose = greedy and rand() < greedy
            if self.trick:
                faces = self._follow(p, rng, choose)
                if trace is not None:
                    trace += ["pick " + FACE_NAMES[f] for f in faces]
            else:
                faces = self._lead(p, rng, choose)
                if trace is not None:
                    trace.append("play " + " ".join(FACE_NAMES[f] for f in faces))
            self._legal = None
            self._play(p, faces)
        if self.over:
            return self.result()
        a, b = self.levels
        ranks = [1, 1, 1, 1] if a == b else competition_ranks(
            [0 if p % 2 == (0 if a > b else 1) else 1 for p in range(4)])
        return Result(ranks, [self._margin(p % 2) for p in range(4)], "deal", self.moves)

    def _bury_cost(self, action: str) -> tuple:
        f = face(action[5:])
        return bury_cost(f, self.hands[self.to_move][f] - self.picks.count(f), self.order)

    def _lead(self, p: int, rng: random.Random, greedy: bool) -> list[int]:
        """A lead for a playout: uniformly random among the legal leads, or greedy's (a
        plain tractor, a plain pair of the two top tiers, a plain top card, else the
        cheapest plain single, else the cheapest card)."""
        hand, suit, tier = self.hands[p], self.order.suit, self.order.tier
        held = [f for f in range(54) if hand[f]]
        pairs = [f for f in held if hand[f] == 2]
        runs = tractors(pairs, self.order) if len(pairs) > 1 else []
        if not greedy:
            k = int(rng.random() * (len(held) + len(pairs) + len(runs)))
            if k < len(held):
                return [held[k]]
            if k < len(held) + len(pairs):
                return [pairs[k - len(held)]] * 2
            return [f for f in runs[k - len(held) - len(pairs)] for _ in (0, 1)]
        plain = [r for r in runs if suit[r[0]] != TRUMP]
        if plain:
            best = max(plain, key=lambda r: (len(r), tier[r[-1]]))
            return [f for f in best for _ in (0, 1)]
        tops = [f for f in pairs if suit[f] != TRUMP and tier[f] >= 10]
        if tops:
            return [max(tops, key=tier.__getitem__)] * 2
        singles = [f for f in held if suit[f] != TRUMP]
        aces = [f for f in singles if tier[f] == 11]
        if aces:
            return [aces[0]]
        return [min(singles or held, key=lambda f: (POINTS[f] > 0, tier[f], f))]

    def _follow(self, p: int, rng: random.Random, greedy: bool) -> list[int]:
        """A whole legal follow of the trick's lead for a playout (rules "Following"): the
        pairs of the led suit that must be played, then cards of the led suit, then others.
        Random: each choice uniform. Greedy (greedy's): when the partner is winning, the
        cards with most points; a single card that wins a trick holding points, as cheaply
        as it can; else the cheapest cards."""
        hand, order = self.hands[p], self.order
        suit, tier = order.suit, order.tier
        led = self.trick[0][1]
        n, s = len(led), suit[led[0]]
        mine = [f for f in range(54) if hand[f]]
        mine += [f for f in mine if hand[f] == 2]
        in_suit = [f for f in mine if suit[f] == s]
        if greedy:
            plays = self.trick
            if n == 1:
                winner, best = _single_winner(plays, order)
            else:
                winner = trick_winner(plays, order)
            if winner % 2 == p % 2:
                def rank(f):
                    return (-POINTS[f], tier[f], f)
            else:
                def rank(f):
                    return (POINTS[f] > 0, suit[f] == TRUMP, tier[f], f)
                if n == 1:
                    pool = in_suit or mine
                    at_stake = sum(POINTS[c[0]] for _, c in plays)
                    if at_stake + max(POINTS[f] for f in pool) > 0:
                        wins = [f for f in pool if (tier[f] + 100 if suit[f] == TRUMP else
                                                    tier[f] if suit[f] == s else -1) > best]
                        if wins:
                            return [min(wins, key=lambda f: (suit[f] == TRUMP, tier[f], f))]

            def take(pool, k):
                return sorted(pool, key=rank)[:k]
        else:
            def take(pool, k):
                return rng.sample(pool, k)
        if len(in_suit) < n:  # short: all of the led suit, then anything
            rest = [f for f in mine if suit[f] != s]
            return in_suit + take(rest, n - len(in_suit))
        if n == 1:
            return take(in_suit, 1)
        pairs = sorted({f for f in in_suit if hand[f] == 2})
        chosen = take(pairs, min(n // 2, len(pairs)))
        out = [f for f in chosen for _ in (0, 1)]
        if len(out) < n:
            rest = list(in_suit)
            for f in out:
                rest.remove(f)
            out += take(rest, n - len(out))
        return out

    # -- what a seat knows --------------------------------------------------------------

    def observation(self, seat: int) -> dict:
        """What ``seat`` knows. The records of ``bids``, ``tricks`` and ``history`` are the
        state's own, made once and never changed, and shared by every observation (read
        them, do not change them): so building one costs the same late in a match as early,
        and the runner's observation delta (``arena.sandbox.deltas``) finds an earlier
        observation's records in a later one by identity, not by comparing them."""
        (phase, to_move, deal, levels, level_rank, dealer, bidding_start, trump, kitty, buried,
         picks, points) = self._members(seat)
        return {
            "game": "tractor", "variant": self.variant, "seat": seat, "team": seat % 2,
            "players": 4, "phase": phase, "to_move": to_move, "move": self.moves, "deal": deal,
            "levels": levels, "level_rank": level_rank, "dealer": dealer,
            "bidding_start": bidding_start, "hand": self.hand_names(seat),
            "bids": list(self.bids), "trump": trump, "kitty": kitty, "buried": buried,
            "picks": picks, "trick": self._trick_view(), "tricks": list(self.tricks),
            "points": points, "history": list(self.history),
        }

    def _always(self, seat: int) -> dict:
        """The members of ``seat``'s observation that change nearly every move, set in
        every delta (``MarkedDeltas``)."""
        return {"move": self.moves, "hand": self.hand_names(seat),
                "trick": self._trick_view()}

    def _logs(self) -> tuple:
        """Each log (``LOGS``), with its length."""
        return ((self.bids, len(self.bids)), (self.tricks, len(self.tricks)),
                (self.history, len(self.history)))

    def _members(self, seat: int) -> tuple:
        """The values of ``seat``'s observation's members that a mark holds (``MARKED``):
        all but its constant ones, ``_always``'s and the logs."""
        dealer_view = seat == self.dealer and self.phase != "bid"
        return (self.phase, self.to_move, self.deal_number, list(self.levels), self.level_rank,
                self.dealer, self.bidding_start, self.trump_name(),
                self._names(self.kitty) if self.kitty_public or dealer_view else None,
                self._names(self.buried) if dealer_view else None,
                self._names(self.picks) if seat == self.to_move else [], self.points)

    def _trick_view(self) -> dict:
        return {"leader": self._leader() if self.phase == "play" else None,
                "plays": [[s, self._names(c)] for s, c in self.trick]}

    def encode(self, seat: int, out, mask):
        """``seat``'s observation and legal actions as ``arena.envs.encoding``'s Tractor
        encoding makes them, read from the state (``encode``)."""
        return encode(self, seat, out, mask)

    def reveal(self) -> dict:
        """Every hidden card, for a spectator who sees everything (a replay's view of the
        whole table; never sent to a bot): the four hands, the kitty as dealt and the
        dealer's bury."""
        return {"hands": [self.hand_names(p) for p in range(4)],
                "kitty": self._names(self.kitty), "buried": self._names(self.buried)}

    def all_faces(self) -> list[int]:
        """Every card of the deal wherever it lies (for conservation checks)."""
        out = [f for p in range(4) for f in self.hand_list(p)] + list(self.buried)
        if self.phase == "bid":
            out += self.kitty
        out += [f for _, c in self.trick for f in c]
        out += [face(n) for t in self.tricks for _, c in t["plays"] for n in c]
        return out

    def _event(self, seat, stage: str, **info) -> None:
        if self.events is not None:
            self.events.append({"move": self.moves, "deal": self.deal_number, "seat": seat,
                                "stage": stage, **{k: v for k, v in info.items()
                                                   if v is not None}})


def _played_counts(state: TractorState) -> list:
    """Per seat, copies per face of the cards it played in the deal's finished tricks
    (``4 * 54`` counts), kept on the state between calls (``_played``) and brought up to
    date with the tricks finished since: a deal's tricks only grow, and a new deal or a
    copy of the state, whose lists are its own, counts them again. For ``encode``: so a
    step of a training environment costs the same late in a deal as early."""
    tricks = state.tricks
    kept = getattr(state, "_played", None)
    if kept is None or kept[0] is not tricks:
        kept = state._played = [tricks, 0, [0] * 216]
    counts, by_name = kept[2], FACES_BY_NAME
    for i in range(kept[1], len(tricks)):
        for s, names in tricks[i]["plays"]:
            for name in names:
                f = by_name[name]
                counts[s * 54 + f] += 1
    kept[1] = len(tricks)
    return counts


def encode(state: TractorState, seat: int, out, mask):
    """Write ``seat``'s observation, as ``arena.envs.encoding.TractorEncoding`` encodes it,
    into the float32 array ``out`` (of that encoding's ``size``), and where ``seat`` is to
    move, 1 at its legal actions' indices into the int8 array ``mask`` (zero before),
    returning those indices in order (else None): what the encoding makes of the
    observation and the legal list, read from the state without building either (for
    training environments; tested in lockstep with the encoding)."""
    out[:] = 0
    phase = state.phase
    out[0 if phase == "bid" else 1 if phase == "bury" else 2 if phase == "play" else 3] = 1
    if state.to_move is not None:
        out[4 + (state.to_move - seat) % 4] = 1
    team = seat % 2
    out[6 + min(state.levels[team], 14)] = 1
    out[19 + min(state.levels[1 - team], 14)] = 1
    out[32 + state.level_rank] = 1
    out[47 + ((state.dealer - seat) % 4 if state.dealer is not None else 4)] = 1
    out[52 + (5 if not state.trump_known else 4 if state.trump is None else state.trump)] = 1
    strength, at = 0, 4
    for b in state.bids:
        bid = b["bid"]
        if bid != "pass":
            strength = 4 if bid[0] == "BJ" else 3 if bid[0] == "SJ" else len(bid)
            at = (b["seat"] - seat) % 4
    out[58 + strength] = 1
    out[63 + at] = 1
    hand = state.hands[seat]
    for f in range(54):
        if hand[f]:
            out[68 + f] = 0.5 * hand[f]
    dealer_view = seat == state.dealer and phase != "bid"
    if state.kitty_public or dealer_view:
        for f in state.kitty:
            out[122 + f] += 0.5
        out[176] = 1
    if dealer_view:
        for f in state.buried:
            out[177 + f] += 0.5
    if seat == state.to_move:
        for f in state.picks:
            out[231 + f] += 0.5
    out[285 + ((state._leader() - seat) % 4 if phase == "play" else 4)] = 1
    for s, cards in state.trick:
        base = 290 + (s - seat) % 4 * 54
        for f in cards:
            out[base + f] += 0.5
    counts = _played_counts(state)
    for k in range(4):
        base, s = 506 + 54 * k, (seat + k) % 4 * 54
        for f in range(54):
            if counts[s + f]:
                out[base + f] = 0.5 * counts[s + f]
    out[722] = min(state.points / 400, 1.0)
    out[723] = min(state.deal_number / 60, 1.0)
    out[724] = len(state.tricks) / 25
    if state.over or seat != state.to_move:
        return None
    indices = []
    level = state.level_rank
    for action in state.legal_actions():
        i = action_index(action, level)
        indices.append(i)
        mask[i] = 1
    return indices


def action_index(action: str, level: int) -> int:
    """A legal action's index in ``arena.envs.encoding.TractorEncoding``'s action space,
    ``level`` the rank being played: bids (``pass`` 0, a single or a pair declared 1-8 by
    suit, the small and the big jokers 9 and 10), ``bury F`` from 11, ``pick F`` from 65,
    a single and a pair led from 119 and 173, a tractor from 227 (by its first face, its
    pairs and the suit of the level card it passes through after its first). GameError
    for what is not a Tractor action."""
    word, _, rest = action.partition(" ")
    faces = rest.split()
    try:
        f = FACES_BY_NAME[faces[0]] if faces else -1
        if word == "pass" and not faces:
            return 0
        if word == "declare" and len(faces) in (1, 2):
            return 9 if f == 52 else 10 if f == 53 else 1 + f % 4 + (4 if len(faces) == 2 else 0)
        if word == "bury" and len(faces) == 1:
            return 11 + f
        if word == "pick" and len(faces) == 1:
            return 65 + f
        if word == "play" and len(faces) == 1:
            return 119 + f
        if word == "play" and len(faces) == 2:
            return 173 + f
        if word == "play" and faces:  # a tractor
            suit = 0
            for k in range(2, len(faces), 2):
                g = FACES_BY_NAME[faces[k]]
                if g < 52 and g // 4 + 2 == level:
                    suit = g % 4
                    break
            return 227 + (f * 11 + len(faces) // 2 - 2) * 4 + suit
    except KeyError:
        pass
    raise GameError(f"not a Tractor action: {action!r}")


# -- shapes, tricks and scores ----------------------------------------------------------------


def outcome(points: int) -> tuple[str, int]:
    """Rules "Scoring a deal": which side goes up (``defenders``/``attackers``) and by how
    many levels, from the attackers' points. With 80-115 the attackers take control (they
    defend next) without going up."""
    if points < 80:
        return "defenders", 3 if points == 0 else 2 if points < 40 else 1
    return "attackers", 0 if points < 120 else 1 + (points - 120) // 40


def tractors(pairs: list[int], order: Order) -> list[list[int]]:
    """Every tractor (two or more pairs on consecutive tiers of one effective suit) that
    the faces in ``pairs`` (each held twice) can form, one face per tier."""
    by_tier: dict[tuple[int, int], list[int]] = {}
    for f in pairs:
        by_tier.setdefault((order.suit[f], order.tier[f]), []).append(f)
    out = []
    for (suit, tier) in sorted(by_tier):
        if (suit, tier - 1) in by_tier:
            continue  # runs are taken from their lowest tier
        run = []
        while (suit, tier) in by_tier:
            run.append(by_tier[suit, tier])
            tier += 1
        for i in range(len(run)):
            for j in range(i + 2, len(run) + 1):
                out += [list(choice) for choice in product(*run[i:j])]
    return out


def shape(faces: list[int], order: Order) -> tuple[str, int, int] | None:
    """``(kind, suit, top tier)`` of a play that is a single, pair or tractor, else None.
    ``kind`` is ``"1"``, ``"2"`` or ``"2xN"``."""
    suits = {order.suit[f] for f in faces}
    if len(suits) != 1:
        return None
    suit = suits.pop()
    if len(faces) == 1:
        return ("1", suit, order.tier[faces[0]])
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    if any(k != 2 for k in counts.values()):
        return None
    tiers = sorted(order.tier[f] for f in counts)
    if len(tiers) == 1:
        return ("2", suit, tiers[0])
    if tiers != list(range(tiers[0], tiers[0] + len(tiers))):
        return None
    return (f"2x{len(tiers)}", suit, tiers[-1])


def trick_winner(trick: list[tuple[int, list[int]]], order: Order) -> int:
    """Rules "Winning": only plays of the lead's shape, wholly in the led suit or (when a
    plain suit was led) wholly in trumps, compete; trumps beat the plain suit, else the
    higher top tier; at equal strength the earlier play."""
    if len(trick[0][1]) == 1:  # singles: every play is one card, no shapes to compare
        return _single_winner(trick, order)[0]
    lead = shape(trick[0][1], order)
    best_seat, best = trick[0][0], (1 if lead[1] == TRUMP else 0, lead[2])
    for seat, faces in trick[1:]:
        s = shape(faces, order)
        if s is None or s[0] != lead[0]:
            continue
        if s[1] == lead[1]:
            strength = (1 if lead[1] == TRUMP else 0, s[2])
        elif s[1] == TRUMP:
            strength = (1, s[2])
        else:
            continue
        if strength > best:
            best_seat, best = seat, strength
    return best_seat


def bury_cost(f: int, left: int, order: Order) -> tuple:
    """How dear burying ``f`` is, of which ``left`` copies are still held and not picked:
    trumps, then point cards, then a card that breaks a pair, then higher tiers (the
    ``greedy`` bot's bury and the playouts' greedy one)."""
    return (order.suit[f] == TRUMP, POINTS[f] > 0, left == 2, order.tier[f])


def _single_winner(trick: list[tuple[int, list[int]]], order: Order) -> tuple[int, int]:
    """The seat winning a trick of single cards so far, and its strength (trumps count
    above every plain tier)."""
    suit, tier = order.suit, order.tier
    seat, (f,) = trick[0]
    led = suit[f]
    best = tier[f] + (100 if led == TRUMP else 0)
    for s, (f,) in trick[1:]:
        if suit[f] == TRUMP:
            strength = tier[f] + 100
        elif suit[f] == led:
            strength = tier[f]
        else:
            continue
        if strength > best:
            seat, best = s, strength
    return seat, best


def completable(hand: list[int], picks: list[int], led: list[int], order: Order) -> bool:
    """Can ``picks`` (a multiset of faces from ``hand``) still grow into a legal follow of
    ``led`` (rules "Following")?"""
    n = len(led)
    if len(picks) > n:
        return False
    suit = order.suit[led[0]]
    in_suit = [f for f in range(54) if hand[f] and order.suit[f] == suit]
    m = sum(hand[f] for f in in_suit)
    picked_suit = [f for f in picks if order.suit[f] == suit]
    others = len(picks) - len(picked_suit)
    if m >= n:
        if others:
            return False  # enough of the led suit: every card must be of it
        pairs_led = n // 2 if len(led) > 1 else 0
        if not pairs_led:
            return True
        held_pairs = sum(1 for f in in_suit if hand[f] == 2)
        need = min(pairs_led, held_pairs)
        count: dict[int, int] = {}
        for f in picked_suit:
            count[f] = count.get(f, 0) + 1
        have = sum(1 for k in count.values() if k == 2)
        halves = sum(1 for f, k in count.items() if k == 1 and hand[f] == 2)
        fresh = sum(1 for f in in_suit if hand[f] == 2 and f not in count)
        room = n - len(picks)
        finish = min(room, halves)
        best = have + finish + min(fresh, (room - finish) // 2)
        return best >= need
    return others <= n - m  # short: all of the led suit, then anything


class Tractor(Game):
    """Factory and metadata for Tractor."""

    name = "tractor"
    title = "Tractor"
    variants = {"match": (4,), "deal": (4,)}
    default_variant = "match"
    move_cap = MOVE_CAP
    move_cap_per = "deal"  # a match runs deal after deal (at most DEAL_CAP of them)
    teams = 2
    description = "four-player trick-taking team game with two decks (Shengji)"
    draw_probability = 0.01  # drawn only at the 60-deal cap with equal levels
    season_batch = {"match": 8, "deal": 128}  # ~230 ms a match, ~12 ms a deal (sandboxed)

    # -- luck (arena.luck) ---------------------------------------------------------------

    #: ``luck_features``' weights by variant: ``python benchmarks/fit_luck.py --game
    #: tractor --variant V --games G`` (match: 150 matches, R^2 0.245; deal: 2000 deals,
    #: R^2 0.224)
    luck_weights = {
        "match": (0.084275, 0.0204209, 0.000522018, 0.0141182, 0.00310109, 0.0060975,
                  -0.000768528, 0.000151456, 0.00150414),
        "deal": (0, -0.0651066, 0.00352765, 0.0374153, 0.0211309, 0.0291582, -0.00986891,
                 -0.000264547, 0.0072214),
    }

    def luck_features(self, state: TractorState) -> list[list[float]]:
        """Per seat, its team's: level (capped at A), whether it deals, the points it has
        taken as attackers this deal; in its two hands the jokers, the cards of the level's
        rank, the aces, the pairs, the points and (once known) the trumps. What the seats
        know between them: every hand, and everything public (never the kitty's order)."""
        teams = []
        for team in (0, 1):
            dealing = state.dealer is not None and state.dealer % 2 == team
            f = [float(min(state.levels[team], 14)), float(dealing),
                 0.0 if dealing or state.dealer is None else float(state.points),
                 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
            for p in (team, team + 2):
                for face_, k in enumerate(state.hands[p]):
                    if not k:
                        continue
                    r = rank_of(face_)
                    f[3] += k if face_ >= 52 else 0
                    f[4] += k if r == state.level_rank else 0
                    f[5] += k if r == 14 else 0
                    f[6] += k == 2
                    f[7] += k * POINTS[face_]
                    if state.trump_known and (face_ >= 52 or r == state.level_rank
                                              or face_ % 4 == state.trump):
                        f[8] += k
            teams.append(f)
        return [teams[p % 2] for p in range(4)]

    def unseen(self, state: TractorState) -> list[int]:
        """The kitty while the seats bid (then the dealer takes it, or it is turned up)."""
        return list(state.kitty) if getattr(state, "phase", None) == "bid" else []

    def redealt(self, state: TractorState, cards: list, rng: random.Random) -> TractorState:
        """A copy with the kitty in the order ``cards``, and in a ``match`` its later deals
        dealt from a fresh seed (each deal's cards come from the seed and its number)."""
        new = state.copy()
        if cards:
            new.kitty = list(cards)
        if self.later_chance(state):
            new.seed = rng.getrandbits(63)
        return new

    def later_chance(self, state: TractorState) -> bool:
        """A match deals again after this deal."""
        return state.variant == "match" and not state.over

    def new_state(self, variant: str, players: int, seed: int,
                  record: bool = False) -> TractorState:
        variant = self.check(variant, players)
        state = TractorState(variant, seed, record)
        state.deal_from_seed()
        return state

    DEAL_KEYS = ("hands", "kitty", "bidding_start", "trump", "dealer", "buried", "leader",
                 "points", "levels", "seed", "partial")

    def world(self, observation: dict, rng: random.Random) -> TractorState:
        """A full state consistent with everything the observing seat knows, the cards it
        has not seen dealt uniformly among the deals that fit (``arena.games.dealing``):
        its hand and picks, every card played this deal, the kitty and the bury where it
        sees them, every count, the cards a seat showed in a declaration (in its hand until
        it plays them - or, for the dealer, possibly buried) and the turned-up kitty (in the
        dealer's hand or bury), and every suit a seat has shown it lacks by not following
        (it holds none of that effective suit). Not used: what a follow's shape implies (a
        seat that did not follow a pair with a pair holds no pair of that suit), nor others'
        unfinished picks. Later deals of a match are drawn afresh. Reads only the
        observation.

        A puzzle (``from_deal`` with ``partial``) deals hands of the size this seat's shows
        (its cards held and played), and the cards it leaves out of every hand and the
        kitty are out of play in each world too; begun at a trick, its kitty is nobody's."""
        return next(self.worlds(observation, rng))

    def worlds(self, observation: dict, rng: random.Random):
        """``world`` again and again for one observation, which it reads once."""
        from collections import Counter

        from .dealing import Dealer

        o = observation
        me, phase, dealer = o["seat"], o["phase"], o["dealer"]
        trump_known = o["trump"] is not None
        trump = None if o["trump"] in (None, "none") else C.SUITS.index(o["trump"])
        order = Order(o["level_rank"], trump) if trump_known else None
        plays = [p for t in o["tricks"] for p in t["plays"]] + list(o["trick"]["plays"])
        played: list[list[int]] = [[], [], [], []]
        for seat, cards in plays:
            played[seat] += [face(n) for n in cards]
        voids: list[set[int]] = [set(), set(), set(), set()]
        for trick in o["tricks"] + [o["trick"]]:
            led = trick["plays"][0][1] if trick["plays"] else None
            for seat, cards in trick["plays"][1:]:
                suit = order.suit[face(led[0])]
                if any(order.suit[face(n)] != suit for n in cards):
                    voids[seat].add(suit)
        declared = [b for b in o["bids"] if b["bid"] != "pass"]
        kitty_public = phase != "bid" and not declared and o["kitty"] is not None
        shown = [Counter() for _ in range(4)]
        for b in declared:
            for f, k in Counter(face(n) for n in b["bid"]).items():
                shown[b["seat"]][f] = max(shown[b["seat"]][f], k)
        if kitty_public:
            shown[dealer].update(face(n) for n in o["kitty"])
        for seat in range(4):
            for f in played[seat]:
                if shown[seat][f]:
                    shown[seat][f] -= 1
        own = [face(n) for n in o["hand"]]
        unseen = Counter(f for f in range(54) for _ in (0, 1))
        unseen.subtract(own)
        for seat in range(4):
            unseen.subtract(played[seat])
        mine_buried = [face(n) for n in o["buried"]] if o["buried"] else []
        unseen.subtract(mine_buried)
        others = [q for q in range(4) if q != me]
        place = {q: i for i, q in enumerate(others)}
        # a hand's size: this seat's cards held and played (25 in a game; fewer in a
        # puzzle), less what each played, the dealer's kitty while it buries
        bury = 8 if phase == "bury" else 0
        dealt = len(own) + len(played[me]) - (bury if me == dealer else 0)
        sizes = [dealt - len(played[q]) + (bury if q == dealer else 0) for q in others]
        extra = None  # the hidden kitty (bidding) or the hidden bury (after it)
        if phase == "bid":
            extra = "kitty"
        elif phase in ("play", "over") and me != dealer:
            extra = "buried"
        if extra:
            sizes.append(8)
        hidden_at = len(others) if extra else None

        def allowed(f: int, seats) -> frozenset:
            suit = order.suit[f] if order else None
            return frozenset(place[q] for q in seats if suit not in voids[q])

        groups = []
        for q in others:
            for f, k in shown[q].items():
                if k <= 0:
                    continue
                unseen[f] -= k
                where = allowed(f, [q]) | (frozenset([hidden_at]) if extra == "buried"
                                           and q == dealer else frozenset())
                groups.append(([f] * k, where))
        # a puzzle's cards in no hand and no kitty are out of play in every world too
        surplus = sum(unseen.values()) + sum(len(g[0]) for g in groups) - sum(sizes)
        gone = frozenset([len(sizes)]) if surplus > 0 else frozenset()
        if gone:
            sizes.append(surplus)
        for f, k in unseen.items():
            if k < 0:
                raise GameError("no world fits this observation")
            if k:
                where = allowed(f, others) | (frozenset([hidden_at]) if extra else frozenset())
                groups.append(([f] * k, where | gone))
        deals = Dealer(groups, sizes)
        if not deals.ways:
            raise GameError("no world fits this observation")
        standing, first, passes = None, None, 0
        for b in o["bids"]:
            if b["bid"] == "pass":
                passes += 1
                continue
            faces = [face(n) for n in b["bid"]]
            strength = 4 if faces[0] == BJ else 3 if faces[0] == SJ else len(faces)
            standing = (b["seat"], strength, faces[0] % 4 if strength <= 2 else None)
            first = b["seat"] if first is None else first
            passes = 0
        while True:
            places = deals.deal(rng)
            hands = [own if q == me else places[place[q]] for q in range(4)]
            state = TractorState(o["variant"], rng.getrandbits(63))
            state.levels, state.dealer = list(o["levels"]), dealer
            state.deal_number = o["deal"] - 1
            state.history = [dict(h) for h in o["history"]]
            visible_kitty = [face(n) for n in o["kitty"]] if o["kitty"] is not None else None
            if phase == "bid":
                kitty = places[hidden_at]
            elif visible_kitty is not None:
                kitty = visible_kitty
            else:  # never seen by this seat: eight of the dealer's cards
                pool = hands[dealer] + (places[hidden_at] if extra == "buried" else [])
                kitty = rng.sample(pool, 8)
            state.start_deal(hands, kitty, o["bidding_start"])
            state.level_rank = o["level_rank"]
            state.bids = [dict(b) for b in o["bids"]]
            state.standing, state.first_declarer, state.passes = standing, first, passes
            state.trump, state.trump_known, state.kitty_public = trump, trump_known, kitty_public
            state.order = order
            state.phase, state.to_move = phase, o["to_move"]
            state.picks = [face(n) for n in o["picks"]] if o["to_move"] == me else []
            if phase in ("play", "over"):
                state.buried = mine_buried if me == dealer else places[hidden_at]
                state.leader = o["trick"]["leader"] if phase == "play" else None
            state.trick = [(seat, sorted((face(n) for n in cards), key=order.key))
                           for seat, cards in o["trick"]["plays"]]
            state.tricks = [dict(t) for t in o["tricks"]]
            state.points = o["points"]
            state.moves = o["move"]
            state.deal_moves = (len(o["bids"]) + (phase in ("play", "over")) + len(plays))
            if phase == "over":
                up = o["history"][-1]["up"]
                if o["variant"] == "deal":
                    state._set_result("out", up["team"], up["levels"])
                elif max(state.levels) > 14:
                    state._set_result("out", 0 if state.levels[0] > 14 else 1)
                else:
                    state._finish_match("cap")
            state._legal = None
            yield state

    def to_deal(self, state: TractorState) -> dict:
        """The explicit deal of a fresh state (see ``Game.to_deal``): the first deal's
        hands and kitty; a match's later deals come from its seed (``seeded``)."""
        deal = {"hands": [[FACE_NAMES[f] for f in range(54) for _ in range(state.hands[p][f])]
                          for p in range(4)],
                "kitty": [FACE_NAMES[f] for f in state.kitty],
                "bidding_start": state.bidding_start}
        if state.dealer is not None:
            deal["dealer"] = state.dealer
        if state.levels != [2, 2]:
            deal["levels"] = list(state.levels)
        return deal

    def seeded(self, deal: dict, seed: int) -> dict:
        """A match's later deals are drawn from its seed (a deal book's deal is the first)."""
        return deal if "seed" in deal else {**deal, "seed": seed}

    def from_deal(self, variant: str, deal: dict, record: bool = False) -> TractorState:
        """A state from an explicit deal (tests, puzzles). Keys: ``hands`` (four lists of card
        names) and either ``kitty`` (8 names; bidding starts at ``bidding_start``, default 0)
        or, to start at a trick, ``trump`` (a suit letter or ``"none"``), ``dealer``,
        ``buried`` (8 names) and optionally ``leader`` (default: the dealer) and ``points``
        (the attackers' so far). Optional everywhere: ``levels`` ([2, 2]), ``dealer``
        (none: deal 1). No card may appear more than twice.

        Refused, as the rules cannot reach them: a deal 1 (no dealer) with a level other
        than 2 (deal 1 is bid on 2s by both teams), bidding that starts at a seat other
        than a known dealer, and hands of different sizes at a trick's start (unless
        ``"partial": true``, for a puzzle position)."""
        if not isinstance(deal, dict) or not isinstance(deal.get("hands"), list) \
                or len(deal["hands"]) != 4:
            raise GameError("a Tractor deal is an object with four 'hands'")
        check_keys(deal, self.DEAL_KEYS, "a Tractor deal")
        variant = self.check(variant, 4)
        if not all(isinstance(h, list) for h in deal["hands"]):
            raise GameError("a Tractor deal's hands are lists of cards")
        hands = [[face(n) for n in h] for h in deal["hands"]]
        extra = [face(n) for n in deal.get("kitty", deal.get("buried", []))]
        everything = [f for h in hands for f in h] + extra
        if len(extra) != 8:
            raise GameError("a Tractor deal has 8 cards in the kitty (or buried)")
        if any(everything.count(f) > 2 for f in range(54)):
            raise GameError("a Tractor deal holds no card more than twice")
        state = TractorState(variant, deal.get("seed", 0), record)
        state.levels = list(deal.get("levels", [2, 2]))
        state.dealer = deal.get("dealer")
        if len(state.levels) != 2 or not all(lv in range(2, 15) for lv in state.levels):
            raise GameError("a Tractor deal's levels are two ranks 2-14 (one per team)")
        if state.dealer is None and state.levels != [2, 2]:
            raise GameError("a Tractor deal 1 (no dealer) has both teams at level 2: "
                            "give the dealer to start at other levels")
        if state.dealer is not None and state.dealer not in range(4):
            raise GameError("a Tractor deal's dealer is a seat 0-3")
        if "trump" not in deal:
            if any(len(h) != 25 for h in hands) or len(everything) != 108:
                raise GameError("a Tractor deal has 25 cards per hand and 8 in the kitty")
            start = deal.get("bidding_start", state.dealer if state.dealer is not None else 0)
            if state.dealer is not None and start != state.dealer:
                raise GameError(f"a Tractor deal with a dealer starts its bidding at the "
                                f"dealer (seat {state.dealer}), not seat {start}")
            if start not in range(4):
                raise GameError("a Tractor deal's bidding_start is a seat 0-3")
            state.start_deal(hands, extra, start)
            return state
        if state.dealer not in range(4):
            raise GameError("a deal that starts at a trick needs its dealer (0-3)")
        if len({len(h) for h in hands}) != 1 and not deal.get("partial", False):
            raise GameError("a Tractor deal that starts at a trick has hands of one size, not "
                            + "/".join(str(len(h)) for h in hands))
        trump = deal["trump"]
        state.start_deal(hands, [], state.dealer)
        state.trump = None if trump == "none" else C.SUITS.index(trump)
        state.trump_known = True
        state.level_rank = state.levels[state.dealer % 2]
        state.order = Order(state.level_rank, state.trump)
        state.buried = extra
        state.points = deal.get("points", 0)
        state.phase = "play"
        state.leader = state.to_move = deal.get("leader", state.dealer)
        return state


GAME = Tractor()


@hookimpl
def register_games(register):
    register(GAME)


#: "compiled (Cython)" where the compiled build runs (``arena.games.take_compiled``)
ENGINE = take_compiled(globals())
