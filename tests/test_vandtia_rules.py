"""One named test per rule line and table row of rules/vandtia.md, from explicit deals."""

import pytest
from conftest import play, position, seat

from arena import cards as C
from arena.errors import GameError, IllegalAction
from arena.games import competition_ranks
from arena.games.vandtia import GAME, MOVE_CAP

DOWN = ["2S", "8S", "JS"]  # filler face-down cards so a seat is not out


def legal(state):
    return set(state.legal_actions())


# -- Cards ---------------------------------------------------------------------------------


def test_standard_deck_has_52_distinct_cards_and_no_jokers():
    deck = C.deck()
    assert len(deck) == 52 and len(set(deck)) == 52
    assert {C.name(c)[:-1] for c in deck} == {"2", "3", "4", "5", "6", "7", "8", "9", "10",
                                             "J", "Q", "K", "A"}


@pytest.mark.parametrize("players,size", [(5, 52), (6, 104), (7, 104), (8, 104)])
def test_six_to_eight_swedish_players_use_two_decks(players, size):
    state = GAME.new_state("swedish", players, seed=1)
    everything = state.all_cards()
    assert len(everything) == size
    assert all(everything.count(c) == size // 52 for c in C.deck())


def test_four_of_a_kind_still_means_four_with_two_decks():
    others = [seat([f"{r}C"]) for r in "34567"]
    s = position("swedish", [seat(["9S"], facedown=DOWN)] + others,
                 pile=["8C", "9C", "9D", "9H"], to_move=0)
    play(s, "play 9S")
    assert s.pile == [] and C.names(s.burned) == ["8C", "9C", "9D", "9H", "9S"]


def test_rank_order_low_to_high():
    order = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]
    for low, high in zip(order, order[1:], strict=False):
        s = position(seats=[seat([high + "C", low + "D"], facedown=DOWN), seat(["3S"])],
                     pile=[high + "H"], to_move=0)
        assert f"play {high}C" in legal(s) and f"play {low}D" not in legal(s)


def test_suits_matter_only_for_who_starts():
    s = position(seats=[seat(["7H"], facedown=DOWN), seat(["3S"])], pile=["7S"], to_move=0)
    assert legal(s) == {"play 7H"}


# -- Deal and set-up -------------------------------------------------------------------------


def test_each_player_gets_three_down_three_up_three_in_hand():
    s = GAME.new_state("german", 4, seed=3)
    for p in range(4):
        assert len(s.hands[p]) == 3 and len(s.faceup[p]) == 3
        assert sum(c is not None for c in s.facedown[p]) == 3


def test_two_player_stock_has_34_cards():
    assert len(GAME.new_state("cardems", 2, seed=5).stock) == 34


def test_setup_swap_offers_any_three_of_the_six_visible_cards():
    s = GAME.new_state("cardems", 2, seed=11)
    p = s.to_move
    visible = sorted(s.hands[p] + s.faceup[p])
    swaps = s.legal_actions()
    assert len(swaps) == 20 and all(a.startswith("swap ") for a in swaps)
    for a in swaps:
        chosen = [C.parse(x) for x in a.split()[1:]]
        assert len(chosen) == 3 and all(c in visible for c in chosen)


def test_setup_swap_puts_the_chosen_cards_face_up_and_the_rest_in_hand():
    s = position(seats=[seat(["3C", "9D", "KH"], ["AS", "5D", "2C"], ["4C", "4D", "4H"]),
                        seat(["3S", "4S", "5S"], ["6S", "7S", "8S"], ["9S", "JS", "QS"])],
                 dealer=1)
    play(s, "swap 2C 9D AS")
    assert C.names(s.faceup[0]) == ["2C", "9D", "AS"]
    assert C.names(s.hands[0]) == ["3C", "5D", "KH"]


def test_setup_swaps_go_in_seat_order_from_left_of_dealer():
    seats = [seat([r + s for r in "345"], [r + s for r in "678"], [r + s for r in "9JQ"])
             for s in "CDHS"]
    s = position("swedish", seats, dealer=2)
    order = []
    while s.swapping:
        order.append(s.to_move)
        s.apply(s.legal_actions()[0])
    assert order == [3, 0, 1, 2]


