"""What a jail sees of the machine, and that all of it is in memory before a bot starts.

Two jails must share nothing that one can change and the other observe, and the page cache
is such a thing: a page of a file that is not in memory comes in when one process reads it,
and another can tell (a read of it is fast, ``RWF_NOWAIT`` or ``mincore`` say so) - one bit
a page, and a file has many. Seccomp refuses the probes; the reads cannot be refused, so the
files a jail sees are made to hold nothing that a read can change:

* **a jail sees little**: not the system's folders, but the programs it runs (the Python
  interpreter, an executable bot's program and the interpreter its ``#!`` line names), the
  shared libraries they and the Python installation's extension modules load (their ELF
  ``DT_NEEDED`` entries, found as the dynamic loader finds them: ``DT_RPATH``,
  ``DT_RUNPATH``, ``/etc/ld.so.cache``, the default folders), the C library's own data
  (the ``C.UTF-8`` locale, ``gconv``'s cache), a few files of ``/etc``, the folders on
  Python's import path (the standard library without its tests, the environment's
  ``site-packages``) - and its own files (``arena.sandbox.process.read_paths``);
* **all of it is read before its bot starts** (:func:`warm`): every file the jail sees is
  checked (``cachestat`` where the kernel answers it; else read with ``RWF_NOWAIT``, which
  stops at the first page not in memory) and read where a page of it is not in memory
  (``mincore`` is not used: for a file its caller may not write, the kernel says every page
  is in memory, whatever the truth); every folder is listed and every link read. A read by
  a bot then changes nothing another can see: no page comes in, and no access time changes (a jail's
  binds are read-only, which never update one; where there is no jail, this read has spent
  the one update ``relatime`` makes in a day). What is checked is remembered for
  :data:`FRESH` seconds by this process.

What remains is the machine's memory: a page the kernel evicts under memory pressure (a bot
cannot make the pressure: its memory is limited) comes back when a bot reads it, and that
one bit is there to be seen. docs/sandbox.md says what such channels carry.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import platform
import struct
import sys
import sysconfig
import threading
import time

#: What a program needs of /etc to start (the dynamic loader's cache, the alternatives
#: Debian's awk and others are reached through, the time zone, the user database) - not
#: the rest of it
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
       "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
       "/etc/ssl/openssl.cnf", "/etc/ssl/certs/ca-certificates.crt", "/etc/mime.types")
#: The C library's data a program may read at start: the C.UTF-8 locale (LANG is C.UTF-8),
#: gconv's module cache, the locale aliases
C_RUNTIME = ("/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8",
             "/usr/lib/locale/locale-archive", "/usr/share/locale/locale.alias")
#: Libraries the C library loads by name when it needs them (the unwinder, for a thread's
#: cancellation), whichever program runs
DLOPENED = ("libgcc_s.so.1",)
#: The system's folders, where a program of the system is found (``exec_spec``)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Seconds a check that every file of the view is in memory holds for this process
FRESH = 600.0
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# -- ELF: what a program or library loads ------------------------------------------------------

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 1, 5, 15, 29


@functools.lru_cache(maxsize=4096)
def elf_info(path: str) -> tuple | None:
    """``(machine, interpreter, needed, rpath, runpath)`` of a 64-bit little-endian ELF
    file, or None if ``path`` is not one (or cannot be read)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            machine = struct.unpack_from("<H", head, 18)[0]
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            loads, dynamic, interp = [], None, None
            for i in range(phnum):
                kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from(
                    "<IIQQQQQQ", table, i * phentsize)
                if kind == PT_LOAD:
                    loads.append((vaddr, offset, filesz))
                elif kind == PT_DYNAMIC:
                    dynamic = (offset, filesz)
                elif kind == PT_INTERP:
                    f.seek(offset)
                    interp = f.read(filesz).rstrip(b"\0").decode(errors="replace")
            if dynamic is None:
                return machine, interp, (), (), ()
            f.seek(dynamic[0])
            raw = f.read(dynamic[1])
            entries = [struct.unpack_from("<qQ", raw, i) for i in range(0, len(raw) - 15, 16)]
            strtab = next((v for t, v in entries if t == DT_STRTAB), None)
            where = next((off + strtab - va for va, off, size in loads
                          if va <= (strtab or -1) < va + size), None)
            if where is None:
                return machine, interp, (), (), ()

            def text(at: int) -> str:
                f.seek(where + at)
                return f.read(4096).split(b"\0", 1)[0].decode(errors="replace")

            def paths(tag: int) -> tuple:
                return tuple(p for t, v in entries if t == tag for p in text(v).split(":") if p)

            needed = tuple(text(v) for t, v in entries if t == DT_NEEDED)
            return machine, interp, needed, paths(DT_RPATH), paths(DT_RUNPATH)
    except (OSError, struct.error, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def ld_cache() -> dict[str, list[str]]:
    """``/etc/ld.so.cache`` (glibc's format 1.1): each library name and the files it
    names, in the cache's order."""
    found: dict[str, list[str]] = {}
    try:
        with open("/etc/ld.so.cache", "rb") as f:
            data = f.read()
    except OSError:
        return found
    at = data.find(b"glibc-ld.so.cache1.1")
    if at < 0:
        return found
    count, = struct.unpack_from("<I", data, at + 20)

    def text(offset: int) -> str:
        return data[offset:data.index(b"\0", offset)].decode(errors="replace")

    for i in range(count):
        _flags, key, value = struct.unpack_from("<iII", data, at + 48 + 24 * i)
        try:
            found.setdefault(text(key), []).append(text(value))
        except ValueError:
            break
    return found


@functools.lru_cache(maxsize=1)
def default_dirs() -> tuple[str, ...]:
    """The loader's own folders, after the cache: the multiarch ones, then the classic."""
    arch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    return (f"/lib/{arch}", f"/usr/lib/{arch}", "/lib64", "/usr/lib64", "/lib", "/usr/lib")


def _matches(path: str, machine: int) -> bool:
    info = elf_info(path)
    return info is not None and info[0] == machine


def resolve(name: str, machine: int, origin: str, rpath=(), runpath=()) -> str | None:
    """The file the dynamic loader loads for ``DT_NEEDED`` entry ``name`` of an object in
    folder ``origin``."""
    if "/" in name:
        return name if _matches(name, machine) else None

    def expand(folders) -> list[str]:
        return [p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for p in folders]

    candidates = [os.path.join(d, name) for d in expand(() if runpath else rpath)]
    candidates += [os.path.join(d, name) for d in expand(runpath)]
    candidates += ld_cache().get(name, [])
    candidates += [os.path.join(d, name) for d in default_dirs()]
    return next((c for c in candidates if os.path.isfile(c) and _matches(c, machine)), None)


def closure(objects) -> set[str]:
    """Every file the dynamic loader maps to run each of ``objects`` (programs and
    libraries, as paths): themselves, their interpreter, what they need, transitively, and
    what the C library loads by name (``DLOPENED``)."""
    seen: set[str] = set()
    todo = [o for o in objects if o]
    machine = None
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        info = elf_info(path)
        if info is None:
            continue
        seen.add(path)
        machine, interp, needed, rpath, runpath = info
        if interp:
            todo.append(interp)
        origin = os.path.dirname(os.path.realpath(path))
        todo += filter(None, (resolve(name, machine, origin, rpath, runpath)
                              for name in needed))
        if not todo and machine is not None:
            todo += [p for p in (resolve(name, machine, "/") for name in DLOPENED)
                     if p and p not in seen]
    return seen


def interpreter_of(program: str) -> list[str]:
    """The program a ``#!`` line names (and, for ``/usr/bin/env NAME``, NAME on the bots'
    PATH), or nothing."""
    try:
        with open(program, "rb") as f:
            line = f.readline(256)
    except OSError:
        return []
    if not line.startswith(b"#!"):
        return []
    words = line[2:].decode(errors="replace").split()
    if not words:
        return []
    found = [words[0]]
    if os.path.basename(words[0]) == "env":
        import shutil

        rest = [w for w in words[1:] if not w.startswith("-")]
        where = shutil.which(rest[0], path="/usr/local/bin:/usr/bin:/bin") if rest else None
        found += [where] if where else []
    return found


# -- Python: the folders a Python bot imports from ---------------------------------------------


def python_paths() -> tuple[list[str], list[str]]:
    """``(paths, hidden)``: the interpreter's files and the folders of the import path
    that lie in the Python installation (a ``.pth`` file may add any folder of the
    machine: the runner names the packages a bot needs), and the folders inside them a bot
    has no use for (the standard library's tests and build files, a base installation's
    ``site-packages`` that a virtual environment does not import from)."""
    prefixes = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix})
    paths = [sys.executable, *(os.path.join(p, "pyvenv.cfg") for p in prefixes)]
    inside = [p for p in sys.path if p and os.path.isdir(p) and any(
        os.path.abspath(p).startswith(x.rstrip("/") + "/") for x in prefixes)]
    paths += inside
    stdlib = sysconfig.get_paths()["stdlib"]
    hidden = [os.path.join(stdlib, "test"), *glob.glob(os.path.join(stdlib, "config-*"))]
    base = os.path.join(stdlib, "site-packages")
    if not any(os.path.realpath(p) == os.path.realpath(base) for p in inside):
        hidden.append(base)
    return sorted(set(paths)), sorted(h for h in hidden if os.path.isdir(h))


