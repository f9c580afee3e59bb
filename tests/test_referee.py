"""The referee: forfeits instead of crashes, per-seat seeds, replays that reproduce."""

import json

from arena.games.vandtia import GAME
from arena.referee import play_match, replay
from arena.sandbox.bot import PythonBot, make_bot


class Crashes:
    def act(self, observation, legal):
        raise RuntimeError("boom")


class Illegal:
    def act(self, observation, legal):
        return "play 99X"


class BadStart:
    def start(self, info):
        raise ValueError("no")

    def act(self, observation, legal):
        return legal[0]


class Exits:
    def act(self, observation, legal):
        raise SystemExit(3)


class BadEnd:
    def act(self, observation, legal):
        return legal[0]

    def end(self, result):
        raise RuntimeError("late")


class Recorder:
    def __init__(self):
        self.infos, self.results, self.legals = [], [], []

    def start(self, info):
        self.infos.append(info)

    def act(self, observation, legal):
        assert "legal" not in observation and len(legal) > 1
        self.legals.append(legal)
        legal.append("mutating my copy changes nothing")
        return legal[0]

    def end(self, result):
        self.results.append(result)


class Counter:
    def __init__(self):
        self.asked = 0

    def act(self, observation, legal):
        self.asked += 1
        return legal[-1]


def test_a_seat_with_one_legal_action_is_not_asked_and_the_move_is_still_recorded():
    bots = [Counter(), Counter()]
    match, state = play_match(GAME, "cardems", [PythonBot(b) for b in bots], 8)
    again = GAME.new_state("cardems", 2, 8)
    choices = forced = 0
    for action in match.actions:
        legal = again.legal_actions()
        choices, forced = choices + (len(legal) > 1), forced + (len(legal) == 1)
        assert action == legal[-1]
        again.apply(action)
    assert forced > 0 and sum(b.asked for b in bots) == choices
    assert again.result() == state.result()


def random_bot(registry):
    return make_bot(registry.bot("random", "vandtia"))


def test_a_crashing_bot_forfeits_and_takes_last_place(registry):
    match, _ = play_match(GAME, "cardems", [PythonBot(Crashes()), random_bot(registry)], 3)
    seat = match.result.faults.index("crash: RuntimeError: boom")
    assert match.result.reason == "forfeit" and match.result.ranks[seat] == 2
    assert match.result.ranks[1 - seat] == 1
    assert "Traceback" in match.logs[seat] and "RuntimeError: boom" in match.logs[seat]


def test_an_illegal_action_forfeits(registry):
    match, _ = play_match(GAME, "swedish",
                          [random_bot(registry), PythonBot(Illegal()), random_bot(registry)], 3)
    assert (
        match.result.faults[1].startswith('illegal action: "play 99X" (not one of the '))
    assert match.result.ranks[1] == 3 and match.result.reason == "forfeit"


def test_a_bot_failing_at_start_forfeits(registry):
    match, _ = play_match(GAME, "cardems", [random_bot(registry), PythonBot(BadStart())], 1)
    assert match.result.faults == [None, "crash: ValueError: no"]
    assert match.actions == [] and match.result.ranks == [1, 2]


def test_sys_exit_in_a_bot_is_a_fault_not_an_exit(registry):
    match, _ = play_match(GAME, "cardems", [PythonBot(Exits()), random_bot(registry)], 1)
    assert "crash: SystemExit" in [f for f in match.result.faults if f][0]


def test_a_failing_end_changes_nothing(registry):
    match, _ = play_match(GAME, "cardems", [PythonBot(BadEnd()), random_bot(registry)], 1)
    assert match.result.faults == [None, None] and match.result.reason in ("out", "cap")


def test_each_bot_gets_its_own_derived_seed_and_the_result():
    a, b = Recorder(), Recorder()
    match, _ = play_match(GAME, "cardems", [PythonBot(a), PythonBot(b)], 42)
    seeds = {a.infos[0]["seed"], b.infos[0]["seed"], 42}
    assert len(seeds) == 3
    assert a.infos[0] == {"game": "vandtia", "variant": "cardems", "seat": 0, "players": 2,
                          "seed": a.infos[0]["seed"]}
    assert a.results == [match.result.to_json()] == b.results
    again = Recorder()
    play_match(GAME, "cardems", [PythonBot(again), PythonBot(Recorder())], 42)
    assert again.infos == a.infos


def test_replaying_the_actions_from_the_seed_reproduces_the_result(registry):
    bots = [random_bot(registry), make_bot(registry.bot("greedy", "vandtia")),
            random_bot(registry)]
    match, final = play_match(GAME, "german", bots, 8)
    again = replay(GAME, "german", 3, 8, match.actions)
    assert again.fields() == final.fields()
    assert again.result() == final.result()


def test_match_json_has_the_replay_and_no_timings(registry):
    match, _ = play_match(GAME, "cardems", [random_bot(registry), random_bot(registry)], 5)
    data = json.loads(json.dumps(match.to_json()))
    assert set(data) == {"game", "variant", "seed", "players", "result", "actions"}
    assert set(data["result"]) == {"ranks", "scores", "reason", "moves", "faults"}
    assert len(data["actions"]) >= data["result"]["moves"]


class EqualCopy:
    """Answers the first legal action as a new string of its own, equal to it."""

    def act(self, observation, legal):
        return legal[0][:1] + legal[0][1:]


def test_the_replay_keeps_the_legal_lists_own_actions_not_the_answers():
    """An answer equal to a legal action is kept as the engine made it - the one in the
    legal list - so a long match keeps no string decoded from an answer per move."""
    match, _ = play_match(GAME, "cardems", [PythonBot(EqualCopy()), PythonBot(EqualCopy())], 3)
    state = GAME.new_state("cardems", 2, 3)
    for action in match.actions:
        assert any(action is legal for legal in state.legal_actions())
        state.apply(action)


def test_move_times_summed_as_they_come_store_as_a_list_of_them_does():
    from arena.referee import MoveTimes

    times, summed = [0.25, 0.75, 0.5], MoveTimes()
    for seconds in times:
        summed.append(seconds)
    match, _ = play_match(GAME, "cardems", [PythonBot(Counter()), PythonBot(Counter())], 4)
    assert match.stored(0, 1.0, {0: summed, 1: MoveTimes()})["move_s"] == \
        match.stored(0, 1.0, {0: times, 1: []})["move_s"] == {"0": (0.5, 0.75)}


def test_a_bot_is_given_a_copy_of_the_legal_list_a_runner_that_serialises_it_the_engines():
    """``match_steps`` gives an in-process bot its own list (one that changes it changes
    nothing the engine holds); with ``observe=False`` - a runner that only serialises the
    request - the engine's own legal list, not copied."""
    from arena.referee import match_steps

    for observe in (True, False):
        state = GAME.new_state("cardems", 2, 5)
        steps = match_steps(GAME, "cardems", 2, 5, ["a", "b"], state=state, observe=observe)
        ask, asked = steps.send(None), 0
        while asked < 20:
            if ask[0] == "act":
                engine = state.legal_actions()
                if observe:
                    assert type(ask[3]) is list and ask[3] is not engine
                    assert ask[3] == list(engine)
                    kept = list(engine)
                    ask[3].clear()  # a bot that changes what it was given
                    assert list(state.legal_actions()) == kept
                    answer = kept[0]
                else:
                    assert ask[3] is engine
                    answer = engine[0]
                asked += 1
            else:
                answer = None
            ask = steps.send(answer)
