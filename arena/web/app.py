"""``arena serve``: the routes, and the server that runs them.

Pages keep the report's flat names (``index.html``, ``season-ID.html``, ``match-ID.html``),
so the report's templates and their relative links serve unchanged; the server adds
``humans.html`` (the people's league and matches), ``play.html`` (a new table),
``table-ID.html`` (a match at a table, played or watched), ``challenge.html`` and
``challenge-ID.html`` (a person against a bot on the same deals). Scripts talk to
``/api/...`` (JSON) and ``/events/...`` (server-sent events).

What a browser is sent at a table is one seat's frames and, to the person whose match it is,
its legal actions (:meth:`arena.web.tables.Table.view`). A person's running match is watched
from the person's seat only - another seat's view would show a person the cards of the bots
it plays - and a bots' match from any seat's; everyone's view opens once the match has ended
(its replay page), so no bot can watch its own match. The person's browser holds the
table's token in a cookie; the database holds only its hash.

A live page polls nothing itself: an event stream tells it when a season has stored matches
or a table has moved (only counts: no card), and the page then fetches what it shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs

from .. import db
from ..errors import ArenaError
from ..plugins import is_human
from ..views import report
from . import challenges, tables

TEMPLATES = Path(__file__).with_name("templates")
#: Seconds between two looks at the database by a live season page's event stream.
POLL = 0.1
COOKIE = "arena_table_{}"
CHALLENGE_COOKIE = "arena_challenge_{}"
IDLE = 15 * 60  # seconds a table unasked-for keeps its bots' processes
PACE = 0.5  # seconds a move of a bots' table, by default
CACHED = 32  # season pages kept made, the last asked for
MAX_BODY = 64 * 1024  # bytes of a request body: a form or a move is far smaller
MAX_TABLES = 16  # running tables in all (``arena serve --max-tables``)
VISITOR_TABLES = 2  # running tables a visitor may have
MAX_BOTS = 48  # bot processes the running tables may hold in all
VISITOR_BOTS = 12  # bot processes a visitor's running tables may hold
MAX_ID = 2**63 - 1  # the largest id a database holds


def _bots_of(table) -> int:
    """The bot processes a running table holds: one a bot seat."""
    return sum(1 for name in table.defn.bots if not is_human(name))


class Site:
    """What the routes share: the database, the bots, the templates, the live tables and
    the last rendering of each season page (kept while its matches do not change)."""

    def __init__(self, engine, registry, poll: float = POLL, idle: float = IDLE,
                 max_tables: int = MAX_TABLES):
        from jinja2 import ChoiceLoader, FileSystemLoader

        from .guard import PLACEHOLDER

        self.engine, self.registry, self.poll, self.idle = engine, registry, poll, idle
        self.max_tables = max_tables
        self.env = report.environment()
        self.env.loader = ChoiceLoader([FileSystemLoader(TEMPLATES), self.env.loader])
        self.env.globals["served"] = True
        self.env.globals["csrf"] = PLACEHOLDER.decode()  # the visitor's token, as sent
        self.tables: dict[int, tables.Table] = {}
        self.visitors: dict[int, str] = {}  # table id -> the visitor who opened it
        self.lock = threading.Lock()
        self.seasons: dict[int, tuple] = {}  # the last CACHED season pages made
        self.indexes: dict[bool, tuple] = {}
        self.challenges: dict[int, challenges.Challenge] = {}
        self.challengers: dict[int, str] = {}  # challenge id -> the visitor who began it
        self.pending: list[tuple[str, int]] = []  # tables admitted, being made

    def page(self, template: str, code: int = 200, **context):
        from starlette.responses import HTMLResponse

        from .league import CURRENT

        context.setdefault("account", CURRENT.get())
        return HTMLResponse(self.env.get_template(template).render(**context), code)

    def error(self, message: str, status: int):
        return self.page("error.html", status, message=message, status=status)

    def table(self, table_id: int) -> tables.Table:
        self.tidy()
        with self.lock:
            table = self.tables.get(table_id)
        if table is None:
            table = self.hold(tables.open_table(self.engine, self.registry, table_id))
        table.used = time.monotonic()
        return table

    def tidy(self) -> None:
        """Let go of the tables nobody has asked for in ``idle`` seconds: a running one's
        bots are stopped, and it is opened again from the database - resumed - when next
        asked for, so an abandoned browser does not hold processes for ever."""
        now = time.monotonic()
        with self.lock:
            idle = [t for t in self.tables.values() if now - t.used > self.idle]
            for table in idle:
                del self.tables[table.id]
        for table in idle:
            with table.lock:
                table.close()

    @contextlib.contextmanager
    def admitted(self, visitor: str, bots: int):
        """Room for a new table of ``bots`` bot processes, opened by ``visitor``, held while
        the block makes and :meth:`hold`s it (so two requests at once cannot both take the
        last room); else a TableError, 503 when the server is full, 429 when the visitor has
        enough. A challenge's bot game being played counts its processes (to its visitor's
        too): leaving deal after deal cannot start processes without end."""
        mine = (visitor, bots)
        with self.lock:
            running = [(self.visitors.get(t.id), _bots_of(t)) for t in self.tables.values()
                       if t.status == "running"]
            games = [(self.challengers.get(c.id), len(c.playing) * len(c.defn.bots))
                     for c in self.challenges.values() if c.playing]
            tables_held = running + self.pending
            held = sum(n for _, n in tables_held + games)
            if len(tables_held) >= self.max_tables or held + bots > max(MAX_BOTS, bots):
                raise tables.TableError(
                    f"the server is full ({len(tables_held)} tables and {held} bot processes "
                    f"are running; at most {self.max_tables} tables and {MAX_BOTS} bot "
                    "processes): try again when one ends", 503)
            theirs = [n for who, n in tables_held if who == visitor]
            if len(theirs) >= VISITOR_TABLES or sum(theirs) + sum(
                    n for who, n in games if who == visitor) + bots > max(VISITOR_BOTS, bots):
                raise tables.TableError(
                    f"you have {len(theirs)} running tables (at most {VISITOR_TABLES}, with "
                    f"{VISITOR_BOTS} bot processes in all, a challenge's bot games counted): "
                    "finish or leave one first", 429)
            self.pending.append(mine)
        try:
            yield
        finally:
            with self.lock:
                self.pending.remove(mine)

    def hold(self, table: tables.Table, visitor: str | None = None) -> tables.Table:
        """Keep a live table (opened by ``visitor``); a challenge's deal, once over, has its
        bot game played."""
        if visitor is not None:
            with self.lock:
                self.visitors[table.id] = visitor
        if table.challenge is not None:
            table.on_finish = lambda t: self.challenge(t.challenge).advance()
            if table.status == "done":
                self.challenge(table.challenge).advance()
        with self.lock:
            held = self.tables.setdefault(table.id, table)
        if held is not table:  # another request opened it first: keep one
            table.close()
        return held

    def challenge(self, challenge_id: int) -> challenges.Challenge:
        with self.lock:
            found = self.challenges.get(challenge_id)
            if found is None:
                found = self.challenges[challenge_id] = challenges.open_challenge(
                    self.engine, self.registry, challenge_id)
            return found

    def leagues(self, humans: bool) -> dict:
        """The index's context (the people's, with ``humans``), made again only when the
        database changed (``db.version``)."""
        key = db.version(self.engine)
        cached = self.indexes.get(humans)
        if cached is None or cached[0] != key:
            context = report.index_context(self.engine, self.registry, humans=humans)
            cached = self.indexes[humans] = (key, context)
        return cached[1]

    def season(self, season_id: int) -> tuple[dict, object]:
        """A season page's context, made again only when its matches or status changed."""
        row = db.season_by_id(self.engine, season_id)
        if row is None:
            raise tables.TableError(f"no season with id {season_id}", 404)
        key = (db.progress(self.engine, season_id), row.updated_at)
        cached = self.seasons.get(season_id)
        if cached is None or cached[0] != key:
            context, _ = report.season_context(self.engine, self.registry, row, "sample")
            cached = (key, context)
            with self.lock:
                self.seasons.pop(season_id, None)
                self.seasons[season_id] = cached
                while len(self.seasons) > CACHED:
                    self.seasons.pop(next(iter(self.seasons)))
        return cached[1], row

    def close(self) -> None:
        with self.lock:
            for table in self.tables.values():
                table.close()


