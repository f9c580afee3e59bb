"""Storage: SQLModel tables, an engine from a URL, and the schema's own migrations.

SQLite (``sqlite:///results/arena.db``) by default; any SQLAlchemy URL through ``--db`` or
``ARENA_DB``. Only the coordinating process writes. A match is stored in one transaction with
its per-seat results, and ``(season, fixture)`` is unique, so an interrupted season keeps every
finished match and a resumed one can never store a fixture twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import groupby
from operator import itemgetter
from pathlib import Path

from sqlalchemy import BigInteger, Column, LargeBinary, UniqueConstraint, event, insert
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, create_engine, func, select

from . import DEFAULT_DB as DEFAULT_URL
from .errors import ArenaError, masked
from .referee import ASKING

SCHEMA_VERSION = 12
#: The names of the seasons that hold a person's match (``arena.leagues.humans``).
HUMAN_SEASONS = "human/"
#: The label of a match of bots played for people to watch (``human/.../watch-N``,
#: ``arena serve``): stored and replayed like any, rated in no league.
WATCHED = "watch-"
#: The label of a person's practice match (``human/.../practice-N``): moves taken back and
#: hints asked for, so rated in no league.
PRACTICE = "practice-"


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
    seed: int = Field(sa_type=BigInteger)
    secret: str | None = None  # keys every deal and bot seed; NULL: made before schema 3
    options: str = "{}"  # JSON object
    fixtures: int = 0
    status: str = "running"  # running, done
    #: whether its results rate its league (schema 10): false for an A/B match (``arena
    #: match``, ``gauntlet``) unless it was asked to (``--rated``); as its options say
    rated: bool = True
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)


class MatchRow(SQLModel, table=True):
    __tablename__ = "matches"
    __table_args__ = (UniqueConstraint("season_id", "fixture"),)
    id: int | None = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="seasons.id", index=True)
    fixture: int
    seed: int = Field(sa_type=BigInteger)  # 63-bit deal seeds
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
    log: str | None = None  # the tail of a faulty bot's stderr (schema 2)
    #: wall seconds per move the bot was asked, mean and max over the match (schema 4;
    #: null where it was asked nothing, or the match was not played)
    move_mean_s: float | None = None
    move_max_s: float | None = None
    #: the seat's luck: the sum of its chance corrections (``arena.luck``; schema 8), in
    #: place-score units; null where the season did not ask for them (``--adjust luck``)
    luck: float | None = None


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
    suspended: bool = False  # stopped after too many faults in a row (schema 2)


class SubmissionRow(SQLModel, table=True):
    """A submitted bot's version (schema 5): its content lives in the bot store, in the
    folder ``path`` (relative to the store), and is run from there by the worker."""

    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("name", "version"), UniqueConstraint("name", "content"))
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    version: int
    content: str  # SHA-256 of the submission's files (names and bytes)
    author: str
    submitted_at: datetime = Field(default_factory=now)
    games: str  # JSON list
    kind: str  # file, module, manifest: how the worker loads it
    target: str  # relative to the folder: a file, "module:attr" or a manifest
    path: str  # the version's folder, relative to the store
    options: str | None = None  # JSON: the options it declares, or null
    code_hashes: str = "{}"  # JSON {game: code hash}, as a season records a bot's code
    checked: str = ""  # what check-bot said
    withdrawn: bool = False
    #: by the league's organizer (schema 12): a disabled version plays nowhere (its files
    #: stay); a deleted one is disabled and its files are gone - its results stay, marked
    disabled: bool = False
    deleted: bool = False


class OwnerRow(SQLModel, table=True):
    """Who a submitted bot's name belongs to (schema 6): its first author, and a hash of the
    key made at its first submission, which a new version must show (``arena.leagues.store``)."""

    __tablename__ = "bot_owners"
    name: str = Field(primary_key=True)
    author: str
    key_hash: str  # "scrypt$SALT$HASH", hex
    since: datetime = Field(default_factory=now)


class ReviewRow(SQLModel, table=True):
    """One reviewed decision (schema 7, ``arena.leagues.review``): at ``step`` of match
    ``match_id``, seat ``seat`` decided, and ``reviewer`` (an entrant, options written out)
    valued every legal action from that seat's observation; ``data``, JSON: the action
    taken, the decision's phase and the reviewer's values."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("match_id", "reviewer", "seat", "step"),)
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="matches.id", index=True)
    reviewer: str
    seat: int
    step: int
    data: str


class AccountRow(SQLModel, table=True):
    """A person who may sign in to a league (schema 11, ``arena.leagues.accounts``): an
    ``author`` or an ``organizer``; the password's argon2id hash (none: signs in with a
    token alone)."""

    __tablename__ = "accounts"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    role: str = "author"
    password_hash: str | None = None
    created_at: datetime = Field(default_factory=now)
    disabled: bool = False


