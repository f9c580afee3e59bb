"""The runner side of the trust line: bot worker processes, their limits and their faults.

Every bot seat is a worker process (``arena.sandbox.worker``) started with the interpreter itself
(``sys.executable -I``), a clean environment, no inherited descriptors and its own session;
the worker jails itself (``arena.sandbox.jail``: namespaces, a root and a folder of its own, an
unprivileged user) and confines itself (``arena.sandbox.confine``) before it imports the bot. Its
log is kept by the runner, match by match (:class:`MatchLog`): what a Python bot prints comes
with its answers, each for its match (``arena.sandbox.worker``), and what any bot writes to
its stdout or stderr descriptors comes through a pipe, which it cannot read back or
rewrite, and which the runner reads after every answer. The runner talks to it
in JSON lines (``docs/protocol.md``), and turns anything that is not a timely, well-formed
answer into a :class:`~arena.errors.BotFault` with a plain reason - the referee makes that a
forfeit. A worker serves match after match (it gets ``start`` again); after a fault it is
killed and the next match starts a new one.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import orjson

from ..errors import BotFault, said, shown
from . import deltas, view

PROTOCOL = 1
MAX_LINE = 1 << 20  # longest answer a bot may send (bytes)
LOG_TAIL = 2000  # characters of a bot's log kept with a fault
LOG_KEEP = 1 << 16  # bytes of the end of a match's log the runner keeps
F_SETPIPE_SZ = 1031
_dumps, _loads, _NEWLINE, _clock = (orjson.dumps, orjson.loads, orjson.OPT_APPEND_NEWLINE,
                                    time.perf_counter)


@dataclass(frozen=True)
class Limits:
    """What each bot seat may use. Times in seconds; the CPU limit is per worker process
    (one fixture batch), the others per move or for the whole process."""

    move_s: float = 1.0  # wall time per move, before the bank is drawn on
    bank_s: float = 10.0  # extra wall time per match, spent as moves run over
    start_s: float = 10.0  # to start, import the bot and answer the first ``start``
    cpu_s: int = 600
    memory_mb: int = 1024  # address space
    file_size_mb: int = 16  # largest file it may write in its folder
    log_kb: int = 1024  # what it may write to its log in one match (stdout and stderr)
    open_files: int = 64
    threads: int = 64  # threads (and processes) of the bot's user: a thread bomb stops here
    disk_mb: int = 32  # its folder (a tmpfs of its own, /tmp): size ...
    files: int = 1000  # ... and how many files and folders it may hold
    #: refuse to run a bot where any isolation layer is missing (``arena doctor``), rather
    #: than run it with the layers this machine has
    strict: bool = False

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def parse(cls, text: str) -> Limits:
        """``"move_s=0.5,memory_mb=512"`` on top of the defaults; ArenaError if malformed."""
        from ..errors import ArenaError

        limits = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, _, value = part.partition("=")
            if key not in cls.__dataclass_fields__:
                raise ArenaError(f"unknown limit {key!r} (limits: "
                                 f"{', '.join(cls.__dataclass_fields__)})")
            kind = type(getattr(limits, key))
            try:
                number = kind(value) if kind is not bool else {"0": False, "1": True}[value]
            except (ValueError, KeyError):
                raise ArenaError(f"limit {key} needs a number, got {value!r}") from None
            if number <= 0 and kind is not bool:
                raise ArenaError(f"limit {key} must be above 0")
            limits = replace(limits, **{key: number})
        return limits


def missing_layers(limits: Limits) -> None:
    """With ``strict=1``: ArenaError naming every isolation layer this machine lacks (asked
    once per process)."""
    from ..errors import ArenaError

    if limits.strict:
        gaps = _gaps(replace(limits, strict=False))
        if gaps:
            raise ArenaError(f"strict=1: this machine lacks {', '.join(gaps)} ('arena "
                             "doctor' says why)")


@functools.lru_cache(maxsize=4)
def _gaps(limits: Limits) -> tuple[str, ...]:
    return tuple(name for name, (ok, _) in layer_checks(probe(limits)).items() if not ok)


def clean_env(home: str) -> dict:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home,
            "TMPDIR": home, "PYTHONHASHSEED": "0"}


@functools.lru_cache(maxsize=1)
def _installed_bot_paths() -> list[str]:
    from importlib import metadata

    return sorted({p for ep in metadata.entry_points(group="arena.bots")
                   for p in _module_paths(ep.value.partition(":")[0])})


def _module_paths(module: str) -> list[str]:
    """Where a top-level package lives, found without running any of its code."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    paths = list(spec.submodule_search_locations or [])
    return paths or ([os.path.dirname(spec.origin)] if spec.origin else [])


