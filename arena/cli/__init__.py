"""The ``arena`` command: thin click commands over the library.

Any mistake a user can make (unknown game, variant or bot, wrong player count, bad option)
ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sys

import click

from .. import DEFAULT_DB, __version__
from ..errors import ArenaError, masked
from .options import secret_of, secret_options


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("--bots-dir", "bots_dirs", multiple=True, metavar="DIR",
              help="Folder of single-file bots (repeatable; default: $ARENA_BOTS_DIR).")
@click.option("--db", "db_url", metavar="URL", envvar="ARENA_DB",
              help=f"Database URL (default: $ARENA_DB or {DEFAULT_DB}).")
@click.option("--store", "store", metavar="DIR", envvar="ARENA_STORE",
              help="Folder of submitted bots (default: bots/ beside a SQLite database).")
@click.pass_context
def cli(ctx: click.Context, bots_dirs: tuple[str, ...], db_url: str | None,
        store: str | None) -> None:
    """Run card-game bot tournaments."""
    from ..plugins import Registry, bots_dirs_from_env

    ctx.obj = Registry(bots_dirs=list(bots_dirs) or bots_dirs_from_env())
    ctx.obj.db_url = db_url or DEFAULT_DB
    ctx.obj.store = store
    ctx.obj.submitted = lambda: _submitted(ctx.obj)


def _submitted(registry) -> list:
    """The submitted bots of the database, if there is one (nothing is made for this; a
    SQLite file that is not there is not even looked for with the database's code)."""
    import os

    url = registry.db_url
    if url.startswith("sqlite:///") and "?" not in url and not os.path.exists(
            url[len("sqlite:///"):]):
        return []
    from .. import db
    from ..leagues import store

    try:
        engine = db.connect(registry.db_url, create=False)
    except ArenaError:
        return []
    if not store.versions(engine):
        return []
    try:
        folder = store.store_folder(registry.db_url, registry.store)
    except ArenaError as e:
        registry.broken["submitted bots"] = str(e)
        return []
    return store.entries(engine, folder)


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def games(registry, fmt) -> None:
    """List the games, their variants and player counts."""
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable

    rows = [{"game": game.name, "variant": variant, "default": variant == game.default_variant,
             "players": list(counts), "move_cap": game.move_cap,
             "move_cap_per": game.move_cap_per, "about": game.description}
            for game in registry.games().values() for variant, counts in game.variants.items()]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = grid("game", "variant", "players", "move cap", "about", names=("game", "variant"),
                 wrap=("about",))
    for r in rows:
        counts = r["players"]
        players = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        table.add_row(r["game"], r["variant"] + (" (default)" if r["default"] else ""),
                      players, f"{r['move_cap']} per {r['move_cap_per']}", r["about"])
    print_renderable(table)


def _declared(per_game: dict) -> str:
    """A bot's declared options with their defaults; a default that differs by game is
    followed by the games that differ: ``iterations=200 (tractor: 30)``."""
    first = next(iter(per_game.values())).options
    out = []
    for key in dict.fromkeys(k for e in per_game.values() for k in e.options):
        value = first.get(key)
        other = ", ".join(f"{g}: {_written(e.options.get(key))}" for g, e in per_game.items()
                          if e.options.get(key) != value)
        out.append(f"{key}={_written(value)}" + (f" ({other})" if other else ""))
    return ", ".join(out)


def _written(value) -> str:
    """An option's value as it is written after ``NAME:key=``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@cli.command()
@click.option("--versions", "of", metavar="NAME", help="Every version of submitted bot NAME.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def bots(registry, of, fmt) -> None:
    """List the bots, the games they play and where they come from; submitted bots by
    their latest version, with its author, date and games played."""
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable

    played = _played(registry) if registry.bots() and registry.latest else {}
    if of is not None:
        table = _versions_table(registry, of, played, fmt)
        if table is not None:
            print_renderable(table)
        return
    rows = []
    for name, per_game in registry.bots().items():
        base, _, version = name.partition("@")
        if version and registry.latest.get(base) != name:
            continue  # an older version: --versions NAME lists them
        sources = sorted({entry.source for entry in per_game.values()})
        options = ("any" if any(e.options is None for e in per_game.values()) else
                   _declared(per_game) or "none")
        if version:
            sources = [f"version {version}, {sources[0]}, {played.get(name, 0)} matches"]
        rows.append({"bot": name, "games": list(per_game), "options": options,
                     "source": "; ".join(sources)})
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        table = grid("bot", "games", "options", "source", names=("bot",),
                     wrap=("source", "games", "options"))
        for r in rows:
            table.add_row(r["bot"], ", ".join(r["games"]), r["options"], r["source"])
        print_renderable(table)
    for source, error in registry.broken.items():
        click.echo(f"not loaded: {source}: {error}", err=True)


def _played(registry) -> dict[str, int]:
    """Matches played per bot name, from the database (none if there is none)."""
    from .. import db

    try:
        return db.matches_played(db.connect(registry.db_url, create=False))
    except ArenaError:
        return {}


def _versions_table(registry, name: str, played: dict, fmt: str = "table"):
    from .. import db
    from ..leagues import store
    from ..views.leaderboard import grid

    rows = store.versions(db.connect(registry.db_url, create=False), name)
    if not rows:
        raise ArenaError(f"no submitted bot named {name!r}")
    if fmt == "json":
        click.echo(json.dumps([{
            "version": f"{name}@{row.version}", "author": row.author,
            "submitted": row.submitted_at.isoformat(timespec="seconds"),
            "games": json.loads(row.games), "matches": played.get(f"{name}@{row.version}", 0),
            "content": row.content, "withdrawn": row.withdrawn} for row in rows], indent=2))
        return None
    table = grid("version", "author", "submitted", "games", "matches", "content", "status",
                 title=f"{name}: {len(rows)} version(s)", names=("version", "author"),
                 wrap=("games",), right=("matches",))
    for row in rows:
        table.add_row(f"{name}@{row.version}", row.author, f"{row.submitted_at:%Y-%m-%d %H:%M}",
                      ", ".join(json.loads(row.games)),
                      str(played.get(f"{name}@{row.version}", 0)), row.content[:12],
                      "withdrawn" if row.withdrawn else "")
    return table


class _Moves:
    """The match's state as the referee drives it, counting its moves: on a terminal, a line
    on stderr says how far a long match has got (moves, the deal, the time) and that Ctrl-C
    stops it; piped, nothing is shown."""

    def __init__(self, game, state):
        from rich.console import Console

        self._game, self._state = game, state
        self._console = Console(stderr=True)
        self._status = None
        self._started = self._shown = 0.0

    def __enter__(self):
        import time

        self._started = time.monotonic()
        if self._console.is_terminal:
            self._status = self._console.status(self._text(), spinner="dots")
            self._status.start()
            self._status.update(self._text())  # drawn at once, however short the match
        return self

    def __exit__(self, *exc) -> None:
        if self._status is not None:
            self._status.stop()

    def __getattr__(self, name):
        return getattr(self._state, name)

    def _text(self) -> str:
        import time

        seconds = int(time.monotonic() - self._started)
        deal = ""
        if self._game.name == "tractor":
            deal = f", deal {self._state.observation(0)['deal']}"
        return (f"{self._game.name}: move {self._state.moves}{deal}, {seconds // 60}:"
                f"{seconds % 60:02d} (Ctrl-C stops)")

    def apply(self, action) -> None:
        import time

        self._state.apply(action)
        if self._status is not None and time.monotonic() - self._shown > 0.25:
            self._shown = time.monotonic()
            self._status.update(self._text())


def _play(registry, game_name, variant, bot_names, seed, show, omniscient, as_json,
          limits="", secret=None):
    from ..plugins import is_human
    from ..referee import play_deal_seed, play_match, replay
    from ..sandbox.bot import make_bot
    from ..sandbox.process import Limits
    from ..views.exports import play_record
    from ..views.transcript import print_renderable, render_result, render_transcript

    limits = Limits.parse(limits)
    secret = secret or secret_of(None, False)
    game = registry.game(game_name)
    bot_names = list(bot_names)
    people = any(is_human(name) for name in bot_names)
    if game.teams and len(bot_names) == game.teams:  # one bot per team plays all its seats
        seats = game.variants[game.check(variant)][0]
        if people:
            raise ArenaError(f"a person plays one seat: name a bot or a person for each of "
                             f"the {seats} seats (e.g. human {' '.join(['greedy'] * 3)})")
        bot_names = [bot_names[s % game.teams] for s in range(seats)]
    variant = game.check(variant, len(bot_names))
    if people:
        _play_human(registry, game, variant, bot_names, seed, as_json, limits, secret)
        return
    entries = [registry.bot(name, game.name) for name in bot_names]
    if seed is None:
        seed = secrets.randbelow(2**31)
        click.echo(f"seed {seed}", err=True)
    deal_seed = play_deal_seed(secret, seed)
    bots = [make_bot(e, limits) for e in entries]
    try:
        with _Moves(game, game.new_state(variant, len(bot_names), deal_seed)) as state:
            match, _ = play_match(game, variant, bots, deal_seed, bot_names, secret=secret,
                                  state=state)
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
    show_fault_logs(match.players, match.result.faults, match.logs)


def _play_human(registry, game, variant, names, seed, as_json, limits, secret) -> None:
    """``arena play`` with a person in one or more seats: the match is stored as a season
    of its own (``arena.leagues.humans``); Ctrl-C abandons it (stored as abandoned)."""
    import time

    from .. import db
    from ..leagues import humans
    from ..plugins import check_human, is_human
    from ..referee import play_match
    from ..sandbox.bot import make_bot
    from ..views.exports import play_record
    from ..views.transcript import print_renderable, render_result
    from .human import TerminalSeat

    for name in names:
        if is_human(name):
            check_human(name)
    names = [name if is_human(name) else registry.canonical(name) for name in names]
    entries = {name: registry.bot(name, game.name) for name in names if not is_human(name)}
    engine = db.connect(registry.db_url)
    defn = humans.create(engine, registry, game.name, variant, names, seed, secret)
    deal_seed = humans.deal_seed(defn)
    state = game.new_state(variant, len(names), deal_seed, record=True)
    seats = []
    try:
        for name in names:
            seats.append(TerminalSeat(name, lambda: state.events, names, stderr=as_json)
                         if is_human(name) else make_bot(entries[name], limits))
        start = time.perf_counter()
        match, _ = play_match(game, variant, seats, deal_seed, names, secret=defn.secret,
                              state=state)
    except KeyboardInterrupt:
        humans.abandon(engine, defn, state.moves)
        click.echo(f"arena: match abandoned at move {state.moves}: season {defn.name} is "
                   "marked abandoned, with no result", err=True)
        sys.exit(130)
    finally:
        for seat in seats:
            seat.close()
    match_id = humans.store(engine, defn, match, time.perf_counter() - start)
    if as_json:
        click.echo(json.dumps(play_record(game, match, defn.seed, defn.secret), indent=2,
                              ensure_ascii=False))
    else:
        print_renderable(render_result(match))
    click.echo(f"stored as match {match_id} (season {defn.name}): 'arena replay "
               f"{match_id}' shows it", err=True)
    show_fault_logs(match.players, match.result.faults, match.logs)


def show_fault_logs(names, faults, logs) -> None:
    """On stderr, each faulty seat's reason and the end of its log (where the cause of
    ``crash: exited with status 254`` is: a traceback, ``fork: Operation not permitted``)."""
    for seat, fault in enumerate(faults):
        if fault:
            log = (logs.get(seat) or logs.get(str(seat)) or "").rstrip()
            tail = f"; the end of its log:\n{log}" if log else "; it logged nothing"
            click.echo(f"seat {seat} ({names[seat]}) forfeits: {fault}{tail}", err=True)


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
    deal again. A BOT written human (or human:NAME) is you: that seat is played here, and
    the match is stored (docs/playing.md)."""
    _play(registry, game, variant, bot_names, seed, show, omniscient, as_json, limits,
          secret_of(secret_from, public_seed))


