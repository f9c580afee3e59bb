"""Readable transcripts and result tables of a match, with rich.

A transcript is rendered from the events a state records when built with ``record=True``
(the CLI replays the stored actions to get them). Hidden cards - hands, face-down cards and
stock draws - appear only when ``omniscient``; everything a spectator sees appears always.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..cards import SUIT_SYMBOLS


def card_text(name: str) -> str:
    return name[:-1] + SUIT_SYMBOLS.get(name[-1], name[-1])


def cards_text(names) -> str:
    return " ".join(card_text(n) for n in names) if names else "-"


def _effects(ev: dict, omniscient: bool) -> str:
    parts = []
    if "tried" in ev:
        parts.append(f"drew {card_text(ev['tried'])} and tried it")
    if "flipped" in ev:
        parts.append(f"turned {card_text(ev['flipped'])}")
    if ev.get("burn") == "10":
        parts.append("burns the pile (10)")
    elif ev.get("burn") == "four":
        parts.append("burns the pile (four of a kind)")
    if "picked_up" in ev:
        parts.append(f"picks up {len(ev['picked_up'])}: {cards_text(ev['picked_up'])}")
    if omniscient and ev.get("drew"):
        parts.append(f"refills {cards_text(ev['drew'])}")
    if ev.get("out"):
        parts.append(f"OUT (place {ev['out']})")
    return "; ".join(parts)


def render_transcript(match, events: list, omniscient: bool = False,
                      viewer: int | None = None) -> Group:
    """The match as rich renderables: header, deal, one row per action, result.

    ``viewer``: show that seat's own hidden cards (its hand and draws), as it saw the game.
    """
    names = match.players
    parts = [Text(f"{match.game} · {match.variant} · seed {match.seed} · "
                  + ", ".join(f"seat {i}: {n}" for i, n in enumerate(names)), style="bold")]
    return Group(*parts, *render_events(match.game, events, names, omniscient, viewer),
                 render_result(match))


def render_events(game: str, events: list, names: list[str], omniscient: bool = False,
                  viewer: int | None = None) -> list:
    """Rich renderables for ``events`` - all of a match's, or the ones since some point
    (what a person playing seat ``viewer`` has not seen yet) - as ``render_transcript``
    shows them."""
    if game == "tractor":
        return _tractor(events, names, omniscient, viewer)
    if game == "cherki":
        return _cherki(events, names, omniscient, viewer)
    return _vandtia(events, names, omniscient, viewer)


def _vandtia(events: list, names: list[str], omniscient: bool, viewer: int | None) -> list:
    parts: list = []
    moves = _rows(_label(events))
    for ev in events:
        if ev["stage"] == "deal":
            parts.append(_deal_table(ev, names, omniscient, viewer))
            continue
        if ev["stage"] == "swap":
            moves.add_row(_number(ev), f"{ev['seat']} {names[ev['seat']]}", "set-up",
                          "face-up " + cards_text(ev["faceup"]), "")
            continue
        action = ev["action"]
        shown = cards_text(ev["cards"]) if "cards" in ev and not action.startswith(
            ("draw", "flip")) else action.split()[0]
        moves.add_row(_number(ev), f"{ev['seat']} {names[ev['seat']]}", ev["stage"],
                      shown, _effects(ev, omniscient or ev["seat"] == viewer))
    if moves.row_count or not parts:  # not an empty table under the deal
        parts.append(moves)
    return parts


def _number(ev: dict) -> str:
    """The first column of a row: the step of the action (a replay's events carry it: the
    N-th action of the match is step N, as review and the viewer number it), else - a
    match being played - the game's own move count."""
    if "step" in ev:
        return str(ev["step"])
    return "" if ev.get("move") is None else str(ev["move"])


def _label(events: list) -> str:
    return "step" if any("step" in ev for ev in events) else "move"


def _rows(label: str = "move") -> Table:
    rows = Table(box=None, pad_edge=False, show_edge=False)
    for col in (label, "seat", "stage", "cards", "what happens"):
        rows.add_column(col, justify="right" if col == label else "left")
    return rows


def _deal_table(ev: dict, names: list[str], omniscient: bool, viewer: int | None) -> Table:
    table = Table(title=f"deal (dealer: seat {ev['dealer']}, stock {ev['stock']})",
                  title_justify="left", box=None, show_edge=False)
    table.add_column("seat")
    table.add_column("face-up")
    table.add_column("hand")
    table.add_column("face-down")
    for p, name in enumerate(names):
        sees = omniscient or p == viewer
        hand = cards_text(ev["hands"][p]) if sees else f"{len(ev['hands'][p])} hidden"
        down = ev["facedown"][p]
        facedown = (" ".join(card_text(c) if c else "·" for c in down) if omniscient
                    else f"{sum(c is not None for c in down)} hidden")
        table.add_row(f"{p} {name}", cards_text(ev["faceup"][p]), hand, facedown)
    return table