def read_paths(spec: dict) -> list[str]:
    """What a bot may read besides the system and the Python installation: its own files,
    the arena package and the installed bot packages (wherever an editable install keeps
    them), so a bot file may build on a reference bot. Never a path a manifest names: an
    executable's own files are those of its folder it names (``exec_spec``)."""
    own = _module_paths("arena") + _installed_bot_paths() + (
        [spec["path"]] if spec.get("path") else [])
    kind, target = spec["kind"], spec["target"]
    if kind == "module":
        return own + ([] if spec.get("path") else _module_paths(target.partition(":")[0]))
    if kind == "file":
        return own + [target]
    return own + list(spec.get("read", []))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Watchdog(threading.Thread):
    """Kills any worker still silent at its deadline (checked every few milliseconds)."""

    TICK = 0.005

    def __init__(self):
        super().__init__(name="arena-watchdog", daemon=True)
        self.workers: set = set()
        self.lock = threading.Lock()

    def watch(self, worker) -> None:
        with self.lock:
            self.workers.add(worker)
            if not self.is_alive():
                self.start()

    def forget(self, worker) -> None:
        with self.lock:
            self.workers.discard(worker)

    def run(self) -> None:
        while True:
            time.sleep(self.TICK)
            now = time.perf_counter()
            with self.lock:
                waited = [w for w in self.workers if w.deadline is not None]
                for w in waited:
                    if now > w.deadline:
                        w.timed_out = True
                        w.terminate()
            for w in waited:  # a bot that writes more than its log pipe holds goes on
                w.drain()


_watchdogs: dict[int, Watchdog] = {}


def watchdog() -> Watchdog:
    """This process's watchdog (a forked child needs its own thread)."""
    pid = os.getpid()
    if pid not in _watchdogs:
        _watchdogs.clear()
        _watchdogs[pid] = Watchdog()
    return _watchdogs[pid]


@functools.lru_cache(maxsize=8)
def _system_plan(system: tuple[str, ...]) -> tuple[list, list]:
    """The jail's plan (``jail.plan``) of the system's paths, made once by this runner: the
    same for every bot (the Python installation, the C library, ``/etc``'s few files); a
    worker plans its bot's own paths on top."""
    from . import jail

    return jail.plan(list(system))


@functools.cache
def libraries() -> dict[str, str | None]:
    """Where the C library and libseccomp are, looked up once in the runner: a worker would
    otherwise ask ``ldconfig`` again each time it starts (``ctypes.util.find_library``, which
    runs it: some tens of milliseconds a bot process)."""
    import ctypes.util

    return {name: ctypes.util.find_library(name) for name in ("c", "seccomp")}


