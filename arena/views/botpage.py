"""A bot's own page (``bot-NAME.html``, in the report and in ``arena serve``): one bot
across every season, version and match stored - its rating season after season, its A/B
verdicts, its faults and what reviews made of its decisions, and, for a submitted bot, its
versions one after another.

A bot is its name without a version or options: ``mybot`` gathers ``mybot@1``,
``mybot@2`` and ``mybot@2:depth=3``; ``ismcts`` gathers every ``ismcts:iterations=...``.
"""

from __future__ import annotations

import json
import re

from sqlalchemy import select

from .. import db
from ..errors import ArenaError
from ..plugins import parse_entrant

#: What a bot's page is named by: the name a bot registers (letters, digits, ``-_.``).
PAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def base_of(entrant: str) -> str:
    """``mybot@2:depth=3`` -> ``mybot``."""
    return parse_entrant(entrant)[0].partition("@")[0]


def page_of(entrant: str) -> str:
    """The file name of an entrant's bot page."""
    return f"bot-{base_of(entrant)}.html"


def bot_context(engine, registry, name: str) -> dict:
    """What ``bot.html`` shows of bot ``name``; ArenaError (404) when nothing of it is
    stored."""
    from ..leagues import league, review, store
    from ..leagues.match import current_verdict
    from .leaderboard import rows as leaderboard_rows

    if not PAGE_NAME.fullmatch(name or ""):
        raise ArenaError(f"not a bot's name: {name[:60]!r}")
    base = base_of(name)
    versions = store.versions(engine, base)
    played = db.matches_played(engine)
    seasons, matches = [], []
    for row, stored in db.list_seasons(engine):
        mine = [b for b in json.loads(row.bots) if base_of(b) == base]
        if not mine:
            continue
        defn = league.definition(row)
        if defn.kind == "match":
            v = current_verdict(engine, row, defn)
            candidate, baseline = defn.bots[:2]
            matches.append({"name": row.name, "page": f"season-{row.id}.html",
                            "role": "candidate" if base_of(candidate) == base else "baseline",
                            "entrant": candidate if base_of(candidate) == base else baseline,
                            "against": baseline if base_of(candidate) == base else candidate,
                            "game": f"{row.game} {row.variant}", "pairs": v["pairs"],
                            "score": v["score"], "elo": v["elo"], "elo_low": v["elo_low"],
                            "elo_high": v["elo_high"], "decision": (v.get("sprt") or {}).get(
                                "decision"), "status": row.status})
            continue
        try:
            standings = league.standings(engine, registry, row.game, row.variant,
                                         row.players, row.name)
        except ArenaError:  # a game no longer installed: its seasons are not rated here
            continue
        for r in leaderboard_rows(standings):
            if base_of(r["bot"]) == base:
                seasons.append({"name": row.name, "page": f"season-{row.id}.html",
                                "game": f"{row.game} {row.variant} {row.players}p",
                                "of": len(standings), "stored": stored,
                                "fixtures": row.fixtures, "status": row.status, **r})
    entrants = {s["bot"] for s in seasons} | {m["entrant"] for m in matches} | {
        f"{base}@{v.version}" for v in versions} | {base}
    if not seasons and not matches and not versions:
        raise ArenaError(f"nothing is stored of a bot named {base!r}")
    return {"name": base, "versions": [
                {"bot": f"{base}@{v.version}", "author": v.author,
                 "submitted": v.submitted_at.strftime("%Y-%m-%d %H:%M"),
                 "games": json.loads(v.games), "matches": played.get(f"{base}@{v.version}", 0),
                 "withdrawn": v.withdrawn, "content": v.content[:12],
                 "ratings": [s for s in seasons if s["bot"] == f"{base}@{v.version}"],
                 "against": [m for m in matches if m["entrant"] == f"{base}@{v.version}"
                             and base_of(m["against"]) == base]}
                for v in versions],
            "seasons": seasons, "matches": matches,
            "faults": _faults(engine, entrants),
            "reviews": _reviews(engine, entrants, review)}


def _faults(engine, entrants: set[str]) -> list[dict]:
    """Its faults by kind: how many, and the first match of each."""
    with engine.connect() as conn:
        rows = conn.execute(select(db.SeatRow.fault, db.SeatRow.match_id)
                            .where(db.SeatRow.bot.in_(entrants),
                                   db.SeatRow.fault.is_not(None))
                            .order_by(db.SeatRow.match_id)).all()
    kinds: dict[str, dict] = {}
    for fault, match_id in rows:
        kind = fault.split(":")[0]
        entry = kinds.setdefault(kind, {"kind": kind, "count": 0, "first": match_id,
                                        "reason": fault})
        entry["count"] += 1
    return sorted(kinds.values(), key=lambda k: -k["count"])


def _reviews(engine, entrants: set[str], review) -> dict | None:
    """What the stored reviews made of its decisions: matches and decisions reviewed, the
    mean loss, the share of best-or-good and each class's count."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(db.ReviewRow.match_id, db.ReviewRow.data, db.SeasonRow.game)
            .join(db.SeatRow, (db.SeatRow.match_id == db.ReviewRow.match_id)
                  & (db.SeatRow.seat == db.ReviewRow.seat))
            .join(db.MatchRow, db.MatchRow.id == db.ReviewRow.match_id)
            .join(db.SeasonRow, db.SeasonRow.id == db.MatchRow.season_id)
            .where(db.SeatRow.bot.in_(entrants))).all()
    if not rows:
        return None
    judged = [review.judged(game, json.loads(data)) for _, data, game in rows]
    classes = {c: sum(d["class"] == c for d in judged) for c in review.CLASSES}
    return {"matches": len({match for match, _, _ in rows}), "decisions": len(judged),
            "mean_loss": sum(d["loss"] for d in judged) / len(judged),
            "accuracy": (classes["best"] + classes["good"]) / len(judged), "classes": classes}