def _extension_modules(folders, hidden) -> list[str]:
    found = []
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        for here, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if os.path.join(here, d) not in hidden]
            found += [os.path.join(here, f) for f in files if ".so" in f]
    return found


@functools.lru_cache(maxsize=1)
def _python_view() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths, hidden = python_paths()
    libraries = closure([sys.executable, *_extension_modules(paths, set(hidden))])
    return tuple(sorted({*paths, *libraries})), tuple(hidden)


def system_paths(programs=()) -> tuple[list[str], list[str]]:
    """``(paths, hidden)``: what a jail sees besides the bot's own files - ``/etc``'s few
    files, the C library's data, the Python installation a bot imports from, and the
    programs ``programs`` (an executable bot's) with all they load - and the folders inside
    those a jail does not see."""
    python, hidden = _python_view()
    extra = []
    for program in programs:
        extra += [program, *interpreter_of(program)]
    return sorted({*ETC, *C_RUNTIME, *_gconv(), *python, *closure(extra), *extra}), \
        list(hidden)


def _gconv() -> list[str]:
    return [p for d in default_dirs() for p in glob.glob(os.path.join(d, "gconv",
                                                                       "gconv-modules.cache"))]


# -- in memory before a bot starts ---------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SYS_CACHESTAT = 451  # the same number on every architecture
_CHUNK = 1 << 20


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _CacheStat(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("cache", "dirty", "writeback", "evicted",
                                               "recently_evicted")]