class Worker:
    """One sandboxed bot process and its pipes."""

    def __init__(self, spec: dict, limits: Limits, mode: str | None = None, extra=None):
        from . import jail

        self.limits = limits
        self.dir: str | None = None
        missing_layers(limits)
        if spec and spec.get("content"):  # a stored version: its files as they were kept
            verify_stored(spec)
        if spec and spec.get("code_files") and spec.get("code"):
            verify_code(spec)
        if jail.available():
            home, cwd, write = "/tmp", "/", ["/tmp"]
        else:  # no root of its own here: a folder on disk, removed at close or next start
            _check_reachable()
            self.dir = home = cwd = _disk_folder()
            write = [self.dir]
        mode = mode or ("exec" if spec["kind"] == "exec" else "serve")
        system, hidden = view.system_paths([spec["target"][0]] if mode == "exec" else [])
        extra = dict(extra or {})
        read = sorted({*system, *(read_paths(spec) if spec else []), *extra.pop("read", [])})
        view.warm(read, hidden)  # every file it can read in memory before it starts
        binds, links = _system_plan(tuple(system))
        config = {"mode": mode, "bot": spec, "limits": limits.to_json(),
                  "read": read, "hidden": hidden, "write": write, "libraries": libraries(),
                  "plan": {"binds": binds, "links": links,
                           "rest": sorted(set(read) - set(system))},
                  "jail": {"uids": _bot_uids(), "disk_folder": self.dir,
                           "folder": {"disk_mb": limits.disk_mb, "files": limits.files}},
                  **(extra or {})}
        self.log_fd, write_end = os.pipe()  # its stdout and stderr: what it writes, in order
        try:
            fcntl.fcntl(self.log_fd, F_SETPIPE_SZ, 1 << 20)  # room for a verbose move
        except OSError:
            pass
        os.set_blocking(self.log_fd, False)
        self.log_lock = threading.Lock()  # the watchdog drains it too, while a move runs
        self.log_poll = select.poll()
        self.log_poll.register(self.log_fd, select.POLLIN)
        self.raw, self.raw_bytes = bytearray(), 0  # read from the pipe, not yet taken
        try:
            self.proc = _spawn(config, write_end, cwd, clean_env(home))
        except BaseException:
            os.close(self.log_fd)
            raise
        finally:
            os.close(write_end)
        self.rfd, self.wfd = self.proc.stdout.fileno(), self.proc.stdin.fileno()
        self.buffer = b""
        self.held = b""  # messages without an answer, sent with the next one (``hold``)
        self.deadline: float | None = None  # the watchdog kills the process after this
        self.timed_out = False
        watchdog().watch(self)

    # -- messages ------------------------------------------------------------------------

    def send(self, message: dict) -> None:
        data = _dumps(message, option=_NEWLINE)
        if self.held:
            data, self.held = self.held + data, b""
        try:
            os.write(self.wfd, data)
        except OSError:
            raise self.fault("exited") from None

    def hold(self, message: dict) -> None:
        """Send ``message`` (one that has no answer, such as ``end``) with the next one:
        on its own it would cost a switch to the bot and back."""
        self.held += _dumps(message, option=_NEWLINE)

    def receive(self, timeout: float, since: float | None = None) -> dict:
        """The next line, parsed; BotFault on timeout, exit, or a malformed answer.

        The read blocks (no poll per message, which is most of a round trip's cost); the
        watchdog thread kills the process ``timeout`` seconds after ``since`` (default: now),
        which ends the read."""
        self.deadline = (since or _clock()) + timeout
        buffer = self.buffer
        try:
            while b"\n" not in buffer:  # the usual case: one read holds the whole answer
                data = os.read(self.rfd, 1 << 16)
                if not data:
                    raise self.fault("timeout" if self.timed_out else "exited")
                buffer += data
                if len(buffer) > MAX_LINE and b"\n" not in buffer[:MAX_LINE + 1]:
                    raise self.fault(f"protocol error: a line longer than {MAX_LINE} bytes")
        finally:
            self.deadline = None
        line, _, self.buffer = buffer.partition(b"\n")
        try:
            message = _loads(line)
        except orjson.JSONDecodeError:
            raise self.fault(f"protocol error: not JSON: {line[:80]!r}") from None
        if type(message) is not dict:
            raise self.fault(f"protocol error: not a JSON object: {line[:80]!r}")
        return message

    def ask(self, message: dict, expect: str, timeout: float, since: float | None = None) -> dict:
        """Send ``message`` and return the answer, which must be of type ``expect``."""
        self.send(message)
        answer = self.receive(timeout, since)
        kind = answer.get("type")
        if kind != expect:
            if kind == "error":
                raise self.fault(said(answer.get("error")))
            raise self.fault(f"protocol error: expected {expect!r}, got "
                             f"{shown(answer)!r}")
        return answer

    # -- ending --------------------------------------------------------------------------

    def fault(self, reason: str) -> BotFault:
        """Kill the process and describe what went wrong, from its exit if it died. What it
        wrote to its pipe is read to the end (``take_raw``)."""
        if reason == "exited":  # its stdout closed: give it a moment to finish dying
            try:
                self.proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        code = self.proc.returncode
        if reason == "exited" or (reason == "timeout" and code != -signal.SIGKILL):
            if code == -signal.SIGKILL:
                reason = "crash: exited" if reason == "exited" else reason
            elif code < 0:
                number = -code
                reason = ("cpu time exceeded" if number == signal.SIGXCPU else
                          "file size exceeded" if number == signal.SIGXFSZ else
                          f"crash: killed by {_signal_name(number)}")
            else:
                reason = f"crash: exited with status {code}"
        self.drain()
        return BotFault(reason)

    def terminate(self) -> None:
        """SIGKILL the bot. In a jail, its init is killed (the kernel then kills every
        process of the jail, and the init ends last) and the keeper, which waits for the
        init, ends after them: so once the keeper is reaped nothing of the bot is left. With
        no jail, its whole process group."""
        inner = []
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                inner = [int(pid) for pid in f.read().split()]
        except (OSError, ValueError):
            pass
        try:
            for pid in inner:
                os.kill(pid, signal.SIGKILL)
            if not inner:
                os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        watchdog().forget(self)
        if self.proc.poll() is None:
            self.terminate()
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        try:  # anything it left behind in its group goes with it
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    # -- its log -------------------------------------------------------------------------

    def drain(self) -> None:
        """Read what is in its log pipe (the watchdog does, while a move runs, so that a bot
        writing more than the pipe holds is not held up)."""
        with self.log_lock:
            self._drain()

    def _drain(self) -> None:
        while self.log_fd >= 0 and self.log_poll.poll(0):
            try:
                data = os.read(self.log_fd, 1 << 16)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:  # every end closed: the process is gone
                self.log_poll.unregister(self.log_fd)
                os.close(self.log_fd)
                self.log_fd = -1
                return
            self.raw_bytes += len(data)
            self.raw += data
            if len(self.raw) > 2 * LOG_KEEP:
                del self.raw[:-LOG_KEEP]

    def take_raw(self) -> tuple[bytes, int]:
        """What it has written to its stdout and stderr descriptors since the last take:
        the end of it (``LOG_KEEP`` bytes) and how many bytes in all. Everything it wrote
        before its last answer is there."""
        with self.log_lock:
            self._drain()
            if not self.raw_bytes:
                return b"", 0
            out = bytes(self.raw[-LOG_KEEP:]), self.raw_bytes
            self.raw.clear()
            self.raw_bytes = 0
            return out

    def log_tail(self, size: int = LOG_TAIL) -> str:
        """The end of what it has written to its descriptors and not yet been taken."""
        with self.log_lock:
            self._drain()
            return bytes(self.raw[-size:]).decode(errors="replace")

    def close(self) -> None:
        if self.held and self.alive:
            try:
                os.write(self.wfd, self.held)
            except OSError:
                pass
            self.held = b""
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.kill()
        with self.log_lock:
            if self.log_fd >= 0:
                os.close(self.log_fd)
                self.log_fd = -1
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def _spawn(config: dict, log, cwd: str, env: dict):
    """Start a worker process: forked from this runner's template process where it has one
    (``arena.sandbox.zygote``), else with the interpreter. A machine out of processes or
    memory (EAGAIN, ENOMEM) is given a moment (bots exiting free both), then it is the
    runner's error, not a bot's."""
    from ..errors import ArenaError
    from . import zygote

    for attempt in range(5):
        try:
            found = zygote.template(libraries(), clean_env("/"))
            if found is not None:
                return _forked(found, config, log, cwd, env)
            return subprocess.Popen(
                [sys.executable, "-I", "-m", "arena.sandbox.worker",
                 orjson.dumps(config).decode()], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log, cwd=cwd, env=env, close_fds=True,
                start_new_session=True, bufsize=0)
        except (BlockingIOError, MemoryError, OSError) as e:
            if getattr(e, "errno", None) not in (errno.EAGAIN, errno.ENOMEM, None):
                raise
            last = e
            time.sleep(0.05 * 2 ** attempt)
    raise ArenaError(f"cannot start a bot process: {last} (the machine is out of processes "
                     "or memory); what was played is stored - resume once it has room")


