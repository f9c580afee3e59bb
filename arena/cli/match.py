"""``arena match``: a candidate against a baseline on duplicate deals, thin over
arena.leagues.match and arena.leagues.league."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import replace

import click

from ..errors import ArenaError
from .options import secret_of, secret_options
from .season import _engine, _run, _stored_in


def match_line(tally) -> str:
    """The live figures: pairs, score, Elo ± interval, LLR and its bounds."""
    from ..views.verdict import elo_text

    v = tally.to_json()
    line = (f"{tally.pair_count} pairs, score {100 * v['score']:.1f} %, "
            f"Elo {elo_text(v)}" + (" (luck-adjusted)" if tally.adjust else ""))
    if v["sprt"] is not None:
        line += f", LLR {v['sprt']['llr']:.2f} ({v['sprt']['lower']:.2f}, " \
            f"{v['sprt']['upper']:.2f})"
    return line


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
        click.option("--rated", is_flag=True,
                     help="Let the results rate the league too (by default an A/B test "
                     "never moves a league's ratings)."),
        click.option("--score", type=click.Choice(["place", "money"]), default="place",
                     show_default=True,
                     help="money: also score each pair by the money the candidate won more "
                     "than the baseline on the same cards (a game played for money: Cherki), "
                     "its mean with a 95 % interval beside the Elo by place."),
        click.option("--deals", "deals_path", metavar="FILE",
                     help="Play the deals of this deal book (docs/deal-books.md), each in "
                     "every seating, instead of --games deals from the seed."),
        click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
                     show_default=True),
    ]):
        f = option(f)
    return secret_options(f)


@click.command("match")
@click.argument("bots", nargs=-1, metavar="CANDIDATE BASELINE")
@match_options
@click.option("--worst", type=click.IntRange(min=1), metavar="N",
              help="Then list the N pairs where the candidate did worst against the baseline "
              "on the same cards, with both games' replays at the step where they part; "
              "'arena match --worst N NAME' lists them for a stored match.")
@click.pass_obj
def match_command(registry, bots, fmt, worst, **options) -> None:
    """Is CANDIDATE better than BASELINE? Plays them on duplicate deals - each deal twice,
    the seats or the teams' cards swapped, a pair scoring 0, 1/4, 1/2, 3/4 or 1 - and prints
    the Elo difference with its 95 % interval, the LOS and, with --sprt, the test's LLR.

    The same command again resumes the match, or prints a finished one's result - only
    while that result is still this code's: if a bot's code, the limits or arena's rules
    changed since, it refuses with one line saying what changed (a new --name plays it
    afresh). The match is an A/B test: it is stored with its verdict, and rates no league
    unless --rated."""
    from ..views import verdict

    if worst is not None and len(bots) == 1:  # a stored match, by name
        _show_worst(registry, bots[0], worst, fmt)
        return
    if len(bots) != 2:
        raise click.UsageError("name a CANDIDATE and a BASELINE (or, with --worst N, one "
                               "stored match's NAME)")
    candidate, baseline = bots
    row, tally = play(registry, candidate, baseline, quiet=fmt == "json", **options)
    if worst is not None:
        if fmt != "json":
            for line in verdict.lines(_verdict(row, tally), f"{candidate} vs {baseline}",
                                      row.status == "done"):
                click.echo(line)
        _show_worst(registry, row.name, worst, fmt)
    elif fmt == "json":
        click.echo(json.dumps(_json(row, tally), indent=2))
    else:
        title = (f"{candidate} vs {baseline}, {row.game} {row.variant}"
                 + (f" in a field of {options['field']}" if options["field"] else "")
                 + f": {tally.pair_count} pairs")
        for line in verdict.lines(_verdict(row, tally), title, row.status == "done"):
            click.echo(line)
        _stored_in(registry, row.name)


def _show_worst(registry, name: str, count: int, fmt: str) -> None:
    """The pairs of match ``name`` where the candidate did worst (``worst_pairs``)."""
    from .. import db
    from ..leagues import league
    from ..leagues.match import worst_pairs
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable, say

    engine = _engine(registry)
    row = db.get_season(engine, name)
    defn = league.definition(row)
    if defn.kind != "match":
        raise ArenaError(f"{name} is a season, not a match: --worst lists a match's pairs")
    found = worst_pairs(engine, defn, row.id, count)
    if fmt == "json":
        click.echo(json.dumps({"match": row.name, "candidate": defn.bots[0],
                               "baseline": defn.bots[1], "worst": found}, indent=2))
        return
    candidate, baseline = defn.bots[:2]
    if not found:
        say(f"{candidate} lost no pair against {baseline} in {row.name}")
        return
    t = grid("deal", "pair", "seat", f"{candidate}'s game", f"{baseline}'s game", "parted at",
             title=f"where {candidate} did worst against {baseline} on the same cards",
             names=(f"{candidate}'s game", f"{baseline}'s game"), right=("deal", "pair"))
    for e in found:
        c, b = e["candidate"], e["baseline"]
        t.add_row(str(e["deal"]), f"{e['score']:.2f}", str(e["seat"]),
                  f"match {c['match']}: rank {c['rank']}",
                  f"match {b['match']}: rank {b['rank']}",
                  "never" if e["step"] is None else f"step {e['step']}")
    print_renderable(t)
    for e in found:
        step = "" if e["step"] is None else f"#step={e['step']}"
        c, b = e["candidate"]["match"], e["baseline"]["match"]
        say(f"deal {e['deal']}: match-{c}.html{step} beside match-{b}.html{step}; "
            f"arena review {c} --seat {e['seat']} and arena review {b} --seat {e['seat']}")


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
    from ..views.verdict import elo_text

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
                       + (f", {tally.sprt().decision} accepted" if tally.decision else
                          ", stopped at its game cap, undecided" if tally.spec and
                          row.status == "done" else ""))
    if fmt == "json":
        click.echo(json.dumps([_json(row, tally) for row, tally in done], indent=2))
        return
    t = grid("opponent", "pairs", "score", "Elo (95 %)", "LOS", "SPRT",
             title=f"{candidate}: gauntlet {base}"
             + (" (luck-adjusted)" if options["adjust"] == "luck" else ""),
             names=("opponent",), wrap=("SPRT",), right=("pairs", "score", "Elo (95 %)", "LOS"))
    for row, tally in done:
        v = _verdict(row, tally)
        test = v["sprt"]
        t.add_row(tally.baseline, str(tally.pair_count), f"{100 * v['score']:.1f} %",
                  elo_text(v), f"{100 * v['los']:.1f} %",
                  "" if test is None else f"{test['decision'] or 'undecided at the cap'} "
                  f"(LLR {test['llr']:.2f})")
    print_renderable(t)


def _verdict(row, tally) -> dict:
    """The match's verdict: as stored when it finished, else its figures so far."""
    from ..leagues.match import stored_verdict

    return (row.status == "done" and stored_verdict(row)) or tally.to_json()


