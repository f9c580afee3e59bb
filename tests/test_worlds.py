"""Worlds from an observation (``game.world(observation, rng)``): a full state that the
observing seat cannot tell from the real one, its hidden cards dealt uniformly."""

import random
from collections import Counter

import conftest
import pytest
from scipy.stats import chisquare

from arena.cards import parse
from arena.games.cherki import FACE_NAMES, KIND, ready_pairs
from arena.games.cherki import GAME as CHERKI
from arena.games.cherki import face as cherki_face
from arena.games.tractor import FACE_NAMES as TRACTOR_NAMES
from arena.games.tractor import GAME as TRACTOR
from arena.games.tractor import face as tractor_face
from arena.games.vandtia import GAME as VANDTIA

POSITIONS = 1000


def random_positions(game, variant, players, count, seed):
    """``count`` positions of random games, from the deal to the end, and a seat each."""
    rng = random.Random(seed)
    for g in range(count):
        state = game.new_state(variant, players, seed * 100000 + g)
        for _ in range(rng.choice([0, 1, 2, 4, 8, rng.randrange(250)])):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        yield state, rng.randrange(players)


@pytest.mark.parametrize("variant, players", [("cardems", 2), ("swedish", 3),
                                              ("swedish", 6), ("german", 4), ("german", 2)])
def test_a_vandtia_world_fits_everything_its_seat_knows(variant, players):
    rng = random.Random(7)
    for state, seat in random_positions(VANDTIA, variant, players, POSITIONS, players):
        seen = state.observation(seat)
        world = VANDTIA.world(seen, rng)
        assert world.observation(seat) == seen  # the seat cannot tell them apart
        assert sorted(world.all_cards()) == sorted(state.all_cards())  # cards conserved
        assert world.is_over() == state.is_over()
        if not state.is_over():
            assert world.to_move == state.to_move
            if seat == state.to_move:
                assert world.legal_actions() == state.legal_actions()
            for _ in range(3):  # and it plays on like any state
                if not world.is_over():
                    world.apply(rng.choice(world.legal_actions()))


def test_a_vandtia_world_reads_only_the_observation():
    state = VANDTIA.new_state("cardems", 2, 11)
    seen = state.observation(0)
    before = repr(seen)
    VANDTIA.world(seen, random.Random(1))
    assert repr(seen) == before  # and does not change it


def test_vandtia_hidden_cards_are_dealt_uniformly():
    """A late position: seat 0 has seen all but eight cards, which lie in seat 1's hand (two
    unknown cards beside one it picked up), its three face-down slots and seat 0's own three.
    Each unseen card is equally likely in each place (chi-square, 8 x 8 cells)."""
    deal = {"players": [{"hand": ["3C", "4C"], "faceup": [], "facedown": ["5C", "6C", "7C"]},
                        {"hand": ["3D", "4D", "8C"], "known": ["8C"], "faceup": [],
                         "facedown": ["5D", "6D", "7D"]}],
            "burned": [c for c in ("2C 2D 2H 2S 3H 3S 4H 4S 5H 5S 6H 6S 7H 7S 8D 8H 8S 9C 9D "
                                   "9H 9S 10C 10D 10H 10S JC JD JH JS QC QD QH QS KC KD KH "
                                   "KS AC AD AH AS").split()],
            "to_move": 0, "dealer": 1, "moves": 80}
    state = VANDTIA.from_deal("cardems", deal)
    seen = state.observation(0)
    rng = random.Random(3)
    unseen = [parse(c) for c in ("4D 3D 5C 6C 7C 5D 6D 7D").split()]
    places = Counter()
    draws = 8000
    for _ in range(draws):
        world = VANDTIA.world(seen, rng)
        hand = [c for c in world.hands[1] if c != parse("8C")]
        spots = [("hand", c) for c in hand] + [
            (f"down{p}.{i}", c) for p in (0, 1) for i, c in enumerate(world.facedown[p])]
        for where, c in spots:
            places[where if not where.startswith("hand") else "hand", c] += 1
    for where, share in (("hand", 2 / 8), *((f"down{p}.{i}", 1 / 8)
                                            for p in (0, 1) for i in range(3))):
        counts = [places[where, c] for c in unseen]
        assert sum(counts) == round(draws * share * 8)
        assert chisquare(counts).pvalue > 1e-4, (where, counts)


