"""The limits a bot process applies to itself once it is in its jail (``arena.sandbox.jail``) and
before any bot code is imported; each reported by name (``arena doctor`` prints them).

* ``rlimits``: address space, CPU seconds, file size, open files, threads (``RLIMIT_NPROC``,
  which the kernel counts per user - each bot process has a user of its own), no core
  dumps, no raised priority;
* ``seccomp`` (libseccomp through ``pyseccomp``): one **allow-list** for every bot - the
  system calls a program computing in memory and in its own folder needs, and nothing
  else (an executable bot adds ``execve``, to become its program); every integer argument
  is compared on the 32 bits the kernel reads. Not on it: new processes, sockets (but a
  connected pair within the process), ``io_uring`` (which would make sockets and open
  files seccomp never sees), ``inotify`` and ``fanotify`` (which see what other processes
  open), shared futexes (a shared wait or wake answers 0 and does nothing; ``futex_waitv``
  refused), page-cache probes and eviction (``mincore``, ``cachestat``, ``RWF_NOWAIT``,
  ``madvise`` and ``fadvise`` but for the bot's own memory), signals to other processes,
  ``ptrace`` and other processes' memory, System V IPC and POSIX message queues, file
  locks, leases and I/O signals, anything read or set of another process or of the
  machine, raised limits, namespaces, mounts, keyrings, kernel modules, BPF and
  performance counters. Calls of another architecture's numbering kill the process;
* ``landlock`` (the kernel's access control, by ``ctypes``): the filesystem is read-only
  below the interpreter, the system folders and the bot's own files, writable only in its
  folder; no TCP (ABI 4+); no signals or abstract sockets leaving it (ABI 6+). In a jail
  this repeats its root's walls; without one (a kernel without user namespaces) it is the
  wall.

With the jail they close every channel between two bot processes that the kernel names -
files, sockets, pipes, signals, shared memory, message queues, semaphores, futexes, file
locks, file notifications, cached pages, another process's memory or descriptors - which
is what keeps two Tractor partners (each seat is its own process) from showing each other
their hands. What no layer closes is time and the machine's load: a process can see how
long the others take to move, as a player at a table can (docs/sandbox.md).

Seccomp's filter is built before Landlock is applied (libseccomp is loaded before the jail).
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import sys

MiB = 1024 * 1024
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

# -- rlimits -----------------------------------------------------------------------------------


def apply_rlimits(memory: int, cpu: int, file_size: int, open_files: int,
                  threads: int) -> None:
    """Lower every limit (a process may always lower its own)."""
    limits = [(resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu),
              (resource.RLIMIT_FSIZE, file_size), (resource.RLIMIT_NOFILE, open_files),
              (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, threads),
              (resource.RLIMIT_NICE, 0), (resource.RLIMIT_RTPRIO, 0),
              (resource.RLIMIT_MSGQUEUE, 0), (resource.RLIMIT_MEMLOCK, 0)]
    for which, value in limits:
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # CPU: SIGXCPU (named in the fault) at the limit, SIGKILL one second later
        top = value + 1 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(which, (value, top if hard == resource.RLIM_INFINITY else
                                   min(top, hard)))


# -- seccomp -----------------------------------------------------------------------------------

#: What any bot may call, whatever its language (any other call fails with EPERM): memory,
#: its own files and folders, time, its own signals and threads, waiting on its own
#: descriptors. The calls that take a choice (``ARGUMENT_RULES``) only with the choices
#: that concern the bot alone. Not here, so refused: new processes, sockets (but a connected
#: pair within the process), io_uring, inotify and fanotify, file locks and leases, shared
#: futexes and ``futex_waitv``, page-cache probes and eviction (``mincore``, ``cachestat``,
#: ``readahead``, ``RWF_NOWAIT``, ``MADV_PAGEOUT``...), counters the whole machine shares
#: (``sysinfo``, ``statfs``), signals to, the memory of and the settings of other
#: processes, System V IPC and POSIX message queues, raised limits, namespaces, mounts,
#: keyrings, BPF, performance counters and kernel modules.
ALLOWED = (
    # descriptors and files
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
    "lseek", "close", "close_range", "dup", "dup2", "dup3", "ioctl",
    "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat", "statx",
    "access", "faccessat", "faccessat2", "readlink", "readlinkat",
    "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "truncate", "ftruncate", "fsync", "fdatasync", "fallocate", "umask",
    "chmod", "fchmod", "fchmodat", "utimensat", "utimes", "futimesat", "sendfile",
    "copy_file_range", "splice", "tee", "pipe", "pipe2", "memfd_create", "eventfd",
    "eventfd2", "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1",
    "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "timerfd_create",
    "timerfd_settime", "timerfd_gettime", "signalfd", "signalfd4",
    # memory
    "mmap", "munmap", "mprotect", "mremap", "brk", "msync", "membarrier",
    # time
    "nanosleep", "gettimeofday", "time", "times", "getitimer", "setitimer", "alarm",
    "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete",
    # signals, threads, its own identity
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
    "rt_sigtimedwait", "sigaltstack", "pause", "set_robust_list",
    "set_tid_address", "rseq", "gettid", "sched_yield", "sched_get_priority_max",
    "sched_get_priority_min", "exit", "exit_group", "arch_prctl", "wait4", "waitid",
    "getpid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
    "getresuid", "getresgid", "getpgrp", "getpgid", "getsid", "capget", "uname",
    "getrandom", "getrusage", "getrlimit", "getcpu", "restart_syscall", "utime",
    "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
    "get_mempolicy",
    # a connected pair of sockets within the process (asyncio's self-pipe): no other kind
    # can be made (``socket`` is not here, ``socketpair`` only for AF_UNIX)
    "sendmsg", "recvmsg", "sendto", "recvfrom", "shutdown", "getsockopt", "setsockopt",
    "getsockname", "getpeername")
#: What an executable (a bot in any language) may call besides: become its program (it
#: is started by ``execve`` once confined), and memory protection keys (V8 uses them)
EXEC_ALLOWED = ("execve", "execveat", "pkey_alloc", "pkey_free", "pkey_mprotect")
#: ``prctl`` options a bot may use: a thread's name, and reading its own settings
PRCTL_ALLOWED = (3, 15, 16, 21, 23, 30, 36, 39, 42, 0x53564D41)
#: fcntl commands on a descriptor's own settings: F_DUPFD, F_GETFD, F_SETFD, F_GETFL,
#: F_SETFL, F_DUPFD_CLOEXEC, pipe sizes, seals. Not the ones that pass information between
#: processes through a file both can read: locks (F_GETLK, F_SETLK, F_SETLKW and their OFD
#: forms), leases, directory notifications, I/O signals sent to another process.
FCNTL_OWN = (0, 1, 2, 3, 4, 1030, 1031, 1032, 1033, 1034)
#: ``madvise`` advice about the bot's own memory: not MADV_COLD or MADV_PAGEOUT (which
#: evict a shared file's pages from the page cache), MADV_MERGEABLE (pages merged with
#: other processes' by content), MADV_HUGEPAGE or MADV_COLLAPSE (a shared file's pages
#: collapsed into huge pages), MADV_REMOVE, or the poisoning ones
MADVISE_OWN = (0, 1, 2, 3, 4, 8, 10, 11, 15, 16, 17, 18, 19, 22, 23, 24, 102, 103)
#: ``posix_fadvise`` advice an executable may give: the read-ahead pattern of its own
#: descriptor (not WILLNEED, DONTNEED or NOREUSE, which change the page cache)
FADVISE_OWN = (0, 1, 2)
#: calls allowed on the calling process only (pid argument 0): its scheduling and affinity
OWN_ONLY = ("sched_setaffinity", "sched_getaffinity", "sched_setparam", "sched_getparam",
            "sched_setscheduler", "sched_getscheduler", "sched_setattr", "sched_getattr",
            "sched_rr_get_interval")
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
#: shared futex operations answered 0 without being made: FUTEX_WAIT, FUTEX_WAKE,
#: FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP, FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET
FUTEX_ANSWERED = (0, 1, 3, 4, 5, 9, 10)
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x7E020000  # every CLONE_NEW* flag
AF_UNIX = 1
#: The bits of an argument the kernel reads as a C ``int``: every comparison of such an
#: argument is made on them alone, so that ``fcntl(fd, F_OFD_SETLK | 1 << 32)`` - which the
#: kernel runs as ``F_OFD_SETLK`` - is seen as ``F_OFD_SETLK``.
INT = 0xFFFF_FFFF


def build_seccomp(allow_exec: bool):
    """The filter (not yet loaded), or None when libseccomp is not available: an allow-list
    (``ALLOWED``, with ``EXEC_ALLOWED`` for an executable, ``allow_exec``), every argument
    compared on the bits the kernel reads."""
    try:
        import pyseccomp as sc
    except Exception:  # no pyseccomp, or no libseccomp.so on this machine
        return None

    def is_(index: int, value: int):  # an ``int`` argument equal to ``value``
        return sc.Arg(index, sc.MASKED_EQ, INT, value & INT)

    f = sc.SyscallFilter(defaction=sc.ERRNO(errno.EPERM))
    for name in ALLOWED + (EXEC_ALLOWED if allow_exec else ()):
        _rule(f, sc.ALLOW, name)
    # a thread, in no new namespace (the kernel reads the flags' low 32 bits)
    f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD | CLONE_NAMESPACES,
                                         CLONE_THREAD))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # libc falls back to clone for threads
    for name in ("kill", "tgkill"):  # only itself
        f.add_rule(sc.ALLOW, name, is_(0, os.getpid()))
    f.add_rule(sc.ALLOW, "socketpair", is_(0, AF_UNIX))  # asyncio's self-pipe
    f.add_rule(sc.ALLOW, "prlimit64", is_(0, 0), sc.Arg(2, sc.EQ, 0))  # read its own
    for option in PRCTL_ALLOWED:
        f.add_rule(sc.ALLOW, "prctl", is_(0, option))
    for cmd in FCNTL_OWN:
        _rule(f, sc.ALLOW, "fcntl", is_(1, cmd))
    for pid in (0, os.getpid()):  # 0 or its own pid: itself
        for name in OWN_ONLY:
            _rule(f, sc.ALLOW, name, is_(0, pid))
        for name in ("getpriority", "setpriority"):  # a process (0), not a group or a user
            f.add_rule(sc.ALLOW, name, is_(0, 0), is_(1, pid))
    for name in ("clock_gettime", "clock_getres", "clock_nanosleep", "timer_create"):
        _rule(f, sc.ALLOW, name, sc.Arg(0, sc.MASKED_EQ, 1 << 31, 0))  # not another's clock
    # futexes keyed on its own memory only: a shared one on a page of a file every jail
    # maps (libc, say) would be the same futex in every jail. A shared wait or wake is not
    # made but answered 0 - a wake that woke nobody, a wait woken at once, after which its
    # caller looks at the word again - as libc's ``pthread_join`` (a shared wait on the
    # thread's id, which the kernel clears) needs; any other shared operation is refused.
    f.add_rule(sc.ALLOW, "futex", sc.Arg(1, sc.MASKED_EQ, FUTEX_PRIVATE_FLAG,
                                         FUTEX_PRIVATE_FLAG))
    for op in FUTEX_ANSWERED:
        f.add_rule(sc.ERRNO(0), "futex", sc.Arg(1, sc.MASKED_EQ, INT & ~FUTEX_CLOCK_REALTIME,
                                                op))
    for name in ("futex_waitv", "futex_wake", "futex_wait", "futex_requeue"):
        _rule(f, sc.ERRNO(errno.ENOSYS), name)  # futexes of any kind: not on this kernel
    for name in ("preadv2", "pwritev2"):  # no flags: RWF_NOWAIT tells what is cached
        _rule(f, sc.ALLOW, name, is_(5, 0))
    for advice in MADVISE_OWN:
        f.add_rule(sc.ALLOW, "madvise", is_(2, advice))
    if allow_exec:
        for advice in FADVISE_OWN:
            _rule(f, sc.ALLOW, "fadvise64", is_(3, advice))
    return f


def _rule(f, action, name, *args) -> None:
    try:
        f.add_rule(action, name, *args)
    except Exception:  # a call this kernel or architecture does not have
        pass


# -- landlock ----------------------------------------------------------------------------------

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every arch
PR_SET_NO_NEW_PRIVS = 38
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
             5: (1 << 16) - 1}
FILE_ONLY = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(0, version)


def apply_landlock(read: list[str], write: list[str]) -> int:
    """Confine the filesystem (and TCP and signals, where the ABI has them) to ``read``-only
    and ``write``-able paths. Returns the ABI used, 0 if Landlock is unavailable."""
    abi = landlock_abi()
    if abi < 1:
        return 0
    handled = FS_BY_ABI.get(abi, FS_BY_ABI[5])
    attr = _RulesetAttr(handled, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    fd = _libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                       ctypes.c_uint32(0))
    if fd < 0:
        return 0
    try:
        for paths, access in ((read, READ), (write, handled)):
            for path in paths:
                try:
                    pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # a path this machine does not have
                try:
                    allowed = access & handled
                    if not os.path.isdir(path):
                        allowed &= FILE_ONLY
                    rule = _PathBeneath(allowed, pfd)
                    if _libc.syscall(SYS_ADD_RULE, fd, 1, ctypes.byref(rule), 0) != 0:
                        raise OSError(ctypes.get_errno(), f"landlock rule for {path}")
                finally:
                    os.close(pfd)
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "no_new_privs")
        if _libc.syscall(SYS_RESTRICT_SELF, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(fd)
    return abi


#: the devices a bot may read (its jail's /dev holds these only)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def without(read: list[str], hidden: list[str]) -> list[str]:
    """``read`` as Landlock's rules where no jail's root hides the folders ``hidden``: a
    folder of ``read`` holding one is opened entry by entry, that one left out."""
    out = []
    for path in read:
        inner = [h for h in hidden if h.startswith(path.rstrip("/") + "/")]
        if not inner or not os.path.isdir(path):
            out.append(path)
            continue
        for name in os.listdir(path):
            child = os.path.join(path, name)
            if child not in inner:
                out += without([child], inner)
    return out


def confine(limits: dict, read: list[str], write: list[str], allow_exec: bool) -> dict:
    """Apply every layer this machine has; return which ones are active."""
    apply_rlimits(limits["memory_mb"] * MiB, limits["cpu_s"], limits["file_size_mb"] * MiB,
                  limits["open_files"], limits.get("threads", 64))
    layers: dict = {"rlimits": True}
    seccomp = build_seccomp(allow_exec)
    layers["landlock"] = apply_landlock(read, write)
    if seccomp is not None:
        seccomp.load()  # also sets no_new_privs
    layers["seccomp"] = "allow-list" if seccomp else ""
    return layers


# -- what a probe tries ------------------------------------------------------------------------

_SYSCALL_NUMBERS = {"x86_64": {"io_uring_setup": 425, "inotify_init1": 294,
                               "fanotify_init": 300, "futex": 202, "fcntl": 72},
                    "aarch64": {"io_uring_setup": 425, "inotify_init1": 26,
                                "fanotify_init": 262, "futex": 98, "fcntl": 25}}


def attempts(canary: str) -> dict:
    """What a bot may not do, tried: ``{name: True}`` where it was refused. ``canary`` is a
    file of the runner's, outside everything a bot may read."""
    import platform
    import socket

    numbers = _SYSCALL_NUMBERS.get(platform.machine(), _SYSCALL_NUMBERS["x86_64"])
    params = ctypes.create_string_buffer(120)
    out = {}
    for name, args in (("io_uring_setup", (4, params)), ("inotify_init1", (0,)),
                       ("fanotify_init", (0, 0))):
        fd = _libc.syscall(numbers[name], *args)
        out[name] = fd < 0
        if fd >= 0:
            os.close(fd)
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
        out["socket"] = False
    except OSError:
        out["socket"] = True
    try:
        pid = os.fork()
    except OSError:
        out["fork"] = True
    else:
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        out["fork"] = False
    try:
        open(canary, "rb").close()
        out["runner_files"] = False
    except OSError:
        out["runner_files"] = True
    out.update(_file_keyed(numbers))
    return out


