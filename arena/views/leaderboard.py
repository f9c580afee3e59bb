"""Leaderboards and season reports: rich tables for people, JSON and CSV for scripts.

Exports hold no timestamps or durations, so identical seasons give identical bytes.
"""

from __future__ import annotations

import csv
import io
import json
import math

from rich.table import Table

from ..leagues import stats
from ..leagues.match import best_places, luck_gap

FIELDS = ["rank", "bot", "mu", "sigma", "mu_low", "mu_high", "above_next", "score", "games",
          "wins", "draws", "losses", "win_rate", "mean_score", "total_score", "faults",
          "suspended", "deleted", "remote"]
SEPARATED = 0.95  # how sure a leaderboard must be that a bot is above the next one


def above(a, b) -> float:
    """The probability that ``a``'s skill exceeds ``b``'s: TrueSkill's posteriors are
    normal, so their difference is normal with mean μa − μb and variance σa² + σb²."""
    return stats.phi((a.mu - b.mu) / math.hypot(a.sigma, b.sigma))


def rows(standings) -> list[dict]:
    """Each bot's figures; ``mu_low``-``mu_high`` is μ ± 1.96σ, the 95 % interval of its
    skill, and ``above_next`` the probability that it is stronger than the next bot down."""
    standings = list(standings)
    return [{"rank": i, "bot": s.bot, "mu": round(s.mu, 6), "sigma": round(s.sigma, 6),
             "mu_low": round(s.mu - stats.Z975 * s.sigma, 6),
             "mu_high": round(s.mu + stats.Z975 * s.sigma, 6),
             "above_next": (round(above(s, standings[i]), 6) if i < len(standings) else None),
             "score": round(s.score, 6), "games": s.games, "wins": s.wins, "draws": s.draws,
             "losses": s.losses, "win_rate": round(s.win_rate, 6),
             "mean_score": round(s.mean_score, 6), "total_score": round(s.total_score, 6),
             "faults": s.faults,
             "suspended": s.suspended, "deleted": s.deleted, "remote": s.remote}
            for i, s in enumerate(standings, 1)]


def to_json(standings) -> str:
    return json.dumps(rows(standings), indent=2)


def to_csv(standings) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(standings))
    return out.getvalue()


def grid(*columns: str, title: str = "", names=(), keep=(), right=(), wrap=(),
         boxed: bool = False) -> Table:
    """A table for any terminal width (:class:`arena.views.grid.Grid`): the ``names``
    columns and every figure are printed whole, ``wrap`` columns wrap between words, and
    too narrow a terminal leaves columns out from the right (``keep`` never)."""
    from .grid import Grid

    return Grid(*columns, title=title, names=names, keep=keep, right=right, wrap=wrap,
                boxed=boxed)


def table(standings, title: str = "") -> Table:
    """The leaderboard: ``μ−3σ`` is the conservative rating it is sorted by (``score`` in
    the JSON and CSV exports), not to be confused with the mean score per game; ``μ ±``
    gives the 95 % interval of a skill (±1.96σ), and ``> next`` how likely a bot is to be
    stronger than the one below it: under 95 % (marked ``≈``) the two are not separated."""
    figures = ("#", "μ ± 1.96σ", "μ−3σ", "> next", "games", "W/D/L", "win %", "mean score",
               "faults")
    t = grid("#", "bot", *figures[1:], title=title, names=("bot",), keep=("#",),
             right=figures)
    for r in rows(standings):
        bot = r["bot"] + "".join(f" ({mark})" for mark in ("suspended", "deleted", "remote")
                                 if r[mark])
        p = r["above_next"]
        nxt = "" if p is None else ("" if p >= SEPARATED else "≈ ") + f"{100 * p:.0f} %"
        t.add_row(str(r["rank"]), bot, f"{r['mu']:.1f} ± {stats.Z975 * r['sigma']:.1f}",
                  f"{r['score']:.2f}", nxt, str(r["games"]),
                  f"{r['wins']}/{r['draws']}/{r['losses']}", f"{100 * r['win_rate']:.1f}",
                  f"{r['mean_score']:+.2f}", str(r["faults"]))
    return t