class TokenRow(SQLModel, table=True):
    """A secret that acts for an account (schema 11): an API token (``api``, shown once,
    revocable, its last use kept) or a browser's sign-in (``session``, until it expires or
    signs out). Only its SHA-256 is stored."""

    __tablename__ = "account_tokens"
    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="accounts.id", index=True)
    token_hash: str = Field(unique=True, index=True)
    kind: str = "api"
    label: str = ""
    created_at: datetime = Field(default_factory=now)
    last_used_at: datetime | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class InvitationRow(SQLModel, table=True):
    """An invitation to make an account (schema 11): its code's SHA-256, the role it gives,
    who made it, until when it holds, and who used it (once)."""

    __tablename__ = "invitations"
    id: int | None = Field(default=None, primary_key=True)
    code_hash: str = Field(unique=True, index=True)
    role: str = "author"
    created_by: str = ""
    created_at: datetime = Field(default_factory=now)
    expires_at: datetime
    used_by: str | None = None


class UploadRow(SQLModel, table=True):
    """A submission sent to a league's server, waiting for its check or checked (schema 12,
    ``arena.leagues.uploads``): whose, the file's name, where its bytes wait (a path under
    the store's ``.uploads``, removed once checked), ``waiting`` / ``checking`` / ``kept`` /
    ``refused``, the one line saying why, and the version it became."""

    __tablename__ = "uploads"
    id: int | None = Field(default=None, primary_key=True)
    account: str = Field(index=True)
    filename: str
    size: int
    path: str
    status: str = Field(default="waiting", index=True)
    message: str | None = None
    bot: str | None = None  # NAME@VERSION, once kept
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)


class KeptCodeRow(SQLModel, table=True):
    """The code a season began with, for a bots folder's bot (schema 9): a single file's
    name and bytes, or an executable's files as one archive, ``MANIFEST.toml.tar``
    (``league._tar``); keyed by the bot's code hash, kept once however many seasons play
    it - so a season whose bot has changed since can still be finished with the code it
    began with (``arena season export-bots``)."""

    __tablename__ = "kept_code"
    code_hash: str = Field(primary_key=True)
    filename: str
    body: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


def _schema_2(conn) -> None:
    conn.exec_driver_sql("ALTER TABLE seat_results ADD COLUMN log VARCHAR")
    conn.exec_driver_sql("ALTER TABLE ratings ADD COLUMN suspended BOOLEAN NOT NULL DEFAULT false")


def _schema_3(conn) -> None:
    conn.exec_driver_sql("ALTER TABLE seasons ADD COLUMN secret VARCHAR")


def _schema_4(conn) -> None:
    for column in ("move_mean_s", "move_max_s"):
        conn.exec_driver_sql(f"ALTER TABLE seat_results ADD COLUMN {column} FLOAT")


def _schema_5(conn) -> None:
    """The submissions table, which ``create_all`` has just made."""


def _schema_6(conn) -> None:
    """The bot owners table, which ``create_all`` has just made. A name submitted before
    it has no key: ``arena key NAME`` gives it one."""


def _schema_7(conn) -> None:
    """The reviews table, which ``create_all`` has just made."""


def _schema_8(conn) -> None:
    conn.exec_driver_sql("ALTER TABLE seat_results ADD COLUMN luck FLOAT")


def _schema_9(conn) -> None:
    """The kept code table, which ``create_all`` has just made. Seasons begun before it
    have no code kept: a changed bot of theirs must be restored by hand."""


def _schema_10(conn) -> None:
    """Whether a season rates its league: every one did, A/B matches included; now a
    match (``kind`` "match" in its options) does not, and its options say so."""
    conn.exec_driver_sql("ALTER TABLE seasons ADD COLUMN rated BOOLEAN NOT NULL DEFAULT true")
    rows = conn.exec_driver_sql("SELECT id, options FROM seasons").all()
    for season_id, text in rows:
        options = json.loads(text or "{}")
        if options.get("kind") == "match":
            options["rated"] = False
            conn.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                         .values(rated=False, options=dumps(options)))


def _schema_11(conn) -> None:
    """The accounts, their tokens and invitations, which ``create_all`` has just made."""


def _schema_12(conn) -> None:
    """The uploads waiting for their check, which ``create_all`` has just made; a submitted
    version disabled or deleted by the organizer."""
    from sqlalchemy import inspect

    there = {c["name"] for c in inspect(conn).get_columns("submissions")}
    for column in ("disabled", "deleted"):  # (a table made just now, from schema 4, has them)
        if column not in there:
            conn.exec_driver_sql(f"ALTER TABLE submissions ADD COLUMN {column} BOOLEAN NOT "
                                 "NULL DEFAULT false")


