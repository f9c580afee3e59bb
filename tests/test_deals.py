"""Explicit deals (docs/game-api.md): the JSON form and its validation."""

import json

import pytest

from arena.errors import GameError
from arena.games.vandtia import GAME


def deal(**extra):
    return {"players": [{"hand": ["3C"], "faceup": ["4C"], "facedown": ["5C"]},
                        {"hand": ["3D"], "faceup": ["4D"], "facedown": ["5D", None, "6D"]}],
            **extra}


def test_a_deal_round_trips_through_json():
    state = GAME.from_deal("cardems", json.loads(json.dumps(deal(dealer=1))))
    assert state.dealer == 1 and state.swapping == [0, 1]
    assert state.observation(0)["seats"][1]["facedown"] == [0, 2]


def test_to_move_skips_the_set_up_swap():
    state = GAME.from_deal("cardems", deal(to_move=1, pile=["2C"], burned=["10C"], moves=7))
    assert state.to_move == 1 and not state.swapping and state.moves == 7


@pytest.mark.parametrize("bad,message", [
    ({"players": "x"}, "'players' list"),
    (deal(stock=["3C"]), "3C appears more than 1"),
    (deal(pile=["ZZ"]), "not a card"),
    (deal(dealer=5), "dealer must be a seat"),
    (deal(to_move=-1), "to_move must be a seat"),
    (deal(moves=250), "moves must be"),
    (deal(out=[0]), "listed in 'out' exactly when"),
    ({"players": [{"hand": [], "facedown": ["3C"]}, {"hand": ["4C"]}], "stock": ["5C"]},
     "no hand cards while the stock lasts"),
    ({"players": [{"facedown": ["3C", "4C", "5C", "6C"]}, {"hand": ["7C"]}]}, "more than 3"),
    ({"players": [{"hand": ["3C"]}] * 3}, "played by 2 players, not 3"),
])
def test_bad_deals_are_one_line_errors(bad, message):
    with pytest.raises(GameError, match=message):
        GAME.from_deal("cardems", bad)
