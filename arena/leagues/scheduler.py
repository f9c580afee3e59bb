"""Seasons: the fixture list, duplicate deals, seeds, parallel execution and resume.

The schedule is a pure function of the season definition:

* two players: every pair of bots each round; more players: every combination of that many
  bots (in a team game where each bot plays every seat of one team, of ``teams`` bots),
  unless there are more than ``MAX_GROUPS`` combinations - then each round the bots are
  shuffled (seeded by the round) and seated table by table, each seat going to the bot
  that has met the table's bots least so far (the last table fills up from bots already
  seated), so every bot plays every round and every pair meets about equally often;
* **duplicate deals**: each group plays one deal (one seed) in every cyclic rotation of its
  seats - in a team game, of its teams (the teams' cards swapped); where the game asks for
  it, in every permutation - so the luck of the cards cancels out;
* the root seed chooses the schedule (the balanced tables, the drawn partnerships); all chance
  in a match - its deal seed and every bot's seed - is keyed by the season's *secret*
  (HMAC-SHA-256 of root seed, round and group; ``cards.keyed_seed``), random when the
  season is made, stored with it and never sent to a bot. So a bot that knows arena's code,
  the definition and the root seed still cannot compute a deal; the same definition and
  secret give the same season on any machine. Fixture indices run in (round, group,
  rotation) order, and ratings are replayed in that order.

Matches run on any ``concurrent.futures.Executor`` in batches fixed by fixture index (batch
``k`` holds fixtures ``k*batch`` to ``k*batch + batch - 1``, less those already stored); only
this (the coordinating) process writes, one small transaction per finished batch, so a season
killed at any moment keeps everything finished and ``resume`` plays exactly the fixtures not
yet stored.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import math
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations, groupby, islice, permutations

from ..cards import derive_seed, keyed_seed, new_secret
from ..errors import ArenaError
from ..games import zero_sum_scores
from ..luck import match_luck
from ..plugins import Registry
from ..referee import play_match
from ..sandbox.bot import make_bot
from ..sandbox.process import Limits

MAX_GROUPS = 64
#: Matches in flight per worker by default (``SeasonDef.inflight``): measured best here
#: (``arena bench``: the README's table).
DEFAULT_INFLIGHT = 16


@dataclass(frozen=True)
class SeasonDef:
    name: str
    game: str
    variant: str
    players: int
    bots: tuple[str, ...]
    rounds: int
    seed: int
    batch: int = 32  # fixtures per worker task; part of the definition (see module doc)
    limits: str = ""  # bot limits over the defaults, e.g. "move_s=0.5,memory_mb=512"
    suspend_after: int = 5  # consecutive faulty matches that suspend a bot (0: never)
    teams: int = 0  # team game, one bot per team: seat s is played by the bot of team s % teams
    every_seating: bool = False  # duplicates in every permutation of seats, not rotations
    draw_partners: bool = False  # mixed teams: each round a group's partnerships are drawn
    #: keys every deal and bot seed; never sent to a bot (None: a season made before secrets)
    secret: str | None = field(default_factory=new_secret, repr=False)
    config: str = field(default="", repr=False, compare=False)  # the --config file's text
    #: or "match": two bots on duplicate deals (arena.leagues.match); or "ladder": a placement, in
    #: which only the groups holding the first bot play (arena.leagues.ladder); or "human":
    #: one match with a person in a seat, ``bots`` its seats in order (arena.leagues.humans)
    kind: str = "season"
    sprt: str = ""  # a match's SPRT, "elo0=0,elo1=10,alpha=0.05,beta=0.05": ends it early
    #: a match in a game of more seats: the bots of the other seats, in seat order (bots
    #: may repeat); the candidate and the baseline take turns in the remaining seat
    field: tuple[str, ...] = ()
    #: matches in flight per worker, their moves asked of each bot process together
    #: (``arena.sandbox.inflight``); the results are the same for any value. A season stored
    #: without it was played one match at a time (1).
    inflight: int = DEFAULT_INFLIGHT
    #: "luck": each match's seats' luck is computed as it is played and stored with it
    #: (``arena.luck``), for luck-adjusted scores; "" none
    adjust: str = ""
    #: whether its results rate its league: a season's and a ladder's do; a match's (an
    #: A/B test, ``arena match``/``gauntlet``) do not unless asked (``--rated``)
    rated: bool = True
    #: a deal book's deals (``arena.games.book``), each the JSON of ``{"name", "deal"}``:
    #: round ``r`` plays deal ``r`` (so the rounds are the deals), its seeds still keyed
    #: for the bots and for the engine's later chance; () the seeds deal every round
    deals: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    #: a match's scoring beside places: "money" (``arena match --score money``, a game whose
    #: results are money: ``Game.money``); "" places alone
    score: str = ""

    @classmethod
    def stored(cls, name: str, game: str, variant: str, players: int, bots, rounds: int,
               seed: int, options: dict, secret: str | None) -> SeasonDef:
        """The definition as a season row or a season export holds it (the rest in
        ``options``, as ``db.create_season`` writes them)."""
        return cls(name, game, variant, players, tuple(bots), rounds, seed,
                   options.get("batch", cls.batch), options.get("limits", ""),
                   options.get("suspend_after", 5), options.get("teams", 0),
                   options.get("every_seating", False), options.get("draw_partners", False),
                   secret, options.get("config", ""), options.get("kind", "season"),
                   options.get("sprt", ""), tuple(options.get("field", ())),
                   options.get("inflight", 1), options.get("adjust", ""),
                   options.get("rated", True),
                   tuple(json.dumps(d, sort_keys=True) for d in options.get("deals", ())),
                   options.get("score", ""))

    def round_deal(self, rnd: int) -> dict | None:
        """The explicit deal round ``rnd`` plays, from the season's deal book (None: its
        seeds deal it)."""
        return json.loads(self.deals[rnd])["deal"] if self.deals else None

    def deal_of(self, fixture: int) -> dict | None:
        """The explicit deal fixture ``fixture`` plays (``round_deal`` of its round)."""
        if not self.deals:
            return None
        return self.round_deal(fixture // (fixture_count(self) // self.rounds))

    @property
    def group(self) -> int:
        """Bots per match."""
        return self.teams or self.players

    @property
    def seatings(self) -> int:
        """Fixtures per group and deal."""
        return math.factorial(self.group) if self.every_seating else self.group

    def seating(self, group: tuple[str, ...], rotation: int) -> tuple[str, ...]:
        """The bot in each seat for a group of bots, rotated ``rotation`` places (or its
        ``rotation``-th permutation)."""
        if self.every_seating:
            return next(islice(permutations(group), rotation, None))
        k = len(group)
        if self.teams:
            return tuple(group[(s % k + rotation) % k] for s in range(self.players))
        return group[rotation:] + group[:rotation]


@dataclass(frozen=True)
class Fixture:
    index: int
    round: int
    seats: tuple[str, ...]
    seed: int
    deal: str | None = None  # the JSON of its explicit deal, from a deal book

    @property
    def explicit(self) -> dict | None:
        """Its explicit deal, or None (its seed deals it)."""
        return None if self.deal is None else json.loads(self.deal)


def round_groups(defn: SeasonDef) -> Iterator[list[tuple[str, ...]]]:
    """The groups of bots that meet, round by round."""
    bots, n = list(defn.bots), defn.group
    if defn.kind == "ladder":  # a placement: every group that holds the newcomer, bots[0]
        every = [g for g in combinations(bots, n) if g[0] == bots[0]]
        for _ in range(defn.rounds):
            yield every
        return
    if math.comb(len(bots), n) <= MAX_GROUPS:
        every = list(combinations(bots, n))
        for _ in range(defn.rounds):
            yield every
        return
    meets: dict[frozenset, int] = {}
    for rnd in range(defn.rounds):
        order = list(bots)
        random.Random(derive_seed(defn.seed, "tables", rnd)).shuffle(order)
        unseated, tables = order, []
        for _ in range(math.ceil(len(bots) / n)):
            pool = unseated or order  # the last table fills up from bots already seated
            table = [pool[0]]
            while len(table) < n:
                pool = [b for b in (unseated or order) if b not in table] or [
                    b for b in order if b not in table]
                table.append(min(pool, key=lambda b: sum(
                    meets.get(frozenset((b, t)), 0) for t in table)))
            unseated = [b for b in unseated if b not in table]
            for pair in combinations(table, 2):
                meets[frozenset(pair)] = meets.get(frozenset(pair), 0) + 1
            tables.append(tuple(table))
        yield tables


def fixture_count(defn: SeasonDef) -> int:
    if defn.field:
        return defn.rounds * defn.players * 2
    if defn.kind == "human":  # a match a round, its seats as named (arena.leagues.humans)
        return defn.rounds
    k, n = len(defn.bots), defn.group
    if defn.kind == "ladder":
        return defn.rounds * math.comb(k - 1, n - 1) * defn.seatings
    per_round = math.comb(k, n) if math.comb(k, n) <= MAX_GROUPS else math.ceil(k / n)
    return defn.rounds * per_round * defn.seatings


#: The smallest default batch: a worker's first batch of a season starts every bot's
#: processes, and every batch is a task to send, store and rate apart.
MIN_BATCH = 8


def default_batch(game, defn: SeasonDef) -> int:
    """The batch size of a new season: the game's for its variant, but at most a sixteenth
    of the season, so that a short season still spreads over the workers - and no less than
    ``MIN_BATCH`` (or the game's, where that is smaller). A function of the definition
    alone, like the batches themselves."""
    return max(1, min(game.batch(defn.variant), max(MIN_BATCH, -(-fixture_count(defn) // 16))))


def fixtures(defn: SeasonDef) -> Iterator[Fixture]:
    """Every fixture of the season in order, streamed (never all in memory)."""
    if defn.field:
        yield from _field_fixtures(defn)
        return
    if defn.kind == "human":  # a match a round, its seats as named (arena.leagues.humans):
        for rnd in range(defn.rounds):  # the deal 'arena play --seed' deals, seed by seed
            yield Fixture(rnd, rnd, defn.bots, keyed_seed(defn.secret, "play", defn.seed + rnd))
        return
    index = 0
    for rnd, round_ in enumerate(round_groups(defn)):
        for g, group in enumerate(round_):
            seed = (keyed_seed(defn.secret, "deal", defn.seed, rnd, g) if defn.secret is not None
                    else derive_seed(defn.seed, "deal", rnd, g))  # a season before secrets
            if defn.draw_partners:  # seats two apart are partners: shuffle who sits where
                group = list(group)
                random.Random(derive_seed(defn.seed, "partners", rnd, g)).shuffle(group)
                group = tuple(group)
            for rot in range(defn.seatings):
                yield Fixture(index, rnd, defn.seating(group, rot), seed, _deal(defn, rnd))
                index += 1


def _field_fixtures(defn: SeasonDef) -> Iterator[Fixture]:
    """A match in a field: every deal once per seat for the candidate and once for the
    baseline - fixture 2k the candidate in seat k, fixture 2k+1 the baseline there - the
    field in the other seats in its order, the same bots on the same cards."""
    candidate, baseline = defn.bots[:2]
    index = 0
    for rnd in range(defn.rounds):
        seed = keyed_seed(defn.secret, "deal", defn.seed, rnd, 0)
        for seat in range(defn.players):
            for bot in (candidate, baseline):
                seats = list(defn.field)
                seats.insert(seat, bot)
                yield Fixture(index, rnd, tuple(seats), seed, _deal(defn, rnd))
                index += 1


def _deal(defn: SeasonDef, rnd: int) -> str | None:
    """Round ``rnd``'s explicit deal (its JSON), where the season plays a deal book."""
    return json.dumps(defn.round_deal(rnd)) if defn.deals else None


def validate(defn: SeasonDef, registry: Registry) -> None:
    game = registry.game(defn.game)
    game.check(defn.variant, defn.players)
    if len(set(defn.bots)) != len(defn.bots):
        raise ArenaError("each bot may appear once in a season")
    if defn.teams and (defn.teams != game.teams or defn.players % defn.teams):
        raise ArenaError(f"{game.name} is played by {game.teams or 'no'} teams")
    if defn.field:
        if len(defn.field) != defn.players - 1:
            raise ArenaError(f"a field for {defn.players} seats is {defn.players - 1} bots, "
                             f"not {len(defn.field)}")
        if set(defn.bots) != {*defn.bots[:2], *defn.field}:
            raise ArenaError("a field match's bots are the two and its field")
    elif len(defn.bots) < defn.group:
        what = f"{defn.teams} teams" if defn.teams else f"{defn.players} seats"
        raise ArenaError(f"{what} need at least {defn.group} bots, got {len(defn.bots)}")
    if defn.rounds < 1:
        raise ArenaError("a season needs at least one round")
    if defn.deals and defn.rounds != len(defn.deals):
        raise ArenaError(f"a season of a deal book plays each deal once: {len(defn.deals)} "
                         f"rounds, not {defn.rounds}")
    if defn.batch < 1:
        raise ArenaError("a season's batch size must be at least 1")
    if defn.suspend_after < 0:
        raise ArenaError("--suspend-after must be 0 (never) or more")
    for bot in defn.bots:
        registry.bot(bot, game.name)
    Limits.parse(defn.limits)


#: registries a coordinator has listed already (``prime``), for the workers it forks
_PRIMED: dict[tuple, Registry] = {}


def prime(registry: Registry, bots_dirs: tuple[str, ...], submitted: tuple = ()) -> None:
    """Let the workers this process forks from now on use ``registry``'s listing of the
    bots, as ``_registry`` would list them again (each bot process still checks, as it
    starts, that its files are the ones listed)."""
    registry.bots()
    _PRIMED.clear()  # the latest only: a long-lived coordinator keeps no old listings
    _PRIMED[(bots_dirs, submitted)] = registry


@lru_cache(maxsize=4)
def _registry(bots_dirs: tuple[str, ...], submitted: tuple = ()) -> Registry:
    primed = _PRIMED.get((bots_dirs, submitted))
    if primed is not None:
        return primed
    registry = Registry(bots_dirs=bots_dirs)  # one per worker process, loaded once
    if submitted:
        registry.submitted = lambda: list(submitted)
    return registry


def play_batch(game_name: str, variant: str, bots_dirs: tuple[str, ...], limits: str,
               batch: list[Fixture], secret: str, submitted: tuple = (),
               inflight: int = 1, hashes: tuple = (), adjust: str = "") -> list[dict]:
    """Run in a worker: play the fixtures of one batch, return plain results.

    Every seat of a match is its own sandboxed process - a bot that plays both seats of a
    Tractor team gets two, which cannot reach each other - and no process sees one deal
    twice: the duplicates of a deal (the same cards with the seats turned, every hand known
    from the first time) go to other processes of the bot. So each bot has a few processes
    (as many as it plays seats of one deal: two in a two-player game, four for a Tractor
    team, six for a Cherki bot) serving the batch's matches, each seat taken by the first
    of them that has not seen the deal; a batch - fixed by fixture index - always meets the
    same processes, and no process learns more of a deal than its seat shows.
    ``submitted``: the entries of the season's submitted bots (``arena.leagues.store``), which a
    worker's registry cannot find by itself. With ``inflight`` above 1 the batch is played
    that many matches at a time, their moves asked of each process together
    (``arena.sandbox.inflight``), with the same results. ``hashes``: ``(bot, code hash)`` as the
    season recorded them; a bot whose code has changed since does not play (ArenaError:
    the season stops, and resumes once its code is restored). ``adjust="luck"``: each
    result also holds its seats' ``luck`` (``arena.luck``), computed here, beside the play.
    """
    out = _play_batch(game_name, variant, bots_dirs, limits, batch, secret, submitted,
                      inflight, hashes)
    if adjust == "luck":
        game = _registry(bots_dirs, submitted).game(game_name)
        deals = {fx.index: fx.explicit for fx in batch}
        for r in out:
            r["luck"] = match_luck(game, variant, len(r["seats"]), r["seed"],
                                   json.loads(r["replay"]), secret, deal=deals[r["fixture"]])
    return out


def _play_batch(game_name: str, variant: str, bots_dirs: tuple[str, ...], limits: str,
                batch: list[Fixture], secret: str, submitted: tuple, inflight: int,
                hashes: tuple) -> list[dict]:
    registry = _registry(bots_dirs, submitted)
    recorded = dict(hashes)

    def entry(name: str):
        found = registry.bot(name, game_name)
        if recorded.get(name, found.code_hash) != found.code_hash:
            raise ArenaError(f"bot {name!r} has changed since its season started: it does not "
                             "play ('arena season resume' says how to finish the season with "
                             "the code it began with)")
        return found

    game = registry.game(game_name)
    out = []
    bot_limits = Limits.parse(limits)
    kept = _kept((game_name, variant, bots_dirs, limits, secret, submitted, inflight, hashes),
                 bot_limits)
    mask = _pin_here()
    began, ok = time.perf_counter(), False
    if inflight > 1:
        from ..sandbox import inflight as side_by_side

        try:
            out = side_by_side.play(game, variant, batch, entry, bot_limits,
                                    secret, inflight, kept.pools)
            ok = True
            return out
        finally:
            kept.after_batch(time.perf_counter() - began, ok)
            if mask is not None:
                os.sched_setaffinity(0, mask)
    pools = kept.pools  # bot -> [(process, deals seen)]
    for pool in pools.values():  # a process that ended between two batches is not reused
        for b, d in [(b, d) for b, d in pool if b.worker is not None and not b.worker.alive]:
            b.close()
            pool.remove((b, d))
    try:
        for fx in batch:
            bots: list = []
            for name in fx.seats:
                pool = pools.setdefault(name, [])
                bot, dealt = next(((b, d) for b, d in pool if fx.seed not in d and
                                   all(b is not o for o in bots)), (None, set()))
                if bot is None:
                    bot = make_bot(entry(name), bot_limits)
                    pool.append((bot, dealt))
                dealt.add(fx.seed)
                bot.move_times = []
                bots.append(bot)
            start = time.perf_counter()
            match, _ = play_match(game, variant, bots, fx.seed, list(fx.seats), secret=secret,
                                  deal=fx.explicit)
            duration = time.perf_counter() - start
            match.keep_logs((seat, b.log_tail()) for seat, b in enumerate(bots))
            out.append(match.stored(fx.index, duration,
                                    {seat: b.move_times for seat, b in enumerate(bots)}))
        ok = True
    finally:
        kept.after_batch(time.perf_counter() - began, ok)
        if mask is not None:
            os.sched_setaffinity(0, mask)
    return out


class Kept:
    """The bot processes a worker keeps from one batch of a season to the next (one thread's:
    a thread plays one batch at a time). A new season's batch closes the last season's; a
    batch that fails closes them all; and a process that has served half its CPU limit's
    worth of batches (``Limits.cpu_s``, counted in the batches' wall time, which bounds its
    CPU) is closed after its batch, so that the limit stays a limit on about a batch's play
    and never on a whole season. What a bot could learn does not change: a process serves
    the same bot in the same season, every match with its own state, and never both sides
    of a duplicate deal (the deals each has seen stay with it)."""

    def __init__(self, key, limits: Limits):
        self.key, self.limits, self.pid = key, limits, os.getpid()
        #: by bot: ``[(SandboxBot, deal seeds seen)]`` one match at a time, or the
        #: ``inflight.Shared`` processes side by side
        self.pools: dict[str, list] = {}
        self.served = 0.0  # wall seconds of the batches served since they started

    def after_batch(self, seconds: float, ok: bool) -> None:
        self.served += seconds
        if not ok or self.served > self.limits.cpu_s / 2:
            self.close()

    def close(self) -> None:
        for pool in self.pools.values():
            for item in pool:
                (item[0] if isinstance(item, tuple) else item).close()
        self.pools.clear()
        self.served = 0.0


_KEEP = threading.local()
_KEPT_ALL: list[Kept] = []  # every thread's, closed as this process ends


def _kept(key, limits: Limits) -> Kept:
    """This thread's kept processes for season ``key`` (its game, bots, limits, secret...),
    the last season's closed when another comes."""
    kept = getattr(_KEEP, "kept", None)
    if kept is not None and kept.pid != os.getpid():  # a forked process: its parent's
        _KEPT_ALL[:] = [k for k in _KEPT_ALL if k.pid == os.getpid()]
        kept = None
    if kept is not None and kept.key == key:
        return kept
    if kept is not None:
        kept.close()
        _KEPT_ALL.remove(kept)
    if not _KEPT_ALL:
        from multiprocessing import util

        util.Finalize(None, _close_kept, exitpriority=1)
    kept = _KEEP.kept = Kept(key, limits)
    _KEPT_ALL.append(kept)
    return kept


def _close_kept() -> None:
    while _KEPT_ALL:
        kept = _KEPT_ALL.pop()
        if kept.pid == os.getpid():
            kept.close()


def _pin_here() -> set[int] | None:
    """Pin this thread - and so the bot processes it starts - to the CPU it is running on,
    for one batch, unless it is pinned already (a local pool's workers are): a move then
    passes between runner and bot on one core. Returns the mask to restore."""
    mask = os.sched_getaffinity(0)
    if len(mask) == 1:
        return None
    cpu = ctypes.CDLL(None).sched_getcpu()
    if cpu < 0:
        return None
    os.sched_setaffinity(0, {cpu})
    return mask


def suspended_result(fx: Fixture, suspended: set[str]) -> dict:
    """The result of a fixture not played because bots in it are suspended: each of them
    forfeits (shared last place, fault ``suspended``), the other seats share first place."""
    out = [name in suspended for name in fx.seats]
    ranks = [len(out) - sum(out) + 1 if o else 1 for o in out]
    return {"fixture": fx.index, "seed": fx.seed, "seats": list(fx.seats), "duration": 0.0,
            "result": {"ranks": ranks, "scores": zero_sum_scores(ranks), "reason": "suspended",
                       "moves": 0, "faults": ["suspended" if o else None for o in out]},
            "replay": "[]", "logs": {},
            "luck": [0.0] * len(out)}  # no deal was played: no luck


def batches(defn: SeasonDef, done: set[int]) -> Iterator[list[Fixture]]:
    """The fixtures not in ``done``, in their fixed batches (empty batches skipped)."""
    for _, group in groupby((fx for fx in fixtures(defn) if fx.index not in done),
                            key=lambda fx: fx.index // defn.batch):
        yield list(group)


def run(defn: SeasonDef, done: set[int], executor: Executor, store: Callable[[list], None],
        bots_dirs: tuple[str, ...] = (), window: int = 4,
        suspended: Callable[[], set[str]] = set, stop: Callable[[], bool] = bool,
        submitted: tuple = (), hashes: tuple = ()) -> int:
    """Play every fixture of ``defn`` whose index is not in ``done``; hand each finished
    batch to ``store`` (in this process). At most ``window`` batches per worker are in flight,
    so memory stays flat however long the season. Fixtures of bots that ``suspended()`` names
    are not played: their forfeits are stored at once. Once ``stop()`` is true no batch is
    started (those in flight are stored). Returns the number of matches stored."""
    todo = batches(defn, done)
    limit = max(1, window * (getattr(executor, "_max_workers", 1) or 1))
    pending, played = set(), 0

    def submit() -> bool:
        nonlocal played
        if stop():
            return False
        for batch in todo:
            out = suspended()
            skipped = [suspended_result(fx, out & set(fx.seats)) for fx in batch
                       if out & set(fx.seats)]
            if skipped:
                store(skipped)
                played += len(skipped)
                batch = [fx for fx in batch if not out & set(fx.seats)]
            if batch:
                pending.add(executor.submit(play_batch, defn.game, defn.variant, bots_dirs,
                                            defn.limits, batch, defn.secret, submitted,
                                            defn.inflight, hashes, defn.adjust))
                return True
        return False

    while len(pending) < limit and submit():
        pass
    while pending:
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in sorted(finished, key=id):
            pending.discard(future)
            results = future.result()
            store(results)
            played += len(results)
            submit()
    return played
