"""What a move costs when each seat is a Python process: the same random ``cardems`` games,
played through the referee against bare random processes (``arena bench``'s floor: the bot
protocol and codec, no sandbox), with the observation each move carries made three ways:

* ``full``: the real observation, built for each move (what every bot gets);
* ``prebuilt``: one real observation built once and sent every move - the cost of sending
  and decoding it, without building it;
* ``empty``: ``{}`` - the pipe, the protocol and the engine alone.

Figures are games per CPU second of the runner and its bot processes together. Run on one
core, as ``arena bench`` is:

    taskset -c 0 python benchmarks/observation_cost.py --games 600
"""

import argparse

from arena.bench import referee_games
from arena.games.vandtia import GAME


class Observing:
    """Vändtia whose states hand out another observation."""

    name, check = GAME.name, GAME.check

    def __init__(self, observation):
        self.observation = observation

    def new_state(self, variant, players, seed, record=False):
        state = GAME.new_state(variant, players, seed, record)
        return state if self.observation is None else _Fixed(state, self.observation)


class _Fixed:
    """A state whose every observation is the one given (the compiled engine's states take
    no new attributes, so this wraps one)."""

    def __init__(self, state, observation):
        self._state, self._observation = state, observation

    def observation(self, seat):
        return self._observation

    def __getattr__(self, name):
        return getattr(self._state, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sample = GAME.new_state("cardems", 2, 5)
    while sample.moves < 60:
        sample.apply(sample.legal_actions()[0])
    kinds = {"full": None, "prebuilt": sample.observation(sample.to_move), "empty": {}}
    best = {kind: 0.0 for kind in kinds}
    for _ in range(args.rounds):  # interleaved, best of each: this machine is noisy
        for kind, observation in kinds.items():
            r = referee_games(Observing(observation), "cardems", 2, args.games, bare=True)
            best[kind] = max(best[kind], r["games_per_s"])
    for kind, rate in best.items():
        print(f"{kind:9} {rate:6.0f} games/s per core ({r['asked_per_game']:.0f} moves asked "
              f"a game)")


if __name__ == "__main__":
    main()
