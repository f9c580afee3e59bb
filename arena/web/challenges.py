"""A person against a bot on the same cards: a challenge of N deals, scored as ``arena
match`` scores duplicate pairs in a field.

The person plays each deal from one seat against chosen opponents, at a table
(:mod:`arena.web.tables`); the challenged bot plays the very same deal from the same seat
against the same opponents - the same deal seed, and the same seeds for the opponents, so
they meet the same cards and answer the same observations alike. The server plays the bot's
game of a deal only once the person's game of it is over: nothing of it exists to be seen
before. Each deal is then a pair, as in a match in a field (:class:`arena.leagues.match.Tally`):
each game scores its seat by place, ``(seats below + ½ seats level) / (seats - 1)``, and the
pair ``½ + (person's - bot's) / 2``; the challenge's score, Elo, interval and LOS are the
match's figures over its pairs.

The challenge is a people's season (``human/GAME/VARIANT/Np/challenge-N``, kind ``human``)
whose fixtures are the bot's games, deal k keyed as ``arena play --seed SEED+k`` keys one
under the challenge's own fresh secret - so its deals are new, never deals whose replays
anyone can see, and ``arena verify`` checks each one. The person's games are tables of
their own (people's seasons with the same secret and seeds); the challenge's options list
them. A deal the person leaves counts, as duplicate scoring counts a board not played: as
the person's worst result on it - last place, behind every other seat - against the bot's
game of it, which is played as for any other deal; the page says so before the first deal.
So leaving a deal when behind never raises a score. A server
killed while the bot plays a deal plays it again when the challenge is next looked at.
"""

from __future__ import annotations

import json
import threading
import time

from .. import db
from ..errors import ArenaError
from ..leagues import humans, league
from ..leagues.match import Tally
from ..leagues.scheduler import fixtures
from ..plugins import Registry, check_human, is_human
from ..referee import play_match
from . import tables

#: At most this many deals in one challenge.
MAX_DEALS = 50


class Challenge:
    """A stored challenge, read from its season; ``advance`` plays what is due."""

    def __init__(self, engine, registry: Registry, row: db.SeasonRow):
        self.engine, self.registry = engine, registry
        self.id, self.name = row.id, row.name
        self.defn = league.definition(row)
        options = json.loads(row.options)["challenge"]
        self.seat, self.person, self.bot = options["seat"], options["person"], options["bot"]
        self.deals, self.token_hash = options["deals"], options["token"]
        self.limits = options.get("limits", "")
        self.lock = threading.Lock()
        self.playing: set[int] = set()
        self.failed: dict[int, str] = {}

    @property
    def bot_seats(self) -> list[str]:
        return list(self.defn.bots)

    @property
    def person_seats(self) -> list[str]:
        seats = list(self.defn.bots)
        seats[self.seat] = self.person
        return seats

    def _options(self) -> dict:
        return json.loads(db.season_by_id(self.engine, self.id).options)

    def table_ids(self) -> list[int]:
        return list(self._options()["challenge"]["tables"])

    def owns(self, token: str | None) -> bool:
        return tables.token_fits(token, self.token_hash)

    def next_deal(self, token: str | None) -> tables.Table:
        """The table of the next deal, made now: refused unless the token is the
        challenge's, the last deal's game is over and a deal is left."""
        if not self.owns(token):
            raise tables.TableError("this challenge is not yours", 403)
        with self.lock:
            ids = self.table_ids()
            if ids:
                last = db.season_by_id(self.engine, ids[-1])
                if last.status == "running":
                    raise tables.TableError(f"finish deal {len(ids)} first", 409)
            if len(ids) >= self.deals:
                raise tables.TableError(f"all {self.deals} deals have been dealt", 409)
            k = len(ids)
            table, _ = tables.create(self.engine, self.registry, self.defn.game,
                                     self.defn.variant, self.person_seats, self.limits,
                                     seed=self.defn.seed + k, secret=self.defn.secret,
                                     token=token, extra={"challenge": self.id, "deal": k})
            row = db.season_by_id(self.engine, self.id)
            options = json.loads(row.options)
            options["challenge"]["tables"].append(table.id)
            db.set_status(self.engine, self.id, row.status, options)
            return table

    def advance(self) -> None:
        """Start the bot's game of every deal whose person's game is over and whose bot game
        is neither stored nor being played (each in a thread of its own); mark the challenge
        done when every deal is settled."""
        ids = self.table_ids()
        stored = db.stored_fixtures(self.engine, self.id)
        settled = 0
        for k, table_id in enumerate(ids):
            status = db.season_by_id(self.engine, table_id).status
            if k in stored:
                settled += 1
            elif status in ("done", "abandoned"):
                with self.lock:
                    if k in self.playing:
                        continue
                    self.playing.add(k)
                threading.Thread(target=self._play_bot, args=(k,), daemon=True,
                                 name=f"challenge-{self.id}-deal-{k}").start()
        if settled == self.deals and db.season_by_id(self.engine, self.id).status != "done":
            db.set_status(self.engine, self.id, "done")

    def _play_bot(self, k: int) -> None:
        from ..sandbox.bot import make_bot
        from ..sandbox.process import Limits

        fixture = next(f for f in fixtures(self.defn) if f.index == k)
        bots = []
        try:
            limits = Limits.parse(self.limits)
            bots = [make_bot(self.registry.bot(name, self.defn.game), limits)
                    for name in fixture.seats]
            start = time.perf_counter()
            match, _ = play_match(self.registry.game(self.defn.game), self.defn.variant, bots,
                                  fixture.seed, list(fixture.seats), secret=self.defn.secret)
            db.store_results(self.engine, self.id,
                             [match.stored(k, time.perf_counter() - start)])
        except Exception as e:  # noqa: BLE001 - shown on the page; played again next look
            self.failed[k] = f"{type(e).__name__}: {e}"
        finally:
            for bot in bots:
                bot.close()
            with self.lock:
                self.playing.discard(k)
        self.advance()

    def summary(self) -> dict:
        """Each deal - the person's game and the bot's, their places and the pair - and the
        figures over the pairs (``Tally.to_json``), as ``arena match`` shows them."""
        bot_games = {m.fixture: (m, seats) for m, seats in db.season_matches(self.engine,
                                                                              self.id)}
        tally = Tally(self.person, self.bot, field=True)
        deals = []
        for k, table_id in enumerate(self.table_ids()):
            row = db.season_by_id(self.engine, table_id)
            deal = {"deal": k, "table": table_id, "status": row.status, "person": None,
                    "bot": None, "pair": None, "playing": k in self.playing,
                    "failed": self.failed.get(k)}
            person = next(db.season_matches(self.engine, table_id), None)
            if person is not None:
                deal["person"] = _game(person, self.seat)
                names, ranks = [s.bot for s in person[1]], [s.rank for s in person[1]]
            elif row.status == "abandoned":  # left: last place, behind every other seat
                names, seats = self.person_seats, len(self.person_seats)
                ranks = [seats if i == self.seat else 1 for i in range(seats)]
                deal["person"] = {"match": None, "rank": seats, "score": None, "place": 0.0,
                                  "fault": None, "reason": "left", "left": True}
            if deal["person"] is not None and k in bot_games:
                deal["bot"] = _game(bot_games[k], self.seat)
                tally.add(names, ranks)
                tally.add([s.bot for s in bot_games[k][1]], [s.rank for s in bot_games[k][1]])
                deal["pair"] = 0.5 + (deal["person"]["place"] - deal["bot"]["place"]) / 2
            deals.append(deal)
        figures = tally.to_json()
        from ..leagues.stats import expected_score

        if figures["pairs"]:
            figures["score_low"] = (expected_score(figures["elo_low"])
                                    if figures["elo_low"] is not None else 0.0)
            figures["score_high"] = (expected_score(figures["elo_high"])
                                     if figures["elo_high"] is not None else 1.0)
        return {"id": self.id, "name": self.name, "person": self.person, "bot": self.bot,
                "seat": self.seat, "seats": self.bot_seats, "deals_asked": self.deals,
                "deals": deals, "figures": figures,
                "status": db.season_by_id(self.engine, self.id).status}