def test_setup_swap_is_not_a_move():
    s = GAME.new_state("cardems", 2, seed=2)
    for _ in range(2):
        s.apply(s.legal_actions()[0])
    assert not s.swapping and s.moves == 0


def test_left_neighbour_of_seat_i_is_seat_i_plus_one():
    s = position("swedish", [seat(["5C"], facedown=DOWN), seat(["6C"], facedown=["4S"]),
                             seat(["7C"], facedown=["5S"])], to_move=2)
    play(s, "play 7C")
    assert s.to_move == 0


# -- Who starts ------------------------------------------------------------------------------


def _keep_swaps(s):
    while s.swapping:
        p = s.to_move
        s.apply("swap " + " ".join(C.names(sorted(s.faceup[p]))))
    return s


@pytest.mark.parametrize("dealer,starter", [(0, 1), (1, 0)])
def test_cardems_player_left_of_dealer_starts(dealer, starter):
    s = position(seats=[seat(["3C", "4C", "5C"], ["6C", "7C", "8C"], ["9C", "JC", "QC"]),
                        seat(["3D", "4D", "5D"], ["6D", "7D", "8D"], ["9D", "JD", "QD"])],
                 dealer=dealer)
    assert _keep_swaps(s).to_move == starter


def test_cardems_dealer_is_drawn_from_the_deal_seed():
    dealers = {GAME.new_state("cardems", 2, seed).dealer for seed in range(20)}
    assert dealers == {0, 1}
    assert all(GAME.new_state("cardems", 2, 9).dealer == GAME.new_state("cardems", 2, 9).dealer
               for _ in range(3))


def _three(hands, variant="swedish", dealer=0, faceup=None):
    ups = faceup or [["JC", "JD", "JH"], ["QC", "QD", "QH"], ["KC", "KD", "KH"]]
    downs = [["AC", "AD", "AH"], ["9C", "9D", "9H"], ["8C", "8D", "8H"]]
    return position(variant, [seat(h, u, d) for h, u, d in zip(hands, ups, downs, strict=False)],
                    dealer=dealer, stock=["4D", "5D", "6D", "7D", "10D"])


def test_swedish_holder_of_the_lowest_hand_card_starts():
    s = _keep_swaps(_three([["6S", "7S", "JS"], ["5S", "QS", "KS"], ["4H", "AS", "2S"]]))
    assert s.to_move == 2


def test_swedish_two_and_ten_are_not_low_cards():
    s = _keep_swaps(_three([["2C", "10C", "AS"], ["9S", "QS", "KS"], ["10H", "2D", "JS"]]))
    assert s.to_move == 1


def test_swedish_tie_by_suit_hearts_lowest_first():
    s = _keep_swaps(_three([["3S", "7S", "JS"], ["3C", "QS", "KS"], ["3H", "AS", "2S"]]))
    assert s.to_move == 2


def test_german_tie_by_suit_spades_first():
    s = _keep_swaps(_three([["3H", "7S", "JS"], ["3S", "QS", "KS"], ["3D", "AS", "2S"]],
                           variant="german"))
    assert s.to_move == 1


def test_swedish_starters_first_play_is_free():
    s = _keep_swaps(_three([["6S", "7S", "JS"], ["5S", "QS", "KS"], ["4H", "AS", "2S"]]))
    assert legal(s) == {"play 4H", "play AS", "play 2S", "draw"}


def test_german_starters_first_play_must_include_the_lowest_card():
    s = _keep_swaps(_three([["3S", "3C", "JS"], ["4S", "QS", "KS"], ["5S", "AS", "2S"]],
                           variant="german"))
    assert s.to_move == 0
    assert legal(s) == {"play 3S", "play 3S 3C"}  # no other rank, no draw-and-try
    play(s, "play 3S 3C")
    assert "draw" in legal(s)  # the next player is free again


