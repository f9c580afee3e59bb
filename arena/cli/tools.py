"""``arena bench``, ``arena doctor`` and ``arena check-bot``: measuring and checking."""

from __future__ import annotations

import sys

import click

from . import cli


@cli.command()
@click.option("--game", "game_name", default="vandtia", show_default=True,
              help="A game, or 'all': every game at its default variant, one summary row "
              "each.")
@click.option("--variant", default=None, help="Default: the game's own (Vändtia: cardems).")
@click.option("--players", type=click.IntRange(min=1), default=None,
              help="Default: the variant's smallest table.")
@click.option("--games", "n", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--season", "season_matches", type=click.IntRange(min=0), default=0,
              metavar="N", help="Also run an N-match season of random bots (Vändtia cardems) "
              "and report the time spent outside matches.")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Worker processes for --season.")
@click.option("--season-db", metavar="URL",
              help="Database for --season (default: a temporary SQLite file).")
@click.option("--season-dask", is_flag=True,
              help="Run --season on a Dask LocalCluster of --workers processes.")
@click.option("--yardstick", "yardstick_path", type=click.Path(exists=True, dir_okay=False),
              help="A speed yardstick program (random two-player Vändtia printing "
              "games_per_s_cpu) to run in the same command: rows then show ratios to it.")
@click.option("--inflight", type=click.IntRange(min=1), default=None, metavar="K",
              help="Matches side by side for the batched sandboxed row and the --season run "
              "(default: the seasons' default, 16).")
