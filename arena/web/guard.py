"""What keeps another page from acting for a visitor: every request's ``Host`` is the served
address, and every request that changes something comes from the served origin and carries
the visitor's token.

Browsers do not keep cookies apart by port, and ``SameSite`` does not either: a page at
``127.0.0.1:9000`` sends this server's cookies with any request it makes to
``127.0.0.1:8000``, and may read the ones not marked ``HttpOnly``. So a cookie proves
nothing by itself. Each visitor gets a random id in an ``HttpOnly`` cookie named for this
server's port; its token is an HMAC of that id under a key this process makes and never
sends, and is written into the pages it serves (the forms' ``action``, a ``<meta>`` the
scripts read), which another origin cannot read. A ``POST`` (any method but ``GET``,
``HEAD`` and ``OPTIONS``) is refused (403, one line) unless

* its ``Origin`` (or, without one, its ``Referer``) is the served origin, and
* it carries the token: ``?csrf=TOKEN`` in its URL or an ``X-Arena-Token`` header.

A request whose ``Host`` is not the served address (a name made to resolve to 127.0.0.1 -
DNS rebinding) is refused (400) whatever its method.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from urllib.parse import parse_qs, urlsplit

#: Written into pages where the visitor's token goes; replaced as a page is sent (the same
#: length as a token, so a page's length does not change).
PLACEHOLDER = b"csrf-token-placeholder-00000000"[:32].ljust(32, b"0")
#: routes a script calls with an API token (``Authorization: Bearer``): asked so, they act
#: for that token alone and pass without a visitor token; asked without one (a page's form),
#: they are checked as any change
TOKEN_ONLY = frozenset({"/api/submit"})
SAFE = {"GET", "HEAD", "OPTIONS"}


class Guard:
    """ASGI middleware: the checks above, the visitor cookie, the token written in pages.
    ``hosts``: the ``Host`` values the server answers (``host:port``); the served origins
    are ``http://`` and each; ``*`` (a server on every interface, whose address is not
    known): any ``Host``, and a change's origin must be ``http://`` and its ``Host``. A
    request's visitor id (for caps) is in its scope's ``state``."""

    def __init__(self, app, hosts: list[str], port: int):
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.cookie = f"arena_visitor_{port}"
        self.key = secrets.token_bytes(32)

    def token(self, visitor: str) -> bytes:
        return hmac.new(self.key, visitor.encode(), hashlib.sha256).hexdigest()[:32].encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "").lower()
        if "*" not in self.hosts and host not in self.hosts:
            if scope["type"] == "websocket":  # refused before its handshake: 403
                return await send({"type": "websocket.close", "code": 4400})
            return await _refuse(scope, send, 400, "this server answers only to its own address")
        if scope["type"] == "websocket":  # acts for the API token it is opened with alone
            return await self.app(scope, receive, send)
        visitor = _cookie(headers.get("cookie", ""), self.cookie)
        fresh = visitor is None or len(visitor) != 32 or not visitor.isalnum()
        if fresh:
            visitor = secrets.token_hex(16)
        token = self.token(visitor)
        # a route that acts for an API token alone (never a cookie), asked with one: no page
        # can make a browser send that header across sites (no CORS is answered), so it
        # needs neither this server's origin nor its token
        bearer = scope.get("path", "") in TOKEN_ONLY and headers.get(
            "authorization", "").lower().startswith("bearer ")
        if scope["method"] not in SAFE and not bearer:
            origin = headers.get("origin") or _origin_of(headers.get("referer", ""))
            if origin not in self.origins and not (
                    "*" in self.hosts and origin == f"http://{host}"):
                return await _refuse(scope, send, 403, "a change must come from this server's own "
                                                "pages (another origin asked)")
            given = headers.get("x-arena-token") or (
                parse_qs(scope.get("query_string", b"").decode("latin-1")).get("csrf")
                or [""])[-1]
            if fresh or not hmac.compare_digest(given.encode("latin-1", "replace"), token):
                return await _refuse(scope, send, 403, "this page is out of date (its token is not "
                                                "yours): load it again")
        scope.setdefault("state", {})["visitor"] = visitor
        html = False

        async def sending(message):
            nonlocal html
            if message["type"] == "http.response.start":
                kept = list(message.get("headers", []))
                html = any(k.lower() == b"content-type" and v.startswith(b"text/html")
                           for k, v in kept)
                if fresh:
                    kept.append((b"set-cookie", f"{self.cookie}={visitor}; Path=/; HttpOnly; "
                                                "SameSite=Strict".encode()))
                message = {**message, "headers": kept}
            elif message["type"] == "http.response.body" and html:
                message = {**message, "body": message.get("body", b"").replace(PLACEHOLDER,
                                                                             token)}
            await send(message)

        return await self.app(scope, receive, sending)


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None


async def _refuse(scope, send, status: int, text: str) -> None:
    """One line: JSON (``{"error": ...}``) to a script's ``/api/`` call, else text."""
    if scope.get("path", "").startswith("/api/"):
        body, kind = json.dumps({"error": text}).encode(), b"application/json"
    else:
        body, kind = (text + "\n").encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
