"""``arena submit``, ``arena withdraw`` and ``arena ladder``: thin over arena.leagues.store and
arena.leagues.ladder."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from ..errors import ArenaError
from .options import secret_of, secret_options


def _store(registry, create: bool = False):
    from .. import db
    from ..leagues import store

    engine = db.connect(registry.db_url, create=create)
    return engine, store.store_folder(registry.db_url, registry.store)


@click.command("submit")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--author", help="Who submits it, for a new name (default: your user name); "
              "a name stays its first author's.")
@click.option("--key", envvar="ARENA_KEY", metavar="KEY",
              help="The bot's key: needed for a new version of a name; for a new name, the "
              "key to give it (default: one is made and shown once). Or $ARENA_KEY.")
@click.option("--matches", type=click.IntRange(min=1), default=3, show_default=True,
              help="check-bot's matches per game and variant.")
@click.option("--to", "url", metavar="URL",
              help="Submit to the league served there (arena serve --league), as the "
              "account of --token: the name becomes that account's.")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN",
              help="With --to: the account's API token (or $ARENA_TOKEN).")
@click.pass_obj
def submit_command(registry, path, author, key, matches, url, token) -> None:
    """Submit a bot - a .py file, a folder or a wheel - to the bot store: staged, listed and
    checked in the sandbox, then kept as the bot's next version (nothing of it is imported,
    built or installed here). Links, FIFOs and devices in it are refused. With --to, to a
    league's server instead, which does the same there."""
    from ..leagues import store

    if url is not None:
        answer = _submit_to(url, token, path, say=lambda line: click.echo(line, err=True))
        if answer["status"] == "refused":
            raise ArenaError(answer["message"])
        click.echo(f"{answer['bot']}: {answer['message']}")
        click.echo(f"(upload {answer['id']}; its placement shows on {url.rstrip('/')}/"
                   "mine.html)", err=True)
        return
    if token is not None:
        raise ArenaError("--token goes with --to URL")
    engine, folder = _store(registry, create=True)
    row, new, made = store.submit(engine, registry, folder, path, author, matches,
                                  say=lambda line: click.echo(line, err=True), key=key)
    if new:
        click.echo(f"{row.name}@{row.version}: accepted, version {row.version} of {row.name} "
                   f"({', '.join(json.loads(row.games))}), by {row.author}")
    else:
        click.echo(f"{row.name}@{row.version}: already submitted, the same content as "
                   f"version {row.version}")
    if made:
        click.echo(f"key for {row.name}: {made}\n(keep it: a new version of {row.name} needs "
                   "it, with --key or ARENA_KEY; it is not shown again)")


def _submit_to(url: str, token: str | None, path: Path, say=lambda line: None) -> dict:
    """POST ``path`` (a .py file or a wheel as it is, a folder as a gzipped tar of its files)
    to ``URL/api/submit`` with ``token``, then follow the upload until its check is done;
    the upload as the server last gave it (``kept`` or ``refused``)."""
    import io
    import os
    import stat
    import tarfile
    import urllib.request

    if not token:
        raise ArenaError("--to needs --token (or $ARENA_TOKEN): an API token of your account")
    if path.is_symlink() or not path.exists():
        raise ArenaError(f"{path}: not a file or folder to submit")
    if path.is_dir():
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for here, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(dirs + names):
                    full = Path(here) / name
                    mode = os.lstat(full).st_mode
                    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                        raise ArenaError(f"{full}: not a regular file or folder (a link?); "
                                         "a submission holds only files and folders")
                    if stat.S_ISREG(mode):
                        tar.add(full, arcname=str(full.relative_to(path)), recursive=False)
        data, filename = buffer.getvalue(), path.resolve().name + ".tar.gz"
    else:
        data, filename = path.read_bytes(), path.name
    base = url.rstrip("/")
    answer = _ask(urllib.request.Request(
        base + "/api/submit", data=data, method="POST",
        headers={"Authorization": f"Bearer {token}", "X-Arena-Filename": filename,
                 "Content-Type": "application/octet-stream"}), url)
    say(f"upload {answer['id']}: sent, waiting for its check")
    wait = 0.2
    while answer["status"] in ("waiting", "checking"):  # the server checks it, then says
        time.sleep(wait)
        wait = min(wait * 1.5, 2.0)
        answer = _ask(urllib.request.Request(
            f"{base}/api/uploads/{answer['id']}",
            headers={"Authorization": f"Bearer {token}"}), url)
    return answer


