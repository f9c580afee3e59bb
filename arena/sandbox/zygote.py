"""A template process forked for each bot (a zygote), so a bot is ready in milliseconds.

Starting a worker with the interpreter (``python -I -m arena.sandbox.worker``) costs tens
of milliseconds of CPU before the bot is even looked at: the interpreter's start, then the
imports of the worker's modules (pluggy, orjson, ctypes, libseccomp). Browsers and
Android start their sandboxed processes from a *zygote* instead: a template process that
has made that start once and is forked for each one. Here:

* the **template** is ``python -I -m arena.sandbox.zygote``, started by the runner process
  (one per runner process, when its first bot starts) with a clean environment, no
  descriptor but a socket to the runner, a session of its own, and the signal to die with
  the runner. It imports the worker's modules, loads libseccomp and imports arena's game
  engines (``ENGINES``) - and nothing else: it
  never loads a bot, never reads a bot's file, and is never sent a secret, a seed or an
  observation (those go to the bot over its own pipes, after it starts). It serves one
  request at a time: the worker's config and three descriptors (the bot's stdin, stdout
  and log pipes), passed over the socket;
* for each request it **forks twice**: the first child forks the bot process and exits at
  once, so the bot is re-parented to the runner, which marks itself a *child subreaper*
  (``PR_SET_CHILD_SUBREAPER``) - the bot is then the runner's child as a process it had
  started itself would be: the runner waits for it, reads its exit status and kills its
  process group exactly as before (:class:`Child` is the ``subprocess.Popen`` the
  runner's ``Worker`` uses);
* the **bot process** takes its three pipes as its descriptors 0-2 (closing every other),
  starts a session of its own, takes the request's working folder and environment, draws
  fresh seeds for Python's ``random``, and runs the worker (``arena.sandbox.worker.run``)
  - which builds the jail of today from there (namespaces, root, user, limits, Landlock,
  seccomp) before it loads the bot's code, and never returns to the template's loop.

What one bot could learn of another through the template: the template holds the modules it
imported and, while it serves a request, that request - read into one buffer, which it
zeroes once the bot is forked (each bot's copy of the template's memory holds its own
request only: its paths, names and limits, none of them secret). A bot runs under its own
uid, in its own pid namespace, so it can neither see nor signal nor trace the template
(tests/test_zygote.py checks it from inside a bot, and reads the template's memory).

``ARENA_ZYGOTE=0`` starts every worker with the interpreter as before (for comparison:
the results are the same either way).
"""

from __future__ import annotations

import array
import ctypes
import importlib
import os
import select
import socket
import struct
import subprocess
import sys
import threading

import orjson

#: arena's game engines, imported by the template (no bot's code: the rules every bot's
#: worlds and search use, loaded once instead of by each bot)
ENGINES = ("arena.games.vandtia", "arena.games.tractor", "arena.games.cherki")
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
#: the largest request (a worker's config: its readable paths are most of it)
REQUEST_MAX = 4 << 20
_FDS = 3  # the bot's stdin, stdout and log


class Child:
    """A bot process the template forked, re-parented to this runner: what ``Worker`` uses
    of ``subprocess.Popen`` (``pid``, ``stdin``, ``stdout``, ``poll``, ``wait``,
    ``returncode``)."""

    def __init__(self, pid: int, stdin, stdout):
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None

    def _reaped(self, flags: int) -> bool:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped already (as Popen says: nothing to tell)
            self.returncode = 0 if self.returncode is None else self.returncode
            return True
        if pid == 0:
            return False
        self.returncode = os.waitstatus_to_exitcode(status)
        return True

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reaped(os.WNOHANG)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        if timeout is not None and not self._reaped(os.WNOHANG):
            try:
                fd = os.pidfd_open(self.pid)
            except ProcessLookupError:
                fd = None
            if fd is not None:
                try:
                    ready = select.poll()
                    ready.register(fd, select.POLLIN)
                    if not ready.poll(max(0, int(timeout * 1000))):
                        raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout)
                finally:
                    os.close(fd)
        while self.returncode is None:
            try:
                self._reaped(0)
            except InterruptedError:
                continue
        return self.returncode


