"""Signing in to a league others join (``arena serve --league``): the sign-in, sign-up and
account pages, and who a request acts for.

A browser signs in with its account's name and password (``arena.leagues.accounts``) and
gets a session cookie, ``arena_session_PORT``: ``HttpOnly`` (no script reads it),
``SameSite=Lax``, ``Secure`` over HTTPS, 30 days. Every form is a POST that
:class:`arena.web.guard.Guard` checks as any change (the server's origin and the visitor
token), so another page can neither sign someone in or out nor make or revoke their tokens.
A script acts with an API token instead: ``Authorization: Bearer TOKEN`` (no cookie, so no
page can make a browser send it). Failed sign-ins are limited per address and per name
(``FAILURES`` in ``WINDOW`` seconds, then 429 until the oldest leaves the window). An
account's page lists its API tokens - label, when made, last used, revoked - makes a new
one (shown once) and revokes any, and changes the password (which signs out its other
browsers). Sign-up is by invitation (``arena user invite``), or open with
``--signup``.
"""

from __future__ import annotations

import contextvars
import json
import threading
import time
from urllib.parse import parse_qs

from ..errors import ArenaError
from ..leagues import accounts

SESSION = "arena_session"
#: the largest upload: a submission's own limit (``files.MAX_BYTES``), sent packed
UPLOAD_MAX = 64 * 1024 * 1024
FAILURES = 5
WINDOW = 15 * 60
#: who the request being answered acts for (the pages' header says so)
CURRENT: contextvars.ContextVar = contextvars.ContextVar("arena_account", default=None)


class Limiter:
    """Failed sign-ins per key (an address, a name): at most ``FAILURES`` in ``WINDOW``
    seconds, then refused (429) until the oldest is that old."""

    def __init__(self, failures: int = FAILURES, window: float = WINDOW):
        self.failures, self.window = failures, window
        self.seen: dict[str, list[float]] = {}
        self.lock = threading.Lock()

    def check(self, keys) -> None:
        now = time.monotonic()
        with self.lock:
            for key in keys:
                recent = [t for t in self.seen.get(key, []) if now - t < self.window]
                self.seen[key] = recent
                if len(recent) >= self.failures:
                    wait = int(self.window - (now - recent[0])) // 60 + 1
                    raise accounts.AuthError(f"too many failed sign-ins from here or for "
                                             f"this name: try again in {wait} minutes", 429)

    def fail(self, keys) -> None:
        now = time.monotonic()
        with self.lock:
            for key in keys:
                self.seen.setdefault(key, []).append(now)
            if len(self.seen) > 100_000:  # forget the oldest keys, never grow without end
                for key in list(self.seen)[:50_000]:
                    del self.seen[key]


