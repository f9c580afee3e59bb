"""Head-to-head matches: a candidate bot against a baseline on duplicate deals.

A match is stored and played as a season of its own kind (``SeasonDef.kind == "match"``):
two bots, every deal played in both seatings - in a two-seat game the seats swapped, in
Tractor the teams' cards swapped - so that a deal is a *pair* and scores 0, ¼, ½, ¾ or 1
for the candidate (the pentanomial, ``arena.leagues.stats``). The luck of the cards is in both
games of a pair and cancels in its score; what is left is the difference between the bots,
so the pair scores are unbiased for the candidate's expected score against the baseline, with
less variance than unpaired games.

The tally is kept in fixture order, as ratings and suspensions are (``league.SeasonRater``),
so an SPRT ends a match at the same pair however many workers play it and whenever it was
killed and resumed: fixtures past that pair are not counted, and not kept.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..errors import ArenaError
from ..luck import place_scores
from . import stats


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
    """A match's figures, fed one fixture at a time in fixture order (``add``).

    Two bots alone (``field=False``): a deal's fixtures are its seatings, and its pair score
    the mean of the candidate's game scores against the baseline (1 placed above, ½ level,
    0 below) - the pentanomial. In a field (``field=True``) a pair is two fixtures on the
    same cards, the candidate in one seat of the first and the baseline in that seat of the
    second, the field elsewhere; each game scores its seat by place, ``(seats below + ½
    seats level) / (seats - 1)``, and the pair ``½ + (candidate's - baseline's) / 2``: the
    same cards and the same opponents in both, so the difference is the bots' alone.

    Luck-adjusted (``adjust=True``, ``arena match --adjust luck``): a pair's score less a
    multiple of the luck of its cards (``arena.luck``: per seat, in place-score units). What
    the luck added to the candidate's game score alone, ``1/2 + (p_c - p_b) / (2 g)`` (``p``
    the place scores of its and the baseline's seats, ``g`` their gap when the candidate
    wins: 1 with two seats, 2/3 for two teams of two), is ``(luck_c - luck_b) / (2 g)``, and
    a pair's luck is the mean of its games'; in a field the gap ``p_c - p_b`` of a pair owes
    ``luck_c - luck_b`` to the luck, each game's at the seat that changes, and the pair half
    of that. The pair's adjusted score is its raw score less ``beta`` times its luck, ``beta``
    the regression fitted on the pairs before it (:meth:`beta`). The adjusted pair scores
    (any number, rounded to 9 places) make the table the figures and the SPRT are computed
    on; the raw table is kept beside it. Each luck has mean zero whatever came before, so
    the adjusted scores estimate what the raw ones do."""

    def __init__(self, candidate: str, baseline: str, seatings: int = 2,
                 sprt: SprtSpec | None = None, field: bool = False, adjust: bool = False,
                 money: bool = False):
        self.candidate, self.baseline, self.spec, self.field = (candidate, baseline, sprt,
                                                                field)
        self.adjust = adjust
        #: scored by money as well (``--score money``): per pair, what the candidate won
        #: more than the baseline on the same cards (``money_moments``: count, sum, sum of
        #: squares of those; ``game_moments`` of the candidate's own game results)
        self.money = money
        self.money_moments = (0, 0.0, 0.0)
        self.game_moments = (0, 0.0, 0.0)
        self.deal_money: list[float] = []
        self.seatings = 2 if field else seatings
        self.pairs = [0, 0, 0, 0, 0]  # LL, LD, DD+WL, WD, WW for the candidate
        self.table: dict[float, int] = {}  # pair score -> pairs, in a field
        self.adjusted: dict[float, int] = {}  # luck-adjusted pair score -> pairs
        self.moments = (0, 0.0, 0.0)  # their count, sum and sum of squares, in order
        #: pairs, and sums of raw score r, luck d, d * d and r * d: ``beta``'s regression
        self.fit = (0, 0.0, 0.0, 0.0, 0.0)
        self.games = [0, 0, 0]  # the candidate's wins, draws, losses (in a field: pairs')
        self.deal: list = []
        self.deal_luck: list = []
        self.decision: str | None = None

    def add(self, seats, ranks, luck=None, scores=None) -> bool:
        """Count one fixture (``luck``: its seats' luck, needed when adjusted; ``scores``
        its seats' scores, needed when scored by money); True when the SPRT has decided
        with it (the match ends)."""
        if self.adjust and luck is None:
            raise ArenaError("a luck-adjusted match needs each fixture's luck")
        if self.money:
            if scores is None:
                raise ArenaError("a match scored by money needs each fixture's scores")
            mine = list(seats).index(self.candidate if self.candidate in seats
                                     else self.baseline)
            self._money_game(scores[mine])
        if self.field:
            self.deal.append((seats, ranks, luck))
            self.deal_money.append(scores)
            if len(self.deal) < 2:
                return False
            (mine, my_ranks, my_luck), (theirs, their_ranks, their_luck) = self.deal
            seat = next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b)
            if self.money:
                self._money_pair(self.deal_money[0][seat] - self.deal_money[1][seat])
            gap = seat_place(my_ranks, seat) - seat_place(their_ranks, seat)
            self.games[0 if gap > 0 else 1 if gap == 0 else 2] += 1
            pair = round(0.5 + gap / 2, 9)
            self.table[pair] = self.table.get(pair, 0) + 1
            if self.adjust:
                self._count(pair, (my_luck[seat] - their_luck[seat]) / 2)
        else:
            best = best_places(seats, ranks)
            mine, theirs = best[self.candidate], best[self.baseline]
            score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            self.games[2 - int(2 * score)] += 1
            self.deal.append(score)
            if self.money:
                self.deal_money.append(scores[seats.index(self.candidate)]
                                       - scores[seats.index(self.baseline)])
            if self.adjust:  # what the luck added to this game's score
                self.deal_luck.append(luck_gap(seats, luck, self.candidate,
                                                   self.baseline))
            if len(self.deal) < self.seatings:
                return False
            self.pairs[round(4 * sum(self.deal) / len(self.deal))] += 1
            if self.adjust:
                self._count(sum(self.deal) / len(self.deal),
                            sum(self.deal_luck) / len(self.deal_luck))
            if self.money:
                self._money_pair(sum(self.deal_money) / len(self.deal_money))
        self.deal, self.deal_luck, self.deal_money = [], [], []
        if self.spec is not None:
            self.decision = self.sprt().decision
        return self.decision is not None

    def _money_game(self, won: float) -> None:
        n, total, squares = self.game_moments
        self.game_moments = (n + 1, total + won, squares + won * won)

    def _money_pair(self, gain: float) -> None:
        n, total, squares = self.money_moments
        self.money_moments = (n + 1, total + gain, squares + gain * gain)

    def money_estimate(self) -> dict | None:
        """The money verdict (``--score money``): the mean of the pairs' money differences
        - what the candidate won more than the baseline on the same cards (in a field, in
        the same seat against the same field; two bots alone, the mean over the deal's
        seatings of the candidate's result less the baseline's) - with its 95 % interval
        (Student's t) and the chance it is above zero (LOS). As every interval arena shows,
        few pairs or pairs all alike never look precise: a pair's variance is taken as at
        least ``PRIOR_PAIRS`` pseudo pairs of one game's variance among N + ``PRIOR_PAIRS``
        (``stats.pair_variance``'s rule, scaled by the spread of the candidate's own game
        results, as a pairing that removed nothing of the luck would leave it)."""
        if not self.money:
            return None
        n, total, squares = self.money_moments
        if n == 0:
            return {"pairs": 0, "mean": 0.0, "error": None, "low": None, "high": None,
                    "los": 0.5}
        mean = total / n
        variance = max(0.0, squares / n - mean * mean) * (n / (n - 1) if n > 1 else 1.0)
        g, gt, gs = self.game_moments
        game_variance = max(0.0, gs / g - (gt / g) ** 2) if g else 0.0
        variance = max(variance, stats.PRIOR_PAIRS * game_variance / (n + stats.PRIOR_PAIRS))
        if variance == 0:  # every game paid the same: nothing to be unsure of
            return {"pairs": n, "mean": mean, "error": 0.0, "low": mean, "high": mean,
                    "los": 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5}
        q = stats.t_quantile(0.975, n - 1) if n > 1 else stats.Z975
        error = q * math.sqrt(variance / n)
        return {"pairs": n, "mean": mean, "error": error, "low": mean - error,
                "high": mean + error, "los": stats.phi(mean / math.sqrt(variance / n))}

    def _count(self, raw: float, luck: float) -> None:
        """Count a pair of raw score ``raw`` to which the luck added ``luck``: its adjusted
        score is ``raw - beta * luck``, ``beta`` fitted on the pairs before it alone."""
        pair = round(raw - self.beta() * luck, 9) + 0.0
        self.adjusted[pair] = self.adjusted.get(pair, 0) + 1
        n, total, squares = self.moments
        self.moments = (n + 1, total + pair, squares + pair * pair)
        n, r, d, dd, rd = self.fit
        self.fit = (n + 1, r + raw, d + luck, dd + luck * luck, rd + raw * luck)

    def beta(self) -> float:
        """The multiple of the luck taken off the next pair: the regression coefficient of
        the raw pair scores on their luck over the pairs counted so far (the one that leaves
        the least variance), kept within [0, 2]; 0 - the raw score - before
        ``BETA_AFTER`` pairs. A pair's luck has mean zero whatever came before it, and its
        ``beta`` depends only on what came before: so ``beta * luck`` has mean zero too, and
        the adjusted score stays unbiased, while a luck that tells little is given little
        weight (at worst the raw variance)."""
        n, r, d, dd, rd = self.fit
        if n < BETA_AFTER:
            return 0.0
        spread = dd - d * d / n
        if spread <= 0:
            return 0.0
        return min(2.0, max(0.0, (rd - r * d / n) / spread))

    def scores(self) -> dict[float, float]:
        """The table of pair scores (``arena.leagues.stats``): luck-adjusted when the
        match is."""
        return dict(self.adjusted) if self.adjust else self.raw_scores()

    def raw_scores(self) -> dict[float, float]:
        """The table of the pairs' raw scores."""
        return dict(self.table) if self.field else stats.pentanomial(self.pairs)

    @property
    def pair_count(self) -> int:
        return sum(self.table.values()) if self.field else sum(self.pairs)

    def estimate(self) -> stats.Estimate:
        return stats.estimate(self.scores())

    def sprt(self) -> stats.Sprt | None:
        """The SPRT so far: on adjusted pair scores (any value) the normal approximation
        from their running moments, in constant time a pair; else fishtest's GSPRT."""
        s = self.spec
        if s is None:
            return None
        if self.adjust:
            n, total, squares = self.moments
            mean = total / n if n else 0.5
            variance = max(0.0, squares / n - mean * mean) if n else 0.0
            return stats.sprt_normal(n, mean, variance, s.elo0, s.elo1, s.alpha, s.beta)
        return stats.sprt(self.scores(), s.elo0, s.elo1, s.alpha, s.beta)

    def raw_estimate(self) -> stats.Estimate:
        return stats.estimate(self.raw_scores())

    def to_json(self) -> dict:
        e, test = self.estimate(), self.sprt()
        raw = self.raw_estimate()
        return {"candidate": self.candidate, "baseline": self.baseline,
                "adjust": "luck" if self.adjust else None,
                "pairs": self.pair_count,
                "games": self.pair_count * 2 if self.field else sum(self.games),
                "wins": self.games[0], "draws": self.games[1], "losses": self.games[2],
                "pentanomial": None if self.field else list(self.pairs),
                "pair_scores": ({str(k): v for k, v in sorted(self.table.items())}
                                if self.field else None),
                # unrounded, as Elo: a page that shows them to 0.1 % must not round twice
                "score": e.score,
                "elo": _finite(e.elo), "elo_error": _finite(e.elo_error),
                "elo_low": _finite(e.elo_low), "elo_high": _finite(e.elo_high),
                "los": e.los,
                "raw": None if not self.adjust else {
                    "score": raw.score, "elo": _finite(raw.elo),
                    "elo_error": _finite(raw.elo_error), "elo_low": _finite(raw.elo_low),
                    "elo_high": _finite(raw.elo_high), "los": raw.los,
                    "variance": round(raw.variance, 9)},
                "variance": round(e.variance, 9),
                "beta": round(self.beta(), 6) if self.adjust else None,
                "money": self.money_estimate(),
                "sprt": None if test is None else {
                    **asdict(self.spec), "llr": round(test.llr, 6),
                    "lower": round(test.lower, 6), "upper": round(test.upper, 6),
                    "decision": test.decision}}


#: pairs counted raw before a match's luck is taken off (``Tally.beta``)
BETA_AFTER = 10


def luck_gap(seats, luck, a: str, b: str) -> float:
    """What the luck of the cards added to ``a``'s game score against ``b`` (1 placed above,
    ½ level, 0 below): ``(luck_a - luck_b) / (2 g)``, each bot's luck at its first seat and
    ``g`` the gap of their place scores when ``a`` alone wins - 1 with two seats, 2/3 for two
    teams of two. A fixed factor for a given seating, so the adjusted score keeps the raw
    one's mean (each luck's mean is zero) whatever the seating."""
    i, j = seats.index(a), seats.index(b)
    won = place_scores([1 if bot == a else 2 for bot in seats])
    return (luck[i] - luck[j]) / (2 * (won[i] - won[j]))


def best_places(seats, ranks) -> dict[str, int]:
    """Each bot's best rank in a match (a bot holding several seats counts with its best)."""
    best: dict[str, int] = {}
    for bot, rank in zip(seats, ranks, strict=True):
        best[bot] = min(rank, best.get(bot, rank))
    return best


def seat_place(ranks, seat: int) -> float:
    """A seat's game score by place: the share of the other seats it beat, a tie half."""
    return place_scores(ranks)[seat]


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def tally_for(defn) -> Tally:
    """An empty tally for a match's definition."""
    candidate, baseline = defn.bots[:2]
    return Tally(candidate, baseline, defn.seatings,
                 SprtSpec.parse(defn.sprt) if defn.sprt else None, bool(defn.field),
                 defn.adjust == "luck", defn.score == "money")


def verdict(tally: Tally) -> dict:
    """What a finished match is stored with (its options' ``verdict``): its figures
    (``Tally.to_json``) and how it ended - ``"decided"`` by the SPRT, or ``"cap"``: every
    game it was allowed played, the SPRT (if any) undecided."""
    return {**tally.to_json(), "stopped": "decided" if tally.decision else "cap"}


def stored_verdict(row) -> dict | None:
    """The verdict a finished match was stored with (None: not a match, not finished, or
    finished before verdicts were kept - ``summary`` recounts it)."""
    import json

    return json.loads(row.options).get("verdict")


def current_verdict(engine, row, defn=None) -> dict:
    """A match's verdict (``Tally.to_json``): as stored when it finished, else its figures
    so far (``defn``: the match's definition, when the caller has it)."""
    from .league import definition

    return (row.status == "done" and stored_verdict(row)) or summary(
        engine, defn or definition(row), row.id).to_json()


def worst_pairs(engine, defn, season_id: int, count: int) -> list[dict]:
    """The pairs where the candidate did worst against the baseline on the same cards:
    the ``count`` lowest pair scores below ½ (lowest first, then in deal order). Each is
    ``{"deal", "score", "seat", "candidate", "baseline", "step"}``: ``candidate`` the
    candidate's worst game of the deal and ``baseline`` the game where the baseline sat in
    that seat on the same cards (each ``{"match", "rank", "score"}``), and ``step`` the
    first action where the two games differ - where the two bots' choices parted (None if
    they never did)."""
    import json
    from itertools import groupby

    from .. import db

    candidate, baseline = defn.bots[:2]
    found = []
    deals = groupby(db.season_matches(engine, season_id), key=lambda ms: ms[0].seed)
    for deal, (_, games) in enumerate(deals, 1):
        games = list(games)
        if defn.field:  # two fixtures a pair: the candidate's, then the baseline's
            pairs = [games[k:k + 2] for k in range(0, len(games) - 1, 2)]
        else:
            pairs = [games]
        for pair in pairs:
            entry = _pair(pair, candidate, baseline, bool(defn.field))
            if entry is not None and entry["score"] < 0.5:
                mine, theirs = (json.loads(entry[k].pop("replay")) for k in ("candidate",
                                                                            "baseline"))
                entry["step"] = next((i + 1 for i, (a, b) in enumerate(zip(
                    mine, theirs, strict=False)) if a != b), None if len(mine) == len(
                    theirs) else min(len(mine), len(theirs)) + 1)
                found.append({"deal": deal, **entry})
    found.sort(key=lambda e: (e["score"], e["deal"]))
    return found[:count]


def _pair(games, candidate: str, baseline: str, field: bool) -> dict | None:
    """One pair's score and the two games to set side by side."""
    def game(m, seats, seat):
        return {"match": m.id, "rank": seats[seat].rank, "score": seats[seat].score,
                "replay": m.replay}

    if field:
        if len(games) < 2:
            return None
        (m1, s1), (m2, s2) = games
        seat = next((i for i, (a, b) in enumerate(zip(s1, s2, strict=True))
                     if a.bot != b.bot), None)
        if seat is None:
            return None
        gap = seat_place([s.rank for s in s1], seat) - seat_place([s.rank for s in s2], seat)
        return {"score": 0.5 + gap / 2, "seat": seat, "candidate": game(m1, s1, seat),
                "baseline": game(m2, s2, seat)}
    scored = []
    for m, seats in games:
        best = best_places([s.bot for s in seats], [s.rank for s in seats])
        if candidate not in best or baseline not in best:
            return None
        mine, theirs = best[candidate], best[baseline]
        scored.append((1.0 if mine < theirs else 0.5 if mine == theirs else 0.0, m, seats))
    worst, m1, s1 = min(scored, key=lambda g: g[0])
    seat = next(i for i, s in enumerate(s1) if s.bot == candidate)
    other = next(((m, seats) for _, m, seats in scored
                  if seats[seat].bot == baseline), None)
    if other is None:
        return None
    m2, s2 = other
    return {"score": sum(g[0] for g in scored) / len(scored), "seat": seat,
            "candidate": game(m1, s1, seat), "baseline": game(m2, s2, seat)}


def summary(engine, defn, season_id: int) -> Tally:
    """The tally of a stored match, read back in fixture order."""
    from .. import db

    tally = tally_for(defn)
    for _, _, seats, ranks, scores, _, luck in db.season_results(engine, season_id, luck=True):
        if tally.add(seats, ranks, luck, scores):
            break
    return tally