class Template:
    """The runner's side of one template process: ``spawn`` forks a bot from it."""

    def __init__(self, libraries: dict, env: dict):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        self.lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-m", "arena.sandbox.zygote",
                 orjson.dumps({"libraries": libraries}).decode()],
                stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd="/", env=env, close_fds=True, start_new_session=True)
        finally:
            theirs.close()
        self.sock = ours
        if self.sock.recv(16) != b"ready":  # its imports done (or it could not start)
            self.close()
            raise OSError("the bot template did not start")

    def spawn(self, request: dict, stdin: int, stdout: int, log: int) -> int:
        """Fork a bot process for ``request`` (``config``, ``cwd``, ``env``) with those
        descriptors as its 0, 1 and 2; its pid. OSError if the template could not fork
        (its errno: EAGAIN when the machine is out of processes) or is gone."""
        data = orjson.dumps(request)
        if len(data) > REQUEST_MAX:
            raise OSError(f"a worker's config of {len(data)} bytes (at most {REQUEST_MAX})")
        fds = array.array("i", (stdin, stdout, log))
        with self.lock:
            try:
                self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                reply = self.sock.recv(64)
            except OSError:
                reply = b""  # it has ended: the caller starts the worker another way
        kind, _, value = reply.partition(b" ")
        if kind == b"pid":
            return int(value)
        if kind == b"errno":
            raise OSError(int(value), os.strerror(int(value)))
        raise OSError("the bot template is gone")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_templates: dict[int, Template | None] = {}
_lock = threading.Lock()


def template(libraries: dict, env: dict) -> Template | None:
    """This runner process's template, started on first use (None: it cannot start here,
    it has ended, or ``ARENA_ZYGOTE=0``; workers then start with the interpreter, which
    is slower, not less safe). A forked runner starts its own."""
    if os.environ.get("ARENA_ZYGOTE", "1") == "0":
        return None
    pid = os.getpid()
    with _lock:
        found = _templates.get(pid, False)
        if found is not None and found is not False and not found.alive:
            _templates[pid] = found = None  # it ended (killed?): not started again
        if found is False:
            _templates.clear()  # a forked runner: its parent's is not its own
            try:
                found = Template(libraries, env)
            except OSError:
                found = None
            else:  # ended and reaped as this process ends (a pool's worker too): its CPU
                from multiprocessing import util  # is counted with this process's

                util.Finalize(found, found.close, exitpriority=0)
            _templates[pid] = found
        return found


# -- the template's side ----------------------------------------------------------------------


def _serve(sock: socket.socket) -> None:
    buffer = bytearray(REQUEST_MAX)
    space = socket.CMSG_SPACE(_FDS * array.array("i").itemsize)
    while True:
        try:
            n, ancillary, flags, _ = sock.recvmsg_into([buffer], space)
        except InterruptedError:
            continue
        if n == 0:  # the runner is gone
            os._exit(0)
        fds = array.array("i")
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        if len(fds) != _FDS or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            for fd in fds:
                os.close(fd)
            buffer[:n] = bytes(n)
            sock.send(b"errno %d" % 22)  # EINVAL
            continue
        read_end, write_end = os.pipe()
        value = error = 0
        try:
            first = os.fork()
        except OSError as e:
            first, error = -1, e.errno or 11
        if first == 0:  # the first child: fork the bot, say its pid, and go
            os.close(read_end)
            try:
                bot = os.fork()
            except OSError as e:
                os.write(write_end, struct.pack("i", -(e.errno or 11)))
                os._exit(0)
            if bot == 0:
                os.close(write_end)
                _become(sock, buffer, n, list(fds))
            os.write(write_end, struct.pack("i", bot))
            os._exit(0)
        os.close(write_end)
        for fd in fds:
            os.close(fd)
        buffer[:n] = bytes(n)  # the next bot's copy of this memory holds none of this one's
        if first > 0:
            while True:
                try:
                    os.waitpid(first, 0)  # the bot is now the runner's child
                    break
                except InterruptedError:
                    continue
            said = os.read(read_end, 4)
            value = struct.unpack("i", said)[0] if len(said) == 4 else -11
            error = -value if value < 0 else 0
        os.close(read_end)
        sock.send(b"errno %d" % error if error else b"pid %d" % value)


def _become(sock: socket.socket, buffer: bytearray, n: int, fds: list[int]) -> None:
    """In the bot process: its descriptors, session, folder and environment; then the
    worker. Never returns."""
    code = 1
    try:
        sock.close()
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        from .jail import _close_all_but

        _close_all_but({0, 1, 2})
        request = orjson.loads(bytes(buffer[:n]))
        buffer[:] = b""
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        import random

        random.seed()  # its own draws, not the template's (which every bot would share)
        from . import worker

        code = worker.run(request["config"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - told in the bot's log, as an interpreter would
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001, S110 - exiting regardless
            pass
        os._exit(code or 0)


def main(argv: list[str]) -> None:
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL with the runner
    if os.getppid() == 1:
        os._exit(0)
    config = orjson.loads(argv[1])
    sock = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.close(null)
    from . import worker

    worker.prepare(config.get("libraries") or {})
    for engine in ENGINES:  # arena's own rules, which most bots use (their worlds)
        try:
            importlib.import_module(engine)
        except Exception:  # noqa: BLE001, S112 - a bot that needs it imports it itself
            continue
    sock.send(b"ready")
    _serve(sock)


if __name__ == "__main__":
    main(sys.argv)