def make_app(engine, registry, poll: float = POLL, idle: float = IDLE, hosts=None,
             port: int = 0, max_tables: int = MAX_TABLES, league: bool = False,
             signup: bool = False, remote_grace: float | None = None,
             reviewer: str | None = None):
    """The ASGI application over ``engine`` (a database) and ``registry`` (the bots);
    ``poll``: seconds between a live feed's looks at the database; ``idle``: seconds a
    table is held after it was last asked for (``Site.tidy``); ``hosts``: the ``Host``
    values it answers (``host:port``), which puts it behind :class:`arena.web.guard.Guard`
    (``serve`` always does); ``max_tables``: running tables in all; ``league``: accounts
    sign in (:mod:`arena.web.league`), ``signup``: and anyone may make one."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    site = Site(engine, registry, poll, idle, max_tables)
    site.env.globals["league"] = league
    site.acting = lambda request: None  # who a request acts for: nobody without --league

    def number(request, key: str = "id") -> int:
        text = request.path_params[key]
        if not (text.isascii() and text.isdigit() and len(text) <= 19 and int(text) <= MAX_ID):
            raise tables.TableError(f"not an id: {text[:40]!r}", 404)
        return int(text)

    def named(key: str) -> str:
        """A cookie of this server's, named for its port (browsers share cookies between
        the ports of a host)."""
        return f"{key}_{port}" if port else key

    def cookie(request, key: str) -> str | None:
        return request.cookies.get(named(key))

    def _small(text: str, what: str, low: int = 0, high: int = 10**6) -> int:
        """A whole number from a request, within ``low``-``high``; ArenaError else."""
        text = str(text).strip()
        if not (re.fullmatch(r"-?[0-9]{1,8}", text) and low <= int(text) <= high):
            raise tables.TableError(f"{what} is a whole number from {low} to {high}", 400)
        return int(text)

    def visitor(request) -> str:
        return request.scope.get("state", {}).get("visitor") or (
            request.client.host if request.client else "")

    def guarded_who(request) -> str:
        """Whom a guarded route's request counts against: in a league, the account it acts
        for (set by ``guarded``); else the visitor."""
        from .league import CURRENT

        account = CURRENT.get() if league else None
        return f"account:{account.name}" if account is not None else visitor(request)

    def guarded(handler, as_json: bool = False):
        """A route whose refusals (ArenaError) are clear answers, never a traceback."""
        from .league import CURRENT

        def endpoint(request):
            try:
                if league:
                    CURRENT.set(site.acting(request))
                return handler(request)
            except ArenaError as e:
                status = getattr(e, "status", 400)
                if as_json:
                    return JSONResponse({"error": str(e)}, status)
                return site.error(str(e), status)
        return endpoint

    def index(request):
        return site.page("index.html", **site.leagues(humans=False))

    def humans(request):
        context = site.leagues(humans=True)
        for lg in context["leagues"]:
            for summary, row in zip(lg["seasons"], lg["rows_of_seasons"], strict=True):
                if tables.is_table(row):
                    summary["page"] = f"table-{row.id}.html"
        return site.page("index.html", **context)

    def season(request):
        context, row = site.season(number(request))
        return site.page("season.html", live=row.status == "running", **context)

    def _stored(request):
        """The stored match a page or a route asks for (404 when there is none), its seats'
        logs as the asker may see them."""
        try:
            m, row, seats = db.get_match(engine, number(request))
        except tables.TableError:
            raise
        except ArenaError as e:
            raise tables.TableError(str(e), 404) from None
        return m, row, shown_logs(seats)

    def match(request):
        m, row, seats = _stored(request)
        return site.page("match.html", **report.match_context(engine, registry, m, row, seats))

    def bot_page(request):
        """A bot across seasons, versions and matches (``arena.views.botpage``)."""
        name = request.path_params["name"]
        try:
            context = report.bot_context(engine, registry, name)
        except ArenaError as e:
            raise tables.TableError(str(e), 404) from None
        return site.page("bot.html", **context)

    def shown_logs(seats):
        """The seats with the logs the request may see: in a league, its own bots' alone."""
        if not league:
            return seats
        from ..leagues import authors
        from .league import CURRENT

        who = CURRENT.get()
        shown = authors.visible_logs(seats, authors.names(engine, who.name)
                                     if who is not None else set())
        return [s.model_copy(update={"log": log}) for s, log in zip(seats, shown, strict=True)]

    def match_json(request):
        """A stored match as ``arena replay --json`` gives it (``arena replay ID --from
        URL``), with the logs the asker may see."""
        from ..views.exports import stored_match_record

        m, row, seats = _stored(request)
        return JSONResponse(stored_match_record(registry.game(row.game), row, m, seats))

    def season_live(request):
        context, row = site.season(number(request))
        board = site.env.get_template("_leaderboard.html").render(rows=context["standings"])
        s = context["season"]
        return JSONResponse({"progress": f"{s['stored']}/{s['fixtures']} matches "
                                         f"({s['status']})",
                             "status": row.status, "standings": board,
                             "chart": context["chart"]})

    async def season_events(request):
        try:
            season_id = number(request)
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))
        if await run_in_threadpool(db.progress, engine, season_id) is None:
            return JSONResponse({"error": f"no season with id {season_id}"}, 404)

        async def stream():
            last = None
            while not await request.is_disconnected():
                now = await run_in_threadpool(db.progress, engine, season_id)
                if now != last:
                    last = now
                    yield f"event: progress\ndata: {json.dumps(list(now))}\n\n"
                    if now is None or now[1] != "running":
                        return
                await asyncio.sleep(site.poll)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    # -- tables ----------------------------------------------------------------------------

    def play_form(request, message: str = "", values: dict | None = None, status: int = 200,
                  challenge: bool = False):
        games = []
        for g in registry.games().values():
            games.append({"name": g.name, "title": g.title, "teams": g.teams,
                          "variants": {v: list(c) for v, c in g.variants.items()},
                          "default": g.default_variant})
        bots = sorted(registry.bots())
        return site.page("play.html", status, games=games, bots=bots, message=message,
                         values=values or {}, challenge=challenge)

    async def player(request, form: dict):
        """Who opens a table: the visitor - or, in a league (``--league``), the signed-in
        account, whose name its seat takes and whose caps it counts against (whatever
        browser or cookie it comes from); None: a league's visitor who has not signed in."""
        if not league:
            return visitor(request)
        try:
            account = await run_in_threadpool(site.acting, request)
        except ArenaError:  # a token that acts for nobody: as no account
            return None
        if account is None:
            return None
        form["name"] = account.name
        return f"account:{account.name}"

    async def play_post(request):
        form = await _form(request)
        who = await player(request, form)
        if who is None:
            return RedirectResponse("signin.html?next=play.html", 303)
        try:
            table, token = await run_in_threadpool(_new_table, form, who)
        except ArenaError as e:
            return await run_in_threadpool(play_form, request, str(e), form,
                                           getattr(e, "status", 400))
        return _seated(table, token)

    async def _form(request) -> dict:
        """A posted form's fields (the last value of each), stripped."""
        body = (await request.body()).decode(errors="replace")
        return {k: v[-1].strip() for k, v in parse_qs(body).items()}

    def _seating(form: dict, watch: bool = False):
        """A play form's table: the game, variant, players, the person's seat and name, and
        the other seats' bots in order (``watch``: every seat's bot); ArenaError for a
        mistake."""
        game, _, rest = form.get("table", "").partition("/")
        variant, _, count = rest.partition("/")
        try:
            players, seat = _small(count, "players", 1, 99), _small(form.get("seat") or "0",
                                                                   "seat", 0, 99)
        except ArenaError:
            raise ArenaError("choose a table (game, variant and players) and a seat number") \
                from None
        g = registry.game(game)
        variant = g.check(variant or None, players)
        opponents = [b.strip() for b in form.get("opponents", "").split(",") if b.strip()]
        if watch:
            seat, opponents = 0, opponents * players if len(opponents) == 1 else opponents
            if len(opponents) != players:
                raise ArenaError(f"{g.title} {variant} with {players} seats needs {players} "
                                 f"bots to watch (or one, for every seat), not "
                                 f"{len(opponents)}")
            return game, variant, None, None, opponents
        if not 0 <= seat < players:
            raise ArenaError(f"your seat is one of 0-{players - 1}, not {seat}")
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        if len(opponents) != players - 1:
            raise ArenaError(f"{g.title} {variant} with {players} seats needs {players - 1} "
                             f"opponents (or one, for every other seat), not {len(opponents)}")
        name = form.get("name", "")
        return game, variant, seat, f"human:{name}" if name else "human", opponents

    def _new_table(form: dict, who: str):
        watch = bool(form.get("watch"))
        game, variant, seat, person, opponents = _seating(form, watch)
        if watch:
            try:
                pace = float(form.get("pace") or PACE)
            except ValueError:
                pace = -1.0
            if not 0 <= pace <= 60:  # nan and inf too
                raise ArenaError("seconds a move is a number from 0 to 60")
        with site.admitted(who, len(opponents)):
            if watch:
                table, token = tables.create(engine, registry, game, variant, opponents,
                                             pace=pace)
            else:
                seats = opponents[:seat] + [person] + opponents[seat:]
                table, token = tables.create(engine, registry, game, variant, seats,
                                             practice=bool(form.get("practice")))
            site.hold(table, who)
        return table, token

    async def challenge_post(request):
        form = await _form(request)
        who = await player(request, form)
        if who is None:
            return RedirectResponse("signin.html?next=challenge.html", 303)

        def begin():
            game, variant, seat, person, opponents = _seating(form)
            deals = _small(form.get("deals") or "3", "deals")
            with site.admitted(who, len(opponents)):
                found, token = challenges.create(engine, registry, game, variant, seat,
                                                 person, form.get("bot", "").strip(),
                                                 opponents, deals)
                with site.lock:
                    site.challenges[found.id] = found
                    site.challengers[found.id] = who
                return found, site.hold(found.next_deal(token), who), token
        try:
            found, table, token = await run_in_threadpool(begin)
        except ArenaError as e:
            return await run_in_threadpool(play_form, request, str(e), form,
                                           getattr(e, "status", 400), True)
        return _seated(table, token, challenge=found.id)

    def _seated(table, token: str, challenge: int | None = None):
        """The redirect to a table made and held, with its (and its challenge's) cookie."""
        response = RedirectResponse(f"table-{table.id}.html", 303)
        for key, value in ((COOKIE.format(table.id), token),
                           (CHALLENGE_COOKIE.format(challenge), token)):
            if challenge is not None or key.startswith("arena_table"):
                response.set_cookie(named(key), value, httponly=True, samesite="strict",
                                    max_age=30 * 24 * 3600)
        return response

    def challenge_page(request):
        found = site.challenge(number(request))
        found.advance()
        mine = found.owns(cookie(request, CHALLENGE_COOKIE.format(found.id)))
        summary = found.summary()
        return site.page("challenge.html", c=summary, mine=mine,
                         title=registry.game(found.defn.game).title,
                         variant=found.defn.variant)

    def challenge_next(request):
        found = site.challenge(number(request))
        token = cookie(request, CHALLENGE_COOKIE.format(found.id))
        if not found.owns(token):
            found.next_deal(token)  # refused: not theirs
        who = guarded_who(request)
        with site.lock:
            site.challengers[found.id] = who  # (not known after a restart)
        with site.admitted(who, len(found.bot_seats) - 1):
            table = site.hold(found.next_deal(token), who)
        return _seated(table, token, challenge=found.id)

    def table_page(request):
        table = site.table(number(request))
        mine = table.owns(cookie(request, COOKIE.format(table.id)))
        asked = request.query_params.get("view")
        if asked is not None and table.match_id is not None:
            return RedirectResponse(f"match-{table.match_id}.html", 303)
        seat = _seat_asked(table, asked)
        header = table.view(since=10**9, seat=seat)
        deals = None  # a challenge's deal: (this deal, of how many)
        if table.challenge is not None:
            found = site.challenge(table.challenge)
            deals = (found.table_ids().index(table.id) + 1 if table.id in found.table_ids()
                     else 0, found.deals)
        return site.page("table.html", table=table, mine=mine, frames=header,
                         seat=header["seat"], title=registry.game(table.game.name).title,
                         deals=deals)

    def _seat_asked(table, asked: str | None) -> int | None:
        """The seat whose view a watcher asked for: while the match runs, any seat of a
        bots' table, only the person's seat of a person's; never everyone's."""
        if asked is None:
            return None
        if asked.isdigit() and len(asked) <= 3 and int(asked) in table.frames:
            return int(asked)
        if table.seat is None:
            raise tables.TableError(
                "everyone's view of a running match opens on its replay page when it ends: "
                "a seat's view can be watched now", 403)
        raise tables.TableError(
            "while a match is running it is watched from the person's seat only: "
            "another seat's view, or everyone's, opens on its replay page when it ends", 403)

    def table_state(request):
        table = site.table(number(request))
        since = _small(request.query_params.get("since", "0"), "since", 0, 10**9)
        mine = table.owns(cookie(request, COOKIE.format(table.id)))
        seat = _seat_asked(table, request.query_params.get("seat"))
        return JSONResponse(table.view(since, mine, seat), headers={"Cache-Control": "no-store"})

    async def table_move(request):
        try:
            body = json.loads(await request.body())
            action, at, since = body["action"], body["at"], body.get("since", 0)
            if not (type(at) is int and type(since) is int and abs(at) < 10**9
                    and 0 <= since < 10**9):
                raise ValueError("at and since are whole numbers")
        except (ValueError, KeyError, TypeError, RecursionError, OverflowError):
            return JSONResponse({"error": "a move is JSON: {\"action\": ..., \"at\": the "
                                          "move it answers}"}, 400)

        def move():
            table = site.table(number(request))
            token = cookie(request, COOKIE.format(table.id))
            table.move(token, action, at)
            return JSONResponse(table.view(since, True), headers={"Cache-Control": "no-store"})
        return await run_in_threadpool(guarded(lambda _: move(), as_json=True), request)

    def _mine(request):
        table = site.table(number(request))
        return table, cookie(request, COOKIE.format(table.id))

    def table_hint(request):
        table, token = _mine(request)
        return JSONResponse(table.hint(token, reviewer), headers={"Cache-Control": "no-store"})

    def table_undo(request):
        table, token = _mine(request)
        back = table.take_back(token)
        with site.lock:
            site.tables.pop(table.id, None)
        return JSONResponse({**site.table(table.id).view(0, True), "undone_to": back},
                            headers={"Cache-Control": "no-store"})

    def table_review(request):
        """A finished practice match reviewed from the person's seat (``arena review``'s
        reviewer, stored as it stores one): its replay page then marks every decision."""
        from ..leagues.review import review_match

        table, token = _mine(request)
        table._practising(token, "a review from the table")
        if table.match_id is None:
            raise tables.TableError("the match is not over: it is reviewed once it has ended",
                                    409)
        review_match(engine, registry, table.match_id, {table.seat}, reviewer)
        return JSONResponse({"match": table.match_id, "page": f"match-{table.match_id}.html"})

    def table_again(request):
        """Another deal at the same table: the same seats, a fresh deal (a rematch)."""
        table, token = _mine(request)
        if not table.owns(token):
            raise tables.TableError("this match is not yours", 403)
        if table.challenge is not None:
            raise tables.TableError("a challenge's next deal is the challenge's: see its page",
                                    409)
        if table.seat is None:
            raise tables.TableError("a match of bots is not played again from here", 409)
        who = guarded_who(request)
        with site.admitted(who, _bots_of(table)):
            again, token = tables.create(engine, registry, table.game.name,
                                         table.defn.variant, list(table.defn.bots),
                                         practice=table.practice)
            site.hold(again, who)
        return _seated(again, token)

    def table_abandon(request):
        table = site.table(number(request))
        table.abandon(cookie(request, COOKIE.format(table.id)))
        return JSONResponse(table.view(10**9, True))

    async def table_events(request):
        try:
            table = await run_in_threadpool(site.table, number(request))
        except ArenaError as e:
            return JSONResponse({"error": str(e)}, getattr(e, "status", 400))

        async def stream():
            held, last = table, None
            while not await request.is_disconnected():
                if site.tables.get(held.id) is not held:  # let go, and held again since
                    held = await run_in_threadpool(site.table, held.id)
                held.used = time.monotonic()  # a watcher keeps it held
                now = (len(held.actions) + 1, held.status)
                if now != last:
                    last = now
                    data = json.dumps({"frames": now[0], "status": now[1]})
                    yield f"event: moved\ndata: {data}\n\n"
                    if now[1] != "running":
                        return
                await asyncio.sleep(0.1)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    def not_found(request, exc):
        return site.error(f"no page {request.url.path}", 404)

    routes = [
        Route("/", guarded(index)),
        Route("/index.html", guarded(index)),
        Route("/humans.html", guarded(humans)),
        Route("/season-{id}.html", guarded(season)),
        Route("/match-{id}.html", guarded(match)),
        Route("/bot-{name}.html", guarded(bot_page)),
        Route("/play.html", guarded(play_form), methods=["GET"]),
        Route("/play.html", play_post, methods=["POST"]),
        Route("/table-{id}.html", guarded(table_page)),
        Route("/challenge.html", guarded(lambda r: play_form(r, challenge=True)),
              methods=["GET"]),
        Route("/challenge.html", challenge_post, methods=["POST"]),
        Route("/challenge-{id}.html", guarded(challenge_page)),
        Route("/challenge-{id}-next", guarded(challenge_next), methods=["POST"]),
        Route("/api/season/{id}", guarded(season_live, as_json=True)),
        Route("/api/match/{id}", guarded(match_json, as_json=True)),
        Route("/api/table/{id}", guarded(table_state, as_json=True)),
        Route("/api/table/{id}/move", table_move, methods=["POST"]),
        Route("/api/table/{id}/abandon", guarded(table_abandon, as_json=True),
              methods=["POST"]),
        Route("/api/table/{id}/hint", guarded(table_hint, as_json=True), methods=["POST"]),
        Route("/api/table/{id}/undo", guarded(table_undo, as_json=True), methods=["POST"]),
        Route("/api/table/{id}/review", guarded(table_review, as_json=True),
              methods=["POST"]),
        Route("/table-{id}-again", guarded(table_again), methods=["POST"]),
        Route("/events/season/{id}", season_events),
        Route("/events/table/{id}", table_events),
        Mount("/static", StaticFiles(packages=[("arena.web", "static"),
                                               ("arena.views", "static")])),
    ]
    if league:
        from . import league as signing
        from . import remote

        routes[-1:-1] = signing.routes(site, engine, named, signup) + remote.routes(
            site, engine, *([remote_grace] if remote_grace is not None else []))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        checker = getattr(site, "checker", None)  # a league's uploads (arena.web.league)
        if checker is not None:
            checker.start()
        yield
        if checker is not None:
            checker.stop()
        for link in list(getattr(site, "remote_links", {}).values()):
            await link.end()
        site.close()  # the bots of tables still open; their matches stay as stored

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found},
                    lifespan=lifespan, max_body_size=MAX_BODY)
    app.state.site = site
    if hosts:
        from .guard import Guard

        guarded_app = Guard(app, hosts, port)
        guarded_app.state = app.state
        return guarded_app
    return app


def serve(engine, registry, host: str = "127.0.0.1", port: int = 8000, ready=None,
          max_tables: int = MAX_TABLES, league: bool = False, signup: bool = False,
          remote_grace: float | None = None, reviewer: str | None = None) -> None:
    """Serve until interrupted. The socket is bound first, so a port in use is one clear
    ArenaError; ``ready(url)`` is called once the server listens."""
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ArenaError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    sock.listen(128)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    hosts = ["*"] if host in ("0.0.0.0", "::", "") else [f"{shown}:{port}"] + (
        [f"localhost:{port}"] if host in ("127.0.0.1", "::1") else [])
    app = make_app(engine, registry, hosts=hosts, port=port, max_tables=max_tables,
                   league=league, signup=signup, remote_grace=remote_grace,
                   reviewer=reviewer)
    config = uvicorn.Config(app, log_level="warning",
                            timeout_graceful_shutdown=2, lifespan="on")
    server = uvicorn.Server(config)
    if ready is not None:
        started = server.startup

        async def startup(sockets=None):
            await started(sockets=sockets)
            ready(f"http://{shown}:{port}/")
        server.startup = startup
    server.run(sockets=[sock])
