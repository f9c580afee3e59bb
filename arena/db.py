"""Storage: SQLModel tables, an engine from a URL, and the schema's own migrations.

SQLite (``sqlite:///results/arena.db``) by default; any SQLAlchemy URL through ``--db`` or
``ARENA_DB``. Only the coordinating process writes. A match is stored in one transaction with
its per-seat results, and ``(season, fixture)`` is unique, so an interrupted season keeps every
finished match and a resumed one can never store a fixture twice.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import UniqueConstraint, event
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, create_engine, select

from .errors import ArenaError

DEFAULT_URL = "sqlite:///results/arena.db"
SCHEMA_VERSION = 1


def now() -> datetime:
    return datetime.now(UTC)


class SchemaInfo(SQLModel, table=True):
    __tablename__ = "arena_schema"
    id: int | None = Field(default=None, primary_key=True)
    version: int


class BotRow(SQLModel, table=True):
    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("name", "game", "code_hash"),)
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    game: str
    version: str
    source: str
    code_hash: str


class SeasonRow(SQLModel, table=True):
    __tablename__ = "seasons"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    game: str
    variant: str
    players: int
    bots: str  # JSON list of names
    rounds: int
    seed: int
    options: str = "{}"  # JSON object
    fixtures: int = 0
    status: str = "running"  # running, done
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)


class MatchRow(SQLModel, table=True):
    __tablename__ = "matches"
    __table_args__ = (UniqueConstraint("season_id", "fixture"),)
    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="seasons.id", index=True)
    fixture: int
    seed: int
    seats: str  # JSON list of bot names, seat order
    status: str = "done"
    reason: str
    moves: int
    duration: float
    replay: str  # JSON list of actions


class SeatRow(SQLModel, table=True):
    __tablename__ = "seat_results"
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="matches.id", index=True)
    seat: int
    bot: str = Field(index=True)
    rank: int
    score: float
    fault: str | None = None


class RatingRow(SQLModel, table=True):
    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("league", "season_id", "bot"),)
    id: int | None = Field(default=None, primary_key=True)
    league: str = Field(index=True)  # game/variant/players
    season_id: int | None = Field(default=None, foreign_key="seasons.id")
    bot: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    faults: int


MIGRATIONS: list = []  # (version, callable(connection)) in order, for schema changes after 1


def _sqlite_pragmas(dbapi_connection, _record):
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the season's writer
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def connect(url: str | None = None):
    """An engine for ``url`` (default ``$ARENA_DB`` or the SQLite file under results/), with
    the schema created or migrated. Any failure is one ArenaError line."""
    url = url or os.environ.get("ARENA_DB") or DEFAULT_URL
    try:
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        SQLModel.metadata.create_all(engine)
        with Session(engine) as session:
            info = session.exec(select(SchemaInfo)).first()
            if info is None:
                session.add(SchemaInfo(version=SCHEMA_VERSION))
            else:
                for version, migrate in MIGRATIONS:
                    if version > info.version:
                        migrate(session.connection())
                        info.version = version
                if info.version > SCHEMA_VERSION:
                    raise ArenaError(f"database {url} has a newer schema ({info.version})")
            session.commit()
        return engine
    except (SQLAlchemyError, OSError) as e:
        raise ArenaError(f"cannot use database {url}: {_first_line(e)}") from None


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e)
    return text.splitlines()[0] if text else type(e).__name__


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


# -- seasons, matches, ratings ---------------------------------------------------------------


def create_season(engine, defn, bots: list[BotRow], fixtures: int) -> SeasonRow:
    """Store a new season definition (ArenaError if the name is taken)."""
    with Session(engine) as session:
        if session.exec(select(SeasonRow).where(SeasonRow.name == defn.name)).first():
            raise ArenaError(f"a season named {defn.name!r} exists (resume it, or pick a name)")
        for bot in bots:
            known = session.exec(select(BotRow).where(
                BotRow.name == bot.name, BotRow.game == bot.game,
                BotRow.code_hash == bot.code_hash)).first()
            if known is None:
                session.add(bot)
        hashes = {b.name: b.code_hash for b in bots}
        row = SeasonRow(name=defn.name, game=defn.game, variant=defn.variant,
                        players=defn.players, bots=dumps(list(defn.bots)), rounds=defn.rounds,
                        seed=defn.seed, options=dumps({"code_hashes": hashes}),
                        fixtures=fixtures)
        session.add(row)
        session.commit()
        session.refresh(row)
        return row


def get_season(engine, name: str) -> SeasonRow:
    with Session(engine) as session:
        row = session.exec(select(SeasonRow).where(SeasonRow.name == name)).first()
    if row is None:
        raise ArenaError(f"no season named {name!r}")
    return row


def list_seasons(engine) -> list[tuple[SeasonRow, int]]:
    with Session(engine) as session:
        seasons = session.exec(select(SeasonRow).order_by(SeasonRow.id)).all()
        return [(s, len(stored_fixtures(engine, s.id))) for s in seasons]


def stored_fixtures(engine, season_id: int) -> set[int]:
    with Session(engine) as session:
        return set(session.exec(select(MatchRow.fixture).where(MatchRow.season_id == season_id)))


def store_results(engine, season_id: int, results: list[dict]) -> None:
    """Store finished matches and their seats in one transaction (all or nothing)."""
    with Session(engine) as session:
        for r in results:
            res = r["result"]
            match = MatchRow(season_id=season_id, fixture=r["fixture"], seed=r["seed"],
                             seats=dumps(r["seats"]), reason=res["reason"], moves=res["moves"],
                             duration=r["duration"], replay=dumps(r["actions"]))
            session.add(match)
            session.flush()
            for seat, bot in enumerate(r["seats"]):
                session.add(SeatRow(match_id=match.id, seat=seat, bot=bot,
                                    rank=res["ranks"][seat], score=res["scores"][seat],
                                    fault=res["faults"][seat]))
        session.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                        .values(updated_at=now()))
        session.commit()


def set_status(engine, season_id: int, status: str) -> None:
    with Session(engine) as session:
        session.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                        .values(status=status, updated_at=now()))
        session.commit()


def results(engine, game: str, variant: str, players: int | None = None,
            season: str | None = None):
    """``(seats, ranks, scores, faults)`` per stored match of a league, in fixture order
    (seasons in creation order), streamed."""
    query = (select(MatchRow.id).join(SeasonRow)
             .where(SeasonRow.game == game, SeasonRow.variant == variant))
    if players is not None:
        query = query.where(SeasonRow.players == players)
    if season is not None:
        query = query.where(SeasonRow.name == season)
    query = query.order_by(SeasonRow.id, MatchRow.fixture)
    with Session(engine) as session:
        ids = list(session.exec(query))
        seats_by_match: dict[int, list[SeatRow]] = {}
        for chunk in range(0, len(ids), 500):
            for seat in session.exec(select(SeatRow).where(
                    SeatRow.match_id.in_(ids[chunk:chunk + 500]))):
                seats_by_match.setdefault(seat.match_id, []).append(seat)
    for match_id in ids:
        seats = sorted(seats_by_match[match_id], key=lambda s: s.seat)
        yield ([s.bot for s in seats], [s.rank for s in seats], [s.score for s in seats],
               [s.fault for s in seats])


def write_ratings(engine, league: str, season_id: int | None, standings) -> None:
    with Session(engine) as session:
        session.execute(RatingRow.__table__.delete().where(
            RatingRow.league == league,
            RatingRow.season_id == season_id if season_id is not None
            else RatingRow.season_id.is_(None)))
        for s in standings:
            session.add(RatingRow(league=league, season_id=season_id, bot=s.bot, mu=s.mu,
                                  sigma=s.sigma, games=s.games, wins=s.wins, draws=s.draws,
                                  losses=s.losses, faults=s.faults))
        session.commit()


def get_match(engine, match_id: int) -> tuple[MatchRow, SeasonRow, list[SeatRow]]:
    with Session(engine) as session:
        match = session.get(MatchRow, match_id)
        if match is None:
            raise ArenaError(f"no match with id {match_id}")
        season = session.get(SeasonRow, match.season_id)
        seats = list(session.exec(select(SeatRow).where(SeatRow.match_id == match_id)
                                  .order_by(SeatRow.seat)))
        return match, season, seats
