"""Bot strength: ``greedy`` against two ``random`` bots over duplicate Cherki deals.

Each deal is played in all six seatings of the three bots; the figures are greedy's share of
the decided deals (those somebody won) and its mean settlement per game. Run:

    python benchmarks/cherki_strength.py --deals 3000
"""

import argparse
import time
from itertools import permutations

from arena.games.cherki import GAME
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy_cherki import GreedyCherki
from arena_bots.randombot import RandomBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    wins = decided = games = money = 0
    start = time.perf_counter()
    for deal in range(args.seed, args.seed + args.deals):
        for order in permutations(range(3)):
            bots = [(GreedyCherki, RandomBot, RandomBot)[i]() for i in order]
            match, _ = play_match(GAME, "standard", [PythonBot(b) for b in bots], deal)
            me = order.index(0)
            games += 1
            decided += match.result.reason == "win"
            wins += match.result.reason == "win" and match.result.ranks[me] == 1
            money += match.result.scores[me]
    print(f"greedy won {wins} of {decided} decided deals ({100 * wins / max(decided, 1):.1f} %)"
          f" of {games} games against two random bots over {args.deals} duplicate deals; "
          f"mean settlement {money / games:+.1f} per game; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
