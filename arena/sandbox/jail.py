"""A bot process's machine of its own: namespaces, a root of its own, an unprivileged user.

``arena.sandbox.worker`` calls :func:`enter` first, while it is still arena's own code and
before any bot is imported. It turns the process the runner started into three:

* the **keeper** - the process the runner started, waits for and kills. It makes the new
  namespaces, waits for the jail's init and then ends as the bot ended (the same exit
  status, or the same signal), so the runner reads a bot's end as it always did;
* the jail's **init**, pid 1 of a new pid namespace. It builds the bot's root, starts the
  bot and waits for it. (A pid 1 ignores every signal it has no handler for - its CPU and
  file-size limits among them - so the bot must not be pid 1.)
* the **bot**, pid 2. It returns from :func:`enter` with every privilege dropped and goes on
  to ``arena.sandbox.confine`` (limits, Landlock, seccomp) and then to the bot's code.

What the bot then has, where the kernel allows it (``arena doctor`` says which layers hold,
each checked from inside a jail):

* **its own pid namespace**: it sees its init and itself, nothing else; ``/proc`` is mounted
  fresh with ``subset=pid`` (no ``/proc/stat``, ``meminfo``, ``loadavg`` or ``sys``: counters
  the whole machine shares would be channels between processes);
* **its own mount namespace and root**: a read-only tmpfs holding read-only binds of what
  it runs (``arena.sandbox.view``: its programs and the libraries they load, the C
  library's data, a few files of ``/etc``, the folders on Python's import path) and the
  bot's own files - nothing else of the machine: no database,
  no bot store, no other bot, no home folder; a ``/dev`` with ``null``, ``zero``, ``full``,
  ``random`` and ``urandom`` only; and ``/tmp``, its folder: a tmpfs of ``disk_mb`` and at
  most ``files`` files, its working and home folder, gone with the process however it ends;
* **its own network** (no interface but a loopback that is down), **IPC**, **UTS** and
  **cgroup** namespaces;
* **an unprivileged user**: under a root runner, a uid of its own from a range
  (``ARENA_BOT_UIDS``, ``FIRST-LAST``, by default ``1879048192-1883242495``: the keeper's pid
  picks it, so no two live bot processes share one when the range is at least the
  machine's ``pid_max``) - so the limits that count per user (threads) and the kernel's
  checks between processes (signals, ``/proc``, ``ptrace``) never cross between bots - and
  its own user namespace on top; under any other runner, its own user namespace mapping
  just that user;
* **no capability** (effective, permitted, inheritable, ambient and bounding sets empty),
  ``securebits`` locked and ``no_new_privs``: nothing it runs gains a privilege.

A bot's threads count against ``RLIMIT_NPROC`` (``threads``), which the kernel applies to a
uid of a non-root user - and to each user namespace - so a thread bomb stops at its limit.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import signal
import struct
import sys

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x08000000, 0x10000000,
                                                           0x20000000, 0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 1 << 18, 1 << 21, 1 << 24
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 28, 38, 47, 4
#: NOROOT and its lock, the setuid fix-up kept (locked), KEEP_CAPS off (locked), no ambient
#: capability raised (locked)
SECUREBITS = 1 | 2 | 8 | 32 | 64 | 128
#: The default uid range of bot processes under a root runner: as many uids as Linux has
#: pids at most (PID_MAX_LIMIT), far above the ranges distributions hand out.
DEFAULT_UIDS = (0x70000000, 0x70000000 + 4 * 1024 * 1024 - 1)
DEVICES = ("null", "zero", "full", "random", "urandom")
#: the jail's own folders: nothing of the machine is bound over (or above) them
OWN_PLACES = ("/tmp", "/dev", "/proc")
#: syscall numbers glibc has no wrapper for, by machine
_SYSCALLS = {"x86_64": {"pivot_root": 155, "capset": 126},
             "aarch64": {"pivot_root": 41, "capset": 91},
             "riscv64": {"pivot_root": 41, "capset": 91},
             "ppc64le": {"pivot_root": 203, "capset": 184},
             "s390x": {"pivot_root": 217, "capset": 185}}

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.syscall.restype = ctypes.c_long


class JailError(OSError):
    pass


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise JailError(code, f"{what}: {os.strerror(code)}")


def _syscall(name: str) -> int:
    return _SYSCALLS.get(platform.machine(), _SYSCALLS["x86_64"])[name]


def bot_uid(uids: tuple[int, int] | None, pid: int) -> int:
    """The uid of the bot process kept by the process ``pid``, from the range ``uids``."""
    first, last = uids or DEFAULT_UIDS
    return first + pid % (last - first + 1)


def parse_uids(text: str | None) -> tuple[int, int]:
    """``ARENA_BOT_UIDS`` (``FIRST-LAST``); ValueError with the reason if malformed."""
    if not text:
        return DEFAULT_UIDS
    first, dash, last = text.partition("-")
    try:
        a, b = int(first), int(last)
    except ValueError:
        raise ValueError(f"ARENA_BOT_UIDS is FIRST-LAST (two numbers), got {text!r}") from None
    if not dash or not 0 < a <= b < 2**32 - 1:
        raise ValueError(f"ARENA_BOT_UIDS: a range of uids above 0, got {text!r}")
    return a, b


# -- the plan: what the bot's root holds, worked out while the machine's root is visible ------


def _walk(path: str, binds: dict, links: dict, depth: int = 0,
          seen: dict | None = None) -> None:
    """Add ``path`` to the plan: every symbolic link on the way is made again in the new
    root (so paths resolve there as here), and the place it leads to is bound. ``seen``:
    each path's link target (None: not a link) as looked up so far in this plan."""
    seen = {} if seen is None else seen
    path = os.path.normpath(path)
    if depth > 32 or not path.startswith("/"):
        return
    parts = path.split("/")[1:]
    here = ""
    for i, part in enumerate(parts):
        step = f"{here}/{part}"
        if step not in seen:
            seen[step] = os.readlink(step) if os.path.islink(step) else None
        target = seen[step]
        if target is not None:
            links.setdefault(step, target)
            rest = "/".join(parts[i + 1:])
            base = target if target.startswith("/") else os.path.join(here or "/", target)
            _walk(os.path.join(base, rest) if rest else base, binds, links, depth + 1, seen)
            return
        here = step
    if os.path.exists(path):
        binds[path] = os.path.isdir(path)


