"""Cherki: one named test per rule line of rules/cherki.md, from explicit deals."""

import random

import pytest

from arena.cards import derive_seed
from arena.errors import GameError, IllegalAction
from arena.games.cherki import (
    FACE_NAMES,
    GAME,
    KIND,
    VALUE,
    discard_calls,
    face,
    ready_pairs,
)

STOCK = "1C 2C 3C 4C 5C 6C 7C 8C 9C 1S 2S 3S"  # filler, top first


def kinds(text: str) -> list[int]:
    k = [0] * 12
    for n in text.split():
        k[KIND[face(n)]] += 1
    return k


def deal(h0, h1="4S 4S 5S 6S 7M 8M 9M WF", h2="1M 1M 2M 3M 5M 6M RF OT", stock=STOCK,
         pile="", dealer=2):
    """Seat 0 moves first (the dealer is seat 2 unless given)."""
    return GAME.from_deal("standard", {"hands": [h0.split(), h1.split(), h2.split()],
                                       "stock": stock.split(), "pile": pile.split(),
                                       "dealer": dealer, "partial": True})


def play(state, *actions):
    for a in actions:
        state.apply(a)
    return state


READY = "3C 3S 3M 7C 7C 7S WF WF"  # triples 3 and 7 (suits mixed), pair WF


# -- cards and sets ------------------------------------------------------------------------------


def test_two_decks_make_120_cards_four_of_each_of_30_faces():
    s = GAME.new_state("standard", 3, 1)
    every = s.all_faces()
    assert len(every) == 120 and all(every.count(f) == 4 for f in range(30))


def test_a_numerals_value_is_its_number_and_each_honour_is_its_own_kind():
    assert KIND[face("7C")] == KIND[face("7M")] == KIND[face("7S")]
    assert len({KIND[face(h)] for h in ("WF", "RF", "OT")}) == 3
    assert [VALUE[face(n)] for n in ("7C", "1M", "9S", "WF", "OT")] == [7, 1, 9, 1, 1]


def test_numeral_triples_may_mix_suits():
    assert ready_pairs(kinds(READY)) == (KIND[face("WF")],)


def test_honour_triples_need_one_honour_kind():
    assert ready_pairs(kinds("WF RF OT 5C 5C 5C 9M 9M")) == ()
    assert ready_pairs(kinds("WF WF WF 5C 5C 5C 9M 9M")) == (KIND[face("9M")],)


def test_a_ready_hand_is_two_triples_and_a_pair():
    assert ready_pairs(kinds("2C 2C 2C 2S 5M 5M 5M 8C")) == ()
    two_of_one = kinds("2C 2C 2C 2S 2M 2M 8C 8C")
    assert ready_pairs(two_of_one) == (KIND[face("8C")],), "two triples of one value"


def test_discarding_into_a_ready_hand_is_found_for_every_card():
    assert discard_calls(kinds(READY + " 9M")) == {KIND[face("9M")]: (KIND[face("WF")],)}
    nine = "3C 3S 3M 7C 7C 7S WF WF WF"
    assert discard_calls(kinds(nine)) == {KIND[face("WF")]: (KIND[face("WF")],),
                                          KIND[face("3C")]: (KIND[face("3C")],),
                                          KIND[face("7C")]: (KIND[face("7C")],)}


# -- the deal ------------------------------------------------------------------------------------


def test_the_dealer_is_drawn_from_the_seed_and_its_left_moves_first():
    dealers = {GAME.new_state("standard", 3, seed).dealer for seed in range(30)}
    assert dealers == {0, 1, 2}
    s = GAME.new_state("standard", 3, 5)
    assert s.to_move == (s.dealer + 1) % 3


def test_cards_are_dealt_two_at_a_time_from_the_dealers_left_for_four_rounds():
    seed = 11
    s = GAME.new_state("standard", 3, seed)
    rng = random.Random(derive_seed(seed, "deal"))
    rng.randrange(3)
    deck = [f for f in range(30) for _ in range(4)]
    rng.shuffle(deck)
    first = (s.dealer + 1) % 3
    expected = sorted(deck[0:2] + deck[6:8] + deck[12:14] + deck[18:20])
    assert s.hand_list(first) == expected
    assert [len(s.hand_list(p)) for p in range(3)] == [8, 8, 8]
    assert len(s.stock) == 96 and s.pile == [] and s.stock[-1] == deck[24]


