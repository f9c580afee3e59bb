"""Plays one match: asks each seat to move, checks legality, enforces the cap, records the
replay and turns bot faults into forfeits.

A match is fully described by (game, variant, players, seed, actions): :func:`replay` rebuilds
every state from those, so the stored replay is the action list and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .cards import PUBLIC_SECRET, keyed_seed
from .errors import BotFault, crash_reason, illegal_reason, traceback_tail
from .games import Result

#: How the referee asks bots, stored with every season: 1, every move; 2, not when a seat
#: has a single legal action. Bots see other positions under each rule (and draw other
#: random numbers), so a season is only ever finished under the rule it began with.
ASKING = 2


class MoveTimes:
    """The wall seconds of the moves a seat was asked, summed as they come (``append``):
    what a stored match keeps of them - their mean and the longest (``Match.stored``) -
    without a number kept per move for the length of the match."""

    __slots__ = ("count", "total", "longest")

    def __init__(self):
        self.count, self.total, self.longest = 0, 0.0, 0.0

    def append(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        if seconds > self.longest:
            self.longest = seconds

    def __len__(self) -> int:
        return self.count


def _mean_and_longest(times) -> tuple[float, float]:
    """Of a seat's move times: a list of seconds, or :class:`MoveTimes`."""
    if isinstance(times, MoveTimes):
        return times.total / times.count, times.longest
    return sum(times) / len(times), max(times)


@dataclass
class Match:
    """A finished match: what was asked for, every action in order, and the result."""

    game: str
    variant: str
    seed: int
    players: list[str]
    actions: list = field(default_factory=list)
    result: Result | None = None
    #: seat -> the end of what its bot wrote in the match (``LOG_TAIL`` characters): a
    #: faulty seat's as it faulted, every other's as the match ended (none: wrote nothing)
    logs: dict[int, str] = field(default_factory=dict)

    def keep_logs(self, tails) -> None:
        """Keep ``tails`` (seat -> the end of what it wrote) for the seats that did not
        fault (a faulty seat's log is the one it faulted with)."""
        for seat, text in tails:
            if text and seat not in self.logs:
                self.logs[seat] = text

    def stored(self, fixture: int, duration: float, move_times: dict | None = None) -> dict:
        """The match as a season's results hold it (``db.store_results``): fixture
        ``fixture`` of its season; ``move_times`` per seat, the wall seconds of each move it
        was asked (a list, or their :class:`MoveTimes`)."""
        return {"fixture": fixture, "seed": self.seed, "seats": list(self.players),
                "result": self.result.to_json(), "duration": duration,
                "replay": json.dumps(self.actions, separators=(",", ":")),
                "logs": {str(k): v for k, v in self.logs.items()},
                "move_s": {str(seat): _mean_and_longest(t)
                           for seat, t in (move_times or {}).items() if t}}

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "variant": self.variant,
            "seed": self.seed,
            "players": list(self.players),
            "result": self.result.to_json() if self.result else None,
            "actions": list(self.actions),
        }


def _fault(e: BaseException) -> str:
    return e.reason if isinstance(e, BotFault) else crash_reason(e)


def play_match(game, variant: str, bots: list, seed: int, names: list[str] | None = None,
               record: bool = False, secret: str = PUBLIC_SECRET, state=None,
               deal: dict | None = None):
    """Referee one match of ``game`` between ``bots`` (objects with the Bot interface).

    ``seed`` is the deal seed the engine draws every card from; each bot's own seed is keyed
    by ``secret`` (:func:`arena.cards.keyed_seed` of the deal seed and its seat), so it tells
    nothing about the deal. Bots must not learn the deal seed: seasons and ``arena play``
    key it by a random secret too; the default secret is public, for tests and research.

    Returns ``(match, state)``; the state is the final one (with events if ``record``).
    A seat with a single legal action is not asked: the referee plays it (a bot sees it in
    its next observation, which holds the whole public state), so a bot is only ever asked
    to choose - a third of Vändtia's moves are forced pick-ups. A bot that raises, or
    answers something not in the legal list, forfeits: it takes last place, the match ends,
    and the reason is stored in ``result.faults``.

    ``state``: the match's fresh state, made by the caller (``game.new_state`` of the same
    variant, players and seed), for a caller that shows a seat what happens as it happens
    (a person's seat: ``arena.cli.human``). An exception that is not an ``Exception`` - a
    KeyboardInterrupt - is not a fault: it ends the match unfinished, and reaches the caller.
    ``deal``: an explicit deal (a deal book's) played instead of the seed's (``Game.start``).
    """
    names = list(names or [getattr(b, "name", f"seat{i}") for i, b in enumerate(bots)])
    steps = match_steps(game, variant, len(bots), seed, names, record, secret, state,
                        deal=deal)
    ask = next(steps)
    try:
        while True:
            kind, seat, *what = ask
            bot = bots[seat]
            try:
                if kind == "act":
                    answer = bot.act(*what)
                elif kind == "start":
                    answer = bot.start(*what)
                elif kind == "log":
                    answer = getattr(bot, "log_tail", lambda: "")()
                else:
                    answer = bot.end(*what)
            except (Exception, SystemExit) as e:
                answer = Failed(e)
            ask = steps.send(answer)
    except StopIteration as done:
        return done.value


