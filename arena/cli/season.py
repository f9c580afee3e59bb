"""``arena season ...``, ``arena leaderboard`` and ``arena replay``: thin over
arena.leagues.league."""

from __future__ import annotations

import json
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path

import click

from ..cards import seeding
from ..errors import ArenaError
from .options import secret_of, secret_options


def _engine(registry, create: bool = False):
    """The database; only ``season run`` (``create``) may make one."""
    from .. import db

    return db.connect(registry.db_url, create=create)


def _bots(value: str, registry=None, game: str | None = None) -> tuple[str, ...]:
    """The entrants of ``--bots``: ``@submitted`` is the latest version of every submitted
    bot of ``game`` not withdrawn, and a submitted bot named without a version is its
    latest (``mybot`` -> ``mybot@4``), so a season's results are per version."""
    from ..plugins import split_entrants

    names = split_entrants(value)
    if registry is None:
        return tuple(names)
    out = []
    for name in names:
        if name == "@submitted":
            out += _latest_submitted(registry, game)
        else:
            out.append(registry.canonical(name))
    return tuple(dict.fromkeys(out))


def _latest_submitted(registry, game: str) -> list[str]:
    from .. import db
    from ..leagues import ladder

    registry.bots()
    latest = [v for v in registry.latest.values() if game in registry.bots()[v]]
    if latest:
        latest = [v for v in latest
                  if v not in ladder.withdrawn(db.connect(registry.db_url, create=False))]
    if not latest:
        raise ArenaError(f"@submitted: no submitted bot plays {game} ('arena submit' one)")
    return sorted(latest)


