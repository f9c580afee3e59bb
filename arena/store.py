"""The bot store: every submitted version of a bot in a folder of its own, outside the
runner's Python environment, and a row per version in the database.

``arena submit PATH`` takes a single-file bot (``.py``), a folder (its top-level ``*.py``
bots and ``*.toml`` executable manifests, as a bots folder, with its modules and data
files beside them) or a wheel (``.whl``). Nothing of it is imported, built or installed by
the runner:

1. **staged**: copied (a wheel unzipped: its ``arena.bots`` entry point, or else its
   top-level modules, are the sources; its other entry points, scripts and data are
   ignored) into ``STORE/.staging/``; an sdist or a package source that needs a build is
   refused - submit a wheel;
2. **listed** by a sandboxed worker, as installed bots are: a submission registers one bot;
3. **checked** by ``check-bot`` in the sandbox, game by game, from the staged copy; a name
   that belongs to an installed (reference) bot or to another author is refused;
4. **kept** only then: moved to ``STORE/NAME/CONTENT/`` (``CONTENT``, a hash of its files)
   and numbered - version 1, 2, ... per name; the same content submitted again is the same
   version. A refused submission leaves nothing behind.

The worker runs a version from its folder, which is on its import path and readable, and
nothing else of the store is. The store is ``bots/`` beside a SQLite database by default
(``results/bots/`` for the default one), or ``--store DIR`` / ``$ARENA_STORE``: a folder
shared by every runner of a PostgreSQL league, mounted at the same place or not (the
database holds paths relative to it).
"""

from __future__ import annotations

import configparser
import getpass
import hashlib
import json
import os
import shutil
import uuid
import zipfile
from pathlib import Path

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from . import db
from .errors import ArenaError, PluginError
from .plugins import BOT_NAME, BotEntry, Registry, _manifest

STAGING = ".staging"
IGNORED = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "build", "dist"}
BUILD_FILES = ("setup.py", "pyproject.toml", "setup.cfg")
SDISTS = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip", ".egg")


def store_folder(db_url: str, given: str | None = None) -> Path:
    """Where submitted bots are kept: ``given`` (``--store``/``$ARENA_STORE``), else the
    folder ``bots`` beside a SQLite file. ArenaError for any other database without one."""
    given = given or os.environ.get("ARENA_STORE")
    if given:
        return Path(given)
    path = db.sqlite_file(db_url)
    if path is not None:
        return Path(path).parent / "bots"
    raise ArenaError("a league on this database keeps its submitted bots in a folder every "
                     "runner can read: give it with --store DIR or ARENA_STORE")


# -- staging ----------------------------------------------------------------------------------