# (version, callable(connection)), in order
MIGRATIONS: list = [(2, _schema_2), (3, _schema_3), (4, _schema_4), (5, _schema_5),
                    (6, _schema_6), (7, _schema_7), (8, _schema_8), (9, _schema_9),
                    (10, _schema_10), (11, _schema_11),
                    (12, _schema_12)]


def _sqlite_pragmas(dbapi_connection, _record):
    """WAL (readers never block the season's writer) and foreign keys. The switch to WAL is
    made once per file, by whichever runner gets there first: it needs the file to itself,
    and SQLite refuses it at once, without waiting, while another connection writes."""
    cursor = dbapi_connection.cursor()
    for _ in range(1000):
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            break
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:  # busy: another runner is switching or writing
            time.sleep(0.01)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


#: The package that brings a missing database driver (the module's name is not always it).
DRIVERS = {"psycopg": "card-arena[postgres]", "psycopg2": "psycopg2-binary",
           "MySQLdb": "mysqlclient", "pymysql": "pymysql", "asyncpg": "asyncpg"}


def sqlite_file(url: str) -> str | None:
    """The file a ``sqlite:///PATH`` URL names, or None (another database, memory, or a
    URI form, which is left as given)."""
    path = url.removeprefix("sqlite:///").split("?")[0]
    if url.startswith("sqlite:///") and path not in ("", ":memory:") and not path.startswith(
            "file:"):
        return path
    return None


def connect(url: str | None = None, create: bool = True):
    """An engine for ``url`` (default ``$ARENA_DB`` or the SQLite file under results/), with
    the schema created or migrated. Any failure is one ArenaError line, with no password.

    Only the default folder (``results/``) is made when missing, so a mistyped path is an
    error, not a new empty database; with ``create`` false (commands that only read) a
    SQLite file that does not exist is one too."""
    url = url or os.environ.get("ARENA_DB") or DEFAULT_URL
    shown = masked(url)
    _check_url(url, shown)
    path = sqlite_file(url)
    if path is not None:
        folder = Path(path).parent
        if not create and not Path(path).exists():
            raise ArenaError(f"no database at {path}: nothing has been stored there yet "
                             "('arena season run' or 'arena demo' makes it)")
        if url == DEFAULT_URL:
            folder.mkdir(parents=True, exist_ok=True)
        elif not folder.is_dir():
            raise ArenaError(f"cannot use database {shown}: folder {folder} does not exist")
    try:
        engine = create_engine(url)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        _make_schema(engine, shown)
        return engine
    except ImportError as e:
        hint = DRIVERS.get(e.name, e.name)
        raise ArenaError(f"cannot use database {shown}: its driver {e.name} is not installed "
                         f"(pip install '{hint}')") from None
    except (SQLAlchemyError, OSError, ValueError) as e:
        raise ArenaError(f"cannot use database {shown}: {masked(first_line(e))}") from None


def _check_url(url: str, shown: str) -> None:
    """ArenaError for a URL SQLAlchemy would misread: an ``@`` in the password (the rest
    would be taken for the host, and shown), a port that is not a number."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ArenaError(f"cannot use database {shown}: not a database URL "
                         "(sqlite:///PATH, postgresql+psycopg://USER:PASSWORD@HOST/NAME)")
    netloc = rest.split("/", 1)[0].split("?", 1)[0]
    if netloc.count("@") > 1:
        raise ArenaError(f"cannot use database {shown}: an @ in the user or password is "
                         "written %40")
    host = netloc.rpartition("@")[2]
    port = host.rpartition("]")[2].partition(":")[2] if host else ""
    if port and not port.isdigit():
        raise ArenaError(f"cannot use database {shown}: its port is not a number")


def _make_schema(engine, shown: str) -> None:
    """Create or migrate the schema in one transaction that holds the database's write lock
    from its first statement (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory lock), so
    runners starting together on a fresh database make it once."""
    with engine.connect() as conn:
        dbapi = conn.connection.dbapi_connection if engine.dialect.name == "sqlite" else None
        if dbapi is not None:
            level, dbapi.isolation_level = dbapi.isolation_level, None  # we begin, not pysqlite
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(727274)")
        try:
            SQLModel.metadata.create_all(conn)
            version = conn.execute(select(SchemaInfo.version)).scalar()
            if version is None:
                conn.execute(insert(SchemaInfo).values(version=SCHEMA_VERSION))
            elif version > SCHEMA_VERSION:
                raise ArenaError(f"database {shown} has a newer schema ({version})")
            else:
                for step, migrate in MIGRATIONS:
                    if step > version:
                        migrate(conn)
                        conn.execute(SchemaInfo.__table__.update().values(version=step))
            conn.commit()
        finally:
            if dbapi is not None:
                if dbapi.in_transaction:
                    dbapi.rollback()
                dbapi.isolation_level = level


def disk_full(e: BaseException) -> bool:
    """Whether a database error says its disk is full (SQLite's "database or disk is full",
    PostgreSQL's DiskFull, "No space left on device")."""
    text = str(getattr(e, "orig", None) or e).lower()
    return isinstance(e, SQLAlchemyError) and ("disk is full" in text or "no space left"
                                               in text or "diskfull" in text)


def first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e)
    return text.splitlines()[0] if text else type(e).__name__


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@contextmanager
def claim(engine, key: str, wait: bool = False):
    """Hold a lock named ``key`` for as long as the block runs, if it can be had: yields
    True when held, False when another runner holds it (``wait``: block until it can be
    had). A PostgreSQL advisory lock; for a SQLite file, a lock on a file beside it, so
    runners on one machine take turns too. The lock goes with the process that holds it."""
    number = zlib.crc32(key.encode())
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            if wait:
                conn.exec_driver_sql(f"SELECT pg_advisory_lock({number})")
                held = True
            else:
                held = conn.exec_driver_sql(f"SELECT pg_try_advisory_lock({number})").scalar()
            try:
                yield bool(held)
            finally:
                if held:
                    conn.exec_driver_sql(f"SELECT pg_advisory_unlock({number})")
                conn.commit()
        return
    import fcntl

    database = engine.url.database
    if not database or database == ":memory:":
        yield True
        return
    # a POSIX record lock: it belongs to this process alone, so the worker processes it
    # forks do not hold it on after it is killed
    with open(f"{database}.{number:08x}.lock", "a") as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.lockf(f, fcntl.LOCK_UN)


