"""``arena match``: a candidate against a baseline on duplicate deals, thin over
arena.leagues.match and arena.leagues.league."""

from __future__ import annotations

import json
import math
import secrets
from dataclasses import replace

import click

from ..errors import ArenaError
from .options import secret_of, secret_options
from .season import _engine, _run, _stored_in


def match_line(tally) -> str:
    """The live figures: pairs, score, Elo ± interval, LLR and its bounds."""
    e, test = tally.estimate(), tally.sprt()
    line = (f"{tally.pair_count} pairs, score {100 * e.score:.1f} %, "
            f"Elo {_elo(e)}" + (" (luck-adjusted)" if tally.adjust else ""))
    if test is not None:
        line += f", LLR {test.llr:.2f} ({test.lower:.2f}, {test.upper:.2f})"
    return line


def _elo(e) -> str:
    if e.pairs == 0:
        return "-"
    if not math.isfinite(e.elo_error):  # a one-sided interval has no ±
        return f"{e.elo:+.1f} [{e.elo_low:+.1f}, {e.elo_high:+.1f}]"
    return f"{e.elo:+.1f} ± {e.elo_error:.1f}"


def summary_lines(tally, title: str) -> list[str]:
    """The summary, as fastchess prints one."""
    e, test = tally.estimate(), tally.sprt()
    w, d, losses = tally.games
    lines = [title,
             f"Elo {_elo(e)} (95 %" + (", luck-adjusted)" if tally.adjust else ")")
             + (f"  [{e.elo_low:+.1f}, {e.elo_high:+.1f}]"
                if e.pairs and math.isfinite(e.elo_error) else ""),
             f"LOS {100 * e.los:.1f} %"]
    if tally.adjust:
        raw = tally.raw_estimate()
        ratio = (f", pair variance adjusted / raw {e.variance / raw.variance:.2f}, beta "
                 f"{tally.beta():.2f}" if raw.variance > 0 and e.pairs else "")
        lines.append(f"Raw: Elo {_elo(raw)}, LOS {100 * raw.los:.1f} %{ratio}")
    if test is not None:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "continues"}[test.decision]
        lines.append(f"LLR {test.llr:.2f} ({test.lower:.2f}, {test.upper:.2f}) "
                     f"[{test.elo0:g}, {test.elo1:g}] — {verdict}")
    if tally.field:
        lines += [f"Games {2 * tally.pair_count}; pairs where the candidate placed better, "
                  f"level, worse: {w} / {d} / {losses}"]
    else:
        lines += [f"Games {sum(tally.games)}: W {w} / D {d} / L {losses}",
                  f"Pairs [LL, LD, DD+WL, WD, WW]: {tally.pairs}"]
    return lines


def match_options(f):
    """The options ``match`` and ``gauntlet`` share."""
    for option in reversed([
        click.option("--game", default="vandtia", show_default=True),
        click.option("--variant", help="Rule variant (default: the game's default)."),
        click.option("--games", type=click.IntRange(min=2), default=1000, show_default=True,
                     help="Games at most (per opponent): every deal is played twice, seats "
                     "(or teams' cards) swapped."),
        click.option("--sprt", "sprt_text", metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
                     help="Stop as soon as the SPRT decides (alpha and beta default to 0.05)."),
        click.option("--seed", type=click.IntRange(min=0),
                     help="Root seed (default: random, shown)."),
        click.option("--field", default="", metavar="BOT,BOT,...",
                     help="For a game of more seats: the bots of the other seats (one fewer "
                     "than the seats; bots may repeat). Each deal is played once per seat "
                     "by the candidate and by the baseline in that seat, the field around."),
        click.option("--name", help="Match name (default: match-GAME-VARIANT-CANDIDATE-BASELINE-"
                     "SEED, and -field-BOT+BOT... with a field, -luck adjusted); the "
                     "same command with the same name resumes it."),
        click.option("--workers", type=click.IntRange(min=1),
                     help="Worker processes (default: cores)."),
        click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
                     show_default=True),
        click.option("--scheduler", metavar="ADDRESS",
                     help="The Dask scheduler (tcp://HOST:8786)."),
        click.option("--limits", default="", metavar="K=V,...",
                     help="Bot limits over the defaults, e.g. move_s=0.5."),
        click.option("--inflight", type=click.IntRange(min=1), metavar="K",
                     help="Matches each worker plays side by side (default: 16; the results "
                     "do not depend on it)."),
        click.option("--adjust", type=click.Choice(["none", "luck"]), default="none",
                     show_default=True,
                     help="luck: score each game less the luck of the cards (chance "
                     "corrections, computed beside the play and stored); Elo, LOS and the "
                     "SPRT on the adjusted pair scores, the raw figures beside."),
        click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
                     show_default=True),
    ]):
        f = option(f)
    return secret_options(f)


