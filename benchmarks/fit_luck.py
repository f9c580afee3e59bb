"""Fit a game's luck model (``arena.luck``): the weights ``w`` of its ``luck_features`` in
``value = 1/2 + w . (f_seat - mean f_others)``, by least squares on the place scores of
self-play games between ``greedy`` bots that play a random move one time in ``--noise``
(states from every move, both seats' rows). Prints the weights for the game's
``luck_weights``.

    python benchmarks/fit_luck.py --game vandtia --games 3000

Only the variance of the adjusted scores depends on these weights, never their mean.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from arena.luck import place_scores
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox.bot import PythonBot
from arena_bots.greedy import GreedyVandtia
from arena_bots.greedy_cherki import GreedyCherki
from arena_bots.greedy_tractor import GreedyTractor

GREEDY = {"vandtia": GreedyVandtia, "tractor": GreedyTractor, "cherki": GreedyCherki}


class Noisy:
    """The game's ``greedy`` bot, playing a uniformly random move with probability ``noise``."""

    def __init__(self, greedy, noise: float, seed: int):
        self.greedy, self.noise, self.rng = greedy, noise, random.Random(seed)

    def start(self, info):
        if hasattr(self.greedy, "start"):
            self.greedy.start(info)

    def act(self, observation, legal):
        if self.rng.random() < self.noise:
            return self.rng.choice(legal)
        return self.greedy.act(observation, legal)


def rows(game, variant: str, players: int, seed: int, noise: float, greedy_cls):
    """``(feature differences, place score)`` for every seat of every state of one game."""
    bots = [PythonBot(Noisy(greedy_cls(), noise, seed * 8 + s), "greedy")
            for s in range(players)]
    match, _ = play_match(game, variant, bots, seed)
    final = place_scores(match.result.ranks)
    state = game.new_state(variant, players, seed)
    out = []
    for action in [None, *match.actions]:
        if action is not None:
            state.apply(action)
        if state.is_over():
            break
        f = np.array(game.luck_features(state), dtype=float)
        others = (f.sum(0) - f) / (players - 1)
        for seat in range(players):
            out.append((f[seat] - others[seat], final[seat] - 0.5))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="vandtia")
    parser.add_argument("--variant")
    parser.add_argument("--players", type=int)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--noise", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=90000)
    args = parser.parse_args()
    registry = Registry()
    game = registry.game(args.game)
    variant = game.check(args.variant)
    players = args.players or (2 if 2 in game.variants[variant] else game.variants[variant][0])
    greedy_cls = GREEDY[game.name]
    data = []
    for i in range(args.games):
        data += rows(game, variant, players, args.seed + i, args.noise, greedy_cls)
    x = np.array([d for d, _ in data])
    y = np.array([v for _, v in data])
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    r2 = 1 - ((x @ w - y) ** 2).mean() / y.var()
    print(f"# {args.game} {variant}, {players} seats: {args.games} games, {len(x)} rows, "
          f"R^2 {r2:.3f}")
    print("luck_weights = (" + ", ".join(f"{v:.6g}" for v in w) + ")")


if __name__ == "__main__":
    main()