# -- seasons, matches, ratings ---------------------------------------------------------------


@contextmanager
def exclusive(engine, key: str):
    """Hold a lock named ``key`` across several transactions: a PostgreSQL advisory lock,
    so that runners sharing a database take turns (SQLite serialises its writers itself)."""
    if engine.dialect.name != "postgresql":
        yield
        return
    number = zlib.crc32(key.encode())
    with engine.connect() as conn:
        conn.exec_driver_sql(f"SELECT pg_advisory_lock({number})")
        try:
            yield
        finally:
            conn.exec_driver_sql(f"SELECT pg_advisory_unlock({number})")
            conn.commit()


def register_bots(session, bots: list[BotRow]) -> None:
    """Record each bot version (name, game, code hash) unless it is recorded already - by
    one statement that is a no-op on a row another runner has just made (``INSERT ... ON
    CONFLICT DO NOTHING``, SQLite and PostgreSQL), so runners starting together on one
    database never fail on each other's rows."""
    if not bots:
        return
    rows = [{"name": b.name, "game": b.game, "version": b.version, "source": b.source,
             "code_hash": b.code_hash} for b in bots]
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        if dialect == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as dialect_insert
        else:
            from sqlalchemy.dialects.postgresql import insert as dialect_insert
        session.execute(dialect_insert(BotRow).values(rows).on_conflict_do_nothing(
            index_elements=["name", "game", "code_hash"]))
        return
    for row in rows:  # any other database: each on its own savepoint
        try:
            with session.begin_nested():
                session.add(BotRow(**row))
        except IntegrityError:
            pass


def create_season(engine, defn, bots: list[BotRow], fixtures: int, rules: int = 1) -> SeasonRow:
    """Store a new season definition (ArenaError if the name is taken). Runners creating
    seasons at the same moment take turns, so a bot version is recorded once."""
    with exclusive(engine, "arena:create-season"), Session(engine) as session:
        register_bots(session, bots)  # first, a write: SQLite then holds the write lock
        if session.exec(select(SeasonRow).where(SeasonRow.name == defn.name)).first():
            raise ArenaError(f"a season named {defn.name!r} exists (resume it, or pick a name)")
        hashes = {b.name: b.code_hash for b in bots}
        row = SeasonRow(name=defn.name, game=defn.game, variant=defn.variant,
                        players=defn.players, bots=dumps(list(defn.bots)), rounds=defn.rounds,
                        seed=defn.seed, secret=defn.secret,
                        options=dumps({"code_hashes": hashes, "asking": ASKING,
                                       "batch": defn.batch,
                                       "limits": defn.limits,
                                       "suspend_after": defn.suspend_after,
                                       "teams": defn.teams,
                                       "every_seating": defn.every_seating,
                                       "draw_partners": defn.draw_partners,
                                       "rules": rules,
                                       **({"config": defn.config} if defn.config else {}),
                                       **({"kind": defn.kind} if defn.kind != "season"
                                          else {}),
                                       **({"sprt": defn.sprt} if defn.sprt else {}),
                                       **({"field": list(defn.field)} if defn.field
                                          else {}),
                                       **({"inflight": defn.inflight} if defn.inflight != 1
                                          else {}),
                                       **({"adjust": defn.adjust} if defn.adjust else {}),
                                       **({"deals": [json.loads(d) for d in defn.deals]}
                                          if defn.deals else {}),
                                       **({"score": defn.score} if defn.score else {}),
                                       **({"rated": False} if not defn.rated else {})}),
                        fixtures=fixtures, rated=defn.rated)
        session.add(row)
        try:
            session.commit()
        except IntegrityError:  # a runner on another database engine got there first
            raise ArenaError(f"a season named {defn.name!r} exists (resume it, or pick a "
                             "name)") from None
        session.refresh(row)
        return row


