"""What a season costs beside what its matches cost: ``arena season run`` against the
in-process referee playing the same matches, at several season sizes.

    python benchmarks/season_cost.py                      # 6, 180 and 1800 matches
    python benchmarks/season_cost.py --matches 180 --workers 1 --repeat 3

For each size, Vändtia ``cardems`` with ``random,greedy,first`` (6 matches a round):

* **season**: the CPU of ``arena season run ... --rounds R`` in a fresh SQLite database - the
  command and every process it started (its workers, their template process and every bot
  process: ``RUSAGE_CHILDREN`` once it has ended) - less the command's own start, measured
  as ``arena season list`` on the same database (importing arena, opening the database);
* **in-process**: the same fixtures (the stored season's seeds, secret and seats) played
  through ``arena.referee.play_match`` with the same three bots as objects in this
  process (``arena.sandbox.bot.local_bot``): the cost of the matches themselves;
* the ratio of the two.

Then ``arena play vandtia greedy random`` (one quick match, stored nowhere): its wall and
CPU, the median of five; and the CPU a sandboxed bot process costs to start, answer its
first ``start`` and stop (``arena.bench.start_up``), with and without the template process
(``ARENA_ZYGOTE=0``). Every figure is one run's on this machine: compare them side by side,
not with another day's.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

BOTS = ("random", "greedy", "first")


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def arena(*args, env=None) -> tuple[float, float]:
    """Run ``arena ARGS``; its CPU (with everything it started) and wall seconds."""
    before, start = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})
    return children_cpu() - before, time.perf_counter() - start


def in_process(url: str, name: str) -> float:
    """The CPU of the stored season's fixtures played again in this process."""
    from arena import db
    from arena.leagues import league
    from arena.leagues.scheduler import fixtures
    from arena.plugins import Registry
    from arena.referee import play_match
    from arena.sandbox.bot import local_bot

    engine = db.connect(url)
    row = db.get_season(engine, name)
    defn = league.definition(row)
    registry = Registry()
    game = registry.game(row.game)
    every = list(fixtures(defn))
    bots = {b: local_bot(registry.bot(b, game.name)) for b in BOTS}
    start = time.process_time()
    for fx in every:
        play_match(game, row.variant, [bots[b] for b in fx.seats], fx.seed,
                   list(fx.seats), secret=defn.secret)
    cpu = time.process_time() - start
    engine.dispose()
    return cpu


def season_row(matches: int, workers: int, seed: int) -> dict:
    rounds = max(1, matches // 6)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/cost.db"
        cpu, wall = arena("--db", url, "season", "run", "vandtia", "--variant", "cardems",
                          "--bots", ",".join(BOTS), "--rounds", str(rounds), "--seed",
                          str(seed), "--name", "cost", "--workers", str(workers))
        own, _ = arena("--db", url, "season", "list")
        referee = in_process(url, "cost")
    season = cpu - own
    return {"matches": rounds * 6, "season_cpu_s": season, "command_cpu_s": own,
            "wall_s": wall, "inprocess_cpu_s": referee, "ratio": season / referee}


def play_row(times: int = 5) -> dict:
    runs = [arena("play", "vandtia", "greedy", "random") for _ in range(times)]
    return {"cpu_s": statistics.median(c for c, _ in runs),
            "wall_s": statistics.median(w for _, w in runs)}


def start_row(zygote: bool) -> float:
    code = ("from arena import bench; from arena.plugins import Registry; r = Registry(); "
            "g = r.game('vandtia'); print(bench.start_up(r.bot('greedy', 'vandtia'), g, "
            "'cardems', 2, times=20))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={**os.environ, "ARENA_ZYGOTE": "1" if zygote else "0"})
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", default="6,180,1800",
                        help="season sizes, comma-separated (rounded down to 6 a round)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"{'matches':>8} {'season CPU s':>13} {'in-process s':>13} {'ratio':>7} "
          f"{'wall s':>7} {'command s':>10}")
    for size in (int(m) for m in args.matches.split(",")):
        for _ in range(args.repeat):
            r = season_row(size, args.workers, args.seed)
            print(f"{r['matches']:>8} {r['season_cpu_s']:>13.2f} {r['inprocess_cpu_s']:>13.3f} "
                  f"{r['ratio']:>7.1f} {r['wall_s']:>7.1f} {r['command_cpu_s']:>10.2f}",
                  flush=True)
    p = play_row()
    print(f"arena play vandtia greedy random: {1000 * p['wall_s']:.0f} ms wall, "
          f"{1000 * p['cpu_s']:.0f} ms CPU (medians of 5)")
    print(f"a sandboxed bot's start to ready and stop: {1000 * start_row(True):.1f} ms CPU "
          f"forked from the template, {1000 * start_row(False):.1f} ms with ARENA_ZYGOTE=0")


if __name__ == "__main__":
    main()
