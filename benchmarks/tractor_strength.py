"""Bot strength: ``greedy`` against ``random`` over duplicate Tractor deals (``deal`` variant).

Each deal is played twice with the teams' cards swapped, greedy holding seats 0+2 and then
1+3; the figure is the share of games greedy's team wins. Run:

    python benchmarks/tractor_strength.py --deals 1000
"""

import argparse
import time

from arena.games.tractor import GAME
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy_tractor import GreedyTractor
from arena_bots.randombot import RandomBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    wins = games = 0
    start = time.perf_counter()
    for deal in range(args.seed, args.seed + args.deals):
        for swap in (0, 1):
            seats = [GreedyTractor(), RandomBot()] * 2
            seats = seats[swap:] + seats[:swap]
            match, _ = play_match(GAME, "deal", [PythonBot(b) for b in seats], deal)
            wins += match.result.ranks[swap] == 1
            games += 1
    print(f"greedy won {wins} of {games} deal games against random "
          f"({100 * wins / games:.1f} %) over {args.deals} duplicate deals, "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
