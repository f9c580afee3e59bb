"""``arena review``: how fast it reviews, and whether its figures order bots as their results do.

    python benchmarks/review.py                 # both parts
    python benchmarks/review.py --part speed    # decisions per CPU second, per game
    python benchmarks/review.py --part order --rounds 10 --sample 10

Every figure comes from ``arena`` commands run as a user runs them, on a database of their
own in a temporary folder.

* **speed**: a season of one round (``greedy``, ``random`` and, for three seats, ``first``)
  in each game; every decision of match 1 valued as the default reviewer (``REVIEWERS`` in
  ``arena/leagues/review.py``) values it, the reviewer's code run here so that its CPU
  time can be read (``time.process_time``): decisions per CPU second, a per-core rate
  whatever else the machine runs. The sandbox adds one round trip per decision (some
  hundred microseconds) to that.
* **order**: a ``cardems`` season of ``random``, ``first``, ``greedy`` and ``ismcts`` (known
  order, weakest first); a sample of each bot's matches reviewed by the default reviewer;
  each bot's mean loss per decision with its 95 % interval and its accuracy, beside its
  TrueSkill rating and its mean score in the season. The review orders them as the results
  do when the mean losses fall in the same order as the scores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena import db
from arena.leagues import review
from arena.plugins import Registry
from arena_bots.ismcts import ISMCTS

GAMES = [("vandtia", "cardems", 2, "greedy,random"), ("vandtia", "swedish", 3,
         "greedy,random,first"), ("tractor", "deal", 4, "greedy,random"),
         ("cherki", "standard", 3, "greedy,random,first")]
ORDER = ["random", "first", "greedy", "ismcts"]


def arena(*args, db_path: Path) -> str:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{db_path}"}
    return subprocess.run([sys.executable, "-m", "arena", *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def speed(folder: Path) -> None:
    print("decisions reviewed per CPU second (the default reviewer's search)")
    for game, variant, players, bots in GAMES:
        path = folder / f"{game}-{variant}.db"
        arena("season", "run", game, "--variant", variant, "--players", str(players),
              "--name", "s", "--bots", bots, "--rounds", "1", "--seed", "1", "--public-seed",
              db_path=path)
        engine = db.connect(f"sqlite:///{path}")
        match, season, seats = db.get_match(engine, 1)
        registry = Registry()
        rules = registry.game(game)
        reviewer = review.REVIEWERS[game]
        options = registry.bot(reviewer, game).spec["options"]
        spent, n = 0.0, 0
        for d in review.decisions(rules, variant, players, match.seed, json.loads(match.replay)):
            bot = ISMCTS()
            bot.start({"game": game, "variant": variant, "seat": d.seat, "players": players,
                       "seed": d.step, "options": options})
            start = time.process_time()
            bot.values(d.observation, d.legal)
            spent += time.process_time() - start
            n += 1
        print(f"  {game} {variant} ({reviewer}): {n} decisions in {spent:.1f} CPU s, "
              f"{n / spent:.2f} per CPU second")


def order(folder: Path, rounds: int, sample: int) -> None:
    path = folder / "order.db"
    arena("season", "run", "vandtia", "--variant", "cardems", "--name", "order", "--bots",
          ",".join(ORDER), "--rounds", str(rounds), "--seed", "5", "--public-seed",
          db_path=path)
    board = {row["bot"]: row for row in json.loads(arena(
        "leaderboard", "vandtia", "--variant", "cardems", "--season", "order", "--format",
        "json", db_path=path))}
    print(f"cardems, {rounds} rounds; {sample} matches of each bot reviewed")
    print(f"  {'bot':8} {'mean loss (95 %)':>20} {'accuracy':>9} {'rating':>8} {'score':>7}")
    losses = {}
    for bot in ORDER:
        out = json.loads(arena("review", "--season", "order", "--bot", bot, "--sample",
                               str(sample), "--format", "json", db_path=path))
        losses[bot] = out["mean_loss"]
        row = board[bot]
        print(f"  {bot:8} {out['mean_loss']:>11.3f} ± {out['interval']:.3f} "
              f"{100 * out['accuracy']:>8.1f}% {row['mu']:>8.1f} "
              f"{row['mean_score']:>+7.2f}")
    by_loss = sorted(ORDER, key=lambda b: -losses[b])
    print("  ordered by mean loss, most first:", " < ".join(by_loss),
          "(the known order)" if by_loss == ORDER else "(not the known order)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["speed", "order", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--keep", metavar="FOLDER",
                        help="Make the databases in FOLDER and keep them (default: a temporary "
                        "folder)")
    args = parser.parse_args()
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    kept = contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory()
    with kept as folder:
        if args.part in ("speed", "both"):
            speed(Path(folder))
        if args.part in ("order", "both"):
            order(Path(folder), args.rounds, args.sample)


if __name__ == "__main__":
    main()