def bearer(request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def routes(site, engine, named, signup: bool):
    """The league's routes; ``named(key)``: a cookie's name for this server's port."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse
    from starlette.routing import Route

    limiter = Limiter()

    def session_of(request) -> str | None:
        return request.cookies.get(named(SESSION))

    def signed_in(request):
        """The account the browser is signed in as, or None."""
        try:
            return accounts.authenticate(engine, session_of(request), "session")
        except ArenaError:
            return None

    def acting(request):
        """The account a request acts for: its API token's, else its browser's; None."""
        token = bearer(request)
        if token is not None:
            return accounts.authenticate(engine, token, "api")
        return signed_in(request)

    site.acting = acting

    async def form(request) -> dict:
        body = (await request.body()).decode(errors="replace")
        return {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}

    def page(request, template: str, code: int = 200, **context):
        CURRENT.set(signed_in(request))
        return site.page(template, code, **context)

    def set_session(response, request, token: str) -> None:
        response.set_cookie(named(SESSION), token, max_age=accounts.SESSION_DAYS * 86400,
                            httponly=True, samesite="lax",
                            secure=request.url.scheme == "https")

    def signin_page(request):
        return page(request, "signin.html", next=_next(request.query_params.get("next")))

    async def signin_post(request):
        fields = await form(request)
        name, password = fields.get("name", "").strip(), fields.get("password", "")
        after = _next(fields.get("next"))
        address = request.client.host if request.client else ""
        keys = [f"address:{address}", f"name:{name.lower()[:40]}"]

        def attempt():
            limiter.check(keys)
            try:
                return accounts.sign_in(engine, name, password)
            except accounts.AuthError as e:
                if e.status == 401:
                    limiter.fail(keys)
                raise
        try:
            _, token = await run_in_threadpool(attempt)
        except ArenaError as e:
            return await run_in_threadpool(page, request, "signin.html",
                                           getattr(e, "status", 400), message=str(e),
                                           name=name, next=after)
        response = RedirectResponse(after, 303)
        set_session(response, request, token)
        return response

    async def signout_post(request):
        await run_in_threadpool(accounts.sign_out, engine, session_of(request))
        response = RedirectResponse("index.html", 303)
        response.delete_cookie(named(SESSION))
        return response

    def signup_page(request):
        code = request.query_params.get("invite")
        if code is None and not signup:
            return page(request, "error.html", 403, status=403,
                        message="sign-up is by invitation: ask the league's organizer")
        return page(request, "signup.html", invite=code or "")

    async def signup_post(request):
        fields = await form(request)
        code = fields.get("invite") or None
        name, password = fields.get("name", "").strip(), fields.get("password", "")

        def make():
            if code is None and not signup:
                raise accounts.AuthError("sign-up is by invitation: ask the league's "
                                         "organizer", 403)
            if password != fields.get("again", ""):
                raise ArenaError("the two passwords differ")
            return accounts.redeem(engine, code, name, password)
        try:
            _, token = await run_in_threadpool(make)
        except ArenaError as e:
            return await run_in_threadpool(page, request, "signup.html",
                                           getattr(e, "status", 400), message=str(e),
                                           invite=code or "", name=name)
        response = RedirectResponse("account.html", 303)
        set_session(response, request, token)
        return response

    def account_page(request, made: str | None = None, message: str | None = None,
                     status: int = 200):
        who = signed_in(request)
        if who is None:
            return RedirectResponse("signin.html?next=account.html", 303)
        return page(request, "account.html", status, who=who, made=made, message=message,
                    tokens=accounts.tokens(engine, who.name))

    async def account_post(request):
        """The account page's forms: ``do`` is ``token`` (make one), ``revoke`` (its
        ``id``) or ``password``."""
        fields = await form(request)

        def act():
            who = signed_in(request)
            if who is None:
                raise accounts.AuthError("sign in first", 401)
            do = fields.get("do")
            if do == "token":
                row, token = accounts.new_token(engine, who.name,
                                                fields.get("label", "").strip()[:80])
                return token, f"token {row.id} made: copy it now, it is not shown again"
            if do == "revoke":
                text = fields.get("id", "")
                if not (text.isascii() and text.isdigit() and len(text) < 12):
                    raise ArenaError("no such token")
                accounts.revoke(engine, int(text), who.name)
                return None, f"token {int(text)} revoked"
            if do == "password":
                accounts.sign_in(engine, who.name, fields.get("current", ""))  # it is them
                if fields.get("password", "") != fields.get("again", ""):
                    raise ArenaError("the two passwords differ")
                accounts.set_password(engine, who.name, fields.get("password", ""))
                return None, "password changed: every browser was signed out, this one too"
            raise ArenaError("nothing to do")
        try:
            made, said = await run_in_threadpool(act)
        except ArenaError as e:
            if getattr(e, "status", 400) == 401 and signed_in(request) is None:
                return RedirectResponse("signin.html?next=account.html", 303)
            return await run_in_threadpool(account_page, request, None, str(e),
                                           getattr(e, "status", 400))
        return await run_in_threadpool(account_page, request, made, said)

    async def submit(request):
        """``arena submit FILE --to URL --token T``: the file (or a folder as a gzipped tar,
        a wheel) as the body, its name in ``X-Arena-Filename``; acts for the API token
        alone (never a cookie). Staged, checked in the sandbox and kept as ``arena
        submit`` keeps one, as the token's account's: a name is its first account's."""
        import shutil
        import tempfile
        from pathlib import Path

        from ..leagues import store
        from ..sandbox import files

        try:
            account = await run_in_threadpool(accounts.authenticate, engine, bearer(request))
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 401))
        data = await request.body()
        folder = Path(tempfile.mkdtemp(prefix="arena-upload-"))

        def take():
            path = files.unpack_upload(request.headers.get("x-arena-filename", ""), data,
                                       folder)
            home = store.store_folder(site.registry.db_url, site.registry.store)
            return store.submit(engine, site.registry, home, path, account.name,
                                account_owned=True)
        try:
            row, new, _ = await run_in_threadpool(take)
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return JSONResponse({"name": row.name, "version": row.version, "new": new,
                             "author": row.author, "games": json.loads(row.games)})

    def me(request):
        try:
            who = acting(request)
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 401))
        if who is None:
            return JSONResponse({"error": "sign in, or give a token (Authorization: Bearer "
                                          "TOKEN)"}, 401)
        return JSONResponse({"name": who.name, "role": who.role})

    return [
        Route("/signin.html", signin_page, methods=["GET"]),
        Route("/signin.html", signin_post, methods=["POST"]),
        Route("/signout", signout_post, methods=["POST"]),
        Route("/signup.html", signup_page, methods=["GET"]),
        Route("/signup.html", signup_post, methods=["POST"]),
        Route("/account.html", account_page, methods=["GET"]),
        Route("/account.html", account_post, methods=["POST"]),
        Route("/api/me", me, methods=["GET"]),
        Route("/api/submit", submit, methods=["POST"], max_body_size=UPLOAD_MAX),
    ]


def _next(value: str | None) -> str:
    """Where to go after signing in: a page of this server only (never another site)."""
    if value and value.isascii() and len(value) < 200 and "/" not in value and \
            "\\" not in value and ":" not in value and not value.startswith("."):
        return value
    return "account.html"
