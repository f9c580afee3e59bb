"""A person's match held by a server (``arena serve``): a table with one person's seat among
sandboxed bots, played one posted action at a time - or a table of bots alone, played a move
every few seconds for people to watch (``create(..., pace=...)``).

The table is the referee (:func:`arena.referee.match_steps`) with the person's decisions
left pending: :meth:`Table.move` checks a posted action as the referee checks a bot's, then
asks the bots until the person's next decision or the end. Its season is a person's match
(:mod:`arena.leagues.humans`, kind ``human``) whose options hold the table: the person's
seat, a hash of the token its browser holds (the token itself is never stored) and every
action so far, written at each of the person's decisions and at the end. So a server killed
at any moment loses nothing: :func:`open_table` rebuilds the table from the stored actions -
the bots are started again with the same seeds and fed the same observations, and the
stored actions stand - and the person goes on from where the match was.

What leaves a table for a browser is :meth:`Table.view`: the frames of one seat, each built
from that seat's observation alone (:func:`arena.views.frames.seat_frame`), and, when the
person is to move, its legal actions: never a hidden card, a seed or the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time

from .. import db
from ..errors import ArenaError
from ..leagues import humans, league
from ..plugins import Registry, check_human, is_human
from ..referee import Failed, match_steps
from ..views.frames import seat_frame, seat_header

#: At most this many seconds between two moves of a bots' table.
MAX_PACE = 10.0


class TableError(ArenaError):
    """A request the table refuses, with the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_fits(token: str | None, digest: str) -> bool:
    """Whether a browser's token is the one whose hash was stored (compared in constant
    time)."""
    return bool(token) and hmac.compare_digest(_hash(token), digest)


class _Watched:
    """The match's state as the referee drives it, with a hook after every action (forced
    ones included, which the referee plays without asking anyone)."""

    def __init__(self, state, moved):
        self._state, self._moved = state, moved

    def __getattr__(self, name):
        return getattr(self._state, name)

    def apply(self, action) -> None:
        actor = self._state.to_move
        forced = len(self._state.legal_actions()) == 1  # played by the referee, unasked
        self._state.apply(action)
        self._moved(actor, action, forced)


