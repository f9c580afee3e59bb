"""The reference bots: reproducible, legal, and greedy plays as its docstring says."""

from arena.referee import play_match
from arena.sandbox.bot import make_bot
from arena_bots.greedy import GreedyVandtia


def obs(pile=()):
    return {"pile": list(pile)}


def test_greedy_plays_the_lowest_ordinary_group_all_together():
    legal = ["play 2C", "play 5C", "play 5C 5D", "play 9H", "play 10S"]
    assert GreedyVandtia().act(obs(["4H"]), legal) == "play 5C 5D"


def test_greedy_keeps_twos_and_tens_and_tries_the_stock_first():
    assert GreedyVandtia().act(obs(["AH"]), ["play 2C", "play 10S", "draw"]) == "draw"


def test_greedy_burns_a_big_pile_with_one_ten_else_resets_with_one_two():
    legal = ["play 2C", "play 2C 2D", "play 10S", "play 10S 10H"]
    assert GreedyVandtia().act(obs(["9H"] * 5), legal) == "play 10S"
    assert GreedyVandtia().act(obs(["9H"]), legal) == "play 2C"
    assert GreedyVandtia().act(obs(["9H"]), ["pickup"]) == "pickup"


def test_greedy_puts_its_strongest_cards_face_up():
    legal = ["swap 3C 4D 10H", "swap 10H 2S AD", "swap 3C 4D 5S"]
    assert GreedyVandtia().act(obs(), legal) == "swap 10H 2S AD"


def _mean_score(registry, variant, players, games):
    """Greedy and random alternate seats; each seat's sandboxed worker serves every game."""
    game, total = registry.game("vandtia"), 0
    seats = {(n, i): make_bot(registry.bot(n, "vandtia")) for n in ("greedy", "random")
             for i in range(players)}
    try:
        for seed in range(games):
            names = ["greedy" if (i + seed) % 2 == 0 else "random" for i in range(players)]
            bots = [seats[n, i] for i, n in enumerate(names)]
            match, _ = play_match(game, variant, bots, seed, names)
            total += sum(s for n, s in zip(names, match.result.scores, strict=True)
                         if n == "greedy")
    finally:
        for bot in seats.values():
            bot.close()
    return total / games


def test_greedy_beats_random_in_every_variant(registry):
    for variant, players in (("cardems", 2), ("swedish", 3), ("german", 4)):
        assert _mean_score(registry, variant, players, 60) > 0.3, variant


def test_random_is_reproducible_from_its_seed(registry):
    def actions(seed):
        bots = [make_bot(registry.bot("random", "vandtia")) for _ in range(2)]
        return play_match(registry.game("vandtia"), "cardems", bots, seed)[0].actions

    assert actions(3) == actions(3) != actions(4)
