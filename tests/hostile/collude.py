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

A test checks each claim against the replayed match: a true claim is a leak. Run without the
sandbox (two plain processes), every channel here works; run by arena, none may.
"""

import ctypes
import json
import os
import socket

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


def _zone_files() -> list[str]:
    """Read-only files every process may open: the time zones (one name per inode: a watch
    is on an inode, and the zones have hard links)."""
    found, inodes = [], set()
    for here, dirs, files in os.walk("/usr/share/zoneinfo"):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(here, name)
            st = os.lstat(path)
            if os.path.isfile(path) and not os.path.islink(path) and st.st_ino not in inodes:
                inodes.add(st.st_ino)
                found.append(path)
    return found


def _slot_files(tag, slot):
    base = (sum(map(ord, tag)) % 8 * 4 + slot) * NIBBLES
    return _zone_files()[base:base + NIBBLES]


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
            "io_uring-udp": _uring_udp}


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
    tag = "collude"

    def __init__(self):
        self.tried: dict[str, str] = {}  # channel -> why it failed (printed to the log)

    def act(self, observation, legal):
        seat, players = observation["seat"], observation["players"]
        partner = (seat + 2) % players if players > 2 else 1 - seat
        mine = json.dumps({"seat": seat, "hand": observation["hand"]}).encode()
        for channel in CHANNELS:
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
