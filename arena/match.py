"""Head-to-head matches: a candidate bot against a baseline on duplicate deals.

A match is stored and played as a season of its own kind (``SeasonDef.kind == "match"``):
two bots, every deal played in both seatings - in a two-seat game the seats swapped, in
Tractor the teams' cards swapped - so that a deal is a *pair* and scores 0, ¼, ½, ¾ or 1
for the candidate (the pentanomial, ``arena.stats``). The luck of the cards is in both
games of a pair and cancels in its score; what is left is the difference between the bots,
so the pair scores are unbiased for the candidate's expected score against the baseline, with
less variance than unpaired games.

The tally is kept in fixture order, as ratings and suspensions are (``league.SeasonRater``),
so an SPRT ends a match at the same pair however many workers play it and whenever it was
killed and resumed: fixtures past that pair are not counted, and not kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from . import db, stats
from .errors import ArenaError


@dataclass(frozen=True)
class SprtSpec:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> SprtSpec:
        """``elo0=0,elo1=10[,alpha=0.05,beta=0.05]``; ArenaError for anything else."""
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta") or key in values:
                raise ArenaError(f"--sprt: {part!r} is not one of elo0=, elo1=, alpha=, beta=")
            try:
                values[key] = float(value)
            except ValueError:
                raise ArenaError(f"--sprt: {key} must be a number, not {value!r}") from None
        if "elo0" not in values or "elo1" not in values:
            raise ArenaError("--sprt needs elo0= and elo1= (e.g. elo0=0,elo1=10)")
        spec = cls(**values)
        if not spec.elo1 > spec.elo0:
            raise ArenaError("--sprt: elo1 must be greater than elo0")
        if not (0 < spec.alpha < 1 and 0 < spec.beta < 1):
            raise ArenaError("--sprt: alpha and beta must lie strictly between 0 and 1")
        return spec

    def __str__(self) -> str:
        return ",".join(f"{k}={v:g}" for k, v in asdict(self).items())


class Tally:
    """A match's figures, fed one fixture at a time in fixture order (``add``)."""

    def __init__(self, candidate: str, baseline: str, seatings: int = 2,
                 sprt: SprtSpec | None = None):
        self.candidate, self.baseline, self.seatings, self.spec = (candidate, baseline,
                                                                     seatings, sprt)
        self.pairs = [0, 0, 0, 0, 0]  # LL, LD, DD+WL, WD, WW for the candidate
        self.games = [0, 0, 0]  # the candidate's wins, draws, losses
        self.deal: list[float] = []
        self.decision: str | None = None

    def add(self, seats, ranks) -> bool:
        """Count one fixture; True when the SPRT has decided with it (the match ends)."""
        best: dict[str, int] = {}
        for bot, rank in zip(seats, ranks, strict=True):
            best[bot] = min(rank, best.get(bot, rank))
        mine, theirs = best[self.candidate], best[self.baseline]
        score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        self.games[2 - int(2 * score)] += 1
        self.deal.append(score)
        if len(self.deal) < self.seatings:
            return False
        self.pairs[round(4 * sum(self.deal) / len(self.deal))] += 1
        self.deal = []
        if self.spec is not None and self.sprt().decision is not None:
            self.decision = self.sprt().decision
            return True
        return False

    def estimate(self) -> stats.Estimate:
        return stats.estimate(stats.pentanomial(self.pairs))

    def sprt(self) -> stats.Sprt | None:
        s = self.spec
        return None if s is None else stats.sprt(stats.pentanomial(self.pairs), s.elo0, s.elo1,
                                                  s.alpha, s.beta)

    def to_json(self) -> dict:
        e, test = self.estimate(), self.sprt()
        return {"candidate": self.candidate, "baseline": self.baseline,
                "pairs": sum(self.pairs), "games": sum(self.games),
                "wins": self.games[0], "draws": self.games[1], "losses": self.games[2],
                "pentanomial": list(self.pairs), "score": round(e.score, 6),
                "elo": _finite(e.elo), "elo_error": _finite(e.elo_error),
                "elo_low": _finite(e.elo_low), "elo_high": _finite(e.elo_high),
                "los": round(e.los, 6),
                "sprt": None if test is None else {
                    **asdict(self.spec), "llr": round(test.llr, 6),
                    "lower": round(test.lower, 6), "upper": round(test.upper, 6),
                    "decision": test.decision}}


def _finite(x: float) -> float | None:
    return round(x, 6) if abs(x) != float("inf") and x == x else None


def tally_for(defn) -> Tally:
    """An empty tally for a match's definition."""
    candidate, baseline = defn.bots
    return Tally(candidate, baseline, defn.seatings,
                 SprtSpec.parse(defn.sprt) if defn.sprt else None)


def summary(engine, defn, season_id: int) -> Tally:
    """The tally of a stored match, read back in fixture order."""
    tally = tally_for(defn)
    for _, _, seats, ranks, _, _ in db.season_results(engine, season_id):
        if tally.add(seats, ranks):
            break
    return tally
