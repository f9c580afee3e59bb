"""A match move by move, for the replay viewer: every frame as each seat saw it and as the
whole table lay.

The frames come from the engine itself: the stored actions are replayed from the deal seed,
and after every action a seat's view is built from ``state.observation(seat)`` alone - the
very dict its bot was sent - so a seat's view cannot show a card that seat did not know.
The view of everyone adds ``state.reveal()`` (the hidden cards) to the public table. No
rule is implemented twice: the browser only draws what these frames say.

A view is a list of zones, each a seat or a part of the table, ``{"title", "tags",
"rows": [[label, cards, hidden, role]]}``, with cards by name, joined by spaces (``"7H 7D"``,
``"BJ"``, ``"9M WF"``), ``hidden`` a count of cards face down and ``role`` what the row is
(:data:`ROLES`), for a page that lays the table out rather than listing it. Beside the views a
frame has the public facts (phase, trump, stock...) and the last action, as the other
seats know it (a Cherki call's pair and a Tractor bury are the actor's secret) and as it
was.
"""

from __future__ import annotations

from ..cards import SUIT_SYMBOLS

EVERYONE = "everyone"

#: What a row of a zone is: a seat's ``hand``, ``faceup`` and ``facedown`` cards (Vändtia),
#: its cards ``trick`` in the current trick and ``picks`` so far (Tractor), the card just
#: ``drawn`` and the ``winning`` hand (Cherki); the table's ``pile``, ``stock``, ``burned``,
#: ``kitty``, ``buried`` and ``last-trick``.
ROLES = ("hand", "faceup", "facedown", "trick", "picks", "drawn", "winning", "pile", "stock",
         "burned", "kitty", "buried", "last-trick")


def match_frames(game, variant: str, seed: int, actions: list, names: list[str],
                 result: dict | None = None, deal: dict | None = None) -> dict:
    """``{"game", "variant", "names", "views": [labels], "frames": [...], "result"}``: one
    frame for the deal and one after every action. A frame holds ``move``, ``actor``,
    ``log`` (the action as the other seats know it; ``full``, the action itself, where that
    differs: for the actor and for everyone), ``facts`` (public) and ``views``, a list of
    zones per seat and then everyone's (compressed: see ``_compress``)."""
    players = len(names)
    state = game.start(variant, players, seed, deal)
    build = _BUILDERS[game.name]
    frames = [_frame(game.name, state, build, names, None, None)]
    for action in actions:
        actor = state.to_move
        state.apply(action)
        frames.append(_frame(game.name, state, build, names, actor, action))
    _compress(frames)
    return {"game": game.name, "variant": variant, "names": list(names),
            "views": [f"seat {p} · {n}" for p, n in enumerate(names)] + [EVERYONE],
            "frames": frames, "result": result}


def seat_frame(game: str, state, names: list[str], seat: int, actor, action) -> dict:
    """One frame as ``seat`` alone sees it, uncompressed: its view is built from
    ``state.observation(seat)`` - nothing of another seat's observation and nothing of
    ``reveal`` - and the last action is shown as that seat knows it (in full only when it is
    the seat's own). What a person at a live table, or a watcher from that seat, is sent."""
    observation = state.observation(seat)
    zones, facts = _BUILDERS[game](observation, names, None)
    return {"move": observation["move"], "actor": actor, "facts": facts,
            "views": [_rows(zones)], "log": _log(game, names, actor, action,
                                                 secret=actor == seat)}


def seat_header(game: str, variant: str, names: list[str], seat: int) -> dict:
    """The frames' header for one seat's view (``seat_frame``): the viewer draws view 0 as
    seat ``seat``."""
    return {"game": game, "variant": variant, "names": list(names),
            "views": [f"seat {seat} · {names[seat]}"], "view_seats": [seat]}


def _rows(zones: list[dict]) -> list[dict]:
    for zone in zones:
        zone["rows"] = [[label, " ".join(cards), hidden, role]
                        for label, cards, hidden, role in zone["rows"]]
    return zones


def _frame(game: str, state, build, names, actor, action) -> dict:
    players = len(names)
    observations = [state.observation(p) for p in range(players)]
    views = [build(observations[p], names, None) for p in range(players)]
    views.append(build(observations[0], names, state.reveal()))
    frame = {"move": observations[0]["move"], "actor": actor,
             "log": _log(game, names, actor, action, secret=False),
             "facts": views[0][1], "views": [_rows(zones) for zones, _ in views]}
    full = _log(game, names, actor, action, secret=True)
    if full != frame["log"]:
        frame["full"] = full
    return frame