def test_lowest_card_is_looked_for_after_the_swaps():
    hands = [["9S", "QS", "KS"], ["5S", "7S", "JS"], ["6S", "AS", "2S"]]
    ups = [["3H", "JC", "JD"], ["QC", "QD", "QH"], ["KC", "KD", "KH"]]
    assert _keep_swaps(_three(hands, faceup=ups)).to_move == 1
    s = _three(hands, faceup=ups)  # dealer 0: seats 1, 2, 0 swap in that order
    play(s, "swap QC QD QH", "swap KC KD KH", "swap 9S JC JD")  # seat 0 takes up its 3H
    assert C.names(s.hands[0]) == ["3H", "QS", "KS"] and s.to_move == 0


def test_two_decks_same_lowest_card_first_from_dealers_left():
    seats = [seat([f"{r}S"], [f"{r}C"], [f"{r}D"]) for r in "456789"]
    seats[1]["hand"] = ["3H"]
    seats[5]["hand"] = ["3H"]
    s = _keep_swaps(position("swedish", seats, dealer=3))
    assert s.to_move == 5


def test_no_low_card_in_any_hand_left_of_dealer_starts():
    s = _keep_swaps(position("swedish", [seat(["2C", "10C"], ["5C"], ["6C"]),
                                         seat(["2D", "10D"], ["5D"], ["6D"])], dealer=0))
    assert s.to_move == 1


def test_play_goes_round_the_table_in_seat_order():
    s = position("swedish", [seat(["5C", "6C"], facedown=DOWN), seat(["5D", "6D"], facedown=["4S"]),
                             seat(["5H", "6H"], facedown=["5S"])], to_move=0)
    seen = []
    for a in ["play 5C", "play 5D", "play 6H", "play 6C"]:
        seen.append(s.to_move)
        s.apply(a)
    assert seen == [0, 1, 2, 0]


# -- A turn ----------------------------------------------------------------------------------


def _duel(hand, pile=(), stock=(), variant="cardems", other=("3S",), down=DOWN, up=()):
    return position(variant, [seat(hand, up, down), seat(list(other), facedown=["2H"])],
                    pile=list(pile), stock=list(stock), to_move=0)


def test_empty_pile_accepts_anything():
    assert legal(_duel(["3C", "AC", "7D"])) == {"play 3C", "play 7D", "play AC"}


def test_two_as_top_accepts_anything():
    assert legal(_duel(["3C", "AC"], pile=["KD", "2C"])) == {"play 3C", "play AC"}


def test_play_must_equal_or_beat_the_top():
    assert legal(_duel(["7C", "8C", "9C"], pile=["8H"])) == {"play 8C", "play 9C"}


def test_several_cards_of_one_rank_may_be_played_together():
    s = _duel(["9C", "9D", "9H", "5C"], pile=["8H"])
    assert legal(s) == {"play 9C", "play 9C 9D", "play 9C 9D 9H"}
    play(s, "play 9C 9D 9H")
    assert C.names(s.pile) == ["8H", "9C", "9D", "9H"] and C.names(s.hands[0]) == ["5C"]


def test_two_and_ten_are_always_legal():
    assert legal(_duel(["2C", "10C", "5D"], pile=["AS"])) == {"play 2C", "play 10C"}


def test_ten_burns_the_pile_and_the_same_player_plays_again():
    s = play(_duel(["10C", "5D", "6D"], pile=["AS", "KS"]), "play 10C")
    assert s.pile == [] and C.names(s.burned) == ["AS", "KS", "10C"] and s.to_move == 0
    assert legal(s) == {"play 5D", "play 6D"}


def test_four_of_a_kind_in_one_play_burns():
    s = play(_duel(["6C", "6D", "6H", "6S", "3D"], pile=["5S"]), "play 6C 6D 6H 6S")
    assert s.pile == [] and len(s.burned) == 5 and s.to_move == 0


def test_four_of_a_kind_across_players_burns():
    s = position("swedish", [seat(["5H", "KD"], facedown=DOWN),
                             seat(["5S", "KC"], facedown=["2H"])],
                 pile=["4H", "5C", "5D"], to_move=0)
    play(s, "play 5H")
    assert s.to_move == 1 and len(s.pile) == 4
    play(s, "play 5S")
    assert s.pile == [] and s.to_move == 1, "the player completing the four plays again"


