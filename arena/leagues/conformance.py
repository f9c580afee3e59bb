"""``arena check-bot``: does a bot start in the sandbox, play every game and variant it
claims, and forget each match when the next starts?

For each (game, variant) the bot plays a few short matches against ``random`` from one
worker process, then replays each match's seed with a fresh process: a bot that resets
between matches (and draws its randomness from the seed it is given) makes the same moves.

It fails fast: the first fault ends the check (the variants not reached are listed as not
checked), unless ``keep_going``, which plays every match of every variant. A fault says
which limit it broke: a timeout names ``move_s`` and the bank and how long the moves took.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from ..cards import keyed_seed, new_secret
from ..errors import BotFault
from ..plugins import parse_entrant
from ..referee import play_match
from ..sandbox.bot import make_bot


@dataclass
class Check:
    game: str
    variant: str
    matches: int = 0
    faults: list[str] = field(default_factory=list)
    start_s: float = 0.0
    move_times: list[float] = field(default_factory=list)
    reproducible: bool = True
    logs: list[str] = field(default_factory=list)  # the end of the bot's log, per fault
    checked: bool = True  # False: not reached, the check having stopped at a fault

    @property
    def ok(self) -> bool:
        return not self.faults and self.reproducible

    def describe(self) -> str:
        if not self.checked:
            return (f"{self.game} {self.variant}: not checked (the check stopped at the first "
                    "fault; --keep-going checks every variant)")
        times = sorted(self.move_times) or [0.0]
        words = [f"{self.game} {self.variant}: {self.matches} matches against random",
                 "no faults" if not self.faults else "faults: " + "; ".join(self.faults),
                 f"ready in {1000 * self.start_s:.0f} ms",
                 f"moves: mean {1000 * statistics.fmean(times):.2f} ms, median "
                 f"{1000 * statistics.median(times):.2f} ms, slowest {1000 * times[-1]:.2f} ms"]
        if not self.faults:
            words.append("resets between matches" if self.reproducible else
                         "does NOT reset between matches (a fresh process moved differently)")
        return ", ".join(words)


def _bot_actions(match, seat: int, game, variant: str) -> list:
    state = game.new_state(variant, len(match.players), match.seed)
    mine = []
    for action in match.actions:
        if state.to_move == seat:
            mine.append(action)
        state.apply(action)
    return mine


def _fault(fault: str, bot, limits) -> str:
    """A fault with the limit it broke: a timeout says the move time, the bank, what was
    left of it and how long the bot's moves took."""
    if fault != "timeout":
        return fault
    times = sorted(bot.move_times or [])
    took = (f"; its moves took {statistics.median(times):.1f} s (median), the slowest "
            f"{times[-1]:.1f} s" if times else "; it had made no move in time")
    return (f"timeout: move_s={limits.move_s:g}, bank {limits.bank_s:g} s: the move ran "
            f"past {limits.move_s + max(bot.bank, 0):.1f} s, with {max(bot.bank, 0):.1f} s "
            f"of the bank left{took}")


def check_bot(registry, name: str, games: list[str] | None = None, matches: int = 3,
              limits=None, keep_going: bool = False) -> list[Check]:
    """One :class:`Check` per game and variant the bot claims (or ``games``); stopped at
    the first fault unless ``keep_going`` (the variants left: ``checked`` False)."""
    from ..sandbox.process import Limits

    limits = limits or Limits()
    checks, secret = [], new_secret()  # deals the bot cannot compute, as in a season
    base = parse_entrant(name)[0]
    registry.bots()
    base = registry.latest.get(base, base)  # a submitted bot without a version: its latest
    if base not in registry.bots():
        registry.bot(name, "")  # UnknownBot, with the names it knows
    for game_name in games or list(registry.bots()[base]):
        entry = registry.bot(name, game_name)
        game = registry.game(game_name)
        opponent = registry.bot("random", game_name)
        for variant, counts in game.variants.items():
            players = counts[0]
            check = Check(game_name, variant)
            if not keep_going and any(c.faults for c in checks):
                check.checked = False
                checks.append(check)
                continue
            bot = make_bot(entry, limits)
            others = [make_bot(opponent, limits) for _ in range(players - 1)]
            bot.move_times = check.move_times
            played = []
            try:
                started = time.perf_counter()
                try:
                    bot.start({"game": game_name, "variant": variant, "seat": 0,
                               "players": players, "seed": 0})
                except BotFault as fault:
                    check.faults.append(f"at start: {fault.reason}")
                    check.logs.append(fault.log)
                    checks.append(check)
                    continue
                check.start_s = time.perf_counter() - started
                for i in range(matches):
                    match, _ = play_match(game, variant, [bot, *others],
                                          keyed_seed(secret, "check", game_name, variant, i),
                                          [name] + ["random"] * (players - 1), secret=secret)
                    check.matches += 1
                    played.append(match)
                    if match.result.faults[0]:
                        check.faults.append(_fault(match.result.faults[0], bot, limits))
                        check.logs.append(match.logs.get(0, ""))
                        if not keep_going:
                            break
            finally:
                for b in (bot, *others):
                    b.close()
            if check.faults and not keep_going:
                checks.append(check)
                continue
            for match in played[1:]:  # the first match of a process is its own reference
                fresh = [make_bot(entry, limits)] + [make_bot(opponent, limits)
                                                     for _ in range(players - 1)]
                try:
                    again, _ = play_match(game, variant, fresh, match.seed, match.players,
                                          secret=secret)
                finally:
                    for b in fresh:
                        b.close()
                if _bot_actions(again, 0, game, variant) != _bot_actions(match, 0, game,
                                                                           variant):
                    check.reproducible = False
            checks.append(check)
    return checks
