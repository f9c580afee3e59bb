"""``greedy`` for Tractor: a sensible heuristic, no search.

* Bidding: declares (as strongly as it may) the suit it holds most of, once it holds six or
  more of it counting level cards and jokers; otherwise passes.
* Burying: the lowest plain cards that carry no points and break no pair.
* Leading: a plain-suit tractor, else a plain pair of A or K, else a plain ace, else its
  lowest plain single (keeping trumps back).
* Following: when its partner is winning the trick it feeds points; otherwise it wins the
  trick as cheaply as it can when the trick holds points (trumping when void), and else
  throws its cheapest card.
"""

from __future__ import annotations

import arena
from arena.cards import SUITS
from arena.games.tractor import FACE_NAMES, TRUMP, Order, bury_cost, face, points, trick_winner


def _order(observation) -> Order:
    trump = observation["trump"]
    return Order(observation["level_rank"], None if trump in (None, "none") else
                 SUITS.index(trump))


class GreedyTractor:
    def act(self, observation, legal):
        phase = observation["phase"]
        if phase == "bid":
            return self._bid(observation, legal)
        order = _order(observation)
        if phase == "bury":
            return self._bury(observation, legal, order)
        if legal[0].startswith("play"):
            return self._lead(legal, order)
        return self._follow(observation, legal, order)

    @staticmethod
    def _bid(observation, legal):
        declares = [a for a in legal if a.startswith("declare")]
        if not declares:
            return "pass"
        hand = [face(n) for n in observation["hand"]]
        level = observation["level_rank"]
        strong = [f for f in hand if f >= 52 or f // 4 + 2 == level]

        def support(action):
            names = action.split()[1:]
            if names[0] in ("SJ", "BJ"):
                return len(strong) + 2
            suit = face(names[0]) % 4
            return len([f for f in hand if f < 52 and f % 4 == suit]) + len(strong) - 1

        best = max(declares, key=lambda a: (support(a), len(a)))
        return best if support(best) >= 6 else "pass"

    @staticmethod
    def _bury(observation, legal, order):
        hand = [face(n) for n in observation["hand"]]
        picked = [face(n) for n in observation["picks"]]

        def cost(action):
            f = face(action.split()[1])
            return bury_cost(f, hand.count(f) - picked.count(f), order)

        return min(legal, key=cost)

    @staticmethod
    def _lead(legal, order):
        def cards(action):
            return [face(n) for n in action.split()[1:]]

        plain = [a for a in legal if order.suit[cards(a)[0]] != TRUMP]
        tractors = [a for a in plain if len(cards(a)) >= 4]
        if tractors:
            return max(tractors, key=lambda a: (len(cards(a)), order.tier[cards(a)[-1]]))
        pairs = [a for a in plain if len(cards(a)) == 2 and order.tier[cards(a)[0]] >= 10]
        if pairs:
            return max(pairs, key=lambda a: order.tier[cards(a)[0]])
        singles = [a for a in plain if len(cards(a)) == 1]
        aces = [a for a in singles if order.tier[cards(a)[0]] == 11]
        if aces:
            return aces[0]
        pool = singles or [a for a in legal if len(cards(a)) == 1] or legal
        return min(pool, key=lambda a: (points(cards(a)[0]) > 0, order.tier[cards(a)[0]]))

    @staticmethod
    def _follow(observation, legal, order):
        seat = observation["seat"]
        plays = [(s, [face(n) for n in c]) for s, c in observation["trick"]["plays"]]
        options = [face(a.split()[1]) for a in legal]
        winner = trick_winner(plays, order)
        at_stake = sum(points(f) for _, c in plays for f in c)

        def cheap(f):
            return (points(f) > 0, order.suit[f] == TRUMP, order.tier[f])

        if winner % 2 == seat % 2:  # partner winning: feed points, else throw cheap
            return "pick " + _name(max(options, key=lambda f: (points(f), -order.tier[f])))
        led = len(plays[0][1])
        if led == 1 and at_stake + max(points(f) for f in options) > 0:
            winning = [f for f in options if trick_winner(plays + [(seat, [f])], order) == seat]
            if winning:
                return "pick " + _name(min(winning, key=lambda f: (order.suit[f] == TRUMP,
                                                                   order.tier[f])))
        return "pick " + _name(min(options, key=cheap))


def _name(f: int) -> str:
    return FACE_NAMES[f]


@arena.hookimpl
def register_bots(register):
    register("greedy", GreedyTractor, games=["tractor"], options={})
