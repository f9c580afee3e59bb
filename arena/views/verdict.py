"""A head-to-head match's verdict in words: the lines ``arena match`` prints, ``season show``
repeats and the pages show, all from one dict - ``Tally.to_json()``, or what a finished
match was stored with (``arena.leagues.match.verdict``)."""

from __future__ import annotations


def signed(x: float | None, digits: int = 1) -> str:
    """``+2.5``, ``-0.3``, ``+0.0``: never ``-0.0`` (a symmetric table is level)."""
    if x is None:
        return "—"
    return f"{round(x, digits) + 0.0:+.{digits}f}"


def elo_text(v: dict) -> str:
    """``+8.7 ± 84.9``, or ``+1199.8 [+402.1, +1199.8]`` where the interval is one-sided
    (an end at the cap of ±1199.8), or ``-`` before any pair."""
    if not v["pairs"]:
        return "-"
    if v["elo_error"] is None or v["elo_low"] is None or v["elo_high"] is None:
        return f"{signed(v['elo'])} [{signed(v['elo_low'])}, {signed(v['elo_high'])}]"
    return f"{signed(v['elo'])} ± {v['elo_error']:.1f}"


def sprt_text(v: dict, finished: bool) -> str | None:
    """``LLR 2.95 (-2.94, 2.94) [0, 10] — H1 accepted``; an SPRT not decided says
    ``continues`` while the match goes on and ``stopped at its game cap, undecided`` once
    it is over. None without an SPRT."""
    test = v.get("sprt")
    if test is None:
        return None
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(
        test["decision"], "stopped at its game cap, undecided" if finished else "continues")
    return (f"LLR {test['llr']:.2f} ({test['lower']:.2f}, {test['upper']:.2f}) "
            f"[{test['elo0']:g}, {test['elo1']:g}] — {verdict}")


def money_text(m: dict) -> str:
    """``Money +3.2 ± 1.1 a deal (95 %)  [+2.1, +4.3], LOS 99.8 %``: what the candidate won
    more than the baseline on the same cards (``Tally.money_estimate``)."""
    if not m["pairs"]:
        return "Money: no pair yet"
    interval = (" ± any amount" if m["error"] is None else
                f" ± {m['error']:.1f} a deal (95 %)  [{signed(m['low'])}, {signed(m['high'])}]")
    return f"Money {signed(m['mean'])}{interval}, LOS {100 * m['los']:.1f} %"


def lines(v: dict, title: str, finished: bool) -> list[str]:
    """The summary, as fastchess prints one."""
    adjusted = v.get("adjust") == "luck"
    out = [title,
           f"Elo {elo_text(v)} (95 %" + (", luck-adjusted)" if adjusted else ")")
           + (f"  [{signed(v['elo_low'])}, {signed(v['elo_high'])}]"
              if v["pairs"] and v["elo_error"] is not None else ""),
           f"LOS {100 * v['los']:.1f} %"]
    if adjusted and v.get("raw"):
        raw = {**v["raw"], "pairs": v["pairs"]}
        ratio = (f", pair variance adjusted / raw {v['variance'] / raw['variance']:.2f}, "
                 f"beta {v['beta']:.2f}" if raw["variance"] > 0 and v["pairs"] else "")
        out.append(f"Raw: Elo {elo_text(raw)}, LOS {100 * raw['los']:.1f} %{ratio}")
    money = v.get("money")
    if money is not None:
        out.append(money_text(money))
    test = sprt_text(v, finished)
    if test is not None:
        out.append(test)
    w, d, losses = v["wins"], v["draws"], v["losses"]
    if v.get("pentanomial") is None:
        out.append(f"Games {2 * v['pairs']}; pairs where the candidate placed better, "
                   f"level, worse: {w} / {d} / {losses}")
    else:
        out += [f"Games {v['games']}: W {w} / D {d} / L {losses}",
                f"Pairs [LL, LD, DD+WL, WD, WW]: {v['pentanomial']}"]
    return out