def playout_positions(variants, count):
    for variant, players in variants:
        for state, _ in random_positions(VANDTIA, variant, players, count, players + 17):
            yield state


VARIANTS = [("cardems", 2), ("swedish", 3), ("swedish", 6), ("german", 4), ("german", 2),
            ("german", 5)]


def test_a_vandtia_playout_makes_only_legal_moves_and_follows_the_rules():
    """A traced playout, replayed through ``apply`` (which checks every move), ends in the
    same state: the playout's own loop plays by the same rules as the state API."""
    for state in playout_positions(VARIANTS, 300):
        if state.is_over():
            continue
        played, trace = state.copy(), []
        result = played.playout(random.Random(state.moves), trace)
        replayed = state.copy()
        for action in trace:
            replayed.apply(action)
        assert replayed.result() == result
        for a, b in ((played, replayed),):
            assert (a.hands, a.faceup, a.facedown, a.stock, a.pile, a.burned, a.out,
                    a.moves) == (b.hands, b.faceup, b.facedown, b.stock, b.pile, b.burned,
                                 b.out, b.moves)
            assert [sorted(k) for k in a.known] == [sorted(k) for k in b.known]


def test_the_fast_vandtia_playout_on_ranks_makes_the_same_moves():
    for state in playout_positions(VARIANTS, 300):
        if state.is_over():
            continue
        traced, fast = state.copy(), state.copy()
        seed = state.moves * 1000 + state.n
        assert traced.playout(random.Random(seed), []) == fast.playout(random.Random(seed))
        assert traced.moves == fast.moves


def _move(action: str):
    """A legal action as a playout counts it: a play by (rank, count), whichever copies it
    shows (the choice of copies changes what others know, not the game)."""
    words = action.split()
    return ("play", words[1][:-1], len(words) - 1) if words[0] == "play" else action


def test_a_vandtia_playout_chooses_uniformly_among_the_legal_moves():
    rng = random.Random(5)
    for state in playout_positions(VARIANTS, 40):
        legal = state.legal_actions() if not state.is_over() else ()
        moves = sorted({_move(a) for a in legal}, key=str)
        if len(moves) < 2 or state.swapping or state.must_include is not None:
            continue
        first = Counter()
        for _ in range(60 * len(moves)):
            trace = []
            state.copy().playout(rng, trace)
            assert trace[0] in legal
            first[_move(trace[0])] += 1
        assert set(first) == set(moves)  # every legal move, nothing else
        assert chisquare([first[m] for m in moves]).pvalue > 1e-4, (moves, first)


# -- Cherki ------------------------------------------------------------------------------


def cherki_positions(count, seed):
    """Positions of games between greedy and random players (greedy calls, so called
    seats are common), and a seat each."""
    from arena_bots.greedy_cherki import GreedyCherki

    rng = random.Random(seed)
    for g in range(count):
        state = CHERKI.new_state("standard", 3, seed * 100000 + g)
        greedy = GreedyCherki()
        for _ in range(rng.randrange(140)):
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(greedy.act(state.observation(state.to_move), list(legal))
                        if rng.random() < 0.7 else rng.choice(legal))
        yield state, rng.randrange(3)


