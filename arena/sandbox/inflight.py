"""Many matches side by side on shared bot processes: protocol 2's batched acts.

A season's worker plays the fixtures of a batch K at a time (``SeasonDef.inflight``). Each
match is the referee as a generator (``referee.match_steps``), run until it waits for a
seat's move; the matches waiting on one bot process get their requests in one ``act``
message and it answers them in one - one round trip, and one switch between processes, for
up to K moves. The process with the most matches waiting is served first (``_next``), so
that the others' batches grow meanwhile with the matches its answers move on to them.

A bot that speaks protocol 2 (it answered ``start``'s offer with ``"protocol": 2``; every
Python bot does, through ``arena.sandbox.worker``) serves many matches at once, keeping an
object per match; one that speaks protocol 1 (an executable that ignores the offer) serves
one match at a time, as before, and gets a process per match in flight. As before, a
process never sees one deal twice: the duplicates of a deal go to other processes of the
bot.

**Results do not depend on K.** Every match is the same generator with the same seeds,
and a bot keeps per-match state only. A fault that belongs to one match - a Python bot
raising in that match's ``act`` (it answers that request with an error), an illegal
action, any fault of a process that serves that match alone - forfeits that match, as it
would with K = 1. A fault that cannot be pinned on one match - a shared process that dies,
breaks the protocol, overruns its batch's time, or runs out of memory (which the other
matches in it share) - kills the process, and every match it was serving is played again
from its start, one at a time, in fresh processes under the normal limits: the verdict is
the one K = 1 gives.

**Time.** One process gets a batch of k requests (one per match) with a deadline of the sum,
over them, of what K = 1 would allow each: ``move_s`` plus that match's bank. The batch's
time beyond ``k * move_s`` is charged to the k banks equally. A process that misses the
deadline, or a match whose bank would go below zero, is not timed out: it is played again
at K = 1 (above), where each move has its own clock. So a bot is never timed out under
K > 1 for what it could do under K = 1; a process serving a single match is timed exactly
as under K = 1.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

from ..errors import BotFault, said, shown
from ..referee import Failed, MoveTimes, match_steps, play_match
from . import GC_THRESHOLD, deltas
from .bot import make_bot
from .process import Limits, MatchLog, split_log
from .remote import open_worker

_clock = time.perf_counter
#: A fault reason that the other matches of a shared process may have caused.
SHARED = ("memory exceeded",)


class Shared:
    """A bot process and the matches it is serving."""

    def __init__(self, entry, limits: Limits):
        self.entry, self.limits = entry, limits
        self.worker = open_worker(entry.spec, limits)
        self.protocol: int | None = None  # known from its first ``ready``
        self.deltas = False  # it asked for observation deltas (its first ``ready``)
        #: by match, the last observation it was sent (or the state's mark of it)
        self.sent: dict[int, object] = {}
        self.matches: set[int] = set()
        self.seen: set[int] = set()  # deal seeds it has had
        self.dead = False

    def free_for(self, seed: int, taken: list) -> bool:
        return (not self.dead and seed not in self.seen and all(self is not t for t in taken)
                and (self.protocol == 2 or not self.matches))

    def start(self, key: int, info: dict) -> dict:
        message = {"type": "start", "protocol": 2, "match": key, **info,
                   "limits": {"move_s": self.limits.move_s, "bank_s": self.limits.bank_s},
                   "options": self.entry.spec.get("options", {}),
                   "deltas": info.get("game") not in deltas.WHOLE}
        self.matches.add(key)
        self.sent.pop(key, None)
        answer = self.worker.ask(message, "ready", self.limits.start_s)
        if self.protocol is None:
            self.protocol = 2 if answer.get("protocol") == 2 and answer.get("match") == key \
                else 1
            self.deltas = answer.get("deltas") is True
        return answer

    def request(self, live: Live, seat: int) -> tuple[str, dict]:
        """The observation of match ``live`` for ``seat``, whose moves this process makes,
        as the process gets it: ``("observation", whole)``; or, when it takes deltas and
        was sent one before, ``("delta", delta)`` (``arena.sandbox.deltas``) - made by the
        state (``live.made``: its ``observation_delta``, from the mark kept of the last
        one) where the game's states can, else the diff of the last one and this."""
        key, state, made = live.fx.index, live.state, live.made
        last = self.sent.get(key)
        if last is None or not self.deltas:
            observation = state.observation(seat)
            if self.deltas:
                self.sent[key] = (observation if made is None
                                  else state.observation_mark(seat))
            return "observation", observation
        if made is not None:
            delta, self.sent[key] = made(seat, last)
            return "delta", delta
        observation = state.observation(seat)
        self.sent[key] = observation
        return "delta", deltas.diff(last, observation)

    def end(self, key: int, result) -> None:
        self.matches.discard(key)
        self.sent.pop(key, None)
        if self.dead:
            return
        message = {"type": "end", "result": result}
        if self.protocol == 2:
            message["match"] = key
        elif result is None:
            return  # a protocol-1 bot forgets a match when the next starts
        self.worker.hold(message)

    def close(self) -> None:
        self.dead = True
        self.worker.close()


