"""The HTML report: an index of leagues, a page per season and replay pages of matches.

Pages are Jinja2 templates (``templates/``); the rating chart is drawn by uPlot (MIT,
bundled in ``static/``: about 50 kB, canvas, fast with thousands of points and bands for
±σ), and the replay viewer is ``static/replay.js``, which draws the frames of
:mod:`arena.views.frames` and knows no rule. Everything a page needs is in the folder
written, so the report opens from disk (``file://``) with no network and no server, and
the folder can be copied anywhere.

A season of many matches makes match pages only for the matches asked for
(:data:`MATCHES`): by default the faulty ones and the first match of every pair of bots;
``arena report --match ID`` makes any other one.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .. import db
from ..cards import seeding
from ..errors import ArenaError
from ..leagues import league
from ..leagues.ratings import Rater
from . import leaderboard
from .frames import frames_for_row

STATIC = Path(__file__).with_name("static")
TEMPLATES = Path(__file__).with_name("templates")
#: ``--matches``: which stored matches get a replay page.
MATCHES = "sample"  # the faulty ones and the first of every pair of bots; or all, faults, N
CHART_POINTS = 400  # at most this many points a bot on a rating chart


@dataclass
class Written:
    """What a report wrote: its folder, the pages and their bytes."""

    folder: Path
    pages: list[Path] = field(default_factory=list)
    size: int = 0

    @property
    def index(self) -> Path:
        return self.folder / "index.html"


def environment():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson_script"] = _json_script
    env.filters["signed"] = signed
    env.filters["bot_page"] = _bot_page
    return env


def _bot_page(entrant: str) -> str:
    """The bot page of a leaderboard's entrant ("" for a person, who has none)."""
    from ..plugins import is_human
    from .botpage import PAGE_NAME, base_of, page_of

    if is_human(entrant) or not PAGE_NAME.fullmatch(base_of(entrant)):
        return ""
    return page_of(entrant)


def signed(x, digits: int = 1) -> str:
    """A signed figure, never ``-0`` (``views.verdict.signed``)."""
    from .verdict import signed as text

    return text(x, digits)


def _json_script(value) -> str:
    """JSON for a ``<script type="application/json">`` block, whatever text a bot put in it:
    ``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026`` - still the same
    JSON, and nothing (``</script>``, ``<!--``) the HTML parser could read."""
    from markupsafe import Markup

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("&", "\\u0026"))


def parse_matches(value: str) -> str | int:
    """``--matches``: ``all``, ``faults``, ``sample`` or a number of matches per pair."""
    if value in ("all", "faults", "sample"):
        return value
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise ArenaError(f"--matches takes all, faults, sample or a number, not {value!r}")
    return n


def write_report(engine, registry, folder, season: str | None = None,
                 matches: str | int = MATCHES, match_id: int | None = None) -> Written:
    """Write the report into ``folder``: the index, a page per season (or only ``season``)
    and the replay pages of the matches chosen; with ``match_id``, that match's page only.
    ArenaError when there is nothing to report or the folder cannot be written."""
    out = Written(Path(folder))
    env = environment()
    try:
        out.folder.mkdir(parents=True, exist_ok=True)
        _copy_static(out.folder)
    except OSError as e:
        raise ArenaError(f"cannot write the report to {folder}: {e.strerror}") from None
    if match_id is not None:
        _match_page(env, engine, registry, out, *db.get_match(engine, match_id))
        return out
    context = index_context(engine, registry, season)
    bots = set()
    for lg in context["leagues"]:
        for row in lg["rows_of_seasons"]:
            _season_page(env, engine, registry, out, row, matches)
            bots.update(json.loads(row.bots))
        bots.update(r["bot"] for r in lg["rows"])
    for page in sorted({_bot_page(b) for b in bots} - {""}):
        _write(out, page, env.get_template("bot.html").render(**bot_context(
            engine, registry, page[len("bot-"):-len(".html")])))
    _write(out, "index.html", env.get_template("index.html").render(**context))
    return out


def bot_context(engine, registry, name: str) -> dict:
    from .botpage import bot_context as context

    return context(engine, registry, name)