def _log(game: str, names, actor, action, secret: bool) -> str:
    """The last action; without ``secret`` as the other seats know it: a Cherki call's
    pair and a Tractor bury are the actor's."""
    if action is None:
        return "the deal"
    shown = action
    if not secret:
        words = action.split()
        if game == "cherki" and "call" in words:
            shown = " ".join(words[:words.index("call") + 1])
        elif game == "tractor" and words[0] == "bury":
            shown = "bury a card"
    return f"seat {actor} ({names[actor]}): {shown}"


def _compress(frames: list[dict]) -> None:
    """Keep only what changed: a zone equal to the same view's in the frame before becomes
    0, one equal to the view before's in the same frame 1, facts equal to the frame
    before's 0 (the viewer carries them forward). A long match shrinks about tenfold."""
    before = None
    for frame in frames:
        views, facts = frame["views"], frame["facts"]
        packed = []
        for v, zones in enumerate(views):
            packed.append([0 if before is not None and z == before[0][v][i]
                           else 1 if v and z == views[v - 1][i] else z
                           for i, z in enumerate(zones)])
        frame["views"] = packed
        if before is not None and facts == before[1]:
            frame["facts"] = 0
        before = (views, facts)


def _seat(p, names) -> str:
    return "nobody" if p is None else f"seat {p} ({names[p]})"


def _seat_title(p: int, names) -> str:
    return f"seat {p} · {names[p]}"


# -- Vändtia ---------------------------------------------------------------------------------


def _vandtia(o: dict, names, reveal: dict | None) -> dict:
    zones = []
    for p, seat in enumerate(o["seats"]):
        tags = []
        if seat["out"]:
            tags.append(f"out: place {seat['out']}")
        if p == o["dealer"]:
            tags.append("dealer")
        if reveal is not None:
            hand, hidden = reveal["hands"][p], 0
            down = [c for c in reveal["facedown"][p] if c is not None]
            down_hidden = 0
        elif p == o["seat"]:
            hand, hidden, down, down_hidden = o["hand"], 0, [], len(seat["facedown"])
        else:
            hand = seat["known"]
            hidden, down, down_hidden = seat["hand"] - len(seat["known"]), [], len(
                seat["facedown"])
        zones.append({"title": _seat_title(p, names), "tags": tags,
                      "rows": [["hand", hand, hidden, "hand"],
                               ["face-up", seat["faceup"], 0, "faceup"],
                               ["face-down", down, down_hidden, "facedown"]]})
    stock = reveal["stock"] if reveal is not None else []
    zones.append({"title": "table", "tags": [], "rows": [
        ["pile", o["pile"], 0, "pile"], ["stock", stock, 0 if reveal else o["stock"], "stock"],
        ["burned", o["burned"], 0, "burned"]]})
    facts = [["phase", o["phase"]], ["to move", _seat(o["to_move"], names)],
             ["to play on", o["top"] or "anything"], ["stock", str(o["stock"])]]
    return zones, facts


# -- Tractor ---------------------------------------------------------------------------------

HAND = 25  # cards dealt to each seat in every deal (the kitty is the other eight)


def _tractor(o: dict, names, reveal: dict | None) -> dict:
    played = [0, 0, 0, 0]
    for trick in o["tricks"]:
        for s, cards in trick["plays"]:
            played[s] += len(cards)
    for s, cards in o["trick"]["plays"]:
        played[s] += len(cards)
    current = {s: cards for s, cards in o["trick"]["plays"]}
    zones = []
    for p in range(4):
        tags = [f"team {p % 2}"]
        if o["dealer"] == p:
            tags.append("dealer")
        if reveal is not None:
            hand, hidden = reveal["hands"][p], 0
        elif p == o["seat"]:
            hand, hidden = o["hand"], 0
        else:
            hand, hidden = [], HAND - played[p] - (len(o["picks"]) if p == o["to_move"]
                                                   else 0)
            if o["phase"] == "bury" and p == o["dealer"]:
                hidden += 8 - len(o["buried"] or [])
        rows = [["hand", hand, hidden, "hand"],
                ["in this trick", current.get(p, []), 0, "trick"]]
        if p == o["seat"] and o["picks"] and reveal is None:
            rows.append(["picked so far", o["picks"], 0, "picks"])
        zones.append({"title": _seat_title(p, names), "tags": tags,
                      "rows": rows})
    kitty = reveal["kitty"] if reveal is not None else o["kitty"]
    buried = reveal["buried"] if reveal is not None else o["buried"]
    table = [["kitty", kitty or [], 0 if kitty is not None else 8, "kitty"]]
    if buried or reveal is None and o["phase"] == "play":
        table.append(["buried", buried or [], 0 if buried is not None else 8, "buried"])
    if o["tricks"]:
        last = o["tricks"][-1]
        table.append([f"last trick (won by seat {last['winner']}, {last['points']} points)",
                      [c for _, cards in last["plays"] for c in cards], 0, "last-trick"])
    zones.append({"title": "table", "tags": [], "rows": table})
    declared = [b for b in o["bids"] if b["bid"] != "pass"]
    facts = [["deal", str(o["deal"])], ["phase", o["phase"]],
             ["to move", _seat(o["to_move"], names)],
             ["trump", {None: "not yet known", "none": "no trump"}.get(
                 o["trump"], f"{o['trump']} ({SUIT_SYMBOLS.get(o['trump'], '')})")],
             ["level rank", str(o["level_rank"])],
             ["levels", f"team 0: {o['levels'][0]}, team 1: {o['levels'][1]}"],
             ["attackers' points", str(o["points"])], ["tricks", str(len(o["tricks"]))],
             ["last bid", f"seat {declared[-1]['seat']}: {' '.join(declared[-1]['bid'])}"
              if declared else "none"]]
    return zones, facts