def test_sevens_count_as_ordinary_cards_for_four_of_a_kind():
    s = position("german", [seat(["5S", "7S", "KD"], facedown=DOWN), seat(["AC"], facedown=["2H"])],
                 pile=["5C", "7C", "5D", "5H"], to_move=0)
    play(s, "play 5S")
    assert len(s.pile) == 5, "5 7 5 5 5 does not burn"
    s = position("german", [seat(["7S", "KD"], facedown=DOWN), seat(["AC"], facedown=["2H"])],
                 pile=["6C", "7C", "7D", "7H"], to_move=0)
    play(s, "play 7S")
    assert s.pile == [] and s.to_move == 0, "four 7s burn"


def test_after_a_burn_the_same_player_has_a_full_turn_with_draw_and_try():
    s = play(_duel(["10C", "5D", "6D"], pile=["AS"], stock=["3H", "4H"], variant="swedish"),
             "play 10C")
    assert s.to_move == 0 and "draw" in legal(s)


def test_burning_with_the_last_card_is_out_and_the_next_player_starts_the_empty_pile():
    s = position("german", [seat(faceup=["10C"]),
                            seat(["9C"], facedown=["2H"]), seat(["8C"], facedown=["2D"])],
                 pile=["AS"], to_move=0)
    play(s, "play 10C")
    assert s.out == [0] and s.pile == [] and s.to_move == 1
    assert legal(s) == {"play 9C"}


def test_refill_to_three_after_a_play_while_the_stock_lasts():
    s = play(_duel(["5C", "5D", "9H"], stock=["3D", "4D", "6D"]), "play 5C 5D")
    assert C.names(s.hands[0]) == ["3D", "4D", "9H"] and C.names(s.stock) == ["6D"]


def test_refill_stops_when_the_stock_runs_out():
    s = play(_duel(["5C", "5D", "9H"], stock=["3D"]), "play 5C 5D")
    assert C.names(s.hands[0]) == ["3D", "9H"] and s.stock == []


def test_cardems_without_a_legal_play_picks_up_the_pile_and_the_turn_passes():
    s = _duel(["3C", "4C", "5C"], pile=["9D", "KD"], stock=["6D"])
    assert legal(s) == {"pickup"}
    play(s, "pickup")
    assert C.names(s.hands[0]) == ["3C", "4C", "5C", "9D", "KD"]
    assert s.pile == [] and s.to_move == 1


def test_cardems_pickup_is_not_allowed_with_a_legal_play():
    s = _duel(["3C", "4C", "AC"], pile=["KD"], stock=["6D"])
    assert legal(s) == {"play AC"}
    with pytest.raises(IllegalAction):
        s.apply("pickup")


def test_cardems_has_no_draw_and_try():
    assert "draw" not in legal(_duel(["3C"], pile=["KD"], stock=["6D"]))


@pytest.mark.parametrize("variant", ["swedish", "german"])
def test_draw_and_try_plays_a_legal_card_at_once(variant):
    s = _duel(["3C", "4C", "5C"], pile=["9D"], stock=["JD", "8D"], variant=variant)
    assert legal(s) == {"draw"}
    play(s, "draw")  # the stock is listed top first: JD
    assert C.names(s.pile) == ["9D", "JD"] and len(s.hands[0]) == 3 and s.to_move == 1


def test_draw_and_try_ten_burns_and_the_same_player_plays_again():
    s = play(_duel(["3C", "4C", "5C"], pile=["9D"], stock=["10D", "8D"], variant="swedish"),
             "draw")
    assert s.pile == [] and s.to_move == 0 and C.names(s.burned) == ["9D", "10D"]


def test_draw_and_try_illegal_card_is_picked_up_with_the_pile():
    s = play(_duel(["3C", "4C", "5C"], pile=["9D", "KD"], stock=["6D", "8D"],
                   variant="german"), "draw")
    assert C.names(s.hands[0]) == ["3C", "4C", "5C", "6D", "9D", "KD"]
    assert s.pile == [] and s.to_move == 1 and C.names(s.stock) == ["8D"]


