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
#: uploads per account and per address in ``UPLOAD_WINDOW`` seconds, kept or refused
UPLOADS = 30
UPLOAD_WINDOW = 60 * 60
#: who the request being answered acts for (the pages' header says so)
CURRENT: contextvars.ContextVar = contextvars.ContextVar("arena_account", default=None)


class Limiter:
    """Events per key (an address, a name, an account): at most ``failures`` in ``window``
    seconds, then refused (429) until the oldest is that old; ``what`` names them."""

    def __init__(self, failures: int = FAILURES, window: float = WINDOW,
                 what: str = "failed sign-ins from here or for this name"):
        self.failures, self.window, self.what = failures, window, what
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
                    raise accounts.AuthError(f"too many {self.what}: try again in {wait} "
                                             "minutes", 429)

    def fail(self, keys) -> None:
        now = time.monotonic()
        with self.lock:
            for key in keys:
                self.seen.setdefault(key, []).append(now)
            if len(self.seen) > 100_000:  # forget the oldest keys, never grow without end
                for key in list(self.seen)[:50_000]:
                    del self.seen[key]


class Checker:
    """The server's own checker of uploads (``arena.leagues.uploads``): a thread that looks
    as soon as an upload arrives, and every ``poll`` seconds (for an upload another server of
    the league took, or one a checker killed half-way left). ``arena ladder GAME --serve``
    checks them too: whichever claims an upload first checks it."""

    def __init__(self, engine, registry, store, poll: float = 2.0):
        self.engine, self.registry, self.store, self.poll = engine, registry, store, poll
        self.wake, self.stopping = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self.run, name="arena-upload-checker",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()

    def run(self) -> None:
        import logging

        from ..leagues import uploads

        log = logging.getLogger("arena.uploads")
        while not self.stopping.is_set():
            try:
                row = uploads.check_next(self.engine, self.registry, self.store(),
                                         say=log.info)
            except ArenaError as e:  # the store or the database: said, and tried again
                log.warning("checking uploads: %s", e)
                row = None
            if row is None:
                self.wake.wait(self.poll)
                self.wake.clear()


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
        keys = [f"address:{_address(request)}", f"name:{name.lower()[:40]}"]

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

    def home():
        from ..leagues import store

        return store.store_folder(site.registry.db_url, site.registry.store)

    site.checker = Checker(engine, site.registry, home)
    sent = Limiter(UPLOADS, UPLOAD_WINDOW, "uploads from this account or address")

    async def submit(request):
        """An upload: the file (a ``.py``, a wheel, a folder as a gzipped tar) as the body,
        its name in ``X-Arena-Filename``, for the API token it is sent with (``arena submit
        --to``) or the signed-in browser (the upload form, which the guard checks as any
        change). Unpacked at once (what is no upload is refused, 400, nothing kept), kept,
        and answered 202 with the upload's number; the check follows (``Checker``)."""
        from ..leagues import authors, uploads

        try:
            account = await run_in_threadpool(acting, request)
            if account is None:
                raise accounts.AuthError("sign in, or give a token (Authorization: Bearer "
                                         "TOKEN)", 401)
            keys = [f"account:{account.name}", f"address:{_address(request)}"]
            sent.check(keys)  # before a byte of the body is read
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 401))
        data = await request.body()

        def take():
            sent.check(keys)
            sent.fail(keys)  # every upload counts, kept or refused
            return uploads.enqueue(engine, home(), account.name,
                                   request.headers.get("x-arena-filename", ""), data)
        try:
            row = await run_in_threadpool(take)
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))
        site.checker.wake.set()
        return JSONResponse(authors.upload_json(row), 202)

    def upload_state(request):
        from ..leagues import authors, uploads

        try:
            who = acting(request)
            if who is None:
                raise accounts.AuthError("sign in, or give a token", 401)
            text = request.path_params["id"]
            if not (text.isascii() and text.isdigit() and len(text) < 12):
                raise uploads.NotYours(f"no upload {text[:20]!r} of yours")
            row = uploads.get(engine, int(text), who.name)
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))
        return JSONResponse(authors.upload_json(row), headers={"Cache-Control": "no-store"})

    def mine_data(request, live: bool = False):
        from ..leagues import authors

        who = acting(request)
        if who is None:
            raise accounts.AuthError("sign in first", 401)
        return who, authors.overview(engine, site.registry, who.name, live=live)

    def mine_json(request):
        """What an author's page shows; ``?live=1``: what moves alone (what it polls)."""
        try:
            _, data = mine_data(request, request.query_params.get("live") == "1")
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    def mine_page(request):
        try:
            who, data = mine_data(request)
        except accounts.AuthError:
            return RedirectResponse("signin.html?next=mine.html", 303)
        return page(request, "mine.html", who=who, data=data)

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
        Route("/api/uploads/{id}", upload_state, methods=["GET"]),
        Route("/api/mine", mine_json, methods=["GET"]),
        Route("/mine.html", mine_page, methods=["GET"]),
    ]


def _address(request) -> str:
    return request.client.host if request.client else ""


def _next(value: str | None) -> str:
    """Where to go after signing in: a page of this server only (never another site)."""
    if value and value.isascii() and len(value) < 200 and "/" not in value and \
            "\\" not in value and ":" not in value and not value.startswith("."):
        return value
    return "account.html"