def keep_code(engine, files: list[tuple[str, str, bytes]]) -> None:
    """Keep ``(code hash, file name, bytes)`` of bots' files, each once."""
    with Session(engine) as session:
        for code_hash, filename, body in files:
            if session.get(KeptCodeRow, code_hash) is None:
                session.add(KeptCodeRow(code_hash=code_hash, filename=filename, body=body))
                try:
                    session.commit()
                except IntegrityError:  # another runner kept it first
                    session.rollback()


def kept_code(engine, hashes) -> dict[str, KeptCodeRow]:
    """The kept files of these code hashes (those that are kept)."""
    hashes = list(hashes)
    with Session(engine) as session:
        return {r.code_hash: r for r in session.exec(
            select(KeptCodeRow).where(KeptCodeRow.code_hash.in_(hashes)))}


def get_season(engine, name: str) -> SeasonRow:
    with Session(engine) as session:
        row = session.exec(select(SeasonRow).where(SeasonRow.name == name)).first()
    if row is None:
        raise ArenaError(f"no season named {name!r}")
    return row


def season_by_id(engine, season_id: int) -> SeasonRow | None:
    with Session(engine) as session:
        return session.get(SeasonRow, season_id)


def progress(engine, season_id: int) -> tuple[int, str] | None:
    """A season's stored matches and its status (None: no such season), in one cheap query:
    what a live page polls."""
    with engine.connect() as conn:
        row = conn.execute(
            select(SeasonRow.status, select(func.count()).select_from(MatchRow)
                   .where(MatchRow.season_id == season_id).scalar_subquery())
            .where(SeasonRow.id == season_id)).first()
    return None if row is None else (row[1], row[0])


def version(engine) -> tuple:
    """What changes whenever a match is stored or reviewed, or a season is made or changes
    status: the last match id and review id, the number of seasons and their latest update
    - a page made from the database stays right while this stays the same."""
    with engine.connect() as conn:
        last = conn.execute(select(func.max(MatchRow.id))).scalar()
        reviewed = conn.execute(select(func.max(ReviewRow.id))).scalar()
        seasons, updated = conn.execute(select(func.count(SeasonRow.id),
                                               func.max(SeasonRow.updated_at))).first()
    return last, reviewed, seasons, str(updated)


def season_names(engine) -> set[str]:
    with engine.connect() as conn:
        return set(conn.execute(select(SeasonRow.name)).scalars())


def list_seasons(engine, like: str | None = None) -> list[tuple[SeasonRow, int]]:
    """Every season in creation order (or those whose name is ``like`` a SQL ``LIKE``
    pattern: ``"ladder/%"``), each with the number of its fixtures stored, from one
    query."""
    counts = (select(MatchRow.season_id, func.count(func.distinct(MatchRow.fixture))
                     .label("stored")).group_by(MatchRow.season_id).subquery())
    query = (select(SeasonRow, func.coalesce(counts.c.stored, 0))
             .outerjoin(counts, counts.c.season_id == SeasonRow.id).order_by(SeasonRow.id))
    if like is not None:
        query = query.where(SeasonRow.name.like(like))
    with Session(engine) as session:
        return [(s, int(n)) for s, n in session.exec(query).all()]


def league_seasons(engine, game: str, variant: str, players: int) -> list[int]:
    """Ids of the seasons of one league that have stored matches and rate it."""
    with engine.connect() as conn:
        return list(conn.execute(
            select(SeasonRow.id).where(SeasonRow.game == game, SeasonRow.variant == variant,
                                       SeasonRow.players == players, SeasonRow.rated,
                                       SeasonRow.name.not_like(HUMAN_SEASONS + "%"))
            .where(SeasonRow.id.in_(select(MatchRow.season_id).distinct()))).scalars())


def stored_fixtures(engine, season_id: int) -> set[int]:
    with Session(engine) as session:
        return set(session.exec(select(MatchRow.fixture).where(MatchRow.season_id == season_id)))