def _forked(template, config: dict, log: int, cwd: str, env: dict):
    """A worker forked from ``template``, its pipes made here as ``Popen`` makes them."""
    from .zygote import Child

    bot_in, to_bot = os.pipe2(os.O_CLOEXEC)
    from_bot, bot_out = os.pipe2(os.O_CLOEXEC)
    try:
        pid = template.spawn({"config": config, "cwd": cwd, "env": env}, bot_in, bot_out,
                             log)
    except BaseException:
        for fd in (to_bot, from_bot):
            os.close(fd)
        raise
    finally:
        os.close(bot_in)
        os.close(bot_out)
    return Child(pid, os.fdopen(to_bot, "wb", buffering=0),
                 os.fdopen(from_bot, "rb", buffering=0))


@functools.lru_cache(maxsize=1)
def _bot_uids() -> list[int]:
    from ..errors import ArenaError
    from . import jail

    try:
        return list(jail.parse_uids(os.environ.get("ARENA_BOT_UIDS")))
    except ValueError as e:
        raise ArenaError(str(e)) from None


def _check_reachable() -> None:
    """Without namespaces, a root runner's bot runs as a user of its own, who must be able
    to read the Python installation and arena: ArenaError (one line) where it cannot."""
    from ..errors import ArenaError
    from . import jail

    if os.geteuid() != 0:
        return
    blocked = jail.unreachable_for_others([sys.prefix, sys.base_prefix, sys.exec_prefix,
                                           *_module_paths("arena")])
    if blocked:
        raise ArenaError(f"bots cannot run on this machine as it is: it gives them no "
                         f"namespaces, so each runs as a user of its own, who cannot read "
                         f"{blocked} (the Python installation or arena); install them where "
                         "every user may read them, or run arena as a user other than root")


