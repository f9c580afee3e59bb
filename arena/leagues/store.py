"""The bot store: every submitted version of a bot in a folder of its own, outside the
runner's Python environment, and a row per version in the database.

``arena submit PATH`` takes a single-file bot (``.py``), a folder (its top-level ``*.py``
bots and ``*.toml`` executable manifests, as a bots folder, with its modules and data
files beside them) or a wheel (``.whl``). Nothing of it is imported, built or installed by
the runner:

1. **staged**: copied (a wheel unzipped: its ``arena.bots`` entry point, or else its
   top-level modules, are the sources; its other entry points, scripts and data are
   ignored) into ``STORE/.staging/``, never following a link: symbolic links, hard links,
   FIFOs, sockets and devices are refused, and so is more than ``files.MAX_FILES`` files,
   ``files.MAX_BYTES`` bytes, ``files.MAX_DEPTH`` folders deep, or a wheel's file
   unpacking to more than ``files.MAX_RATIO`` times its packed size (``arena.sandbox.files``); an
   sdist or a package source that needs a build is refused - submit a wheel;
2. **listed** by a sandboxed worker, as installed bots are: a submission registers one bot;
3. **checked** by ``check-bot`` in the sandbox, game by game, from the staged copy; a name
   that belongs to an installed (reference) bot or to another author is refused;
4. **kept** only then: moved to ``STORE/NAME/CONTENT/`` (``CONTENT``, a hash of its files),
   made read-only, and numbered - version 1, 2, ... per name; the same content submitted
   again is the same version. A refused submission leaves nothing behind. Before every
   use (every bot process started from it) its files are checked against ``CONTENT``: a
   version changed on disk does not run.

**Names and authors.** A name is ``plugins.BOT_NAME`` (lower-case letters, digits, ``. _ -``,
at most 40), and no look-alike of a name already known - installed, in a bots folder or
submitted: two names whose :func:`skeleton` is the same (the same letters once case,
Unicode forms, the separators ``. _ -`` and look-alike characters - ``0``/``o``,
``1``/``l``/``i``, ``5``/``s``, ``rn``/``m``... - are set aside) are one name. A name belongs
to its first author: the first submission makes a **key** (or takes the one given with
``--key``), whose hash is kept; a new version of the name must show it (``--key`` or
``$ARENA_KEY``). ``arena key NAME``, run by whoever runs the league, makes a new key for a
name (one whose key was lost, or that was submitted before keys).

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
import hmac
import json
import os
import secrets
import shutil
import stat
import unicodedata
import uuid
import zipfile
from pathlib import Path
from typing import NamedTuple

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from .. import db
from ..errors import ArenaError, PluginError
from ..plugins import BOT_NAME, BotEntry, Registry, _manifest
from ..sandbox import files
from ..sandbox.files import Refused

STAGING = ".staging"
#: a folder submission's key file, left out of what is stored (``arena ladder --watch``)
KEY_FILE = "arena.key"
IGNORED = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "build", "dist"}
BUILD_FILES = ("setup.py", "pyproject.toml", "setup.cfg")
SDISTS = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip", ".egg")


def store_folder(db_url: str, given: str | None = None) -> Path:
    """Where submitted bots are kept: ``given`` (``--store``/``$ARENA_STORE``), else the
    folder ``bots`` beside a SQLite file. ArenaError for any other database without one.
    The folder is made absolute here: the sandbox that checks a submission runs elsewhere."""
    given = given or os.environ.get("ARENA_STORE")
    if given:
        return Path(given).absolute()
    path = db.sqlite_file(db_url)
    if path is not None:
        return Path(path).absolute().parent / "bots"
    raise ArenaError("a league on this database keeps its submitted bots in a folder every "
                     "runner can read: give it with --store DIR or ARENA_STORE")


# -- staging ----------------------------------------------------------------------------------


def content_hash(folder: Path) -> str:
    """SHA-256 of a staged submission: every file's relative path and bytes, in order."""
    return files.tree_hash(folder)