def content_hash(folder: Path) -> str:
    """SHA-256 of a staged submission: every file's relative path and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _copy_tree(src: Path, dst: Path) -> None:
    for path in sorted(src.iterdir()):
        if path.name in IGNORED or path.name.startswith(".") or path.suffix == ".pyc":
            continue
        if path.is_dir():
            (dst / path.name).mkdir()
            _copy_tree(path, dst / path.name)
        elif path.is_file():
            shutil.copyfile(path, dst / path.name)


def stage(source: Path, folder: Path) -> list[tuple[str, dict]]:
    """Copy a submission into the empty ``folder``; its bot sources ``(label, spec)``, the
    targets relative to ``folder``. ArenaError for anything that is not a bot file, a
    folder or a wheel."""
    if not source.exists():
        raise ArenaError(f"cannot submit {source}: no such file or folder")
    name = source.name
    if source.is_dir():
        if any((source / f).exists() for f in BUILD_FILES):
            raise ArenaError(f"cannot submit {source}: it is a package source, which needs a "
                             "build; build a wheel (pip wheel --no-deps .) and submit that")
        _copy_tree(source, folder)
        sources = [(p.name, {"kind": "file" if p.suffix == ".py" else "manifest",
                             "target": p.name})
                   for p in sorted(folder.iterdir())
                   if p.is_file() and p.suffix in (".py", ".toml") and not p.name.startswith("_")]
    elif name.endswith(".whl"):
        sources = _unpack_wheel(source, folder)
    elif name.endswith(SDISTS):
        raise ArenaError(f"cannot submit {source}: a source archive needs a build; build a "
                         "wheel (pip wheel --no-deps) and submit that")
    elif source.suffix in (".py", ".toml"):
        shutil.copyfile(source, folder / name)
        sources = [(name, {"kind": "file" if source.suffix == ".py" else "manifest",
                           "target": name})]
    else:
        raise ArenaError(f"cannot submit {source}: submit a bot file (.py), a folder or a "
                         "wheel (.whl)")
    if not sources:
        raise ArenaError(f"cannot submit {source}: it holds no bot (a .py file with a "
                         "register_bots hook, or a NAME.toml executable bot)")
    return sources


def _unpack_wheel(wheel: Path, folder: Path) -> list[tuple[str, dict]]:
    """Unzip a wheel without installing it: its modules (``*.data/purelib`` and
    ``platlib`` too) go into ``folder``; scripts, headers, data and every entry point but
    ``arena.bots`` are left out. The sources are its ``arena.bots`` entry points, or else
    its top-level modules."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (zipfile.BadZipFile, OSError) as e:
        raise ArenaError(f"cannot submit {wheel}: not a wheel ({e})") from None
    with archive:
        infos = archive.infolist()
        tops = {i.filename.split("/")[0] for i in infos}
        dist_info = sorted(t for t in tops if t.endswith(".dist-info"))
        if not dist_info:
            raise ArenaError(f"cannot submit {wheel}: not a wheel (no .dist-info folder)")
        for info in infos:
            parts = info.filename.split("/")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue  # scripts, headers and data files are not installed
                parts = parts[2:]
            if info.is_dir() or not parts[-1]:
                continue
            if any(p in ("", "..") for p in parts) or info.filename.startswith("/"):
                raise ArenaError(f"cannot submit {wheel}: it names a file outside itself "
                                 f"({info.filename})")
            target = folder.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    points = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    points.optionxform = str
    entry_file = folder / dist_info[0] / "entry_points.txt"
    if entry_file.exists():
        points.read(entry_file)
    if points.has_section("arena.bots"):
        return [(f"{wheel.name} entry point {key}", {"kind": "module",
                                                     "target": value.strip()})
                for key, value in points.items("arena.bots")]
    modules = sorted(p.stem for p in folder.glob("*.py")) + sorted(
        p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    return [(f"{wheel.name} module {m}", {"kind": "module", "target": m}) for m in modules]


def _absolute(spec: dict, folder: Path) -> dict:
    """A stored source's spec with its paths made absolute under ``folder``."""
    if spec["kind"] == "manifest":
        name, games, run, digest, options = _manifest(folder / spec["target"])
        return {**run, "read": [str(folder)]}
    target = spec["target"] if spec["kind"] == "module" else str(folder / spec["target"])
    return {"kind": spec["kind"], "target": target, "path": str(folder)}


def _listing(sources: list[tuple[str, dict]], folder: Path) -> list[tuple]:
    """What the staged sources register, asked of a sandboxed worker: ``(name, games,
    spec, code hash, options)``, with ``spec`` relative to ``folder``."""
    from .sandbox import list_sources

    python = [(label, spec) for label, spec in sources if spec["kind"] != "manifest"]
    answers = iter(list_sources([_absolute(spec, folder) for _, spec in python])
                   if python else [])
    found, errors = [], []
    for label, spec in sources:
        try:
            if spec["kind"] == "manifest":
                name, games, _, digest, options = _manifest(folder / spec["target"])
                found.append((name, list(games), spec, digest, options))
            else:
                answer = next(answers)
                for name, games, _, digest, options in Registry._registered(
                        label, spec, answer):
                    found.append((name, list(games), spec, digest, options))
        except PluginError as e:
            errors.append(str(e))
    if not found:
        raise ArenaError("refused: no bot is registered by it" + (
            f" ({errors[0]})" if errors else ""))
    return found


# -- the submissions table --------------------------------------------------------------------


def versions(engine, name: str | None = None) -> list[db.SubmissionRow]:
    """Every stored version (of ``name``), in submission order."""
    with Session(engine) as session:
        query = select(db.SubmissionRow).order_by(db.SubmissionRow.id)
        if name is not None:
            query = query.where(db.SubmissionRow.name == name)
        return list(session.exec(query))


def entries(engine, store: Path) -> list[BotEntry]:
    """The registry entries of every stored version: ``NAME@VERSION`` per game it plays."""
    out = []
    for row in versions(engine):
        folder = store / row.path
        spec = _absolute({"kind": row.kind, "target": row.target}, folder) \
            if row.kind != "manifest" or (folder / row.target).exists() else None
        if spec is None:
            continue
        hashes = json.loads(row.code_hashes)
        for game in json.loads(row.games):
            out.append(BotEntry(f"{row.name}@{row.version}", game,
                                f"submitted {row.submitted_at:%Y-%m-%d} by {row.author}",
                                {**spec, "name": row.name, "game": game},
                                hashes.get(game, row.content),
                                json.loads(row.options) if row.options else None))
    return out


def withdraw(engine, name: str) -> int:
    """Take every version of ``name`` off the ladder (its results stay); how many."""
    with Session(engine) as session:
        rows = list(session.exec(select(db.SubmissionRow).where(db.SubmissionRow.name == name)))
        if not rows:
            raise ArenaError(f"no submitted bot named {name!r}")
        for row in rows:
            row.withdrawn = True
            session.add(row)
        session.commit()
        return len(rows)


# -- submit -----------------------------------------------------------------------------------


def submit(engine, registry: Registry, store: Path, source, author: str | None = None,
           matches: int = 3, say=lambda line: None) -> tuple[db.SubmissionRow, bool]:
    """Stage, list, check and keep a submission; ``(its row, whether it is new)``.
    ArenaError, with nothing kept, when it is refused."""
    from .conformance import check_bot

    author = author or getpass.getuser()
    staging = store / STAGING / uuid.uuid4().hex
    try:
        staging.mkdir(parents=True)
    except OSError as e:
        raise ArenaError(f"cannot write the bot store {store}: {e.strerror}") from None
    try:
        sources = stage(Path(source), staging)
        content = content_hash(staging)
        found = _listing(sources, staging)
        names = sorted({f[0] for f in found})
        if len(names) > 1:
            raise ArenaError(f"refused: it registers {len(names)} bots ({', '.join(names)}); "
                             "a submission is one bot")
        name = names[0]
        if not BOT_NAME.match(name) or "@" in name:
            raise ArenaError(f"refused: bad bot name {name!r}")
        registry.bots()
        if name in registry.bots() and name not in registry.latest:
            raise ArenaError(f"refused: the name {name!r} belongs to an installed bot "
                             f"({next(iter(registry.bots()[name].values())).source})")
        earlier = versions(engine, name)
        if earlier and earlier[0].author != author:
            raise ArenaError(f"refused: the name {name!r} is taken by {earlier[0].author}")
        same = next((r for r in earlier if r.content == content), None)
        if same is not None:
            shutil.rmtree(staging, ignore_errors=True)
            return same, False
        if len(found) > 1:
            raise ArenaError(f"refused: {name!r} is registered by {len(found)} of its files; "
                             "a submission is one bot, registered once")
        _, games, spec, _, options = found[0]
        games = sorted(games)
        unknown = [g for g in games if g not in registry.games()]
        if unknown:
            raise ArenaError(f"refused: it plays {', '.join(unknown)}, which is not installed")
        hashes = {g: found[0][3] for g in games}
        checked = _check(registry, name, games, spec, staging, hashes, options, matches, say,
                         check_bot)
        return _keep(engine, store, staging, name, author, content, games, spec, options,
                     hashes, checked), True
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _check(registry, name, games, spec, staging, hashes, options, matches, say,
           check_bot) -> str:
    """check-bot in the sandbox, from the staged copy: every game and variant it plays."""
    staged = Registry(registry.bots_dirs, registry.plugins, registry.entry_points)
    staged._games = registry.games()
    bots = dict(registry.bots())
    run = _absolute(spec, staging)
    bots[name] = {g: BotEntry(name, g, "staged", {**run, "name": name, "game": g},
                              hashes[g], options) for g in games}
    staged._bots, staged.latest = bots, {k: v for k, v in registry.latest.items()
                                         if k != name}
    lines = []
    for check in check_bot(staged, name, games, matches):
        say(("ok    " if check.ok else "FAIL  ") + check.describe())
        lines.append(check.describe())
        if not check.ok:
            log = next((log for log in check.logs if log), "")
            if log:
                say("the end of its log:\n" + log.rstrip())
            reason = check.faults[0] if check.faults else "it does not reset between matches"
            raise ArenaError(f"refused: check-bot failed in {check.game} {check.variant}: "
                             f"{reason}")
    return "\n".join(lines)


def _keep(engine, store, staging, name, author, content, games, spec, options, hashes,
          checked) -> db.SubmissionRow:
    """Number the version and move its files into place, one submitter at a time."""
    relative = Path(name) / content[:24]
    with db.exclusive(engine, f"arena:submit:{name}"), Session(engine) as session:
        same = session.exec(select(db.SubmissionRow).where(
            db.SubmissionRow.name == name, db.SubmissionRow.content == content)).first()
        if same is not None:
            return same
        version = (session.exec(select(func.max(db.SubmissionRow.version)).where(
            db.SubmissionRow.name == name)).first() or 0) + 1
        final = store / relative
        if not final.exists():
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging, final)
        row = db.SubmissionRow(name=name, version=version, content=content, author=author,
                               games=json.dumps(games), kind=spec["kind"],
                               target=spec["target"], path=relative.as_posix(),
                               options=json.dumps(options) if options is not None else None,
                               code_hashes=json.dumps(hashes, sort_keys=True), checked=checked)
        session.add(row)
        try:
            session.commit()
        except IntegrityError:  # another runner numbered it first: submit again
            raise ArenaError(f"{name}: submitted at the same moment elsewhere; submit again "
                             "to see its version") from None
        session.refresh(row)
        return row
