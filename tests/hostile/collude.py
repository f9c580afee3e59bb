"""Hostile bots that try to see cards their seat may not: by every channel the kernel offers
between two processes, and by remembering a deal across matches.

* ``colluder`` and ``accomplice`` (Tractor): at every move each publishes its hand on
  every channel below under its seat and reads its partner's (the seat two places on); the
  first hand it gets it announces by raising ``RuntimeError("LEAK ...")``, which forfeits the
  match and stores the claim. The same bot in both seats of a team tries the ``memory``
  channel too (a module-level dict: both seats in one process would share it); two bots in
  mixed teams need one between processes.
* ``rememberer`` (Vändtia): remembers its first hand of a match; at its next match in another
  seat it announces that seat's hand - true whenever one process plays a deal's duplicate.

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


def _memory(data, tag, slot):
    if data is not None:
        MEMORY[tag, slot] = data
        return None
    return MEMORY.get((tag, slot))


#: name -> function(data, tag, slot): publish ``data`` (bytes) in ``slot``, or with ``None``
#: read what is there (None if nothing).
CHANNELS = {"memory": _memory, "sysv-shm": _shm, "sysv-msg": _msg, "sysv-sem": _sem,
            "posix-mq": _mq, "posix-shm": _posix_shm, "tmp-file": _tmp,
            "abstract-socket": _abstract_socket}


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
        seat, partner = observation["seat"], (observation["seat"] + 2) % observation["players"]
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
