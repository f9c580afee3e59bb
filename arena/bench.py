"""Speed benchmarks (``arena bench``): figures are measured here, never asserted in tests."""

from __future__ import annotations

import random
import time

from .bot import make_bot
from .referee import play_match


def engine_games(game, variant: str, players: int, games: int, seed: int = 0) -> dict:
    """Random-vs-random games through the state API alone (legal list, choice, apply)."""
    rnd = random.Random(seed).random
    moves = 0
    start = time.process_time()
    for g in range(games):
        state = game.new_state(variant, players, seed + g)
        while not state.over:
            legal = state.legal_actions()
            state.apply(legal[int(rnd() * len(legal))])
        moves += state.moves
    cpu = time.process_time() - start
    return {"games": games, "cpu_s": cpu, "games_per_s": games / cpu, "moves_per_game":
            moves / games}


def referee_games(game, variant: str, entries: list, games: int, seed: int = 0) -> dict:
    """Whole matches through the referee with real bot objects and observations."""
    start = time.process_time()
    for g in range(games):
        play_match(game, variant, [make_bot(e) for e in entries], seed + g)
    cpu = time.process_time() - start
    return {"games": games, "cpu_s": cpu, "games_per_s": games / cpu}