def _ignored(name: str) -> bool:
    return name in IGNORED or name.startswith(".") or name.endswith(".pyc") or \
        name == KEY_FILE


def stage(source: Path, folder: Path) -> list[tuple[str, dict]]:
    """Copy a submission into the empty ``folder``; its bot sources ``(label, spec)``, the
    targets relative to ``folder``. ArenaError for anything that is not a bot file, a
    folder or a wheel, or that holds a link or a special file (``arena.sandbox.files``)."""
    try:
        st = os.lstat(source)
    except OSError:
        raise ArenaError(f"cannot submit {source}: no such file or folder") from None
    name = source.name
    if not stat.S_ISDIR(st.st_mode):
        files.check_entry(str(source), st)  # a link, a FIFO, a device: refused, unopened
    if stat.S_ISDIR(st.st_mode):
        if any(os.path.lexists(source / f) for f in BUILD_FILES):
            raise ArenaError(f"cannot submit {source}: it is a package source, which needs a "
                             "build; build a wheel (pip wheel --no-deps .) and submit that")
        files.copy_tree(source, folder, skip=_ignored)
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
        fd = files.open_regular(source)
        try:
            files.copy_fd(fd, folder / name, files.Budget())
        finally:
            os.close(fd)
        sources = [(name, {"kind": "file" if source.suffix == ".py" else "manifest",
                           "target": name})]
    else:
        raise ArenaError(f"cannot submit {source}: submit a bot file (.py), a folder or a "
                         "wheel (.whl)")
    if not sources:
        raise ArenaError(f"cannot submit {source}: it holds no bot (a .py file with a "
                         "register_bots hook, or a NAME.toml executable bot)")
    return sources


def _wheel_members(wheel: Path, archive: zipfile.ZipFile) -> list[tuple[zipfile.ZipInfo, list]]:
    """The wheel's files to unpack, each with its path's parts; Refused for a link, a path
    outside the wheel, a file that is also a folder, a name twice, or beyond the limits."""
    members, seen_files, seen_dirs = [], set(), set()
    total = 0
    for info in archive.infolist():
        kind = (info.external_attr >> 16) & 0o170000
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise Refused(f"cannot submit {wheel}: {info.filename} is "
                          f"{files._kind(kind)}; a wheel holds only files and folders")
        parts = info.filename.split("/")
        if info.filename.startswith("/") or "\\" in info.filename or any(
                p in ("..", ".") for p in parts) or "" in parts[:-1]:
            raise Refused(f"cannot submit {wheel}: it names a file outside itself "
                          f"({info.filename})")
        if info.is_dir():
            continue
        if parts[0].endswith(".data"):
            if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                continue  # scripts, headers and data files are not installed
            parts = parts[2:]
        key = tuple(parts)
        if key in seen_files or key in seen_dirs:
            raise Refused(f"cannot submit {wheel}: {'/'.join(parts)} is in it twice, or both "
                          "a file and a folder")
        for i in range(1, len(parts)):
            if parts[:i] and tuple(parts[:i]) in seen_files:
                raise Refused(f"cannot submit {wheel}: {'/'.join(parts[:i])} is both a file "
                              "and a folder")
            seen_dirs.add(tuple(parts[:i]))
        seen_files.add(key)
        if len(seen_files) > files.MAX_FILES:
            raise Refused(f"cannot submit {wheel}: it holds more than {files.MAX_FILES} files")
        total += info.file_size
        if total > files.MAX_BYTES:
            raise Refused(f"cannot submit {wheel}: it unpacks to more than "
                          f"{files.MAX_BYTES // (1024 * 1024)} MiB")
        if info.file_size > (1 << 20) and info.file_size > files.MAX_RATIO * max(
                1, info.compress_size):
            raise Refused(f"cannot submit {wheel}: {info.filename} unpacks to more than "
                          f"{files.MAX_RATIO} times its size (a zip bomb?)")
        members.append((info, parts))
    return members