_FOLDER_PREFIX = "arena-bot-"


def _disk_folder() -> str:
    """A bot's folder on disk (where it cannot have a tmpfs of its own), named for this
    process; the first one a process makes removes those of processes that are gone."""
    if not _disk_folder.swept:
        _disk_folder.swept = True
        base = tempfile.gettempdir()
        for name in os.listdir(base):
            owner = name[len(_FOLDER_PREFIX):].partition("-")[0]
            if name.startswith(_FOLDER_PREFIX) and owner.isdigit() and not _alive(int(owner)):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-")


_disk_folder.swept = False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def verify_stored(spec: dict) -> None:
    """A stored version's files must still be the ones kept (their content hash): else
    ArenaError, and it does not run."""
    from ..errors import ArenaError
    from .files import tree_hash

    folder = spec["stored"]
    if tree_hash(folder) != spec["content"]:
        raise ArenaError(f"bot {spec.get('name', '?')}: its stored files in {folder} have "
                         "been changed since it was submitted; it will not run (restore them, "
                         "or submit it again as a new version)")


def verify_code(spec: dict) -> None:
    """A bot's files (a bots folder's file, an executable's manifest and own files) must be
    the ones listed (its code hash, as its season recorded it): else ArenaError."""
    from ..errors import ArenaError
    from .files import digest_of

    try:
        same = digest_of(spec["code_files"]) == spec["code"]
    except OSError:
        same = False
    if not same:
        raise ArenaError(f"bot {spec.get('name', '?')}: {spec['code_files'][0]} has changed "
                         "since it was listed; it does not play (restore it, and a season "
                         "with it resumes)")


def _count(value) -> int:
    return value if type(value) is int and value > 0 else 0