def _tractor(events: list, names: list[str], omniscient: bool, viewer: int | None) -> list:
    """Tractor: per deal its hands (hidden unless allowed), bidding, trump and kitty, the
    bury, every trick with its winner and points, and the deal's result and levels."""
    parts: list = []
    rows = None
    teams = ("team 0 (seats 0+2)", "team 1 (seats 1+3)")
    for ev in events:
        stage, seat = ev["stage"], ev.get("seat")
        who = f"{seat} {names[seat]}" if seat is not None else ""
        if stage == "deal":
            if rows is not None:
                parts.append(rows)
            levels = ev["levels"]
            parts.append(Text(f"deal {ev['deal']}: level rank {ev['level_rank']}, levels "
                              f"{levels[0]}/{levels[1]}, bidding starts at seat "
                              f"{ev['bidding_start']}", style="bold"))
            hands = Table(box=None, show_edge=False)
            hands.add_column("seat")
            hands.add_column("hand")
            for p, name in enumerate(names):
                sees = omniscient or p == viewer
                hands.add_row(f"{p} {name}", cards_text(ev["hands"][p]) if sees
                              else f"{len(ev['hands'][p])} hidden")
            hands.add_row("kitty", cards_text(ev["kitty"]) if omniscient else "8 hidden")
            parts.append(hands)
            rows = _rows(_label(events))
            continue
        if rows is None:  # events from the middle of a deal
            rows = _rows(_label(events))
        if stage == "bid":
            rows.add_row(_number(ev), who, "bid", cards_text(ev.get("cards", [])),
                         "declares" if ev["action"] == "declare" else "passes")
        elif stage == "trump":
            sees = omniscient or viewer == ev["dealer"] or ev["kitty_public"]
            what = (f"kitty turned up: {cards_text(ev['kitty'])}; " if ev["kitty_public"]
                    else f"takes the kitty: {cards_text(ev['kitty']) if sees else '8 cards'}; ")
            trump = "no trump" if ev["trump"] == "none" else SUIT_SYMBOLS[ev["trump"]]
            rows.add_row("", who, "trump", trump,
                         what + f"seat {ev['dealer']} deals, level rank {ev['level_rank']}")
        elif stage == "bury":
            sees = omniscient or viewer == seat
            rows.add_row(_number(ev), who, "bury",
                         cards_text(ev["cards"]) if sees else "8 cards", "")
        elif stage == "play":
            what = ""
            if "winner" in ev:
                w = ev["winner"]
                what = f"seat {w} ({names[w]}) wins the trick, {ev['points']} points"
                if ev.get("kitty_bonus"):
                    what += f"; last trick: kitty {ev['kitty_bonus']} points to the attackers"
            rows.add_row(_number(ev), who, "play", cards_text(ev["cards"]), what)
        elif stage == "score":
            up = (f"{teams[ev['team']]} +{ev['up']}" if ev["up"]
                  else f"{teams[ev['team']]} takes control")
            rows.add_row("", "", "result", cards_text(ev["buried"]),
                         f"buried cards shown; attackers {ev['points']} points; {up}; "
                         f"levels {ev['levels'][0]}/{ev['levels'][1]}")
    if rows is not None:
        parts.append(rows)
    return parts


def _cherki(events: list, names: list[str], omniscient: bool, viewer: int | None) -> list:
    """Cherki: the hands (hidden unless allowed), each turn's draw or take and discard,
    calls, and the winning hand. A drawn card and a call's pair are private: shown only to
    that seat (and with ``omniscient``)."""
    parts: list = []
    rows = Table(box=None, pad_edge=False, show_edge=False)
    label = _label(events)
    for col in (label, "seat", "does", "card", "what happens"):
        rows.add_column(col, justify="right" if col == label else "left")
    for ev in events:
        stage, seat = ev["stage"], ev.get("seat")
        who = f"{seat} {names[seat]}" if seat is not None else ""
        if stage == "deal":
            parts.append(Text(f"deal (dealer: seat {ev['dealer']})", style="bold"))
            hands = Table(box=None, show_edge=False)
            hands.add_column("seat")
            hands.add_column("hand")
            for p, name in enumerate(names):
                sees = omniscient or p == viewer
                hands.add_row(f"{p} {name}", " ".join(ev["hands"][p]) if sees else "8 hidden")
            parts.append(hands)
        elif stage == "call":  # the pair is the caller's secret
            sees = omniscient or viewer == seat
            rows.add_row(_number(ev), who, "calls", "",
                         f"Cherki, waiting for a {ev['pair']}" if sees else "Cherki")
        elif stage in ("draw", "take"):
            sees = stage == "take" or omniscient or viewer == seat
            rows.add_row(_number(ev), who, stage + "s", ev["card"] if sees else "?", "")
        elif stage == "discard":
            call = "" if "call" not in ev else (
                f"calls Cherki, waiting for a {ev['call']}" if omniscient or viewer == seat
                else "calls Cherki")
            rows.add_row(_number(ev), who, "discards", ev["card"], call)
        elif stage == "end":
            what = {"win": f"wins with {' '.join(ev.get('hand', []))}",
                    "stock": "the stock is out: a drawn deal",
                    "cap": "the move cap: a drawn deal"}[ev["reason"]]
            rows.add_row("", who, "", "", what + "; settlement " + " ".join(
                f"{x:+d}" for x in ev["scores"]))
    parts.append(rows)
    return parts


def render_result(match) -> Table:
    r = match.result
    table = Table(title=f"result: {r.reason} after {r.moves} moves", title_justify="left")
    for col in ("seat", "bot", "rank", "score", "fault"):
        table.add_column(col)
    faults = r.faults or [None] * len(r.ranks)
    for seat, name in enumerate(match.players):
        table.add_row(str(seat), name, str(r.ranks[seat]), str(r.scores[seat]),
                      faults[seat] or "")
    return table


def print_renderable(renderable, stderr: bool = False) -> None:
    Console(stderr=stderr, highlight=False, soft_wrap=False).print(renderable)


def say(text: str, stderr: bool = False) -> None:
    """A line of prose, wrapped to the terminal between words (a name is never broken)."""
    print_renderable(Text(text), stderr)