def _unpack_wheel(wheel: Path, folder: Path) -> list[tuple[str, dict]]:
    """Unzip a wheel without installing it: its modules (``*.data/purelib`` and
    ``platlib`` too) go into ``folder``; scripts, headers, data and every entry point but
    ``arena.bots`` are left out. The sources are its ``arena.bots`` entry points, or else
    its top-level modules. The zip's own word on sizes is checked as it unpacks."""
    fd = files.open_regular(wheel)
    with os.fdopen(fd, "rb") as raw:
        if os.fstat(raw.fileno()).st_size > files.MAX_BYTES:
            raise Refused(f"cannot submit {wheel}: larger than "
                          f"{files.MAX_BYTES // (1024 * 1024)} MiB")
        try:
            archive = zipfile.ZipFile(raw)
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise ArenaError(f"cannot submit {wheel}: not a wheel ({e})") from None
        with archive:
            tops = {i.filename.split("/")[0] for i in archive.infolist()}
            dist_info = sorted(t for t in tops if t.endswith(".dist-info"))
            if not dist_info:
                raise ArenaError(f"cannot submit {wheel}: not a wheel (no .dist-info folder)")
            budget = files.Budget()
            for info, parts in _wheel_members(wheel, archive):
                target = folder.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                written = 0
                try:
                    with archive.open(info) as src, open(target, "xb") as dst:
                        while chunk := src.read(files.CHUNK):
                            written += len(chunk)
                            if written > info.file_size:
                                raise Refused(f"cannot submit {wheel}: {info.filename} is "
                                              "larger than the wheel says")
                            budget.spend(len(chunk))
                            dst.write(chunk)
                except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError,
                        NotImplementedError) as e:
                    raise ArenaError(f"cannot submit {wheel}: a broken wheel "
                                     f"({info.filename}: {e})") from None
    points = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    points.optionxform = str
    entry_file = folder / dist_info[0] / "entry_points.txt"
    if entry_file.exists():
        try:
            points.read(entry_file)
        except configparser.Error:
            raise ArenaError(f"cannot submit {wheel}: its entry_points.txt cannot be "
                             "read") from None
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
    from ..sandbox.process import list_sources

    python = [(label, spec) for label, spec in sources if spec["kind"] != "manifest"]
    answers = iter(list_sources([[_absolute(spec, folder) for _, spec in python]]))  # one author's
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
        if row.disabled:  # by the organizer: it plays nowhere
            continue
        if row.kind == REMOTE:
            entrant = f"{row.name}@{row.version}"
            for game in json.loads(row.games):
                out.append(BotEntry(entrant, game, f"remote, connected by {row.author}",
                                    {"kind": REMOTE, "target": entrant, "name": row.name,
                                     "game": game,
                                     "socket": remote_address(store, entrant, game)},
                                    row.content, None))
            continue
        folder = store / row.path
        spec = _absolute({"kind": row.kind, "target": row.target}, folder) \
            if row.kind != "manifest" or (folder / row.target).exists() else None
        if spec is None:
            continue
        hashes = json.loads(row.code_hashes)
        for game in json.loads(row.games):
            out.append(BotEntry(f"{row.name}@{row.version}", game,
                                f"submitted {row.submitted_at:%Y-%m-%d} by {row.author}",
                                {**spec, "name": row.name, "game": game,
                                 "content": row.content, "stored": str(folder)},
                                hashes.get(game, row.content),
                                json.loads(row.options) if row.options else None))
    return out


# -- remote bots --------------------------------------------------------------------------

#: a submission that stays on its author's machine (``arena connect``, ``arena.web.remote``)
REMOTE = "remote"


def remote_address(store: Path, entrant: str, game: str) -> str:
    """Where the runners of this store reach remote bot ``entrant`` for a match of ``game``:
    an abstract Unix socket (no file; the server that holds the bot's connection listens
    there, and answers only processes of its own user), named for the store, the entrant
    and the game."""
    digest = hashlib.sha256(f"{Path(store).resolve()}\0{entrant}\0{game}".encode()
                            ).hexdigest()
    return f"\0arena-remote-{digest[:32]}"