@click.command("match")
@click.argument("candidate")
@click.argument("baseline")
@match_options
@click.pass_obj
def match_command(registry, candidate, baseline, fmt, **options) -> None:
    """Is CANDIDATE better than BASELINE? Plays them on duplicate deals - each deal twice,
    the seats or the teams' cards swapped, a pair scoring 0, 1/4, 1/2, 3/4 or 1 - and prints
    the Elo difference with its 95 % interval, the LOS and, with --sprt, the test's LLR."""
    row, tally = play(registry, candidate, baseline, quiet=fmt == "json", **options)
    if fmt == "json":
        click.echo(json.dumps(_json(row, tally), indent=2))
    else:
        title = (f"{candidate} vs {baseline}, {row.game} {row.variant}"
                 + (f" in a field of {options['field']}" if options["field"] else "")
                 + f": {tally.pair_count} pairs")
        for line in summary_lines(tally, title):
            click.echo(line)
        _stored_in(registry, row.name)


@click.command("gauntlet")
@click.argument("candidate")
@click.option("--against", required=True, metavar="BOT,BOT,...",
              help="The opponents: one match against each, in turn.")
@match_options
@click.pass_obj
def gauntlet_command(registry, candidate, against, fmt, name, seed, **options) -> None:
    """CANDIDATE against each bot of --against: one match each (named NAME-OPPONENT, on the
    same seed), a summary line per opponent and a table of them all."""
    from ..plugins import split_entrants
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable

    opponents = list(split_entrants(against))
    if not opponents:
        raise ArenaError("--against needs at least one bot")
    seed = secrets.randbelow(2**31) if seed is None else seed
    variant = registry.game(options["game"]).check(options["variant"])
    base = name or (f"gauntlet-{options['game']}-{variant}-{candidate}-{seed}"
                    + ("-luck" if options["adjust"] == "luck" else ""))
    done = []
    for opponent in opponents:
        row, tally = play(registry, candidate, opponent, name=f"{base}-{opponent}", seed=seed,
                          quiet=fmt == "json", **options)
        done.append((row, tally))
        if fmt != "json":
            click.echo(f"vs {opponent}: {match_line(tally)}"
                       + (f", {tally.sprt().decision} accepted" if tally.decision else ""))
    if fmt == "json":
        click.echo(json.dumps([_json(row, tally) for row, tally in done], indent=2))
        return
    t = grid("opponent", "pairs", "score", "Elo (95 %)", "LOS", "SPRT",
             title=f"{candidate}: gauntlet {base}"
             + (" (luck-adjusted)" if options["adjust"] == "luck" else ""), wrap=("opponent",),
             right=("pairs", "score", "Elo (95 %)", "LOS"))
    for _, tally in done:
        e, test = tally.estimate(), tally.sprt()
        t.add_row(tally.baseline, str(tally.pair_count), f"{100 * e.score:.1f} %", _elo(e),
                  f"{100 * e.los:.1f} %",
                  "" if test is None else f"{test.decision or 'open'} (LLR {test.llr:.2f})")
    print_renderable(t)


def _json(row, tally) -> dict:
    return {"match": row.name, "game": row.game, "variant": row.variant, "seed": row.seed,
            **tally.to_json()}