def test_draw_and_try_is_allowed_with_a_legal_play_too():
    assert legal(_duel(["3C", "AC"], pile=["KD"], stock=["6D"], variant="swedish")) == {
        "play AC", "draw"}


def test_empty_stock_without_a_legal_play_picks_up():
    assert legal(_duel(["3C"], pile=["KD"], variant="swedish")) == {"pickup"}


def test_empty_stock_with_a_legal_play_must_play():
    assert legal(_duel(["3C", "AC"], pile=["KD"], variant="german")) == {"play AC"}


def test_after_a_pickup_the_next_player_plays_onto_an_empty_pile():
    s = play(_duel(["3C"], pile=["KD"], other=["4S", "5S"]), "pickup")
    assert s.to_move == 1 and s.pile == [] and legal(s) == {"play 4S", "play 5S"}


# -- Stages ----------------------------------------------------------------------------------


def test_hand_is_played_before_the_face_up_cards():
    assert legal(_duel(["5C"], up=["9C", "KC"])) == {"play 5C"}


def test_face_up_stage_once_hand_and_stock_are_empty():
    s = _duel([], up=["9C", "KC", "3D"], pile=["8H"])
    assert s.stage(0) == "faceup" and legal(s) == {"play 9C", "play KC"}


def test_face_up_cards_play_in_any_order_and_in_groups():
    s = _duel([], up=["9C", "9D", "KC"])
    assert legal(s) == {"play 9C", "play 9C 9D", "play KC"}
    play(s, "play KC")
    assert C.names(s.faceup[0]) == ["9C", "9D"]


def test_no_legal_face_up_play_picks_up_the_pile_back_to_the_hand_stage():
    s = _duel([], up=["3C", "4C"], pile=["KD"])
    assert legal(s) == {"pickup"}
    play(s, "pickup")
    assert C.names(s.hands[0]) == ["KD"] and s.stage(0) == "hand"
    assert C.names(s.faceup[0]) == ["3C", "4C"]


def test_face_down_stage_flips_a_card_by_position():
    s = position(seats=[seat(facedown=["5C", None, "9C"]), seat(["3S"], facedown=["2H"])],
                 to_move=0)
    assert s.stage(0) == "facedown" and legal(s) == {"flip 0", "flip 2"}


def test_legal_face_down_card_counts_as_played():
    s = position(seats=[seat(facedown=["5C", "QC", "9C"]), seat(["3S"], facedown=["2H"])],
                 pile=["8D"], to_move=0)
    play(s, "flip 2")
    assert C.names(s.pile) == ["8D", "9C"] and s.to_move == 1 and s.facedown[0][2] is None


def test_face_down_ten_burns_and_the_player_goes_again():
    s = position(seats=[seat(facedown=["5C", "10C"]), seat(["3S"], facedown=["2H"])],
                 pile=["AD"], to_move=0)
    play(s, "flip 1")
    assert s.pile == [] and s.to_move == 0 and legal(s) == {"flip 0"}


def test_failed_face_down_card_goes_to_the_hand_with_the_pile():
    s = position(seats=[seat(facedown=["5C", "QC"]), seat(["3S"], facedown=["2H"])],
                 pile=["8D", "KD"], to_move=0)
    play(s, "flip 0")
    assert C.names(s.hands[0]) == ["5C", "8D", "KD"] and s.pile == [] and s.to_move == 1


def test_hand_must_be_emptied_before_the_next_face_down_card():
    s = position(seats=[seat(["5C"], facedown=["QC"]), seat(["3S"], facedown=["2H"])],
                 to_move=0)
    assert legal(s) == {"play 5C"}


# -- Special cards and variants ----------------------------------------------------------------


@pytest.mark.parametrize("variant", ["cardems", "swedish", "german"])
def test_two_goes_on_anything_and_the_next_player_may_play_anything(variant):
    s = play(_duel(["2C", "KD"], pile=["AS"], other=["3S", "4S"], variant=variant), "play 2C")
    assert legal(s) >= {"play 3S", "play 4S"}


