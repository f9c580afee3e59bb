"""Bot strength over duplicate deals: win rate, mean score and an Elo difference with a 95 %
interval, for each pair of the bots named (in-process, from the reference bots' classes).

Vändtia (two seats) and Tractor (two teams, each bot in both seats of one): each deal is
played twice with the seats (the teams' cards) swapped, and the two games are a pair; the
interval comes from the variance of the pair scores (as duplicate testing does), so the
luck of the deal cancels. Cherki (three seats): each bot in turn takes one seat at a table
of ``--field`` bots, the same deals in all six seatings, and the figure is its money per
game - so two bots are compared on identical cards and opponents. Run:

    python benchmarks/strength.py --game vandtia --variant cardems --games 2000
    python benchmarks/strength.py --bots ismcts:iterations=400,greedy --games 400
    python benchmarks/strength.py --game tractor --variant deal --bots ismcts,greedy --games 100
    python benchmarks/strength.py --game cherki --variant standard --bots ismcts,greedy --games 120
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from arena.cards import keyed_seed
from arena.plugins import parse_entrant
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy import GreedyVandtia
from arena_bots.greedy_cherki import GreedyCherki
from arena_bots.greedy_tractor import GreedyTractor
from arena_bots.ismcts import ISMCTS
from arena_bots.randombot import RandomBot

CLASSES = {("vandtia", "greedy"): GreedyVandtia, ("tractor", "greedy"): GreedyTractor,
           ("cherki", "greedy"): GreedyCherki}


class Timed(PythonBot):
    """A bot whose decisions are timed (CPU time per act)."""

    def __init__(self, obj, name, options):
        super().__init__(obj, name)
        self.options, self.spent, self.decisions = options, 0.0, 0
        self._act = obj.act
        self.act = self._timed

    def start(self, info):
        super().start({**info, "options": self.options})

    def _timed(self, observation, legal):
        start = time.process_time()
        try:
            return self._act(observation, legal)
        finally:
            self.spent += time.process_time() - start
            self.decisions += 1


def make(game: str, entrant: str) -> Timed:
    """The entrant in-process, its options typed over the game's defaults by the registry
    (as ``season run`` has them)."""
    from arena.plugins import Registry

    name, _ = parse_entrant(entrant)
    options = Registry().bot(entrant, game).spec.get("options", {})
    if name == "ismcts":
        return Timed(ISMCTS(), entrant, options)
    return Timed(RandomBot() if name == "random" else CLASSES[game, name](), entrant, options)


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def duel(game_name: str, variant: str, a: str, b: str, pairs: int, seed: int) -> dict:
    from arena.plugins import Registry

    game = Registry().game(game_name)
    bots = {a: make(game_name, a), b: make(game_name, b)}
    pair_scores, wins, decided, games = [], 0, 0, 0
    teams = game_name == "tractor"
    for deal in range(pairs):
        deal_seed = keyed_seed("strength", seed, deal)
        total = 0.0
        for seats in ((a, b), (b, a)):
            if teams:  # the same bot object in both seats of its team (in-process)
                seats = seats * 2
            match, _ = play_match(game, variant, [bots[s] for s in seats], deal_seed,
                                  list(seats))
            mine = match.result.ranks[seats.index(a)]
            other = match.result.ranks[seats.index(b)]
            point = 1.0 if mine < other else 0.0 if mine > other else 0.5
            total += point
            games += 1
            decided += point != 0.5
            wins += point == 1.0
        pair_scores.append(total / 2)
    mean = statistics.fmean(pair_scores)
    sd = statistics.stdev(pair_scores) if len(pair_scores) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(pair_scores))
    return {"a": a, "b": b, "games": games, "decided": decided, "wins": wins,
            "score": mean, "elo": elo(mean), "elo_low": elo(mean - half),
            "elo_high": elo(mean + half),
            "ms": {name: 1000 * bot.spent / max(1, bot.decisions) for name, bot in bots.items()}}


def table(game_name: str, variant: str, candidates: list[str], field: list[str],
          deals: int, seed: int) -> dict:
    """Money per game of each candidate in one seat of ``field`` bots, the same deals in
    every seating (Cherki)."""
    from itertools import permutations

    from arena.plugins import Registry

    game = Registry().game(game_name)
    out = {}
    for cand in candidates:
        money, games, wins, per_game = 0.0, 0, 0, []
        bot = make(game_name, cand)
        others = [make(game_name, f) for f in field]
        for deal in range(deals):
            deal_seed = keyed_seed("strength", seed, deal)
            for order in permutations(range(len(field) + 1)):
                seats = [([bot] + others)[i] for i in order]
                match, _ = play_match(game, variant, seats, deal_seed)
                me = order.index(0)
                money += match.result.scores[me]
                per_game.append(match.result.scores[me])
                wins += match.result.reason == "win" and match.result.ranks[me] == 1
                games += 1
        out[cand] = {"money": money / games, "games": games, "wins": wins, "per_game": per_game,
                     "ms": 1000 * bot.spent / max(1, bot.decisions)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="vandtia")
    parser.add_argument("--variant", default="cardems")
    parser.add_argument("--bots", default="ismcts,greedy,random",
                        help="comma-separated; each pair of them plays")
    parser.add_argument("--games", type=int, default=2000, help="games per pair (even)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--field", default="greedy,random",
                        help="Cherki: the two bots at the table beside the one measured")
    args = parser.parse_args()
    from arena.plugins import split_entrants

    names = split_entrants(args.bots)
    if args.game == "cherki":
        field = split_entrants(args.field)
        deals = max(1, args.games // 6)
        print(f"cherki: each bot at a table with {', '.join(field)}, {deals} deals in all six "
              "seatings")
        results = table("cherki", args.variant, names, field, deals, args.seed)
        for name, r in results.items():
            print(f"{name}: {r['money']:+.1f} money per game, won {r['wins']} of "
                  f"{r['games']} games, {r['ms']:.1f} ms per decision")
        first = names[0]
        for other in names[1:]:  # the same deals and seatings: paired game by game
            diffs = [x - y for x, y in zip(results[first]["per_game"],
                                           results[other]["per_game"], strict=True)]
            half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
            mean = statistics.fmean(diffs)
            print(f"{first} - {other}: {mean:+.1f} [{mean - half:+.1f}, {mean + half:+.1f}] "
                  "money per game (95 %, paired by deal and seating)")
        return
    print(f"{args.game} {args.variant}, {args.games} games per pair on duplicate deals")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            start = time.perf_counter()
            r = duel(args.game, args.variant, a, b, max(1, args.games // 2), args.seed)
            ms = ", ".join(f"{k} {v:.1f} ms" for k, v in r["ms"].items())
            print(f"{a} vs {b}: won {r['wins']} of {r['decided']} decided games "
                  f"({100 * r['wins'] / max(1, r['decided']):.1f} %), score "
                  f"{100 * r['score']:.1f} %, Elo {r['elo']:+.0f} "
                  f"[{r['elo_low']:+.0f}, {r['elo_high']:+.0f}] (95 %); per decision: {ms}; "
                  f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