def play(registry, candidate, baseline, game, variant, games, sprt_text, seed, field, name,
         workers, executor, scheduler, limits, inflight, secret_from, public_seed,
         adjust="none", quiet=False):
    """Create (or resume) the match and play it; its stored row and tally."""
    from .. import db
    from ..leagues import league
    from ..leagues.match import SprtSpec, summary
    from ..leagues.scheduler import SeasonDef, default_batch
    from ..plugins import split_entrants

    g = registry.game(game)
    variant = g.check(variant)
    counts = g.variants[variant]
    candidate, baseline = registry.canonical(candidate), registry.canonical(baseline)
    field = tuple(map(registry.canonical, split_entrants(field))) if field else ()
    if field:
        if g.teams:
            raise ArenaError(f"{g.title} is played in teams: a match there is one bot per "
                             "team, without a field")
        players, teams = len(field) + 1, 0
        if players not in counts:
            raise ArenaError(f"{g.title} {variant} is played by {counts[0]}-{counts[-1]}: a "
                             f"field is one bot fewer, not {len(field)}"
                             if len(counts) > 1 else
                             f"{g.title} {variant} is played by {counts[0]}: a field is "
                             f"{counts[0] - 1} bots, not {len(field)}")
    elif g.teams:
        players, teams = counts[0], g.teams
    elif 2 in counts:
        players, teams = 2, 0
    else:
        raise ArenaError(f"{g.title} {variant} is played by {counts[0]}: a match needs "
                         f"--field, the {counts[0] - 1} bots of the other seats")
    if candidate == baseline:
        raise ArenaError("a match needs two different bots")
    from ..luck import adjust_option

    adjust = adjust_option(g, variant, adjust)
    spec = str(SprtSpec.parse(sprt_text)) if sprt_text else ""
    seed = secrets.randbelow(2**31) if seed is None else seed
    name = name or "-".join(["match", game, variant, candidate, baseline, str(seed)]
                            + (["field", "+".join(field)] if field else [])
                            + (["luck"] if adjust else []))
    engine = _engine(registry, create=True)
    bots = tuple(dict.fromkeys((candidate, baseline, *field)))
    rounds = max(1, games // (2 * players)) if field else (games + 1) // 2
    defn = SeasonDef(name, game, variant, players, bots, rounds, seed, 1, limits, 5, teams,
                     secret=None, kind="match", sprt=spec, field=field, adjust=adjust,
                     **({"inflight": inflight} if inflight else {}))
    row = _existing(engine, defn)
    pool = league.make_executor(executor, workers, scheduler)
    if row is None:
        defn = replace(defn, secret=secret_of(secret_from, public_seed))
        # small batches: an SPRT's end is known batch by batch, and what is in flight then
        # is played for nothing
        defn = replace(defn, batch=min(default_batch(g, defn), 32 if spec else 512))
        row = league.create(engine, registry, defn)
        click.echo(f"match {row.name}: {candidate} vs {baseline}, {game} {variant}, at most "
                   f"{row.fixtures} games, seed {seed}", err=True)
    else:
        click.echo(f"match {row.name}: resumed", err=True)
    if row.status != "done":
        _run(engine, registry, row, pool, quiet=quiet,
             view=lambda rater: match_line(rater.tally))
    else:
        pool.shutdown()
    row = db.get_season(engine, row.name)
    return row, summary(engine, league.definition(row), row.id)


def _existing(engine, defn):
    """The stored match ``defn`` names, when it is the same match (then it resumes);
    ArenaError when the name belongs to something else."""
    from .. import db
    from ..leagues import league

    try:
        row = db.get_season(engine, defn.name)
    except ArenaError:
        return None
    stored = league.definition(row)
    same = (stored.kind, stored.game, stored.variant, stored.bots, stored.rounds,
            stored.seed, stored.sprt, stored.limits, stored.field, stored.adjust) == (
            defn.kind, defn.game, defn.variant, defn.bots, defn.rounds, defn.seed,
            defn.sprt, defn.limits, defn.field, defn.adjust)
    if not same:
        raise ArenaError(f"{defn.name!r} is the name of another season or match (pick a name)")
    return row