@pytest.mark.parametrize("variant", ["cardems", "swedish", "german"])
def test_ten_goes_on_anything_burns_and_the_same_player_goes_again(variant):
    s = play(_duel(["10C", "KD"], pile=["AS"], variant=variant), "play 10C")
    assert s.pile == [] and s.to_move == 0


@pytest.mark.parametrize("variant", ["cardems", "swedish", "german"])
def test_four_of_a_kind_on_top_burns_in_every_variant(variant):
    s = play(_duel(["QC", "KD"], pile=["QD", "QH", "QS"], variant=variant), "play QC")
    assert s.pile == [] and s.to_move == 0


@pytest.mark.parametrize("variant", ["cardems", "swedish"])
def test_seven_is_an_ordinary_card_outside_german(variant):
    assert legal(_duel(["5C", "8C"], pile=["5D", "7C"], variant=variant)) == {"play 8C"}


def test_german_seven_is_transparent():
    assert legal(_duel(["4C", "6C"], pile=["5D", "7C", "7D"], variant="german")) == {"play 6C"}


def test_german_sevens_over_a_two_accept_anything():
    assert legal(_duel(["3C", "6C"], pile=["KD", "2D", "7C"], variant="german")) == {
        "play 3C", "play 6C"}


def test_german_sevens_over_nothing_accept_anything():
    assert legal(_duel(["3C"], pile=["7C"], variant="german")) == {"play 3C"}


def test_german_seven_itself_is_played_under_the_ordinary_rule():
    assert legal(_duel(["7C", "3C"], pile=["9D"], variant="german")) == {"pickup"}
    assert legal(_duel(["7C", "3C"], pile=["5D"], variant="german")) == {"play 7C"}
    assert legal(_duel(["7C", "3C"], pile=["5D", "7D"], variant="german")) == {"play 7C"}


@pytest.mark.parametrize("variant,draws", [("cardems", False), ("swedish", True),
                                           ("german", True)])
def test_draw_from_the_stock_instead_of_playing_by_variant(variant, draws):
    assert ("draw" in legal(_duel(["AC"], stock=["3D"], variant=variant))) is draws


def test_player_counts_by_variant():
    assert GAME.variants == {"cardems": (2,), "swedish": tuple(range(2, 9)),
                             "german": tuple(range(2, 6))}
    with pytest.raises(GameError):
        GAME.new_state("cardems", 3, 1)
    with pytest.raises(GameError):
        GAME.new_state("german", 6, 1)
    GAME.new_state("swedish", 8, 1)


# -- End of the game and results ---------------------------------------------------------------


def test_player_with_no_cards_left_is_out():
    s = play(_duel(["9C"], down=[], other=["3S"]), "play 9C")
    assert s.out == [0] and s.is_over() and s.result().reason == "out"


def test_cardems_first_player_out_wins():
    s = play(_duel(["9C"], down=[]), "play 9C")
    assert s.result().ranks == [1, 2] and s.result().scores == [1, -1]


def test_swedish_first_out_wins_and_all_others_share_second():
    s = position("swedish", [seat(["3C"]), seat(["4C"], facedown=["2H"]),
                             seat(["5C", "6C"], ["7C"], ["8C"])], to_move=0)
    play(s, "play 3C")
    assert s.is_over() and s.result().ranks == [1, 2, 2]


def _german_four():
    return position("german", [seat(["3C"]), seat(["4C"]), seat(["5C", "6C"]),
                               seat(["7H", "9H", "JH"])], to_move=0)


def test_german_play_goes_on_and_the_finishing_order_is_the_ranking():
    s = play(_german_four(), "play 3C", "play 4C", "play 5C", "play 7H", "play 6C")
    assert s.is_over() and s.out == [0, 1, 2]
    assert s.result().ranks == [1, 2, 3, 4] and s.result().reason == "out"


def test_german_turns_skip_finished_players():
    s = play(_german_four(), "play 3C", "play 4C", "play 5C", "play 7H")
    assert s.to_move == 2


def _capped(moves, variant="cardems", seats=None, **extra):
    seats = seats or [seat(["9C"], facedown=["2H"]), seat(["3S", "4S"], ["5S"], ["6S"])]
    return position(variant, seats, moves=moves, to_move=0, **extra)


