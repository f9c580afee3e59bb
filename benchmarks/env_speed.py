"""How fast the training environments step (``arena.envs``), against the in-process
referee's moves per CPU second on the same game: random episodes of the PettingZoo AEC
environment and of the Gymnasium one-seat environment against ``random``. The agent chooses
as the referee's in-process random policy does (``arena.bench._Random``: ``random.Random``,
uniformly among the legal actions), among its mask's actions. Run on one core:

    taskset -c 0 python benchmarks/env_speed.py --episodes 300
"""

import argparse
import random
import time

from arena.bench import referee_games
from arena.envs.aec import env
from arena.envs.single import SeatEnv
from arena.plugins import Registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="vandtia")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--episodes", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(0)

    e = env(args.game, args.variant, args.players)
    steps, start = 0, time.process_time()
    for episode in range(args.episodes):
        e.reset(seed=episode)
        for _agent in e.agent_iter():
            observation, _, termination, truncation, _ = e.last()
            if termination or truncation:
                e.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            e.step(legal[rng.randrange(len(legal))])
            steps += 1
    aec = steps / (time.process_time() - start)

    single = SeatEnv(args.game, e.variant, len(e.possible_agents), opponents=["random"])
    moves, start = 0, time.process_time()
    for episode in range(args.episodes):
        observation, _ = single.reset(seed=episode)
        done = False
        while not done:
            legal = observation["action_mask"].nonzero()[0]
            observation, _, done, _, _ = single.step(legal[rng.randrange(len(legal))])
        moves += len(single.actions)
    gym = moves / (time.process_time() - start)

    game = Registry().game(args.game)
    r = referee_games(game, e.variant, len(e.possible_agents), args.episodes)
    referee = r["games_per_s"] * r["moves_per_game"]
    print(f"{args.game} {e.variant}/{len(e.possible_agents)}: AEC {aec:,.0f} steps/s "
          f"({aec / referee:.2f} x the referee), Gymnasium against random {gym:,.0f} moves/s "
          f"({gym / referee:.2f} x), in-process referee {referee:,.0f} moves/s")


if __name__ == "__main__":
    main()
