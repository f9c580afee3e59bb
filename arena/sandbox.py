"""The runner side of the trust line: bot worker processes, their limits and their faults.

Every bot seat is a worker process (``arena.worker``) started with the interpreter itself
(``sys.executable -I``), a clean environment, no inherited descriptors, its own session and a
private folder; the worker confines itself before it imports the bot. The runner talks to it
in JSON lines (``docs/protocol.md``), and turns anything that is not a timely, well-formed
answer into a :class:`~arena.errors.BotFault` with a plain reason - the referee makes that a
forfeit. A worker serves match after match (it gets ``start`` again); after a fault it is
killed and the next match starts a new one.
"""

from __future__ import annotations

import functools
import os
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

from .errors import BotFault

PROTOCOL = 1
MAX_LINE = 1 << 20  # longest answer a bot may send (bytes)
LOG_TAIL = 2000  # characters of a bot's log kept with a fault
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
    file_size_mb: int = 16  # largest file it may write, its log included
    open_files: int = 64
    strict: bool = False  # also run it in bubblewrap's namespaces (no other process visible)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def parse(cls, text: str) -> Limits:
        """``"move_s=0.5,memory_mb=512"`` on top of the defaults; ArenaError if malformed."""
        from .errors import ArenaError

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
    """What a bot may read besides the system and the Python environment: its own files,
    the arena package and the installed bot packages (wherever an editable install keeps
    them), so a bot file may build on a reference bot."""
    own = _module_paths("arena") + _installed_bot_paths() + (
        [spec["path"]] if spec.get("path") else [])
    kind, target = spec["kind"], spec["target"]
    if kind == "module":
        return own + ([] if spec.get("path") else _module_paths(target.partition(":")[0]))
    if kind == "file":
        return own + [target]
    return own + [a for a in target if os.path.exists(a)] + list(spec.get("read", []))


def bubblewrap(folder: str, read: list[str]) -> list[str]:
    """The ``bwrap`` prefix of strict mode: new user, PID, network, IPC and UTS namespaces, a
    read-only view of the system, an empty ``/tmp`` (but for the bot's own ``read`` files)
    and only the bot's folder writable."""
    from .errors import ArenaError

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ArenaError("strict=1 needs bubblewrap (apt install bubblewrap)")
    return [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
            "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            *[a for p in [*read, sys.prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
              if os.path.exists(p) for a in ("--ro-bind", p, p)],
            "--bind", folder, folder, "--chdir", folder, "--"]


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
                late = [w for w in self.workers if w.deadline is not None and now > w.deadline]
                for w in late:
                    w.timed_out = True
                    w.terminate()


_watchdogs: dict[int, Watchdog] = {}


def watchdog() -> Watchdog:
    """This process's watchdog (a forked child needs its own thread)."""
    pid = os.getpid()
    if pid not in _watchdogs:
        _watchdogs.clear()
        _watchdogs[pid] = Watchdog()
    return _watchdogs[pid]


class Worker:
    """One sandboxed bot process and its pipes."""

    def __init__(self, spec: dict, limits: Limits, mode: str | None = None, extra=None):
        self.limits = limits
        self.dir = tempfile.mkdtemp(prefix="arena-bot-")
        self.log_path = os.path.join(self.dir, "bot.log")
        mode = mode or ("exec" if spec["kind"] == "exec" else "serve")
        config = {"mode": mode, "bot": spec, "limits": limits.to_json(),
                  "read": read_paths(spec) if spec else [], "write": [self.dir], **(extra or {})}
        command = [sys.executable, "-I", "-m", "arena.worker", orjson.dumps(config).decode()]
        if limits.strict:
            command = bubblewrap(self.dir, config["read"]) + command
        self.strict = limits.strict
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=self.dir,
                env=clean_env(self.dir), close_fds=True, start_new_session=True, bufsize=0)
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
                raise self.fault(str(answer.get("error"))[:300])
            raise self.fault(f"protocol error: expected {expect!r}, got "
                             f"{_dumps(answer)[:80].decode(errors='replace')!r}")
        return answer

    # -- ending --------------------------------------------------------------------------

    def fault(self, reason: str) -> BotFault:
        """Kill the process and describe what went wrong, from its exit if it died."""
        if reason == "exited":  # its stdout closed: give it a moment to finish dying
            try:
                self.proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        code = self.proc.returncode
        if self.strict and code is not None and code > 128:  # bubblewrap passes signals on
            code = 128 - code
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
        return BotFault(reason, self.log_tail())

    def terminate(self) -> None:
        """SIGKILL the bot. In strict mode only bubblewrap's child (the namespace's first
        process, whose death ends every process inside) is killed, so that bubblewrap itself
        reaps it and exits - killing both at once would orphan a zombie."""
        inner = []
        if self.strict:
            try:
                with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                    inner = [int(pid) for pid in f.read().split()]
            except OSError:
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

    def log_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(max(0, os.path.getsize(self.log_path) - LOG_TAIL))
                return log.read().decode(errors="replace")
        except OSError:
            return ""

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
        if self.strict:  # let bubblewrap see its child end on EOF and reap it
            try:
                self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


