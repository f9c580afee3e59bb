"""The isolation layers a bot worker applies to itself before any bot code is imported.

Four layers, each optional so the worker degrades gracefully where one is missing, and each
reported by name (``arena doctor`` prints them):

* ``ipc_namespace``: a System V IPC and POSIX message queue namespace of its own (directly
  as root, else inside a new user namespace that maps the user to itself), so no segment,
  queue or semaphore of another process is even visible;
* ``rlimits``: address space, CPU seconds, file size, open files, no core dumps, and (for an
  unprivileged user) no new processes;
* ``seccomp`` (libseccomp through ``pyseccomp``): no fork or new process (threads stay
  allowed), no ``execve`` for Python bots, no sockets, no signals to other processes, no
  ``ptrace`` or reading another process's memory, no System V shared memory, message queues
  or semaphores and no POSIX message queues (closed twice: also without the namespace), no
  file locks, leases or I/O signals, nothing read or set of another process (priority,
  scheduling, affinity, CPU clock, robust futex list), no raising of limits, no
  namespaces, mounts, keyrings or kernel modules - root ignores ``RLIMIT_NPROC``, this
  does not;
* ``landlock`` (the kernel's unprivileged access control, by ``ctypes``): the filesystem is
  read-only below the interpreter, the system folders and the bot's own files, writable only
  in the worker's private folder; nothing else - no database, no ``results/``, no other bot,
  no ``/proc`` of the runner, no ``/dev/shm`` (POSIX shared memory), no other bot's folder;
  no TCP (ABI 4+); no signals or abstract sockets leaving the sandbox (ABI 6+).

Together they close every channel between two bot processes that the kernel names - files,
sockets, pipes, signals, shared memory, message queues, semaphores, another process's
memory or descriptors - which is what keeps two Tractor partners (each seat is its own
process) from showing each other their hands. What no layer closes is time: a process can
see how long the others take to move, as a player at a table can.

Seccomp's filter is built before Landlock is applied: libseccomp reads files while building.
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


def apply_rlimits(memory: int, cpu: int, file_size: int, open_files: int) -> None:
    limits = [(resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu),
              (resource.RLIMIT_FSIZE, file_size), (resource.RLIMIT_NOFILE, open_files),
              (resource.RLIMIT_CORE, 0)]
    if os.geteuid() != 0:  # root ignores it; seccomp stops new processes either way
        limits.append((resource.RLIMIT_NPROC, 0))
    for which, value in limits:
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # CPU: SIGXCPU (named in the fault) at the limit, SIGKILL one second later
        top = value + 1 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(which, (value, top if hard == resource.RLIM_INFINITY else
                                   min(top, hard)))


# -- the IPC namespace ------------------------------------------------------------------------

CLONE_NEWIPC, CLONE_NEWUSER = 0x08000000, 0x10000000


def enter_ipc_namespace() -> bool:
    """Give this process an IPC namespace of its own; False where the kernel refuses one.

    Root (or a process with ``CAP_SYS_ADMIN``) unshares it directly; anyone else needs an
    unprivileged user namespace around it, in which this process's user and group map to
    themselves (so files keep their owners) and ``setgroups`` is denied, as the kernel asks."""
    if _libc.unshare(CLONE_NEWIPC) == 0:
        return True
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0:
        return False
    try:
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map",
                                                               f"{uid} {uid} 1"),
                           ("/proc/self/gid_map", f"{gid} {gid} 1")):
            with open(path, "w") as f:
                f.write(text)
    except OSError:
        pass  # unmapped, the user shows as nobody: the bot's own folder stays its own
    return True


# -- seccomp -----------------------------------------------------------------------------------

DENIED = ("fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "tkill",
          "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "socket", "setrlimit",
          "prlimit64", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
          "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
          "init_module", "finit_module", "delete_module", "kexec_load", "reboot", "swapon",
          "swapoff", "acct", "quotactl", "sethostname", "setdomainname", "iopl", "ioperm",
          "process_madvise", "kcmp", "name_to_handle_at", "open_by_handle_at",
          "get_robust_list", "flock",
          # System V IPC and POSIX message queues: channels between processes
          "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
          "semget", "semop", "semtimedop", "semctl", "ipc", "mq_open", "mq_unlink",
          "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr")
CLONE_THREAD = 0x00010000


def build_seccomp(allow_exec: bool):
    """The filter (not yet loaded), or None when libseccomp is not available."""
    try:
        import pyseccomp as sc
        f = sc.SyscallFilter(defaction=sc.ALLOW)
    except Exception:  # no pyseccomp, or no libseccomp.so on this machine
        return None
    eperm = sc.ERRNO(errno.EPERM)
    for name in DENIED + (() if allow_exec else ("execve", "execveat")):
        _rule(f, eperm, name)
    f.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))  # a process
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # libc falls back to clone for threads
    pid = os.getpid()
    f.add_rule(eperm, "kill", sc.Arg(0, sc.NE, pid))  # only itself (not even its group)
    f.add_rule(eperm, "tgkill", sc.Arg(0, sc.NE, pid))
    for cmd in FCNTL_CHANNELS:
        f.add_rule(eperm, "fcntl", sc.Arg(1, sc.EQ, cmd))
    for name in OWN_ONLY:  # what one process sets of itself and another could read
        _rule(f, eperm, name, sc.Arg(0, sc.NE, 0))
    for name in ("getpriority", "setpriority", "ioprio_get", "ioprio_set"):
        _rule(f, eperm, name, sc.Arg(0, sc.NE, 0))  # a process, not a group or a user
        _rule(f, eperm, name, sc.Arg(1, sc.NE, 0))  # and that process itself
    for name in ("clock_gettime", "clock_getres", "clock_nanosleep", "timer_create"):
        _rule(f, eperm, name, sc.Arg(0, sc.MASKED_EQ, 1 << 31, 1 << 31))  # another's CPU clock
    return f


#: fcntl commands that would pass information between processes through a file both can
#: read: locks (F_GETLK, F_SETLK, F_SETLKW and their OFD forms), leases, directory
#: notifications, and I/O signals sent to another process (F_SETOWN, F_SETSIG, F_SETOWN_EX)
FCNTL_CHANNELS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 8, 10, 15)
#: calls allowed on the calling process only (pid argument 0): its scheduling and affinity
OWN_ONLY = ("sched_setaffinity", "sched_getaffinity", "sched_setparam", "sched_getparam",
            "sched_setscheduler", "sched_getscheduler", "sched_setattr", "sched_getattr",
            "sched_rr_get_interval")


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


def system_read_paths() -> list[str]:
    """What any program (and the Python interpreter) needs to read to start and run."""
    paths = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/dev/null",
             "/dev/urandom", "/dev/zero", sys.prefix, sys.base_prefix, sys.exec_prefix]
    paths += [p for p in sys.path if p and os.path.isdir(p)]
    return sorted(set(paths))


def confine(limits: dict, read: list[str], write: list[str], allow_exec: bool) -> dict:
    """Apply every layer this machine has; return which ones are active."""
    ipc = enter_ipc_namespace()  # first: the user namespace needs /proc and new processes
    apply_rlimits(limits["memory_mb"] * MiB, limits["cpu_s"], limits["file_size_mb"] * MiB,
                  limits["open_files"])
    layers = {"rlimits": True, "ipc_namespace": ipc}
    seccomp = build_seccomp(allow_exec)
    layers["landlock"] = apply_landlock(system_read_paths() + read, write)
    if seccomp is not None:
        seccomp.load()  # also sets no_new_privs
    layers["seccomp"] = seccomp is not None
    return layers