def test_a_cherki_world_fits_everything_its_seat_knows():
    rng = random.Random(3)
    called = 0
    for state, seat in cherki_positions(POSITIONS, 1):
        if state.is_over():
            continue
        seen = state.observation(seat)
        world = CHERKI.world(seen, rng)
        assert world.observation(seat) == seen
        assert sorted(world.all_faces()) == sorted(state.all_faces())
        if seat == state.to_move:
            assert world.legal_actions() == state.legal_actions()
        for q in range(3):
            if q != seat and seen["called"][q]:  # a caller holds a ready hand
                called += 1
                kinds = list(world.kinds[q])
                if world.forced is not None and world.to_move == q:
                    kinds[KIND[world.forced]] -= 1
                assert ready_pairs(kinds) == (world.locked[q],)
        for _ in range(3):
            if not world.is_over():
                world.apply(rng.choice(world.legal_actions()))
    assert called > 50  # the positions hold callers enough to test them


def test_a_cherki_callers_hidden_cards_are_uniform_among_those_that_make_it_ready():
    """Seat 1 called holding five known cards (taken: 1C 1S 1M 2C 2S); its other three are
    hidden from seat 0. The sampler's distribution of their kinds matches rejection sampling
    (three unseen cards drawn uniformly, kept when they make the hand ready)."""
    from scipy.stats import chi2_contingency

    names = "1C 1S 1M 2C 2S 2M 5C 5S".split()
    deck = [f for f in range(30) for _ in range(4)]
    rng = random.Random(8)
    hands = [[], [cherki_face(n) for n in names], []]
    for f in hands[1]:
        deck.remove(f)
    rng.shuffle(deck)
    hands[0], hands[2], stock = deck[:8], deck[8:16], deck[16:]
    state = CHERKI.from_deal("standard", {"hands": [[FACE_NAMES[f] for f in h] for h in hands],
                                          "stock": [FACE_NAMES[f] for f in stock],
                                          "dealer": 2})
    state.takes = [{"seat": 1, "card": n, "move": 2 * i + 1} for i, n in enumerate(names[:5])]
    state.locked[1] = ready_pairs(state.kinds[1])[0]
    seen = state.observation(0)
    unseen = [f for f in range(30) for _ in range(4)]
    for f in hands[0] + hands[1][:5]:
        unseen.remove(f)
    known = [KIND[cherki_face(n)] for n in names[:5]]

    def shape(cards):
        return tuple(sorted(KIND[f] for f in cards))

    worlds = CHERKI.worlds(seen, rng)
    sampled = Counter(shape((Counter(next(worlds).hand_list(1)) - Counter(hands[1][:5]))
                            .elements()) for _ in range(3000))
    rejected = Counter()
    while sum(rejected.values()) < 3000:
        three = rng.sample(unseen, 3)
        kinds = [0] * 12
        for k in known + [KIND[f] for f in three]:
            kinds[k] += 1
        if ready_pairs(kinds):
            rejected[shape(three)] += 1
    shapes = [s for s in set(sampled) | set(rejected) if sampled[s] + rejected[s] >= 20]
    table = [[sampled[s] for s in shapes], [rejected[s] for s in shapes]]
    assert len(shapes) > 5 and chi2_contingency(table).pvalue > 1e-4, table



def test_a_cherki_playout_replays_through_apply():
    for state, _ in cherki_positions(200, 5):
        if state.is_over():
            continue
        for greedy in (0.0, 0.9):
            played, trace = state.copy(), []
            result = played.playout(random.Random(state.moves), trace, greedy)
            replayed = state.copy()
            for action in trace:
                replayed.apply(action)
            assert replayed.result() == result and replayed.moves == played.moves
        assert not state.is_over()  # the copies played, the original did not move


# -- Tractor ------------------------------------------------------------------------------


def tractor_positions(variant, count, seed):
    from arena_bots.greedy_tractor import GreedyTractor

    rng = random.Random(seed)
    for g in range(count):
        state = TRACTOR.new_state(variant, 4, seed * 100000 + g)
        greedy = GreedyTractor()
        for _ in range(rng.randrange(130 if variant == "deal" else 400)):
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(greedy.act(state.observation(state.to_move), list(legal))
                        if rng.random() < 0.6 else rng.choice(legal))
        yield state, rng.randrange(4)