# -- Cherki ----------------------------------------------------------------------------------


def _cherki(o: dict, names, reveal: dict | None) -> dict:
    record = sorted([(t["move"], t["seat"], t["card"], True) for t in o["takes"]]
                    + [(d["move"], d["seat"], d["card"], False) for d in o["discards"]])
    held: list[list[str]] = [[], [], []]  # taken and not thrown back: public
    for _, p, card, took in record:
        if took:
            held[p].append(card)
        elif card in held[p]:
            held[p].remove(card)
    zones = []
    for p in range(3):
        tags = []
        if o["called"][p]:
            pair = (reveal["locked"][p] if reveal is not None
                    else o["locked"] if p == o["seat"] else None)
            tags.append(f"called: waiting for a {pair}" if pair else "called")
        if o["dealer"] == p:
            tags.append("dealer")
        if o["winner"] == p:
            tags.append("won")
        size = 9 if o["phase"] == "discard" and o["to_move"] == p else 8
        if reveal is not None:
            hand, hidden = reveal["hands"][p], 0
        elif p == o["seat"]:
            hand, hidden = o["hand"], 0
        else:
            hand, hidden = held[p], size - len(held[p])
        rows = [["hand", hand, hidden, "hand"]]
        drawn = reveal["drawn"] if reveal is not None and o["to_move"] == p else (
            o["drawn"] if p == o["seat"] else None)
        if drawn:
            rows.append(["just drawn", [drawn], 0, "drawn"])
        if o["winner"] == p and o["winning_hand"]:
            rows.append(["winning hand", o["winning_hand"], 0, "winning"])
        zones.append({"title": _seat_title(p, names), "tags": tags,
                      "rows": rows})
    stock = reveal["stock"] if reveal is not None else []
    zones.append({"title": "table", "tags": [], "rows": [
        ["pile (top last)", o["pile"], 0, "pile"],
        ["stock", stock, 0 if reveal else o["stock"], "stock"]]})
    facts = [["phase", o["phase"]], ["to move", _seat(o["to_move"], names)],
             ["stock", str(o["stock"])],
             ["draws", ", ".join(f"seat {p}: {n}" for p, n in enumerate(o["draws"]))],
             ["takes", str(len(o["takes"]))]]
    return zones, facts


_BUILDERS = {"vandtia": _vandtia, "tractor": _tractor, "cherki": _cherki}


def frames_for_row(registry, match_row, season_row, seats) -> dict:
    """The frames of a stored match (``db.get_match``'s rows), with its stored result,
    faults and log tails."""
    import json

    from ..leagues.league import match_deal

    names = [s.bot for s in seats]
    result = {"reason": match_row.reason, "moves": match_row.moves,
              "ranks": [s.rank for s in seats], "scores": [s.score for s in seats],
              "faults": [s.fault for s in seats], "logs": [s.log for s in seats]}
    game = registry.game(season_row.game)
    if match_row.reason == "suspended":
        return {"game": game.name, "variant": season_row.variant, "names": names,
                "views": [], "frames": [], "result": result}
    return match_frames(game, season_row.variant, match_row.seed,
                        json.loads(match_row.replay), names, result,
                        match_deal(season_row, match_row.fixture))