def play_deal_seed(secret: str, seed: int) -> int:
    """The deal seed of ``arena play --seed SEED`` under ``secret`` (and of an environment's
    ``reset(seed=SEED)``, ``arena.envs``)."""
    return keyed_seed(secret, "play", seed)


@dataclass
class Failed:
    """What a bot did instead of answering: raised (or, sandboxed, faulted with) ``error``."""

    error: BaseException


def match_steps(game, variant: str, players: int, seed: int, names: list[str],
                record: bool = False, secret: str = PUBLIC_SECRET, state=None,
                observe: bool = True, deal: dict | None = None):
    """The referee as a generator, for runners that play many matches side by side: it
    yields what it asks of a seat - ``("start", seat, info)``, ``("act", seat, observation,
    legal)``, ``("log", seat)`` (the seat's log tail, after an illegal answer), ``("end",
    seat, result)`` - and is sent the answer: ``None``, the action, the log text, or a
    :class:`Failed`. It returns ``(match, state)`` as :func:`play_match` does, which is
    this generator driven by direct calls. ``observe=False``: an ``act`` holds None for the
    observation, for a runner that gave the ``state`` and reads what it sends from it
    (``arena.sandbox.inflight``: a delta, from the state's ``observation_delta``), and the
    engine's own legal list, which that runner only serialises (not a copy: no bot holds
    it)."""
    variant = game.check(variant, players)
    if state is None:
        state = game.start(variant, players, seed, deal, record=record)
    elif state.moves != 0:
        raise ValueError("match_steps: a given state must be fresh")
    match = Match(game.name, variant, seed, names)
    faults: list[str | None] = [None] * players

    def forfeit(seat: int, reason: str, log: str) -> None:
        """End the match with ``seat`` last; keep the tail of its log (a sandboxed bot's
        stderr, an in-process bot's traceback) for its author."""
        faults[seat] = reason
        if log:
            match.logs[seat] = log
        state.forfeit(seat)

    for seat in range(players):
        info = {"game": game.name, "variant": variant, "seat": seat, "players": players,
                "seed": keyed_seed(secret, "bot", seed, seat)}
        answer = yield ("start", seat, info)
        if isinstance(answer, Failed):
            forfeit(seat, _fault(answer.error), _log_of(answer.error))
            break

    actions = match.actions
    while not state.is_over():
        seat = state.to_move
        legal = state.legal_actions()
        if len(legal) == 1:  # no choice: the seat is not asked (it sees the move next time)
            action = legal[0]
        else:
            action = yield (("act", seat, state.observation(seat), list(legal)) if observe
                            else ("act", seat, None, legal))
            if isinstance(action, Failed):
                forfeit(seat, _fault(action.error), _log_of(action.error))
                break
            try:  # the legal list's own action, equal to the answer, is the one kept: an
                # engine makes its actions once, so no string decoded from an answer is kept
                # for the length of the match (scattered through the runner's memory)
                action = legal[legal.index(action)]
            except ValueError:
                forfeit(seat, illegal_reason(action, legal), (yield ("log", seat)))
                break
        actions.append(action)
        state.apply(action)

    r = state.result()
    match.result = Result(r.ranks, r.scores, r.reason, r.moves, faults)
    public = match.result.to_json()
    for seat in range(players):
        yield ("end", seat, public)  # a failing ``end`` changes nothing: the result is final
    return match, state


def _log_of(error: BaseException) -> str:
    return error.log if isinstance(error, BotFault) else traceback_tail(error)


def replay(game, variant: str, players: int, seed: int, actions: list, record: bool = False,
           deal: dict | None = None):
    """The state reached by ``actions`` from ``seed``; IllegalAction if one does not fit.
    Recorded, each event carries its ``step``: the number of the action that made it (the
    N-th action of the match is step N, everywhere arena numbers one - ``review``, the
    viewer's ``#step=N``, the JSON exports; 0: the deal)."""
    state = game.start(variant, players, seed, deal, record=record)
    stamped = 0
    for step, action in enumerate(actions):
        if record:
            stamped = _stamp(state.events, stamped, step)
        state.apply(action)
    if record:
        _stamp(state.events, stamped, len(actions))
    return state


def _stamp(events: list, start: int, step: int) -> int:
    for event in events[start:]:
        event["step"] = step
    return len(events)
