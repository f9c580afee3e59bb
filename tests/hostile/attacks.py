"""A bot that attacks the machine it runs on: the red team's attacks, one per name.

``thief`` plays Vändtia; at its first move it makes the attack named by its option
``attack`` (its other options are the attack's: a ``target`` path, the runner's ``pid``).
An attack that works returns its evidence and the bot announces it by raising
``RuntimeError("GOT attack: evidence")`` - a forfeit whose reason a test reads; one that is
refused prints ``refused: ...`` to the bot's log and the bot plays on. The same functions run
unconfined (``python attacks.py NAME KEY=VALUE...``, printing the evidence) show that each
attack is real on this machine.
"""

import ctypes
import errno
import fcntl
import os
import sys
import threading
import time

import arena

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
ATTACKS = {}


def attack(name):
    def register(f):
        ATTACKS[name] = f
        return f
    return register


def _ok(value, what):
    if value < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return value


@attack("read-file")
def read_file(o):
    with open(o["target"], "rb") as f:
        return f.read(64).hex()


@attack("runner-proc")
def runner_proc(o):
    with open(f"/proc/{o['pid']}/cmdline", "rb") as f:
        return f.read().replace(b"\0", b" ").decode(errors="replace")


@attack("shadow")
def shadow(o):
    with open("/etc/shadow") as f:
        return f.readline().split(":")[0]


@attack("chmod")
def chmod(o):
    os.chmod(o["target"], 0)
    return "mode 000"


@attack("chown")
def chown(o):
    os.chown(o["target"], 65534, 65534)
    return "owner nobody"


@attack("utime")
def utime(o):
    os.utime(o["target"], (0, 0))
    return "times 1970"


@attack("xattr")
def xattr(o):
    os.setxattr(o["target"], "user.arena", b"owned")
    return "xattr set"


@attack("immutable")
def immutable(o):
    fd = os.open(o["target"], os.O_RDONLY)
    try:
        flags = ctypes.c_long(0)
        fcntl.ioctl(fd, 0x80086601, flags)  # FS_IOC_GETFLAGS
        flags.value |= 0x10  # FS_IMMUTABLE_FL
        fcntl.ioctl(fd, 0x40086602, flags)  # FS_IOC_SETFLAGS
    finally:
        os.close(fd)
    return "immutable"


@attack("fanotify")
def fanotify(o):
    fd = _ok(_libc.syscall(300, 0, os.O_RDONLY), "fanotify_init")  # FAN_CLASS_NOTIF
    try:  # FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN: every open on that file system
        _ok(_libc.syscall(301, fd, 0x1 | 0x100, 0x20, -100, o["target"].encode()),
            "fanotify_mark")
    finally:
        os.close(fd)
    return "watching every open"


@attack("inotify")
def inotify(o):
    fd = _ok(_libc.syscall(294, 0), "inotify_init1")
    os.close(fd)
    return "inotify"


@attack("io_uring")
def io_uring(o):
    """An io_uring: what makes sockets (and opens files) that seccomp never sees
    (``collude.uring_socket`` makes one; ``tests/test_collusion.py`` passes hands by it)."""
    params = ctypes.create_string_buffer(120)
    fd = _ok(_libc.syscall(425, 4, params), "io_uring_setup")
    os.close(fd)
    return "an io_uring"


@attack("realtime")
def realtime(o):
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return "SCHED_FIFO"


@attack("nice")
def nice(o):
    os.setpriority(os.PRIO_PROCESS, 0, -5)
    return "nice -5"


@attack("root")
def root(o):
    if os.getuid() == 0 or os.geteuid() == 0:
        return "uid 0"
    raise PermissionError(errno.EPERM, f"uid {os.getuid()}")


