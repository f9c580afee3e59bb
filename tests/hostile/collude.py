"""Hostile bots that try to see cards their seat may not: by every channel the kernel offers
between two processes, and by remembering a deal across matches.

Two channels write nothing at all: ``inotify`` (the sender opens read-only system files in
a pattern, the receiver watches their IN_OPEN events) and ``io_uring-udp`` (sockets made by
an io_uring, which a seccomp filter refusing ``socket`` never sees, passing UDP datagrams
on 127.0.0.1).

* ``colluder`` and ``accomplice`` (Tractor): at every move each publishes its hand on
  every channel below under its seat and reads its partner's (the seat two places on); the
  first hand it gets it announces by raising ``RuntimeError("LEAK ...")``, which forfeits the
  match and stores the claim. The same bot in both seats of a team tries the ``memory``
  channel too (a module-level dict: both seats in one process would share it); two bots in
  mixed teams need one between processes.
* ``rememberer`` (Vändtia): remembers its first hand of a match; at its next match in another
  seat it announces that seat's hand - true whenever one process plays a deal's duplicate.
* ``echo`` (Vändtia): the colluders' channels between the processes of one bot, which play a
  deal and its duplicate side by side (K = 16) or one after the other.

Channels through kernel state keyed on files every jail sees (the standard library's): a
``futex`` on a page of a file both map (a shared futex is the same in every process that maps
the file; the sender's thread waits on one of two words for each bit, the receiver's wake
finds it and so reads the bit), ``flock`` (a shared lock on a file for each bit),
``fcntl-lock`` and ``ofd-lock`` (a read lock on a byte of a file for each bit, asked with the
command's high 32 bits set, which the kernel ignores), and the page cache: the sender reads
in a page for each bit, the receiver asks ``preadv2(..., RWF_NOWAIT)`` whether it is in
memory (``nowait``) or times a read of it (``read-timing``). The bits of a slot are a frame:
its length, the hand packed a byte a card, a checksum.

A test checks each claim against the replayed match: a true claim is a leak. Run without the
sandbox (two plain processes), every channel here works; run by arena, none may.
"""

import ctypes
import json
import mmap
import os
import platform
import socket
import threading
import time

import arena

IPC_CREAT, IPC_NOWAIT, IPC_RMID, GETALL, SETALL = 0o1000, 0o4000, 0, 13, 17
SIZE = 4096  # bytes per message: more than any hand
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_libc.mq_open.restype = ctypes.c_int
_libc.syscall.restype = ctypes.c_long


def _key(tag: str, slot: int) -> int:
    return (0x41520000 + sum(map(ord, tag)) * 16 + slot) & 0x7FFFFFFF


def _name(tag: str, slot: int) -> str:
    return f"arena-{tag}-{slot}"


def _ok(value: int, what: str) -> int:
    if value == -1 or value is None:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return value


MEMORY: dict = {}


def _shm(data, tag, slot):
    sid = _ok(_libc.shmget(_key(tag, slot), SIZE, IPC_CREAT | 0o600), "shmget")
    addr = _libc.shmat(sid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        _ok(-1, "shmat")
    try:
        if data is not None:
            ctypes.memmove(addr, data.ljust(SIZE, b"\0"), SIZE)
            return None
        return ctypes.string_at(addr, SIZE).rstrip(b"\0") or None
    finally:
        _libc.shmdt(ctypes.c_void_p(addr))


class _Msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * SIZE)]


def _msg(data, tag, slot):
    qid = _ok(_libc.msgget(_key(tag, slot), IPC_CREAT | 0o600), "msgget")
    if data is not None:
        _ok(_libc.msgsnd(qid, ctypes.byref(_Msg(1, data)), len(data), IPC_NOWAIT), "msgsnd")
        return None
    got, m = None, _Msg()
    while _libc.msgrcv(qid, ctypes.byref(m), SIZE, 0, IPC_NOWAIT) >= 0:  # the latest
        got = m.mtext
    return got