def register_remote(engine, registry: Registry, name: str, games, code: str,
                    account: str) -> db.SubmissionRow:
    """The version of remote bot ``name`` that ``account`` connects: the same ``code`` (its
    author's hash of it) is the same version, other code the next; the name follows the
    store's rules and belongs to its first account. ArenaError, one line, when refused."""
    if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
        raise ArenaError(f"{str(name)[:40]!r} is not a bot name (lower-case letters, digits, "
                         "'.', '_', '-', at most 40)")
    if not isinstance(code, str) or not (8 <= len(code) <= 128) or not code.isascii() \
            or not code.isalnum():
        raise ArenaError("a remote bot's code hash is 8-128 letters and digits")
    if not isinstance(games, list) or not games or not all(g in registry.games()
                                                           for g in games if isinstance(g, str)):
        raise ArenaError(f"games: a list of games installed here ({', '.join(registry.games())})")
    games = sorted({g for g in games if isinstance(g, str)})
    bots = registry.bots()
    if name in bots and name not in registry.latest:
        raise ArenaError(f"refused: the name {name!r} belongs to an installed bot")
    content = f"{REMOTE}:{code}"
    earlier = versions(engine, name)
    if not earlier:
        check_name(name, {n.partition("@")[0] for n in bots} | {r.name for r in
                                                                versions(engine)})
    _authorise(engine, name, account, None, True)
    same = next((r for r in earlier if r.content == content), None)
    if same is not None:
        if same.disabled:
            raise ArenaError(f"{name}@{same.version} is disabled by the league's organizer")
        return same
    with db.exclusive(engine, f"arena:submit:{name}"), Session(engine) as session:
        version = (session.exec(select(func.max(db.SubmissionRow.version)).where(
            db.SubmissionRow.name == name)).first() or 0) + 1
        if session.get(db.OwnerRow, name) is None:
            session.add(db.OwnerRow(name=name, author=account, key_hash=ACCOUNT_OWNED))
        row = db.SubmissionRow(name=name, version=version, content=content, author=account,
                               games=json.dumps(games), kind=REMOTE, target=name, path="",
                               code_hashes=json.dumps({g: content for g in games}),
                               checked="remote: plays from its author's machine")
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            raise ArenaError(f"{name}: connected at the same moment elsewhere; connect "
                             "again") from None
        session.refresh(row)
        return row


def withdraw(engine, name: str, **marks) -> int:
    """Take every version of ``name`` off the ladder (its results stay); how many.
    ``marks``: ``disabled`` (True: it plays nowhere; False: it may play again, still off
    the ladder) or ``deleted``, set on every version too."""
    with Session(engine) as session:
        rows = list(session.exec(select(db.SubmissionRow).where(db.SubmissionRow.name == name)))
        if not rows:
            raise ArenaError(f"no submitted bot named {name!r}")
        if marks.get("disabled") is False and rows[0].deleted:
            raise ArenaError(f"{name} was deleted: its code is gone")
        for row in rows:
            row.withdrawn = True
            for key, value in marks.items():
                setattr(row, key, value)
            session.add(row)
        session.commit()
        return len(rows)


def delete(engine, store: Path, name: str) -> int:
    """Delete ``name``: every version disabled and its files removed from the store; its
    rows stay (results in past seasons, and the name, which stays its owner's), marked
    deleted. How many versions."""
    count = withdraw(engine, name, disabled=True, deleted=True)
    folder = store / name
    if folder.is_dir() and not folder.is_symlink():
        for here, dirs, _ in os.walk(folder):
            for d in dirs:  # read-only as kept: made writable to be removed
                os.chmod(os.path.join(here, d), 0o700)
        os.chmod(folder, 0o700)
        shutil.rmtree(folder)
    return count


