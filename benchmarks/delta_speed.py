"""How long the observation deltas take (``arena.sandbox.deltas``), in µs per asked move:
the runner's ``diff`` of a seat's last observation and its new one, and the worker's
``rebuild`` from the delta (``patch``, then ``fresh``), over one random match of each game
that gets deltas (the best of five passes). Run on one core, compiled and plain:

    taskset -c 0 python benchmarks/delta_speed.py
    ARENA_PURE=1 taskset -c 0 python benchmarks/delta_speed.py
"""

import argparse
import random
import time

from arena.plugins import Registry
from arena.sandbox import deltas


def pairs(game, seed: int) -> list[tuple[dict, dict]]:
    """(a seat's last observation, its next one) at every asked move of a random match."""
    variant = game.default_variant
    state = game.new_state(variant, game.variants[variant][0], seed)
    rng, last, out = random.Random(seed), {}, []
    while not state.is_over():
        legal = state.legal_actions()
        if len(legal) > 1:
            seat = state.to_move
            observation = state.observation(seat)
            if seat in last:
                out.append((last[seat], observation))
            last[seat] = observation
        state.apply(legal[rng.randrange(len(legal))])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    registry = Registry()
    for name in sorted(registry.games()):
        if name in deltas.WHOLE:
            continue
        moves = pairs(registry.game(name), args.seed)
        sent = [deltas.diff(old, new) for old, new in moves]
        diff = patch = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for old, new in moves:
                deltas.diff(old, new)
            middle = time.perf_counter()
            kept = [{0: deltas.fresh(old)} for old, _ in moves]  # the worker's own, changed
            rebuilding = time.perf_counter()
            for last, delta in zip(kept, sent, strict=True):
                deltas.rebuild(last, 0, {"delta": delta})
            end = time.perf_counter()
            diff = min(diff, (middle - start) / len(moves) * 1e6)
            patch = min(patch, (end - rebuilding) / len(moves) * 1e6)
        print(f"{name} ({deltas.BUILD}, {len(moves)} moves): diff {diff:.2f} us, "
              f"rebuild {patch:.2f} us")


if __name__ == "__main__":
    main()