def index_context(engine, registry, season: str | None = None,
                  humans: bool | None = None) -> dict:
    """What the index page shows: each league's standings and seasons (only ``season``'s,
    if named). ``humans`` None: every season is listed, the standings are the bots' league;
    False: the bots' seasons alone; True: the people's matches alone, and their league."""
    rows = [row for row, _ in db.list_seasons(engine)]
    if season is not None:
        rows = [db.get_season(engine, season)]
    else:
        rows = [r for r in rows
                if humans is None or r.name.startswith(db.HUMAN_SEASONS) == humans]
    if not rows and humans is None:
        raise ArenaError("no seasons in this database: 'arena season run' plays one")
    leagues: dict[tuple, list] = {}
    for row in rows:
        leagues.setdefault((row.game, row.variant, row.players), []).append(row)
    index = []
    for (game, variant, players), seasons in leagues.items():
        standings = league.standings(engine, registry, game, variant, players, season,
                                     humans=bool(humans))
        summaries = [_season_summary(engine, r) for r in seasons]
        index.append({"game": game, "variant": variant, "players": players,
                      "title": registry.game(game).title,
                      "rows": leaderboard.rows(standings), "rows_of_seasons": seasons,
                      "seasons": summaries,
                      "listed": [s for s in summaries if s["kind"] != "match"],
                      "matches": [{**s, "verdict": _verdict_short(engine, r)}
                                  for s, r in zip(summaries, seasons, strict=True)
                                  if s["kind"] == "match"]})
    return {"leagues": index, "one_season": season, "humans": humans}


def _copy_static(folder: Path) -> None:
    target = folder / "static"
    target.mkdir(exist_ok=True)
    for f in STATIC.iterdir():
        shutil.copyfile(f, target / f.name)


def _write(out: Written, name: str, text: str) -> None:
    path = out.folder / name
    data = text.encode()
    try:
        path.write_bytes(data)
    except OSError as e:
        raise ArenaError(f"cannot write {path}: {e.strerror}") from None
    out.pages.append(path)
    out.size += len(data)


def _season_summary(engine, row) -> dict:
    kind = json.loads(row.options or "{}").get("kind", "season")
    return {"name": row.name, "page": f"season-{row.id}.html", "status": row.status,
            "kind": kind, "rated": row.rated,
            "what": ("A/B match" + ("" if row.rated else ", unrated")) if kind == "match"
            else kind,
            "bots": json.loads(row.bots), "rounds": row.rounds, "fixtures": row.fixtures,
            "stored": len(db.stored_fixtures(engine, row.id)), "seed": row.seed,
            "seeding": seeding(row.secret)}