def store_results(engine, season_id: int, results: list[dict]) -> None:
    """Store finished matches and their seats in one transaction (all or nothing).

    Written with multi-row INSERTs (SQLAlchemy Core) rather than ORM objects: storage runs in
    the coordinating process, beside the workers."""
    if not results:
        return
    with engine.begin() as conn:
        _insert_results(conn, season_id, results)


def _insert_results(conn, season_id: int, results: list[dict]) -> None:
    conn.execute(insert(MatchRow), [
        {"season_id": season_id, "fixture": r["fixture"], "seed": r["seed"],
         "seats": dumps(r["seats"]), "status": "done", "reason": r["result"]["reason"],
         "moves": r["result"]["moves"], "duration": r["duration"], "replay": r["replay"]}
        for r in results])
    ids = dict(conn.execute(select(MatchRow.fixture, MatchRow.id).where(
        MatchRow.season_id == season_id,
        MatchRow.fixture.in_([r["fixture"] for r in results]))).all())
    conn.execute(insert(SeatRow), [
        {"match_id": ids[r["fixture"]], "seat": seat, "bot": bot,
         "rank": r["result"]["ranks"][seat], "score": r["result"]["scores"][seat],
         **_seat_extras(r, seat)} for r in results for seat, bot in enumerate(r["seats"])])
    conn.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                 .values(updated_at=now()))


def _seat_extras(r: dict, seat: int) -> dict:
    """A seat's fault, log tail, move times and luck from a match result of
    ``play_batch``."""
    mean, top = r.get("move_s", {}).get(str(seat), (None, None))
    luck = r.get("luck")
    return {"fault": r["result"]["faults"][seat], "log": r.get("logs", {}).get(str(seat)),
            "move_mean_s": mean, "move_max_s": top,
            "luck": None if luck is None else luck[seat]}


def rewrite_results(engine, season_id: int, results: list[dict]) -> None:
    """Overwrite stored matches (same season and fixture; ids kept) with ``results``, in
    one transaction."""
    with engine.begin() as conn:
        for r in results:
            res = r["result"]
            match_id = conn.execute(select(MatchRow.id).where(
                MatchRow.season_id == season_id, MatchRow.fixture == r["fixture"])).scalar_one()
            conn.execute(MatchRow.__table__.update().where(MatchRow.id == match_id).values(
                reason=res["reason"], moves=res["moves"], duration=r["duration"],
                replay=r["replay"]))
            conn.execute(ReviewRow.__table__.delete().where(ReviewRow.match_id == match_id))
            for seat in range(len(r["seats"])):
                conn.execute(SeatRow.__table__.update().where(
                    SeatRow.match_id == match_id, SeatRow.seat == seat).values(
                    rank=res["ranks"][seat], score=res["scores"][seat],
                    **_seat_extras(r, seat)))


def end_at(engine, season_id: int, fixtures: int) -> None:
    """End a season after its first ``fixtures`` fixtures (a match its SPRT has decided):
    matches stored beyond them - played while the decision was still being reached - are
    deleted, so what is stored never depends on how many were in flight."""
    with engine.begin() as conn:
        later = select(MatchRow.id).where(MatchRow.season_id == season_id,
                                          MatchRow.fixture >= fixtures)
        conn.execute(SeatRow.__table__.delete().where(SeatRow.match_id.in_(later)))
        conn.execute(ReviewRow.__table__.delete().where(ReviewRow.match_id.in_(later)))
        conn.execute(MatchRow.__table__.delete().where(MatchRow.season_id == season_id,
                                                       MatchRow.fixture >= fixtures))
        conn.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                     .values(fixtures=fixtures, updated_at=now()))


def set_status(engine, season_id: int, status: str, options: dict | None = None) -> None:
    """Set a season's status (and, given, its options)."""
    extra = {"options": dumps(options)} if options is not None else {}
    with Session(engine) as session:
        session.execute(SeasonRow.__table__.update().where(SeasonRow.id == season_id)
                        .values(status=status, updated_at=now(), **extra))
        session.commit()