class Table:
    """One person's match, held live - or a match of bots alone, played at a pace for people
    to watch (``seat`` None). Every method takes the table's lock: one request at a time
    moves it, whatever the server's threads."""

    def __init__(self, engine, registry: Registry, row: db.SeasonRow):
        self.engine, self.registry = engine, registry
        self.id, self.name = row.id, row.name
        options = json.loads(row.options)
        table = options["table"]
        self.seat, self.token_hash = table["seat"], table["token"]
        self.pace = table.get("pace", 0.0)  # seconds between two moves of a bots' table
        self.challenge = table.get("challenge")  # the challenge it is a deal of, if one
        self.practice = bool(table.get("practice"))  # unrated: undo, hints, a review
        self.stored = list(table["actions"])  # replayed on resume: they stand
        self.defn = league.definition(row)
        self.game = registry.game(row.game)
        self.names = list(self.defn.bots)
        self.lock = threading.Lock()
        # the frames of each seat shown: the person's, or every seat of a bots' table
        self.frames: dict[int, list[dict]] = {
            s: [] for s in ([self.seat] if self.seat is not None else range(row.players))}
        self.actions: list = []
        self.decided: list[int] = []  # the moves at which the person chose (not forced)
        self.pending: list | None = None  # the person's legal actions while it is to move
        self.match_id: int | None = None
        self.result: dict | None = None
        self.status = row.status
        self._bots: list = []
        self._steps = None
        self._ask = None  # a bots' table's next question of the referee, between moves
        self._stop = threading.Event()
        self._started = time.perf_counter()
        self.on_finish = None  # called with the table when its match has ended
        self.used = time.monotonic()  # when a request last asked for it (the server's)
        limits = table.get("limits", "")
        from ..sandbox.bot import make_bot
        from ..sandbox.process import Limits

        state = self.game.new_state(row.variant, row.players, humans.deal_seed(self.defn))
        self.state = _Watched(state, self._moved)
        for seat, frames in self.frames.items():
            frames.append(seat_frame(self.game.name, state, self.names, seat, None, None))
        if row.status != "running":  # a finished table needs none of its bots
            return
        entries = {n: registry.bot(n, row.game) for n in self.names if not is_human(n)}
        try:
            self._bots = [None if is_human(n) else make_bot(entries[n], Limits.parse(limits))
                          for n in self.names]
            self._steps = match_steps(self.game, row.variant, row.players,
                                      humans.deal_seed(self.defn), self.names,
                                      secret=self.defn.secret, state=self.state)
            self._drive(next(self._steps), None if self.seat is not None else len(self.stored))
        except BaseException:
            self.close()
            raise
        if self.seat is None and self.status == "running":
            threading.Thread(target=self._play, daemon=True, name=f"table-{self.id}").start()

    # -- the referee's side ----------------------------------------------------------------

    def _moved(self, actor: int, action, forced: bool = False) -> None:
        self.actions.append(action)
        for seat, frames in self.frames.items():
            frame = seat_frame(self.game.name, self.state._state, self.names, seat, actor,
                               action)
            if forced:  # the only legal action: announced as such
                frame["forced"] = True
            frames.append(frame)

    def _drive(self, ask, until: int | None = None) -> None:
        """Answer the referee's asks until the person must choose or the match ends - or,
        ``until``, once that many actions stand (a bots' table, a move at a time)."""
        try:
            while True:
                replaying = len(self.actions) < len(self.stored)
                if until is not None and not replaying and len(self.actions) >= until:
                    self._ask = ask
                    self._save()
                    return
                kind, seat, *what = ask
                if seat == self.seat:
                    if kind == "act":
                        self.decided.append(len(self.actions))
                    if kind == "act" and not replaying:
                        self.pending = list(what[1])
                        self._save()
                        return
                    answer = (self.stored[len(self.actions)] if kind == "act"
                              else "" if kind == "log" else None)
                else:
                    answer = self._ask_bot(self._bots[seat], kind, what)
                    if kind == "act" and replaying:
                        answer = self.stored[len(self.actions)]
                ask = self._steps.send(answer)
        except StopIteration as done:
            match, _ = done.value
            self._finish(match)

    @staticmethod
    def _ask_bot(bot, kind: str, what):
        try:
            if kind == "act":
                return bot.act(*what)
            if kind == "start":
                return bot.start(*what)
            if kind == "log":
                return getattr(bot, "log_tail", lambda: "")()
            return bot.end(*what)
        except (Exception, SystemExit) as e:
            return Failed(e)

    def _save(self) -> None:
        row = db.get_season(self.engine, self.name)
        options = json.loads(row.options)
        options["table"]["actions"] = list(self.actions)
        db.set_status(self.engine, self.id, "running", options)

    def _finish(self, match) -> None:
        self.pending = None
        self.close()
        self.match_id = humans.store(self.engine, self.defn, match,
                                     time.perf_counter() - self._started)
        self.result = match.result.to_json()
        self.status = "done"
        if self.on_finish is not None:
            self.on_finish(self)

    def _play(self) -> None:
        """A bots' table: a move every ``pace`` seconds, until the end or ``close``."""
        while not self._stop.wait(self.pace):
            with self.lock:
                if self._stop.is_set() or self.status != "running":
                    return
                self._drive(self._ask, len(self.actions) + 1)

    def close(self) -> None:
        """Stop the bots' processes (the match stays as stored)."""
        self._stop.set()
        for bot in self._bots:
            if bot is not None:
                bot.close()
        self._bots = []

    # -- the person's side -----------------------------------------------------------------

    def owns(self, token: str | None) -> bool:
        return token_fits(token, self.token_hash)

    def move(self, token: str | None, action, at: int) -> None:
        """The person's action, posted when the match stood at move ``at``: refused (and
        nothing changes) if the token is not this seat's, the match is over, ``at`` is not
        the current move (a stale page) or the action is not legal now."""
        if not self.owns(token):
            raise TableError("this match is not yours: only the browser that began it plays "
                             "its seat", 403)
        with self.lock:
            if self.pending is None:
                raise TableError(f"match {self.id} is {self.status}: no move is awaited", 409)
            if at != len(self.actions):
                raise TableError(f"stale move: the match is at move {len(self.actions)}, not "
                                 f"{at} (reload to see it)", 409)
            if action not in self.pending:
                raise TableError(f"not a legal action here: {str(action)[:80]!r}", 400)
            self.pending = None
            self._drive(self._steps.send(action))

    def abandon(self, token: str | None) -> None:
        """The person leaves: the match is stored as abandoned, with no result."""
        if not self.owns(token):
            raise TableError("this match is not yours", 403)
        with self.lock:
            if self.status != "running":
                raise TableError(f"match {self.id} is {self.status}", 409)
            self.pending = None
            self.close()
            humans.abandon(self.engine, self.defn, len(self.actions))
            self.status = "abandoned"

    def _practising(self, token: str | None, what: str) -> None:
        if not self.owns(token):
            raise TableError("this match is not yours", 403)
        if not self.practice:
            raise TableError(f"{what} is for a practice table: a rated match or a challenge's "
                             "deal is played as it stands", 403)

    def hint(self, token: str | None, reviewer: str | None = None) -> dict:
        """A practice table's hint: what the reviewer (``arena review``'s, in the sandbox)
        would play from the person's seat now, judged from that seat's observation alone -
        ``{"action", "reviewer", "at"}``."""
        from ..leagues import review

        self._practising(token, "a hint")
        with self.lock:
            if self.pending is None:
                raise TableError("no move of yours is awaited: nothing to hint", 409)
            state, at, legal = self.state._state.copy(), len(self.actions), self.pending
        if len(legal) == 1:
            return {"action": legal[0], "reviewer": "", "at": at}
        judged = review.review_position(self.registry, self.game, self.defn.variant, state,
                                        legal[0], reviewer,
                                        seed=humans.deal_seed(self.defn))
        return {"action": judged["best"],
                "reviewer": review.reviewer_name(self.registry, self.game.name, reviewer),
                "at": at}

    def take_back(self, token: str | None) -> int:
        """A practice table's undo: back to the person's decision before the one awaited
        (the moves after it, the bots' too, are taken back; the bots, started again with
        their seeds, answer again as they did). The stored actions are cut there; the
        table is then to be opened again (:func:`open_table`). The move it goes back to."""
        self._practising(token, "undo")
        with self.lock:
            if self.pending is None:
                raise TableError(f"match {self.id} is {self.status}: undo takes back a move "
                                 "while the match runs", 409)
            if len(self.decided) < 2:
                raise TableError("nothing to take back: this is your first decision", 409)
            back = self.decided[-2]
            self.pending = None
            self.close()
            row = db.get_season(self.engine, self.name)
            options = json.loads(row.options)
            options["table"]["actions"] = list(self.actions[:back])
            db.set_status(self.engine, self.id, "running", options)
            return back

    def view(self, since: int = 0, mine: bool = False, seat: int | None = None) -> dict:
        """What a browser is sent: one seat's frames from ``since`` on (the person's, or
        ``seat`` of a bots' table), the match's public progress and result, and - to the
        person (``mine``) while it is to move - its legal actions. Nothing else: no other
        seat's view, no seed, no secret."""
        seat = next(iter(self.frames)) if seat is None else seat
        if seat not in self.frames:
            raise TableError(f"seat {seat} of match {self.id} is not shown while it runs", 403)
        with self.lock:
            frames = self.frames[seat]
            since = max(0, min(since, len(frames)))
            return {**seat_header(self.game.name, self.defn.variant, self.names, seat),
                    "id": self.id, "seat": seat, "person": self.seat is not None,
                    "since": since, "frames": frames[since:], "moves": len(self.actions),
                    "status": self.status, "yours": mine,
                    "legal": self.pending if mine else None,
                    "to_move": None if self.status != "running" else self.state.to_move,
                    "result": None if self.result is None else {
                        k: self.result[k] for k in ("ranks", "scores", "reason", "faults")},
                    "match": self.match_id, "challenge": self.challenge,
                    "practice": self.practice,
                    "decided": [d for d in self.decided if d < len(self.actions)],
                    "ending": None if self.result is None else ending(
                        self.game.name, self.names, seat, self.result,
                        self.seat if mine else None)}


