"""``ismcts``: information-set Monte Carlo tree search (single-observer ISMCTS, Cowling,
Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).

Each iteration draws a *world* - a full deal consistent with what this seat has seen, from
the game's own ``world(observation, rng)`` (docs/game-api.md) - and walks one shared tree
whose nodes are the action sequences from the decision at hand: in that world, among the
children whose actions are legal there, it picks by UCB1 with *availability* counts (how
often a child could have been chosen, not how often its parent was visited), expands one
untried action, plays the world out (a rollout) and credits every node on the path with
every seat's result. Forced moves (a single legal action) make no nodes. Rewards are 0-1
per seat, so the same code serves any number of seats and teams (``ISMCTS.reward``): in
Vändtia the score relative to the table's best and worst, in Cherki the money itself (a win
is worth twice what a loss costs), in Tractor half the deal's winner and half the team's
share of its points.

It plays every game. A Tractor follow of several cards is searched pick by pick, each pick
a node (the engine offers only picks that can still be completed legally), so the tree
never holds an illegal follow; a Cherki draw is a node whose children, the discards, differ
by world. Rollouts follow a cheap policy: each move is a greedy one with probability
``greedy`` (default 0.9), else uniformly random - by the engine's own ``playout``. Why not
uniformly random: two random Vändtia players reach the 250-move cap in 77 % of games, so a
random playout mostly measures hand sizes at the cap, not who goes out first; greedy
playouts end (about 72 moves, against 235) and so are faster as well as telling. Measured
with ``benchmarks/strength.py`` on duplicate deals at 200 iterations: random rollouts won
55 % against ``greedy`` (200 games), greedy rollouts 71 % (300 games).

The answer is the most-visited root action, where ``prior`` visits are credited to the
move the ``greedy`` bot would make: with few iterations among many moves (Tractor: 75, for
twenty leads) the visit counts are mostly noise, and the prior keeps greedy's move unless
the search finds another clearly better. Tractor at 30 iterations, greedy rollouts:
without the prior 33 % against ``greedy`` (60 games), with 5 visits 64.5 % (200 games); at
75, 70.0 % (``benchmarks/strength.py --game tractor --variant deal --games 200 --seed 3``).

In Cherki one tree over worlds judged badly, and it plays otherwise: by *sweeps* (option
``sweep``): every legal action in every world, each followed by the same greedy rollout, so
two actions are compared on the same cards to come and the luck of the draw cancels; the
answer is the best mean. That judges the turn (call, draw or take). The discard is left to
the game's heuristic (``heuristic_in="discard"``), in Cherki the tile efficiency of
``efficient_cherki``: keep the hand nearest to ready with the most cards left to bring it
nearer, weighted by what the hand would win. Searched discards lost money, whatever the
search: rollouts between greedy players (no dead cards counted, values ignored) judge a
discard by how it does against them, and forty worlds a decision cannot tell two discards
a few money apart (one tree, +17.5 money a game where ``greedy`` made +22.8; sweeps of
every decision +15.8; sweeps of the discard +10.7). Measured with ``benchmarks/strength.py
--game cherki --bots ismcts,ismcts:heuristic_in=all,greedy,random --games 1800 --seed 5``
(each bot in one seat of a table with ``greedy`` and ``random``, 300 deals in all six
seatings): ``ismcts`` +30.4 money a game, the heuristic alone +32.4, ``greedy`` +22.2,
``random`` -43.1; ``ismcts`` - ``greedy`` +8.2 [+4.1, +12.3] (95 %, paired by deal and
seating). The edge is the discards': the sweeps of the turn add nothing measurable over
the heuristic alone (-2.0 [-5.7, +1.7]), as taking a discard that brings the hand nearer
and calling a live pair at once are what they find too.

Options: ``iterations`` (per decision: a season stays a pure function of its seed; with
sweeps, the playouts of all actions together; 0, the default, is 200 at a Vändtia table of
two and 800 at more, 200 in Cherki and 30 in Tractor), ``think_s`` (a
wall-clock budget per decision instead, when above 0: not reproducible), ``c`` (the UCB
exploration constant), ``greedy`` (the rollouts' share of greedy moves, 0 for uniformly
random playouts; 1 in Tractor and Cherki), ``prior`` (visits credited to the heuristic's
move; 0, and 5 in Tractor), ``sweep`` (false; true in Cherki), ``heuristic_in`` (a phase,
as the observation names it, whose decisions are the game's heuristic's without search -
``greedy``'s in Vändtia and Tractor, ``efficient_cherki``'s in Cherki; "all" for every
decision; "none", and "discard" in Cherki), ``margin`` (sweeps keep the heuristic's move
unless another beats it on the same worlds by more than this many standard errors: 2, and
0 in Cherki).

With more than two seats Vändtia is searched by sweeps too (``sweep="auto"``): one tree
lets every seat's node pick its moves by UCB on its own reward, so the other players play
nearly at random inside the tree instead of like the players they are, and with one winner
among three or four an action's value is mostly noise. Measured with ``arena match
ismcts:iterations=800,... greedy --variant swedish --field greedy,greedy --games 1200
--seed 12 --public-seed``: the tree -5 +- 13 Elo; sweeps +41.5 +- 13; sweeps keeping
greedy's move unless beaten by 2 standard errors +57.9 +- 11.3 (1 error: +57.0 +- 12.3);
a reward shaped by the cards still held lost (+36.2 with weight 0.3, +27.4 with 0.6).

Why 800 playouts at more than two seats: an action's value there is a chance of placing
above two or three others, a smaller difference to find than at two seats with more noise
in each playout, and the margin keeps greedy's move until the difference is clear; four
times the playouts of two seats (55-75 ms a decision here, against 15) brings three of the four
tables to about +60 (``docs/benchmarks.md``; at 1600 `swedish` with three seats gains no
more). The fourth, `swedish` with four seats, stays near +25, and better worlds would not
change that much: ``benchmarks/field_worlds.py`` gives the same sweeps the true deal with
only the cards nobody has seen reshuffled - every other hand known, more than any
inference from the others' play could tell - and they reach +30.8 [+21.6, +40.0] against
+23.2 from the observation's own worlds (400 deals, 200 playouts; at 800, +46.0 against
+27.9); only the stock's order, which no player can know, makes the difference (+125 with
the true state itself). With one winner among four, most of a result is the order of the
cards to come.
"""