def results(engine, game: str, variant: str, players: int | None = None,
            season: str | None = None, humans: bool = False):
    """``(seats, ranks, scores, faults)`` per stored match of a league, in fixture order
    (seasons in creation order), streamed from one query. The league leaves out the
    seasons of people's matches (``HUMAN_SEASONS``) - with ``humans``, it is those alone:
    the people and the bots they met - and the unrated seasons (A/B matches); ``season``
    names any one season."""
    query = (select(SeatRow.match_id, SeatRow.bot, SeatRow.rank, SeatRow.score, SeatRow.fault)
             .join(MatchRow, SeatRow.match_id == MatchRow.id)
             .join(SeasonRow, MatchRow.season_id == SeasonRow.id)
             .where(SeasonRow.game == game, SeasonRow.variant == variant))
    if players is not None:
        query = query.where(SeasonRow.players == players)
    if season is not None:
        query = query.where(SeasonRow.name == season)
    elif humans:  # bots' matches played to be watched, and practice, are rated in no league
        query = query.where(SeasonRow.name.like(HUMAN_SEASONS + "%"),
                            SeasonRow.name.not_like(f"{HUMAN_SEASONS}%/{WATCHED}%"),
                            SeasonRow.name.not_like(f"{HUMAN_SEASONS}%/{PRACTICE}%"))
    else:  # a person's matches are not mixed into a bot league unless asked, nor A/B tests
        query = query.where(SeasonRow.name.not_like(HUMAN_SEASONS + "%"), SeasonRow.rated)
    query = query.order_by(SeasonRow.id, MatchRow.fixture, SeatRow.seat)
    with engine.connect() as conn:
        rows = conn.execution_options(yield_per=2000).execute(query)
        for _, seats in groupby(rows, key=itemgetter(0)):
            seats = list(seats)
            yield ([s.bot for s in seats], [s.rank for s in seats], [s.score for s in seats],
                   [s.fault for s in seats])


def matches_played(engine) -> dict[str, int]:
    """Per bot (as seasons name it): the stored matches it played a seat of."""
    with engine.connect() as conn:
        rows = conn.execute(select(SeatRow.bot, func.count(func.distinct(SeatRow.match_id)))
                            .group_by(SeatRow.bot)).all()
    return dict(rows)


def move_times(engine, season_id: int) -> dict[str, tuple[float, float, int]]:
    """Per bot of a season: ``(mean, max, matches)`` of its wall seconds per move asked -
    the mean of its matches' means, the longest single move - over the matches that
    recorded them."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(SeatRow.bot, func.avg(SeatRow.move_mean_s), func.max(SeatRow.move_max_s),
                   func.count(SeatRow.move_mean_s))
            .join(MatchRow, SeatRow.match_id == MatchRow.id)
            .where(MatchRow.season_id == season_id, SeatRow.move_mean_s.is_not(None))
            .group_by(SeatRow.bot)).all()
    return {bot: (mean, top, n) for bot, mean, top, n in rows}


def season_results(engine, season_id: int, page: int = 2000, luck: bool = False):
    """``(fixture, seed, seats, ranks, scores, faults)`` per match of one season stored when this is
    called, in fixture order, read a page of fixtures at a time (no transaction stays open
    between pages, so a season can be stored into while this is read). With ``luck``, each
    also ends with the seats' luck (``arena.luck``: a list, or None where not computed)."""
    with engine.connect() as conn:
        top = conn.execute(select(func.max(MatchRow.fixture))
                           .where(MatchRow.season_id == season_id)).scalar()
    for low in range(0, -1 if top is None else top + 1, page):
        with engine.connect() as conn:
            rows = conn.execute(
                select(MatchRow.fixture, MatchRow.seed, SeatRow.bot, SeatRow.rank,
                       SeatRow.score, SeatRow.fault, SeatRow.luck)
                .join(SeatRow, SeatRow.match_id == MatchRow.id)
                .where(MatchRow.season_id == season_id, MatchRow.fixture >= low,
                       MatchRow.fixture < low + page)
                .order_by(MatchRow.fixture, SeatRow.seat)).all()
        for fixture, seats in groupby(rows, key=itemgetter(0)):
            seats = list(seats)
            row = (fixture, seats[0].seed, [s.bot for s in seats], [s.rank for s in seats],
                   [s.score for s in seats], [s.fault for s in seats])
            if luck:
                lucks = [s.luck for s in seats]
                row += (None if None in lucks else lucks,)
            yield row


def _ratings_of(league: str, season_id: int | None) -> tuple:
    """The rows of one league's ratings (``season_id`` None) or of one season's."""
    return (RatingRow.league == league,
            RatingRow.season_id == season_id if season_id is not None
            else RatingRow.season_id.is_(None))


def write_ratings(engine, league: str, season_id: int | None, standings) -> None:
    with Session(engine) as session:
        session.execute(RatingRow.__table__.delete().where(*_ratings_of(league, season_id)))
        for s in standings:
            session.add(RatingRow(league=league, season_id=season_id, bot=s.bot, mu=s.mu,
                                  sigma=s.sigma, games=s.games, wins=s.wins, draws=s.draws,
                                  losses=s.losses, faults=s.faults,
                                  suspended=s.suspended))
        session.commit()


