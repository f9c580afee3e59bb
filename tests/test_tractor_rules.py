"""Tractor: one named test per rule line of rules/tractor.md, from explicit deals."""

import pytest

from arena.errors import GameError, IllegalAction
from arena.games.tractor import (
    BJ,
    GAME,
    SJ,
    TRUMP,
    Order,
    completable,
    face,
    outcome,
    shape,
    tractors,
    trick_winner,
)
from arena.games.tractor import (
    points as card_points,
)

EVERY = [f for f in range(54) for _ in (0, 1)]


def faces(text: str) -> list[int]:
    return [face(n) for n in text.split()]


def counts(text: str) -> list[int]:
    h = [0] * 54
    for f in faces(text):
        h[f] += 1
    return h


def full_deal(hands: dict, kitty: str | None = None, **extra) -> dict:
    """A whole deal: the given cards, the rest of the double deck filled in (low plain cards
    first, so fillers rarely matter), the kitty last."""
    rest = list(EVERY)
    given = {p: faces(t) for p, t in hands.items()}
    for f in [f for h in given.values() for f in h] + (faces(kitty) if kitty else []):
        rest.remove(f)
    rest.sort(key=lambda f: (f >= 52 or f // 4 == 0, f))  # 2s and jokers last
    out = []
    for p in range(4):
        h = given.get(p, [])
        need = 25 - len(h)
        out.append([*h, *rest[:need]])
        rest = rest[need:]
    kit = faces(kitty) if kitty else rest[:8]
    names = [[GAME_NAME(f) for f in h] for h in out]
    return {"hands": names, "kitty": [GAME_NAME(f) for f in kit], **extra}


def GAME_NAME(f: int) -> str:  # noqa: N802 - reads like the constant it wraps
    from arena.games.tractor import FACE_NAMES

    return FACE_NAMES[f]


def at_trick(hands: dict, trump="H", dealer=0, leader=None, levels=(2, 2), points=0,
             buried=None):
    """A deal in its play phase: ``hands`` per seat, the rest irrelevant. The buried cards
    default to eight pointless cards the hands leave free."""
    if buried is None:
        used = [f for t in hands.values() for f in faces(t)]
        free = [f for f in EVERY if f < 52 and not card_points(f)]
        bury = []
        for f in free:
            if used.count(f) + bury.count(f) < 2 and len(bury) < 8:
                bury.append(f)
        buried = " ".join(GAME_NAME(f) for f in bury)
    deal = {"hands": [hands.get(p, "").split() for p in range(4)], "trump": trump,
            "dealer": dealer, "buried": buried.split(), "levels": list(levels),
            "points": points, "partial": True}
    if leader is not None:
        deal["leader"] = leader
    return GAME.from_deal("deal", deal)


def play(state, *actions):
    for a in actions:
        state.apply(a)
    return state


def bid_to_play(state, *bids):
    """Run the given bids, then the dealer buries its first eight offered cards."""
    play(state, *bids)
    while state.phase == "bury":
        state.apply(state.legal_actions()[0])
    return state


# -- table and cards ----------------------------------------------------------------------------


def test_four_seats_play_in_order_and_partners_sit_opposite():
    s = GAME.new_state("deal", 4, 1)
    assert [s.observation(p)["team"] for p in range(4)] == [0, 1, 0, 1]
    start = s.to_move
    s.apply("pass")
    assert s.to_move == (start + 1) % 4


def test_two_decks_with_jokers_make_108_cards_each_face_twice():
    s = GAME.new_state("deal", 4, 2)
    every = s.all_faces()
    assert len(every) == 108 and all(every.count(f) == 2 for f in range(54))


def test_each_deal_gives_25_cards_per_seat_and_8_to_the_kitty():
    s = GAME.new_state("deal", 4, 3)
    assert [len(s.hand_list(p)) for p in range(4)] == [25] * 4 and len(s.kitty) == 8


def test_identical_cards_are_interchangeable_and_named_alike():
    s = GAME.new_state("deal", 4, 4)
    assert s.observation(0)["hand"].count("BJ") == s.hands[0][BJ]


# -- levels and the match -----------------------------------------------------------------------


def test_both_teams_start_at_level_2_and_deal_1_level_rank_is_2():
    s = GAME.new_state("match", 4, 5)
    assert s.levels == [2, 2] and s.level_rank == 2 and s.dealer is None


def test_the_level_rank_is_the_dealers_team_level():
    s = GAME.from_deal("match", full_deal({1: "4C 7C"}, levels=[7, 4], dealer=1))
    assert s.level_rank == 4 and s.to_move == 1
    assert "declare 4C" in s.legal_actions() and "declare 7C" not in s.legal_actions()


def test_a_team_that_goes_past_a_wins_the_match():
    s = at_trick({0: "KS", 1: "3D", 2: "4D", 3: "6D"}, trump="H", dealer=0, levels=[14, 9])
    s.variant = "match"
    play(s, "play KS", "pick 3D", "pick 4D", "pick 6D")  # attackers score 0: defenders +3
    assert s.over and s.levels[0] == 17 and s.result().ranks == [1, 3, 1, 3]
    assert s.result().scores == [6, -6, 6, -6], "the level margin, past A counted as 15"


def test_after_60_deals_the_higher_level_wins_and_equal_levels_draw():
    # team 1 deals and defends; the attackers win the only trick with 10 points: team 1 +2
    for levels, ranks in (([9, 7], [1, 1, 1, 1]), ([6, 10], [3, 1, 3, 1]),
                          ([13, 2], [1, 3, 1, 3])):
        s = at_trick({0: "KS", 1: "3D", 2: "4D", 3: "6D"}, dealer=1, leader=0, levels=levels)
        s.variant, s.deal_number = "match", 60
        play(s, "play KS", "pick 3D", "pick 4D", "pick 6D")
        assert s.over and s.result().reason == "cap" and s.result().ranks == ranks


def test_a_match_continues_with_another_deal():
    s = at_trick({0: "KS", 1: "3D", 2: "4D", 3: "6D"}, dealer=0)
    s.variant = "match"
    play(s, "play KS", "pick 3D", "pick 4D", "pick 6D")
    assert not s.over and s.deal_number == 2 and s.phase == "bid"
    assert s.dealer == 2 and s.to_move == 2, "defenders kept it: the dealer's partner deals"


def test_the_deal_variant_is_won_by_defenders_going_up_or_attackers_taking_control():
    defended = play(at_trick({0: "KS", 1: "3D", 2: "4D", 3: "6D"}, dealer=0),
                    "play KS", "pick 3D", "pick 4D", "pick 6D")
    assert defended.over and defended.result().ranks == [1, 3, 1, 3]
    assert defended.result().scores == [3, -3, 3, -3]
    taken = play(at_trick({1: "KS", 2: "3D", 3: "4D", 0: "6D"}, dealer=0, leader=1,
                          points=70), "play KS", "pick 3D", "pick 4D", "pick 6D")
    assert taken.result().ranks == [3, 1, 3, 1] and taken.result().scores == [0, 0, 0, 0]


# -- declaring trumps ----------------------------------------------------------------------------


def test_deal_1_bidding_starts_at_a_seat_drawn_from_the_seed():
    starts = {GAME.new_state("deal", 4, seed).bidding_start for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert GAME.new_state("deal", 4, 7).bidding_start == GAME.new_state("deal", 4, 7).to_move


def test_later_deals_start_bidding_at_the_dealer():
    s = at_trick({0: "KS", 1: "3D", 2: "4D", 3: "6D"}, dealer=1, leader=0)
    s.variant = "match"
    play(s, "play KS", "pick 3D", "pick 4D", "pick 6D")
    assert s.dealer == 3 and s.bidding_start == 3 and s.to_move == 3


def test_every_bidding_turn_is_a_move_including_passes():
    s = GAME.from_deal("deal", full_deal({0: "2H"}, bidding_start=0))
    play(s, "declare 2H", "pass", "pass")
    assert s.moves == 3


def test_a_declaration_must_be_strictly_stronger():
    s = GAME.from_deal("deal", full_deal({0: "2H", 1: "2S 2S", 2: "SJ SJ 2D", 3: "BJ BJ"},
                                         bidding_start=0))
    play(s, "declare 2H")
    assert "declare 2S" not in s.legal_actions(), "equal strength is never allowed"
    play(s, "declare 2S 2S")
    assert s.legal_actions() == ("pass", "declare SJ SJ"), "a single or pair cannot overcall"
    play(s, "declare SJ SJ", "declare BJ BJ")
    assert s.legal_actions() == ("pass",)


def test_strengths_single_pair_small_jokers_big_jokers():
    s = GAME.from_deal("deal", full_deal({0: "2H 2H SJ SJ BJ BJ"}, bidding_start=0))
    assert set(s.legal_actions()) == {"pass", "declare 2H", "declare 2H 2H", "declare SJ SJ",
                                      "declare BJ BJ"}


def test_a_single_joker_never_declares():
    s = GAME.from_deal("deal", full_deal({0: "SJ BJ 5C"}, bidding_start=0))
    assert s.legal_actions() == ("pass",)


def test_bidding_ends_after_three_consecutive_passes_following_a_declaration():
    s = GAME.from_deal("deal", full_deal({0: "2H", 1: "2S 2S"}, bidding_start=0))
    play(s, "declare 2H", "declare 2S 2S", "pass", "pass")
    assert s.phase == "bid"
    play(s, "pass")
    assert s.phase == "bury" and s.trump_name() == "S"


def test_joker_declarations_mean_no_trump_suit():
    s = GAME.from_deal("deal", full_deal({2: "SJ SJ"}, bidding_start=2))
    bid_to_play(s, "declare SJ SJ", "pass", "pass", "pass")
    assert s.trump_name() == "none" and s.order.suit[face("5S")] == 3
    assert s.order.suit[face("2S")] == TRUMP


def test_four_passes_turn_up_the_kitty_and_its_first_non_joker_card_names_trump():
    s = GAME.from_deal("deal", full_deal({}, kitty="BJ SJ 9D 4S 5S 6S 7S 8S", bidding_start=1))
    play(s, "pass", "pass", "pass", "pass")
    assert s.trump_name() == "D" and s.kitty_public
    assert s.observation(2)["kitty"] == ["BJ", "SJ", "9D", "4S", "5S", "6S", "7S", "8S"]
    assert s.dealer == 1, "deal 1 without a declaration: the seat where bidding started"


def test_declared_cards_are_shown_and_stay_in_the_hand():
    s = GAME.from_deal("deal", full_deal({1: "2D 2D"}, bidding_start=1))
    play(s, "declare 2D 2D")
    assert s.observation(3)["bids"] == [{"seat": 1, "bid": ["2D", "2D"]}]
    assert s.hands[1][face("2D")] == 2


def test_in_deal_1_the_first_declarer_deals_even_when_overcalled():
    s = GAME.from_deal("deal", full_deal({0: "2H", 1: "2C 2C"}, bidding_start=0))
    play(s, "declare 2H", "declare 2C 2C", "pass", "pass", "pass")
    assert s.dealer == 0 and s.trump_name() == "C"
    assert s.attackers == 1, "the dealer's team defends, the other attacks"


def test_the_dealer_takes_the_kitty_buries_eight_as_one_move_then_leads():
    s = GAME.from_deal("deal", full_deal({3: "2H"}, kitty="5S 5S 6S 6S 7S 7S 8S 8S",
                                         bidding_start=3))
    play(s, "declare 2H", "pass", "pass", "pass")
    assert s.phase == "bury" and s.to_move == 3 and len(s.hand_list(3)) == 33
    assert s.observation(3)["kitty"] == ["5S", "5S", "6S", "6S", "7S", "7S", "8S", "8S"]
    assert s.observation(0)["kitty"] is None
    moves = s.moves
    for _ in range(7):
        s.apply("bury 5S" if s.hands[3][face("5S")] > s.picks.count(face("5S"))
                else s.legal_actions()[0])
        assert s.moves == moves and s.phase == "bury"
    s.apply(s.legal_actions()[0])
    assert s.moves == moves + 1 and s.phase == "play" and len(s.hand_list(3)) == 25
    assert s.to_move == 3 and len(s.observation(3)["buried"]) == 8
    assert s.observation(1)["buried"] is None


# -- card order ----------------------------------------------------------------------------------


def test_trump_order_jokers_then_level_cards_then_the_trump_suit():
    o = Order(5, 2)  # level 5, hearts trump
    t = o.tier
    assert t[BJ] > t[SJ] > t[face("5H")] > t[face("5S")] == t[face("5C")] == t[face("5D")]
    assert t[face("5S")] > t[face("AH")] > t[face("KH")] > t[face("6H")] > t[face("4H")]
    assert all(o.suit[f] == TRUMP for f in faces("BJ SJ 5H 5S 5C AH 2H"))


def test_without_a_trump_suit_jokers_then_level_cards_all_equal():
    o = Order(9, None)
    assert o.tier[BJ] > o.tier[SJ] > o.tier[face("9H")] == o.tier[face("9C")]
    assert o.suit[face("AH")] == 2, "no suit is trump"


def test_plain_suits_run_a_down_to_2_without_the_level_rank():
    o = Order(7, 0)
    assert o.suit[face("7S")] == TRUMP and o.suit[face("AS")] == 3
    assert o.tier[face("AS")] == 11 and o.tier[face("8S")] == o.tier[face("6S")] + 1
    assert o.tier[face("2S")] == 0


def test_the_effective_suit_of_a_trump_is_trump():
    o = Order(2, 3)
    assert [o.suit[f] for f in faces("2C 9S SJ 9C")] == [TRUMP, TRUMP, TRUMP, 0]


# -- leads ---------------------------------------------------------------------------------------


def test_leads_are_singles_pairs_and_tractors_of_one_effective_suit():
    s = at_trick({0: "9S 9S 10S 10S KD 4C"}, trump="H")
    assert set(s.legal_actions()) == {"play 4C", "play KD", "play 9S", "play 10S",
                                      "play 9S 9S", "play 10S 10S", "play 9S 9S 10S 10S"}


def test_removing_the_level_rank_closes_the_gap():
    o = Order(5, 2)
    assert tractors(faces("4S 6S"), o) == [faces("4S 6S")]


def test_two_pairs_on_the_same_tier_are_not_a_tractor():
    o = Order(2, 2)
    assert tractors(faces("2S 2C"), o) == []


def test_tractors_run_through_the_trump_tiers():
    o = Order(2, 2)  # level 2, hearts trump: ... AH, off-suit 2s, 2H, SJ, BJ
    assert tractors(faces("AH 2S"), o) == [faces("AH 2S")]
    assert tractors(faces("2S 2H"), o) == [faces("2S 2H")]
    assert tractors(faces("2H SJ"), o) == [faces("2H SJ")]
    assert tractors(faces("SJ BJ"), o) == [faces("SJ BJ")]
    assert sorted(map(tuple, tractors(faces("AH 2S 2C"), o))) == sorted(
        [tuple(faces("AH 2S")), tuple(faces("AH 2C"))]), "one off-suit level pair per tier"


def test_no_wrap_around_from_a_to_2():
    o = Order(9, 0)
    assert tractors(faces("AS 2S"), o) == []


def test_a_long_tractor_offers_every_length():
    o = Order(2, 0)
    assert len(tractors(faces("3S 4S 5S"), o)) == 3  # 3-4, 4-5, 3-4-5


# -- following -----------------------------------------------------------------------------------


def test_follow_with_the_led_suit_as_far_as_you_have_it():
    o = Order(2, 0)
    hand = counts("9S KS 3D")
    assert completable(hand, faces("9S"), faces("4S"), o)
    assert not completable(hand, faces("3D"), faces("4S"), o)


def test_short_in_the_led_suit_play_all_of_it_then_fill_freely():
    o = Order(2, 0)
    hand = counts("9S 3D 4D")
    led = faces("5S 5S")
    assert completable(hand, faces("3D"), led, o) and completable(hand, faces("9S 3D"), led, o)
    assert not completable(hand, faces("3D 4D"), led, o), "the 9S must be played"


def test_a_pair_led_must_be_followed_with_a_pair_if_held():
    s = at_trick({0: "5S 5S", 1: "9S 9S KS", 2: "3S 4S", 3: "3D 4D"}, trump="H", leader=0)
    play(s, "play 5S 5S")
    assert s.legal_actions() == ("pick 9S",)
    play(s, "pick 9S")
    assert s.legal_actions() == ("pick 9S",)


def test_pairs_are_owed_up_to_the_number_of_pairs_led():
    o = Order(2, 0)
    hand = counts("6S 6S 8S 8S JS JS QS")
    led = faces("9S 9S 10S 10S")
    assert completable(hand, faces("6S 6S 8S 8S"), led, o)
    assert not completable(hand, faces("6S 8S JS QS"), led, o)
    assert completable(hand, faces("6S 8S"), led, o), "6S and 8S again make the two pairs"
    assert not completable(hand, faces("6S QS"), led, o), "two pairs can no longer be made"


def test_a_tractor_need_not_be_followed_by_a_tractor():
    o = Order(2, 0)
    assert completable(counts("6S 6S 9S 9S"), faces("6S 6S 9S 9S"), faces("3S 3S 4S 4S"), o)


def test_a_void_seat_plays_anything_and_trumping_is_optional():
    s = at_trick({0: "5S", 1: "9H 3D", 2: "6S", 3: "7S"}, trump="H", leader=0)
    play(s, "play 5S")
    assert set(s.legal_actions()) == {"pick 9H", "pick 3D"}


def test_each_seat_plays_as_many_cards_as_were_led():
    s = at_trick({0: "5S 5S", 1: "9D 8D 3D", 2: "6S 6S", 3: "7S 7S"}, trump="H", leader=0)
    play(s, "play 5S 5S", "pick 9D")
    assert s.to_move == 1 and s.picks == faces("9D")
    play(s, "pick 3D")
    assert s.to_move == 2 and s.trick[1] == (1, faces("3D 9D"))


# -- winning -------------------------------------------------------------------------------------


def win(trump, level, *plays, leader=0):
    o = Order(level, trump)
    return trick_winner([((leader + i) % 4, faces(p)) for i, p in enumerate(plays)], o)


def test_the_higher_card_of_the_led_suit_wins():
    assert win(2, 2, "5S", "9S", "KS", "3S") == 2


def test_a_trump_beats_the_plain_suit_and_can_be_overtrumped():
    assert win(2, 2, "AS", "3H", "KS", "4S") == 1
    assert win(2, 2, "AS", "3H", "5H", "4S") == 2


def test_off_suit_level_cards_are_equal_and_the_first_played_wins():
    assert win(2, 9, "3H", "9S", "9C", "9D") == 1
    assert win(2, 9, "9S", "9C", "9D", "3H") == 0


def test_off_topic_cards_never_win():
    assert win(2, 2, "5S", "AD", "AC", "3S") == 0


def test_only_the_leads_shape_can_win():
    assert win(2, 2, "5S 5S", "AS KS", "3S 4S", "6S 7S") == 0, "unmatched high cards"
    assert win(2, 2, "5S 5S", "AS AS", "3S 4S", "6S 7S") == 1


def test_a_void_seats_matching_trump_pair_wins_and_can_be_overtrumped():
    assert win(2, 2, "5S 5S", "3H 3H", "6S 7S", "8S 8S") == 1
    assert win(2, 2, "5S 5S", "3H 3H", "KH KH", "8S 8S") == 2
    assert win(2, 2, "5S 5S", "3H 4H", "6S 7S", "8S 8S") == 3, "no pair, no win"


def test_separate_pairs_never_beat_a_tractor_and_a_tractor_wins_by_its_top_pair():
    assert win(2, 2, "5S 5S 6S 6S", "AS AS QS QS", "3S 4S 7S 8S", "9D 9D 8D 8D") == 0
    assert win(2, 2, "5S 5S 6S 6S", "JS JS QS QS", "3S 4S 7S 8S", "9D 9D 8D 8D") == 1
    assert win(2, 2, "5S 5S 6S 6S", "JS JS QS QS", "KH KH AH AH", "9D 9D 8D 8D") == 2


def test_a_trump_lead_is_beaten_only_by_a_higher_trump():
    assert win(2, 2, "9H", "3H", "SJ", "2S") == 2
    assert win(2, 2, "2S", "2C", "2D", "3H") == 0


def test_the_trick_winner_leads_the_next_trick():
    s = at_trick({0: "5S 6C", 1: "9S 6D", 2: "KS 7C", 3: "3S 8C"}, trump="H", leader=0)
    play(s, "play 5S", "pick 9S", "pick KS", "pick 3S")
    assert s.to_move == 2 and s.tricks[0]["winner"] == 2


def test_the_deal_ends_when_the_hands_are_empty():
    s = at_trick({0: "5S", 1: "9S", 2: "KS", 3: "3S"}, trump="H", leader=0)
    play(s, "play 5S", "pick 9S", "pick KS", "pick 3S")
    assert s.over


# -- scoring -------------------------------------------------------------------------------------


def test_fives_tens_and_kings_make_200_points():
    assert sum(card_points(f) for f in EVERY) == 200
    assert [card_points(face(n)) for n in ("5H", "10S", "KD", "QC", "BJ")] == [5, 10, 10, 0, 0]


def test_attackers_score_the_points_in_tricks_they_win():
    s = at_trick({0: "3S 6C", 1: "KS 6D", 2: "5S 7C", 3: "10S 8C"}, trump="H", dealer=0)
    play(s, "play 3S", "pick KS", "pick 5S", "pick 10S")
    assert s.points == 25 and s.tricks[0]["points"] == 25
    s2 = at_trick({0: "AS 6C", 1: "KS 6D", 2: "5S 7C", 3: "10S 8C"}, trump="H", dealer=0)
    play(s2, "play AS", "pick KS", "pick 5S", "pick 10S")
    assert s2.points == 0, "the defenders' tricks score nothing"


@pytest.mark.parametrize("lead,follows,factor", [
    ("AS", ["3S", "4S", "6S"], 2),
    ("AS AS", ["3S 3S", "4S 4S", "6S 6S"], 4),
    ("KS KS AS AS", ["3S 3S 4S 4S", "6S 6S 7S 7S", "8S 8S 9S 9S"], 8),
])
def test_the_kitty_counts_twice_the_cards_each_seat_played_in_the_last_trick(
        lead, follows, factor):
    hands = {1: lead, 2: follows[0], 3: follows[1], 0: follows[2]}
    s = at_trick(hands, trump="H", dealer=0, leader=1, buried="5C 5C 10C 3C 3C 4C 4C 6C")
    play(s, "play " + lead, *("pick " + c for f in follows for c in f.split()))
    kings = 10 * lead.split().count("KS")
    assert s.points == kings + 20 * factor


def test_no_kitty_bonus_when_the_defenders_win_the_last_trick():
    s = at_trick({0: "AS", 1: "3S", 2: "4S", 3: "6S"}, trump="H", dealer=0,
                 buried="5C 5C 10C 3C 3C 4C 4C 6C")
    play(s, "play AS", "pick 3S", "pick 4S", "pick 6S")
    assert s.points == 0


@pytest.mark.parametrize("p,side,up", [
    (0, "defenders", 3), (5, "defenders", 2), (35, "defenders", 2), (40, "defenders", 1),
    (75, "defenders", 1), (80, "attackers", 0), (115, "attackers", 0), (120, "attackers", 1),
    (155, "attackers", 1), (160, "attackers", 2), (200, "attackers", 3), (240, "attackers", 4),
    (330, "attackers", 6)])
def test_every_row_of_the_level_change_table(p, side, up):
    assert outcome(p) == (side, up)


@pytest.mark.parametrize("attacker_points,next_dealer", [(0, 2), (75, 2), (80, 1), (160, 1)])
def test_the_next_dealer(attacker_points, next_dealer):
    s = at_trick({0: "3S", 1: "AS", 2: "4S", 3: "6S"}, trump="H", dealer=0,
                 points=attacker_points)
    s.variant = "match"
    play(s, "play 3S", "pick AS", "pick 4S", "pick 6S")
    assert s.dealer == next_dealer


# -- moves, observations, errors -----------------------------------------------------------------


def test_a_deal_stays_within_117_moves():
    import random

    for seed in range(20):
        s = GAME.new_state("deal", 4, seed)
        rng = random.Random(seed)
        while not s.over:
            legal = s.legal_actions()
            s.apply(legal[rng.randrange(len(legal))])
        assert s.moves <= 117


def test_an_illegal_action_is_refused():
    s = GAME.new_state("deal", 4, 1)
    with pytest.raises(IllegalAction):
        s.apply("declare BJ BJ BJ")


def test_malformed_deals_are_one_line_errors():
    with pytest.raises(GameError, match="four 'hands'"):
        GAME.from_deal("deal", {"hands": []})
    with pytest.raises(GameError, match="no card more than twice"):
        at_trick({0: "AS AS AS"})
    with pytest.raises(GameError, match="not a Tractor card"):
        at_trick({0: "ZZ"})


@pytest.mark.parametrize("deal,message", [
    ({**full_deal({}), "levels": [7, 7]}, "deal 1 \\(no dealer\\) has both teams at level 2"),
    ({**full_deal({}), "dealer": 1, "bidding_start": 2},
     "starts its bidding at the dealer \\(seat 1\\), not seat 2"),
    ({**full_deal({}), "levels": [2, 15], "dealer": 0}, "levels are two ranks 2-14"),
    ({**full_deal({}), "kity": []}, "unknown key 'kity'"),
    ({"hands": [["3C", "4C"], ["5C"], ["6C"], ["7C"]], "trump": "H", "dealer": 0,
      "buried": ["8C"] * 2 + ["9C"] * 2 + ["10C"] * 2 + ["JC"] * 2},
     "hands of one size, not 2/1/1/1"),
])
def test_deals_the_rules_cannot_reach_are_refused(deal, message):
    with pytest.raises(GameError, match=message):
        GAME.from_deal("match", deal)


def test_a_deal_with_a_dealer_bids_on_the_dealers_level():
    s = GAME.from_deal("match", {**full_deal({}), "levels": [7, 7], "dealer": 0})
    assert s.level_rank == 7 and s.bidding_start == 0


def test_a_forfeit_loses_for_the_whole_team():
    s = GAME.new_state("match", 4, 3)
    s.forfeit(2)
    r = s.result()
    assert r.ranks == [3, 1, 3, 1] and r.scores == [-1, 1, -1, 1] and r.reason == "forfeit"


def test_shapes():
    o = Order(2, 2)
    assert shape(faces("5S"), o)[0] == "1" and shape(faces("5S 5S"), o)[0] == "2"
    assert shape(faces("5S 5S 6S 6S"), o)[0] == "2x2" and shape(faces("5S 6S"), o) is None