def test_play_goes_round_the_table_in_seat_order():
    s = deal("1C 1C 2C 2C 4M 5M 6M 8M")
    play(s, "draw", "discard 1C")
    assert s.to_move == 1


# -- a turn --------------------------------------------------------------------------------------


def test_draw_takes_the_top_stock_card():
    s = play(deal("1C 1C 2C 2C 4M 5M 6M 8M"), "draw")
    assert s.hands[0][face("1C")] == 3 and s.phase == "discard" and len(s.stock) == 11


def test_no_take_from_an_empty_pile():
    assert "take" not in deal("1C 1C 2C 2C 4M 5M 6M 8M").legal_actions()


def test_only_the_top_discard_can_be_taken():
    s = deal("1C 1C 2C 2C 4M 5M 6M 8M", pile="9S OT")
    play(s, "take")
    assert s.hands[0][face("OT")] == 1 and s.pile == [face("9S")]
    assert s.observation(2)["takes"] == [{"seat": 0, "card": "OT", "move": 1}]


def test_the_discard_may_be_the_card_just_drawn():
    s = play(deal("1C 1C 2C 2C 4M 5M 6M 8M"), "draw")
    assert "discard 1C" in s.legal_actions()
    play(s, "discard 1C")
    assert s.pile == [face("1C")] and len(s.hand_list(0)) == 8


def test_a_ready_player_may_call_before_drawing():
    s = deal(READY)
    assert "call WF" in s.legal_actions()
    play(s, "call WF")
    assert s.locked[0] == KIND[face("WF")] and s.moves == 1 and s.legal_actions() == ("draw",)


def test_a_player_may_call_with_the_discard_that_leaves_it_ready():
    s = play(deal("3C 3S 3M 7C 7C 7S WF 9M", stock="WF " + STOCK), "draw")
    assert "discard 9M call WF" in s.legal_actions()
    play(s, "discard 9M call WF")
    assert s.locked[0] == KIND[face("WF")] and s.moves == 2
    assert s.observation(2)["calls"] == [2, None, None]  # the call came with that discard


# -- after calling -------------------------------------------------------------------------------


def test_the_call_locks_the_named_split_and_the_cards_stay_hidden():
    s = play(deal(READY), "call WF")
    other = s.observation(1)
    assert other["called"] == [True, False, False] and other["locked"] is None
    assert other["calls"] == [1, None, None]  # when it called, seen by all (rules version 3)
    assert s.observation(0)["locked"] == "WF"
    assert "3C" not in other["hand"]


def test_a_caller_drawing_its_pair_value_wins_at_once():
    s = play(deal(READY, stock="WF " + STOCK), "call WF", "draw")
    assert s.over and s.winner == 0 and s.reason == "win"
    assert sorted(s.observation(1)["winning_hand"]) == sorted(READY.split() + ["WF"])


def test_any_other_card_must_be_discarded_at_once():
    s = play(deal(READY), "call WF", "draw")
    assert s.legal_actions() == ("discard 1C",)
    with pytest.raises(IllegalAction):
        s.apply("discard 3C")


def test_a_caller_may_take_the_top_discard_only_when_it_completes_the_pair():
    assert "take" not in play(deal(READY, pile="9M"), "call WF").legal_actions()
    s = play(deal(READY, pile="WF"), "call WF")
    assert "take" in s.legal_actions()
    play(s, "take")
    assert s.winner == 0


def test_several_players_may_have_called():
    s = deal(READY, h1="4S 4S 4M 6S 6M 6C RF RF", stock="9S 9S 9S " + STOCK)
    play(s, "call WF", "draw", "discard 9S", "call RF", "draw", "discard 9S")
    assert s.observation(2)["called"] == [True, True, False]


def test_only_a_player_that_called_can_win():
    s = play(deal("3C 3S 3M 7C 7C 7S WF WF", stock="WF " + STOCK), "draw")
    assert not s.over and s.phase == "discard", "three triples without a call: discard"
    assert "discard WF call WF" in s.legal_actions()


# -- the end -------------------------------------------------------------------------------------


def test_the_winner_gains_twice_its_points_and_each_opponent_pays_them():
    s = play(deal(READY, stock="WF " + STOCK), "call WF", "draw")
    t = 3 + 3 + 3 + 7 + 7 + 7 + 1 + 1 + 1
    r = s.result()
    assert r.scores == [2 * t, -t, -t] and sum(r.scores) == 0
    assert r.ranks == [1, 2, 2], "the winner first, the other two share second place"


