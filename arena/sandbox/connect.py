"""``arena connect``: play a league's matches with a bot that stays on this machine.

The client connects to the league's ``/ws/bot`` (``arena.web.remote``; docs/protocol.md has
the wire format), says ``hello`` with the bot's name, games and code hash, and then does
what the server asks: ``open`` a channel - start a process of the bot, as a runner starts
one here (:class:`arena.sandbox.process.Worker`: the same sandbox, the same protocol, so a
bot that plays locally plays remotely unchanged) - pass each message of a channel to its
process and send back its answer, and ``close`` it. The clocks are the server's: here a
process may take what it needs (the server counts the time). What a process writes to its
log is shown here, on standard error. A dropped connection is tried again, with the
channels still held, for as long as the server's grace period allows.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time

from ..errors import ArenaError, BotFault
from .process import Limits, Worker

#: the answer each message of a channel asks for (``end`` asks none)
ANSWERED = {"start": "ready", "act": None, "values": "values"}
#: seconds a local process may take: the server's clock is the one that counts
LOCAL_S = 3600.0


class Channel:
    """One process of the bot and a thread that feeds it, in order."""

    def __init__(self, number: int, spec: dict, out, say):
        self.number, self.out, self.say = number, out, say
        self.worker = Worker(spec, Limits(move_s=LOCAL_S, bank_s=0.0, start_s=LOCAL_S))
        self.inbox: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self.run, daemon=True,
                                       name=f"arena-channel-{number}")
        self.thread.start()

    def run(self) -> None:
        while True:
            message = self.inbox.get()
            if message is None:
                self.worker.close()
                return
            try:
                kind = message.get("type")
                if kind in ANSWERED:
                    self.worker.send(message)
                    answer = self.worker.receive(LOCAL_S)
                    self.out({"channel": self.number, "message": answer})
                else:
                    self.worker.hold(message)
            except BotFault as fault:
                self.say(f"channel {self.number}: the bot's process ended ({fault.reason})")
                self.out({"type": "closed", "channel": self.number, "reason": fault.reason})
                return
            finally:
                data, _ = self.worker.take_raw()
                if data:
                    sys.stderr.buffer.write(data)
                    sys.stderr.flush()

    def close(self) -> None:
        self.inbox.put(None)


def connect(url: str, token: str, name: str, entry, say=lambda line: None,
            once: bool = False) -> None:
    """Serve bot ``entry`` (``name``'s registry entry for each game it plays: a dict game ->
    BotEntry) to the league at ``url`` until interrupted (``once``: until the first
    connection ends)."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI
    from websockets.sync.client import connect as ws_connect

    address = url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    address += "/ws/bot"
    games = sorted(entry)
    code = entry[games[0]].code_hash
    channels: dict[int, Channel] = {}
    outbox: list[dict] = []
    lock = threading.Lock()
    state = {"ws": None}

    def out(message: dict) -> None:
        with lock:
            ws = state["ws"]
            if ws is None:
                outbox.append(message)
                return
            try:
                ws.send(json.dumps(message, separators=(",", ":")))
            except ConnectionClosed:
                outbox.append(message)

    away_since = None
    grace = 30.0
    while True:
        try:
            ws = ws_connect(address, additional_headers={"Authorization": f"Bearer {token}"},
                            max_size=1 << 26, open_timeout=30)
        except InvalidStatus as e:
            code_ = e.response.status_code
            raise ArenaError(f"{url}: refused ({code_}): " + (
                "this token is not valid" if code_ in (401, 403) else "no remote bots there "
                "(arena serve --league)")) from None
        except (InvalidURI, OSError, TimeoutError) as e:
            if away_since is not None and time.monotonic() - away_since < grace:
                time.sleep(1.0)
                continue
            raise ArenaError(f"cannot reach {url}: {e}") from None
        with ws:
            ws.send(json.dumps({"type": "hello", "bot": name, "games": games, "code": code,
                                "channels": sorted(channels)}))
            welcome = json.loads(ws.recv(timeout=30))
            if welcome.get("type") != "welcome":
                raise ArenaError(f"{url}: {welcome.get('error', 'refused')}")
            grace = float(welcome.get("grace_s", grace))
            for number in [n for n in channels if n not in welcome.get("channels", [])]:
                channels.pop(number).close()  # the server closed it meanwhile
            if away_since is None:
                say(f"connected: {welcome['bot']} plays from here (Ctrl-C stops)")
            else:
                say(f"connected again: {welcome['bot']}")
            with lock:
                state["ws"] = ws
                waiting, outbox[:] = list(outbox), []
            for message in waiting:
                out(message)
            try:
                for text in ws:
                    message = json.loads(text)
                    kind = message.get("type")
                    number = message.get("channel")
                    if kind == "open" and message.get("game") in entry:
                        channels[number] = Channel(number, entry[message["game"]].spec, out,
                                                   say)
                        say(f"channel {number}: a process plays {message['game']}")
                    elif kind == "close":
                        found = channels.pop(number, None)
                        if found is not None:
                            found.close()
                    elif number in channels and isinstance(message.get("message"), dict):
                        channels[number].inbox.put(message["message"])
            except ConnectionClosed:
                pass
            finally:
                with lock:
                    state["ws"] = None
        if once:
            break
        away_since = time.monotonic()
        say(f"disconnected: trying again for {grace:g} s")
    for found in channels.values():
        found.close()