def _sem(data, tag, slot):
    sid = _ok(_libc.semget(_key(tag, slot), SIZE + 1, IPC_CREAT | 0o600), "semget")
    values = (ctypes.c_ushort * (SIZE + 1))()
    if data is not None:
        values[0] = len(data)
        for i, byte in enumerate(data):
            values[i + 1] = byte
        _ok(_libc.semctl(sid, 0, SETALL, values), "semctl")
        return None
    _ok(_libc.semctl(sid, 0, GETALL, values), "semctl")
    return bytes(values[1:values[0] + 1]) or None


def _mq(data, tag, slot):
    name = ("/" + _name(tag, slot)).encode()
    mqd = _ok(_libc.mq_open(name, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o600, None),
              "mq_open")
    try:
        if data is not None:
            _ok(_libc.mq_send(mqd, data, len(data), 0), "mq_send")
            return None
        got, buf = None, ctypes.create_string_buffer(1 << 16)
        while True:
            n = _libc.mq_receive(mqd, buf, len(buf), None)
            if n < 0:
                return got
            got = buf.raw[:n]
    finally:
        _libc.mq_close(mqd)


def _posix_shm(data, tag, slot):
    path = "/dev/shm/" + _name(tag, slot)
    return _file(data, path)


def _tmp(data, tag, slot):
    return _file(data, "/tmp/" + _name(tag, slot))


def _file(data, path):
    if data is not None:
        with open(path, "wb") as f:
            f.write(data)
        return None
    try:
        with open(path, "rb") as f:
            return f.read() or None
    except FileNotFoundError:
        return None


_SOCKETS: dict = {}


def _abstract_socket(data, tag, slot):
    if data is not None:  # to the partner's address, which it bound when it read
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            s.sendto(data, b"\0" + _name(tag, slot).encode())
        except (ConnectionRefusedError, FileNotFoundError):
            pass  # nobody bound yet
        finally:
            s.close()
        return None
    if slot not in _SOCKETS:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(b"\0" + _name(tag, slot).encode())
        s.setblocking(False)
        _SOCKETS[slot] = s
    got = None
    while True:
        try:
            got = _SOCKETS[slot].recv(SIZE)
        except BlockingIOError:
            return got


# -- inotify: the sender opens files in a pattern, the receiver watches --------------------------

#: files per slot: one per hex digit twice (digits alternate between the two sets, as the
#: kernel merges two like events in a row), and a frame marker
NIBBLES = 33
_WATCHES: dict = {}


def _watched_files() -> list[str]:
    """Read-only files every process may open, jailed or not (one name per inode: a watch
    is on an inode)."""
    return _library_files()[:4 * 8 * NIBBLES]


def _slot_files(tag, slot):
    base = (sum(map(ord, tag)) % 8 * 4 + slot) * NIBBLES
    return _watched_files()[base:base + NIBBLES]


def _inotify(data, tag, slot):
    paths = _slot_files(tag, slot)
    if data is not None:  # each hex digit an open of its file, framed by the marker's
        digits = [int(c, 16) + 16 * (i % 2) for i, c in enumerate(data.hex())]
        for digit in [32, *digits, 32]:
            os.close(os.open(paths[digit], os.O_RDONLY))
        return None
    if slot not in _WATCHES:
        fd = _ok(_libc.inotify_init1(os.O_NONBLOCK), "inotify_init1")
        watches = {}
        for digit, path in enumerate(paths):
            wd = _ok(_libc.inotify_add_watch(fd, path.encode(), 0x20), "inotify_add_watch")
            watches[wd] = digit  # IN_OPEN
        _WATCHES[slot] = (fd, watches, [])
    fd, watches, digits = _WATCHES[slot]
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        for i in range(0, len(chunk), 16):
            wd = int.from_bytes(chunk[i:i + 4], "little", signed=True)
            digits.append(watches.get(wd, -1))
    frames = "".join("x" if d == 32 else format(d % 16, "x") for d in digits
                     if d >= 0).split("x")
    complete = [f for f in frames[1:-1] if f and len(f) % 2 == 0]
    return bytes.fromhex(complete[-1]) if complete else None


# -- io_uring: sockets seccomp does not see ----------------------------------------------------


