"""What an author sees of their own in a league (``arena serve --league``'s ``mine.html``,
``arena replay ID --logs``): their uploads and how each check went, their bots and versions,
each version's ladder placements and how far they have got, their ratings on each ladder,
and their bots' matches with what the bots wrote in them (stdout and stderr, the end of it,
``arena.sandbox.process.LOG_TAIL`` characters a seat a match).

A bot is an account's when its name is (``arena.leagues.store``: a name belongs to the
account that first submitted it). What a bot wrote is shown to its own author only:
:func:`visible_logs` is the one rule every page and command that shows a match applies.
"""

from __future__ import annotations

import json

from sqlmodel import Session, select

from .. import db
from ..errors import ArenaError
from . import uploads


def names(engine, account: str) -> set[str]:
    """The bot names that are ``account``'s."""
    with Session(engine) as session:
        return set(session.exec(select(db.OwnerRow.name)
                                .where(db.OwnerRow.author == account)).all())


def owner_of(bot: str, mine: set[str]) -> bool:
    """Whether ``bot`` (``NAME`` or ``NAME@VERSION``, as seats are stored) is one of
    ``mine``."""
    return bot.partition("@")[0] in mine


def visible_logs(seats, mine: set[str] | None) -> list[str | None]:
    """Each seat's log as a viewer may see it: ``mine`` the viewer's bot names, or None for
    whoever runs the league (its own report, ``arena replay --logs`` on its database), who
    sees every log; another person sees none of another author's bots' output."""
    return [s.log if mine is None or owner_of(s.bot, mine) else None for s in seats]


def overview(engine, registry, account: str, recent: int = 30, live: bool = False) -> dict:
    """Everything ``mine.html`` shows, as plain data (its live part is polled as JSON):
    each version's placements with their progress and the version's rating on that ladder
    (``mu``, ``sigma``, its place among the ladder's entrants) - a bot's versions in order are
    its ratings over time. ``live``: what moves alone (uploads, placements), without
    ratings and matches, for a page that polls."""
    mine = names(engine, account)
    seasons = {row.name: (row, stored) for row, stored in db.list_seasons(engine, "ladder/%")
               if row.name.startswith("ladder/")}
    rated = {} if live else _ratings(engine, registry, {
        key.rpartition("/")[0] for key in seasons if owner_of(key.rpartition("/")[2], mine)})
    bots = []
    for name in sorted(mine):
        with Session(engine) as session:
            versions = session.exec(select(db.SubmissionRow).where(
                db.SubmissionRow.name == name).order_by(db.SubmissionRow.version)).all()
        shown = []
        for v in versions:
            entrant = f"{name}@{v.version}"
            placements = [{"season": row.id, "ladder": key.rpartition("/")[0],
                           "stored": stored, "fixtures": row.fixtures, "status": row.status,
                           "rating": rated.get((key.rpartition("/")[0], entrant))}
                          for key, (row, stored) in seasons.items()
                          if key.endswith("/" + entrant)]
            shown.append({"bot": entrant, "version": v.version, "games": json.loads(v.games),
                          "submitted": v.submitted_at.isoformat(timespec="seconds"),
                          "withdrawn": v.withdrawn, "placements": placements})
        bots.append({"name": name, "versions": shown})
    return {"account": account,
            "uploads": [upload_json(u) for u in uploads.of_account(engine, account)],
            "bots": bots, "matches": [] if live else matches(engine, mine, recent)}


def _ratings(engine, registry, prefixes) -> dict:
    """``(ladder, entrant) -> {mu, sigma, place, of}`` on each ladder named (``ladder/GAME/
    VARIANT/Np``) as it stands: its placements rated in order (``arena.leagues.ladder``)."""
    from .ladder import Ladder, standings

    out = {}
    for prefix in sorted(prefixes):
        _, game, variant, players = prefix.split("/")
        try:
            rows = standings(engine, registry, Ladder(game, variant, int(players[:-1])))
        except ArenaError:  # a game no longer installed: no ratings shown
            continue
        for place, s in enumerate(rows, 1):
            out[(prefix, s.bot)] = {"mu": round(s.mu, 2), "sigma": round(s.sigma, 2),
                                    "place": place, "of": len(rows)}
    return out


def upload_json(row: db.UploadRow) -> dict:
    return {"id": row.id, "filename": row.filename, "size": row.size, "status": row.status,
            "message": row.message, "bot": row.bot,
            "sent": row.created_at.isoformat(timespec="seconds")}


def matches(engine, mine: set[str], limit: int = 30) -> list[dict]:
    """The latest matches of ``mine`` bots, newest first: each seat of theirs with its place,
    fault and log."""
    if not mine:
        return []
    with Session(engine) as session:
        query = (select(db.SeatRow, db.MatchRow.season_id, db.SeasonRow.name)
                 .join(db.MatchRow, db.SeatRow.match_id == db.MatchRow.id)
                 .join(db.SeasonRow, db.MatchRow.season_id == db.SeasonRow.id)
                 .where(db.SeatRow.bot.in_(_entrants(session, mine)))
                 .order_by(db.SeatRow.match_id.desc(), db.SeatRow.seat).limit(limit))
        return [{"match": seat.match_id, "season": name, "seat": seat.seat, "bot": seat.bot,
                 "rank": seat.rank, "score": seat.score, "fault": seat.fault, "log": seat.log}
                for seat, _, name in session.exec(query)]


def _entrants(session, mine: set[str]) -> list[str]:
    """Every name a seat of ``mine`` bots is stored under: ``NAME`` and each ``NAME@V``."""
    rows = session.exec(select(db.SubmissionRow.name, db.SubmissionRow.version)
                        .where(db.SubmissionRow.name.in_(sorted(mine)))).all()
    return sorted(mine) + [f"{n}@{v}" for n, v in rows]
