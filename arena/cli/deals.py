"""``arena deals``: deal books (``arena.games.book``) checked and exported, and the
``--deals FILE`` that ``match`` and ``season run`` play."""

from __future__ import annotations

import json

import click

from ..errors import ArenaError


def load_book(registry, path: str, game: str | None, variant: str | None,
              players: int | None):
    """The book in ``path`` for the command's game (``game``/``variant``/``players``: what
    the command was given, None where the book decides); ArenaError naming the line of its
    first fault, or the setting it does not fit. Returns ``(book, deals)``: ``deals`` as a
    season stores them."""
    from ..games import book as books

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ArenaError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    found = books.read(text, registry, where=path)
    for label, asked, has in (("game", game, found.game), ("variant", variant, found.variant),
                              ("players", players, found.players)):
        if asked is not None and asked != has:
            raise ArenaError(f"{path} is a book of {found.game} {found.variant} for "
                             f"{found.players} players: its {label} is {has}, not {asked}")
    return found, stored_deals(found.entries)


def stored_deals(entries) -> tuple[str, ...]:
    """A book's entries as ``SeasonDef.deals`` holds them."""
    return tuple(json.dumps({"name": e.name, "deal": e.deal}, sort_keys=True) for e in entries)


def season_book(registry, engine, row, match_id: int | None = None) -> str:
    """The deal book of a stored season (or of one of its matches): a season played from
    a book gives that book's deals under their names; otherwise each deal a seed dealt,
    named SEASON.rROUND (.gGROUP where a round has several), as ``Game.to_deal`` writes it
    - the first deal of a Tractor match (its later deals come from the seed that plays it)."""
    from .. import db
    from ..games import book as books
    from ..leagues.league import definition
    from ..leagues.scheduler import fixtures

    defn = definition(row)
    game = registry.game(row.game)
    stored = {m.fixture: m for m, _ in db.season_matches(engine, row.id)}
    if match_id is not None:
        stored = {f: m for f, m in stored.items() if m.id == match_id}
        if not stored:
            raise ArenaError(f"match {match_id} is not one of {row.name}'s")
    if not stored:
        raise ArenaError(f"{row.name} has no stored match: no deal to export")
    every = list(fixtures(defn))
    played = {fx.round if defn.deals else fx.seed for fx in every if fx.index in stored}
    entries, seen, groups = [], set(), {}
    base = books.as_name(row.name)[:60]
    several = _groups(defn) > 1
    for fx in every:
        key = fx.round if defn.deals else fx.seed  # a book's deal is a round's
        if key in seen:
            continue
        seen.add(key)
        group = groups[fx.round] = groups.get(fx.round, -1) + 1  # its place in the round
        if key not in played:
            continue
        if defn.deals:
            entries.append(_entry(defn.deals[fx.round]))
        else:
            state = game.start(row.variant, row.players, fx.seed)
            entries.append((f"{base}.r{fx.round}" + (f".g{group}" if several else ""),
                            game.to_deal(state)))
    what = f"match {match_id} of {row.name}" if match_id is not None else row.name
    return books.write(game, row.variant, row.players, entries,
                       comment=f"the deals of {what}: {len(entries)} deal"
                       + ("s" if len(entries) != 1 else ""))


def _entry(text: str) -> tuple[str, dict]:
    value = json.loads(text)
    return value["name"], value["deal"]


def _groups(defn) -> int:
    """The deals of a round: its groups of bots (a field match: one)."""
    from ..leagues.scheduler import fixture_count

    return 1 if defn.field else fixture_count(defn) // defn.rounds // defn.seatings


@click.group()
def deals() -> None:
    """Deal books: a set of deals in a text file (docs/deal-books.md), played with
    'arena match --deals FILE' or 'arena season run --deals FILE'."""


@deals.command("check")
@click.argument("path", metavar="FILE")
@click.pass_obj
def check_command(registry, path) -> None:
    """Read the deal book FILE: its deals, or the line of its first fault (exit 2)."""
    found, _ = load_book(registry, path, None, None, None)
    n = len(found.entries)
    click.echo(f"{path}: {n} deal{'s' if n != 1 else ''} of {found.game} {found.variant} for "
               f"{found.players} players: " + ", ".join(e.name for e in found.entries))


@deals.command("export")
@click.argument("name", metavar="SEASON")
@click.option("--match", "match_id", type=int, metavar="ID",
              help="Only the deal of this stored match of SEASON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write the book to this file (default: standard output).")
@click.pass_obj
def export_command(registry, name, match_id, output) -> None:
    """The deals of a stored season or match (SEASON: a season's or a match's name) as a
    deal book, which --deals plays again."""
    from .. import db
    from .season import _engine

    engine = _engine(registry)
    text = season_book(registry, engine, db.get_season(engine, name), match_id)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