def pairwise(results, bots: list[str]) -> dict[tuple[str, str], stats.Estimate]:
    """Score, Elo with its 95 % interval and LOS of each bot against each other, on the
    deals both played: a deal's score for ``a`` against ``b`` is the mean, over that deal's
    matches (its seatings), of 1 when ``a`` placed better than ``b``, ½ when equal, 0 when
    worse; the deals are the pairs of ``arena.leagues.stats``. ``results``: ``db.season_results``
    rows ``(fixture, seed, seats, ranks, scores, faults[, luck])``; a bot holding several
    seats counts with its best. Where every match holds its seats' luck (a season run with
    ``--adjust luck``), each game's score is luck-adjusted as ``arena match`` adjusts it
    (``arena.leagues.match.luck_gap``), and the estimates are of the adjusted deals."""
    order = {bot: i for i, bot in enumerate(bots)}
    deals: dict[tuple[str, str], dict[int, list[float]]] = {}
    for _, seed, seats, ranks, _, _, *luck in results:
        luck = luck[0] if luck else None
        best = best_places(seats, ranks)
        for a, ra in best.items():
            for b, rb in best.items():
                if (order.get(a, len(order)), a) < (order.get(b, len(order)), b):
                    score = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                    if luck is not None:
                        score = round(score - luck_gap(seats, luck, a, b), 9)
                    deals.setdefault((a, b), {}).setdefault(seed, []).append(score)
    out = {}
    for (a, b), by_deal in deals.items():
        table: dict[float, int] = {}
        for scores in by_deal.values():
            s = sum(scores) / len(scores)
            table[s] = table.get(s, 0) + 1
        out[a, b] = stats.estimate(table)
    return {k: out[k] for k in sorted(out, key=lambda k: (order.get(k[0], len(order)),
                                                            order.get(k[1], len(order)), k))}


def pairwise_table(estimates: dict[tuple[str, str], stats.Estimate],
                   adjusted: bool = False) -> Table | None:
    if not estimates:
        return None
    t = grid("pair", "deals", "score", "Elo (95 %)", "LOS",
             title="pairs of bots at one table (first vs second, by place, over the deals "
             "where both sat at the same table" + ("; luck-adjusted)" if adjusted else ")"),
             names=("pair",), right=("deals", "score", "Elo (95 %)", "LOS"))
    for (a, b), e in estimates.items():
        t.add_row(f"{a} vs {b}", f"{e.pairs:.0f}",
                  f"{100 * e.score:.1f} ± {100 * stats.Z975 * (e.variance / e.pairs) ** .5:.1f}"
                  if e.pairs else "-",
                  _elo_text(e), f"{100 * e.los:.1f} %")
    return t


def _elo_text(e: stats.Estimate) -> str:
    """The Elo difference and its interval, which is not symmetric far from a score of ½."""
    from .verdict import signed

    return f"{signed(e.elo, 0)} [{signed(e.elo_low, 0)}, {signed(e.elo_high, 0)}]"


def wins_draws_losses(results, bots: list[str]) -> dict[tuple[str, str], list[int]]:
    """Pairwise results: row bot's wins, draws and losses against the column bot, counted
    once per match where both played (better rank wins, equal rank draws; a bot holding
    several seats, as in a team game, counts with its best)."""
    wdl = {(a, b): [0, 0, 0] for a in bots for b in bots if a != b}
    for seats, ranks, _, _ in results:
        best = best_places(seats, ranks)
        for a, ra in best.items():
            for b, rb in best.items():
                if a != b and (a, b) in wdl:
                    wdl[a, b][0 if ra < rb else 1 if ra == rb else 2] += 1
    return wdl


def crosstable(results, bots: list[str]) -> Table:
    """The crosstable: :func:`wins_draws_losses` as W-D-L, row against column; the columns
    are numbered as the rows are (a bot's name is printed once, whole)."""
    wdl = wins_draws_losses(results, bots)
    numbers = [str(i) for i in range(1, len(bots) + 1)]
    t = grid("bot", *numbers, title="crosstable (row vs column: W-D-L)", names=("bot",),
             right=numbers)
    for i, a in enumerate(bots, 1):
        t.add_row(f"{i} {a}", *("·" if a == b else "-".join(map(str, wdl[a, b])) for b in bots))
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
    t = grid("bot", "fault", "matches", "first match", title="faults", names=("bot",),
             right=("matches", "first match"))
    for (bot, kind), (n, first) in sorted(counts.items()):
        t.add_row(bot, kind, str(n), str(first))
    return t


def move_times_table(times: dict[str, tuple[float, float, int]]) -> Table | None:
    """Wall time per move asked, per bot (``db.move_times``): the mean of its matches'
    means and its longest move."""
    if not times:
        return None
    t = grid("bot", "mean ms", "max ms", "matches", title="time per move", names=("bot",),
             right=("mean ms", "max ms", "matches"))
    for bot, (mean, top, n) in sorted(times.items()):
        t.add_row(bot, f"{1000 * mean:.2f}", f"{1000 * top:.2f}", str(n))
    return t


def matches_table(matches) -> Table:
    """One row per stored match: ``(match id, fixture, seats, ranks, reason, faults)``."""
    t = grid("match", "fixture", "seats", "ranks", "end", "faults", title="matches",
             names=("match",), wrap=("seats", "faults"), right=("match", "fixture"))
    for match_id, fixture, seats, ranks, reason, faults in matches:
        shown = "; ".join(f"seat {i}: {f}" for i, f in enumerate(faults) if f)
        t.add_row(str(match_id), str(fixture), ", ".join(seats),
                  " ".join(map(str, ranks)), reason, shown)
    return t
