"""``arena connect``: a bot on this machine plays a league's matches (thin over
arena.sandbox.connect)."""

from __future__ import annotations

import click


@click.command("connect")
@click.argument("url")
@click.argument("bot")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN", required=True,
              help="Your account's API token (or $ARENA_TOKEN).")
@click.pass_obj
def connect_command(registry, url, bot, token) -> None:
    """Play the matches of the league served at URL (arena serve --league) with BOT, which
    stays on this machine: BOT is any bot arena knows here (installed, in a bots folder,
    --bots-dir); it runs here, in the sandbox, as a local match would run it, and the
    league sees it as a remote entrant of your account. Until Ctrl-C (a dropped connection
    is tried again within the server's grace period)."""
    from ..errors import ArenaError
    from ..sandbox.connect import connect

    entry = registry.bots().get(bot)
    if entry is None:
        raise ArenaError(f"unknown bot {bot!r} here (arena bots lists them; --bots-dir DIR "
                         "for a folder)")
    try:
        connect(url, token, bot.partition("@")[0], entry,
                say=lambda line: click.echo(f"arena: {line}", err=True))
    except KeyboardInterrupt:
        click.echo("arena: disconnected; the matches in play are forfeited after the "
                   "league's grace period", err=True)
        raise SystemExit(130) from None
