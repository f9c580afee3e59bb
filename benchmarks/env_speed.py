"""How fast the training environments play (``arena.envs``), against the in-process
referee on the same game: random episodes of the PettingZoo AEC environment and of the
Gymnasium one-seat environment against ``random``, as deals per CPU second over the
referee's deals per CPU second - like with like: an environment's step is not a referee's
move in Tractor, where a follow of several cards is chosen a card a step and the referee
plays it as one move (steps per second are printed beside, for what they say). The agent chooses
as the referee's in-process random policy does (``arena.bench._Random``: ``random.Random``,
uniformly among the legal actions), among the legal actions' indices its ``info`` gives
(``legal_indices``); with ``--mask``, among its mask's ones (``mask.nonzero()``, which
costs about a microsecond more a step). Run on one core:

    taskset -c 0 python benchmarks/env_speed.py --episodes 300

Each environment is measured ``--repeat`` times, each time right after the referee, and
the median of the ratios is shown with their range: on a shared machine one measurement
may run beside a burst of other work.

``--floor`` also runs the AEC environment with its encoding made free (a fixed vector,
the mask's first ones set, one per legal action): what the rest of a step costs.
"""

import argparse
import random
import time

import numpy as np

from arena.bench import referee_games
from arena.envs.aec import env
from arena.envs.single import SeatEnv
from arena.plugins import Registry


def aec_steps(e, episodes: int, mask: bool = False) -> tuple[float, float]:
    """Steps and episodes (deals) per CPU second of random episodes of AEC environment
    ``e``."""
    rng = random.Random(0)
    steps, start = 0, time.process_time()
    for episode in range(episodes):
        e.reset(seed=episode)
        for _agent in e.agent_iter():
            observation, _, termination, truncation, info = e.last()
            if termination or truncation:
                e.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0] if mask else info["legal_indices"]
            e.step(legal[rng.randrange(len(legal))])
            steps += 1
    cpu = time.process_time() - start
    return steps / cpu, episodes / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="vandtia")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--mask", action="store_true",
                        help="the agent chooses among its mask's ones, not its info's indices")
    parser.add_argument("--repeat", type=int, default=5,
                        help="measurements of each, every one beside one of the referee's; "
                             "the median ratio is shown, with the range")
    parser.add_argument("--floor", action="store_true",
                        help="also step the AEC environment with its encoding made free")
    args = parser.parse_args()

    e = env(args.game, args.variant, args.players)
    players = len(e.possible_agents)
    single = SeatEnv(args.game, e.variant, players, opponents=["random"])
    game = Registry().game(args.game)
    free = None
    if args.floor:
        vector, actions = np.zeros(e.encoding.size, np.float32), e.encoding.actions

        def free(state, seat):
            mask = np.zeros(actions, np.int8)
            if state.is_over() or seat != state.to_move:
                return vector, mask, None
            n = len(state.legal_actions())
            mask[:n] = 1
            return vector, mask, list(range(n))

    rows = []  # one per repeat: the referee's deals/s and moves/s, then each environment's
    for _ in range(args.repeat):  # each measured right beside the referee, on a noisy machine
        r = referee_games(game, e.variant, players, args.episodes)
        deals = r["games_per_s"]
        e._read = e.encoding.state_observation
        aec, seat = aec_steps(e, args.episodes, args.mask), seat_moves(single, args.episodes,
                                                                       args.mask)
        row = [deals, r["games_per_s"] * r["moves_per_game"], aec[1] / deals, seat[1] / deals,
               aec[0], seat[0]]
        if free is not None:
            e._read = free
            row.append(aec_steps(e, args.episodes, args.mask)[1] / deals)
        rows.append(row)

    def middle(i: int) -> float:
        return sorted(row[i] for row in rows)[len(rows) // 2]

    def median(i: int) -> str:
        values = sorted(row[i] for row in rows)
        return (f"{values[len(values) // 2]:.2f} x the referee's deals/s "
                f"({values[0]:.2f}-{values[-1]:.2f} over {len(values)})")

    print(f"{args.game} {e.variant}/{players}: in-process referee {middle(0):,.1f} deals/s "
          f"({middle(1):,.0f} moves/s); AEC {median(2)}, {middle(4):,.0f} steps/s; "
          f"Gymnasium against random {median(3)}, {middle(5):,.0f} moves/s")
    if free is not None:
        print(f"AEC with the encoding made free: {median(6)}")


def seat_moves(single, episodes: int, mask: bool = False) -> tuple[float, float]:
    """Moves (every seat's) and episodes (deals) per CPU second of random episodes of the
    Gymnasium one-seat environment ``single``."""
    rng = random.Random(0)
    moves, start = 0, time.process_time()
    for episode in range(episodes):
        observation, info = single.reset(seed=episode)
        done = False
        while not done:
            legal = observation["action_mask"].nonzero()[0] if mask else info["legal_indices"]
            observation, _, done, _, info = single.step(legal[rng.randrange(len(legal))])
        moves += len(single.actions)
    cpu = time.process_time() - start
    return moves / cpu, episodes / cpu

if __name__ == "__main__":
    main()
