"""What the channels no layer closes carry between two jails: Tractor partners in the sandbox,
one beating a known bit a slot on the machine's cores (``kind=cpu``) or memory bus
(``kind=memory``), the other timing its own work at every move (``tests/hostile/timing.py``).
A row ``none`` is the control: the sender beats nothing, so any "bits" there are noise.

For each kind: slots read a match, the error rate over them, and an upper bound of the
channel in bits a match (``slots × (1 − H(p))``: the listener knows the schedule and the
slots' boundaries exactly, which a real pair would have to find). Run:

    python benchmarks/covert.py --matches 3
    python benchmarks/covert.py --matches 3 --slot-ms 5 --listen-s 0.5
"""

from __future__ import annotations

import argparse
import math
import re
import time
from pathlib import Path

from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox import Limits
from arena.sandbox.bot import make_bot

HOSTILE = Path(__file__).resolve().parent.parent / "tests" / "hostile"


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def measure(kind: str, matches: int, slot_ms: float, listen_s: float) -> dict:
    registry = Registry(bots_dirs=[HOSTILE])
    game = registry.game("tractor")
    threads = 0 if kind == "none" else 4
    sender = f"drummer:kind={kind if kind != 'none' else 'cpu'},threads={threads},slot_ms={slot_ms}"
    receiver = f"listener:slot_ms={slot_ms},listen_s={listen_s}"
    limits = Limits(move_s=max(1.0, 2 * listen_s), memory_mb=1024)
    slots = errors = 0
    took = 0.0
    for match in range(matches):
        bots = [make_bot(registry.bot(name, "tractor"), limits)
                for name in (sender, "random", receiver, "random")]
        try:
            begin = time.monotonic()
            played, _ = play_match(game, "deal", bots, 1000 + match)
            took += time.monotonic() - begin
            log = bots[2].log_tail()
        finally:
            for b in bots:
                b.close()
        assert played.result.faults == [None] * 4, played.result.faults
        last = re.findall(r"TIMING slots=(\d+) errors=(\d+)", log)[-1]
        slots += int(last[0])
        errors += int(last[1])
    p = errors / slots
    per_match = slots / matches * max(0.0, 1 - entropy(p))
    return {"kind": kind, "slots": slots / matches, "p": p, "bits": per_match,
            "seconds": took / matches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--slot-ms", type=float, default=20.0)
    parser.add_argument("--listen-s", type=float, default=0.3)
    parser.add_argument("--kinds", default="none,cpu,memory")
    args = parser.parse_args()
    print(f"{'kind':8} {'slots/match':>12} {'error rate':>11} {'bits/match ≤':>13} {'s/match':>8}")
    for kind in args.kinds.split(","):
        row = measure(kind, args.matches, args.slot_ms, args.listen_s)
        print(f"{row['kind']:8} {row['slots']:12.0f} {row['p']:11.3f} {row['bits']:13.1f} "
              f"{row['seconds']:8.1f}")


if __name__ == "__main__":
    main()
