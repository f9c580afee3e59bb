"""Where the CPU of a sandboxed move goes, at 16 matches side by side: the same matches of
``random`` bots played four ways, each adding one part of what a season's runner does.

1. **in-process**: the referee and the bots in one process, one match at a time
   (``arena bench``'s base row);
2. **side by side, one process**: the runner of matches side by side
   (``arena.sandbox.inflight``), its batches answered in this process by the worker's own
   code (``arena.sandbox.worker._acts``) with whole observations, no JSON - what the loop
   itself costs;
3. **through JSON, one process**: the same, with every message through JSON both ways and
   observation deltas, rebuilt by the worker's code - what the messages cost;
4. **sandboxed**: the real bot processes, as ``arena bench``'s side-by-side row plays them -
   what the process boundary costs: switches between processes and the caches each finds
   cold. As there, the processes start in a match that is not counted; what their start-up
   would add spread over these matches (one process per seat, ``arena.bench.start_up``) is
   printed apart.

Each way runs ``--reps`` times, in turn, and the medians are printed (µs of CPU per asked
move, runner and bots together). Run on one core, as ``arena bench`` is:

    taskset -c 0 python benchmarks/move_cost.py --game tractor --games 60 --reps 5
"""

import argparse
import statistics

import orjson

from arena import bench
from arena.plugins import Registry
from arena.sandbox import inflight, worker


class InProcess:
    """A bot process's stand-in for ``inflight.Shared``: the worker's own handling of
    ``start`` and batched ``act`` messages, in this process; ``json``: each message and its
    answer go through JSON, and the bot takes deltas, as a real worker does."""

    json = False

    def __init__(self, spec, limits):
        plugin = worker.load_source(spec["kind"], spec["target"], spec.get("path"))
        self.factory = next(f for name, _, f, _ in worker.registrations(plugin)
                            if name == spec["name"])
        self.players: dict = {}
        self.seen: dict = {}

    def ask(self, message, expect, timeout, since=None):
        if self.json:
            message = orjson.loads(orjson.dumps(message))
        if message["type"] == "start":
            key = message["match"]
            player = self.players[key] = self.factory()
            player.start({k: message[k] for k in ("game", "variant", "seat", "players",
                                                  "seed", "limits")} | {"options": {}})
            if self.json:
                self.seen[key] = None
            answer = {"type": "ready", "protocol": 2, "match": key, "deltas": self.json}
        else:
            answer = {"type": "actions", "actions": worker._acts(
                self.players, None, message["requests"], self.seen)}
        return orjson.loads(orjson.dumps(answer)) if self.json else answer

    def hold(self, message):
        if message["type"] == "end":
            self.players.pop(message["match"], None)
            self.seen.pop(message["match"], None)

    def close(self):
        pass

    def log_tail(self):
        return ""


class ThroughJson(InProcess):
    json = True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tractor")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    registry = Registry()
    game = registry.game(args.game)
    variant = game.default_variant
    players = game.variants[variant][0]
    entry = registry.bot("random", args.game)
    real = inflight.Worker

    def in_process():
        return bench.referee_games(game, variant, players, args.games)

    def side_by_side(stand_in):
        def run():
            inflight.Worker = stand_in or real
            try:
                return bench.inflight_games(game, variant, players, args.games, 0, entry, 16)
            finally:
                inflight.Worker = real
        return run

    ways = [("in-process, one match at a time", in_process),
            ("side by side, one process", side_by_side(InProcess)),
            ("through JSON, one process", side_by_side(ThroughJson)),
            ("sandboxed", side_by_side(None))]
    times: dict = {name: [] for name, _ in ways}
    asked = 0.0
    for _ in range(args.reps):
        for name, run in ways:
            row = run()
            times[name].append(bench.cpu_us_per_asked(row))
            asked = row["asked_per_game"] * row["games"]
    start_up = bench.start_up(entry, game, variant, players) * players / asked * 1e6
    print(f"{args.game} {variant}/{players}, {args.games} matches, median of {args.reps}: "
          "us of CPU per asked move")
    before = None
    for name, _ in ways:
        median = statistics.median(times[name])
        step = "" if before is None else f"  (+{median - before:.1f})"
        print(f"  {name:34} {median:6.1f}{step}")
        before = median
    print(f"  (left out: the {players} processes' start-up, spread over these matches, "
          f"{start_up:.1f})")


if __name__ == "__main__":
    main()
