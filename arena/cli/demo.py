"""``arena demo``: a match of each game and variant, then short seasons, stored like any
other, and what to look at next."""

from __future__ import annotations

import click

from . import _play, cli

MATCHES = [  # (game, variant, bots, seed): one match per game and variant, reference bots
    ("vandtia", "cardems", ["greedy", "random"], 7),
    ("vandtia", "swedish", ["greedy", "random", "random"], 7),
    ("vandtia", "german", ["greedy", "random", "greedy", "random"], 7),
    ("tractor", "deal", ["greedy", "random"], 7),
    ("cherki", "standard", ["greedy", "random", "first"], 7),
]

# (name, game, variant, players, bots, rounds, options): short duplicate seasons
SEASONS = [
    *[(f"demo-{v}", "vandtia", v, 2, ("greedy", "random"), 20, {})
      for v in ("cardems", "swedish", "german")],
    ("demo-tractor", "tractor", "deal", 4, ("greedy", "random"), 10, {"batch": 8, "teams": 2}),
    ("demo-cherki", "cherki", "standard", 3, ("greedy", "random", "first"), 10,
     {"every_seating": True}),
]


def free_name(taken: set[str], name: str) -> str:
    """``name``, or ``name-2``, ``name-3``... when a season of that name is stored: the demo
    can be run again on the same database."""
    n, candidate = 1, name
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


@cli.command()
@click.pass_obj
def demo(registry) -> None:
    """One match of each game and variant with the reference bots, then a short season of
    each, stored in the database (--db), with their leaderboards and what to try next."""
    from .. import db
    from ..errors import masked
    from ..leagues import league
    from ..leagues.scheduler import SeasonDef
    from .season import _show_leaderboard

    for game, variant, bot_names, seed in MATCHES:
        click.echo(f"{game} {variant}: {' vs '.join(bot_names)}, seed {seed}")
        _play(registry, game, variant, bot_names, seed, False, False, False)
    engine = db.connect(registry.db_url)
    taken = db.season_names(engine)
    names = []
    for name, game, variant, players, bots, rounds, options in SEASONS:
        name = free_name(taken, name)
        names.append(name)
        row = league.create(engine, registry, SeasonDef(name, game, variant, players, bots,
                                                        rounds, 1, **options))
        league.play(engine, registry, row, workers=2)
        _show_leaderboard(engine, registry, db.get_season(engine, row.name))
    click.echo(f"\nThe seasons are stored in {masked(registry.db_url)}. Next:\n"
               "  arena season list                       every season stored\n"
               f"  arena season show {names[0]} --matches  standings, crosstable, match ids\n"
               "  arena replay ID --seat 0                a match as seat 0 saw it\n"
               "  arena leaderboard vandtia               the cardems league's ratings\n"
               "  arena play vandtia greedy random --show a match of your own\n"
               "  arena report --open                     every league as HTML, with replays\n"
               "  docs/writing-a-bot.md                   write a bot and submit it")
