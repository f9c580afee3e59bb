"""``arena review``: every decision of a stored match valued by a stronger searcher, thin
over arena.leagues.review."""

from __future__ import annotations

import json
import math
import sys

import click

from ..errors import ArenaError
from .season import _engine


@click.command("review")
@click.argument("match_id", type=int, required=False)
@click.option("--seat", type=click.IntRange(min=0),
              help="Only this seat's decisions (default: every seat's).")
@click.option("--reviewer", metavar="BOT[:options]",
              help="The bot that values each legal action (it has a values method; default "
                   "per game: ismcts:iterations=2000, Tractor 400, Cherki 1000).")
@click.option("--season", "season_name", metavar="NAME",
              help="With --bot: review a sample of that bot's matches in this season.")
@click.option("--bot", "bot_name", metavar="BOT", help="The bot whose matches --season samples.")
@click.option("--sample", type=click.IntRange(min=1), default=20, show_default=True,
              help="Matches --season reviews (drawn the same way every time).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Reviewer processes valuing decisions side by side (the review is the "
                   "same with any number).")
@click.option("--all", "show_all", is_flag=True,
              help="List every decision, not only those that lost value.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.pass_obj
def review_command(registry, match_id, seat, reviewer, season_name, bot_name, sample, workers,
                   show_all, fmt) -> None:
    """Review a stored match: at each decision, the reviewer values every legal action from
    the deciding seat's observation alone, and the decision is classed by the value it lost
    (best, good, inaccuracy, mistake, blunder). Reviews are stored: asked again, a review
    is read back, and one cut short resumes where it stopped."""
    from ..leagues import review as reviews

    if (match_id is None) == (season_name is None):
        raise ArenaError("review a match (arena review MATCH) or a sample of a bot's matches "
                         "(arena review --season NAME --bot BOT)")
    if season_name is not None and (bot_name is None or seat is not None):
        raise ArenaError("--season needs --bot (and takes the bot's own seats, not --seat)")
    if season_name is None and bot_name is not None:
        raise ArenaError("--bot goes with --season")
    engine = _engine(registry)
    progress = _progress if sys.stderr.isatty() else None
    if match_id is not None:
        review = reviews.review_match(engine, registry, match_id,
                                      None if seat is None else {seat}, reviewer, workers,
                                      progress=progress)
        if fmt == "json":
            click.echo(json.dumps(review.to_json(), indent=2, ensure_ascii=False))
        else:
            _print_match(review, show_all)
        return
    picked = reviews.sample(engine, season_name, registry.canonical(bot_name), sample)
    done = []
    for k, (match, s) in enumerate(picked):
        if progress is not None:
            click.echo(f"match {match} ({k + 1}/{len(picked)})", err=True)
        done.append(reviews.review_match(engine, registry, match, {s}, reviewer, workers,
                                         progress=progress))
    figures = reviews.season_figures(done)
    figures.update(season=season_name, bot=registry.canonical(bot_name))
    if fmt == "json":
        click.echo(json.dumps(figures, indent=2, ensure_ascii=False))
    else:
        _print_season(figures)


def _progress(done: int, total: int) -> None:
    click.echo(f"\r{done}/{total} decisions reviewed", err=True, nl=done == total)


def _loss(value: float, half: float | None = None) -> str:
    text = f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    if half is None:
        return text
    return text + (" ± ∞" if not math.isfinite(half) else f" ± {half:.3f}")


def _figures_row(name: str, f: dict) -> list[str]:
    c = f["classes"]
    return [name, str(f["decisions"]), _loss(f["mean_loss"], f.get("interval")),
            f"{100 * f['accuracy']:.1f} %", str(c["inaccuracy"]), str(c["mistake"]),
            str(c["blunder"])]


def _print_match(review, show_all: bool) -> None:
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable, say

    title = (f"match {review.match}: {review.game} {review.variant}, reviewed by "
             f"{review.reviewer}")
    shown = [d for d in review.decisions if show_all or d["class"] not in ("best", "good")]
    table = grid("step", "seat", "phase", "taken", "best", "loss", "class", title=title,
                 names=("seat",), keep=("step", "class"), wrap=("phase", "taken", "best"),
                 right=("step",))
    for d in shown:
        table.add_row(str(d["step"]), f"{d['seat']} {review.players[d['seat']]}", d["phase"],
                      _action(d["taken"]), _action(d["best"]),
                      f"{_loss(d['loss'])} ± {d['se']:.3f}", d["class"])
    if shown:
        print_renderable(table)
        say(f"A step opens in the replay viewer at match-{review.match}.html#step=N "
            "('arena report' writes the page, 'arena serve' serves it).")
    elif review.decisions:
        say(f"{title}: no decision lost value")
    summary = grid("seat / phase", "decisions", "mean loss", "accuracy", "inacc.", "mist.",
                   "blund.", title="per decision: the reviewer's expected loss, in the "
                   "game's score units", names=("seat / phase",))
    for s in sorted({d["seat"] for d in review.decisions}):
        figures = review.summary(s)
        summary.add_row(*_figures_row(f"{s} {review.players[s]}", figures))
        for phase, f in figures["phases"].items():
            summary.add_row(*_figures_row(f"  {phase}", f))
    print_renderable(summary)


def _print_season(figures: dict) -> None:
    from ..views.leaderboard import grid
    from ..views.transcript import print_renderable

    table = grid("phase", "decisions", "mean loss (95 %)", "accuracy", "inacc.", "mist.",
                 "blund.", names=("phase",), title=f"{figures['bot']} in {figures['season']}: "
                  f"{len(figures['matches'])} matches reviewed by {figures['reviewer']}")
    table.add_row(*_figures_row("all", figures))
    for phase, f in figures["phases"].items():
        table.add_row(*_figures_row(f"  {phase}", f))
    print_renderable(table)
    if figures["worst"]:
        worst = grid("match", "step", "seat", "phase", "taken", "best", "loss", "class",
                     title="the worst decisions (each opens at match-ID.html#step=N)",
                     names=("match",), keep=("step", "class"),
                     wrap=("phase", "taken", "best"), right=("match", "step"))
        for d in figures["worst"]:
            worst.add_row(str(d["match"]), str(d["step"]), str(d["seat"]), d["phase"],
                          _action(d["taken"]), _action(d["best"]),
                          f"{_loss(d['loss'])} ± {d['se']:.3f}", d["class"])
        print_renderable(worst)


def _action(action) -> str:
    return action if isinstance(action, str) else json.dumps(action)