def _json(row, tally) -> dict:
    return {"match": row.name, "game": row.game, "variant": row.variant, "seed": row.seed,
            "status": row.status, **_verdict(row, tally)}


def play(registry, candidate, baseline, game, variant, games, sprt_text, seed, field, name,
         workers, executor, scheduler, limits, inflight, secret_from, public_seed,
         adjust="none", rated=False, quiet=False, deals_path=None, score="place"):
    """Create (or resume) the match and play it; its stored row and tally."""
    from .. import db
    from ..leagues import league
    from ..leagues.match import SprtSpec, summary
    from ..leagues.scheduler import SeasonDef, default_batch
    from ..plugins import split_entrants

    g = registry.game(game)
    deals = ()
    if deals_path:
        from .deals import load_book

        if click.get_current_context().get_parameter_source("games") == (
                click.core.ParameterSource.COMMANDLINE):
            raise ArenaError("--deals plays each deal of the book in every seating: its "
                             "deals are the games (leave out --games)")
        found, deals = load_book(registry, deals_path, g.name, variant and g.check(variant),
                                 None)
        variant = found.variant
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
    if score == "money" and not g.money:
        raise ArenaError(f"{g.title}'s results are not money: --score money is for a game "
                         "played for money (" + ", ".join(
                             x.title for x in registry.games().values() if x.money) + ")")
    spec = str(SprtSpec.parse(sprt_text)) if sprt_text else ""
    seed = secrets.randbelow(2**31) if seed is None else seed
    name = name or "-".join(["match", game, variant, candidate, baseline, str(seed)]
                            + (["field", "+".join(field)] if field else [])
                            + (["luck"] if adjust else [])
                            + (["deals", _stem(deals_path)] if deals else [])
                            + (["money"] if score == "money" else []))
    engine = _engine(registry, create=True)
    bots = tuple(dict.fromkeys((candidate, baseline, *field)))
    rounds = (len(deals) if deals else max(1, games // (2 * players)) if field
              else (games + 1) // 2)
    if deals and found.players != players:
        raise ArenaError(f"{deals_path} deals for {found.players} players; this match seats "
                         f"{players}" + ("" if field else " (a field seats more)"))
    defn = SeasonDef(name, game, variant, players, bots, rounds, seed, 1, limits, 5, teams,
                     secret=None, kind="match", sprt=spec, field=field, adjust=adjust,
                     rated=rated, deals=deals, score="" if score == "place" else score,
                     **({"inflight": inflight} if inflight else {}))
    row = _existing(engine, defn)
    if row is not None:  # resumed, or finished: only while its results are this code's
        league.playable(registry, row, engine)
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
        click.echo(f"match {row.name}: " + ("finished: its stored result" if row.status == "done"
                                             else "resumed"), err=True)
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
    if stored.kind != "match":
        raise ArenaError(f"{defn.name!r} is the name of a season (pick another --name)")
    shown = {"game": "game", "variant": "variant", "bots": "bots", "rounds": "games at most",
             "seed": "seed", "sprt": "SPRT", "limits": "limits", "field": "field",
             "adjust": "adjust", "rated": "rated", "deals": "deal book",
             "score": "score"}
    differ = [f"{label} {_shown(stored, key)} (asked: {_shown(defn, key)})"
              for key, label in shown.items() if getattr(stored, key) != getattr(defn, key)]
    if differ:
        raise ArenaError(f"match {defn.name!r} was played with other settings: "
                         f"{'; '.join(differ)}; its results are those settings': another "
                         "--name plays these")
    return row


def _stem(path: str) -> str:
    """A book's file name as a word of a match's name."""
    from ..games.book import as_name

    return as_name(os.path.splitext(os.path.basename(path))[0])


def _shown(defn, key: str) -> str:
    from ..leagues.scheduler import fixture_count

    value = getattr(defn, key)
    if key == "rounds":
        return str(fixture_count(defn))
    if key == "deals":
        digest = hashlib.sha256("\n".join(value).encode()).hexdigest()[:8]
        return f"of {len(value)} deals ({digest})" if value else "none"
    if isinstance(value, tuple):
        return ",".join(value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "limits":
        return value or "the defaults"
    return repr(value) if isinstance(value, str) else str(value)
