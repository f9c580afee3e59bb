"""Does a sandboxed move cost more late in a Tractor match? Whole matches of sandboxed
``random`` bots, one at a time (K = 1), each asked move's round trip timed by the runner
(``SandboxBot.move_times``: the observation's delta made and sent, the bot's decoding,
patching and answer, the answer read) and filed under its deal. On one core the round trip's
wall time is the CPU the runner and the bot spend on it. Run:

    taskset -c 0 python benchmarks/move_cost_by_deal.py --matches 8

It prints the mean round trip of the moves of each match's first deal and of its last, and
by deal number (deals 1-5, 6-10, ...).
"""

import argparse
import statistics

from arena.games.tractor import GAME
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox.bot import make_bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    entry = Registry().bot("random", "tractor")
    bots = [make_bot(entry) for _ in range(4)]
    deals_of: list[list[int]] = [[] for _ in bots]  # the deal of each timed move, by seat
    for seat, bot in enumerate(bots):
        bot.move_times = []
        act = bot.act

        def timed(observation, legal, act=act, seat=seat):
            deals_of[seat].append(observation["deal"])
            return act(observation, legal)
        bot.act = timed
    first, last, by_bucket = [], [], {}
    try:
        for m in range(args.matches):
            marks = [len(b.move_times) for b in bots]
            play_match(GAME, "match", bots, args.seed + m)
            moves = [(d, t) for seat, b in enumerate(bots)
                     for d, t in zip(deals_of[seat][marks[seat]:], b.move_times[marks[seat]:],
                                     strict=True)]
            final = max(d for d, _ in moves)
            first += [t for d, t in moves if d == 1]
            last += [t for d, t in moves if d == final]
            for d, t in moves:
                by_bucket.setdefault((d - 1) // 5, []).append(t)
    finally:
        for bot in bots:
            bot.close()
    us = 1e6
    print(f"{args.matches} matches: a move's round trip {statistics.mean(first) * us:.1f} us in "
          f"the first deal ({len(first)} moves), {statistics.mean(last) * us:.1f} us in the last "
          f"({len(last)} moves): last / first {statistics.mean(last) / statistics.mean(first):.3f}")
    for bucket in sorted(by_bucket):
        times = by_bucket[bucket]
        print(f"  deals {5 * bucket + 1}-{5 * bucket + 5}: {statistics.mean(times) * us:.1f} us "
              f"({len(times)} moves)")


if __name__ == "__main__":
    main()