class _Params(ctypes.Structure):
    _fields_ = [("sq_entries", ctypes.c_uint32), ("cq_entries", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("sq_thread_cpu", ctypes.c_uint32),
                ("sq_thread_idle", ctypes.c_uint32), ("features", ctypes.c_uint32),
                ("wq_fd", ctypes.c_uint32), ("resv", ctypes.c_uint32 * 3),
                ("sq_off", ctypes.c_uint32 * 10), ("cq_off", ctypes.c_uint32 * 10)]


def uring_socket(domain: int, kind: int) -> int:
    """A socket made by an io_uring (IORING_OP_SOCKET): no ``socket`` call is made."""
    import mmap

    params = _Params()
    ring = _libc.syscall(425, 4, ctypes.byref(params))  # io_uring_setup
    _ok(ring, "io_uring_setup")
    try:
        sq = mmap.mmap(ring, params.sq_off[6] + params.sq_entries * 4, mmap.MAP_SHARED,
                       mmap.PROT_READ | mmap.PROT_WRITE, offset=0)
        cq = mmap.mmap(ring, params.cq_off[5] + params.cq_entries * 16, mmap.MAP_SHARED,
                       mmap.PROT_READ | mmap.PROT_WRITE, offset=0x8000000)
        sqes = mmap.mmap(ring, params.sq_entries * 64, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=0x10000000)
        tail = int.from_bytes(sq[params.sq_off[1]:params.sq_off[1] + 4], "little")
        mask = int.from_bytes(sq[params.sq_off[2]:params.sq_off[2] + 4], "little")
        index = tail & mask
        sqe = bytearray(64)
        sqe[0] = 45  # IORING_OP_SOCKET
        sqe[4:8] = domain.to_bytes(4, "little")
        sqe[8:16] = kind.to_bytes(8, "little")
        sqes[index * 64:index * 64 + 64] = bytes(sqe)
        array = params.sq_off[6] + 4 * index
        sq[array:array + 4] = index.to_bytes(4, "little")
        sq[params.sq_off[1]:params.sq_off[1] + 4] = (tail + 1).to_bytes(4, "little")
        _ok(_libc.syscall(426, ring, 1, 1, 1, None, 0), "io_uring_enter")
        head = int.from_bytes(cq[params.cq_off[0]:params.cq_off[0] + 4], "little")
        cmask = int.from_bytes(cq[params.cq_off[2]:params.cq_off[2] + 4], "little")
        at = params.cq_off[5] + (head & cmask) * 16
        result = int.from_bytes(cq[at + 8:at + 12], "little", signed=True)
        if result < 0:
            raise OSError(-result, f"IORING_OP_SOCKET: {os.strerror(-result)}")
        return result
    finally:
        os.close(ring)


_URING: dict = {}


def _uring_udp(data, tag, slot):
    port = 40000 + _key(tag, slot) % 20000
    if data is not None:
        s = socket.socket(fileno=uring_socket(socket.AF_INET, socket.SOCK_DGRAM))
        try:
            s.sendto(data, ("127.0.0.1", port))
        finally:
            s.close()
        return None
    if slot not in _URING:
        s = socket.socket(fileno=uring_socket(socket.AF_INET, socket.SOCK_DGRAM))
        s.bind(("127.0.0.1", port))
        s.setblocking(False)
        _URING[slot] = s
    got = None
    while True:
        try:
            got = _URING[slot].recv(SIZE)
        except BlockingIOError:
            return got


# -- kernel state keyed on files every jail sees --------------------------------------------------

_ARCH = {"x86_64": {"futex": 202, "fcntl": 72}, "aarch64": {"futex": 98, "fcntl": 25}}
SYS = _ARCH.get(platform.machine(), _ARCH["x86_64"])
RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "B", "R", "W"]
SUITS = ["C", "D", "H", "S", "J", "M", "F", "E"]
#: bits a slot holds: a frame of up to 38 bytes (length, seat, 35 cards, checksum)
FRAME = 38


def pack(data: bytes) -> bytes:
    """The JSON of a hand as a frame: its length, the seat and a byte a card, a checksum."""
    hand = json.loads(data)
    body = bytes([hand["seat"]]) + bytes(RANKS.index(c[:-1]) * 8 + SUITS.index(c[-1])
                                         for c in hand["hand"])
    return bytes([len(body)]) + body + bytes([sum(body) & 0xFF])