_MISSING = object()


class SandboxBot:
    """The Bot interface (``start``, ``act``, ``end``) over a worker process."""

    def __init__(self, name: str, spec: dict, limits: Limits | None = None):
        self.name, self.spec, self.limits = name, spec, limits or Limits()
        self.worker: Worker | None = Worker(spec, self.limits)  # boots while others do
        self.bank = self.limits.bank_s
        self.log = ""
        self.move_times: list[float] | None = None  # set to a list to record them

    def start(self, info: dict) -> None:
        if self.worker is None or not self.worker.alive:
            self.close()
            self.worker = Worker(self.spec, self.limits)
        self.bank = self.limits.bank_s
        message = {"type": "start", "protocol": PROTOCOL, **info,
                   "limits": {"move_s": self.limits.move_s, "bank_s": self.limits.bank_s},
                   "options": self.spec.get("options", {})}
        try:
            self.worker.ask(message, "ready", self.limits.start_s)
        except BotFault as fault:
            raise self._lost(fault) from None

    def act(self, observation: dict, legal: list):
        start = _clock()
        try:
            answer = self.worker.ask({"type": "act", "observation": observation, "legal": legal},
                                     "action", self.limits.move_s + self.bank, start)
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

    def end(self, result: dict) -> None:
        if self.worker is not None and self.worker.alive:
            self.worker.hold({"type": "end", "result": result})  # with the next start

    def log_tail(self) -> str:
        """The end of what the bot wrote to stderr so far (its process's log)."""
        return self.worker.log_tail() if self.worker is not None else self.log

    def _lost(self, fault: BotFault) -> BotFault:
        """After any fault the worker is gone (a new one serves the next match); the fault,
        with the bot's log tail, goes on to the referee."""
        self.log = fault.log
        self.worker.close()
        self.worker = None
        return fault

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def exec_spec(manifest: Path, data: dict) -> dict:
    """The launch spec of an executable bot from its ``NAME.toml`` manifest."""
    from .errors import PluginError

    command = data.get("command")
    if isinstance(command, str):
        command = command.split()
    if not command or not all(isinstance(c, str) for c in command):
        raise PluginError(f"{manifest}: 'command' must be a command line or a list of strings")
    here = manifest.parent
    program = command[0]
    if "/" in program:
        program = str((here / program).resolve())
    else:
        program = shutil.which(program, path=clean_env("")["PATH"]) or program
    if not os.path.exists(program):
        raise PluginError(f"{manifest}: program not found: {command[0]}")
    args = [str((here / a).resolve()) if (here / a).exists() else a for a in command[1:]]
    return {"kind": "exec", "target": [program, *args]}


def probe(limits: Limits | None = None) -> dict:
    """Which isolation layers a worker gets on this machine."""
    worker = Worker({"kind": "module", "target": "arena"}, limits or Limits(), mode="probe")
    try:
        return worker.receive(worker.limits.start_s)
    finally:
        worker.close()


def list_sources(sources: list[dict], limits: Limits | None = None) -> list[dict]:
    """Ask sandboxed workers what each bot source registers: one answer per source, in
    order; a source that kills or hangs its worker is reported as failed and the others are
    listed by a fresh worker."""
    limits = limits or Limits()
    answers: list[dict] = []
    while len(answers) < len(sources):
        rest = sources[len(answers):]
        read = [p for s in rest for p in read_paths(s)]
        worker = Worker({"kind": "module", "target": "arena", "read": read}, limits,
                        mode="list", extra={"sources": rest, "read": read})
        try:
            while len(answers) < len(sources):
                answers.append(worker.receive(limits.start_s))
        except BotFault as fault:
            answers.append({"source": rest[len(answers) - (len(sources) - len(rest))]["target"],
                            "error": fault.reason})
        finally:
            worker.close()
    return answers