def _register_commands() -> None:
    from . import demo, tools  # noqa: F401 - their commands register themselves on ``cli``
    from .connect import connect_command
    from .deals import deals
    from .match import gauntlet_command, match_command
    from .report import report_command
    from .review import review_command
    from .season import leaderboard, replay_command, season, verify_command
    from .serve import serve_command
    from .store import key_command, ladder_command, submit_command, withdraw_command
    from .user import user

    for command in (season, leaderboard, replay_command, verify_command, match_command,
                    gauntlet_command, report_command, submit_command, withdraw_command,
                    ladder_command, key_command, serve_command, review_command, user,
                    connect_command, deals):
        cli.add_command(command)


_register_commands()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user mistakes become one line and exit status 2."""
    try:
        code = cli.main(args=argv, prog_name="arena", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("arena: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"arena: error: {masked(e.format_message())}", err=True)
        sys.exit(2)
    except ArenaError as e:
        click.echo(f"arena: error: {masked(str(e))}", err=True)
        sys.exit(2)
    except Exception as e:
        exc = sys.modules.get("sqlalchemy.exc")  # imported only by commands that use it
        if exc is None or not isinstance(e, exc.SQLAlchemyError):
            raise
        # e.g. the database went read-only or away mid-run
        text = str(getattr(e, "orig", None) or e).splitlines()[0]
        click.echo(f"arena: error: database: {masked(text)}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