@attack("atime")
def atime(o):
    """A read of a file every jail sees, and whether its access time changed: a bit another
    jail could read with ``stat``."""
    before = os.stat(o["target"]).st_atime_ns
    with open(o["target"], "rb") as f:
        f.read(1)
    after = os.stat(o["target"]).st_atime_ns
    if after != before:
        return f"access time {before} -> {after}"
    raise PermissionError(errno.EPERM, "its access time did not change")


@attack("rewrite-log")
def rewrite_log(o):
    """Write a line to its log, then try to take it back: seek, write over it, truncate."""
    print("EARLIER-TEXT: what the bot said first", file=sys.stderr, flush=True)
    worked, refused = [], []
    for what, call in (("lseek", lambda: os.lseek(2, 0, os.SEEK_SET)),
                       ("pwrite", lambda: os.pwrite(2, b"REWRITTEN", 0)),
                       ("ftruncate", lambda: os.ftruncate(2, 0))):
        try:
            call()
            worked.append(what)
        except OSError as e:
            refused.append(f"{what} {errno.errorcode.get(e.errno, e.errno)}")
    if worked:
        return "rewrote its log: " + ", ".join(worked)
    raise OSError(errno.ESPIPE, ", ".join(refused))


KEEP: list = []


@attack("threads")
def threads(o):
    """Start threads until refused (at most ``cap``); keep them; the count."""
    cap, stop = int(o.get("cap", 2000)), threading.Event()
    threading.stack_size(64 * 1024)
    try:
        while len(KEEP) < cap:
            t = threading.Thread(target=stop.wait, daemon=True)
            t.start()
            KEEP.append(t)
    except RuntimeError as e:
        print(f"threads: {len(KEEP)}, then {e}", file=sys.stderr, flush=True)
    if len(KEEP) > int(o.get("limit", 64)):
        return f"{len(KEEP)} threads"
    raise PermissionError(errno.EAGAIN, f"stopped at {len(KEEP)} threads")


@attack("fill-disk")
def fill_disk(o):
    """Write into its own folder until refused (at most ``cap`` MiB); the MiB written."""
    cap, written = int(o.get("cap", 4096)), 0
    path = os.path.join(o.get("folder", "."), f"fill-{os.getpid()}-{time.time_ns()}")
    try:
        with open(path, "wb") as f:
            while written < cap:
                f.write(b"\0" * (1 << 20))
                f.flush()
                written += 1
    except OSError as e:
        print(f"fill-disk: {written} MiB, then {e}", file=sys.stderr, flush=True)
    if written > int(o.get("limit", 32)):
        return f"{written} MiB"
    raise OSError(errno.ENOSPC, f"stopped at {written} MiB")


@attack("signal-process")
def signal_process(o):
    """SIGKILL another process (the template bots are forked from, or another bot)."""
    os.kill(int(o["pid"]), 9)
    return f"killed {o['pid']}"


@attack("trace-process")
def trace_process(o):
    """Attach to another process as a debugger (PTRACE_SEIZE), which could read it all."""
    _ok(_libc.ptrace(0x4206, int(o["pid"]), 0, 0), "ptrace(PTRACE_SEIZE)")
    return f"traced {o['pid']}"


@attack("read-memory")
def read_memory(o):
    """Read another process's memory through /proc (its first readable page)."""
    pid = o["pid"]
    with open(f"/proc/{pid}/maps") as maps:
        start = int(maps.readline().split("-")[0], 16)
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(start)
        return mem.read(16).hex()


class Thief:
    def start(self, info):
        self.options, self.done = info.get("options", {}), False

    def act(self, observation, legal):
        if not self.done:
            self.done = True
            name = self.options["attack"]
            try:
                evidence = ATTACKS[name](self.options)
            except OSError as e:
                print(f"refused: {name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            else:
                raise RuntimeError(f"GOT {name}: {evidence}")
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("thief", Thief, games=["vandtia"])


if __name__ == "__main__":  # unconfined: python attacks.py NAME key=value ...
    options = dict(arg.split("=", 1) for arg in sys.argv[2:])
    print(ATTACKS[sys.argv[1]](options))