from __future__ import annotations

import math
import random
import time

import arena

OPTIONS = {"iterations": 0, "think_s": 0.0, "c": 0.7, "greedy": 0.9, "prior": 0,
           "sweep": "auto", "heuristic_in": "none", "margin": 2.0}
#: Tractor's decisions are dearer (a playout is a whole deal of tricks): 75 iterations keep
#: a decision near 20 ms of CPU here, as 200 do in Vändtia (17 ms) and Cherki (16 ms) - and
#: as 30 did before the engine was compiled. That few cannot tell twenty moves apart:
#: greedy's move is credited 5 visits (``prior``), and the rollouts are wholly greedy.
TRACTOR = {**OPTIONS, "iterations": 75, "greedy": 1.0, "prior": 5, "sweep": False}
#: Cherki: the turn (call, draw or take) is searched by sweeps with greedy rollouts; the
#: discard is the efficiency heuristic's (see the module's docstring for why).
CHERKI = {**OPTIONS, "iterations": 200, "greedy": 1.0, "sweep": True, "heuristic_in": "discard",
          "margin": 0.0}


def _game(name: str):
    if name == "vandtia":
        from arena.games.vandtia import GAME
    elif name == "tractor":
        from arena.games.tractor import GAME
    else:
        from arena.games.cherki import GAME
    return GAME


def _heuristic(name: str):
    """The game's heuristic policy: ``greedy``'s in Vändtia and Tractor, in Cherki the
    efficiency heuristic of ``efficient_cherki`` (see the module's docstring)."""
    if name == "vandtia":
        from arena_bots.greedy import GreedyVandtia as Heuristic
    elif name == "tractor":
        from arena_bots.greedy_tractor import GreedyTractor as Heuristic
    else:
        from arena_bots.efficient_cherki import EfficientCherki as Heuristic
    return Heuristic()


class _Node:
    __slots__ = ("children", "visits", "available", "reward")

    def __init__(self, seats: int):
        self.children: dict = {}
        self.visits = 0
        self.available = 0
        self.reward = [0.0] * seats