class MatchLog:
    """What a bot wrote in one match: the end of it (``LOG_KEEP`` bytes) and how many bytes
    in all - its own, and what it wrote while serving other matches too (``shared``: from
    a process serving several at once, what cannot be told apart)."""

    __slots__ = ("parts", "kept", "own", "shared")

    def __init__(self):
        self.parts: list[bytes] = []
        self.kept = self.own = self.shared = 0

    def add(self, data: bytes, size: int = -1, shared: bool = False) -> None:
        """Add ``data``; ``size``: the bytes it stands for (more than it holds where only
        its end was kept)."""
        size = max(size, len(data))
        if shared:
            self.shared += size
        else:
            self.own += size
        if data:
            self.parts.append(data)
            self.kept += len(data)
            if self.kept > 2 * LOG_KEEP:
                self.parts = [b"".join(self.parts)[-LOG_KEEP:]]
                self.kept = LOG_KEEP

    def add_answer(self, answer: dict | None, raw: tuple[bytes, int],
                   shared: bool = False) -> None:
        """What the process wrote before ``answer`` (``raw``: the end of it and its size),
        but for what the answer says came before the message it answers (``log_other``);
        ``shared``: written for this match and others, which cannot be told apart."""
        data, size = raw
        if answer is not None and size:
            size -= min(_count(answer.get("log_other")), size)
            data = data[len(data) - min(size, len(data)):]
        if size:
            self.add(data, size, shared)

    def tail(self, size: int = LOG_TAIL) -> str:
        return b"".join(self.parts)[-size:].decode(errors="replace")

    def over(self, limits: Limits) -> str | None:
        """The fault of a log past ``limits.log_kb``, or None."""
        if self.own + self.shared <= limits.log_kb * 1024:
            return None
        return (f"log limit: it wrote more than log_kb={limits.log_kb} KiB to its log in "
                "this match")


def split_log(answer: dict, items: list, raw: tuple[bytes, int]) -> list | None:
    """The parts of ``raw`` (what a process wrote before an answer for several matches)
    that are each item's - ``(data, size)`` in the items' order - where the answer counts
    them (``log_other``, then each item's ``log_bytes``) and the counts add up; else None."""
    data, size = raw
    sizes = [_count(item.get("log_bytes")) if type(item) is dict else 0 for item in items]
    if _count(answer.get("log_other")) + sum(sizes) != size:
        return None
    parts, end = [], len(data)
    for n in reversed(sizes):  # what was kept is the end: the last items' whole
        start = max(0, end - n)
        parts.append((data[start:end], n))
        end = start
    return parts[::-1]


_MISSING = object()


def _open(spec: dict, limits: Limits) -> Worker:
    from .remote import open_worker

    return open_worker(spec, limits)