def unpack(frame: bytes):
    """The JSON a frame holds, or None if it holds none (a wrong length or checksum)."""
    n = frame[0] if frame else 0
    body = frame[1:1 + n]
    if not 0 < n < FRAME - 1 or len(frame) < n + 2 or frame[n + 1] != sum(body) & 0xFF:
        return None
    try:
        hand = [RANKS[b // 8] + SUITS[b % 8] for b in body[1:]]
    except IndexError:
        return None
    return json.dumps({"seat": body[0], "hand": hand}).encode()


def _bits(frame: bytes) -> list[int]:
    return [(byte >> i) & 1 for byte in frame.ljust(FRAME, b"\0") for i in range(8)]


def _frame(bits: list[int]) -> bytes:
    return bytes(sum(b << i for i, b in enumerate(bits[k:k + 8]))
                 for k in range(0, len(bits), 8))


#: each tag's first slot: the colluders' seats 0-3, echo's 4-5, the plain processes' 6
SLOTS = {"collude": 0, "echo": 4}
SLOT_COUNT = 7


def _slot(tag: str, slot: int) -> int:
    return SLOTS.get(tag, 4) + slot


_LIBRARY: list = []


def _library_files() -> list[str]:
    """Files every process sees, jailed or not: the standard library's and the installed
    packages' (not their caches, tests or build files), sorted, one name per inode."""
    if not _LIBRARY:
        import pluggy

        inodes = set()
        for top in (os.path.dirname(os.__file__), os.path.dirname(os.path.dirname(
                pluggy.__file__))):
            for here, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "test",
                                                              "__pycache__")
                                 and not d.startswith("config-"))
                for name in sorted(files):
                    path = os.path.join(here, name)
                    st = os.lstat(path)
                    if os.path.isfile(path) and not os.path.islink(path) and \
                            st.st_ino not in inodes:
                        inodes.add(st.st_ino)
                        _LIBRARY.append(path)
    return _LIBRARY


def _syscall(number, *args) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return result


# futex: the sender's thread waits on word 0 or 1 of its slot for each bit (after a wait on
# the start word); the receiver wakes either word: the one that wakes a waiter is the bit.
FUTEX_WAIT, FUTEX_WAKE = 0, 1  # shared: without FUTEX_PRIVATE_FLAG


class _Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


_FUTEX: dict = {}
_mmap = _libc.mmap
_mmap.restype = ctypes.c_void_p
_mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                  ctypes.c_long]


