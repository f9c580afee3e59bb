"""How fast the training environments step (``arena.envs``), against the in-process
referee's moves per CPU second on the same game: random episodes of the PettingZoo AEC
environment and of the Gymnasium one-seat environment against ``random``. The agent chooses
as the referee's in-process random policy does (``arena.bench._Random``: ``random.Random``,
uniformly among the legal actions), among its mask's actions. Run on one core:

    taskset -c 0 python benchmarks/env_speed.py --episodes 300

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


def aec_steps(e, episodes: int, indices: bool = True) -> float:
    """Steps per CPU second of random episodes of AEC environment ``e``."""
    rng = random.Random(0)
    steps, start = 0, time.process_time()
    for episode in range(episodes):
        e.reset(seed=episode)
        for _agent in e.agent_iter():
            observation, _, termination, truncation, info = e.last()
            if termination or truncation:
                e.step(None)
                continue
            legal = info["legal_indices"] if indices else observation["action_mask"].nonzero()[0]
            e.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="vandtia")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--floor", action="store_true",
                        help="also step the AEC environment with its encoding made free")
    args = parser.parse_args()

    e = env(args.game, args.variant, args.players)
    aec = aec_steps(e, args.episodes)
    if args.floor:
        vector, actions = np.zeros(e.encoding.size, np.float32), e.encoding.actions

        def free(state, seat):
            mask = np.zeros(actions, np.int8)
            if state.is_over() or seat != state.to_move:
                return vector, mask, None
            n = len(state.legal_actions())
            mask[:n] = 1
            return vector, mask, list(range(n))

        e._read = free
        floor = aec_steps(e, args.episodes)
    rng = random.Random(0)

    single = SeatEnv(args.game, e.variant, len(e.possible_agents), opponents=["random"])
    moves, start = 0, time.process_time()
    for episode in range(args.episodes):
        observation, info = single.reset(seed=episode)
        done = False
        while not done:
            legal = info["legal_indices"]
            observation, _, done, _, info = single.step(legal[rng.randrange(len(legal))])
        moves += len(single.actions)
    gym = moves / (time.process_time() - start)

    game = Registry().game(args.game)
    r = referee_games(game, e.variant, len(e.possible_agents), args.episodes)
    referee = r["games_per_s"] * r["moves_per_game"]
    print(f"{args.game} {e.variant}/{len(e.possible_agents)}: AEC {aec:,.0f} steps/s "
          f"({aec / referee:.2f} x the referee), Gymnasium against random {gym:,.0f} moves/s "
          f"({gym / referee:.2f} x), in-process referee {referee:,.0f} moves/s")
    if args.floor:
        print(f"AEC with the encoding made free: {floor:,.0f} steps/s "
              f"({floor / referee:.2f} x the referee)")


if __name__ == "__main__":
    main()