def mark(engine, standings: list) -> list:
    """``standings`` with each deleted version's row marked ``deleted``, and each remote
    bot's (``arena connect``) marked ``remote``."""
    with Session(engine) as session:
        rows = session.exec(select(db.SubmissionRow.name, db.SubmissionRow.version,
                                   db.SubmissionRow.deleted, db.SubmissionRow.kind).where(
            db.SubmissionRow.deleted | (db.SubmissionRow.kind == REMOTE))).all()
    gone = {f"{n}@{v}" for n, v, deleted, _ in rows if deleted}
    remote = {f"{n}@{v}" for n, v, _, kind in rows if kind == REMOTE}
    for s in standings:
        s.deleted, s.remote = s.bot in gone, s.bot in remote
    return standings


# -- names and keys ---------------------------------------------------------------------------

#: look-alike characters, each read as the one it passes for (after NFKC and case folding)
LOOK_ALIKES = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "!": "l", "5": "s",
                             "$": "s", "3": "e", "4": "a", "@": "a", "7": "t", "8": "b",
                             "6": "b", "9": "g", "2": "z"})
PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def skeleton(name: str) -> str:
    """What a name looks like: two names with one skeleton pass for each other (``greedy``,
    ``Greedy``, ``gr3edy``, ``greedy_``, ``ｇreedy``)."""
    text = unicodedata.normalize("NFKC", name).casefold().translate(LOOK_ALIKES)
    text = "".join(c for c in text if c not in "._- ")
    for pair, one in PAIRS:
        text = text.replace(pair, one)
    return text


def check_name(name: str, known) -> None:
    """ArenaError unless ``name`` is a well-formed name and no look-alike of a ``known``
    one (itself excepted)."""
    if not isinstance(name, str) or not BOT_NAME.fullmatch(name) or "@" in name:
        raise ArenaError(f"refused: bad bot name {name!r} (lower-case letters, digits, "
                         ". _ -; at most 40)")
    mine = skeleton(name)
    for other in sorted(known):
        if other != name and skeleton(other) == mine:
            raise ArenaError(f"refused: the name {name!r} looks like {other!r}, which is "
                             "taken; choose another")


def new_key() -> str:
    return "arena-key-" + secrets.token_urlsafe(24)