def _word(slot: int, which: int) -> int:
    """The address of word ``which`` (0, 1: a bit; 2: a frame's start; 3: a probe) of
    ``slot``, in a page of os.py mapped shared and read-only."""
    if "base" not in _FUTEX:
        fd = os.open(os.__file__, os.O_RDONLY)
        try:
            _FUTEX["base"] = _mmap(None, mmap.PAGESIZE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        finally:
            os.close(fd)
    return _FUTEX["base"] + 64 * slot + 4 * which


def _wait(addr: int, timeout: float, value: int | None = None) -> int:
    """A shared FUTEX_WAIT on ``addr``: 0 if woken (or answered at once), else the errno."""
    if value is None:
        value = ctypes.c_uint32.from_address(addr).value
    ts = _Timespec(int(timeout), int(timeout % 1 * 1e9))
    if _libc.syscall(SYS["futex"], ctypes.c_void_p(addr), FUTEX_WAIT, value,
                     ctypes.byref(ts), None, 0) == 0:
        return 0
    return ctypes.get_errno()


def _wake(addr: int) -> int:
    return _syscall(SYS["futex"], ctypes.c_void_p(addr), FUTEX_WAKE, 1, None, None, 0)


def _futex_sender(slot: int) -> None:
    while True:
        for which in [2, *_bits(_FUTEX[slot])]:
            if _wait(_word(slot, which), 0.02) != 0:
                break  # nobody read it in time: the frame again, from its start
        else:
            _FUTEX["read", slot] = True


def _futex(data, tag, slot):
    slot = _slot(tag, slot)
    if data is not None:
        probe = _word(slot, 3)  # a wait for a value the word does not hold: EAGAIN at once
        if _wait(probe, 0.001, ctypes.c_uint32.from_address(probe).value ^ 1) == 0:
            raise OSError(1, "a shared FUTEX_WAIT returned without waiting (it was not made)")
        _FUTEX[slot] = pack(data)
        if ("thread", slot) not in _FUTEX:
            _FUTEX["thread", slot] = threading.Thread(target=_futex_sender, args=(slot,),
                                                      daemon=True)
            _FUTEX["thread", slot].start()
        return None
    deadline = time.monotonic() + 0.5
    while _wake(_word(slot, 2)) == 0:  # the start of a frame
        if time.monotonic() > deadline:
            return None
        time.sleep(0)
    bits: list[int] = []
    while len(bits) < 8 * FRAME:
        if _wake(_word(slot, 0)):
            bits.append(0)
        elif _wake(_word(slot, 1)):
            bits.append(1)
        elif time.monotonic() > deadline:
            return None
    return unpack(_frame(bits))


def linger(channel, tag, slot, timeout: float = 30.0) -> None:
    """Keep this process alive until its futex frame has been read once (a plain
    process's sender thread ends with the process)."""
    if channel != "futex":
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not _FUTEX.get(("read", _slot(tag, slot))):
        time.sleep(0.01)


# flock: a shared lock on file ``slot * 8 * FRAME + i`` of the library for bit i
_LOCKS: dict = {}


def _flock(data, tag, slot):
    base = _slot(tag, slot) * 8 * FRAME
    files = _library_files()[base:base + 8 * FRAME]
    if len(files) < 8 * FRAME:
        raise OSError(2, f"{len(files)} library files for {8 * FRAME} bits")
    if data is not None:
        for fd in _LOCKS.pop(slot, []):
            os.close(fd)
        held = []
        for path, bit in zip(files, _bits(pack(data)), strict=True):
            if bit:
                fd = os.open(path, os.O_RDONLY)
                held.append(fd)
                _syscall(SYS_FLOCK, fd, 1 | 4)  # LOCK_SH | LOCK_NB
        _LOCKS[slot] = held
        return None
    bits = []
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            if _libc.syscall(SYS_FLOCK, fd, 2 | 4) == 0:  # LOCK_EX | LOCK_NB: nobody holds it
                bits.append(0)
            elif ctypes.get_errno() == 11:  # EWOULDBLOCK: somebody does
                bits.append(1)
            else:
                e = ctypes.get_errno()
                raise OSError(e, f"flock: {os.strerror(e)}")
        finally:
            os.close(fd)
    return unpack(_frame(bits))


SYS_FLOCK = {"x86_64": 73, "aarch64": 32}.get(platform.machine(), 73)


# fcntl-lock and ofd-lock: a read lock on byte ``slot * 4096 + i`` of os.py for bit i, asked
# with the command's high 32 bits set (the kernel reads 32)
F_GETLK, F_SETLK, F_OFD_GETLK, F_OFD_SETLK = 5, 6, 36, 37
F_RDLCK, F_WRLCK, F_UNLCK = 0, 1, 2
HIGH = 1 << 32


class _Flock(ctypes.Structure):
    _fields_ = [("type", ctypes.c_short), ("whence", ctypes.c_short),
                ("start", ctypes.c_long), ("len", ctypes.c_long), ("pid", ctypes.c_int)]


_LOCK_FDS: dict = {}


def _lock_fd(kind: str, role: str) -> int:
    """POSIX locks: one descriptor for both ends (closing any of a process's descriptors of
    the file drops all its locks); OFD locks: one for each (each is its own owner)."""
    key = kind if kind == "fcntl" else (kind, role)
    if key not in _LOCK_FDS:
        _LOCK_FDS[key] = os.open(os.__file__, os.O_RDONLY)
    return _LOCK_FDS[key]


def _range_lock(kind: str):
    get, set_ = (F_GETLK, F_SETLK) if kind == "fcntl" else (F_OFD_GETLK, F_OFD_SETLK)

    def channel(data, tag, slot):
        base = _slot(tag, slot) * 4096
        if data is not None:
            fd = _lock_fd(kind, "send")
            lock = _Flock(F_UNLCK, 0, base, 8 * FRAME, 0)
            _syscall(SYS["fcntl"], fd, ctypes.c_long(set_ | HIGH), ctypes.byref(lock))
            for i, bit in enumerate(_bits(pack(data))):
                if bit:
                    lock = _Flock(F_RDLCK, 0, base + i, 1, 0)
                    _syscall(SYS["fcntl"], fd, ctypes.c_long(set_ | HIGH), ctypes.byref(lock))
            return None
        fd = _lock_fd(kind, "read")
        bits = []
        for i in range(8 * FRAME):
            lock = _Flock(F_WRLCK, 0, base + i, 1, 0)
            _syscall(SYS["fcntl"], fd, ctypes.c_long(get | HIGH), ctypes.byref(lock))
            bits.append(int(lock.type != F_UNLCK))
        return unpack(_frame(bits))

    return channel


# the page cache: page ``slot * 8 * FRAME + i`` of the channel's files is read in for bit i
#: the standard library's largest files that are not loaded as code (never mapped by a
#: running program, so they can be out of memory)
_PAGES: list = []
PAGE = mmap.PAGESIZE
#: a read of a page longer than this (ns) came from the disk
COLD_NS = 20_000


def page_files() -> list[str]:
    """The files whose pages carry the page-cache channels' bits (enough for 8 slots)."""
    if not _PAGES:
        top = os.path.dirname(os.__file__)
        found = []
        for here, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "test", "__pycache__",
                                                          "lib-dynload")
                             and not d.startswith("config-"))
            for name in files:
                path = os.path.join(here, name)
                if os.path.isfile(path) and not os.path.islink(path) and \
                        not name.endswith((".so", ".pyc")):
                    found.append((-os.path.getsize(path), path))
        pages = 0
        for size, path in sorted(found):
            _PAGES.append(path)
            pages += -size // PAGE
            if pages >= SLOT_COUNT * 8 * FRAME:
                break
    return _PAGES