class ISMCTS:
    def __init__(self):
        self.rng = random.Random(0)
        self.options = dict(OPTIONS)
        self.policy = None

    def start(self, info):
        self.rng = random.Random(info["seed"])
        defaults = {"tractor": TRACTOR, "cherki": CHERKI}.get(info["game"], OPTIONS)
        self.options = {**defaults, **info.get("options", {})}
        if not int(self.options["iterations"]):  # the game's default, else by the table
            self.options["iterations"] = defaults["iterations"] or (
                200 if info["players"] <= 2 else 800)
        self.game = _game(info["game"])
        self.seats = info["players"]
        self.policy = _heuristic(info["game"])

    def act(self, observation, legal):
        if len(legal) == 1:
            return legal[0]
        if self.options["heuristic_in"] in ("all", observation.get("phase")):
            return self.policy.act(observation, legal)
        game, rng, seats = self.game, self.rng, self.seats
        c, greedy = self.options["c"], self.options["greedy"]
        think = self.options["think_s"]
        budget = int(self.options["iterations"])
        deadline = time.perf_counter() + think if think > 0 else None
        if self._sweeps():
            return self._sweep(observation, legal, budget, deadline)
        root = _Node(seats)
        worlds = game.worlds(observation, rng)
        done = 0
        while (done < budget) if deadline is None else (time.perf_counter() < deadline):
            done += 1
            state = next(worlds)
            node, path = root, [root]
            # selection and expansion: one untried action, then out of the tree
            while not state.is_over():
                actions = state.legal_actions()
                if len(actions) == 1:
                    state.apply(actions[0])
                    continue
                mover = state.to_move
                untried = [a for a in actions if a not in node.children]
                for a in actions:
                    child = node.children.get(a)
                    if child is not None:
                        child.available += 1
                if untried:
                    action = untried[rng.randrange(len(untried))]
                    child = node.children[action] = _Node(seats)
                    child.available = 1
                    state.apply(action)
                    path.append(child)
                    break
                best, action = -1.0, None
                for a in actions:
                    ch = node.children[a]
                    score = ch.reward[mover] / ch.visits + c * math.sqrt(
                        math.log(ch.available) / ch.visits)
                    if score > best:
                        best, action = score, a
                node = node.children[action]
                state.apply(action)
                path.append(node)
            reward = self.reward(state, state.playout(rng, greedy=greedy))  # the rollout
            for n in path:
                n.visits += 1
                r = n.reward
                for i in range(seats):
                    r[i] += reward[i]
        prior = int(self.options.get("prior", 0))
        favourite = self.policy.act(observation, legal) if prior and self.policy else None
        return max(legal, key=lambda a: (root.children[a].visits if a in root.children
                                         else -1) + (prior if a == favourite else 0))

    def _sweep(self, observation, legal, budget: int, deadline) -> str:
        """Every legal action in every world, each followed by the same fully greedy
        rollout (one seed per world: the playouts differ only by what the action changed),
        ``budget`` playouts in all. With four actions or more the budget is spent by
        successive halving: in rounds, every action still in on the same worlds, the worse
        half dropped after each round (the heuristic's move is never dropped). The answer is
        the heuristic's move unless another's mean beats it, world by world, by more than
        ``margin`` standard errors of the difference."""
        game, rng, me = self.game, self.rng, observation["seat"]
        favourite = self.policy.act(observation, legal)
        margin = float(self.options.get("margin", 0.0))
        totals = dict.fromkeys(legal, 0.0)
        squares = dict.fromkeys(legal, 0.0)  # of the differences from the favourite
        seen = 0  # the worlds played: every action still in was played in each
        worlds = game.worlds(observation, rng)
        alive = [favourite] + [a for a in legal if a != favourite]
        rounds = 1 if deadline is not None or len(alive) < 4 else math.ceil(
            math.log2(len(alive)))
        done = 0
        for r in range(rounds):
            share = budget * (r + 1) // rounds  # the playouts spent by this round's end
            while (done < share) if deadline is None else (time.perf_counter() < deadline):
                world, seed = next(worlds), rng.getrandbits(64)
                base = None
                for action in alive:
                    state = world.copy()
                    state.apply(action)
                    result = state.playout(random.Random(seed), greedy=1.0)
                    value = self.reward(state, result)[me]
                    if base is None:
                        base = value
                    totals[action] += value
                    squares[action] += (value - base) ** 2
                seen += 1
                done += len(alive)
            if r < rounds - 1:
                keep = sorted(alive[1:], key=lambda a: -totals[a])[:math.ceil(len(alive) / 2) - 1]
                alive = [favourite] + keep
        best = max(alive[1:], key=lambda a: totals[a], default=favourite)
        if best == favourite:
            return favourite
        n = seen
        mean = (totals[best] - totals[favourite]) / n
        if mean <= 0:
            return favourite
        if margin > 0:
            var = max(squares[best] / n - mean * mean, 0.0)
            if mean <= margin * math.sqrt(var / max(n - 1, 1)):
                return favourite
        return best

    def values(self, observation, legal) -> list[dict]:
        """Every legal action valued from this seat's observation alone, for ``arena
        review``: ``iterations`` playouts in all, spread over worlds drawn from the
        observation (at least one world), in each world every action followed by the same
        fully greedy rollout (one seed per world: two actions are compared on the same
        cards to come). An action's ``value`` is its mean score for this seat, in the
        game's own score units (``Result.scores``: Vändtia's places beaten minus places
        beaten by, Tractor's level margin at the end of the deal, Cherki's money); ``se`` is
        the standard error of the best action's value minus this one's, world by world
        (0 for the best); ``halves``, its means over the odd and the even worlds, from which
        the review estimates a loss free of the bias of choosing the best on the same
        worlds (``arena.leagues.review.judged``). Two worlds at least."""
        game, rng, me = self.game, self.rng, observation["seat"]
        count = max(2, int(self.options["iterations"]) // len(legal))
        sums = [0.0] * len(legal)
        rows = []
        worlds = game.worlds(observation, rng)
        for _ in range(count):
            world, seed = next(worlds), rng.getrandbits(64)
            row = []
            for action in legal:
                state = world.copy()
                state.apply(action)
                row.append(state.playout(random.Random(seed), greedy=1.0).scores[me])
            rows.append(row)
            for i, v in enumerate(row):
                sums[i] += v
        best = max(range(len(legal)), key=lambda i: sums[i])
        out = []
        for i, action in enumerate(legal):
            diffs = [row[best] - row[i] for row in rows]
            mean = sum(diffs) / count
            var = sum((d - mean) ** 2 for d in diffs) / (count - 1) if count > 1 else 0.0
            halves = [sum(row[i] for row in rows[k::2]) / len(rows[k::2]) for k in (0, 1)]
            out.append({"action": action, "value": sums[i] / count,
                        "se": math.sqrt(var / count), "halves": halves})
        return out

    def _sweeps(self) -> bool:
        """Sweeps rather than a tree: ``sweep`` true, or ``auto`` at a table of more than
        two seats (see the module's docstring)."""
        sweep = self.options.get("sweep")
        if sweep == "auto":
            return self.seats > 2
        return sweep in (True, "true", "1", 1)

    def reward(self, state, result) -> list[float]:
        """Each seat's result scaled to 0-1 (relative to the best and worst at the table):
        its score; in Tractor half its rank (a deal's winners may score 0 levels) and half
        its team's share of the deal's points (a finer signal than levels won)."""
        scores = result.scores
        if self.game.name == "cherki":  # money itself: a win is worth twice a loss
            return [(s + 81) / 243 for s in scores]
        if self.game.name != "tractor":
            return [_scaled(scores, i, 1) for i in range(len(scores))]
        ranks, deal = result.ranks, state.history[-1]
        share = min(200, deal["points"]) / 200
        points = [share if p % 2 != deal["dealer"] % 2 else 1 - share for p in range(4)]
        return [0.5 * (_scaled(ranks, i, -1) + points[i]) for i in range(4)]


def _scaled(values, i, sign) -> float:
    low, high = min(values), max(values)
    return 0.5 if high == low else (sign * (values[i] - (low if sign > 0 else high))
                                    / (high - low))


@arena.hookimpl
def register_bots(register):
    register("ismcts", ISMCTS, games=["vandtia"], options=OPTIONS)
    register("ismcts", ISMCTS, games=["cherki"], options=CHERKI)
    register("ismcts", ISMCTS, games=["tractor"], options=TRACTOR)