def _ask(request, url: str) -> dict:
    """A league server's JSON answer; ArenaError, its one line, for a refusal."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(request, timeout=900) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read()).get("error") or e.reason
        except ValueError:
            why = e.reason
        raise ArenaError(f"{url}: {why}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise ArenaError(f"cannot reach {url}: {reason}") from None


@click.command("key")
@click.argument("name")
@click.option("--author", help="Give the name to this author (default: its first author).")
@click.pass_obj
def key_command(registry, name, author) -> None:
    """Make a new key for submitted bot NAME, replacing any it had (a lost key, or a name
    submitted before keys): for whoever runs the league, who hands it to the author."""
    from .. import db
    from ..leagues import store

    key = store.set_key(db.connect(registry.db_url, create=False), name, author)
    click.echo(f"key for {name}: {key}")


@click.command("withdraw")
@click.argument("name")
@click.option("--disable", "mark", flag_value="disable",
              help="And disable it: it plays nowhere (named, on a table, in a season), its "
              "files kept.")
@click.option("--enable", "mark", flag_value="enable",
              help="Let a disabled bot play again (it stays off the ladder).")
@click.option("--delete", "mark", flag_value="delete",
              help="And delete it: disabled and its files removed from the store; its "
              "results stay in past seasons, marked deleted, and the name stays its owner's.")
@click.option("--yes", is_flag=True, help="With --delete: do not ask.")
@click.pass_obj
def withdraw_command(registry, name, mark, yes) -> None:
    """Take submitted bot NAME off the ladder: it places no more versions and leaves the
    ladder's table; its results stay, and it can still be named to play (unless disabled
    or deleted: for the league's organizer)."""
    from .. import db
    from ..leagues import store

    engine = db.connect(registry.db_url, create=False)
    if mark == "delete":
        store.versions(engine, name) or store.withdraw(engine, name)  # (no such bot: says so)
        if not yes:
            click.confirm(f"delete {name}: its code is removed for good (its results stay)",
                          abort=True, err=True)
        count = store.delete(engine, store.store_folder(registry.db_url, registry.store), name)
        click.echo(f"{name}: deleted ({count} version(s)); its results stay, marked deleted")
        return
    count = store.withdraw(engine, name, **({"disabled": mark == "disable"} if mark else {}))
    said = {"disable": "withdrawn and disabled: it plays nowhere",
            "enable": "enabled: it may be named to play again, off the ladder"}
    click.echo(f"{name}: {said.get(mark, 'withdrawn')} ({count} version(s)); its results "
               "stay")


@click.command("ladder")
@click.argument("game")
@click.option("--variant", help="Rule variant (default: the game's default).")
@click.option("--players", type=click.IntRange(min=1), help="Seats per match (default: fewest).")
@click.option("--bots", "named", default="", metavar="BOT,BOT,...",
              help="Bots that stand on the ladder beside the submitted ones (e.g. greedy).")
@click.option("--deals", type=click.IntRange(min=1), default=None,
              help="Deals per group a placement plays (default: 50).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--watch", "inbox", type=click.Path(path_type=Path), metavar="DIR",
              help="Keep going: place whatever is submitted, or dropped into DIR (then moved "
              "to DIR/accepted or DIR/refused), until Ctrl-C.")
@click.option("--serve", "serving", is_flag=True,
              help="Keep going as a league's ladder worker (arena serve --league): check "
              "the uploads waiting and place every version, until Ctrl-C. Run as many as you "
              "like, on one machine or several sharing a PostgreSQL league: each claims its "
              "work through the database.")
@click.option("--poll", type=click.FloatRange(min=0.05), default=2.0, show_default=True,
              help="With --watch or --serve: seconds between looks at the store.")
@click.option("--all-versions", is_flag=True, help="Show every version, not the latest.")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where placements' matches run.")
@click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler (tcp://HOST:8786).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@secret_options
@click.pass_obj
def ladder_command(registry, game, variant, players, named, deals, seed, inbox, serving, poll,
                   all_versions, workers, executor, scheduler, fmt, secret_from,
                   public_seed) -> None:
    """Place every submitted version of GAME's bots not yet placed (in submission order,
    against the ladder as it stood), then show the ladder's ratings."""
    from ..leagues import ladder as ladders
    from ..leagues import league, store, uploads
    from ..leagues.inbox import Inbox
    from ..plugins import split_entrants

    g = registry.game(game)
    variant = g.check(variant)
    players = players or g.variants[variant][0]
    g.check(variant, players)
    spec = ladders.Ladder(game, variant, players, tuple(split_entrants(named)),
                          deals or ladders.DEALS, seed,
                          secret_of(secret_from, public_seed) if (secret_from or public_seed)
                          else None)
    for bot in spec.named:
        registry.bot(bot, game)
    engine, folder = _store(registry, create=True)
    say = lambda line: click.echo(line, err=True)  # noqa: E731
    if inbox is not None and not inbox.is_dir():
        raise ArenaError(f"--watch: no folder {inbox}")
    watched = Inbox(inbox, say) if inbox is not None else None
    pool = league.make_executor(executor, workers, scheduler)
    try:
        while True:
            if watched is not None:
                watched.take(lambda path, key: store.submit(
                    engine, registry.refresh(), folder, path, say=say, key=key))
            if serving:
                while uploads.check_next(engine, registry, folder, say=say) is not None:
                    pass
            try:
                ladders.place(engine, registry.refresh(), spec, executor=pool,
                              workers=workers, say=say)
            except ArenaError as e:
                if not serving:
                    raise
                say(f"ladder: {e} (looked at again in {poll:g} s)")  # a worker goes on
            if watched is None and not serving:
                break
            time.sleep(poll)
    except KeyboardInterrupt:
        click.echo("ladder: stopped; run it again to go on", err=True)
        raise SystemExit(130) from None
    finally:
        if watched is not None:
            watched.close()
        if pool is not None:
            pool.shutdown()
    _show(engine, registry.refresh(), spec, all_versions, fmt)


def _show(engine, registry, spec, all_versions: bool, fmt: str) -> None:
    from ..leagues import ladder as ladders
    from ..views import leaderboard as views
    from ..views.transcript import print_renderable

    standings = ladders.standings(engine, registry, spec)
    gone = ladders.withdrawn(engine)
    standings = [s for s in standings if s.bot not in gone]
    if not all_versions:
        standings = ladders.latest_only(standings, engine)
    if fmt == "json":
        click.echo(views.to_json(standings))
        return
    if not standings:
        click.echo(f"ladder {spec.prefix.rstrip('/')}: nobody placed yet")
        return
    print_renderable(views.table(standings, f"ladder: {spec.game} {spec.variant}, "
                                            f"{spec.players} players"))
