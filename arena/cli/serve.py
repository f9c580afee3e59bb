"""``arena serve``: the web application, thin over arena.web."""

from __future__ import annotations

import click


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0: every interface).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="The port (0: any free one, shown).")
@click.option("--max-tables", default=16, show_default=True, type=click.IntRange(1, 10000),
              help="Running tables in all; a visitor may run 2, with 12 bot processes.")
@click.option("--league", is_flag=True,
              help="A league others join: accounts sign in (arena user add, invitations), "
              "each with API tokens (docs/serving.md).")
@click.option("--signup", is_flag=True,
              help="With --league: anyone may make an account (default: by invitation).")
@click.option("--ladder", "ladders", multiple=True, metavar="GAME[:BOT,BOT]",
              help="With --league: start a ladder worker for GAME's ladder beside the server, "
              "the bots named standing on it (arena ladder GAME --serve --bots BOT,BOT; "
              "repeatable), stopped with it.")
@click.option("--remote-grace", type=click.FloatRange(0, 3600), default=30.0,
              show_default=True, metavar="SECONDS",
              help="With --league: how long a remote bot (arena connect) may be away before "
              "the matches it is in are forfeited.")
@click.option("--reviewer", metavar="BOT[:options]",
              help="The reviewer of practice tables' hints and reviews (default: arena "
              "review's, per game: ismcts:iterations=2000, Tractor 400, Cherki 1000).")
@click.pass_obj
def serve_command(registry, host, port, max_tables, league, signup, ladders,
                  remote_grace, reviewer) -> None:
    """Serve the leagues on the web: leaderboards, seasons and replays always current, a
    running season followed live, and tables where you play bots in the browser
    (docs/serving.md). Ctrl-C stops it; a match at a table goes on when it starts again."""
    import os

    from .. import db
    from ..web import serve

    # A bots-only table watched in a browser hung once in three runs on a loaded machine
    # with bots forked from the template (arena.sandbox.zygote), never without it: until
    # that is understood, the server starts its bots with the interpreter.
    os.environ.setdefault("ARENA_ZYGOTE", "0")
    engine = db.connect(registry.db_url)

    def ready(url: str) -> None:
        click.echo(f"arena: serving {url} (Ctrl-C stops)", err=True)

    workers = []
    try:
        if (signup or ladders) and not league:
            from ..errors import ArenaError

            raise ArenaError("--signup and --ladder go with --league")
        for spec in ladders:  # an unknown game or bot: one line, before anything starts
            game, _, bots = spec.partition(":")
            for bot in filter(None, bots.split(",")):
                registry.bot(bot.strip(), registry.game(game).name)
        workers = [_ladder_worker(registry, spec) for spec in ladders]
        if reviewer is not None:  # an unknown bot or a bad option: one line, now
            from ..plugins import parse_entrant

            plays = registry.bots().get(parse_entrant(reviewer)[0]) or {}
            for game in plays or [next(iter(registry.games()))]:
                registry.bot(reviewer, game)
        serve(engine, registry, host, port, ready=ready, max_tables=max_tables,
              league=league, signup=signup, remote_grace=remote_grace, reviewer=reviewer)
    except KeyboardInterrupt:  # uvicorn stops on Ctrl-C, then raises it again: the end asked
        pass
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait()
    click.echo("arena: stopped; a match at a table goes on where it was when the server "
               "starts again", err=True)


def _ladder_worker(registry, spec: str):
    """``arena ladder GAME --serve [--bots BOTS]`` (``spec``: ``GAME[:BOTS]``) as a process
    of its own, on this server's database,
    store and bots folders (given through the environment: a database URL's password never
    shows in a process list)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "ARENA_DB": registry.db_url}
    if registry.store:
        env["ARENA_STORE"] = str(registry.store)
    if registry.bots_dirs:
        env["ARENA_BOTS_DIR"] = os.pathsep.join(str(d) for d in registry.bots_dirs)
    game, _, bots = spec.partition(":")
    return subprocess.Popen([sys.executable, "-m", "arena", "ladder", game, "--serve",
                             *(["--bots", bots] if bots else [])],
                            env=env, stdin=subprocess.DEVNULL)
