"""Leaderboards and season reports: rich tables for people, JSON and CSV for scripts.

Exports hold no timestamps or durations, so identical seasons give identical bytes.
"""

from __future__ import annotations

import csv
import io
import json

from rich import box
from rich.table import Table

FIELDS = ["rank", "bot", "mu", "sigma", "score", "games", "wins", "draws", "losses",
          "win_rate", "mean_score", "total_score", "faults", "suspended"]


def rows(standings) -> list[dict]:
    return [{"rank": i, "bot": s.bot, "mu": round(s.mu, 6), "sigma": round(s.sigma, 6),
             "score": round(s.score, 6), "games": s.games, "wins": s.wins, "draws": s.draws,
             "losses": s.losses, "win_rate": round(s.win_rate, 6),
             "mean_score": round(s.mean_score, 6), "total_score": round(s.total_score, 6),
             "faults": s.faults,
             "suspended": s.suspended}
            for i, s in enumerate(standings, 1)]


def to_json(standings) -> str:
    return json.dumps(rows(standings), indent=2)


def to_csv(standings) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(standings))
    return out.getvalue()


def grid(*columns: str, title: str = "", wrap: tuple[str, ...] = (), right=()) -> Table:
    """A table that fits an 80-column terminal: no outer edge, and only the ``wrap``
    columns (names, lists) may wrap; figures and short words are never cut."""
    t = Table(title=title or None, title_justify="left", box=box.SIMPLE_HEAD,
              show_edge=False, pad_edge=False, collapse_padding=True)
    for col in columns:
        t.add_column(col, justify="right" if col in right else "left",
                     no_wrap=col not in wrap, overflow="fold")
    return t


def table(standings, title: str = "") -> Table:
    """The leaderboard: ``μ−3σ`` is the conservative rating it is sorted by (``score`` in
    the JSON and CSV exports), not to be confused with the mean score per game."""
    figures = ("#", "μ", "σ", "μ−3σ", "games", "W/D/L", "win %", "mean score", "faults")
    t = grid("#", "bot", "μ", "σ", "μ−3σ", "games", "W/D/L", "win %", "mean score", "faults",
             title=title, wrap=("bot",), right=figures)
    for r in rows(standings):
        bot = r["bot"] + (" (suspended)" if r["suspended"] else "")
        t.add_row(str(r["rank"]), bot, f"{r['mu']:.2f}", f"{r['sigma']:.2f}",
                  f"{r['score']:.2f}", str(r["games"]),
                  f"{r['wins']}/{r['draws']}/{r['losses']}", f"{100 * r['win_rate']:.1f}",
                  f"{r['mean_score']:+.2f}", str(r["faults"]))
    return t


def crosstable(results, bots: list[str]) -> Table:
    """Pairwise results: row bot's wins-draws-losses against the column bot, counted once
    per match where both played (better rank wins, equal rank draws; a bot holding several
    seats, as in a team game, counts with its best)."""
    wdl = {(a, b): [0, 0, 0] for a in bots for b in bots if a != b}
    for seats, ranks, _, _ in results:
        best: dict[str, int] = {}
        for bot, rank in zip(seats, ranks, strict=True):
            best[bot] = min(rank, best.get(bot, rank))
        for a, ra in best.items():
            for b, rb in best.items():
                if a != b and (a, b) in wdl:
                    wdl[a, b][0 if ra < rb else 1 if ra == rb else 2] += 1
    t = grid("", *bots, title="crosstable (row vs column: W-D-L)", wrap=("", *bots),
             right=bots)
    for a in bots:
        t.add_row(a, *("·" if a == b else "-".join(map(str, wdl[a, b])) for b in bots))
    return t


def faults_table(matches) -> Table | None:
    """Faults per bot and kind, with the first match of each (``arena replay ID`` shows its
    reason and log). ``matches``: ``(match id, seats, faults)`` in fixture order."""
    counts: dict[tuple[str, str], list] = {}
    for match_id, seats, faults in matches:
        for bot, fault in zip(seats, faults, strict=True):
            if fault:
                entry = counts.setdefault((bot, fault.split(":")[0]), [0, match_id])
                entry[0] += 1
    if not counts:
        return None
    t = grid("bot", "fault", "matches", "first match", title="faults", wrap=("bot",),
             right=("matches", "first match"))
    for (bot, kind), (n, first) in sorted(counts.items()):
        t.add_row(bot, kind, str(n), str(first))
    return t


def move_times_table(times: dict[str, tuple[float, float, int]]) -> Table | None:
    """Wall time per move asked, per bot (``db.move_times``): the mean of its matches'
    means and its longest move."""
    if not times:
        return None
    t = grid("bot", "mean ms", "max ms", "matches", title="time per move", wrap=("bot",),
             right=("mean ms", "max ms", "matches"))
    for bot, (mean, top, n) in sorted(times.items()):
        t.add_row(bot, f"{1000 * mean:.2f}", f"{1000 * top:.2f}", str(n))
    return t


def matches_table(matches) -> Table:
    """One row per stored match: ``(match id, fixture, seats, ranks, reason, faults)``."""
    t = grid("match", "fixture", "seats", "ranks", "end", "faults", title="matches",
             wrap=("seats", "faults"), right=("match", "fixture"))
    for match_id, fixture, seats, ranks, reason, faults in matches:
        shown = "; ".join(f"seat {i}: {f}" for i, f in enumerate(faults) if f)
        t.add_row(str(match_id), str(fixture), ", ".join(seats),
                  " ".join(map(str, ranks)), reason, shown)
    return t
