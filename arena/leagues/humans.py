"""A person's matches: ``arena play`` with a ``human`` seat stores each as a season of kind
``human`` that holds that one match, named ``human/GAME/VARIANT/PLAYERSp/N`` (N counts up
per league), so ``arena replay``, ``verify``, ``season export`` and the report read it as
they read any match. Its deal is keyed by the season's secret and seed as ``arena play
--seed`` keys one (the same seed and secret: the same deal), its bots' seeds as in any
match; the person's seat is recorded as a bot named ``human`` or ``human:NAME`` with no
code.

A match the person abandons (Ctrl-C, or the end of its input) stores no result: its season
is marked ``abandoned`` (the move it stopped at in its options), and nothing is rated from
it. Such a season is not resumed. Leaderboards of a league leave human seasons out
(``db.HUMAN_SEASONS``) unless one is named with ``--season``: people and bots are not mixed
into one league unless asked. The people's matches of a league are rated as a league of
their own (``arena leaderboard --humans``): the people and the bots they met.
"""

from __future__ import annotations

import json
import secrets

from .. import db
from ..errors import ArenaError
from ..plugins import Registry, is_human
from .league import bot_row
from .scheduler import SeasonDef, fixtures

#: How a person's seat is recorded among the season's bots.
PERSON = {"version": "person", "source": "a person at the terminal", "code_hash": ""}


def create(engine, registry: Registry, game: str, variant: str, seats: list[str],
           seed: int | None = None, secret: str | None = None, rounds: int = 1,
           label: str = "") -> SeasonDef:
    """Store the season of a new human match (``seats``: each seat's name, in order) and
    return its definition; ``fixtures(defn)`` yields its one match - or, with ``rounds``,
    one match per deal of a challenge (``arena.web.challenges``: the challenged bot's
    games, named ``...Np/challenge-N`` by ``label``)."""
    g = registry.game(game)
    variant = g.check(variant, len(seats))
    # a submitted bot by its exact version (mybot@2), as seasons store it: never a bare
    # name beside its versions in the people's league
    seats = [name if is_human(name) else registry.canonical(name) for name in seats]
    bots = [db.BotRow(name=name, game=game, **PERSON) if is_human(name)
            else bot_row(registry, name, game) for name in dict.fromkeys(seats)]
    prefix = f"{db.HUMAN_SEASONS}{game}/{variant}/{len(seats)}p/{label}"
    seed = secrets.randbelow(2**31) if seed is None else seed
    extra = {"secret": secret} if secret is not None else {}
    for _ in range(100):  # another runner may take the same number at the same moment
        taken = [n for n in db.season_names(engine) if n.startswith(prefix)]
        number = 1 + max((int(n[len(prefix):]) for n in taken
                          if n[len(prefix):].isdigit()), default=0)
        defn = SeasonDef(f"{prefix}{number}", game, variant, len(seats), tuple(seats), rounds,
                         seed, batch=1, suspend_after=0, kind="human", inflight=1, **extra)
        try:
            db.create_season(engine, defn, bots, rounds, g.rules_version)
            return defn
        except ArenaError:
            continue
    raise ArenaError(f"could not name a new season under {prefix}")


def deal_seed(defn: SeasonDef) -> int:
    return next(fixtures(defn)).seed


def store(engine, defn: SeasonDef, match, duration: float) -> int:
    """Store the finished match as its season's one match; its id."""
    row = db.get_season(engine, defn.name)
    db.store_results(engine, row.id, [match.stored(0, duration)])
    db.set_status(engine, row.id, "done")
    return next(db.season_matches(engine, row.id))[0].id


def abandon(engine, defn: SeasonDef, moves: int) -> None:
    """Mark the season abandoned after ``moves`` moves: it holds no match and no result."""
    row = db.get_season(engine, defn.name)
    db.set_status(engine, row.id, "abandoned",
                  {**json.loads(row.options), "abandoned_at_move": moves})