def test_game_ends_at_the_cap_of_250_moves():
    s = play(_capped(MOVE_CAP - 2), "play 9C", "pickup")
    assert s.is_over() and s.moves == 250 and s.result().reason == "cap"


def test_game_ending_naturally_on_move_250_ends_naturally():
    s = play(_capped(MOVE_CAP - 1, seats=[seat(["9C"]), seat(["3S"], facedown=["2H"])]),
             "play 9C")
    assert s.moves == 250 and s.result().reason == "out" and s.result().ranks == [1, 2]


def test_cap_ranks_by_cards_held_fewer_first():
    s = play(_capped(MOVE_CAP - 1, seats=[seat(["9C", "KC"], ["2C"]),
                                         seat(["3S", "4S"], facedown=["2H"])]), "play 9C")
    assert s.result().ranks == [1, 2], "2 cards held against 3"


def test_cap_the_stock_belongs_to_nobody():
    s = play(_capped(MOVE_CAP - 1, seats=[seat(["9C", "KC", "QC"]), seat(["3S"])],
                     stock=["4D", "5D", "6D", "7D"]), "play 9C")
    assert s.result().ranks == [2, 1], "3 cards in hand against 1; the stock is nobody's"


def test_cap_equal_counts_share_a_place_a_draw():
    s = play(_capped(MOVE_CAP - 1, seats=[seat(["9C", "KC"]), seat(["3S"])]), "play 9C")
    assert s.result().ranks == [1, 1] and s.result().scores == [0, 0]


def test_cap_players_already_out_keep_their_places():
    seats = [seat(), seat(["9C", "KC"]), seat(["3S", "4S", "5S"])]
    s = position("german", seats, moves=MOVE_CAP - 1, to_move=1, out=[0])
    play(s, "play 9C")
    assert s.result().reason == "cap" and s.result().ranks == [1, 2, 3]


def test_places_are_numbered_competition_style():
    assert competition_ranks([1, 2, 2]) == [1, 2, 2]
    assert competition_ranks([0, 0, 1, 2]) == [1, 1, 3, 4]


def test_forfeit_puts_the_seat_last_and_others_as_at_the_cap():
    s = position("german", [seat(["3C"]), seat(["4C", "5C"]), seat(["6C"])], to_move=0)
    s.forfeit(2)
    r = s.result()
    assert r.reason == "forfeit" and r.ranks == [1, 2, 3]


# -- What each player knows --------------------------------------------------------------------


def test_observation_holds_own_hand_and_public_information_only():
    s = _duel(["3C", "9C"], pile=["8H"], stock=["5D", "6D"], up=["KC"], other=["3S", "4S"])
    o = s.observation(1)
    assert o["hand"] == ["3S", "4S"] and o["stock"] == 2 and o["pile"] == ["8H"]
    assert o["seats"][0] == {"hand": 2, "known": [], "faceup": ["KC"], "facedown": [0, 1, 2],
                             "out": None}
    assert "legal" not in o and s.legal_actions() == ("play 9C",)
    text = repr(o)
    for hidden in ("3C", "9C", "5D", "6D", "2S", "8S", "JS", "2H"):
        assert f"'{hidden}'" not in text


def test_cards_swapped_from_face_up_into_the_hand_are_public():
    s = position(seats=[seat(["3C", "9D", "KH"], ["AS", "5D", "2C"], ["4C", "4D", "4H"]),
                        seat(["3S", "4S", "5S"], ["6S", "7S", "8S"], ["9S", "JS", "QS"])],
                 dealer=1)
    play(s, "swap 2C 9D KH")
    assert s.observation(1)["seats"][0]["known"] == ["5D", "AS"]


def test_failed_draw_and_try_card_is_public():
    s = play(_duel(["3C", "4C", "5C"], pile=["KD"], stock=["6D", "8D"], variant="german"),
             "draw")
    assert s.observation(1)["seats"][0]["known"] == ["6D", "KD"]


def test_failed_face_down_card_is_public():
    s = position(seats=[seat(facedown=["5C", "QC"]), seat(["3S"], facedown=["2H"])],
                 pile=["KD"], to_move=0)
    play(s, "flip 0")
    assert s.observation(1)["seats"][0]["known"] == ["5C", "KD"]


