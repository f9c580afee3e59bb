"""Files taken from untrusted hands: read and copied without following a link, within
limits, and hashed.

A submission (a bot file, a folder, a wheel) and whatever is dropped into a ladder's inbox
come from people arena does not trust, and may be made to trick a program that opens them
by name. So nothing here follows a symbolic link, opens anything but a regular file with a
single name (a hard link could name the database), or waits on a FIFO or a device:

* :func:`open_regular` opens a file with ``O_NOFOLLOW | O_NONBLOCK`` and refuses anything
  but a regular file with one link;
* :func:`copy_tree` copies a folder by descriptors (``openat`` relative to the folder it
  walks, never a path that could be swapped for a link on the way), refusing links, FIFOs,
  sockets and devices, and stopping at :data:`MAX_FILES` files, :data:`MAX_BYTES` bytes and
  :data:`MAX_DEPTH` folders deep;
* :func:`tree_hash` hashes a folder (every file's relative path and bytes, in order) - the
  content hash a stored version is kept and checked under - and remembers the hash of an
  unchanged tree by the files' inodes, sizes and change times, so checking a stored
  version before every use costs a walk of ``lstat`` calls.

Errors are :class:`Refused` (an ``ArenaError``): one line naming the file and what is
wrong with it, never anything it holds.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zlib
from pathlib import Path

from ..errors import ArenaError

#: A submission holds at most this many files ...
MAX_FILES = 2000
#: ... of at most this many bytes in all (a wheel: unpacked) ...
MAX_BYTES = 64 * 1024 * 1024
#: ... in folders at most this deep
MAX_DEPTH = 32
#: A wheel's file may unpack to at most this many times its packed size (beyond 1 MiB)
MAX_RATIO = 100
CHUNK = 1 << 20


class Refused(ArenaError):
    pass


def _kind(mode: int) -> str:
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISBLK(mode)
            or stat.S_ISCHR(mode) else "not a regular file")


def check_entry(name: str, st: os.stat_result) -> None:
    """Refused unless ``st`` is a folder or a regular file with a single name."""
    if stat.S_ISDIR(st.st_mode):
        return
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{name} is {_kind(st.st_mode)}; a submission holds only files and "
                      "folders")
    if st.st_nlink != 1:
        raise Refused(f"{name} is a hard link (it has {st.st_nlink} names); a submission "
                      "holds only files of its own")


def open_regular(path: str | os.PathLike, dir_fd: int | None = None) -> int:
    """A read-only descriptor of the regular file ``path`` (its last part not a link),
    Refused otherwise."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except OSError as e:
        try:
            st = os.lstat(name, dir_fd=dir_fd)
        except OSError:
            raise Refused(f"cannot read {name}: {e.strerror}") from None
        check_entry(name, st)
        raise Refused(f"cannot read {name}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        check_entry(name, st)
        if stat.S_ISDIR(st.st_mode):
            raise Refused(f"{name} is a folder")
    except BaseException:
        os.close(fd)
        raise
    return fd


class Budget:
    """What a copy may still write: files and bytes."""

    def __init__(self, files: int = MAX_FILES, size: int = MAX_BYTES):
        self.files, self.bytes = files, size

    def file(self, name: str) -> None:
        self.files -= 1
        if self.files < 0:
            raise Refused(f"it holds more than {MAX_FILES} files ({name}...)")

    def spend(self, n: int) -> None:
        self.bytes -= n
        if self.bytes < 0:
            raise Refused(f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB")


def copy_fd(src: int, dst_path: Path, budget: Budget) -> None:
    """Copy an open file into a new file ``dst_path`` (made, never followed)."""
    out = os.open(dst_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                  | os.O_CLOEXEC, 0o644)
    try:
        while True:
            data = os.read(src, CHUNK)
            if not data:
                break
            budget.spend(len(data))
            os.write(out, data)
    finally:
        os.close(out)


def copy_tree(src: str | os.PathLike, dst: Path, skip=lambda name: False,
              budget: Budget | None = None) -> None:
    """Copy folder ``src`` into the empty folder ``dst``, by descriptors, refusing links and
    special files (see the module's docstring); ``skip(name)`` leaves an entry out."""
    budget = budget or Budget()
    try:
        fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise Refused(f"cannot read folder {src}: {e.strerror}") from None
    try:
        _copy_dir(fd, Path(src), dst, skip, budget, 0)
    finally:
        os.close(fd)


def _copy_dir(fd: int, shown: Path, dst: Path, skip, budget: Budget, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Refused(f"{shown} is more than {MAX_DEPTH} folders deep")
    for name in sorted(os.listdir(fd)):
        if skip(name):
            continue
        st = os.lstat(name, dir_fd=fd)
        check_entry(str(shown / name), st)
        budget.file(str(shown / name))
        if stat.S_ISDIR(st.st_mode):
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                              | os.O_CLOEXEC, dir_fd=fd)
            except OSError as e:
                raise Refused(f"cannot read folder {shown / name}: {e.strerror}") from None
            try:
                (dst / name).mkdir()
                _copy_dir(sub, shown / name, dst / name, skip, budget, depth + 1)
            finally:
                os.close(sub)
        else:
            src = open_regular(name, dir_fd=fd)
            try:
                copy_fd(src, dst / name, budget)
            finally:
                os.close(src)


# -- hashing ----------------------------------------------------------------------------------

_TREES: dict[str, tuple] = {}  # folder -> (signature, hash)


def _entries(folder: Path) -> list[tuple[tuple[str, ...], os.stat_result]]:
    """Every regular file under ``folder`` (not following links), keyed by its parts."""
    out = []
    for here, _dirs, files in os.walk(folder, followlinks=False):
        base = Path(here).relative_to(folder)
        for name in files:
            path = Path(here) / name
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                out.append(((base / name).parts, st))
    return sorted(out, key=lambda e: e[0])


def tree_hash(folder: str | os.PathLike) -> str:
    """SHA-256 of every regular file's relative path and bytes under ``folder``, in order
    (links are not followed). An unchanged tree's hash is remembered."""
    folder = Path(folder)
    entries = _entries(folder)
    signature = tuple((parts, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                      for parts, st in entries)
    known = _TREES.get(str(folder))
    if known is not None and known[0] == signature:
        return known[1]
    digest = hashlib.sha256()
    for parts, _ in entries:
        digest.update("/".join(parts).encode() + b"\0")
        fd = open_regular(folder.joinpath(*parts))
        try:
            while data := os.read(fd, CHUNK):
                digest.update(data)
        finally:
            os.close(fd)
        digest.update(b"\0")
    _TREES[str(folder)] = (signature, digest.hexdigest())
    return digest.hexdigest()


_FILES: dict[str, tuple] = {}


def file_hash(path: str | os.PathLike, digest=None):
    """The SHA-256 of a file, read in chunks (never whole); with ``digest``, its bytes fed
    into that one instead. An unchanged file's hash is remembered."""
    key = _signature(path)
    if digest is None and _FILES.get(os.fspath(path), (None,))[0] == key:
        return _FILES[os.fspath(path)][1]
    own = digest or hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        while data := os.read(fd, CHUNK):
            own.update(data)
    finally:
        os.close(fd)
    if digest is None:
        _FILES[os.fspath(path)] = (key, own.hexdigest())
        return own.hexdigest()
    return digest


def make_read_only(folder: Path) -> None:
    """Files 0444 and folders 0555 under ``folder`` (itself included)."""
    for here, _dirs, files in os.walk(folder, followlinks=False):
        for name in files:
            path = os.path.join(here, name)
            if not os.path.islink(path):
                os.chmod(path, 0o444)
        os.chmod(here, 0o555)


_DIGESTS: dict[tuple, str] = {}


def digest_of(paths) -> str:
    """SHA-256 of the files' bytes one after another (a bot's code hash: a single file's, or
    an executable's manifest and own files), read in chunks and only again once one of them
    has changed."""
    key = tuple((os.fspath(p), *_signature(p)) for p in paths)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        for p in paths:
            file_hash(p, digest)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def _signature(path) -> tuple:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def upload_name(filename: str) -> tuple[str, str]:
    """An upload's name, ``NAME.py``, ``NAME.whl`` or ``NAME.tar.gz`` (``.tgz``), as its stem
    and kind; Refused, one line, for any other."""
    import re

    match = re.fullmatch(r"([A-Za-z0-9_][A-Za-z0-9_.-]{0,99}?)(\.py|\.whl|\.tar\.gz|\.tgz)",
                         filename or "")
    if not match:
        raise Refused("an upload is NAME.py, NAME.whl or a folder as NAME.tar.gz, not "
                      f"{(filename or '')[:60]!r}")
    return match.group(1), match.group(2)


def unpack_upload(filename: str, data: bytes, folder: Path) -> Path:
    """What ``arena submit --to`` sent, as ``arena submit`` takes it from a disk: a
    ``NAME.py`` file or a ``NAME.whl`` wheel written as it is, or a folder sent as
    ``NAME.tar.gz`` unpacked into ``folder/NAME`` - regular files and folders only, every
    name inside the folder (no absolute path, no ``..``), within ``MAX_FILES`` (its
    folders counted too),
    ``MAX_BYTES`` (unpacked: a gzip bomb stops at the budget) and ``MAX_DEPTH``. The path
    to submit; Refused, one line, for anything else."""
    import io
    import tarfile

    stem, kind = upload_name(filename)
    if kind in (".py", ".whl"):
        path = folder / filename
        path.write_bytes(data)
        return path
    top = folder / stem
    top.mkdir()
    budget = Budget()
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as e:
        raise Refused(f"{filename} is not a gzipped tar archive ({e})") from None
    with archive:
        try:
            for member in archive:
                parts = Path(member.name).parts
                if member.name.startswith("/") or ".." in parts or not parts:
                    raise Refused(f"{member.name[:80]!r}: a name outside the folder")
                if len(parts) > MAX_DEPTH:
                    raise Refused(f"{member.name[:80]} is more than {MAX_DEPTH} folders deep")
                target = top.joinpath(*parts)
                budget.file(member.name)  # a folder counts too: no archive of a million
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    what = ("a symbolic link" if member.issym() else "a hard link"
                            if member.islnk() else "not a regular file")
                    raise Refused(f"{member.name[:80]} is {what}; a submission holds only "
                                  "files and folders")
                target.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                with open(target, "xb") as out:
                    while chunk := source.read(CHUNK):
                        budget.spend(len(chunk))
                        out.write(chunk)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            raise Refused(f"{filename}: a damaged archive ({e})") from None
    return top