@dataclass
class Live:
    """A match in flight."""

    fx: object
    steps: object
    state: object  # the match's state, which ``steps`` plays on
    procs: list
    banks: list
    ask: tuple | None = None
    #: seat -> the seconds of its moves asked: their ``MoveTimes`` (a float kept per move, for
    #: as long as the match lasts, scatters the runner's memory and costs every move more)
    times: dict = field(default_factory=dict)
    duration: float = 0.0
    #: the state's ``observation_delta`` (None where its game has none)
    made: object = None
    #: seat -> what its bot wrote in this match (``arena.sandbox.process.MatchLog``)
    logs: dict = field(default_factory=dict)

    def log(self, seat: int) -> MatchLog:
        found = self.logs.get(seat)
        if found is None:
            found = self.logs[seat] = MatchLog()
        return found


def play(game, variant: str, fixtures: list, entry, limits: Limits, secret: str,
         inflight: int, pools: dict | None = None) -> list[dict]:
    """Play ``fixtures`` ``inflight`` at a time (``entry(name)``: a bot's registry entry);
    their results as ``scheduler.play_batch`` gives them, in fixture order. The collector
    runs less often meanwhile (``arena.sandbox.GC_THRESHOLD``)."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], GC_THRESHOLD), *threshold[1:])
    try:
        return _play(game, variant, fixtures, entry, limits, secret, inflight,
                     {} if pools is None else pools)
    finally:
        gc.set_threshold(*threshold)


def _play(game, variant: str, fixtures: list, entry, limits: Limits, secret: str,
          inflight: int, pools: dict) -> list[dict]:
    queue = list(fixtures)[::-1]
    active: dict[int, Live] = {}
    results: dict[int, dict] = {}
    again: list = []  # fixtures to play again at K = 1
    #: the processes with matches waiting on them (oldest first): their matches and the
    #: round each began to wait in (``_next``)
    waiting: dict[Shared, tuple[list[Live], int]] = {}
    rounds = 0

    def lost(proc: Shared, fault: BotFault, key: int | None) -> BotFault | None:
        """A process faulted while serving match ``key``: the fault (with the tail of its
        log in that match), when it is that match's alone; else None, and every match it
        served goes to be played again."""
        pinned = proc.matches <= {key} and fault.reason not in SHARED
        raw = proc.worker.take_raw()
        proc.close()  # as at K = 1: after a fault a fresh process serves the next match
        if pinned:
            live = active[key]
            log = live.log(live.procs.index(proc))
            log.add(*raw)
            fault.log = log.tail()
            return fault
        for other in sorted(proc.matches | ({key} if key is not None else set())):
            abandon(other)
        return None

    def abandon(key: int) -> None:
        live = active.pop(key, None)
        if live is None:
            return
        live.steps.close()
        for p in live.procs:
            if key in p.matches:
                p.end(key, None)
        again.append(live.fx)

    def advance(live: Live, answer) -> None:
        """Run a match on until it waits for a move, or is over."""
        key = live.fx.index
        started = _clock()
        try:
            while True:
                ask = live.steps.send(answer)
                kind, seat = ask[0], ask[1]
                proc = live.procs[seat]
                if kind == "act":
                    live.ask = ask
                    wait = waiting.get(proc)
                    if wait is None:
                        waiting[proc] = ([live], rounds)
                    else:
                        wait[0].append(live)
                    break
                if kind == "start":
                    try:
                        ready = proc.start(key, ask[2])
                        log = live.log(seat)  # what it wrote since it last answered is this
                        log.add_answer(ready, proc.worker.take_raw())  # start's
                        answer = None
                        over = log.over(proc.limits)
                        if over:
                            raise proc.worker.fault(over)
                    except BotFault as fault:
                        fault = lost(proc, fault, key)
                        if fault is None:
                            return  # abandoned: played again at K = 1
                        answer = Failed(fault)
                elif kind == "log":
                    answer = live.log(seat).tail()
                else:  # end
                    proc.end(key, ask[2])
                    answer = None
        except StopIteration as done:
            match, _ = done.value
            active.pop(key, None)
            for p in live.procs:
                p.matches.discard(key)
            results[key] = _result(live, match)
        finally:
            live.duration += _clock() - started

    def begin(fx) -> None:
        procs: list[Shared] = []
        for name in fx.seats:
            pool = pools.setdefault(name, [])
            pool[:] = [p for p in pool if not p.dead]
            proc = next((p for p in pool if p.free_for(fx.seed, procs)), None)
            if proc is None:
                proc = Shared(entry(name), limits)
                pool.append(proc)
            proc.seen.add(fx.seed)
            procs.append(proc)
        players = len(fx.seats)
        state = game.start(game.check(variant, players), players, fx.seed, fx.explicit)
        steps = match_steps(game, variant, players, fx.seed, list(fx.seats), secret=secret,
                            state=state, observe=False)  # requests read the state
        live = active[fx.index] = Live(fx, steps, state, procs, [limits.bank_s] * players,
                                       made=getattr(state, "observation_delta", None))
        advance(live, None)

    while queue or active:
        while queue and len(active) < inflight:
            begin(queue.pop())
        if not waiting:  # every match in flight ended or was abandoned
            if active:
                raise RuntimeError("matches in flight that wait on no process")
            continue
        proc = _next(waiting, rounds)
        lives, _ = waiting.pop(proc)
        rounds += 1
        lives = [lv for lv in lives if lv.fx.index in active]  # (not those abandoned)
        if proc.dead:
            for live in lives:
                abandon(live.fx.index)
            continue
        _round(proc, lives, limits, lost, abandon, advance)
    for fx in again:  # one at a time, fresh processes, the normal limits
        results[fx.index] = _alone(game, variant, fx, entry, limits, secret)
    return [results[k] for k in sorted(results)]


def _next(waiting: dict, rounds: int) -> Shared:
    """The process to serve next: the one with the most matches waiting on it, so that a
    process's batch grows while others are served (the matches their answers move on to
    it join it) and the round trips are few; but the one that has waited longest once it
    has waited two rounds for each process waiting, so that none waits for ever."""
    first = next(iter(waiting))
    if rounds - waiting[first][1] >= 2 * len(waiting):
        return first
    return max(waiting, key=lambda k: len(waiting[k][0]))


def _round(proc: Shared, lives: list, limits: Limits, lost, abandon, advance) -> None:
    """One ``act`` to one process for every match waiting on it, and its answers."""
    if not lives:
        return
    seats = []
    deadline = 0.0
    requests = []
    for live in lives:
        ask = live.ask
        seat = ask[1]
        seats.append(seat)
        deadline += limits.move_s + live.banks[seat]
        member, observation = proc.request(live, seat)
        requests.append({"match": live.fx.index, member: observation, "legal": ask[3]})
    if proc.protocol == 2:
        message = {"type": "act", "requests": requests}
    else:  # a protocol-1 process serves one match, and its messages name none
        (request,) = requests
        message = {"type": "act", **request}
        del message["match"]
    start = _clock()
    try:
        answer = proc.worker.ask(message, "actions" if proc.protocol == 2 else "action",
                                 deadline, start)
        spent = _clock() - start
        message = requests = None  # freed before the matches move on, which reuse it
        if proc.protocol == 2:
            actions = _actions(proc, answer, lives)
        elif "action" in answer:
            actions = {lives[0].fx.index: answer["action"]}
        else:
            raise proc.worker.fault('protocol error: an action message without "action"')
    except BotFault as fault:
        key = lives[0].fx.index if len(lives) == 1 else None
        fault = lost(proc, fault, key)
        if fault is not None:  # this match's alone (it served no other)
            live = lives[0]
            live.ask = None
            advance(live, Failed(fault))
        return
    share, excess = spent / len(lives), spent - limits.move_s * len(lives)
    alone = len(lives) == 1 and proc.matches <= {lives[0].fx.index}
    logged = _logged(proc, answer, lives, seats, limits)
    for live, seat in zip(lives, seats, strict=True):
        times = live.times.get(seat)
        if times is None:
            times = live.times[seat] = MoveTimes()
        times.append(share)
        live.duration += share
        if excess > 0:
            live.banks[seat] -= excess / len(lives)
            if live.banks[seat] < 0 and not alone:  # K = 1 would have timed it move by move
                abandon(live.fx.index)
                continue
        action = actions[live.fx.index]
        over = logged.get(live.fx.index)
        if over == SHARED_LOG:  # past its limit with what others wrote: K = 1 tells
            abandon(live.fx.index)
            continue
        if over is not None and not isinstance(action, BotFault):
            action = BotFault(over)  # its own log, past its limit: as K = 1 (the answer, lost)
        live.ask = None
        if isinstance(action, BotFault):
            proc.matches.discard(live.fx.index)
            if action.reason in SHARED:
                abandon(live.fx.index)
                continue
            action.log = live.log(seat).tail()
            action = Failed(action)
        advance(live, action)


#: ``_logged``'s word for a log past its limit with what other matches' requests wrote
SHARED_LOG = "shared"


def _logged(proc: Shared, answer: dict, lives: list, seats: list, limits: Limits) -> dict:
    """Keep what the process wrote before its answer in the matches' logs: all of it in
    the match asked, where one was; else each request's part where the answer counts them
    (``split_log``), or the whole in each (``shared``). Returns, by match, the fault of a
    log past its limit: its own (a fault that K = 1 gives too), or ``SHARED_LOG``."""
    raw = proc.worker.take_raw()
    if not raw[1]:
        return {}
    split = None
    if len(lives) > 1:
        items = answer.get("actions") if type(answer.get("actions")) is list else []
        parts = split_log(answer, items, raw)
        if parts is not None:
            split = {item["match"]: part for item, part in zip(items, parts, strict=True)}
    out = {}
    for live, seat in zip(lives, seats, strict=True):
        log, key = live.log(seat), live.fx.index
        if len(lives) == 1:
            log.add_answer(answer, raw)
        elif split is not None:
            log.add(*split[key])
        else:  # what the requests wrote cannot be told apart: each has it all
            log.add_answer(answer, raw, shared=True)
        over = log.over(limits)
        if over:
            out[key] = over if log.own > limits.log_kb * 1024 else SHARED_LOG
    return out


def _actions(proc: Shared, answer: dict, lives: list) -> dict:
    """A protocol-2 answer: each match's action, or its own fault (a BotFault)."""
    items = answer.get("actions")
    if type(items) is not list:
        raise proc.worker.fault("protocol error: an actions message without a list")
    out: dict = {}
    for item in items:
        if type(item) is dict and type(item.get("match")) is int:
            if "error" in item:
                out[item["match"]] = BotFault(said(item["error"]))  # its log: added later
                continue
            if "action" in item:
                out[item["match"]] = item["action"]
                continue
        raise proc.worker.fault(f"protocol error: an answer {shown(item)!r}")
    if len(out) != len(lives) or any(live.fx.index not in out for live in lives):
        raise proc.worker.fault("protocol error: the answers are not the matches asked")
    return out


def _result(live: Live, match) -> dict:
    match.keep_logs((seat, log.tail()) for seat, log in live.logs.items())
    return match.stored(live.fx.index, live.duration, live.times)


def _alone(game, variant: str, fx, entry, limits: Limits, secret: str) -> dict:
    """A match played again as K = 1 plays it: a fresh process per seat."""
    bots = [make_bot(entry(name), limits) for name in fx.seats]
    for bot in bots:
        bot.move_times = []
    start = _clock()
    try:
        match, _ = play_match(game, variant, bots, fx.seed, list(fx.seats), secret=secret,
                              deal=fx.explicit)
        match.keep_logs((seat, bot.log_tail()) for seat, bot in enumerate(bots))
    finally:
        for bot in bots:
            bot.close()
    live = Live(fx, None, None, [], [], times={s: b.move_times for s, b in enumerate(bots)},
                duration=_clock() - start)
    return _result(live, match)