def tractor_voids(observation) -> list[set]:
    """The effective suits each seat has shown it lacks (a follow with another suit)."""
    from arena.games.tractor import Order

    o = observation
    trump = None if o["trump"] in (None, "none") else "CDHS".index(o["trump"])
    order = Order(o["level_rank"], trump)
    voids = [set() for _ in range(4)]
    for trick in o["tricks"] + [o["trick"]]:
        for seat, cards in trick["plays"][1:]:
            led = order.suit[tractor_face(trick["plays"][0][1][0])]
            if any(order.suit[tractor_face(c)] != led for c in cards):
                voids[seat].add(led)
    return voids, order


def tractor_shown(observation) -> list[Counter]:
    """Cards each seat showed (declared; the dealer: a turned-up kitty), less those it has
    played since."""
    o = observation
    declared = [b for b in o["bids"] if b["bid"] != "pass"]
    shown = [Counter() for _ in range(4)]
    for b in declared:
        for f, k in Counter(tractor_face(c) for c in b["bid"]).items():
            shown[b["seat"]][f] = max(shown[b["seat"]][f], k)
    if not declared and o["phase"] != "bid":
        shown[o["dealer"]].update(tractor_face(c) for c in o["kitty"])
    for trick in o["tricks"] + [o["trick"]]:
        for seat, cards in trick["plays"]:
            shown[seat].subtract(tractor_face(c) for c in cards)
    return [Counter({f: k for f, k in c.items() if k > 0}) for c in shown]