@click.option("--batch-bot", "batch_bot", metavar="NAME",
              help="Also a bot's moves per second at one match at a time and at 64 side by "
              "side (e.g. examples/batchbot.py's, with --bots-dir examples).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="json: one object per row, with its label.")
@click.pass_obj
def bench(registry, game_name, variant, players, n, seed, season_matches, workers,
          season_db, season_dask, yardstick_path, inflight, batch_bot, fmt) -> None:
    """Games per second on one core, in-process; with --season, a whole season's overhead."""
    import json

    from ..bench import (
        command_start,
        engine_games,
        inflight_games,
        playout_games,
        referee_games,
        round_trip,
        start_up,
        summary,
        yardstick,
    )
    from ..bench import season as season_bench
    from ..leagues.scheduler import DEFAULT_INFLIGHT
    from ..views.leaderboard import grid as Table
    from ..views.transcript import print_renderable

    inflight = inflight or DEFAULT_INFLIGHT
    if game_name == "all":
        if variant or players:
            raise click.UsageError("--game all measures each game at its default variant: "
                                   "leave out --variant and --players")
        return _bench_all(registry, n, seed, inflight, fmt)
    game = registry.game(game_name)
    variant = game.check(variant)
    players = players or game.variants[variant][0]
    game.check(variant, players)
    # With a yardstick, it runs before every row and after the last, and a row's ratio is to
    # the mean of the runs on either side of it: the machine's speed drifts (other work), and
    # the two sides of a ratio should meet the same drift.
    sticks = []

    def measure(fn, *args, **kwargs):
        if yardstick_path and not sticks:
            sticks.append(yardstick(yardstick_path, n, seed))
        row = fn(*args, **kwargs)
        if yardstick_path:
            sticks.append(yardstick(yardstick_path, n, seed))
            row["stick"] = (sticks[-2]["games_per_s"] + sticks[-1]["games_per_s"]) / 2
        return row

    rows = [("engine (state API, random choice)", measure(engine_games, game, variant,
                                                         players, n, seed))]
    engine = rows[0][1]
    if hasattr(game.new_state(variant, players, seed), "playout"):
        rows.append(("playout from the deal (copy + play out)",
                     measure(playout_games, game, variant, players, n, seed)))
        mid = measure(playout_games, game, variant, players, n, seed, midgame=True)
        rows.append((f"playout from mid-game (copy + play out), from move {mid['from_move']}",
                     mid))
    quarter = max(1, n // 4)
    entry = registry.bot("random", game.name)
    inprocess = measure(referee_games, game, variant, players, quarter, seed)
    sandboxed = measure(referee_games, game, variant, players, quarter, seed, entry)
    side_by_side = measure(inflight_games, game, variant, players, quarter, seed, entry,
                           inflight)
    figures = summary(engine, inprocess, sandboxed, side_by_side,
                      start_up(entry, game, variant, players))
    figures["command"] = command_start()
    rows += [("referee, in-process random policies", inprocess),
             ("referee, sandboxed random bots", sandboxed),
             (f"referee, sandboxed random bots, {inflight} matches side by side", side_by_side),
             ("referee, bare random processes (the floor)",
              measure(referee_games, game, variant, players, quarter, seed, bare=True))]
    if batch_bot:
        batcher = registry.bot(batch_bot, game.name)
        rows += [(f"{batch_bot} in every seat, one match at a time",
                  measure(referee_games, game, variant, players, quarter, seed, batcher)),
                 (f"{batch_bot} in every seat, 64 matches side by side",
                  measure(inflight_games, game, variant, players, quarter, seed, batcher, 64))]
    if fmt == "json":
        for label, r in rows:
            out = {"label": label, **{k: v for k, v in r.items() if k != "stick"}}
            if sticks:
                out["yardstick_ratio"] = r["games_per_s"] / r["stick"]
            click.echo(json.dumps(out))
        click.echo(_summary_json(game.name, variant, players, inflight, figures))
        return
    table = Table("what", "games", "CPU s", "games/s per core", "moves/game", "asked/game",
                  "asked/s per core", *(["× yardstick"] if sticks else []), keep=("what",),
                  wrap=("what",), boxed=True)
    ratio = (lambda r: [f"{r['games_per_s'] / r['stick']:.2f}"]) if sticks else (lambda r: [])
    if sticks:
        rates = [s["games_per_s"] for s in sticks]
        table.add_row(f"yardstick (two-player random Vändtia, one loop), {len(sticks)} runs",
                      f"{len(sticks)} × {sticks[0]['games']}", "",
                      f"{min(rates):,.0f}-{max(rates):,.0f}",
                      f"{sticks[0]['moves_per_game']:.1f}", "", "", "1.00")
    for label, r in rows:
        table.add_row(label, str(r["games"]), f"{r['cpu_s']:.2f}", f"{r['games_per_s']:,.0f}",
                      f"{r['moves_per_game']:.1f}",
                      f"{r['asked_per_game']:.1f}" if "asked_per_game" in r else "",
                      f"{r['asked_per_s']:,.0f}" if "asked_per_s" in r else "", *ratio(r))
    print_renderable(table)
    if build := engine_build(game.name):
        click.echo(f"{game.title} engine: {build}")
    click.echo(f"engine: {figures['engine_moves_per_s']:,.0f} moves/s per core (state API, "
               f"random choice); sandbox: {figures['overhead_us']:.1f} us of CPU per asked "
               f"move one match at a time, {figures['overhead_us_side_by_side']:.1f} us with "
               f"{inflight} side by side (over the in-process referee's "
               f"{figures['inprocess_us']:.1f} us); a bot process: {figures['start_ms']:.0f} "
               f"ms of CPU to start and stop, which the rows leave out")
    c = figures["command"]
    click.echo(f"the command's own start: arena --version {c['version_ms']:.0f} ms, --help "
               f"{c['help_ms']:.0f} ms, a Python importing click and rich "
               f"{c['floor_ms']:.0f} ms ({c['ratio']:.2f} ×; medians, run in turn)")
    click.echo(f"legal lists: longest {engine['longest_legal']} actions, slowest to build "
               f"{engine['slowest_legal_us']:.0f} us (over {max(1, n // 10)} games)")
    rt = round_trip(entry, game, variant, players, min(20000, max(200, n * 10)), seed)
    click.echo(f"round trip per move, runner <-> sandboxed random bot: median "
               f"{rt['median_us']:.1f} us over {rt['moves']} moves (bare random process, "
               f"same messages: {rt['floor_us']:.1f} us)")
    if season_matches:
        s = season_bench(season_matches, workers, season_db, seed, season_dask, inflight)
        table = Table("season", "matches", "with a fault", "workers", "wall s", "in matches s",
                      "outside", "matches/s", "stored/s (storage alone)", "runner peak MB",
                      keep=("season",), wrap=("season",), boxed=True)
        where = "Dask LocalCluster" if season_dask else "local pool"
        table.add_row(f"random vs random, cardems, {where}, {inflight} side by side",
                      str(s["matches"]),
                      str(s["faults"]),
                      str(s["workers"]),
                      f"{s['wall_s']:.2f}", f"{s['match_s']:.2f}", f"{s['outside']:.1%}",
                      f"{s['matches_per_s']:,.0f}", f"{s['stored_per_s']:,.0f}",
                      f"{s['peak_mb']:.0f}")
        print_renderable(table)


def engine_build(game: str) -> str | None:
    """Which build of a built-in engine that is compiled when arena is installed runs:
    ``compiled (Cython)`` or ``pure Python`` (None for the other games)."""
    return getattr(sys.modules.get(f"arena.games.{game}"), "ENGINE", None)


def _summary_json(game: str, variant: str, players: int, inflight: int, figures: dict) -> str:
    """A game's ``summary`` (``arena.bench.summary``) as the last object of ``--format
    json``, with the engine's build where it has two."""
    import json

    build = engine_build(game)
    return json.dumps({"label": "summary", "game": game, "variant": variant,
                       "players": players, "side_by_side": inflight, **figures,
                       **({"engine": build} if build else {})})


def _bench_all(registry, n: int, seed: int, inflight: int, fmt: str) -> None:
    """``arena bench --game all``: each game's engine moves per CPU second, the in-process
    referee's CPU per asked move, and what the sandbox adds to it, one match at a time and
    side by side (``arena.bench.every_game``)."""
    from ..bench import every_game
    from ..views.leaderboard import grid as Table
    from ..views.transcript import print_renderable

    table = Table("game", "engine moves/s", "referee us/move", "sandbox +us/move",
                  f"+us, {inflight} side by side", "bot start ms", keep=("game",))
    for name, variant, players, figures in every_game(registry, n, seed, inflight):
        if fmt == "json":
            click.echo(_summary_json(name, variant, players, inflight, figures))
            continue
        build = engine_build(name)
        table.add_row(f"{name} {variant}/{players}" + (f" ({build})" if build else ""),
                      f"{figures['engine_moves_per_s']:,.0f}", f"{figures['inprocess_us']:.1f}",
                      f"{figures['overhead_us']:.1f}",
                      f"{figures['overhead_us_side_by_side']:.1f}", f"{figures['start_ms']:.0f}")
    if fmt != "json":
        print_renderable(table)


#: what each isolation layer stops, as ``arena doctor`` says it
STOPS = {
    "unprivileged user": "root's powers; limits and signals shared with other bots",
    "no capabilities": "any privilege, now or through a program it runs",
    "pid namespace": "seeing or signalling any other process (the runner's /proc too)",
    "user namespace": "the machine's users and their rights",
    "mount namespace": "every file but the system's, Python's and its own (database, store, "
                       "other bots)",
    "network namespace": "every network, loopback included",
    "ipc namespace": "System V IPC and POSIX message queues of other processes",
    "private folder": "filling the disk, and files left behind",
    "rlimits": "memory, CPU time, file size, open files, thread bombs",
    "seccomp": "new processes, exec, sockets, io_uring, inotify, fanotify, shared futexes, "
               "file locks, page-cache probes, signals to others, ptrace",
    "landlock": "files outside its own (again), TCP, signals leaving",
}


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def doctor(registry, fmt) -> None:
    """Which isolation layers bot processes get on this machine - each checked from inside
    a bot's jail, not assumed - and which trusted plugins load in the runner."""
    from ..sandbox.process import layer_checks, probe
    from ..views.leaderboard import grid as Table
    from ..views.transcript import print_renderable, say

    checks = layer_checks(probe())
    if fmt == "json":
        import json

        click.echo(json.dumps({"layers": {name: {"holds": ok, "seen": seen, "stops": STOPS[name]}
                                          for name, (ok, seen) in checks.items()},
                               "trusted_plugins": trusted_plugins()}, indent=2))
        return
    table = Table("layer", "holds", "seen", "what it stops", names=("layer",), keep=("holds",),
                  wrap=("seen", "what it stops"), boxed=True)
    for name, (ok, seen) in checks.items():
        table.add_row(name, "yes" if ok else "NO", seen, STOPS[name])
    print_renderable(table)
    say("every seat is its own process; a process never sees one deal twice")
    if all(ok for ok, _ in checks.values()):
        say("between bot processes: closed (no shared files, memory, message queues, "
            "semaphores, sockets, file notifications, futexes, locks, signals or memory of "
            "another process; every file a bot sees is in memory before it starts; what "
            "stays open is time and the machine's load)")
    else:
        missing = ", ".join(name for name, (ok, _) in checks.items() if not ok)
        say(f"warning: missing here: {missing}. A bot could reach files, processes "
            "or other bots it should not (Tractor partners could show each other "
            "their hands); --limits strict=1 refuses to run bots here; see "
            "docs/protocol.md", stderr=True)
    trusted = trusted_plugins()
    say("trusted plugins (they load in this process, unsandboxed): "
        + ("; ".join(f"{dist} ({', '.join(names)})" for dist, names in trusted.items())
           if trusted else "none installed"))


def trusted_plugins() -> dict[str, list[str]]:
    """Every installed distribution with an ``arena`` entry point (games, reporters: code
    that runs in the runner, found without importing it), with its entry points."""
    from importlib import metadata

    found: dict[str, list[str]] = {}
    for ep in metadata.entry_points(group="arena"):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist else "unknown distribution"
        found.setdefault(dist, []).append(f"{ep.name} = {ep.value}")
    return dict(sorted(found.items()))


@cli.command("check-bot")
@click.argument("name")
@click.option("--game", "games", multiple=True, help="Only this game (repeatable).")
@click.option("--matches", type=click.IntRange(min=2), default=3, show_default=True)
@click.option("--limits", default="", metavar="K=V,...",
              help="Bot limits over the defaults, as for season run: move_s=0.5,bank_s=5.")
@click.option("--keep-going", is_flag=True,
              help="Play every match of every variant, past the first fault.")
@click.pass_obj
def check_bot_command(registry, name, games, matches, limits, keep_going) -> None:
    """Conformance: start bot NAME sandboxed, play each game and variant it claims against
    random, check it resets between matches, report timings and faults. The first fault
    ends the check (--keep-going plays on); a failed check exits with status 2."""
    from ..leagues.conformance import check_bot
    from ..sandbox.process import Limits

    checks = check_bot(registry, name, list(games) or None, matches, Limits.parse(limits),
                       keep_going)
    for check in checks:
        click.echo(("-     " if not check.checked else "ok    " if check.ok else "FAIL  ")
                   + check.describe())
        for fault, log in zip(check.faults, check.logs, strict=False):
            if log.strip():
                click.echo(f"      {fault}; the end of its log:\n"
                           + "\n".join("      | " + line for line in log.rstrip().splitlines()))
    failed = [c for c in checks if c.checked and not c.ok]
    if failed:
        click.echo(f"arena: error: {name} failed the check ({len(failed)} variant(s))",
                   err=True)
        sys.exit(2)