def plan(read: list[str], base: tuple[list, list] | None = None) -> tuple[list, list]:
    """``(binds, links)``: the folders and files to bind read-only (path, is a folder) and
    the symbolic links to make, for ``read`` (what the runner lets the jail see:
    ``arena.sandbox.view``) - and for what ``base`` (a plan made before, of the system's
    paths) holds: the plan of both together."""
    binds: dict[str, bool] = dict((path, bool(d)) for path, d in base[0]) if base else {}
    links: dict[str, str] = dict((path, t) for path, t in base[1]) if base else {}
    seen: dict[str, str | None] = {}
    for path in read:
        _walk(path, binds, links, 0, seen)
    kept: list[tuple[str, bool]] = []
    folders: set[str] = set()
    for path, is_dir in sorted(binds.items()):  # a path under a bound folder is there already
        if any(_under(place, path) for place in OWN_PLACES) or _under(path, "/dev") or \
                _under(path, "/proc"):
            continue  # never the whole machine, nor over the jail's /tmp, /dev or /proc
        if not _in_any(path, folders):
            kept.append((path, is_dir))
            if is_dir:
                folders.add(path)
    made = [(p, t) for p, t in sorted(links.items()) if not _in_any(p, folders)]
    return kept, made


def _in_any(path: str, folders: set[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or lies under one."""
    while True:
        if path in folders:
            return True
        if path in ("/", ""):
            return False
        path = os.path.dirname(path)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# -- the keeper and the init -----------------------------------------------------------------


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _map_self(uid: int, gid: int) -> None:
    """Map this user (and group) to itself in the user namespace just made."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _unshare(root: bool) -> tuple[int, str]:
    """The namespaces this process could make (their flags) and, if some could not be
    made, why."""
    base = CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (0 if root else CLONE_NEWUSER)
    why = ""
    for extra in (CLONE_NEWNET | CLONE_NEWCGROUP, CLONE_NEWNET, CLONE_NEWCGROUP, 0):
        flags = base | extra
        if _libc.unshare(flags) == 0:
            return flags, why
        why = why or os.strerror(ctypes.get_errno())
    if not root:  # no user namespace here: an IPC namespace at least, if it can be had
        return (CLONE_NEWIPC, why) if _libc.unshare(CLONE_NEWIPC) == 0 else (0, why)
    return 0, why


def _close_all_but(keep: set[int]) -> None:
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(1024))
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _end_as(status: int) -> None:
    """Exit as a process that ended with wait status ``status`` did."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        number = signal.SIGKILL  # a signal that does not end a process: end anyway
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _keep(child: int, status_fd: int) -> None:
    """The keeper: wait for the init, then end as the bot did (the init passes the bot's
    wait status through ``status_fd``). An init that died with nothing to say was killed."""
    _close_all_but({2, status_fd})
    while True:
        try:
            os.waitpid(child, 0)
            break
        except ChildProcessError:
            break
        except InterruptedError:
            continue
    data = b""
    try:
        data = os.read(status_fd, 4)
    except OSError:
        pass
    if len(data) == 4:
        _end_as(struct.unpack("i", data)[0])
    os.kill(os.getpid(), signal.SIGKILL)


def _init(bot: int, status_fd: int) -> None:
    """The jail's pid 1: reap until the bot has ended; pass its wait status on."""
    _close_all_but({2, status_fd})
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == bot:
            os.write(status_fd, struct.pack("i", status))
            os._exit(0)


# -- the root ---------------------------------------------------------------------------------

def _mount(source, target: str, kind, flags: int, data=None) -> None:
    _check(_libc.mount(source.encode() if source else None, target.encode(),
                       kind.encode() if kind else None, flags,
                       data.encode() if data else None), f"mount {target}")


def _locked_flags(path: str) -> int:
    """The flags a read-only bind of ``path`` must keep: a user namespace may not clear
    the nosuid, nodev, noexec or atime flags of a mount it did not make."""
    st = os.statvfs(path)
    flags = 0
    for bit, flag in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV),
                      (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                      (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        if st.f_flag & bit:
            flags |= flag
    if not flags & (MS_NOATIME | MS_RELATIME):
        flags |= MS_STRICTATIME  # as it is: a remount says relatime unless told otherwise
    return flags


def _bind(old: str, path: str, is_dir: bool, writable: bool = False) -> None:
    os.makedirs(os.path.dirname(path) or "/", exist_ok=True)
    if is_dir:
        os.makedirs(path, exist_ok=True)
    elif not os.path.exists(path):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
    source = old + path
    _mount(source, path, None, MS_BIND)
    if not writable:  # read-only: no read of the bot's changes an access time either
        _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID
               | _locked_flags(path))


def build_root(binds: list, links: list, folder: dict, uid: int, gid: int,
               hidden: list = ()) -> dict:
    """Make this mount namespace's root the bot's (see the module's docstring); ``folder``:
    the limits of its ``/tmp`` (``disk_mb``, ``files``); ``hidden``: folders inside the
    binds covered by an empty one."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(mount)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    new = "/tmp"  # the new root is made here: pivot_root moves it, and /tmp is seen again
    _mount("arena", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m")
    os.chdir(new)
    os.mkdir(".old")
    _check(_libc.syscall(_syscall("pivot_root"), b".", b".old"), "pivot_root")
    os.chdir("/")
    old = "/.old"
    os.mkdir("/tmp")  # its folder first: its own files may lie below /tmp, bound on top
    _mount("arena", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
           f"mode=0700,uid={uid},gid={gid},size={folder['disk_mb']}m,"
           f"nr_inodes={folder['files']}")
    for path, is_dir in binds:
        try:
            _bind(old, path, is_dir)
        except OSError:
            continue  # a path that cannot be bound stays out (the bot cannot read it)
    for path in hidden:
        if os.path.isdir(path):
            _mount("arena", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "mode=0555,size=4k,nr_inodes=1")
    for path, target in links:
        if not os.path.lexists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(target, path)
    os.makedirs("/dev", exist_ok=True)
    _mount("arena", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name in DEVICES:
        if os.path.exists(f"{old}/dev/{name}"):
            _bind(old, f"/dev/{name}", False, writable=True)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"/dev/{name}")
    os.makedirs("/proc", exist_ok=True)
    proc = "subset=pid"
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, proc)
    except JailError as e:
        if e.errno != errno.EINVAL:
            raise
        proc = "all"  # a kernel before 5.8: the whole of /proc (Landlock still closes it)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _check(_libc.umount2(old.encode(), MNT_DETACH), "umount old root")
    os.rmdir(old)
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir("/tmp")
    return {"proc": proc}


# -- privileges -------------------------------------------------------------------------------


def _capset_zero() -> None:
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.syscall(_syscall("capset"), header, data), "capset")


def drop_privileges(uid: int | None, gid: int | None, last_cap: int,
                    privileged: bool = True) -> bool:
    """No capability, no root: under a root runner become ``uid``/``gid`` (no groups) in a
    user namespace of its own; else (``uid`` None) drop what a user namespace gave.
    ``privileged``: this process holds capabilities to drop (root, or a user namespace's).
    Returns whether it made a user namespace."""
    own_namespace = False
    if uid is not None:
        _drop_sets(last_cap, privileged)
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)  # the kernel clears every capability here
        if _libc.unshare(CLONE_NEWUSER) == 0:  # its own user namespace, which gives them
            _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # back: its /proc/self is its own
            _map_self(uid, gid)
            _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
            own_namespace = True
    if own_namespace or uid is None:
        _drop_sets(last_cap, privileged)
    _capset_zero()
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    return own_namespace


def _drop_sets(last_cap: int, privileged: bool) -> None:
    """Empty the bounding and ambient sets and lock the securebits."""
    for cap in range(last_cap + 1):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # fails only for caps the kernel lacks
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if privileged:  # setting them needs CAP_SETPCAP: a plain user has none to lock away
        _check(_libc.prctl(PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0), "securebits")


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


# -- entering ---------------------------------------------------------------------------------


def enter(config: dict) -> dict:
    """Make this process the bot's jail (see the module's docstring) and return, in the bot
    process, what holds: ``{"namespaces": [...], "root": bool, "uid": int, "why": str}``,
    ``why`` naming what could not be had. The keeper and the init never return.

    ``config["jail"]``: ``uids`` (the range, under a root runner), ``folder`` (``disk_mb``
    and ``files`` of its ``/tmp``), ``disk_folder`` (where the runner could not count on a
    root of its own: the folder on disk it made for the bot, its working folder, which the
    bot then owns); ``config["read"]``: what it may read besides the system."""
    jail = config.get("jail") or {}
    root = os.geteuid() == 0
    uid, gid = os.getuid(), os.getgid()
    if root:
        uid = gid = bot_uid(tuple(jail["uids"]) if jail.get("uids") else None, os.getpid())
    last_cap = _last_cap()
    made = config.get("plan")  # the system's part, planned by the runner once
    binds, links = (plan(made["rest"], (made["binds"], made["links"])) if made
                    else plan(config.get("read", [])))
    flags, why = _unshare(root)
    layers: dict = {"namespaces": [name for flag, name in (
        (CLONE_NEWUSER, "user"), (CLONE_NEWPID, "pid"), (CLONE_NEWNET, "net"),
        (CLONE_NEWIPC, "ipc"), (CLONE_NEWUTS, "uts"), (CLONE_NEWCGROUP, "cgroup"))
        if flags & flag], "root": False, "why": why}
    if flags & CLONE_NEWUSER:
        _map_self(uid, gid)  # as it was before: unmapped, it reads as 65534
    disk_folder = jail.get("disk_folder")
    if not flags & CLONE_NEWPID:  # no jail here: the bot stays in this process
        _drop(root, uid, gid, last_cap, layers, disk_folder)
        return layers
    read_end, write_end = os.pipe()
    keeper = os.getpid()
    child = os.fork()
    if child:
        os.close(write_end)
        _keep(child, read_end)
    os.close(read_end)
    _orphan_dies(keeper)
    try:
        layers.update(build_root(binds, links, jail.get("folder") or FOLDER, uid, gid,
                                 config.get("hidden", [])))
        layers["root"] = True
        layers["namespaces"].append("mount")
    except OSError as e:
        layers["why"] = layers["why"] or str(e)
    init = os.getpid()
    bot = os.fork()
    if bot:
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        _init(bot, write_end)
    os.close(write_end)
    _orphan_dies(init)
    _drop(root, uid, gid, last_cap, layers, disk_folder)
    return layers


#: the bot's folder (/tmp) by default: its size and how many files it may hold
FOLDER = {"disk_mb": 32, "files": 1000}


def _orphan_dies(parent: int) -> None:
    """SIGKILL this process when its parent ends (and now, if it already has)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _drop(root: bool, uid: int, gid: int, last_cap: int, layers: dict,
          disk_folder: str | None) -> None:
    if root and not layers["root"] and disk_folder:  # no root of its own: its folder on
        os.chown(disk_folder, uid, gid)  # disk, which the runner made for it, is its own
    if drop_privileges(uid if root else None, gid if root else None, last_cap,
                       root or "user" in layers["namespaces"]):
        layers["namespaces"].append("user")
    layers["uid"] = uid


def report(layers: dict) -> dict:
    """What the bot process holds, read from the kernel rather than assumed."""
    status = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                status[key] = value.strip()
    except OSError:
        pass
    held = [status.get(k) for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")]
    # a bounding set a plain user cannot empty gives nothing under no_new_privs
    caps = held + ([status.get("CapBnd")] if status.get("NoNewPrivs") != "1" else [])
    visible = [p for p in os.listdir("/proc") if p.isdigit()] if os.path.isdir("/proc") else []
    try:
        with open("/proc/self/net/dev") as f:
            interfaces = sorted(line.split(":")[0].strip() for line in f.readlines()[2:])
    except OSError:
        interfaces = []
    return {"uid": os.getuid(), "euid": os.geteuid(), "interfaces": interfaces,
            "capabilities": all(c is not None and int(c, 16) == 0 for c in caps),
            "no_new_privs": status.get("NoNewPrivs") == "1",
            "processes_seen": len(visible), "pid": os.getpid(),
            "tmp_total": _tmp_size()}


def _tmp_size() -> int:
    try:
        st = os.statvfs("/tmp" if sys.platform == "linux" else ".")
        return st.f_blocks * st.f_frsize
    except OSError:
        return 0


_available: list[bool] = []


def available() -> bool:
    """Whether bot processes get a root of their own here: this process (root, or a user
    who may make user namespaces) can make pid and mount namespaces and mount a tmpfs in
    them. Tried once per process, in a forked child that does nothing else."""
    if not _available:
        root = os.geteuid() == 0
        uid, gid = os.getuid(), os.getgid()
        child = os.fork()
        if child == 0:
            try:
                flags = CLONE_NEWPID | CLONE_NEWNS | (0 if root else CLONE_NEWUSER)
                _check(_libc.unshare(flags), "unshare")
                if not root:
                    _map_self(uid, gid)
                _mount(None, "/", None, MS_REC | MS_PRIVATE)
                _mount("arena", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=4k")
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(child, 0)
        _available.append(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    return _available[0]


def unreachable_for_others(paths) -> str | None:
    """The first of ``paths`` (a Python installation, arena) another user cannot reach - a
    folder on the way that others may not enter, or the path itself not readable - or None.
    Without a root of its own (no namespaces), a bot of a root runner runs as a user of its
    own, which must reach them to run at all."""
    import stat

    for path in paths:
        here = os.path.abspath(path)
        while True:
            try:
                mode = os.stat(here).st_mode
            except OSError:
                break
            if not mode & stat.S_IXOTH or (here == os.path.abspath(path)
                                           and not mode & stat.S_IROTH):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return None
