"""The end of a match in plain words, as a card table says it (``arena.web.tables.ending``):
to the person who played it, and to a watcher."""

from arena.web.tables import ending


def result(ranks, scores, reason="out", faults=None):
    return {"ranks": ranks, "scores": scores, "reason": reason,
            "faults": faults or [None] * len(ranks)}


def test_vandtia_a_win_a_loss_and_a_place_between():
    names = ["human:Ada", "greedy", "random"]
    assert ending("vandtia", names, 0, result([1, 2, 3], [2, 0, -2]), 0) == \
        "You went out first — you win."
    assert ending("vandtia", names, 0, result([3, 1, 2], [-2, 2, 0]), 0) == \
        "You were left with cards — you lose."
    assert ending("vandtia", names, 0, result([2, 1, 3], [0, 2, -2]), 0) == \
        "You went out second of 3."
    # a watcher of the same seat reads it of the person, by name
    assert ending("vandtia", names, 0, result([1, 2, 3], [2, 0, -2])) == \
        "Ada went out first — a win."


def test_vandtia_the_move_cap_and_a_forfeit_are_said():
    names = ["human:Ada", "crasher"]
    assert ending("vandtia", names, 0, result([1, 2], [1, -1], faults=[None, "crash"]), 0) \
        == "crasher forfeited (crash). You went out first — you win."
    assert ending("vandtia", names, 0, result([1, 1], [0, 0], reason="cap"), 0) == \
        "The move cap ended the match: you share first place of 2."


def test_cherki_says_who_won_and_who_pays_whom():
    names = ["setter@1", "human:Ada", "greedy"]
    assert ending("cherki", names, 1, result([1, 2, 2], [84.0, -42.0, -42.0]), 1) == \
        "setter@1 won; you pay 42."
    assert ending("cherki", names, 1, result([2, 1, 2], [-30, 60, -30]), 1) == \
        "You won: each opponent pays 30 (+60)."
    assert ending("cherki", names, 1, result([1, 1, 1], [0, 0, 0], reason="stock"), 1) == \
        "A drawn deal (the stock ran out): nobody pays."


def test_tractor_speaks_of_the_team():
    names = ["greedy", "human:Ada", "random", "greedy"]
    assert ending("tractor", names, 1, result([3, 1, 3, 1], [-2, 2, -2, 2]), 1) == \
        "You and greedy won: +2 levels."
    assert ending("tractor", names, 1, result([1, 3, 1, 3], [1, -1, 1, -1]), 1) == \
        "You and greedy lost: -1 level."
