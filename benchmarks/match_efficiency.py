"""How far duplicate pairs and the SPRT carry ``arena match``, per game:

* the pairs an SPRT needs to decide (``--sprt``, default ``elo0=0,elo1=50``) for the
  ``--candidate`` against the ``--baseline`` (default ``greedy`` against ``random``), over
  ``--repeats`` matches on different seeds;
* the variance reduction of duplicate pairs: in a match of ``--pairs`` pairs, the variance
  of a pair's score against what it would be if its two games were unrelated - twice the
  variance of one game's score, for a pair's sum (below 1: the pairs pay).

    python benchmarks/match_efficiency.py --repeats 5 --pairs 300
    python benchmarks/match_efficiency.py --games vandtia --candidate ismcts:iterations=20 \
        --baseline ismcts:iterations=10 --sprt elo0=0,elo1=20

With ``--adjust``, luck-adjusted scores (``arena match --adjust luck``, ``arena.luck``)
beside raw ones: the SPRTs run both ways on the same seeds, and the fixed match is played
adjusted, its pair variance adjusted against raw on the same pairs (below 1: fewer pairs to
the same verdict, by that factor):

    python benchmarks/match_efficiency.py --adjust --candidate ismcts:iterations=100 \
        --baseline ismcts:iterations=50 --sprt elo0=0,elo1=30 --repeats 4 --pairs 200

Each match is a real ``arena match`` (sandboxed bots, a temporary SQLite file).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from arena import db

GAMES = {  # game -> the arguments that seat two bots in it
    "vandtia": ("--game", "vandtia", "--variant", "cardems"),
    "tractor": ("--game", "tractor", "--variant", "deal"),
    "cherki": ("--game", "cherki", "--field", "random,random"),
}


def match(path, candidate, baseline, args, *extra) -> dict:
    out = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{path}",
                          "match", candidate, baseline, *args, "--format", "json", *extra],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def game_scores(path, name: str, candidate: str, field: bool) -> tuple[list, list]:
    """Each game's score for the candidate's side, and each pair's mean, in order."""
    engine = db.connect(f"sqlite:///{path}")
    rows = list(db.season_results(engine, db.get_season(engine, name).id))
    games = []
    for _, _, seats, ranks, _, _ in rows:
        if field:  # the seat that changes within a pair is the candidate's or baseline's
            games.append((seats, ranks))
            continue
        mine = min(r for b, r in zip(seats, ranks, strict=True) if b == candidate)
        theirs = min(r for b, r in zip(seats, ranks, strict=True) if b != candidate)
        games.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    if field:
        scores = []
        for (a, ra), (b, rb) in zip(games[::2], games[1::2], strict=True):
            seat = next(i for i in range(len(a)) if a[i] != b[i])
            for ranks in (ra, rb):
                me = ranks[seat]
                scores.append((sum(r > me for r in ranks) + 0.5 * (ranks.count(me) - 1))
                              / (len(ranks) - 1))
        pairs = [0.5 + (x - y) / 2 for x, y in zip(scores[::2], scores[1::2], strict=True)]
        return scores, pairs
    return games, [(x + y) / 2 for x, y in zip(games[::2], games[1::2], strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="vandtia,tractor,cherki")
    parser.add_argument("--candidate", default="greedy")
    parser.add_argument("--baseline", default="random")
    parser.add_argument("--sprt", default="elo0=0,elo1=50")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--max-pairs", type=int, default=5000,
                        help="An SPRT that has not decided by then stops (decision None).")
    parser.add_argument("--adjust", action="store_true",
                        help="Compare luck-adjusted scores with raw ones.")
    args = parser.parse_args()
    if args.adjust:
        return adjusted(args)
    candidate, baseline = args.candidate, args.baseline
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            extra = GAMES[game]
            needed, decisions = [], []
            for seed in range(args.repeats):
                out = match(os.path.join(tmp, f"{game}.db"), candidate, baseline, extra,
                            "--sprt", args.sprt, "--seed", str(seed), "--games",
                            str(2 * args.max_pairs),
                            "--name", f"sprt-{game}-{seed}")
                needed.append(out["pairs"])
                decisions.append(out["sprt"]["decision"])
            path = os.path.join(tmp, f"{game}-fixed.db")
            out = match(path, candidate, baseline, extra, "--seed", "99", "--games",
                        str(2 * args.pairs), "--name", "fixed")  # two games a pair
            singles, pairs = game_scores(path, "fixed", candidate, game == "cherki")
            ratio = statistics.pvariance([2 * p for p in pairs]) / (
                2 * statistics.pvariance(singles))
            print(f"{game}: {candidate} vs {baseline}, SPRT {args.sprt}: pairs needed "
                  f"{needed} (median {statistics.median(needed):g}), decisions {decisions}; "
                  f"{out['pairs']} pairs: Elo {out['elo']:+.1f}, pair variance / (2 x game "
                  f"variance) = {ratio:.2f}", flush=True)


def adjusted(args) -> None:
    """``--adjust``: raw against luck-adjusted, per game."""
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            extra = GAMES[game]
            needed: dict[str, list] = {"raw": [], "luck": []}
            decisions: dict[str, list] = {"raw": [], "luck": []}
            for seed in range(args.repeats):
                for way in needed:
                    out = match(os.path.join(tmp, f"{game}.db"), args.candidate,
                                args.baseline, extra, "--sprt", args.sprt, "--seed",
                                str(seed), "--games", str(2 * args.max_pairs),
                                "--adjust", "luck" if way == "luck" else "none",
                                "--name", f"sprt-{game}-{seed}-{way}")
                    needed[way].append(out["pairs"])
                    decisions[way].append(out["sprt"]["decision"])
            out = match(os.path.join(tmp, f"{game}-fixed.db"), args.candidate, args.baseline,
                        extra, "--seed", "99", "--games", str(2 * args.pairs), "--adjust",
                        "luck", "--name", "fixed")
            ratio = out["variance"] / out["raw"]["variance"]
            print(f"{game}: {args.candidate} vs {args.baseline}, {out['pairs']} pairs: Elo "
                  f"{out['elo']:+.1f} ± {out['elo_error']:.1f} adjusted, "
                  f"{out['raw']['elo']:+.1f} ± {out['raw']['elo_error']:.1f} raw; pair "
                  f"variance adjusted / raw = {ratio:.2f}", flush=True)
            for way in needed:
                print(f"  SPRT {args.sprt}, {way}: pairs needed {needed[way]} (median "
                      f"{statistics.median(needed[way]):g}), decisions {decisions[way]}",
                      flush=True)


if __name__ == "__main__":
    main()