def test_known_cards_leave_the_public_list_when_played():
    s = play(_duel(["3C"], pile=["KD"], other=["4S", "5S"]), "pickup", "play 4S", "play KD")
    assert s.observation(1)["seats"][0]["known"] == []


def test_nobody_sees_face_down_cards_or_the_stock_order():
    s = GAME.new_state("swedish", 3, seed=4)
    for p in range(3):
        o = repr(s.observation(p))
        for q in range(3):
            for c in s.facedown[q]:
                assert f"'{C.name(c)}'" not in o
        for c in s.stock:
            assert f"'{C.name(c)}'" not in o


# -- which copies a play shows (a hand holding known and hidden copies of a rank) ----------


def _knows(hand, known, pile=("5D",), variant="cardems"):
    s = _duel(hand, pile=pile, variant=variant)
    s.known[0] = [C.parse(c) for c in known]
    s._legal = None
    return s


def test_a_seat_may_play_a_known_copy_and_keep_a_hidden_one():
    s = _knows(["7C", "7H", "7S", "3D"], known=["7C"])
    assert legal(s) == {"play 7C", "play 7H", "play 7C 7H", "play 7H 7S", "play 7C 7H 7S"}
    play(s, "play 7C")  # the known seven: the others learn nothing new
    assert s.observation(1)["seats"][0]["known"] == []
    assert s.observation(1)["seats"][0]["hand"] == 3


def test_a_seat_may_play_a_hidden_copy_and_the_known_one_stays_public():
    s = play(_knows(["7C", "7H", "3D"], known=["7C"]), "play 7H")
    assert s.observation(1)["seats"][0]["known"] == ["7C"]


def test_copies_all_hidden_or_all_known_give_one_play_per_count():
    assert legal(_knows(["7C", "7H", "3D"], known=[])) == {"play 7C", "play 7C 7H"}
    assert legal(_knows(["7C", "7H", "3D"], known=["7C", "7H"])) == {"play 7C", "play 7C 7H"}
    assert legal(_knows(["7C", "8H", "3D"], known=["8H"])) == {"play 7C", "play 8H"}


def _two_decks(hand, known):
    """Seat 0 of a six-player swedish game (two decks) to move, holding ``hand``."""
    others = [seat([c]) for c in ("3C", "3D", "3H", "3S", "4C")]
    s = position("swedish", [seat(hand)] + others, to_move=0)
    s.known[0] = [C.parse(c) for c in known]
    s._legal = None
    return s


def test_two_decks_a_hidden_copy_of_a_known_name_counts_as_the_known_one():
    """Known QH, hidden QH and QS: each play once; ``play QS`` keeps the QH known; ``play QH``
    shows a QH, and then nobody can be sure the seat still holds one (rules version 3)."""
    s = _two_decks(["QH", "QH", "QS"], known=["QH"])
    assert s.legal_actions() == ("play QS", "play QH", "play QH QH", "play QH QH QS")
    assert play(s.copy(), "play QS").observation(1)["seats"][0]["known"] == ["QH"]
    assert play(s.copy(), "play QH").observation(1)["seats"][0]["known"] == []


def test_two_decks_the_play_that_shows_one_known_copy_keeps_the_others_known():
    s = _two_decks(["5C", "5D", "5D", "5S"], known=["5C", "5D", "5S"])
    legal_list = s.legal_actions()
    assert len(set(legal_list)) == len(legal_list)
    assert "play 5D 5D" in legal_list
    assert play(s, "play 5D 5D").observation(1)["seats"][0]["known"] == ["5C", "5S"]


def test_the_german_starting_card_comes_first_in_every_choice():
    s = position("german", [seat(["3C", "3D", "3H", "9S"]), seat(["5S", "6S", "8S"])],
                 to_move=0)
    s.known[0] = [C.parse("3H")]
    s.must_include = C.parse("3C")
    s._legal = None
    assert legal(s) == {"play 3C", "play 3C 3D", "play 3C 3H", "play 3C 3D 3H"}
