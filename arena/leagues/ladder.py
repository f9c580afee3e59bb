"""The ladder: a standing league per (game, variant, players) of every submitted bot's
versions, and of any bots named beside them.

Each version is **placed** once, in submission order: a season of kind ``ladder`` (named
``ladder/GAME/VARIANT/PLAYERSp/NAME@VERSION``) in which it meets the ladder as it stood
when it was submitted - the named bots and the latest earlier version of every other
submitted bot not withdrawn - on duplicate deals, ``deals`` rounds of every group that
holds it (in two-seat games: ``deals`` deals against each, played both ways). The ladder's
ratings are TrueSkill over its placement seasons in the order they were made (submission
order), then fixture order: the same submissions in the same order give the same ratings,
however the placements were interrupted, resumed or shared between runners.

Runners take turns through a database lock to make a placement (one version, one
season), so two ladders on one PostgreSQL database never place a version twice; a
placement killed half-way is a season, resumed where it stopped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from sqlmodel import Session, select

from .. import db
from ..errors import ArenaError
from ..plugins import Registry
from . import league, store
from .ratings import Standing, rate
from .scheduler import SeasonDef, default_batch

#: Deals per group of a placement. 50 bring a newcomer's sigma from 8.3 under 1: measured,
#: 0.67 in a Vändtia cardems ladder of greedy and random (100 games against each), 0.36 in
#: a Cherki one (300 games at one table of three).
DEALS = 50


@dataclass(frozen=True)
class Ladder:
    game: str
    variant: str
    players: int
    named: tuple[str, ...] = ()
    deals: int = DEALS
    seed: int = 0
    secret: str | None = None  # None: each placement draws a random secret of its own

    @property
    def prefix(self) -> str:
        return f"ladder/{self.game}/{self.variant}/{self.players}p/"


def pending(engine, registry: Registry, ladder: Ladder) -> list[db.SubmissionRow]:
    """The versions of this game not placed yet (their placement not made, or not
    finished), in submission order; withdrawn ones are left off."""
    done = {row.name: row.status for row, _ in db.list_seasons(engine, ladder.prefix + "%")
            if row.name.startswith(ladder.prefix)}
    return [row for row in store.versions(engine) if not row.withdrawn
            and ladder.game in json.loads(row.games)
            and done.get(ladder.prefix + f"{row.name}@{row.version}") != "done"]


def opponents(engine, ladder: Ladder, row: db.SubmissionRow) -> list[str]:
    """Who a version meets: the named bots, and the latest version submitted before it of
    every other bot that plays the game and is not withdrawn."""
    latest: dict[str, str] = {}
    for other in store.versions(engine):
        if other.id >= row.id:
            break
        if other.name != row.name and ladder.game in json.loads(other.games):
            if other.withdrawn:
                latest.pop(other.name, None)
            else:
                latest[other.name] = f"{other.name}@{other.version}"
    return list(ladder.named) + sorted(latest.values())


def placement(engine, registry: Registry, ladder: Ladder, row: db.SubmissionRow):
    """The placement season of ``row`` (made if it does not exist), or None when the
    ladder holds too few bots to seat a table with it yet."""
    game = registry.game(ladder.game)
    entrant = f"{row.name}@{row.version}"
    name = ladder.prefix + entrant
    with db.exclusive(engine, f"arena:{ladder.prefix}"):  # runners take turns
        try:
            return db.get_season(engine, name)
        except ArenaError:
            pass
        others = opponents(engine, ladder, row)
        teams = game.teams
        if len(others) + 1 < (teams or ladder.players):
            return None
        defn = SeasonDef(name, ladder.game, ladder.variant, ladder.players,
                         (entrant, *others), ladder.deals, ladder.seed, teams=teams,
                         every_seating=game.seatings == "all" and not teams,
                         kind="ladder", **({"secret": ladder.secret}
                                           if ladder.secret is not None else {}))
        defn = replace(defn, batch=default_batch(game, defn))
        return league.create(engine, registry, defn)


def place(engine, registry: Registry, ladder: Ladder, executor=None, workers=None,
          say=lambda line: None) -> int:
    """Place every pending version in submission order; how many were placed. A placement
    another runner is playing is left to it (and waited for at the end): its opponents and
    its place in the rating order were fixed when it was made, whoever plays it."""
    placed, elsewhere = 0, []
    for row in pending(engine, registry, ladder):
        season = placement(engine, registry, ladder, row)
        if season is None:
            say(f"{row.name}@{row.version}: waiting for more bots to meet")
            break  # later versions would meet a ladder without it: wait, in order
        with db.claim(engine, f"arena:placing:{season.name}") as mine:
            if not mine:
                elsewhere.append(season.name)
                continue
            placed += _play(engine, registry, season.name, executor, workers, say)
    for name in elsewhere:  # played by another runner: wait for it (or finish it, if it died)
        with db.claim(engine, f"arena:placing:{name}", wait=True):
            placed += _play(engine, registry, name, executor, workers, say)
    return placed


def _play(engine, registry, name: str, executor, workers, say) -> int:
    season = db.get_season(engine, name)  # as it is now that this runner holds it
    if season.status != "done":
        say(f"placing {json.loads(season.bots)[0]} against "
            f"{', '.join(json.loads(season.bots)[1:])}: {season.fixtures} matches")
        league.play(engine, registry, season, executor=executor, workers=workers)
    return 1


def standings(engine, registry: Registry, ladder: Ladder) -> list[Standing]:
    """The ladder's ratings: its placements in the order they were made, each in fixture
    order."""
    game = registry.game(ladder.game)
    seasons = [row.name for row, _ in db.list_seasons(engine, ladder.prefix + "%")
               if row.name.startswith(ladder.prefix)]

    def results():
        for name in seasons:
            yield from db.results(engine, ladder.game, ladder.variant, ladder.players, name)

    return store.mark(engine, rate(results(), game.draw_probability, game.teams))


def latest_only(standings: list[Standing], engine) -> list[Standing]:
    """The rows of the latest version of each submitted bot (and every other bot): the
    latest stored, whether or not it plays any more (a withdrawn, disabled or deleted bot's
    last version keeps its row). From the database alone: no bot is listed for this."""
    latest = {row.name: f"{row.name}@{row.version}" for row in store.versions(engine)}
    return [s for s in standings
            if "@" not in s.bot or latest.get(s.bot.partition("@")[0]) == s.bot]


def withdrawn(engine) -> set[str]:
    with Session(engine) as session:
        return {f"{r.name}@{r.version}" for r in session.exec(
            select(db.SubmissionRow).where(db.SubmissionRow.withdrawn))}