def _run(engine, registry, row, pool, quiet=False, view=None) -> None:
    """Play season ``row`` with a progress bar on stderr and, below it, ``view(rater)``
    (default: the top of the live table)."""
    from rich.console import Console, Group
    from rich.live import Live
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from .. import db
    from ..leagues import league
    from ..views import leaderboard as views

    done_before = len(db.stored_fixtures(engine, row.id))
    progress = Progress(TextColumn(f"season {row.name}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TimeRemainingColumn(),
                        TextColumn("{task.description}"), console=Console(stderr=True))
    # until the first batch is stored the bar cannot move: the time does, and says so
    task = progress.add_task("(the first matches are being played; Ctrl-C stops)",
                             total=row.fixtures, completed=done_before)
    last = [0.0]

    try:
        with Live(Group(progress), console=progress.console, transient=quiet,
                  refresh_per_second=4) as live:
            def on_batch(results, rater):
                progress.update(task, advance=len(results), description="")
                if time.monotonic() - last[0] > 1.0 and rater.next:
                    last[0] = time.monotonic()
                    live.update(Group(progress, views.table(
                        rater.standings()[:5], f"top of the table after {rater.next} matches")
                        if view is None else view(rater)))

            try:
                league.play(engine, registry, row, executor=pool, on_batch=on_batch,
                            own_executor=True)
            except KeyboardInterrupt:  # Ctrl-C: what is stored stays; resume plays the rest
                engine.dispose()  # the interrupted write's connection goes with its lock
                try:
                    db.set_status(engine, row.id, "interrupted")
                    stored = len(db.stored_fixtures(engine, row.id))
                except Exception:  # noqa: BLE001 - the status is a label; Ctrl-C still stops
                    stored = None
                live.update(Group(progress))
                progress.console.print(
                    f"stopped: season {row.name} keeps the "
                    + (f"{stored} of {row.fixtures} matches" if stored is not None
                       else "matches") + " stored; 'arena season resume "
                    f"{row.name}' plays the rest", highlight=False, markup=False)
                raise
            finally:
                live.update(Group(progress))
    finally:
        if not progress.console.is_terminal:
            progress.console.line()  # Live leaves its last frame without a newline


@click.group()
def season() -> None:
    """Run, resume and inspect league seasons."""


@season.command("run")
@click.argument("game", required=False)
@click.option("--config", "config_path", metavar="FILE",
              help="The season defined in a TOML file (its keys: the options' long names with "
              "_ for -, bots as a list); options given here override it. The file's text is "
              "stored with the season.")
@click.option("--variant", help="Rule variant (default: the game's default).")
@click.option("--players", type=click.IntRange(min=1), help="Seats per match (default: fewest).")
@click.option("--bots", "bots", help="Comma-separated bot names.")
@click.option("--rounds", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), help="Root seed (default: random, shown).")
@click.option("--name", help="Season name (default: GAME-VARIANT-SEED).")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where matches run: local processes or a Dask cluster.")
@click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler (tcp://HOST:8786).")
@click.option("--batch", type=click.IntRange(min=1),
              help="Fixtures per worker task (default: the game's, at most a 16th of the "
              "season, at least 8).")
@click.option("--limits", default="", metavar="K=V,...",
              help="Bot limits over the defaults, e.g. move_s=0.5,memory_mb=512 "
              "(docs/protocol.md).")
@click.option("--suspend-after", type=click.IntRange(min=0), default=5, show_default=True,
              help="Suspend a bot after this many faulty matches in a row (0: never).")
@click.option("--mixed-teams", is_flag=True,
              help="Team games: one bot per seat, partnerships drawn each round, rated as "
              "teams (default: each bot plays every seat of one team).")
@click.option("--inflight", type=click.IntRange(min=1), metavar="K",
              help="Matches each worker plays side by side, their moves asked of each bot "
              "process together (default: 16; the results do not depend on it).")
@click.option("--adjust", type=click.Choice(["none", "luck"]), default="none",
              show_default=True,
              help="luck: store each match's luck of the cards with it, for luck-adjusted "
              "pair scores in 'season show --pairs'.")
@click.option("--deals", "deals_path", metavar="FILE",
              help="Play the deals of this deal book (docs/deal-books.md), each once a round "
              "of its own, every group in every seating: the book's deals are the rounds.")
@secret_options
@click.pass_context
def season_run(ctx, config_path, **options) -> None:
    """Play a round-robin season of GAME and rate every bot. Every deal is keyed by the
    season's secret, random unless --secret-from or --public-seed: the seed alone fixes the
    schedule, the seed and secret together every card."""
    config = ""
    if config_path:
        config, given = read_config(config_path)
        for key, value in given.items():  # what the command line says wins
            if ctx.get_parameter_source(key) != click.core.ParameterSource.COMMANDLINE:
                options[key] = value
    if options["deals_path"] and ctx.get_parameter_source("rounds") == (
            click.core.ParameterSource.COMMANDLINE):
        raise ArenaError("--deals plays each deal of the book once: its deals are the rounds "
                         "(leave out --rounds)")
    _start_season(ctx.obj, config, **options)


def _start_season(registry, config, game, variant, players, bots, rounds, seed, name, workers,
                  executor, scheduler, batch, limits, suspend_after, mixed_teams, inflight,
                  secret_from, public_seed, adjust="none", deals_path=None) -> None:
    from .. import db
    from ..leagues import league
    from ..leagues.scheduler import DEFAULT_INFLIGHT, SeasonDef, default_batch
    from ..luck import adjust_option

    if not game:
        raise ArenaError("season run needs a GAME (or --config FILE naming one)")
    if not bots:
        raise ArenaError("season run needs --bots (or --config FILE with bots = [...])")
    g = registry.game(game)
    deals = ()
    if deals_path:
        from .deals import load_book

        found, deals = load_book(registry, deals_path, g.name, variant and g.check(variant),
                                 players)
        variant, players, rounds = found.variant, found.players, len(deals)
    variant = g.check(variant)
    players = players or g.variants[variant][0]
    adjust = adjust_option(g, variant, adjust)
    seed = secrets.randbelow(2**31) if seed is None else seed
    defn = SeasonDef(name or f"{game}-{variant}-{seed}", game, variant, players,
                     _bots(bots, registry, game),
                     rounds, seed, batch or 1, limits, suspend_after,
                     0 if mixed_teams else g.teams, g.seatings == "all",
                     bool(mixed_teams and g.teams), secret_of(secret_from, public_seed),
                     config, inflight=inflight or DEFAULT_INFLIGHT,
                     adjust=adjust, deals=deals)
    if not batch:
        defn = replace(defn, batch=default_batch(g, defn))
    engine = _engine(registry, create=True)
    pool = league.make_executor(executor, workers, scheduler)  # before anything is written
    row = league.create(engine, registry, defn)
    click.echo(f"season {row.name}: {row.fixtures} matches, seed {seed}"
               + (" (public: anyone who knows the seed can compute every deal)"
                  if seeding(row.secret) == "public" else ""), err=True)
    _run(engine, registry, row, pool)
    _show_leaderboard(engine, registry, db.get_season(engine, row.name))
    _stored_in(registry, row.name)


@season.command("resume")
@click.argument("name")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where matches run: local processes or a Dask cluster.")
@click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler (tcp://HOST:8786).")
@click.pass_obj
def season_resume(registry, name, workers, executor, scheduler) -> None:
    """Play exactly the fixtures of season NAME not yet stored."""
    from .. import db
    from ..leagues import league

    engine = _engine(registry)
    row = db.get_season(engine, name)
    league.playable(registry, row, engine)  # a season that cannot go on says so first
    if row.status == "done":
        click.echo(f"season {name} is finished ({len(db.stored_fixtures(engine, row.id))} "
                   "matches): nothing to play", err=True)
    else:
        _run(engine, registry, row, league.make_executor(executor, workers, scheduler))
    _show_leaderboard(engine, registry, db.get_season(engine, name))
    _stored_in(registry, name)


@season.command("export-bots")
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.pass_obj
def season_export_bots(registry, name, folder) -> None:
    """Write the bot files season NAME began with into FOLDER.

    A season keeps the code of its bots folder's bots (a file; an executable's manifest
    and own files, written where they were). Where one has changed since, 'arena
    --bots-dir FOLDER season resume NAME' finishes the season with the code it began
    with."""
    from .. import db
    from ..leagues import league

    engine = _engine(registry)
    row = db.get_season(engine, name)
    for path in league.export_bots(engine, registry, row, folder):
        click.echo(str(path))


@season.command("list")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def season_list(registry, fmt) -> None:
    """List the seasons with their progress."""
    from .. import db
    from ..views import leaderboard as views
    from ..views.transcript import print_renderable

    seasons = db.list_seasons(_engine(registry))
    if fmt == "json":
        click.echo(json.dumps([{
            "name": row.name, "game": row.game, "variant": row.variant,
            "players": row.players, "kind": json.loads(row.options).get("kind", "season"),
            "rated": row.rated, "bots": json.loads(row.bots), "rounds": row.rounds,
            "seed": row.seed, "seeding": seeding(row.secret), "stored": stored,
            "fixtures": row.fixtures, "status": row.status} for row, stored in seasons],
            indent=2))
        return
    t = views.grid("season", "league", "bots", "rounds", "seed", "matches", "status",
                   names=("season",), keep=("status",), wrap=("league", "bots"),
                   right=("rounds", "matches"))
    for row, stored in seasons:
        kind = json.loads(row.options).get("kind", "season")
        what = {"match": "A/B match" + (", rated" if row.rated else ""),
                "human": "people's"}.get(kind, "" if kind == "season" else kind)
        t.add_row(row.name, f"{row.game} {row.variant} {row.players}p"
                  + (f" ({what})" if what else ""),
                  ", ".join(json.loads(row.bots)), str(row.rounds),
                  str(row.seed) + ("" if seeding(row.secret) == "secret"
                                   else f" ({seeding(row.secret)})"),
                  f"{stored}/{row.fixtures}", row.status)
    print_renderable(t)


@season.command("show")
@click.argument("name")
@click.option("--matches", "list_matches", is_flag=True,
              help="Also list every stored match: id (for 'arena replay ID'), seats, ranks, "
              "faults.")
@click.option("--pairs", is_flag=True,
              help="Also every pair of bots on the deals both played: score ± 95 % interval, "
              "Elo and LOS.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def season_show(registry, name, list_matches, pairs, fmt) -> None:
    """Standings, crosstable and faults of season NAME."""
    from .. import db
    from ..views import leaderboard as views
    from ..views.transcript import print_renderable

    engine = _engine(registry)
    row = db.get_season(engine, name)
    results = list(db.results(engine, row.game, row.variant, row.players, row.name))
    if fmt == "json":
        click.echo(json.dumps(_season_json(engine, registry, row, results, list_matches,
                                           pairs), indent=2, ensure_ascii=False))
        return
    _show_verdict(engine, row)
    _show_leaderboard(engine, registry, row)
    print_renderable(views.crosstable(results, json.loads(row.bots)))
    if pairs:
        table = views.pairwise_table(
            views.pairwise(db.season_results(engine, row.id, luck=True),
                           json.loads(row.bots)),
            adjusted=json.loads(row.options).get("adjust") == "luck")
        if table is not None:
            print_renderable(table)
    matches = [(m.id, m.fixture, [s.bot for s in seats], [s.rank for s in seats], m.reason,
                [s.fault for s in seats]) for m, seats in db.season_matches(engine, row.id)]
    for table in (views.faults_table((m[0], m[2], m[5]) for m in matches),
                  views.move_times_table(db.move_times(engine, row.id))):
        if table is not None:
            print_renderable(table)
    if list_matches:
        print_renderable(views.matches_table(matches))


def _season_json(engine, registry, row, results, list_matches: bool, pairs: bool) -> dict:
    """``season show --format json``: what the tables show, every column."""
    from .. import db
    from ..leagues import league
    from ..leagues.match import current_verdict
    from ..views import leaderboard as views

    bots = json.loads(row.bots)
    standings = league.standings(engine, registry, row.game, row.variant, row.players, row.name)
    wdl = views.wins_draws_losses(results, bots)
    matches = list(db.season_matches(engine, row.id))
    out = {"season": row.name, "game": row.game, "variant": row.variant,
           "players": row.players, "status": row.status, "seed": row.seed,
           "seeding": seeding(row.secret), "stored": len(matches), "fixtures": row.fixtures,
           "standings": views.rows(standings),
           "crosstable": {a: {b: wdl[a, b] for b in bots if (a, b) in wdl} for a in bots},
           "faults": [{"match": m.id, "seat": s.seat, "bot": s.bot, "fault": s.fault}
                      for m, seats in matches for s in seats if s.fault],
           "move_times": {bot: {"mean_ms": 1000 * mean, "max_ms": 1000 * top, "matches": n}
                          for bot, (mean, top, n) in db.move_times(engine, row.id).items()}}
    if league.definition(row).kind == "match":
        out["verdict"] = current_verdict(engine, row)
    if pairs:
        estimates = views.pairwise(db.season_results(engine, row.id, luck=True), bots)
        out["pairs"] = [{"first": a, "second": b, "deals": e.pairs, "score": e.score,
                         "los": e.los} for (a, b), e in estimates.items()]
    if list_matches:
        out["matches"] = [{"match": m.id, "fixture": m.fixture, "seats": [s.bot for s in seats],
                           "ranks": [s.rank for s in seats], "end": m.reason,
                           "faults": [s.fault for s in seats]} for m, seats in matches]
    return out


def _show_verdict(engine, row) -> None:
    """A match's verdict (an A/B test: it rates no league unless it was run --rated), as
    ``arena match`` printed it."""
    from ..leagues import league
    from ..leagues.match import current_verdict
    from ..views import verdict

    defn = league.definition(row)
    if defn.kind != "match":
        return
    v = current_verdict(engine, row, defn)
    title = (f"A/B match {row.name} ({'rated' if row.rated else 'unrated'}): "
             f"{defn.bots[0]} vs {defn.bots[1]}, {row.game} {row.variant}"
             + (f" in a field of {','.join(defn.field)}" if defn.field else "")
             + f": {v['pairs']} pairs")
    from ..views.transcript import say

    for line in verdict.lines(v, title, row.status == "done"):
        say(line)


@season.command("export")
@click.argument("name")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write to this file (default: stdout).")
@click.pass_obj
def season_export(registry, name, output) -> None:
    """Season NAME as JSON lines: its definition, secret and bot versions, then every stored
    match (deal seed, seats, result, each action with its seat). 'arena verify' checks it;
    --secret-from takes its secret. Keep it where bots cannot read it."""
    from .. import db
    from ..views.exports import dumps, season_lines

    engine = _engine(registry)
    row = db.get_season(engine, name)
    lines = (dumps(line) + "\n" for line in season_lines(engine, registry, row))
    if output is None:
        for line in lines:
            click.echo(line, nl=False)
        return
    try:
        with open(output, "w") as f:
            f.writelines(lines)
    except OSError as e:
        raise ArenaError(f"cannot write {output}: {e.strerror}") from None


#: The keys of a ``--config`` file and their types (the options of ``season run``).
CONFIG_KEYS = {"game": str, "variant": str, "players": int, "bots": list, "rounds": int,
               "seed": int, "name": str, "workers": int, "executor": str, "scheduler": str,
               "batch": int, "limits": str, "suspend_after": int, "mixed_teams": bool,
               "secret_from": str, "public_seed": bool, "inflight": int, "adjust": str}


def read_config(path: str) -> tuple[str, dict]:
    """The text of a season's TOML file and its settings (``bots`` joined with commas, as
    ``--bots`` takes them); ArenaError for an unreadable file, an unknown key or a value of
    the wrong type."""
    import tomllib

    try:
        text = open(path, encoding="utf-8").read()
        data = tomllib.loads(text)
    except OSError as e:
        raise ArenaError(f"cannot read {path}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ArenaError(f"{path} is not TOML: {e}") from None
    for key, value in data.items():
        kind = CONFIG_KEYS.get(key)
        if kind is None:
            raise ArenaError(f"{path}: unknown key {key!r} (keys: {', '.join(CONFIG_KEYS)})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)) or (
                kind is list and not all(isinstance(b, str) for b in value)):
            what = "a list of bot names" if kind is list else f"a {kind.__name__}"
            raise ArenaError(f"{path}: {key} must be {what}")
        least = 0 if key in ("seed", "suspend_after") else 1
        if kind is int and value < least:
            raise ArenaError(f"{path}: {key} must be at least {least}")
    if data.get("executor", "local") not in ("local", "dask"):
        raise ArenaError(f"{path}: executor must be \"local\" or \"dask\"")
    if data.get("adjust", "none") not in ("none", "luck"):
        raise ArenaError(f"{path}: adjust must be \"none\" or \"luck\"")
    if "bots" in data:
        data["bots"] = ",".join(data["bots"])
    return text, data


def _stored_in(registry, name: str) -> None:
    """Where a season's results went, and how to look at them."""
    from ..errors import masked

    click.echo(f"stored in {masked(registry.db_url)}: 'arena season show {name} --matches' "
               f"lists its matches, 'arena replay ID' shows one", err=True)


def _seeding_note(row) -> str:
    """What to know about how a season's deals were drawn, if anything."""
    kind = seeding(row.secret)
    if kind == "public":
        return " has a public seed: anyone who knows the seed can compute every deal"
    if kind == "legacy":
        return " was made before secrets: a bot could compute its deals from the seed"
    return ""


def _show_leaderboard(engine, registry, row) -> None:
    from .. import db
    from ..leagues import league
    from ..views import leaderboard as views
    from ..views.transcript import print_renderable

    standings = league.standings(engine, registry, row.game, row.variant, row.players, row.name)
    stored = len(db.stored_fixtures(engine, row.id))
    print_renderable(views.table(standings, f"{row.name}: {row.game} {row.variant}, "
                                            f"{row.players} players, {stored}/{row.fixtures} "
                                            f"matches ({row.status}), seed {row.seed}"))
    from ..plugins import thinks_by_clock
    from ..views.transcript import say

    if _seeding_note(row):
        say(f"note: season {row.name}{_seeding_note(row)}")
    clocked = [b for b in json.loads(row.bots) if thinks_by_clock(b)]
    if clocked:
        say(f"note: {', '.join(clocked)} think(s) by the clock (think_s): this season's "
            "moves depend on the machine's speed and load, and it is not reproducible")


@click.command()
@click.argument("game")
@click.option("--variant", help="Rule variant (default: the game's default).")
@click.option("--players", type=click.IntRange(min=1), help="Seats per match (default: fewest).")
@click.option("--season", "season_name", help="Only this season (default: the whole league).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@click.option("--all-versions", is_flag=True,
              help="Every version of a submitted bot (default: its latest).")
@click.option("--humans", is_flag=True,
              help="The league of people's matches (arena play with a human seat): the "
              "people and the bots they met.")
@click.pass_obj
def leaderboard(registry, game, variant, players, season_name, fmt, all_versions,
                humans) -> None:
    """Ratings of one league (game, variant, players), best first by mu - 3 sigma. People's
    matches (arena play with a human seat) are rated apart: --humans."""
    from .. import db
    from ..leagues import league
    from ..views import leaderboard as views
    from ..views.transcript import print_renderable

    g = registry.game(game)
    variant = g.check(variant)
    players = players or g.variants[variant][0]
    engine = _engine(registry)
    if season_name is not None:
        db.get_season(engine, season_name)
    if humans and season_name is not None:
        raise ArenaError("--humans rates every person's match of the league; --season one "
                         "season: give one of them")
    standings = league.standings(engine, registry, game, variant, players, season_name,
                                 humans)
    if not all_versions:  # a submitted bot's older versions keep their rows, not shown
        from ..leagues.ladder import latest_only

        standings = latest_only(standings, engine)
    if fmt == "json":
        click.echo(views.to_json(standings))
    elif fmt == "csv":
        click.echo(views.to_csv(standings), nl=False)
    else:
        print_renderable(views.table(standings, f"{game} {variant}, {players} players"
                                     + (f", season {season_name}" if season_name else "")
                                     + (", people's matches" if humans else "")))
        if not standings and season_name is None and not humans:
            click.echo("no rated play in this league yet ('arena season run' rates it; "
                       "A/B matches - arena match, gauntlet - rate no league unless --rated)",
                       err=True)


@click.command("replay")
@click.argument("match_id", type=int)
@click.option("--seat", type=click.IntRange(min=0), help="Show the hidden cards of this seat.")
@click.option("--omniscient", is_flag=True, help="Show every hidden card.")
@click.option("--verify", is_flag=True, help="Re-play from the seed and compare the result.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the match as JSON (each action with its seat) instead.")
@click.option("--logs", is_flag=True,
              help="Show what each bot wrote in the match (the end of its stdout and stderr), "
              "not only a faulty one's.")
@click.option("--from", "url", metavar="URL",
              help="A match of the league served there (arena serve --league), as the "
              "account of --token: its own bots' logs alone.")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN",
              help="With --from: your account's API token (or $ARENA_TOKEN).")
@click.pass_obj
def replay_command(registry, match_id, seat, omniscient, verify, as_json, logs, url,
                   token) -> None:
    """Show a stored match again (and check it reproduces with --verify)."""
    from .. import db
    from ..games import Result
    from ..leagues import league
    from ..referee import Match, replay
    from ..views.exports import fixture_seed, stored_match_record, verify_match
    from ..views.transcript import print_renderable, render_transcript

    if url is not None:
        record = _remote_match(url, token, match_id)
        game = registry.game(record["game"])
        season_row = match_row = None
    else:
        if token is not None:
            raise ArenaError("--token goes with --from URL")
        match_row, season_row, seats = db.get_match(_engine(registry), match_id)
        game = registry.game(season_row.game)
        record = stored_match_record(game, season_row, match_row, seats)
    logged = {int(k): v for k, v in (record.pop("logs", None) or {}).items()}
    names, result = record["seats"], Result(**record["result"])
    if seat is not None and seat >= len(names):
        raise ArenaError(f"match {match_id} has seats 0-{len(names) - 1}")
    if as_json:
        record["logs"] = {str(k): v for k, v in sorted(logged.items())}
        click.echo(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        actions = [a["action"] for a in record["actions"]]
        match = Match(game.name, record["variant"], record["deal_seed"], names, actions, result)
        state = replay(game, record["variant"], len(names), record["deal_seed"], actions,
                       record=True, deal=record.get("deal"))
        print_renderable(render_transcript(match, state.events, omniscient, viewer=seat))
        for n, log in sorted(logged.items()):
            fault = result.faults[n]
            if fault:
                click.echo(f"seat {n} ({names[n]}) {fault}; the end of its log:\n"
                           + log.rstrip())
            elif logs:
                click.echo(f"seat {n} ({names[n]}) wrote (the end of it):\n" + log.rstrip())
        if logs and not logged:
            click.echo("no bot wrote anything in this match" if url is None else
                       "none of your bots wrote anything in this match")
    if not verify:
        return
    out = sys.stderr if as_json else sys.stdout
    if record["result"]["reason"] == "suspended":
        click.echo(f"match {match_id}: not played (a bot was suspended), nothing to verify",
                   file=out)
        return
    why = verify_match(game, record)
    if why is None and season_row is not None and season_row.secret is not None and \
            match_row.seed != fixture_seed(league.definition(season_row), match_row.fixture):
        why = "its deal seed does not follow from the season's seed and secret"
    if why:
        click.echo(f"match {match_id}: {why}", err=True)
        sys.exit(1)
    click.echo(f"match {match_id}: verified, the replay gives the stored result", file=out)


def _remote_match(url: str, token: str | None, match_id: int) -> dict:
    """Match ``match_id`` of the league served at ``url``, as ``token``'s account sees it."""
    import urllib.request

    from .store import _ask

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return _ask(urllib.request.Request(f"{url.rstrip('/')}/api/match/{match_id}",
                                       headers=headers), url)


@click.command("verify")
@click.argument("path", metavar="FILE")
@click.pass_obj
def verify_command(registry, path) -> None:
    """Check a match or season record (play --json, replay --json or season export): each
    deal seed follows from its seed and secret, and each match replays to its result."""
    from ..views.exports import read_lines, verify

    try:
        checked, problems = verify(registry, read_lines(path))
    except (KeyError, TypeError, AttributeError) as e:
        raise ArenaError(f"{path}: not a match record (missing or malformed {e})") from None
    for problem in problems:
        click.echo(f"{path}: {problem}", err=True)
    if problems:
        sys.exit(1)
    click.echo(f"{path}: {checked} match(es) verified")
