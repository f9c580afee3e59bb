"""A remote bot's process, as the runner sees it: a :class:`arena.sandbox.process.Worker`
whose pipes are a Unix socket that the league's server relays, over its author's websocket,
to a process on the author's machine (``arena connect``, ``arena.web.remote``).

The runner speaks to it exactly as to a local worker - the same JSON lines, protocol 1 or
2, deltas - and keeps its clocks: a move's time is counted here, from the question sent to
the answer read, the network included. Its first ``ready`` may take ``START_S`` (the start-up
budget: a process started on another machine, its answer over the network), each move its
``move_s`` and bank as any bot's. A socket that closes - its author's process gone, or the
author not reconnected within the server's grace period - is the fault ``disconnected``;
a silent one past its deadline, ``timeout``. What the bot writes to its log stays on its
author's machine.
"""

from __future__ import annotations

import socket

from ..errors import BotFault
from .process import Worker, watchdog

#: seconds a remote bot's process has to say ``ready`` to its first ``start``
START_S = 30.0


class RemoteWorker(Worker):
    """A remote bot's process: ``spec["socket"]``, the server's relay for it."""

    def __init__(self, spec: dict, limits):
        import threading

        self.limits, self.dir, self.closed = limits, None, False
        self.buffer, self.held = b"", b""
        self.deadline: float | None = None
        self.timed_out = False
        self.log_lock = threading.Lock()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.rfd = self.wfd = self.sock.fileno()
        try:
            self.sock.connect(spec["socket"])
        except OSError:  # not connected now: its first question is its fault, as for a
            self.closed = True  # local process that does not start
            self.sock.close()
            return
        watchdog().watch(self)

    def send(self, message: dict) -> None:
        if self.closed:
            raise BotFault("disconnected: its author's arena connect is not running")
        super().send(message)

    def ask(self, message: dict, expect: str, timeout: float, since: float | None = None) -> dict:
        if expect == "ready":
            timeout = max(timeout, START_S)
        return super().ask(message, expect, timeout, since)

    def fault(self, reason: str) -> BotFault:
        self.kill()
        return BotFault("disconnected" if reason == "exited" else reason)

    def terminate(self) -> None:
        """End a read that waits past its deadline (the watchdog): the socket is shut."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def kill(self) -> None:
        watchdog().forget(self)
        if not self.closed:
            self.closed = True
            self.terminate()
            self.sock.close()

    @property
    def alive(self) -> bool:
        return not self.closed

    def close(self) -> None:
        if self.held and not self.closed:
            try:
                self.sock.sendall(self.held)
            except OSError:
                pass
            self.held = b""
        self.kill()

    def drain(self) -> None:
        pass

    def take_raw(self) -> tuple[bytes, int]:
        return b"", 0

    def log_tail(self, size: int = 0) -> str:
        return ""


def open_worker(spec: dict, limits) -> Worker:
    """The process for a bot's spec: a remote bot's relay, or a sandboxed local worker."""
    if spec.get("kind") == "remote":
        return RemoteWorker(spec, limits)
    return Worker(spec, limits)