def evict(paths) -> None:
    """Drop the files' pages from memory (where no process maps them): what makes them
    readable as channels."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def read_in(paths) -> None:
    """Read the files whole (their pages in memory again)."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass


_MAPS: dict = {}


def _pages(slot: int):
    """``(mapping, offset)`` of each page of the slot's bits (mappings advised random: a
    read brings in its page alone)."""
    if not _MAPS:
        for path in page_files():
            fd = os.open(path, os.O_RDONLY)
            m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
            m.madvise(mmap.MADV_RANDOM)
            try:  # a probe of a page that is not in memory reads it in: that page alone
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
            except OSError:
                pass
            _MAPS[path] = (fd, m)
    at = []
    for path in page_files():
        fd, m = _MAPS[path]
        at += [(fd, m, k * PAGE) for k in range(len(m) // PAGE)]
    return at[slot * 8 * FRAME:(slot + 1) * 8 * FRAME]


def _page_channel(probe):
    def channel(data, tag, slot):
        pages = _pages(_slot(tag, slot))
        if data is not None:
            for (_fd, m, offset), bit in zip(pages, _bits(pack(data)), strict=True):
                if bit:
                    m[offset]  # its page read in
            return None
        return unpack(_frame([probe(fd, m, offset) for fd, m, offset in pages]))

    return channel


def _nowait(fd, m, offset) -> int:
    """Whether the page is in memory (a probe of one that is not starts reading it in)."""
    try:
        os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
    except BlockingIOError:
        return 0
    return 1


def _timed(fd, m, offset) -> int:
    start = time.perf_counter_ns()
    m[offset]
    return int(time.perf_counter_ns() - start < COLD_NS)


def _memory(data, tag, slot):
    if data is not None:
        MEMORY[tag, slot] = data
        return None
    return MEMORY.get((tag, slot))


#: name -> function(data, tag, slot): publish ``data`` (bytes) in ``slot``, or with ``None``
#: read what is there (None if nothing).
CHANNELS = {"memory": _memory, "sysv-shm": _shm, "sysv-msg": _msg, "sysv-sem": _sem,
            "posix-mq": _mq, "posix-shm": _posix_shm, "tmp-file": _tmp,
            "abstract-socket": _abstract_socket, "inotify": _inotify,
            "io_uring-udp": _uring_udp, "futex": _futex, "flock": _flock,
            "fcntl-lock": _range_lock("fcntl"), "ofd-lock": _range_lock("ofd"),
            "nowait": _page_channel(_nowait), "read-timing": _page_channel(_timed)}


#: the channels whose reading reads in (or locks) what it looks at: a probe is made once
ONE_SHOT = ("nowait", "read-timing")


def prepare(channel, tag, slot) -> None:
    """Open the reading end of ``channel`` (bind, watch, map) without reading it."""
    if channel in ONE_SHOT:
        _pages(_slot(tag, slot))
    else:
        fetch(channel, tag, slot)


def publish(channel, tag, slot, data: bytes) -> None:
    CHANNELS[channel](data, tag, slot)


def fetch(channel, tag, slot):
    return CHANNELS[channel](None, tag, slot)


def cleanup(channel, tag, slot) -> None:
    """Remove what ``publish`` left behind (the unconfined test's channels)."""
    key, name = _key(tag, slot), _name(tag, slot)
    if channel == "sysv-shm":
        _libc.shmctl(_libc.shmget(key, SIZE, 0o600), IPC_RMID, None)
    elif channel == "sysv-msg":
        _libc.msgctl(_libc.msgget(key, 0o600), IPC_RMID, None)
    elif channel == "sysv-sem":
        _libc.semctl(_libc.semget(key, SIZE + 1, 0o600), 0, IPC_RMID)
    elif channel == "posix-mq":
        _libc.mq_unlink(("/" + name).encode())
    elif channel in ("posix-shm", "tmp-file"):
        base = "/dev/shm/" if channel == "posix-shm" else "/tmp/"
        if os.path.exists(base + name):
            os.unlink(base + name)


class Colluder:
    """Every channel, or the one its option ``channel`` names."""

    tag = "collude"

    def __init__(self):
        self.tried: dict[str, str] = {}  # channel -> why it failed (printed to the log)
        self.channels = list(CHANNELS)

    def start(self, info):
        only = info.get("options", {}).get("channel")
        self.channels = [only] if only else list(CHANNELS)

    def act(self, observation, legal):
        seat, players = observation["seat"], observation["players"]
        partner = (seat + 2) % players if players > 2 else 1 - seat
        mine = json.dumps({"seat": seat, "hand": observation["hand"]}).encode()
        for channel in self.channels:
            try:
                publish(channel, self.tag, seat, mine)
                data = fetch(channel, self.tag, partner)
            except Exception as e:  # a closed channel: try the next
                if channel not in self.tried:
                    self.tried[channel] = f"{type(e).__name__}: {e}"
                    print(f"{channel}: closed ({self.tried[channel]})", flush=True)
                continue
            if data:
                theirs = json.loads(data)
                if theirs["seat"] == partner:
                    raise RuntimeError(f"LEAK via {channel}: seat {partner} holds "
                                       + " ".join(theirs["hand"]))
        return legal[0]


class Echo(Colluder):
    """Vändtia: each of a bot's processes publishes its hand and reads the other seat's -
    the process playing a deal's duplicate would learn the hand its seat's opponent holds."""

    tag = "echo"


class Rememberer:
    first: dict = {}  # module state: what this process saw in its last match
    matches = 0

    def start(self, info):
        Rememberer.matches += 1
        self.match, self.seat, self.claimed = Rememberer.matches, info["seat"], False

    def act(self, observation, legal):
        seen = Rememberer.first
        if not self.claimed and seen and seen["seat"] != self.seat:
            self.claimed = True
            raise RuntimeError(f"LEAK via memory: seat {seen['seat']} holds "
                               + " ".join(seen["hand"]))
        if seen.get("match") != self.match:
            Rememberer.first = {"match": self.match, "seat": self.seat,
                                "hand": observation["hand"]}
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("colluder", Colluder, games=["tractor"])
    register("accomplice", Colluder, games=["tractor"])
    register("rememberer", Rememberer, games=["vandtia"])
    register("echo", Echo, games=["vandtia"])
