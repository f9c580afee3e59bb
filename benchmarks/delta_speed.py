"""How long the observation deltas take (``arena.sandbox.deltas``), in µs per asked move:
the runner's ``diff`` of a seat's last observation and its new one, and the worker's
``rebuild`` from the delta (``patch``, then ``fresh``), over one random match of each game
that gets deltas (the best of five passes); and, where the game's states make the delta
themselves (``observation_delta``, ``arena.games.marks``), what that costs at each asked
move of the same match against building the whole observation (``observation``), the
state as the move left it (the best of five matches). Run on one core, compiled and plain:

    taskset -c 0 python benchmarks/delta_speed.py
    ARENA_PURE=1 taskset -c 0 python benchmarks/delta_speed.py
"""

import argparse
import random
import time

from arena.games import marks
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
        game = registry.game(name)
        if hasattr(game.new_state(game.default_variant, game.variants[game.default_variant][0],
                                  args.seed), "observation_delta"):
            whole, made = min(state_costs(game, args.seed) for _ in range(5))
            print(f"{name} (its states' deltas {marks.BUILD}): observation {whole:.2f} us, "
                  f"observation_delta {made:.2f} us")


def state_costs(game, seed: int) -> tuple[float, float]:
    """µs per asked move of ``observation(seat)`` and of ``observation_delta(seat, mark)``
    from the seat's last mark, along one random match."""
    variant = game.default_variant
    state = game.new_state(variant, game.variants[variant][0], seed)
    rng, marks_of, whole, made, asked = random.Random(seed), {}, 0.0, 0.0, 0
    clock = time.perf_counter
    while not state.is_over():
        legal = state.legal_actions()
        if len(legal) > 1:
            seat = state.to_move
            if seat in marks_of:
                start = clock()
                state.observation(seat)
                middle = clock()
                _, marks_of[seat] = state.observation_delta(seat, marks_of[seat])
                whole, made, asked = whole + middle - start, made + clock() - middle, asked + 1
            else:
                marks_of[seat] = state.observation_mark(seat)
        state.apply(legal[rng.randrange(len(legal))])
    return whole / asked * 1e6, made / asked * 1e6


if __name__ == "__main__":
    main()