@pytest.mark.parametrize("variant", ["deal", "match"])
def test_a_tractor_world_fits_everything_its_seat_knows(variant):
    rng = random.Random(4)
    voided = 0
    for state, seat in tractor_positions(variant, POSITIONS // 2, 2):
        seen = state.observation(seat)
        world = TRACTOR.world(seen, rng)
        assert world.observation(seat) == seen
        assert sorted(world.all_faces()) == sorted(state.all_faces())
        if state.is_over():
            continue
        if seat == state.to_move:
            assert world.legal_actions() == state.legal_actions()
        if seen["phase"] == "play":  # a seat that showed a void holds none of that suit
            voids, order = tractor_voids(seen)
            for q in range(4):
                if q != seat and voids[q]:
                    voided += 1
                    assert not {order.suit[f] for f in world.hand_list(q)} & voids[q]
        for _ in range(3):
            if not world.is_over():
                world.apply(rng.choice(world.legal_actions()))
    assert voided > 20


def test_tractor_hidden_cards_are_uniform_given_the_voids():
    """Late in a deal, with seats void in some suits: where the sampler puts the unseen
    cards matches rejection sampling (deal them uniformly, keep the deals that respect
    every void) - a two-sample chi-square on (card, place) counts."""
    from scipy.stats import chi2_contingency

    for state, seat in tractor_positions("deal", 400, 9):
        seen = state.observation(seat)
        if seen["phase"] != "play" or len(seen["hand"]) > 7:
            continue
        voids, order = tractor_voids(seen)
        if sum(bool(voids[q]) for q in range(4) if q != seat) >= 2:
            break
    else:
        pytest.fail("no late position with two void seats")
    others = [q for q in range(4) if q != seat]
    hidden = [f for q in others for f in state.hand_list(q)] + list(state.buried)
    sizes = [len(state.hand_list(q)) for q in others] + [8]
    if seat == state.dealer:
        hidden, sizes = hidden[:-8], sizes[:-1]

    def places(hands):
        return Counter((f, i) for i, hand in enumerate(hands) for f in hand)

    rng = random.Random(1)
    worlds = TRACTOR.worlds(seen, rng)
    sampled = Counter()
    for _ in range(2000):
        world = next(worlds)
        sampled += places([world.hand_list(q) for q in others] +
                          ([] if seat == state.dealer else [world.buried]))
    shown = tractor_shown(seen)
    rejected, kept = Counter(), 0
    while kept < 2000:
        cards = list(hidden)
        rng.shuffle(cards)
        hands, start = [], 0
        for n in sizes:
            hands.append(cards[start:start + n])
            start += n
        if any(order.suit[f] in voids[q] for q, hand in zip(others, hands[:3], strict=True)
               for f in hand):
            continue
        if any(Counter(hands[i] + (hands[3] if q == state.dealer and len(hands) > 3 else []))
               [f] < k for i, q in enumerate(others) for f, k in shown[q].items()):
            continue  # a card it showed (declared, or the turned-up kitty) is elsewhere
        kept += 1
        rejected += places(hands)
    cells = [c for c in set(sampled) | set(rejected) if sampled[c] + rejected[c] >= 30]
    table = [[sampled[c] for c in cells], [rejected[c] for c in cells]]
    assert len(cells) > 10 and chi2_contingency(table).pvalue > 1e-4, table


@pytest.mark.parametrize("variant, greedy", [("deal", 0.0), ("deal", 0.5), ("deal", 1.0),
                                             ("match", 0.5)])
def test_a_tractor_playout_replays_through_apply(variant, greedy):
    """The playout plays tricks on the state's own counts, a whole follow at a time; its
    trace, replayed through ``apply`` (which checks every pick), ends in the same place."""
    for state, _ in tractor_positions(variant, 60, 6):
        if state.is_over():
            continue
        played, trace = state.copy(), []
        result = played.playout(random.Random(state.moves), trace, greedy)
        replayed = state.copy()
        for action in trace:
            replayed.apply(action)
        assert replayed.moves == played.moves and replayed.levels == played.levels
        if variant == "deal":
            assert replayed.result() == result
        else:  # a match's playout stops at the end of the deal it is in
            assert replayed.deal_number == state.deal_number + 1 or replayed.is_over()
        assert replayed.points == played.points and replayed.tricks == played.tricks


def _tractor_turns(kind):
    """Positions in the play phase where the mover leads (``kind="lead"``) or follows a
    lead of two or more cards with no picks made yet."""
    for state, _ in tractor_positions("deal", 400, 9):
        if state.is_over() or state.phase != "play" or state.picks:
            continue
        if kind == "lead" and not state.trick:
            yield state
        elif kind == "follow" and state.trick and len(state.trick[0][1]) > 1:
            yield state


def test_a_random_tractor_playout_leads_uniformly_among_the_legal_leads():
    rng, tested = random.Random(3), 0
    for state in _tractor_turns("lead"):
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        first = Counter()
        for _ in range(40 * len(legal)):
            trace = []
            state.copy().playout(rng, trace)
            first[trace[0]] += 1
        assert set(first) == set(legal)
        assert chisquare([first[a] for a in legal]).pvalue > 1e-4, (legal, first)
        tested += 1
        if tested == 5:
            break
    assert tested == 5


def test_a_random_tractor_follow_can_be_every_legal_follow():
    """A random follow is drawn whole; every follow that pick-by-pick ``apply`` allows
    comes up, and nothing else."""
    rng, tested = random.Random(4), 0
    for state in _tractor_turns("follow"):
        n = len(state.trick[0][1])
        follows, frontier = set(), [state]
        while frontier:  # every legal follow, by the legal picks
            s = frontier.pop()
            for a in s.legal_actions():
                t = s.copy()
                t.apply(a)
                if t.moves == state.moves:
                    frontier.append(t)  # picks still to make
                elif t.trick and t.trick[-1][0] == state.to_move:
                    follows.add(tuple(sorted(TRACTOR_NAMES[f] for f in t.trick[-1][1])))
                else:  # the follow ended the trick
                    follows.add(tuple(sorted(t.tricks[-1]["plays"][-1][1])))
            if len(follows) > 40:
                break
        if len(follows) > 40 or len(follows) < 2:
            continue
        seen = set()
        for _ in range(60 * len(follows)):
            trace = []
            state.copy().playout(rng, trace)
            seen.add(tuple(sorted(a.split()[1] for a in trace[:n])))
        names = follows
        assert seen == names, (names - seen, seen - names)
        tested += 1
        if tested == 5:
            break
    assert tested == 5


def test_the_world_of_a_finished_cherki_deal_is_that_finished_deal():
    """Won, drawn at the stock's end or at the cap: for every seat, a world of the end is
    over with the same result, shows that seat what it saw, and a playout from it returns
    that result at once."""
    rng = random.Random(4)
    ends = Counter()

    def to_the_end(count):  # random players: their deals mostly end with the stock
        for g in range(count):
            state = CHERKI.new_state("standard", 3, 900000 + g)
            while not state.is_over():
                state.apply(rng.choice(state.legal_actions()))
            yield state, None

    for state, _ in [*cherki_positions(400, 7), *to_the_end(40)]:
        if not state.is_over():
            continue
        ends[state.reason] += 1
        for seat in range(3):
            seen = state.observation(seat)
            world = CHERKI.world(seen, rng)
            assert world.is_over() and world.result() == state.result()
            assert world.observation(seat) == seen
            assert world.copy().playout(rng) == state.result()
            assert sorted(world.all_faces()) == sorted(state.all_faces())
    assert ends["win"] > 20 and ends["stock"] + ends["cap"] > 5, ends


@pytest.mark.slow
def test_a_cherki_callers_world_pair_is_no_kind_it_discarded_since_calling():
    """A caller that drew a card of its pair's kind would have won: a world never gives it
    a pair kind it has discarded since its call (the observation's ``calls``)."""
    rng = random.Random(6)
    checked = 0
    for state, seat in cherki_positions(300, 2):  # about 90 called seats
        seen = state.observation(seat)
        for q in range(3):
            if q == seat or seen["calls"][q] is None or q == seen["winner"]:
                continue
            since = {KIND[cherki_face(d["card"])] for d in seen["discards"]
                     if d["seat"] == q and d["move"] > seen["calls"][q]}
            if not since:
                continue
            assert state.locked[q] not in since  # the rule itself
            for _ in range(20):
                assert CHERKI.world(seen, rng).locked[q] not in since
            checked += 1
    assert checked > 20, checked


def test_a_cherki_deal_ended_by_the_cap_mid_turn_has_worlds_with_nine_cards_on_turn():
    """The cap falls after a draw: the seat on turn holds nine; every other seat's world
    gives it nine too, and ends as the deal did."""
    rng = random.Random(2)
    for seed in range(30):
        state = CHERKI.new_state("standard", 3, seed)
        state.moves = 249  # the next move is the last
        if "draw" not in state.legal_actions():
            continue
        state.apply("draw")
        assert state.is_over() and state.reason == "cap"
        mover = next(p for p in range(3) if sum(state.hands[p]) == 9)
        for seat in range(3):
            world = CHERKI.world(state.observation(seat), rng)
            assert sum(world.hands[mover]) == 9 and world.result() == state.result()
            assert world.observation(seat) == state.observation(seat)
        return
    pytest.fail("no deal to draw from")


def test_a_vandtia_puzzles_worlds_keep_its_stock_and_leave_out_what_it_leaves_out():
    """A partial deal's cards that are nowhere stay nowhere: not dealt into the stock."""
    for stock in ([], ["3D", "4D"]):
        s = conftest.position("cardems", [conftest.seat(["4C", "AS"]), conftest.seat(["9H"])],
                              to_move=0, stock=stock)
        for k in range(20):
            world = VANDTIA.world(s.observation(0), random.Random(k))
            assert world.observation(0) == s.observation(0)
            assert len(world.stock) == len(stock) and len(world.hands[1]) == 1
            assert len(world.all_cards()) == len(s.all_cards())


def test_a_tractor_puzzle_begun_at_a_trick_has_worlds_for_every_seat():
    deal = {"hands": [["6H", "9D"], ["KH", "8C"], ["AH", "3H"], ["4H", "9C"]], "trump": "S",
            "dealer": 0, "leader": 1, "buried": ["3C", "3D", "4C", "4D", "6C", "6D", "7C", "7D"],
            "points": 75, "partial": True}
    s = TRACTOR.from_deal("deal", deal)
    s.apply("play KH")
    rng = random.Random(2)
    for me in range(4):
        seen = s.observation(me)
        for _ in range(20):
            world = TRACTOR.world(seen, rng)
            assert world.observation(me) == seen
            assert [len(world.hand_list(q)) for q in range(4)] == [2, 1, 2, 2]
            if me == s.to_move:
                assert world.legal_actions() == s.legal_actions()
            while not world.is_over():
                world.apply(rng.choice(world.legal_actions()))


@pytest.mark.parametrize("groups, sizes", [
    ([("ab", {0, 1}), ("cd", {1, 2}), ("e", {0}), ("fgh", {0, 1, 2})], [3, 3, 2]),
    ([("abc", {0, 2}), ("d", {1, 2}), ("ef", {0, 1, 2})], [2, 2, 2]),
    ([("abcd", {1, 2})], [1, 2, 2]),  # no free cards, one group only
    ([("abcdef", {0, 1, 2})], [2, 1, 3]),  # only free cards
    ([("ab", {0}), ("cd", {0})], [2, 2]),  # nothing fits
])
def test_the_dealer_counts_every_assignment_and_draws_each_alike(groups, sizes):
    """``arena.games.dealing.Dealer`` on small cases, against every assignment written out:
    the same count, and draws that hit each fitting assignment equally often."""
    from itertools import product

    from arena.games.dealing import Dealer

    cards = [(c, allowed) for letters, allowed in groups for c in letters]
    fitting = []
    for where in product(range(len(sizes)), repeat=len(cards)):
        if all(j in allowed for (_, allowed), j in zip(cards, where, strict=True)) and \
                all(where.count(j) == n for j, n in enumerate(sizes)):
            fitting.append(tuple(sorted((c, j) for (c, _), j in zip(cards, where,
                                                                    strict=True))))
    dealer = Dealer([(list(letters), frozenset(allowed)) for letters, allowed in groups], sizes)
    assert dealer.ways == len(fitting)
    if not fitting:
        return
    rng, drawn = random.Random(3), Counter()
    for _ in range(120 * len(fitting)):
        places = dealer.deal(rng)
        assert [len(p) for p in places] == sizes
        drawn[tuple(sorted((c, j) for j, place in enumerate(places) for c in place))] += 1
    assert set(drawn) <= set(fitting)
    assert chisquare([drawn[a] for a in fitting]).pvalue > 1e-4


@pytest.mark.slow
def test_a_won_cherki_deals_world_gives_the_winner_no_pair_kind_it_discarded_since_calling():
    """A winner who drew its winning card holds three triples, any of which may have been
    its pair: never one whose kind it let go after its call (that card would have won it
    the deal then). Every world of the end, from a losing seat, keeps that exclusion."""
    rng = random.Random(9)
    checked = 0
    for state, _ in cherki_positions(1500, 11):
        if not state.is_over() or state.reason != "win":
            continue
        winner = state.observation(0)["winner"]
        seat = (winner + 1) % 3
        seen = state.observation(seat)
        called = seen["calls"][winner]
        took = [t for t in seen["takes"] if t["seat"] == winner and t["move"] == seen["move"]]
        if called is None or took:
            continue
        let_go = {KIND[cherki_face(d["card"])] for d in seen["discards"]
                  if d["seat"] == winner and d["move"] > called}
        triples = {KIND[cherki_face(n)] for n in seen["winning_hand"]
                   if sum(KIND[cherki_face(m)] == KIND[cherki_face(n)]
                          for m in seen["winning_hand"]) >= 3}
        if not let_go & triples:
            continue
        assert state.locked[winner] not in let_go  # the rule itself
        for _ in range(5):
            assert CHERKI.world(seen, rng).locked[winner] not in let_go
        checked += 1
    assert checked >= 20, checked