class SandboxBot:
    """The Bot interface (``start``, ``act``, ``end``) over a worker process (or a remote
    bot's relay: ``arena.sandbox.remote``)."""

    def __init__(self, name: str, spec: dict, limits: Limits | None = None,
                 offer_deltas: bool = True):
        self.name, self.spec, self.limits = name, spec, limits or Limits()
        self.offer_deltas = offer_deltas  # offer observation deltas at each start
        self.worker: Worker | None = _open(spec, self.limits)  # boots while others do
        self.bank = self.limits.bank_s
        self.log = MatchLog()  # this match's
        self.move_times: list[float] | None = None  # set to a list to record them
        self.deltas, self.sent = False, None  # observation deltas: asked for, last sent

    def start(self, info: dict) -> None:
        if self.worker is None or not self.worker.alive:
            self.close()
            self.worker = _open(self.spec, self.limits)
        self.bank = self.limits.bank_s
        self.log = MatchLog()
        message = {"type": "start", "protocol": PROTOCOL, **info,
                   "limits": {"move_s": self.limits.move_s, "bank_s": self.limits.bank_s},
                   "options": self.spec.get("options", {}),
                   "deltas": self.offer_deltas and info.get("game") not in deltas.WHOLE}
        try:
            answer = self.worker.ask(message, "ready", self.limits.start_s)
            self._logged(answer)
        except BotFault as fault:
            raise self._lost(fault) from None
        self.deltas = answer.get("deltas") is True  # it asked for them (docs/protocol.md)
        self.sent = None

    def act(self, observation: dict, legal: list):
        start = _clock()
        if self.deltas and self.sent is not None:
            message = {"type": "act", "delta": deltas.diff(self.sent, observation),
                       "legal": legal}
        else:
            message = {"type": "act", "observation": observation, "legal": legal}
        if self.deltas:
            self.sent = observation
        try:
            answer = self.worker.ask(message, "action", self.limits.move_s + self.bank, start)
            self._logged(answer)
            action = answer.get("action", _MISSING)
            if action is _MISSING:
                raise self.worker.fault('protocol error: an action message without "action"')
        except BotFault as fault:
            raise self._lost(fault) from None
        spent = _clock() - start
        if spent > self.limits.move_s:
            self.bank -= spent - self.limits.move_s
        if self.move_times is not None:
            self.move_times.append(spent)
        return action

    def values(self, observation: dict, legal: list) -> list:
        """A reviewer's valuation of every legal action (``arena review``,
        docs/protocol.md): what its ``values`` answered, unchecked; within the move time and
        the bank, as a move is."""
        start = _clock()
        try:
            answer = self.worker.ask({"type": "values", "observation": observation,
                                      "legal": legal}, "values",
                                     self.limits.move_s + self.bank, start)
            self._logged(answer)
        except BotFault as fault:
            raise self._lost(fault) from None
        spent = _clock() - start
        if spent > self.limits.move_s:
            self.bank -= spent - self.limits.move_s
        return answer.get("values")

    def end(self, result: dict) -> None:
        if self.worker is not None and self.worker.alive:
            self.worker.hold({"type": "end", "result": result})  # with the next start

    def log_tail(self, size: int = LOG_TAIL) -> str:
        """The end of what the bot has written in this match."""
        if self.worker is not None:
            self.log.add_answer(None, self.worker.take_raw())
        return self.log.tail(size)

    def _logged(self, answer: dict) -> None:
        """Keep what the bot logged up to ``answer``; a fault if that is past its limit."""
        self.log.add_answer(answer, self.worker.take_raw())
        over = self.log.over(self.limits)
        if over:
            raise self.worker.fault(over)

    def _lost(self, fault: BotFault) -> BotFault:
        """After any fault the worker is gone (a new one serves the next match); the fault,
        with the tail of the bot's log in this match, goes on to the referee."""
        if self.worker is not None:
            self.log.add_answer(None, self.worker.take_raw())
        fault.log = self.log.tail()
        self.worker.close()
        self.worker = None
        return fault

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def exec_spec(manifest: Path, data: dict) -> dict:
    """The launch spec of an executable bot from its ``NAME.toml`` manifest. The program is
    a file of its folder or a program of the system (on ``PATH``, or the Python
    installation's); an argument naming a file or folder inside the manifest's folder is
    made absolute and may be read - its own files (``read``); any other argument is text
    passed on, never a path the bot may read."""
    from ..errors import PluginError

    command = data.get("command")
    if isinstance(command, str):
        command = command.split()
    if not command or not all(isinstance(c, str) for c in command):
        raise PluginError(f"{manifest}: 'command' must be a command line or a list of strings")
    here = manifest.parent.resolve()
    program = command[0]
    if "/" in program:  # as written (a venv's python finds its venv by the path it runs as)
        program = os.path.abspath(here / program)
    else:
        program = shutil.which(program, path=clean_env("")["PATH"]) or program
    if not os.path.exists(program):
        raise PluginError(f"{manifest}: program not found: {command[0]}")
    own = [str(manifest.resolve())]
    real = Path(program).resolve()
    if _inside(real, here):
        own.append(str(real))
    elif not any(_inside(real, Path(p).resolve()) for p in _SYSTEM_PROGRAMS()):
        raise PluginError(f"{manifest}: program {command[0]} is neither in the bot's folder "
                          "nor a program of the system")
    args = []
    for arg in command[1:]:
        path = here / arg
        if arg and os.path.lexists(path) and _inside(path.resolve(), here):
            args.append(str(path.resolve()))
            own.append(str(path.resolve()))
        else:
            args.append(arg)
    return {"kind": "exec", "target": [program, *args], "read": sorted(set(own))}


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _SYSTEM_PROGRAMS() -> list[str]:  # noqa: N802 - a constant, computed when asked
    return [*view.SYSTEM, "/opt", sys.prefix, sys.base_prefix, sys.exec_prefix]


def probe(limits: Limits | None = None) -> dict:
    """What holds for a bot process on this machine, from inside one: its jail, its
    limits, and what came of trying what a bot may not do (``layer_checks`` reads it)."""
    limits = replace(limits or Limits(), strict=False)
    with tempfile.NamedTemporaryFile(prefix="arena-canary-") as canary:
        worker = Worker({"kind": "module", "target": "arena"}, limits, mode="probe",
                        extra={"canary": canary.name})
        try:
            answer = worker.receive(limits.start_s)
        finally:
            worker.close()
    answer["runner_root"] = os.geteuid() == 0
    answer["uids"] = _bot_uids()
    answer["limits"] = {"threads": limits.threads, "disk_mb": limits.disk_mb}
    return answer


