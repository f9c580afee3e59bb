"""TrueSkill ratings, replayed over results in fixture order (pure: no I/O).

``tau = 0``: a bot's code does not change during a league, so its true strength does not
drift and nothing should keep its uncertainty from shrinking (Halite's finals made the same
choice). ``draw_probability`` comes from the game (Vändtia: shared places happen at the move
cap and among the losers of ``swedish``). Free-for-all games pass every seat's rank, ties
included. The leaderboard sorts by the conservative score mu - 3 sigma.

W/D/L: a win is a sole first place, a draw a shared first place, anything else a loss.

Two-seat matches take TrueSkill's closed-form update for one player against one (the same
formulas the ``trueskill`` factor graph evaluates in that case, through the same ``v``/``w``
functions, about twenty times faster); matches with more seats go through ``trueskill.rate``.
Rating is the one sequential step of a season, so its cost is the season's floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import trueskill

MU, SIGMA = 25.0, 25.0 / 3
DEFAULT_DRAW_PROBABILITY = 0.05


@dataclass
class Standing:
    bot: str
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    total_score: float = 0.0
    suspended: bool = False
    deleted: bool = False  # a submitted version its league's organizer deleted
    remote: bool = False  # a bot that plays from its author's machine (arena connect)

    @property
    def score(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.games if self.games else 0.0


def environment(draw_probability: float = DEFAULT_DRAW_PROBABILITY) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=0.0,
                               draw_probability=draw_probability, backend=None)


class Rater:
    """Ratings updated one result at a time (``rate`` replays a whole list through one)."""

    def __init__(self, draw_probability: float = DEFAULT_DRAW_PROBABILITY, teams: int = 0):
        self.teams = teams
        self.env = environment(draw_probability)
        self.table: dict[str, Standing] = {}
        self._two_beta2 = 2 * self.env.beta ** 2
        self._margin = trueskill.calc_draw_margin(draw_probability, 2, self.env)

    def add(self, seats, ranks, scores, faults) -> None:
        if self.teams:
            self._add_teams(seats, ranks, scores, faults)
            return
        env = self.env
        standings = [self.table.setdefault(bot, Standing(bot)) for bot in seats]
        if len(standings) == 2:
            self._rate_two(*standings, ranks)
        else:
            groups = [(env.create_rating(s.mu, s.sigma),) for s in standings]
            rated = env.rate(groups, ranks=[r - 1 for r in ranks])
            for s, (r,) in zip(standings, rated, strict=True):
                s.mu, s.sigma = r.mu, r.sigma
        best = min(ranks)
        for s, rank, score, fault in zip(standings, ranks, scores, faults, strict=True):
            s.games += 1
            s.total_score += score
            s.faults += fault is not None and fault != "suspended"
            s.suspended = s.suspended or fault == "suspended"
            if rank != best:
                s.losses += 1
            elif ranks.count(best) == 1:
                s.wins += 1
            else:
                s.draws += 1

    def _add_teams(self, seats, ranks, scores, faults) -> None:
        """A team game: seat ``s`` plays for team ``s % teams``. Each bot counts once per
        match (a bot playing both seats of its team is one player); teams of one bot each
        are rated one against one, larger teams with TrueSkill's team model."""
        members: list[list[int]] = [[] for _ in range(self.teams)]
        for s, bot in enumerate(seats):
            if all(seats[i] != bot for i in members[s % self.teams]):
                members[s % self.teams].append(s)
        team_rank = [min(ranks[s] for s in range(len(seats)) if s % self.teams == t)
                     for t in range(self.teams)]
        teams = [[self.table.setdefault(seats[s], Standing(seats[s])) for s in m]
                 for m in members]
        if all(len(t) == 1 for t in teams) and self.teams == 2:
            self._rate_two(teams[0][0], teams[1][0], team_rank)
        else:
            env = self.env
            rated = env.rate([tuple(env.create_rating(p.mu, p.sigma) for p in t) for t in teams],
                             ranks=[r - 1 for r in team_rank])
            for t, new in zip(teams, rated, strict=True):
                for p, r in zip(t, new, strict=True):
                    p.mu, p.sigma = r.mu, r.sigma
        best = min(team_rank)
        for t, m in enumerate(members):
            for s in m:
                p = self.table[seats[s]]
                mine = [i for i in range(len(seats)) if seats[i] == seats[s]]
                p.games += 1
                p.total_score += scores[s]
                own = [faults[i] for i in mine if faults[i]]
                p.faults += bool([f for f in own if f != "suspended"])
                p.suspended = p.suspended or "suspended" in own
                if team_rank[t] != best:
                    p.losses += 1
                elif team_rank.count(best) == 1:
                    p.wins += 1
                else:
                    p.draws += 1

    def _rate_two(self, a: Standing, b: Standing, ranks) -> None:
        """One against one: Herbrich, Minka & Graepel (2006), equations for two players."""
        if ranks[1] < ranks[0]:
            a, b = b, a  # a is the winner (or, in a draw, seat 0)
        var_a, var_b = a.sigma ** 2, b.sigma ** 2
        c = math.sqrt(self._two_beta2 + var_a + var_b)
        t, eps = (a.mu - b.mu) / c, self._margin / c
        if ranks[0] == ranks[1]:
            v, w = self.env.v_draw(t, eps), self.env.w_draw(t, eps)
        else:
            v, w = self.env.v_win(t, eps), self.env.w_win(t, eps)
        a.mu, b.mu = a.mu + var_a / c * v, b.mu - var_b / c * v
        a.sigma = math.sqrt(var_a * (1 - var_a / c ** 2 * w))
        b.sigma = math.sqrt(var_b * (1 - var_b / c ** 2 * w))

    def standings(self) -> list[Standing]:
        """Best first (by mu - 3 sigma, then name)."""
        return sorted(self.table.values(), key=lambda s: (-s.score, s.bot))


def rate(results, draw_probability: float = DEFAULT_DRAW_PROBABILITY,
         teams: int = 0) -> list[Standing]:
    """Standings from ``results``: an iterable of ``(seats, ranks, scores, faults)`` in
    fixture order, where ``seats`` are bot names (``teams``: see ``Rater._add_teams``).
    Best first (by mu - 3 sigma, then name)."""
    rater = Rater(draw_probability, teams)
    for result in results:
        rater.add(*result)
    return rater.standings()
