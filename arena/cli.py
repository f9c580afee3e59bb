"""The ``arena`` command: thin click commands over the library.

Any mistake a user can make (unknown game, variant or bot, wrong player count, bad option)
ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sys

import click
from rich.table import Table
from sqlalchemy.exc import SQLAlchemyError

from . import __version__
from .bench import engine_games, referee_games, round_trip
from .bench import season as season_bench
from .bot import make_bot
from .cli_options import secret_of, secret_options
from .db import DEFAULT_URL
from .errors import ArenaError
from .plugins import Registry, bots_dirs_from_env
from .referee import play_match, replay
from .transcript import print_renderable, render_result, render_transcript

DEMO = [  # (game, variant, bots, seed): one match per game and variant, reference bots
    ("vandtia", "cardems", ["greedy", "random"], 7),
    ("vandtia", "swedish", ["greedy", "random", "random"], 7),
    ("vandtia", "german", ["greedy", "random", "greedy", "random"], 7),
    ("tractor", "deal", ["greedy", "random"], 7),
    ("cherki", "standard", ["greedy", "random", "random"], 7),
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("--bots-dir", "bots_dirs", multiple=True, metavar="DIR",
              help="Folder of single-file bots (repeatable; default: $ARENA_BOTS_DIR).")
@click.option("--db", "db_url", metavar="URL", envvar="ARENA_DB",
              help=f"Database URL (default: $ARENA_DB or {DEFAULT_URL}).")
@click.pass_context
def cli(ctx: click.Context, bots_dirs: tuple[str, ...], db_url: str | None) -> None:
    """Run card-game bot tournaments."""
    ctx.obj = Registry(bots_dirs=list(bots_dirs) or bots_dirs_from_env())
    ctx.obj.db_url = db_url or DEFAULT_URL


@cli.command()
@click.pass_obj
def games(registry: Registry) -> None:
    """List the games, their variants and player counts."""
    table = Table("game", "variant", "players", "move cap", "about")
    for game in registry.games().values():
        for variant, counts in game.variants.items():
            players = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
            default = " (default)" if variant == game.default_variant else ""
            table.add_row(game.name, variant + default, players, str(game.move_cap),
                          game.description)
    print_renderable(table)


@cli.command()
@click.pass_obj
def bots(registry: Registry) -> None:
    """List the bots, the games they play and where they come from."""
    table = Table("bot", "games", "source")
    for name, per_game in registry.bots().items():
        sources = sorted({entry.source for entry in per_game.values()})
        table.add_row(name, ", ".join(per_game), "; ".join(sources))
    print_renderable(table)
    for source, error in registry.broken.items():
        click.echo(f"not loaded: {source}: {error}", err=True)


def _play(registry, game_name, variant, bot_names, seed, show, omniscient, as_json,
          limits="", secret=None):
    from .exports import play_deal_seed, play_record
    from .sandbox import Limits

    limits = Limits.parse(limits)
    secret = secret or secret_of(None, False)
    game = registry.game(game_name)
    bot_names = list(bot_names)
    if game.teams and len(bot_names) == game.teams:  # one bot per team plays all its seats
        seats = game.variants[game.check(variant)][0]
        bot_names = [bot_names[s % game.teams] for s in range(seats)]
    variant = game.check(variant, len(bot_names))
    entries = [registry.bot(name, game.name) for name in bot_names]
    if seed is None:
        seed = secrets.randbelow(2**31)
        click.echo(f"seed {seed}", err=True)
    deal_seed = play_deal_seed(secret, seed)
    bots = [make_bot(e, limits) for e in entries]
    try:
        match, _ = play_match(game, variant, bots, deal_seed, bot_names, secret=secret)
    finally:
        for bot in bots:
            bot.close()
    if show or omniscient:
        # The transcript comes from replaying the stored actions with events recorded.
        state = replay(game, variant, len(bot_names), deal_seed, match.actions, record=True)
        print_renderable(render_transcript(match, state.events, omniscient), stderr=as_json)
    elif not as_json:
        print_renderable(render_result(match))
    if as_json:
        click.echo(json.dumps(play_record(game, match, seed, secret), indent=2,
                              ensure_ascii=False))


@cli.command()
@click.argument("game")
@click.argument("bot_names", metavar="BOT...", nargs=-1, required=True)
@click.option("--variant", help="Rule variant (default: the game's default).")
@click.option("--seed", type=click.IntRange(min=0), help="Match seed (default: random, shown).")
@click.option("--show", is_flag=True, help="Print a readable transcript.")
@click.option("--omniscient", is_flag=True, help="Show hidden cards too (implies --show).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the match as JSON on stdout, secret included (transcript to stderr).")
@click.option("--limits", default="", metavar="K=V,...",
              help="Bot limits over the defaults, e.g. move_s=0.5,strict=1 (docs/protocol.md).")
@secret_options
@click.pass_obj
def play(registry, game, bot_names, variant, seed, show, omniscient, as_json, limits,
         secret_from, public_seed) -> None:
    """Play one match: one BOT per seat, seat 0 first (in a team game, one BOT per team
    plays every seat of its team). The deal is keyed by a fresh random secret, which --json
    prints: pass that record back with --secret-from and the same --seed to play the same
    deal again."""
    _play(registry, game, variant, bot_names, seed, show, omniscient, as_json, limits,
          secret_of(secret_from, public_seed))


@cli.command()
@click.pass_obj
def demo(registry: Registry) -> None:
    """One match of each game and variant with the reference bots, then short seasons and
    their leaderboards."""
    import tempfile

    from .cli_league import run_demo_seasons

    for game, variant, bot_names, seed in DEMO:
        click.echo(f"{game} {variant}: {' vs '.join(bot_names)}, seed {seed}")
        _play(registry, game, variant, bot_names, seed, False, False, False)
    with tempfile.TemporaryDirectory() as tmp:
        run_demo_seasons(registry, f"sqlite:///{tmp}/demo.db")


@cli.command()
@click.option("--game", "game_name", default="vandtia", show_default=True)
@click.option("--variant", default="cardems", show_default=True)
@click.option("--players", type=click.IntRange(min=1), default=2, show_default=True)
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
@click.pass_obj
def bench(registry, game_name, variant, players, n, seed, season_matches, workers,
          season_db, season_dask) -> None:
    """Games per second on one core, in-process; with --season, a whole season's overhead."""
    game = registry.game(game_name)
    variant = game.check(variant, players)
    engine = engine_games(game, variant, players, n, seed)
    ref = referee_games(game, variant, players, max(1, n // 4), seed)
    entry = registry.bot("random", game.name)
    boxed = referee_games(game, variant, players, max(1, n // 4), seed, entry)
    bare = referee_games(game, variant, players, max(1, n // 4), seed, bare=True)
    table = Table("what", "games", "CPU s", "games/s per core", "moves/game", "asked/game")
    table.add_row("engine (state API, random choice)", str(engine["games"]),
                  f"{engine['cpu_s']:.2f}", f"{engine['games_per_s']:,.0f}",
                  f"{engine['moves_per_game']:.1f}", "")
    for label, r in (("referee, in-process random policies", ref),
                     ("referee, sandboxed random bots", boxed),
                     ("referee, bare random processes (the floor)", bare)):
        table.add_row(label, str(r["games"]), f"{r['cpu_s']:.2f}", f"{r['games_per_s']:,.0f}",
                      f"{r['moves_per_game']:.1f}", f"{r['asked_per_game']:.1f}")
    print_renderable(table)
    click.echo(f"legal lists: longest {engine['longest_legal']} actions, slowest to build "
               f"{engine['slowest_legal_us']:.0f} us (over {max(1, n // 10)} games)")
    rt = round_trip(entry, game, variant, players, min(20000, max(200, n * 10)), seed)
    click.echo(f"round trip per move, runner <-> sandboxed random bot: median "
               f"{rt['median_us']:.1f} us over {rt['moves']} moves (bare random process, "
               f"same messages: {rt['floor_us']:.1f} us)")
    if season_matches:
        s = season_bench(season_matches, workers, season_db, seed, season_dask)
        table = Table("season", "matches", "with a fault", "workers", "wall s", "in matches s",
                      "outside", "matches/s", "stored/s (storage alone)", "runner peak MB")
        where = "Dask LocalCluster" if season_dask else "local pool"
        table.add_row(f"random vs random, cardems, {where}", str(s["matches"]),
                      str(s["faults"]),
                      str(s["workers"]),
                      f"{s['wall_s']:.2f}", f"{s['match_s']:.2f}", f"{s['outside']:.1%}",
                      f"{s['matches_per_s']:,.0f}", f"{s['stored_per_s']:,.0f}",
                      f"{s['peak_mb']:.0f}")
        print_renderable(table)


@cli.command()
@click.pass_obj
def doctor(registry) -> None:
    """Which sandbox layers bot processes get on this machine."""
    import shutil

    from .sandbox import probe

    layers = probe()
    table = Table("layer", "active", "what it stops")
    table.add_row("rlimits", "yes" if layers["rlimits"] else "no",
                  "memory, CPU time, file size, open files")
    table.add_row("seccomp", "yes" if layers["seccomp"] else "no (libseccomp missing)",
                  "new processes, exec, sockets, signals to others, ptrace")
    abi = layers["landlock"]
    table.add_row("landlock", f"yes (ABI {abi})" if abi else "no (kernel without Landlock)",
                  "files outside the bot's own, TCP" + (", signals leaving" if abi >= 6 else ""))
    table.add_row("bubblewrap", "installed: --limits strict=1 adds it" if shutil.which("bwrap")
                  else "not installed (strict=1 unavailable)",
                  "other processes (PID namespace), network and IPC namespaces")
    print_renderable(table)
    if not (layers["seccomp"] and abi):
        click.echo("warning: a bot could reach files or processes it should not; see "
                   "docs/protocol.md", err=True)


@cli.command("check-bot")
@click.argument("name")
@click.option("--game", "games", multiple=True, help="Only this game (repeatable).")
@click.option("--matches", type=click.IntRange(min=2), default=3, show_default=True)
@click.pass_obj
def check_bot_command(registry, name, games, matches) -> None:
    """Conformance: start bot NAME sandboxed, play each game and variant it claims against
    random, check it resets between matches, report timings and faults."""
    from .conformance import check_bot

    checks = check_bot(registry, name, list(games) or None, matches)
    for check in checks:
        click.echo(("ok    " if check.ok else "FAIL  ") + check.describe())
    if not all(c.ok for c in checks):
        sys.exit(1)


def _register_league_commands() -> None:
    from .cli_league import leaderboard, replay_command, season, verify_command

    cli.add_command(season)
    cli.add_command(leaderboard)
    cli.add_command(replay_command)
    cli.add_command(verify_command)


_register_league_commands()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line and exit status 2."""
    try:
        code = cli.main(args=argv, prog_name="arena", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("arena: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"arena: error: {e.format_message()}", err=True)
        sys.exit(2)
    except ArenaError as e:
        click.echo(f"arena: error: {e}", err=True)
        sys.exit(2)
    except SQLAlchemyError as e:  # e.g. the database went read-only or away mid-run
        text = str(getattr(e, "orig", None) or e).splitlines()[0]
        click.echo(f"arena: error: database: {text}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