_RANGE, _STAT = _Range(0, 0), _CacheStat()


def _cached_pages(fd: int) -> int | None:
    """How many of the file's pages are in memory, where the kernel says (``cachestat``,
    Linux 6.5; refused for a file the caller may not write)."""
    if _libc.syscall(SYS_CACHESTAT, fd, ctypes.byref(_RANGE), ctypes.byref(_STAT), 0) == 0:
        return _STAT.cache
    return None


def resident(fd: int, size: int) -> bool:
    """Whether every page of the open file ``fd`` (``size`` bytes) is in memory. Where
    ``cachestat`` is refused, a byte of each page is read with ``RWF_NOWAIT`` (which fails
    for a page not in memory, and starts reading it in)."""
    pages = (size + PAGE - 1) // PAGE
    cached = _cached_pages(fd)
    if cached is not None:
        return cached >= pages
    byte = bytearray(1)
    try:
        return all(os.preadv(fd, [byte], page * PAGE, os.RWF_NOWAIT) == 1
                   for page in range(pages))
    except (BlockingIOError, OSError):
        return False


def _read_in(fd: int, size: int) -> int:
    """Bring every page of ``fd`` into memory; returns the bytes it had to read from the
    disk's side (0 when all were in memory). Where ``cachestat`` is refused the file is read
    with ``RWF_NOWAIT`` (a copy from memory), a chunk read plainly where that stops short."""
    pages = (size + PAGE - 1) // PAGE
    cached = _cached_pages(fd)
    if cached is not None:
        if cached >= pages:
            return 0
        while os.read(fd, _CHUNK):
            pass
        return size
    buffer, offset, read = bytearray(_CHUNK), 0, 0
    while offset < size:
        try:
            got = os.preadv(fd, [buffer], offset, os.RWF_NOWAIT)
        except (BlockingIOError, OSError):  # not in memory (or no RWF_NOWAIT here)
            got = 0
        if got == 0:
            got = len(os.pread(fd, _CHUNK, offset))
            read += got
            if got == 0:
                break
        offset += got
    return read


