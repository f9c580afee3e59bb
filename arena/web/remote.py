"""Remote bots (``arena serve --league``): a bot that stays on its author's machine and plays
the league's matches over a websocket (``arena connect URL --token T BOT``; the wire format
is in docs/protocol.md).

The author's client connects to ``/ws/bot`` with ``Authorization: Bearer TOKEN`` (an API
token: a page cannot send that header, and a cookie is never read here) and says
``hello``: the bot's name, its games and a hash of its code. The server registers the
version (``store.register_remote``: the name is the account's, the same code the same
version) and listens, for as long as the bot is connected, on the version's abstract Unix
socket (``store.remote_address``), where the runners of this store - ladder workers,
seasons - reach it as they would start a bot process (``arena.sandbox.remote``): each
connection is a **channel**, a process on the author's machine that the client starts when
told ``open`` and stops when told ``close``; the runner's JSON lines go to it unchanged, and
its answers come back. Only processes of the server's own user may connect there
(``SO_PEERCRED``); a bot's jail has no socket at all.

**Reconnecting.** A client whose connection drops may connect again within ``GRACE``
seconds and name the channels it still holds (``hello``'s ``channels``): they go on where
they were (what the runner sent meanwhile is delivered then; its clock ran all the while).
After ``GRACE`` seconds without its client, every channel is closed: the runner's next read
fails, and each match in play is forfeited by the remote bot (``disconnected``), as a local
bot's crash forfeits its match. A version connected twice at once is refused the second
time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import socket
import struct

from ..errors import ArenaError

#: seconds a remote bot may be away before the matches it is in are forfeited
GRACE = 30.0
#: seconds a client has to say hello
HELLO_S = 30.0
#: the longest line a runner sends (an observation), as a worker reads it
LINE = 1 << 24


class Link:
    """One remote bot version's connection: its current websocket (None while away), its
    channels (a runner's connection each), what waits to be sent while it is away."""

    def __init__(self, entrant: str, account: str):
        self.entrant, self.account = entrant, account
        self.ws = None
        self.channels: dict[int, asyncio.StreamWriter] = {}
        self.next = 1
        self.pending: list[str] = []
        self.servers: list[asyncio.AbstractServer] = []
        self.away: asyncio.Task | None = None

    async def send(self, message: dict) -> None:
        text = json.dumps(message, separators=(",", ":"))
        if self.ws is None:
            self.pending.append(text)
            return
        try:
            await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - gone meanwhile: kept for its return
            self.pending.append(text)

    async def serve_channel(self, game: str, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
        """A runner's connection for a match of ``game``: a new channel, relayed until
        either side ends it."""
        sock = writer.get_extra_info("socket")
        uid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                   struct.calcsize("3i")))[1]
        if uid != os.getuid():
            writer.close()
            return
        channel, self.next = self.next, self.next + 1
        self.channels[channel] = writer
        await self.send({"type": "open", "channel": channel, "game": game})
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                        ConnectionError):
                    break
                await self.send({"channel": channel, "message": json.loads(line)})
        finally:
            if self.channels.pop(channel, None) is not None:
                await self.send({"type": "close", "channel": channel})
            writer.close()

    def close_channel(self, channel) -> None:
        writer = self.channels.pop(channel, None)
        if writer is not None:
            writer.close()

    async def deliver(self, message) -> None:
        """What the client sent: an answer on a channel, or a channel it closed."""
        if not isinstance(message, dict):
            return
        channel = message.get("channel")
        writer = self.channels.get(channel) if type(channel) is int else None
        if writer is None:
            return
        if message.get("type") == "closed":
            self.close_channel(channel)
        elif isinstance(message.get("message"), dict):
            writer.write(json.dumps(message["message"], separators=(",", ":")).encode()
                         + b"\n")
            try:
                await writer.drain()
            except ConnectionError:
                self.close_channel(channel)

    async def end(self) -> None:
        for channel in list(self.channels):
            self.close_channel(channel)
        for server in self.servers:
            server.close()


def routes(site, engine, grace: float = GRACE):
    """The websocket route of remote bots, over ``site``'s registry and store; ``grace``:
    the seconds a client may be away (``GRACE``)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocketDisconnect

    from ..leagues import accounts, store
    from .league import bearer

    links: dict[str, Link] = {}

    async def refuse(ws, why: str) -> None:
        await ws.send_json({"type": "refused", "error": why})
        await ws.close(code=4400)

    async def endpoint(ws):
        token = bearer(ws)
        try:
            account = await run_in_threadpool(accounts.authenticate, engine, token, "api")
        except ArenaError:
            await ws.close(code=4401)  # before the handshake: refused with 403
            return
        await ws.accept()
        try:
            hello = await asyncio.wait_for(ws.receive_json(), HELLO_S)
        except (TimeoutError, ValueError, WebSocketDisconnect):
            await ws.close(code=4400)
            return
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            return await refuse(ws, "say hello first: {\"type\": \"hello\", \"bot\": NAME, "
                                    "\"games\": [...], \"code\": HASH}")
        home = store.store_folder(site.registry.db_url, site.registry.store)
        try:
            row = await run_in_threadpool(store.register_remote, engine, site.registry,
                                          hello.get("bot"), hello.get("games"),
                                          hello.get("code"), account.name)
        except ArenaError as e:
            return await refuse(ws, str(e))
        entrant = f"{row.name}@{row.version}"
        link = links.get(entrant)
        if link is not None and link.ws is not None:
            return await refuse(ws, f"{entrant} is connected already (one connection a "
                                    "version)")
        if link is None:
            link = links[entrant] = Link(entrant, account.name)
            for game in json.loads(row.games):
                link.servers.append(await asyncio.start_unix_server(
                    functools.partial(link.serve_channel, game), limit=LINE,
                    path=store.remote_address(home, entrant, game)))
        elif link.away is not None:
            link.away.cancel()
            link.away = None
        kept = hello.get("channels") if isinstance(hello.get("channels"), list) else []
        for channel in list(link.channels):
            if channel not in kept:  # the client no longer holds it
                link.close_channel(channel)
        link.ws = ws
        await ws.send_json({"type": "welcome", "bot": entrant, "grace_s": grace,
                            "channels": sorted(link.channels)})
        waiting, link.pending = link.pending, []
        for text in waiting:
            await ws.send_text(text)
        try:
            while True:
                await link.deliver(await ws.receive_json())
        except (WebSocketDisconnect, ValueError, RuntimeError):
            pass
        finally:
            if link.ws is ws:
                link.ws = None
                link.away = asyncio.ensure_future(_forfeit_after(links, link, grace))

    site.remote_links = links
    return [WebSocketRoute("/ws/bot", endpoint)]


async def _forfeit_after(links: dict, link: Link, grace: float) -> None:
    """The grace period: the client back in time cancels this; else every channel closes
    (the runner's matches with it are forfeited) and the version is no longer served."""
    await asyncio.sleep(grace)
    if link.ws is None:
        await link.end()
        links.pop(link.entrant, None)
