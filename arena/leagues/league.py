"""League seasons end to end: define, run, resume, rate. The CLI and the demo call these.

Bots are recorded with their version, source and a SHA-256 of their code (taken by the
sandboxed worker that lists them); resuming a season whose bots' code has changed is refused,
since the results would mix two versions. So is resuming one begun under another way of
asking bots (``referee.ASKING``), or one made before seasons had secrets (its stored results
stay readable).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import threading
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from .. import db
from ..errors import ArenaError
from ..plugins import Registry, parse_entrant
from ..referee import ASKING
from . import match, scheduler
from .ratings import Rater, Standing, rate
from .scheduler import Fixture, SeasonDef, fixture_count, run, suspended_result, validate


def league_key(game: str, variant: str, players: int) -> str:
    return f"{game}/{variant}/{players}"


def definition(row: db.SeasonRow) -> SeasonDef:
    return SeasonDef.stored(row.name, row.game, row.variant, row.players, json.loads(row.bots),
                            row.rounds, row.seed, json.loads(row.options), row.secret)


def match_deal(row: db.SeasonRow, fixture: int) -> dict | None:
    """The explicit deal a stored match played (from its season's deal book), or None: its
    seed dealt it."""
    if '"deals"' not in row.options:
        return None
    return definition(row).deal_of(fixture)


def bot_row(registry: Registry, name: str, game: str) -> db.BotRow:
    """How a season records a bot: its version, source and code hash."""
    entry = registry.bot(name, game)
    version = entry.source.split()[-1] if " " in entry.source else "file"
    return db.BotRow(name=name, game=game, version=version, source=entry.source,
                     code_hash=entry.code_hash)


KEEP_MAX = 4 << 20  # the largest bot file a season keeps


def create(engine, registry: Registry, defn: SeasonDef) -> db.SeasonRow:
    validate(defn, registry)
    bots = [bot_row(registry, name, defn.game) for name in defn.bots]
    row = db.create_season(engine, defn, bots, fixture_count(defn),
                           registry.game(defn.game).rules_version)
    db.keep_code(engine, _files_to_keep(registry, defn))
    return row


def _files_to_keep(registry: Registry, defn: SeasonDef) -> list[tuple[str, str, bytes]]:
    """The code of the season's bots from a bots folder, as ``keep_code`` keeps it: a
    single-file bot's file; an executable bot's manifest and own files (its program where
    that is its own) as one tar archive, ``NAME.toml.tar``, of their paths from the
    folder. Not kept: code above ``KEEP_MAX``, and an executable that reads a folder of
    its own (whose files its code hash does not cover)."""
    out = []
    for name in defn.bots:
        entry = registry.bot(name, defn.game)
        kind = entry.spec.get("kind")
        try:
            if kind == "file":
                path = Path(entry.spec["target"])
                if path.stat().st_size <= KEEP_MAX:
                    out.append((entry, path.name, [(path.name, path.read_bytes(), 0o644)]))
            elif kind == "exec" and entry.spec.get("code_files"):
                kept = _exec_files(entry.spec)
                if kept:
                    out.append((entry, Path(entry.spec["code_files"][0]).name + ".tar", kept))
        except OSError:
            continue
    keep = []
    for entry, filename, files in out:
        if hashlib.sha256(b"".join(body for _, body, _ in files)).hexdigest() != \
                entry.code_hash:
            continue  # changed while being read
        body = files[0][1] if filename.endswith(".py") else _tar(files)
        keep.append((entry.code_hash, filename, body))
    return keep


def _exec_files(spec: dict) -> list[tuple[str, bytes, int]] | None:
    """An executable bot's code files as ``(path from its folder, bytes, mode)``, in code
    hash order; None where it cannot be kept whole."""
    files = spec["code_files"]
    folder = Path(files[0]).parent.resolve()
    if any(os.path.isdir(p) for p in spec.get("read", ())) or \
            sum(os.path.getsize(f) for f in files) > KEEP_MAX:
        return None
    out = []
    for i, f in enumerate(files):
        real = Path(f).resolve()
        relative = Path(f).name if i == 0 else real.relative_to(folder).as_posix()
        out.append((relative, real.read_bytes(), real.stat().st_mode & 0o755))
    return out


def _tar(files: list[tuple[str, bytes, int]]) -> bytes:
    """The files as an uncompressed tar archive, the same bytes for the same files."""
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for relative, body, mode in files:
            info = tarfile.TarInfo(relative)
            info.size, info.mode = len(body), mode
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def _untar(body: bytes) -> list[tuple[str, bytes, int]]:
    """``_tar``'s files again, refused where an entry is not a plain file under its folder."""
    import io
    import tarfile

    out = []
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:") as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if not member.isfile() or name.is_absolute() or ".." in name.parts:
                raise ArenaError(f"a kept bot archive holds {member.name!r}: not written")
            out.append((member.name, tar.extractfile(member).read(), member.mode & 0o755))
    return out


def export_bots(engine, registry: Registry, row: db.SeasonRow, folder: Path) -> list[Path]:
    """Write the kept code of season ``row``'s bots into ``folder`` (made if missing): a
    bots folder that plays the season as it began (an executable's archive unpacked, its
    files where they were beside its manifest). ArenaError if none is kept, or where a
    different file of that name is there already."""
    hashes = json.loads(row.options).get("code_hashes", {})
    kept = db.kept_code(engine, hashes.values())
    if not kept:
        raise ArenaError(f"season {row.name!r} keeps no bot code (a bots folder's bots are "
                         "kept, and not by seasons begun before they were)")
    files = []
    for code in kept.values():
        if code.filename.endswith(".tar"):
            files += [(folder / name, body, mode) for name, body, mode in _untar(code.body)]
        else:
            files.append((folder / code.filename, code.body, 0o644))
    for path, body, _ in files:
        if path.exists() and path.read_bytes() != body:
            raise ArenaError(f"{path} exists and is another file: give an empty folder")
    written = []
    for path, body, mode in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
        path.chmod(mode | 0o600)
        written.append(path)
    return written


def _noun(row: db.SeasonRow) -> str:
    """What a season row is to its user: a match (an A/B test) or a season."""
    return "match" if json.loads(row.options).get("kind") == "match" else "season"


def _changed(engine, registry: Registry, row: db.SeasonRow, name: str, recorded: str) -> str:
    """What to say of bot ``name`` of season ``row``, whose code is no longer ``recorded``:
    which file changed, and how to finish the season with the code it began with."""
    entry = registry.bot(name, row.game)
    where = entry.spec["target"] if entry.spec.get("kind") == "file" else entry.source
    say = (f"bot {name!r} has changed since {_noun(row)} {row.name!r} started: {where} is not the "
           f"code it began with (sha256 {recorded[:12]}, now {entry.code_hash[:12]})")
    kept = db.kept_code(engine, [recorded])
    if row.status == "done":
        return (f"{say}; its results are that code's, not this code's: a new name plays this "
                "code afresh" + (f" ('arena season export-bots {row.name} DIR' writes the code "
                                 "it was played with)" if kept else ""))
    if kept:
        return (f"{say}; that code is kept: 'arena season export-bots {row.name} DIR' writes "
                f"it, and 'arena --bots-dir DIR season resume {row.name}' finishes the season "
                "with it (a new season plays the new code)")
    return f"{say}; restore that file to resume the season, or start a new one"


class DaskExecutor:
    """A Dask distributed cluster as a ``concurrent.futures`` executor:
    ``Client.get_executor(pure=False)`` (the default ``pure=True`` would merge identical
    submissions). Results still come back to, and are written by, this process only."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise ArenaError("--executor dask needs Dask: pip install 'card-arena[dask]'") from None
        try:
            _probe(address)
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise ArenaError(f"cannot reach the Dask scheduler at {address}: "
                             f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                             ) from None
        self.executor = self.client.get_executor(pure=False)
        self._max_workers = max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args, **kwargs):
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.executor.shutdown(wait=wait and not cancel_futures)
        self.client.close()


def _probe(address: str) -> None:
    """OSError at once where nothing listens at a ``tcp://HOST:PORT`` scheduler address
    (Dask's client would retry a refused connection until its 10 s timeout); other
    addresses are left to Dask."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if parts.scheme == "tcp" and parts.hostname and parts.port:
        socket.create_connection((parts.hostname, parts.port), timeout=10).close()


def make_executor(kind: str, workers: int | None = None, scheduler: str | None = None):
    """``local`` (a pinned process pool) or ``dask`` (the cluster at ``scheduler``)."""
    if kind == "dask":
        if not scheduler:
            raise ArenaError("--executor dask needs --scheduler tcp://HOST:PORT")
        return DaskExecutor(scheduler)
    return default_executor(workers)


def default_executor(workers: int | None) -> Executor:
    """A local process pool whose workers are pinned one to a CPU, round robin: a worker
    and the bot processes it starts (which inherit the pin) then hand each move to each
    other on one core, which costs a context switch instead of waking another CPU."""
    from ..sandbox import view

    cpus = sorted(os.sched_getaffinity(0))
    counter = multiprocessing.Value("i", 0)
    # what every jail sees, made resident here once: the workers, forked from this process,
    # know it is (``view.warm``: for ``FRESH`` seconds), and read in only their bots' files
    view.warm(*view.system_paths())
    return ProcessPoolExecutor(max_workers=workers or len(cpus), initializer=_pin,
                               initargs=(counter, cpus),
                               mp_context=multiprocessing.get_context("fork"))


def _pin(counter, cpus: list[int]) -> None:
    """Pin this worker to its CPU, and have it die with the process that started it (a
    coordinator killed with SIGKILL would otherwise leave its workers waiting forever)."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    os.sched_setaffinity(0, {cpus[index % len(cpus)]})


class SeasonRater:
    """A season's ratings kept in fixture order while its matches finish in any order.

    Finished results wait in a buffer until every earlier fixture is rated; fixtures stored
    before this run (``done``) are read back from the database, in order, as their turn
    comes. So the live table of a run is the season's true table so far, and at the end
    ``standings`` equal a replay of the stored season - without replaying it.

    Suspension is decided here too, in fixture order: a bot whose matches fault
    ``suspend_after`` times in a row forfeits every later match of the season. A later match
    that was played anyway (it ran before the suspension was known) is rewritten in storage
    as the forfeit it is, so storage and ratings never depend on timing."""

    def __init__(self, engine, row: db.SeasonRow, done: set[int], draw_probability: float,
                 suspend_after: int = 0, teams: int = 0, tally=None):
        self.engine, self.season_id = engine, row.id
        self.rater = Rater(draw_probability, teams)
        self.done, self.total, self.next = done, row.fixtures, 0
        self.stored = (db.season_results(engine, row.id, luck=True) if done else iter(()))
        self.waiting: dict[int, tuple] = {}
        self.suspend_after = suspend_after
        self.streak: dict[str, int] = {}
        self.suspended: set[str] = set()
        self.tally = tally  # a match's (arena.leagues.match.Tally): ends it at the deciding pair
        self.advance()

    def add(self, results: list[dict]) -> None:
        for r in results:
            res = r["result"]
            self.waiting[r["fixture"]] = (r["seed"], r["seats"], res["ranks"], res["scores"],
                                          res["faults"], r.get("luck"))
        self.advance()

    def advance(self) -> None:
        rewrites = []
        while self.next < self.total:
            if self.next in self.done:
                fixture, *result = next(self.stored)
                while fixture != self.next:  # stored during this run: rated from `waiting`
                    fixture, *result = next(self.stored)
            elif self.next in self.waiting:
                result = self.waiting.pop(self.next)
            else:
                break
            seed, seats, ranks, scores, faults, luck = result
            out = self.suspended & set(seats)
            if out:
                forfeit = suspended_result(Fixture(self.next, 0, tuple(seats), seed), out)
                if forfeit["result"]["faults"] != list(faults):
                    rewrites.append(forfeit)
                ranks, scores, faults = (forfeit["result"][k] for k in ("ranks", "scores",
                                                                        "faults"))
                luck = forfeit["luck"]
            self.rater.add(seats, ranks, scores, faults)
            self._count_faults(seats, faults)
            self.next += 1
            if self.tally is not None and self.tally.add(seats, ranks, luck, scores):
                self.total = self.next  # a match decided: nothing later counts
        if rewrites:
            db.rewrite_results(self.engine, self.season_id, rewrites)

    def _count_faults(self, seats, faults) -> None:
        for bot, fault in zip(seats, faults, strict=True):
            if fault == "suspended":
                continue
            self.streak[bot] = self.streak.get(bot, 0) + 1 if fault else 0
            if self.suspend_after and self.streak[bot] >= self.suspend_after:
                self.suspended.add(bot)

    @property
    def complete(self) -> bool:
        return self.next == self.total

    def standings(self) -> list[Standing]:
        return self.rater.standings()


def playable(registry: Registry, row: db.SeasonRow, engine=None) -> SeasonDef:
    """The definition of season ``row``; ArenaError if it cannot be played on here: a bot
    is missing or has changed since the season began, or the season began under another
    way of asking bots or before seasons had secrets. Asked of a finished season, whether
    its results are still those of the bots and rules here: a changed bot is refused with
    a line that says so (its results are not this code's), never reported as current."""
    defn = definition(row)
    if defn.kind == "human":
        raise ArenaError(f"season {row.name!r} is a person's match ('arena play' with a human "
                         "seat): it is not resumed; play a new one")
    validate(defn, registry)
    options = json.loads(row.options)
    for name in defn.bots:
        if options.get("code_hashes", {}).get(name) not in (
                None, registry.bot(name, defn.game).code_hash):
            recorded = options["code_hashes"][name]
            raise ArenaError(_changed(engine, registry, row, name, recorded) if engine
                             is not None else f"bot {name!r} has changed since season "
                             f"{row.name!r} started")
    if row.secret is None:
        raise ArenaError(f"season {row.name!r} was made before seasons had secrets (a bot "
                         "could compute its deals); finishing it now would mix two seedings "
                         "(start a new season)")
    game = registry.game(defn.game)
    if options.get("rules", 1) != game.rules_version:
        raise ArenaError(f"{_noun(row)} {row.name!r} began under older {game.title} legal actions "
                         f"(rules version {options.get('rules', 1)}, now "
                         f"{game.rules_version}); " + (
                             "its results are those rules', not these: a new name plays it "
                             "afresh" if row.status == "done" else
                             "finishing it now would mix two rules (start a new season)"))
    if options.get("asking", 1) != ASKING:
        raise ArenaError(f"season {row.name!r} began under a referee that asked bots every "
                         "move; finishing it now would mix two rules (start a new season)")
    return defn


def play(engine, registry: Registry, row: db.SeasonRow, executor: Executor | None = None,
         workers: int | None = None, on_batch=None, own_executor: bool = False) -> int:
    """Play the fixtures of season ``row`` not yet stored; rate it when complete.
    ``on_batch(results, rater)`` is called after each stored batch (for progress views)."""
    defn = playable(registry, row, engine)
    done = db.stored_fixtures(engine, row.id)
    if row.status != "running":  # resumed after Ctrl-C
        db.set_status(engine, row.id, "running")
    game = registry.game(row.game)
    tally = match.tally_for(defn) if defn.kind == "match" else None
    rater = SeasonRater(engine, row, done, game.draw_probability, defn.suspend_after,
                        game.teams, tally)

    def store(results):
        with interrupts_deferred():  # a batch is stored whole, or not at all
            try:
                db.store_results(engine, row.id, results)
            except SQLAlchemyError as e:  # a full disk, a database gone: nothing half-stored
                why = "its disk is full" if db.disk_full(e) else db.first_line(e)
                raise ArenaError(f"database: {why}; what was stored stays, and 'arena "
                                 f"season resume {row.name}' goes on once that is fixed"
                                 ) from None
            rater.add(results)
        if on_batch:
            on_batch(results, rater)

    own = executor is None or own_executor
    executor = executor or default_executor(workers)
    bots_dirs, submitted = tuple(map(str, registry.bots_dirs)), submitted_entries(registry, defn)
    scheduler.prime(registry, bots_dirs, submitted)  # a forked worker lists nothing again
    try:
        played = run(defn, done, executor, store, bots_dirs=bots_dirs,
                     suspended=lambda: set(rater.suspended), stop=lambda: rater.complete,
                     submitted=submitted,
                     hashes=tuple(json.loads(row.options).get("code_hashes", {}).items()))
    finally:
        if own:
            executor.shutdown(cancel_futures=True)
    if rater.complete:
        if rater.total < row.fixtures:
            db.end_at(engine, row.id, rater.total)
        finish(engine, registry, row, rater.standings(),
               None if tally is None else match.verdict(tally))
    return played


def submitted_entries(registry: Registry, defn: SeasonDef) -> tuple:
    """The registry entries of a season's submitted bots (``NAME@VERSION``), for workers,
    whose registries know installed bots and bots folders only."""
    names = (parse_entrant(name)[0] for name in defn.bots)
    return tuple(registry.bot(name, defn.game) for name in names if "@" in name)


@contextmanager
def interrupts_deferred():
    """Hold Ctrl-C (SIGINT) back until the block ends, then raise it: a write interrupted
    half-way would leave its connection holding the database's lock until the process
    exits. Only the main thread can handle signals; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda *_: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def finish(engine, registry: Registry, row: db.SeasonRow, season: list[Standing],
           verdict: dict | None = None) -> None:
    """Store the ratings of a complete season and of its whole league (an unrated one's -
    an A/B match's - its own alone), and mark it done; a match's ``verdict`` is kept in
    its options (``match.verdict``)."""
    key = league_key(row.game, row.variant, row.players)
    db.write_ratings(engine, key, row.id, season)
    options = None
    if verdict is not None:
        options = json.loads(db.season_by_id(engine, row.id).options)
        options["verdict"] = verdict
    if not row.rated:
        db.set_status(engine, row.id, "done", options)
        return
    with db.exclusive(engine, f"arena:league:{key}"):  # the last to finish rates everything
        others = [s for s in db.league_seasons(engine, row.game, row.variant, row.players)
                  if s != row.id]
        db.write_ratings(engine, key, None, standings(
            engine, registry, row.game, row.variant, row.players, None) if others else season)
    db.set_status(engine, row.id, "done", options)


def standings(engine, registry: Registry, game: str, variant: str, players: int | None,
              season: str | None, humans: bool = False) -> list[Standing]:
    """Ratings of a league (or one season of it), replayed in fixture order; with
    ``humans``, of the people's matches of the league instead (``arena.leagues.humans``)."""
    from .store import mark

    g = registry.game(game)
    return mark(engine, rate(db.results(engine, game, variant, players, season, humans),
                             g.draw_probability, g.teams))