def _who(names: list[str], p: int, person: int | None) -> str:
    if p == person:
        return "you"
    name = names[p]
    return name.partition(":")[2] or "a person" if is_human(name) else name


def _place(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def ending(game: str, names: list[str], seat: int, result: dict,
           person: int | None = None) -> str:
    """The end of a match in plain words, for the seat shown (``person``: the seat played
    by the person reading it, who is "you"): who won and, in Cherki, who pays whom; a
    forfeit and the move cap said as such."""
    ranks = result["ranks"]
    scores = [int(x) if float(x).is_integer() else x for x in result["scores"]]
    faults, reason = result.get("faults") or [None] * len(ranks), result.get("reason")
    n = len(ranks)
    who = [_who(names, p, person) for p in range(n)]
    big = ["You" if w == "you" else w for w in who]  # a sentence's first word
    you = seat == person
    lines = [f"{big[p]} forfeited ({faults[p]})" for p in range(n)
             if faults[p]]
    if game == "cherki":
        won = [p for p in range(n) if scores[p] > 0]
        if not won:
            why = {"cap": "the move cap was reached", "stock": "the stock ran out"}.get(
                reason, reason)
            lines.append(f"A drawn deal ({why}): nobody pays")
        elif won[0] == seat:
            lines.append(f"{big[seat]} won: each opponent pays "
                         f"{scores[seat] // 2} (+{scores[seat]})")
        else:
            w = won[0]
            pays = "pay" if you else "pays"
            lines.append(f"{big[w]} won; {who[seat]} {pays} {-scores[seat]}")
    elif game == "tractor":
        mate = (seat + 2) % n
        team = f"{big[seat]} and {who[mate]}"
        margin = scores[seat]
        if margin > 0:
            lines.append(f"{team} won: +{margin} level{'s' if margin != 1 else ''}")
        elif margin < 0:
            lines.append(f"{team} lost: {margin} level{'s' if margin != -1 else ''}")
        else:
            lines.append(f"{team} drew level with the other team")
    else:
        place = ranks[seat]
        tied = ranks.count(place) > 1
        if reason == "cap":
            lines.append(f"The move cap ended the match: {who[seat]} "
                         f"{'share' if tied else 'take'}{'' if you else 's'} "
                         f"{_place(place)} place of {n}")
        elif place == 1 and not tied:
            lines.append(f"{big[seat]} went out first — "
                         f"{'you win' if you else 'a win'}")
        elif place == n:
            lines.append(f"{big[seat]} {'were' if you else 'was'} left with "
                         f"cards — {'you lose' if you else 'last place'}")
        else:
            lines.append(f"{big[seat]} went out {_place(place)} of {n}")
    return ". ".join(lines) + "."


def create(engine, registry: Registry, game: str, variant: str | None, seats: list[str],
           limits: str = "", seed: int | None = None, secret: str | None = None,
           token: str | None = None, extra: dict | None = None,
           pace: float | None = None, practice: bool = False) -> tuple[Table, str]:
    """A new table: ``seats`` names each seat in order, one of them a person (``human`` or
    ``human:NAME``), the others bots (with options). Its token, for the person's browser
    (``token``: one already given, as a challenge's deals share one). ``seed`` and
    ``secret`` deal what ``arena play --seed`` deals under that secret (default: fresh);
    ``extra`` is kept with the table (a challenge's id and deal).

    With ``pace``, every seat is a bot and the match is played for people to watch, a move
    every ``pace`` seconds, from any seat's view: a season ``human/.../watch-N``, stored and
    replayed like any match and rated in no league (``db.WATCHED``).

    With ``practice``, the person's match is rated in no league either (``db.PRACTICE``)
    and its person may take moves back and ask for hints (:meth:`Table.take_back`,
    :meth:`Table.hint`)."""
    people = [s for s, name in enumerate(seats) if is_human(name)]
    if pace is not None:
        if people or not 0 <= pace <= MAX_PACE:
            raise ArenaError(f"a match to watch has a bot in every seat and 0-{MAX_PACE:g} "
                             "seconds a move")
    elif len(people) != 1:
        raise ArenaError("a table in the browser has one person: name exactly one seat human "
                         "(or human:NAME)")
    else:
        check_human(seats[people[0]])
    from ..sandbox.process import Limits

    Limits.parse(limits)
    g = registry.game(game)
    variant = g.check(variant, len(seats))
    for name in seats:
        if not is_human(name):
            registry.bot(name, game)
    defn = humans.create(engine, registry, game, variant, seats, seed, secret,
                         label=db.WATCHED if pace is not None else db.PRACTICE if practice
                         else "")
    token = token or secrets.token_urlsafe(24)
    row = db.get_season(engine, defn.name)
    options = json.loads(row.options)
    options["table"] = {"seat": people[0] if people else None, "token": _hash(token),
                        "actions": [], "limits": limits, **(extra or {}),
                        **({"pace": pace} if pace is not None else {}),
                        **({"practice": True} if practice and pace is None else {})}
    db.set_status(engine, row.id, "running", options)
    return Table(engine, registry, db.get_season(engine, defn.name)), token


def is_table(row: db.SeasonRow) -> bool:
    return "table" in json.loads(row.options)


def open_table(engine, registry: Registry, season_id: int) -> Table:
    """The table of a stored person's match (resumed where it stood if it is running);
    TableError 404 when there is none."""
    row = db.season_by_id(engine, season_id)
    if row is None or not is_table(row):
        raise TableError(f"no match at a table with id {season_id}", 404)
    table = Table(engine, registry, row)
    if row.status != "running":
        table.status = row.status
        if row.status == "done":
            match = next(db.season_matches(engine, row.id), None)
            if match is not None:
                m, seat_rows = match
                table.match_id = m.id
                table.result = {"ranks": [s.rank for s in seat_rows],
                                "scores": [s.score for s in seat_rows], "reason": m.reason,
                                "faults": [s.fault for s in seat_rows]}
                for action in json.loads(m.replay):
                    if table.state.to_move == table.seat and len(
                            table.state.legal_actions()) > 1:  # as the referee asked it
                        table.decided.append(len(table.actions))
                    table.state.apply(action)
        else:
            for action in table.stored:
                table.state.apply(action)
    return table
