"""Observation deltas (docs/protocol.md, "Observation deltas"): after the first observation
of a match, the runner sends a seat only what changed since the last one it sent it, and
``arena.sandbox.worker`` rebuilds the whole observation before its bot sees it.

A delta is a JSON object with up to three members, each left out when empty:

* ``"set"``: ``{key: value}``, the top-level members whose value changed (or are new);
* ``"extend"``: ``{key: [items...]}``, the top-level lists that only grew at their end
  (the tricks of a deal, a Cherki deal's discards): just the new items;
* ``"drop"``: ``[key, ...]``, the members that are gone.

So a move costs the same however long the game: what grows is sent once. ``patch(old,
diff(old, new)) == new`` for any two JSON objects (tests/test_deltas.py checks it at every
step of random matches of every game and variant).
"""

from __future__ import annotations

from ..games import take_compiled

#: Games whose observations stay small (Vändtia's under 1 KB): a delta costs more than it
#: saves there (a move's observation through JSON: 5.7 µs whole, 12.5 µs as diff, delta and
#: patch), so the runner does not offer deltas in their matches.
WHOLE = frozenset({"vandtia"})


def diff(old: dict, new: dict) -> dict:
    """The delta that turns observation ``old`` into ``new``."""
    changed: dict = {}
    grown: dict = {}
    kept = 0  # keys of ``new`` that ``old`` has: when all of ``old``'s, none is gone
    for key, value in new.items():
        before = old.get(key, _GONE)
        if before is _GONE:
            changed[key] = value
            continue
        kept += 1
        if before == value:
            continue
        if (type(value) is list and type(before) is list and len(before) < len(value)
                and value[:len(before)] == before):
            grown[key] = value[len(before):]
        else:
            changed[key] = value
    delta: dict = {}
    if changed:
        delta["set"] = changed
    if grown:
        delta["extend"] = grown
    if kept != len(old):
        delta["drop"] = [key for key in old if key not in new]
    return delta


def patch(old: dict, delta: dict) -> dict:
    """Observation ``old`` with ``delta`` applied: a new dict (``old`` is not changed)."""
    new = dict(old)
    for key in delta.get("drop", ()):
        new.pop(key, None)
    new.update(delta.get("set", {}))
    for key, items in delta.get("extend", {}).items():
        new[key] = old[key] + items
    return new


def fresh(observation: dict) -> dict:
    """What a bot is given: a new dict holding new copies of the top-level lists and dicts,
    so a bot that sorts its hand or removes a card from it changes nothing the next
    observation is rebuilt from (what lies deeper is shared with the previous observation)."""
    out = observation.copy()
    for key, value in observation.items():
        kind = type(value)
        if kind is list:
            out[key] = list(value)
        elif kind is dict:
            out[key] = dict(value)
    return out


def rebuild(kept: dict, key, request: dict) -> dict:
    """The worker's side: the whole observation of ``request`` (an ``act``, or one request
    of a batched one) for match ``key``: the one it sent (``"observation"``), or ``kept[key]``
    - the last one - with the delta it sent (``"delta"``) applied as ``patch`` applies it.
    Kept in its place (``kept[key]``); what the bot is given is a ``fresh`` copy. The kept
    observation and its top-level lists are the worker's own - no bot was given them - so
    the delta is applied to them in place: nothing of the last observation is copied."""
    delta = request.get("delta")
    if delta is None:
        whole = kept[key] = request["observation"]
        return fresh(whole)
    whole = kept[key]
    for name in delta.get("drop", ()):
        whole.pop(name, None)
    whole.update(delta.get("set", {}))
    for name, items in delta.get("extend", {}).items():
        whole[name].extend(items)
    return fresh(whole)


_GONE = object()


#: "compiled (Cython)" where the compiled build runs (``arena.games.take_compiled``): the
#: runner's diff and the worker's rebuild take about half the time
BUILD = take_compiled(globals())