def rating_history(results, bots: list[str], draw_probability: float, teams: int = 0,
                   points: int = CHART_POINTS) -> tuple[dict, list]:
    """Each bot's μ and σ after every rated match, in fixture order (``results``: the
    ``(seats, ranks, scores, faults)`` of ``db.results``), thinned to at most ``points``
    matches evenly spaced, the last always kept: ``{"x": [...], "bots": {name: {"mu": [],
    "sigma": []}}}`` - and the standings they end at (the season's, rated once)."""
    results = list(results)
    step = max(1, -(-len(results) // points))
    rater = Rater(draw_probability, teams)
    names = list(dict.fromkeys(bots + [b for seats, *_ in results for b in seats]))
    x, mu, sigma = [0], {b: [rater.env.mu] for b in names}, {b: [rater.env.sigma]
                                                             for b in names}
    for i, result in enumerate(results, 1):
        rater.add(*result)
        if i % step == 0 or i == len(results):
            x.append(i)
            for b in names:
                s = rater.table.get(b)
                mu[b].append(round(s.mu, 3) if s else rater.env.mu)
                sigma[b].append(round(s.sigma, 3) if s else rater.env.sigma)
    return ({"x": x, "bots": {b: {"mu": mu[b], "sigma": sigma[b]} for b in names}},
            rater.standings())


def crossgrid(results, bots: list[str]) -> dict:
    """Row bot against column bot: W-D-L and the score (wins plus half the draws, over the
    matches both played), counted as the terminal crosstable counts them."""
    wdl = leaderboard.wins_draws_losses(results, bots)
    cells = {}
    for (a, b), (w, d, lost) in wdl.items():
        n = w + d + lost
        cells[f"{a}\t{b}"] = {"wdl": f"{w}-{d}-{lost}", "score": (w + d / 2) / n if n else None}
    return {"bots": bots, "cells": cells}


def choose(matches, how: str | int) -> set[int]:
    """The match ids to give pages: ``matches`` are ``(match id, seats, faults)`` in
    fixture order; ``sample``: the faulty ones and the first of every pair of bots; a
    number N: the faulty ones and the first N of every pair; ``faults``; ``all``."""
    chosen: set[int] = set()
    per_pair = 1 if how == "sample" else how if isinstance(how, int) else 0
    seen: dict[tuple[str, str], int] = {}
    for match_id, seats, faults in matches:
        if how == "all" or any(faults):
            chosen.add(match_id)
            continue
        pairs = {(a, b) for a in seats for b in seats if a < b} or {(seats[0], seats[0])}
        if any(seen.get(p, 0) < per_pair for p in pairs):
            chosen.add(match_id)
            for p in pairs:
                seen[p] = seen.get(p, 0) + 1
    return chosen


def _season_page(env, engine, registry, out: Written, row, how) -> None:
    context, rows = season_context(engine, registry, row, how)
    for m, seats in rows:
        _match_page(env, engine, registry, out, m, row, seats)
    _write(out, f"season-{row.id}.html", env.get_template("season.html").render(**context))


def season_context(engine, registry, row, how) -> tuple[dict, list]:
    """What a season's page shows, and the ``(match, seats)`` rows given a replay page
    (``choose``)."""
    game = registry.game(row.game)
    bots = json.loads(row.bots)
    results = list(db.results(engine, row.game, row.variant, row.players, row.name))
    chart, standings = rating_history(results, bots, game.draw_probability, game.teams)
    listed, faults, paged = [], {}, []
    rows = list(db.season_matches(engine, row.id))
    pages = choose(((m.id, [s.bot for s in seats], [s.fault for s in seats])
                    for m, seats in rows), how)
    worst = _worst(engine, row)
    pages |= {e[side]["match"] for e in worst for side in ("candidate", "baseline")}
    for m, seats in rows:
        for s in seats:
            if s.fault and s.fault != "suspended":
                kind = faults.setdefault((s.bot, s.fault.split(":")[0]), {
                    "bot": s.bot, "kind": s.fault.split(":")[0], "count": 0, "match": m.id,
                    "reason": s.fault, "log": s.log, "page": m.id in pages})
                kind["count"] += 1
        if m.id in pages:
            listed.append({"id": m.id, "fixture": m.fixture, "seats": [s.bot for s in seats],
                           "ranks": [s.rank for s in seats],
                           "scores": [s.score for s in seats], "reason": m.reason,
                           "faults": [s.fault for s in seats]})
            paged.append((m, seats))
    pairs = leaderboard.pairwise(db.season_results(engine, row.id), bots)
    times = db.move_times(engine, row.id)
    return dict(
        season=_season_summary(engine, row), row=row, title=game.title,
        verdict=_verdict_lines(engine, row),
        worst=worst,
        options=json.loads(row.options or "{}"),
        standings=leaderboard.rows(standings),
        chart=chart,
        grid=crossgrid(results, bots),
        pairs=[{"a": a, "b": b, "deals": e.pairs, "score": e.score, "elo": e.elo,
                "low": e.elo_low, "high": e.elo_high, "los": e.los}
               for (a, b), e in pairs.items()],
        faults=sorted(faults.values(), key=lambda f: (f["bot"], f["kind"])),
        times=[{"bot": b, "mean": m, "max": t, "n": n} for b, (m, t, n) in sorted(
            times.items())],
        matches=listed, total=len(rows)), paged


def _verdict_short(engine, row) -> str:
    """A match's verdict in a few words, for the index: Elo and the SPRT's end."""
    from ..leagues import league
    from ..leagues.match import current_verdict
    from . import verdict

    defn = league.definition(row)
    v = current_verdict(engine, row, defn)
    test = v.get("sprt")
    end = "" if test is None else ", " + (
        f"{test['decision']} accepted" if test["decision"] else
        "undecided at the cap" if row.status == "done" else "SPRT continues")
    return f"{defn.bots[0]} vs {defn.bots[1]}: Elo {verdict.elo_text(v)} over {v['pairs']} " \
        f"pairs{end}"


#: the worst pairs a match's page lists (``arena match --worst N NAME`` lists any number)
WORST_PAIRS = 5


def _worst(engine, row) -> list[dict]:
    """A match's worst pairs for its page (``match.worst_pairs``); [] for a season."""
    from ..leagues import league
    from ..leagues.match import worst_pairs

    defn = league.definition(row)
    return worst_pairs(engine, defn, row.id, WORST_PAIRS) if defn.kind == "match" else []


def _verdict_lines(engine, row) -> list[str] | None:
    """A match's verdict as ``arena match`` prints it (None for a season): as stored when
    it finished, else its figures so far."""
    from ..leagues import league
    from ..leagues.match import current_verdict
    from . import verdict

    defn = league.definition(row)
    if defn.kind != "match":
        return None
    v = current_verdict(engine, row, defn)
    return verdict.lines(v, f"{defn.bots[0]} vs {defn.bots[1]}"
                         + (f" in a field of {', '.join(defn.field)}" if defn.field else "")
                         + f": {v['pairs']} pairs", row.status == "done")


def match_context(engine, registry, match, season, seats) -> dict:
    """What a match's replay page shows: its frames and, where the match was reviewed
    (``arena review``), the stored review the viewer marks its steps with."""
    from ..leagues.review import stored_review

    frames = frames_for_row(registry, match, season, seats)
    if frames["frames"]:
        frames["review"] = stored_review(engine, season.game, match.id)
    return dict(match=match, season=season, seats=seats,
                title=registry.game(season.game).title, frames=frames)


def _match_page(env, engine, registry, out: Written, match, season, seats) -> None:
    _write(out, f"match-{match.id}.html", env.get_template("match.html").render(
        **match_context(engine, registry, match, season, seats)))