_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Warmth:
    """What this process has made resident, and when (a path checked within ``FRESH``
    seconds is not checked again)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.checked: dict[str, float] = {}
        self.stats = {"files": 0, "read": 0, "bytes": 0}

    def warm(self, paths, hidden=()) -> dict:
        """Make every file under ``paths`` (files or folders, followed through links as a
        jail's root binds them) resident, and list every folder and read every link on the
        way; folders in ``hidden`` are not entered. Returns this process's counts."""
        now = time.monotonic()
        hidden = set(hidden)
        with self.lock:
            todo = [p for p in paths if now - self.checked.get(p, -FRESH - 1) > FRESH]
            for path in todo:
                self._path(path, hidden, 0)
                self.checked[path] = time.monotonic()
            return dict(self.stats)

    def _path(self, path: str, hidden: set, depth: int) -> None:
        if depth > 40:
            return
        try:
            if os.path.islink(path):
                target = os.readlink(path)  # as the jail's root makes it again
                self._path(os.path.join(os.path.dirname(path), target), hidden, depth + 1)
                return
            if os.path.isdir(path):
                self._folder(path, hidden)
            else:
                self._file(path, None)
        except OSError:
            pass  # a path this machine does not have, or this user cannot read

    def _folder(self, top: str, hidden: set) -> None:
        stack = [top]
        while stack:
            here = stack.pop()
            try:
                fd = os.open(here, _DIR_FLAGS)
            except OSError:
                continue
            try:
                for entry in os.scandir(fd):
                    path = os.path.join(here, entry.name)
                    try:
                        if entry.is_symlink():
                            os.readlink(entry.name, dir_fd=fd)
                        elif entry.is_dir(follow_symlinks=False):
                            if path not in hidden:
                                stack.append(path)
                        elif entry.is_file(follow_symlinks=False):
                            self._file(entry.name, fd)
                    except OSError:
                        continue
            finally:
                os.close(fd)

    def _file(self, name: str, dir_fd: int | None) -> None:
        try:
            fd = os.open(name, _FLAGS, dir_fd=dir_fd)
        except OSError:
            return
        try:
            size = os.fstat(fd).st_size
            self.stats["files"] += 1
            read = _read_in(fd, size)
            if read:
                self.stats["read"] += 1
                self.stats["bytes"] += read
            os.pread(fd, 1, 0)  # its one access-time update, spent now (if not already)
        except OSError:
            pass
        finally:
            os.close(fd)


_WARMTH = Warmth()


def warm(paths, hidden=()) -> dict:
    """This process's :class:`Warmth`: every file under ``paths`` in memory (see the
    module's docstring)."""
    return _WARMTH.warm(paths, hidden)