def layer_checks(probe: dict) -> dict[str, tuple[bool, str]]:
    """Each isolation layer: whether it holds here, and what the probe saw."""
    jailed, facts, refused = probe["jail"], probe["facts"], probe["refused"]
    spaces = set(jailed["namespaces"])
    uid = facts["uid"]
    size = facts["tmp_total"] / (1024 * 1024)
    calls = [k for k in ("io_uring_setup", "inotify_init1", "fanotify_init", "socket", "fork",
                         "futex_shared", "file_locks", "page_cache_probe")
             if not refused.get(k, False)]
    return {
        "unprivileged user": (uid != 0 and facts["euid"] != 0 and (
            not probe["runner_root"] or probe["uids"][0] <= uid <= probe["uids"][1]),
            f"uid {uid}" + (" (its own)" if probe["runner_root"] else " (the runner's)")),
        "no capabilities": (facts["capabilities"] and facts["no_new_privs"],
                            "none held, no_new_privs" if facts["capabilities"] else
                            "capabilities held"),
        "pid namespace": ("pid" in spaces and facts["processes_seen"] <= 2,
                          f"it sees {facts['processes_seen']} processes (its init and itself)"),
        "user namespace": ("user" in spaces, "its own" if "user" in spaces else
                           jailed.get("why") or "refused"),
        "mount namespace": (jailed["root"] and refused["runner_files"],
                            "a root of its own" if jailed["root"] else
                            jailed.get("why") or "refused"),
        "network namespace": ("net" in spaces and facts["interfaces"] == ["lo"],
                              f"interfaces: {', '.join(facts['interfaces']) or 'none seen'}"),
        "ipc namespace": ("ipc" in spaces, "its own" if "ipc" in spaces else "refused"),
        "private folder": (jailed["root"] and 0 < size <= probe["limits"]["disk_mb"] + 1,
                           f"a tmpfs of {size:.0f} MiB" if jailed["root"] else
                           "a folder on disk"),
        "rlimits": (bool(probe["rlimits"]), f"threads {probe['limits']['threads']}, memory, "
                    "CPU, file size, open files"),
        "seccomp": (bool(probe["seccomp"]) and not calls,
                    (probe["seccomp"] or "libseccomp missing") + (
                        f"; allowed: {', '.join(calls)}" if calls else "")),
        "landlock": (probe["landlock"] > 0 and refused["runner_files"],
                     f"ABI {probe['landlock']}" if probe["landlock"] else "kernel without it"),
    }


def list_sources(groups: list[list[dict]], limits: Limits | None = None,
                 at_once: int = 4) -> list[dict]:
    """Ask sandboxed workers what each bot source registers: one answer per source, in the
    order of ``groups`` flattened. Each group (the modules of one installed distribution;
    a bots folder's file alone) is listed by a worker of its own that may read that
    group's files and nothing of the others' (a file of a bots folder never sees another,
    nor where a link in the folder points); ``at_once`` of them start together. A source
    that kills or hangs its worker is reported as failed, and the rest of its group is
    listed by a fresh worker."""
    limits = limits or Limits()
    answers: list[dict] = []
    todo = [list(group) for group in groups if group]
    while todo:
        started, todo = todo[:at_once], todo[at_once:]
        workers = []
        try:
            for group in started:
                read = sorted({p for source in group for p in read_paths(source)})
                workers.append((group, Worker({"kind": "module", "target": "arena",
                                               "read": read}, limits, mode="list",
                                              extra={"sources": group, "read": read})))
            for group, worker in workers:
                for i, source in enumerate(group):
                    try:
                        answers.append(worker.receive(limits.start_s))
                    except BotFault as fault:
                        answers.append({"source": source["target"], "error": fault.reason})
                        answers.extend(list_sources([group[i + 1:]], limits))
                        break
        finally:
            for _, worker in workers:
                worker.close()
    return answers
