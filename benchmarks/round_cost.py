"""What one round trip costs in CPU, the runner's and the bot's together, when nothing is
asked: an ``act`` of no requests to a sandboxed worker of ``random`` (``Worker.ask``, as
the runner of matches side by side sends one), against the same line echoed by a bare
Python process (no jail, no worker, no plugin). In a season a round's cost is this plus
what the caches lost while the other processes ran. Run on one core, as ``arena bench`` is:

    taskset -c 0 python benchmarks/round_cost.py --rounds 20000
"""

import argparse
import os
import subprocess
import sys
import time

import orjson

from arena.bench import children_cpu
from arena.plugins import Registry
from arena.sandbox.process import Limits, Worker

ECHO = """import os, sys
out = os.fdopen(os.dup(1), "wb", buffering=0)
for line in sys.stdin.buffer:
    out.write(b'{"type":"actions","actions":[]}\\n')
"""
EMPTY = {"type": "act", "requests": []}


def sandboxed(rounds: int) -> tuple[float, float]:
    """µs of CPU per empty round trip to a sandboxed ``random``: the runner's, the bot's."""
    worker = Worker(Registry().bot("random", "tractor").spec, Limits())
    try:
        worker.ask({"type": "start", "protocol": 2, "match": 0, "game": "tractor",
                    "variant": "match", "seat": 0, "players": 4, "seed": 1,
                    "limits": {"move_s": 1.0, "bank_s": 10.0}, "options": {}}, "ready", 10)
        return _timed(rounds, lambda: worker.ask(EMPTY, "actions", 10))
    finally:
        worker.close()


def bare(rounds: int) -> tuple[float, float]:
    """The same for a bare process that echoes the answer."""
    proc = subprocess.Popen([sys.executable, "-I", "-c", ECHO], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, bufsize=0)
    line, write, read = orjson.dumps(EMPTY) + b"\n", proc.stdin.fileno(), proc.stdout.fileno()
    try:
        return _timed(rounds, lambda: (os.write(write, line), orjson.loads(os.read(read, 65536))))
    finally:
        proc.stdin.close()
        proc.wait()


def _timed(rounds: int, round_trip) -> tuple[float, float]:
    round_trip()
    before, start = children_cpu(), time.process_time()
    for _ in range(rounds):
        round_trip()
    runner, bot = time.process_time() - start, children_cpu() - before
    return runner / rounds * 1e6, bot / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    for name, measure in (("sandboxed worker", sandboxed), ("bare process", bare)):
        runner, bot = measure(args.rounds)
        print(f"{name}: runner {runner:.1f} us, bot {bot:.1f} us, together {runner + bot:.1f} "
              f"us a round trip")


if __name__ == "__main__":
    main()
