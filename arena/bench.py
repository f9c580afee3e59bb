"""Speed benchmarks (``arena bench``): figures are measured here, never asserted in tests."""

from __future__ import annotations

import math
import random
import tempfile
import time
from dataclasses import astuple
from pathlib import Path

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


SECOND_RANDOM = '''"""A second random bot: a benchmark season is random against random."""
import arena
from arena_bots.randombot import RandomBot


@arena.hookimpl
def register_bots(register):
    register("random-2", RandomBot, games=["vandtia"])
'''


def season(matches: int, workers: int, url: str | None = None, seed: int = 0) -> dict:
    """A season of ``matches`` random-vs-random ``cardems`` matches on ``workers`` local
    processes, stored in ``url`` (default: a new SQLite file in a temporary folder).

    ``outside`` is the share of the workers' wall time not spent inside a match
    (1 - summed match durations / (workers x wall)): scheduling, transport, storage and
    rating, with the coordinating process sharing the machine. ``stored_per_s`` is the
    storage layer alone: the same results written again, batch by batch, into a new season."""
    from . import db, league
    from .plugins import Registry
    from .scheduler import SeasonDef

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "random2.py").write_text(SECOND_RANDOM)
        registry = Registry(bots_dirs=[tmp])
        engine = db.connect(url or f"sqlite:///{tmp}/bench.db")
        game = registry.game("vandtia")
        tag = f"bench-{time.time_ns()}"
        defn = SeasonDef(tag, "vandtia", "cardems", 2, ("random", "random-2"),
                         math.ceil(matches / 2), seed, game.season_batch)
        row = league.create(engine, registry, defn)
        batches: list[list[dict]] = []
        start = time.perf_counter()
        league.play(engine, registry, row, workers=workers,
                    on_batch=lambda results, _rater: batches.append(results))
        wall = time.perf_counter() - start
        played = sum(map(len, batches))
        in_matches = sum(r["duration"] for b in batches for r in b)

        copy = league.create(engine, registry, SeasonDef(tag + "-store", *astuple(defn)[1:]))
        start = time.perf_counter()
        for batch in batches:
            db.store_results(engine, copy.id, batch)
        store_s = time.perf_counter() - start
        engine.dispose()
    return {"matches": played, "workers": workers, "wall_s": wall, "match_s": in_matches,
            "outside": 1 - in_matches / (workers * wall), "matches_per_s": played / wall,
            "stored_per_s": played / store_s}
