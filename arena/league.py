"""League seasons end to end: define, run, resume, rate. The CLI and the demo call these.

Bots are recorded with their version, source and a SHA-256 of their code; resuming a season
whose bots' code has changed is refused, since the results would mix two versions.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from concurrent.futures import Executor, ProcessPoolExecutor

from . import db
from .errors import ArenaError
from .plugins import Registry
from .ratings import rate
from .scheduler import SeasonDef, fixture_count, run, validate


def code_hash(entry) -> str:
    try:
        path = inspect.getsourcefile(entry.factory)
        data = open(path, "rb").read() if path else repr(entry.factory).encode()
    except (TypeError, OSError):
        data = repr(entry.factory).encode()
    return hashlib.sha256(data).hexdigest()


def league_key(game: str, variant: str, players: int) -> str:
    return f"{game}/{variant}/{players}"


def definition(row: db.SeasonRow) -> SeasonDef:
    return SeasonDef(row.name, row.game, row.variant, row.players, tuple(json.loads(row.bots)),
                     row.rounds, row.seed)


def create(engine, registry: Registry, defn: SeasonDef) -> db.SeasonRow:
    validate(defn, registry)
    bots = []
    for name in defn.bots:
        entry = registry.bot(name, defn.game)
        version = entry.source.split()[-1] if " " in entry.source else "file"
        bots.append(db.BotRow(name=name, game=defn.game, version=version, source=entry.source,
                              code_hash=code_hash(entry)))
    return db.create_season(engine, defn, bots, fixture_count(defn))


def default_executor(workers: int | None) -> Executor:
    return ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)


def play(engine, registry: Registry, row: db.SeasonRow, executor: Executor | None = None,
         workers: int | None = None, on_batch=None) -> int:
    """Play the fixtures of season ``row`` not yet stored; rate it when complete."""
    defn = definition(row)
    validate(defn, registry)
    hashes = json.loads(row.options).get("code_hashes", {})
    for name in defn.bots:
        if hashes.get(name) not in (None, code_hash(registry.bot(name, defn.game))):
            raise ArenaError(f"bot {name!r} has changed since season {row.name!r} started")
    done = db.stored_fixtures(engine, row.id)

    def store(results):
        db.store_results(engine, row.id, results)
        if on_batch:
            on_batch(results)

    own = executor is None
    executor = executor or default_executor(workers)
    try:
        played = run(defn, done, executor, store, bots_dirs=tuple(map(str, registry.bots_dirs)))
    finally:
        if own:
            executor.shutdown(cancel_futures=True)
    finish(engine, registry, row)
    return played


def finish(engine, registry: Registry, row: db.SeasonRow) -> None:
    if len(db.stored_fixtures(engine, row.id)) < row.fixtures:
        return
    key = league_key(row.game, row.variant, row.players)
    for season_id, name in ((row.id, row.name), (None, None)):
        db.write_ratings(engine, key, season_id, standings(
            engine, registry, row.game, row.variant, row.players, name))
    db.set_status(engine, row.id, "done")


def standings(engine, registry: Registry, game: str, variant: str, players: int | None,
              season: str | None):
    """Ratings of a league (or one season of it), replayed in fixture order."""
    draw = getattr(registry.game(game), "draw_probability", None)
    kwargs = {"draw_probability": draw} if draw else {}
    return rate(db.results(engine, game, variant, players, season), **kwargs)