def stored_ratings(engine, league: str, season_id: int | None) -> list[dict]:
    """The ratings written for a league (``season_id`` None) or one season, best first."""
    with engine.connect() as conn:
        rows = conn.execute(select(RatingRow).where(*_ratings_of(league, season_id))
                            .order_by(RatingRow.id)).mappings().all()
    return [{k: v for k, v in r.items() if k != "id"} for r in rows]


def season_matches(engine, season_id: int, page: int = 500):
    """``(match, [seat...])`` per stored match of a season, in fixture order, a page at a
    time: rows with the fields of ``MatchRow`` and ``SeatRow``, read only."""
    low = -1
    match_columns, seat_columns = MatchRow.__table__.columns, SeatRow.__table__.columns
    while True:
        with engine.connect() as conn:  # rows read as tuples with named fields: no ORM objects
            matches = list(conn.execute(
                select(*match_columns).where(MatchRow.season_id == season_id,
                                             MatchRow.fixture > low)
                .order_by(MatchRow.fixture).limit(page)))
            if not matches:
                return
            seats = conn.execute(select(*seat_columns).where(
                SeatRow.match_id.in_([m.id for m in matches]))
                .order_by(SeatRow.match_id, SeatRow.seat)).all()
        by_match = {k: list(g) for k, g in groupby(seats, key=lambda s: s.match_id)}
        for match in matches:
            yield match, by_match.get(match.id, [])
        low = matches[-1].fixture


def bot_versions(engine, game: str, code_hashes: dict[str, str]) -> dict[str, dict]:
    """``{name: {version, source, code_hash}}`` of the bot versions a season recorded."""
    with Session(engine) as session:
        out = {}
        for name, digest in sorted(code_hashes.items()):
            bot = session.exec(select(BotRow).where(BotRow.name == name, BotRow.game == game,
                                                    BotRow.code_hash == digest)).first()
            if bot is not None:
                out[name] = {"version": bot.version, "source": bot.source,
                             "code_hash": bot.code_hash}
        return out


def bot_matches(engine, season_id: int, bot: str) -> list[tuple[int, int]]:
    """``(match id, seat)`` of every played match of ``bot`` in a season, by fixture."""
    with Session(engine) as session:
        return [tuple(r) for r in session.exec(
            select(MatchRow.id, SeatRow.seat).join(SeatRow, SeatRow.match_id == MatchRow.id)
            .where(MatchRow.season_id == season_id, SeatRow.bot == bot,
                   MatchRow.reason != "suspended")
            .order_by(MatchRow.fixture, SeatRow.seat))]


def stored_reviews(engine, match_id: int, reviewer: str) -> dict[tuple[int, int], dict]:
    """The decisions of a match ``reviewer`` has valued so far: ``{(seat, step): data}``."""
    with Session(engine) as session:
        return {(seat, step): json.loads(data) for seat, step, data in session.exec(
            select(ReviewRow.seat, ReviewRow.step, ReviewRow.data).where(
                ReviewRow.match_id == match_id, ReviewRow.reviewer == reviewer))}


def match_reviews(engine, match_id: int) -> dict[str, list[tuple[int, int, dict]]]:
    """Every stored review of a match: ``{reviewer: [(seat, step, data), ...]}``."""
    out: dict[str, list] = {}
    with Session(engine) as session:
        for reviewer, seat, step, data in session.exec(
                select(ReviewRow.reviewer, ReviewRow.seat, ReviewRow.step, ReviewRow.data)
                .where(ReviewRow.match_id == match_id).order_by(ReviewRow.step)):
            out.setdefault(reviewer, []).append((seat, step, json.loads(data)))
    return out


def store_reviews(engine, match_id: int, reviewer: str, rows: list[tuple[int, int, dict]]) -> None:
    """Store reviewed decisions ``(seat, step, data)`` in one transaction; a decision
    another runner stored first (the same review, run twice at once) is kept as it is."""
    values = [{"match_id": match_id, "reviewer": reviewer, "seat": seat, "step": step,
               "data": dumps(data)} for seat, step, data in rows]
    if not values:
        return
    try:
        with engine.begin() as conn:
            conn.execute(insert(ReviewRow), values)
    except IntegrityError:
        done = stored_reviews(engine, match_id, reviewer)
        with engine.begin() as conn:
            rest = [v for v in values if (v["seat"], v["step"]) not in done]
            if rest:
                conn.execute(insert(ReviewRow), rest)


def get_match(engine, match_id: int) -> tuple[MatchRow, SeasonRow, list[SeatRow]]:
    with Session(engine) as session:
        match = session.get(MatchRow, match_id)
        if match is None:
            raise ArenaError(f"no match with id {match_id}")
        season = session.get(SeasonRow, match.season_id)
        seats = list(session.exec(select(SeatRow).where(SeatRow.match_id == match_id)
                                  .order_by(SeatRow.seat)))
        return match, season, seats