def _file_keyed(numbers: dict) -> dict:
    """Kernel state keyed on a file every jail sees (the interpreter): a shared futex on a
    page of it (a wait for a value its word does not hold fails at once with EAGAIN where it
    is made; refused, it is answered 0), a lock on it asked with the command's high bits
    set, a probe of whether its pages are in memory."""
    out = {}
    mmap = _libc.mmap
    mmap.restype, mmap.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_size_t,
                                                    ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                    ctypes.c_long]
    fd = os.open(os.path.realpath(sys.executable), os.O_RDONLY)
    try:
        address = mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        word = ctypes.c_uint32.from_address(address).value
        timeout = (ctypes.c_long * 2)(0, 1000)
        out["futex_shared"] = _libc.syscall(numbers["futex"], ctypes.c_void_p(address), 0,
                                            ctypes.c_uint32(word ^ 1), timeout, None, 0) == 0
        lock = (ctypes.c_short * 16)()  # struct flock: a read lock (0) of the whole file
        out["file_locks"] = _libc.syscall(numbers["fcntl"], fd, ctypes.c_long(37 | 1 << 32),
                                          lock) < 0  # F_OFD_SETLK, its high bits set
        try:
            os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)
            out["page_cache_probe"] = False
        except BlockingIOError:
            out["page_cache_probe"] = False
        except OSError:
            out["page_cache_probe"] = True
    finally:
        os.close(fd)
    return out