def _key_hash(key: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(key.encode(), salt=salt, n=2 ** 14, r=8, p=1, dklen=32)
    return f"scrypt${salt.hex()}${digest.hex()}"


#: the key hash of a name an account owns (``arena submit --to``): no key matches it, its
#: account's token alone submits its versions
ACCOUNT_OWNED = "account"


def _key_matches(key: str | None, stored: str) -> bool:
    if not key or stored == ACCOUNT_OWNED:
        return False
    _, salt, _ = stored.split("$")
    return hmac.compare_digest(_key_hash(key, bytes.fromhex(salt)), stored)


def owner(engine, name: str) -> db.OwnerRow | None:
    with Session(engine) as session:
        return session.get(db.OwnerRow, name)


def set_key(engine, name: str, author: str | None = None, key: str | None = None) -> str:
    """Give ``name`` a new key (replacing any it had), for its author (its first author
    by default); the key. What ``arena key`` does for whoever runs the league."""
    earlier = versions(engine, name)
    if not earlier:
        raise ArenaError(f"no submitted bot named {name!r}")
    key = key or new_key()
    _check_key_text(key)
    with Session(engine) as session:
        row = session.get(db.OwnerRow, name) or db.OwnerRow(
            name=name, author=author or earlier[0].author, key_hash="")
        row.key_hash = _key_hash(key)
        if author:
            row.author = author
        session.add(row)
        session.commit()
    return key


def _check_key_text(key: str) -> None:
    if len(key) < 16 or len(key) > 200 or not key.isprintable() or key != key.strip():
        raise ArenaError("a key is 16 to 200 printable characters, no spaces around")


def _authorise(engine, name: str, author: str, key: str | None,
               account_owned: bool = False) -> tuple[str, str | None]:
    """``(the version's author, a key made now)`` for a submission of ``name``: a new name is
    the submitter's, with the key given or a new one; an existing one needs its key. A
    submission by an account (``account_owned``: its token was shown) needs no key: a name
    is its first account's, and one submitted before accounts is the account's of its
    author's name."""
    row = owner(engine, name)
    earlier = versions(engine, name)
    if account_owned:
        first = row.author if row is not None else earlier[0].author if earlier else author
        if first != author:
            raise ArenaError(f"refused: the name {name!r} belongs to {first}")
        return author, None
    if row is None and earlier:
        raise ArenaError(f"refused: the name {name!r} belongs to {earlier[0].author} and has "
                         "no key yet; whoever runs the league gives it one ('arena key "
                         f"{name}')")
    if row is not None:
        if not _key_matches(key, row.key_hash):
            raise ArenaError(f"refused: the name {name!r} belongs to {row.author}; a new "
                             "version needs its key (--key or ARENA_KEY)")
        return row.author, None
    if key is not None:
        _check_key_text(key)
    return author, (None if key is not None else new_key())


# -- submit -----------------------------------------------------------------------------------


def _folder_key(source: Path) -> str | None:
    """The key a folder submission holds as ``arena.key`` (never stored with it)."""
    path = source / KEY_FILE
    if not source.is_dir() or source.is_symlink() or not os.path.lexists(path):
        return None
    fd = files.open_regular(path)
    try:
        return os.read(fd, 257).decode(errors="replace").strip()
    finally:
        os.close(fd)


class Submitted(NamedTuple):
    """What ``submit`` did: the version's row, whether it is new, and the key it made for a
    new name (None when the name had one, or one was given)."""

    row: db.SubmissionRow
    new: bool
    key: str | None


def submit(engine, registry: Registry, store: Path, source, author: str | None = None,
           matches: int = 3, say=lambda line: None, key: str | None = None,
           account_owned: bool = False) -> Submitted:
    """Stage, list, check and keep a submission (``key``: the name's, for a new version, or
    the one to give a new name). ArenaError, with nothing kept, when it is refused."""
    from .conformance import check_bot

    author = author or getpass.getuser()
    key = key if key is not None else _folder_key(Path(source))
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
        bots = registry.bots()
        if name in bots and name not in registry.latest:
            raise ArenaError(f"refused: the name {name!r} belongs to an installed bot "
                             f"({next(iter(bots[name].values())).source})")
        check_name(name, {n.partition("@")[0] for n in bots} | {
            r.name for r in versions(engine)})
        author, made = _authorise(engine, name, author, key, account_owned)
        earlier = versions(engine, name)
        same = next((r for r in earlier if r.content == content), None)
        if same is not None:
            shutil.rmtree(staging, ignore_errors=True)
            return Submitted(same, False, None)
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
        row = _keep(engine, store, staging, name, author, content, games, spec, options,
                    hashes, checked, made or key, account_owned)
        return Submitted(row, True, made if row.version == 1 else None)
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
          checked, key: str | None, account_owned: bool = False) -> db.SubmissionRow:
    """Number the version, move its files into place (read-only) and, for a new name, keep
    its key's hash - one submitter at a time."""
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
            files.make_read_only(final)
        holder = session.get(db.OwnerRow, name)
        if account_owned:
            if holder is None:
                session.add(db.OwnerRow(name=name, author=author, key_hash=ACCOUNT_OWNED))
            elif holder.author != author:  # taken meanwhile
                raise ArenaError(f"refused: the name {name!r} was taken by another "
                                 "submission at the same moment")
        elif holder is None and version == 1 and key is not None:
            session.add(db.OwnerRow(name=name, author=author, key_hash=_key_hash(key)))
        elif holder is None or not _key_matches(key, holder.key_hash):  # taken meanwhile
            raise ArenaError(f"refused: the name {name!r} was taken by another submission "
                             "at the same moment")
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
