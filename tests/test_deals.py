"""Explicit deals (docs/game-api.md): the JSON form and its validation."""

import json

import pytest

from arena.errors import GameError
from arena.games.vandtia import GAME


def deal(**extra):
    return {"players": [{"hand": ["3C"], "faceup": ["4C"], "facedown": ["5C"]},
                        {"hand": ["3D"], "faceup": ["4D"], "facedown": ["5D", None, "6D"]}],
            "partial": True, **extra}


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
    ({"players": [{"hand": [], "facedown": ["3C"]}, {"hand": ["4C"]}], "stock": ["5C"],
      "partial": True}, "no hand cards while the stock lasts"),
    ({"players": [{"facedown": ["3C", "4C", "5C", "6C"]}, {"hand": ["7C"]}], "partial": True},
     "more than 3"),
    ({**deal(), "partial": False}, "45 card\\(s\\) of the deck are missing"),
    ({k: v for k, v in deal().items() if k != "partial"}, 'add "partial": true'),
    (deal(stack=["3C"]), "deal: unknown key 'stack'"),
    ({"players": [{"hand": ["3C"], "known": ["3C"], "seen": []}, {"hand": ["4C"]}],
      "partial": True}, r"players\[0\]: unknown key 'seen'"),
    ({"players": [{"hand": ["3C"], "known": ["4C"]}, {"hand": ["4C"]}], "partial": True},
     "known: 4C is not in its hand"),
    (deal(pile=["3S", "10S"]), "a 10 in the pile"),
    (deal(pile=["7S", "7C", "7D", "7H"]), "four of one rank on top"),
    (deal(pile=["8C", "8D", "8H", "8S", "9C"]), "four of one rank in a row in the pile"),
    (deal(burned=["4S", "4H", "5S"]), "burned: no burns leave these cards"),  # no burn at all
    (deal(burned=["10C", "6C"]), "burned: no burns leave"),  # a 6 left after the last burn
    (deal(burned=["8C", "8D", "8H", "8S", "9C"]), "burned: no burns leave"),  # a 9 after
    ({"players": [{"hand": ["3C"]}] * 3}, "played by 2 players, not 3"),
])
def test_bad_deals_are_one_line_errors(bad, message):
    with pytest.raises(GameError, match=message):
        GAME.from_deal("cardems", bad)


@pytest.mark.parametrize("burned", [
    ["10C"], ["10C", "10D"], ["6C", "9S", "10C"],  # a 10 burns whatever lies under it
    ["8C", "8D", "8H", "8S"], ["5S", "8C", "8D", "8H", "8S"],  # four of a kind on top
    ["3S", "10C", "8C", "8D", "8H", "8S"],  # two burns one after another
])
def test_burned_cards_are_piles_burns_leave(burned):
    """Rules "Burn": a pile burns on a play of 10s or with four of one rank on top; the
    burned cards are those piles one after another (a deal may name them)."""
    GAME.from_deal("cardems", deal(burned=burned))


def test_a_whole_deck_needs_no_partial_flag():
    from arena.cards import FULL_DECK, name

    cards = [name(c) for c in FULL_DECK]
    seats = [{"hand": cards[0:3], "faceup": cards[3:6], "facedown": cards[6:9]},
             {"hand": cards[9:12], "faceup": cards[12:15], "facedown": cards[15:18]}]
    state = GAME.from_deal("cardems", {"players": seats, "stock": cards[18:], "dealer": 0})
    assert len(state.all_cards()) == 52


def test_known_hand_cards_are_public_in_every_observation():
    state = GAME.from_deal("cardems", {"players": [
        {"hand": ["3C", "KD"], "known": ["KD"], "faceup": ["4C"]}, {"hand": ["3D"]}],
        "to_move": 1, "partial": True})
    assert state.observation(1)["seats"][0]["known"] == ["KD"]
    assert state.observation(0)["seats"][0]["known"] == ["KD"]


def _whole(variant="german", pile=(), hand_sizes=(3, 3)):
    """A whole deck, dealt: hands of the given sizes, three face-up and three face-down
    each, the ``pile`` given, the rest the stock."""
    from arena.cards import FULL_DECK, name

    cards = [name(c) for c in FULL_DECK if name(c) not in pile]
    seats = []
    for size in hand_sizes:
        seats.append({"hand": cards[:size], "faceup": cards[size:size + 3],
                      "facedown": cards[size + 3:size + 6]})
        cards = cards[size + 6:]
    return {"players": seats, "pile": list(pile), "stock": cards, "to_move": 0}


def test_a_whole_deal_cannot_hold_a_pile_no_play_could_make():
    """A 7 may not go on a 9 (in ``german`` a seven is transparent only once down)."""
    with pytest.raises(GameError, match="pile: 7C cannot lie on 9D"):
        GAME.from_deal("german", _whole(pile=["5S", "9D", "7C"]))
    with pytest.raises(GameError, match=r"pile: 4H cannot lie on 7C \(4 may not go on 5"):
        GAME.from_deal("german", _whole(pile=["5S", "7C", "4H"]))  # the 7 shows the 5
    GAME.from_deal("german", _whole(pile=["5S", "7C", "6H"]))  # a 6 goes on a 7 over a 5
    GAME.from_deal("german", _whole(pile=["9D", "2S", "3H"]))  # a 2 clears it
    GAME.from_deal("german", {**_whole(pile=["9D", "7C"]), "partial": True})  # a puzzle


def test_a_whole_deals_burned_piles_were_each_stacked_as_play_stacks_them():
    """A burned pile was a pile: a Q never lay on an A (a puzzle may say so)."""
    def burned(cards):
        whole = _whole()
        return {**whole, "burned": cards, "stock": [c for c in whole["stock"]
                                                     if c not in cards]}

    with pytest.raises(GameError, match="burned: no burns leave"):
        GAME.from_deal("cardems", burned(["AS", "QH", "10H"]))
    GAME.from_deal("cardems", burned(["QH", "AS", "10H"]))
    GAME.from_deal("cardems", {**burned(["AS", "QH", "10H"]), "partial": True})


def test_a_whole_deal_gives_every_hand_three_cards_while_the_stock_lasts():
    with pytest.raises(GameError, match="seat 0 holds 1 hand card"):
        GAME.from_deal("swedish", _whole(hand_sizes=(1, 3)))
    GAME.from_deal("swedish", {**_whole(hand_sizes=(1, 3)), "partial": True})
