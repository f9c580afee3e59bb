"""A state's own observation deltas: the game API's ``observation_mark`` and
``observation_delta`` (docs/game-api.md), which Cherki's and Tractor's states make through
:class:`MarkedDeltas`. Compiled with Cython like the engines (``setup.py``; the types in
``marks.pxd``): a runner of matches side by side makes a delta for every move it asks."""

from __future__ import annotations

from . import take_compiled


class MarkedDeltas:
    """A state that makes a seat's observation delta itself. It names in ``MARKED`` the
    observation's members a mark holds - ``_members(seat)`` gives their values, in that
    order - and in ``LOGS`` its logs: lists the state only appends to or starts anew, which
    ``_logs()`` gives, each with its length, in that order; ``_always(seat)`` gives the
    members that change nearly every move, set in every delta. The observation's other
    members never change. (The three are the engine's own, compiled with it.)"""

    MARKED: tuple[str, ...] = ()
    LOGS: tuple[str, ...] = ()

    def observation_mark(self, seat: int) -> tuple:
        """What a runner keeps of ``observation(seat)`` as it is now, to be told later only
        what changed since (``observation_delta``)."""
        return self._members(seat), self._logs()

    def observation_delta(self, seat: int, mark: tuple) -> tuple[dict, tuple]:
        """``(delta, mark)``: ``seat``'s observation now as a delta (``arena.sandbox.deltas``)
        from the one ``mark`` was taken of - ``patch(that, delta) == observation(seat)`` -
        made without building the whole observation or reading the earlier one; and the
        mark of this one (``delta``)."""
        return delta(self, seat, mark)


def delta(state, seat: int, mark: tuple) -> tuple[dict, tuple]:
    """``state.observation_delta(seat, mark)``. The members ``_always`` gives are set; the
    others when they changed; a log is extended by the records added since, or set whole
    when it was started anew."""
    changed = state._always(seat)
    members, logs = state._members(seat), state._logs()
    before = mark[0]
    if members != before:  # one comparison when, as mostly, none of them changed
        names = state.MARKED
        for i in range(len(members)):
            value = members[i]
            if value != before[i]:
                changed[names[i]] = value
    grown = None
    marked = mark[1]
    names = state.LOGS
    for i in range(len(logs)):
        log, n = logs[i]
        was, m = marked[i]
        if log is was and n >= m:
            if n > m:
                if grown is None:
                    grown = {}
                grown[names[i]] = log[m:]
        else:
            changed[names[i]] = list(log)
    if grown is None:
        return {"set": changed}, (members, logs)
    return {"set": changed, "extend": grown}, (members, logs)


#: "compiled (Cython)" where the compiled build runs (``arena.games.take_compiled``)
BUILD = take_compiled(globals())
