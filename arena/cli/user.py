"""``arena user ...``: the accounts of a league others join (``arena serve --league``), thin
over arena.leagues.accounts. Whoever runs these commands runs the league: they reach the
database directly."""

from __future__ import annotations

import json

import click

from .season import _engine


@click.group("user")
def user() -> None:
    """Accounts of the league 'arena serve --league' serves: add them, make and revoke their
    API tokens, invite people, set passwords."""


@user.command("add")
@click.argument("name")
@click.option("--organizer", is_flag=True, help="An organizer (default: an author).")
@click.option("--password", "ask", is_flag=True,
              help="Also set a password for signing in in a browser (asked twice).")
@click.pass_obj
def user_add(registry, name, organizer, ask) -> None:
    """Add account NAME and print its first API token - once: only its hash is kept."""
    from ..leagues import accounts

    password = _ask_password() if ask else None
    row, token = accounts.add(_engine(registry, create=True), name,
                              "organizer" if organizer else "author", password)
    click.echo(f"account {row.name} ({row.role}) added; its API token (shown once, keep it "
               "where only you can read it):", err=True)
    click.echo(token)


@user.command("list")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def user_list(registry, fmt) -> None:
    """The accounts, with their API tokens (number, label, made, last used, revoked)."""
    from ..leagues import accounts
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable

    engine = _engine(registry)
    rows = []
    for a in accounts.accounts(engine):
        tokens = accounts.tokens(engine, a.name)
        rows.append({"name": a.name, "role": a.role, "password": a.password_hash is not None,
                     "disabled": a.disabled,
                     "tokens": [{"id": t.id, "label": t.label, "made": _when(t.created_at),
                                 "last_used": _when(t.last_used_at),
                                 "revoked": _when(t.revoked_at)} for t in tokens]})
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    t = grid("account", "role", "password", "token", "label", "last used", "revoked",
             title="accounts", names=("account",), wrap=("label",))
    for r in rows:
        first = True
        for tk in r["tokens"] or [None]:
            t.add_row(r["name"] if first else "", (r["role"] + (", disabled" if r["disabled"]
                                                               else "")) if first else "",
                      ("yes" if r["password"] else "no") if first else "",
                      "" if tk is None else str(tk["id"]), "" if tk is None else tk["label"],
                      "" if tk is None else tk["last_used"] or "never",
                      "" if tk is None else tk["revoked"] or "")
            first = False
    print_renderable(t)


@user.command("token")
@click.argument("name")
@click.option("--label", default="", help="What the token is for (shown in the list).")
@click.pass_obj
def user_token(registry, name, label) -> None:
    """Make a new API token for account NAME and print it - once."""
    from ..leagues import accounts

    row, token = accounts.new_token(_engine(registry), name, label)
    click.echo(f"token {row.id} of {name} (shown once):", err=True)
    click.echo(token)


@user.command("revoke")
@click.argument("token_id", type=int)
@click.pass_obj
def user_revoke(registry, token_id) -> None:
    """Revoke API token TOKEN_ID (its number in 'arena user list')."""
    from ..leagues import accounts

    accounts.revoke(_engine(registry), token_id)
    click.echo(f"token {token_id} revoked")


@user.command("password")
@click.argument("name")
@click.pass_obj
def user_password(registry, name) -> None:
    """Set account NAME's password (asked twice); its browsers are signed out."""
    from ..leagues import accounts

    accounts.set_password(_engine(registry), name, _ask_password())
    click.echo(f"password of {name} set; its browsers are signed out")


@user.command("invite")
@click.option("--organizer", is_flag=True, help="The account it makes is an organizer's.")
@click.option("--days", type=click.IntRange(1, 365), default=7, show_default=True,
              help="Days the invitation holds.")
@click.option("--url", metavar="URL", help="The league's address, to print a whole link.")
@click.pass_obj
def user_invite(registry, organizer, days, url) -> None:
    """Print an invitation: a link that makes one account, once, within --days."""
    from ..leagues import accounts

    code = accounts.invite(_engine(registry, create=True),
                           "organizer" if organizer else "author", days)
    base = (url.rstrip("/") + "/") if url else ""
    click.echo(f"{base}signup.html?invite={code}")


@user.command("disable")
@click.argument("name")
@click.option("--enable", is_flag=True, help="Enable it again.")
@click.pass_obj
def user_disable(registry, name, enable) -> None:
    """Disable account NAME: its tokens and sign-ins act for nobody until enabled."""
    from ..leagues import accounts

    accounts.set_disabled(_engine(registry), name, not enable)
    click.echo(f"account {name} {'enabled' if enable else 'disabled'}")


@user.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask.")
@click.pass_obj
def user_delete(registry, name, yes) -> None:
    """Delete account NAME and its bots: it signs in no more, its tokens act for nobody,
    its bots' code is removed (their results stay, marked deleted); the name is never
    given to another account."""
    from ..leagues import accounts, authors, store

    engine = _engine(registry)
    accounts.get(engine, name)  # (no such account: says so, before asking)
    bots = sorted(authors.names(engine, name))
    if not yes:
        click.confirm(f"delete account {name} and its bots ({', '.join(bots) or 'none'})",
                      abort=True, err=True)
    accounts.delete(engine, name)
    folder = store.store_folder(registry.db_url, registry.store) if bots else None
    for bot in bots:
        if store.versions(engine, bot):
            store.delete(engine, folder, bot)
    click.echo(f"account {name} deleted" + (f", and its bots: {', '.join(bots)}" if bots
                                            else ""))


def _ask_password() -> str:
    from ..leagues import accounts

    password = click.prompt("password", hide_input=True, confirmation_prompt=True,
                            err=True)
    return accounts.check_password(password)


def _when(moment) -> str | None:
    return None if moment is None else moment.strftime("%Y-%m-%d %H:%M")