def test_an_exhausted_stock_ends_after_that_discard_as_a_drawn_deal():
    s = deal("1C 1C 2C 2C 4M 5M 6M 8M", stock="9S")
    play(s, "draw")
    assert not s.over
    play(s, "discard 9S")
    assert s.over and s.reason == "stock" and s.result().scores == [0, 0, 0]
    assert s.result().ranks == [1, 1, 1], "a drawn deal ranks all three equal"


def test_a_call_with_the_last_discard_is_still_allowed():
    s = play(deal("3C 3S 3M 7C 7C 7S WF 9M", stock="WF"), "draw")
    play(s, "discard 9M call WF")
    assert s.over and s.reason == "stock" and s.locked[0] is not None


def test_a_caller_drawing_its_winning_card_as_the_last_stock_card_wins():
    s = play(deal(READY, stock="WF"), "call WF", "draw")
    assert s.over and s.reason == "win" and s.winner == 0


def test_a_take_and_discard_loop_ends_at_the_cap_as_a_drawn_deal():
    s = deal("1C 1C 2C 2C 4M 5M 6M 8M", h1="4S 4S 5S 6S 7M 8M 9M WF",
             h2="1M 1M 2M 3M 5M 6M RF OT", pile="9S")
    while not s.over:
        s.apply("take" if "take" in s.legal_actions() else s.legal_actions()[0])
        if s.phase == "discard":
            s.apply(f"discard {s.observation(s.to_move)['hand'][0]}")
    assert s.reason == "cap" and s.moves == 250 and s.result().scores == [0, 0, 0]


# -- knowledge and errors ------------------------------------------------------------------------


def test_a_player_sees_discards_takes_draw_counts_the_stock_and_calls_not_hands():
    s = play(deal("1C 1C 2C 2C 4M 5M 6M 8M"), "draw", "discard 8M")
    o = s.observation(2)
    assert o["discards"] == [{"seat": 0, "card": "8M", "move": 2}] and o["draws"] == [1, 0, 0]
    assert o["stock"] == 11 and o["pile"] == ["8M"] and o["hand"] == sorted(
        o["hand"], key=face)
    assert "1C" not in o["hand"] and "legal" not in o


def test_malformed_deals_are_one_line_errors():
    with pytest.raises(GameError, match="three 'hands'"):
        GAME.from_deal("standard", {"hands": []})
    with pytest.raises(GameError, match="more than four times"):
        deal("1C 1C 1C 1C 1C 2C 3C 4C")
    with pytest.raises(GameError, match="not a Cherki card"):
        deal("1X 1C 2C 2C 4M 5M 6M 8M")
    with pytest.raises(GameError, match="holds all 120 cards, not 25"):
        GAME.from_deal("standard", {"hands": [["1C", "2C", "3C", "4C", "5C", "6C", "7C", "8C"],
                                              ["1S", "2S", "3S", "4S", "5S", "6S", "7S", "8S"],
                                              ["1M", "2M", "3M", "4M", "5M", "6M", "7M", "8M"]],
                                    "stock": ["9C"]})
    with pytest.raises(GameError, match="unknown key 'pille'"):
        GAME.from_deal("standard", {"hands": [["1C"] * 8] * 3, "pille": []})


def test_a_whole_cherki_deck_needs_no_partial_flag():
    whole = GAME.new_state("standard", 3, 5)
    deal = {"hands": [[FACE_NAMES[f] for f in whole.hand_list(p)] for p in range(3)],
            "stock": [FACE_NAMES[f] for f in whole.stock[::-1]], "dealer": whole.dealer}
    again = GAME.from_deal("standard", deal)
    assert again.hand_list(0) == whole.hand_list(0) and again.stock == whole.stock


def test_a_forfeiting_seat_comes_last_and_nobody_pays():
    s = deal("1C 1C 2C 2C 4M 5M 6M 8M")
    s.forfeit(1)
    assert s.result().ranks == [1, 3, 1] and s.result().scores == [0, 0, 0]


def test_a_player_sees_the_card_it_just_drew_until_it_discards():
    s = play(deal("1C 1C 2C 2C 4M 5M 6M 8M"), "draw")
    drawn = s.observation(0)["drawn"]
    assert drawn is not None and s.observation(1)["drawn"] is None  # its own, no one else's
    assert play(s, "discard 8M").observation(0)["drawn"] is None