def _game(stored, seat: int) -> dict:
    from ..leagues.match import seat_place

    m, seats = stored
    ranks = [s.rank for s in seats]
    return {"match": m.id, "rank": ranks[seat], "score": seats[seat].score,
            "place": seat_place(ranks, seat), "fault": seats[seat].fault, "reason": m.reason}


def create(engine, registry: Registry, game: str, variant: str | None, seat: int,
           person: str, bot: str, opponents: list[str], deals: int,
           limits: str = "") -> tuple[Challenge, str]:
    """A new challenge: ``person`` (``human`` or ``human:NAME``) against ``bot``, each from
    ``seat`` against ``opponents`` (the other seats in order), over ``deals`` fresh deals.
    Its token, for the person's browser."""
    import secrets

    if not is_human(person):
        raise ArenaError("a challenge is a person's: human or human:NAME")
    check_human(person)
    if not 1 <= deals <= MAX_DEALS:
        raise ArenaError(f"a challenge has 1-{MAX_DEALS} deals, not {deals}")
    if is_human(bot) or any(is_human(o) for o in opponents):
        raise ArenaError("a challenge has one person: the bot and the opponents are bots")
    bot, opponents = registry.canonical(bot), [registry.canonical(o) for o in opponents]
    seats = opponents[:seat] + [bot] + opponents[seat:]
    g = registry.game(game)
    variant = g.check(variant, len(seats))
    for name in seats:
        registry.bot(name, game)
    from ..sandbox.process import Limits

    Limits.parse(limits)
    defn = humans.create(engine, registry, game, variant, seats, rounds=deals,
                         label="challenge-")
    token = secrets.token_urlsafe(24)
    row = db.get_season(engine, defn.name)
    options = json.loads(row.options)
    options["challenge"] = {"seat": seat, "person": person, "bot": bot, "deals": deals,
                            "token": tables._hash(token), "tables": [], "limits": limits}
    db.set_status(engine, row.id, "running", options)
    return Challenge(engine, registry, db.get_season(engine, defn.name)), token


def is_challenge(row: db.SeasonRow) -> bool:
    return "challenge" in json.loads(row.options)


def open_challenge(engine, registry: Registry, season_id: int) -> Challenge:
    row = db.season_by_id(engine, season_id)
    if row is None or not is_challenge(row):
        raise tables.TableError(f"no challenge with id {season_id}", 404)
    return Challenge(engine, registry, row)
