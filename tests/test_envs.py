"""The training environments (``arena.envs``, optional extra ``rl``): encodings that match
the legal lists and leak nothing, PettingZoo's and Gymnasium's own checks, and episodes
that are the games ``arena play`` plays."""

import json
import random
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy", reason="the environments: pip install 'card-arena[rl]'")
pytest.importorskip("pettingzoo", reason="the environments: pip install 'card-arena[rl]'")
pytest.importorskip("gymnasium", reason="the environments: pip install 'card-arena[rl]'")

from arena.envs.aec import env as aec_env  # noqa: E402
from arena.envs.encoding import encoding  # noqa: E402
from arena.envs.single import SeatEnv  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.games.cherki import GAME as CHERKI  # noqa: E402
from arena.games.tractor import GAME as TRACTOR  # noqa: E402
from arena.games.vandtia import GAME as VANDTIA  # noqa: E402

GAMES = {"vandtia": VANDTIA, "cherki": CHERKI, "tractor": TRACTOR}
CONFIGS = [(name, v, n) for name, game in GAMES.items() for v, counts in game.variants.items()
           for n in counts]


@pytest.mark.parametrize("game, variant, players", CONFIGS)
def test_the_mask_is_the_legal_list_at_every_step(game, variant, players):
    """Random games: the mask has a one for each legal action (no two share an index), and
    each index names its action back; the vector keeps its size, every value in 0-1."""
    enc = encoding(game, variant, players)
    rng = random.Random(players)
    for seed in range(1 if variant == "match" else 8):  # a Tractor match: 3,000 moves
        state = GAMES[game].new_state(variant, players, seed)
        while not state.is_over():
            o, legal = state.observation(state.to_move), state.legal_actions()
            mask = enc.mask(o, legal)
            assert mask.dtype == np.int8 and mask.shape == (enc.actions,)
            assert int(mask.sum()) == len(legal)
            for action in legal:
                assert enc.action(o, legal, enc.index(o, action)) == action
            vector = enc.observe(o)
            assert vector.dtype == np.float32 and vector.shape == (enc.size,)
            assert vector.min() >= 0 and vector.max() <= 1
            state.apply(legal[rng.randrange(len(legal))])
    assert sum(width for _, width in enc.fields) == enc.size


@pytest.mark.parametrize("game, variant, players", CONFIGS)
def test_the_engines_encode_the_state_as_the_encoding_encodes_the_observation(
        game, variant, players):
    """The environments' path (``state_observation``: each engine writes the arrays from its
    state, compiled where its build is) against the encoding of the observation dict and
    the legal list, for every seat at every step of random games: the same vector; for the
    mover the same mask and indices, for the others an all-zero mask and no indices. (tox
    runs it again with the pure-Python engines.)"""
    enc = encoding(game, variant, players)
    rng = random.Random(players + 1)
    for seed in range(1 if variant == "match" else 8):
        state = GAMES[game].new_state(variant, players, seed)
        while True:
            for seat in range(players):
                o = state.observation(seat)
                vector, mask, indices = enc.state_observation(state, seat)
                assert vector.dtype == np.float32 and np.array_equal(vector, enc.observe(o))
                assert mask.dtype == np.int8 and mask.shape == (enc.actions,)
                if seat == state.to_move and not state.is_over():
                    legal = state.legal_actions()
                    assert indices == enc.indices(o, legal)
                    assert np.array_equal(mask, enc.mask(o, legal))
                else:
                    assert indices is None and not mask.any()
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("game, variant", [("cherki", "standard"), ("tractor", "match")])
def test_what_an_engine_keeps_between_encodings_follows_copies_and_new_deals(game, variant):
    """Cherki and Tractor keep the counts of the records read so far on the state (a
    deal's discards and takes, its finished tricks): a copy played on apart from its
    original, and a Tractor match's next deals, are encoded as their observations are."""
    players = GAMES[game].variants[variant][0]
    enc, rng = encoding(game, variant, players), random.Random(9)
    state = GAMES[game].new_state(variant, players, 3)
    copies, deals = [], set()
    while not state.is_over():
        if rng.random() < 0.02 and len(copies) < 4:
            copies.append(state.copy())
        for s in [state] + copies:
            if not s.is_over():
                seat = rng.randrange(players)
                vector, _, _ = enc.state_observation(s, seat)
                assert np.array_equal(vector, enc.observe(s.observation(seat)))
                s.apply(rng.choice(s.legal_actions()))
        deals.add(getattr(state, "deal_number", 1))
    assert len(copies) > 2 and (game == "cherki" or len(deals) > 2)


@pytest.mark.parametrize("game, variant, players", [
    ("vandtia", "cardems", 2), ("vandtia", "swedish", 4), ("vandtia", "german", 3),
    ("vandtia", "swedish", 6), ("cherki", "standard", 3), ("tractor", "deal", 4)])
def test_the_encoding_leaks_nothing(game, variant, players):
    """Re-deal every card the seat has not seen (a world of its observation): the vector and
    the mask stay the same."""
    enc = encoding(game, variant, players)
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        state = GAMES[game].new_state(variant, players, seed)
        while not state.is_over():
            seat = state.to_move
            o, legal = state.observation(seat), state.legal_actions()
            if rng.random() < 0.3:
                world = GAMES[game].world(o, random.Random(rng.getrandbits(32)))
                again = world.observation(seat)
                assert np.array_equal(enc.observe(again), enc.observe(o))
                assert np.array_equal(enc.mask(again, world.legal_actions()), enc.mask(o, legal))
                vector, mask, _ = enc.state_observation(world, seat)
                assert np.array_equal(vector, enc.observe(o))
                assert np.array_equal(mask, enc.mask(o, legal))
                checked += 1
            state.apply(legal[rng.randrange(len(legal))])
    assert checked > 50


@pytest.mark.parametrize("game, variant, players", [
    ("vandtia", "cardems", 2), ("vandtia", "swedish", 3), ("vandtia", "german", 4),
    ("vandtia", "swedish", 6), ("cherki", "standard", 3), ("tractor", "deal", 4),
    ("tractor", "match", 4)])
def test_pettingzoo_api_test_and_seed_test_pass(game, variant, players):
    from pettingzoo.test import api_test, seed_test

    api_test(aec_env(game, variant, players), num_cycles=300)
    seed_test(lambda: aec_env(game, variant, players), num_cycles=300)


@pytest.mark.parametrize("game, variant, players, opponents", [
    ("vandtia", "cardems", 2, ["random"]), ("vandtia", "swedish", 3, ["greedy", "first"]),
    ("vandtia", "german", 4, ["random"]), ("cherki", "standard", 3, ["greedy", "random"]),
    ("tractor", "deal", 4, ["greedy", "random", "greedy"]), ("tractor", "match", 4, ["random"])])
def test_gymnasium_check_env_passes(game, variant, players, opponents):
    from gymnasium.utils.env_checker import check_env

    check_env(SeatEnv(game, variant, players, opponents=opponents), skip_render_check=True)


@pytest.mark.parametrize("game, bots, variant", [
    ("vandtia", ["greedy", "random"], "cardems"),
    ("cherki", ["greedy", "random", "first"], "standard"),
    ("tractor", ["greedy", "random"], "deal")])  # one bot a team: greedy, random, greedy, random
def test_an_episode_is_the_game_arena_play_plays(game, bots, variant):
    """``arena play --json`` (sandboxed bots, a random secret), then the same seed and secret
    in both environments, each seat played with the recorded moves (the Gymnasium one's
    opponents are the same bots, in-process): the same moves and the same result; on the
    way, the mover's ``info`` names the legal actions and their indices, the mask's ones."""
    run = subprocess.run([sys.executable, "-m", "arena", "play", game, *bots, "--variant",
                          variant, "--seed", "5", "--json"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    moves = [a["action"] for a in record["actions"]]
    options = {"secret": record["secret"]}
    seats = record["seats"]

    e = aec_env(game, variant, len(seats))
    e.reset(seed=5, options=options)
    assert e.deal_seed == record["deal_seed"]
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        if termination or truncation:
            assert reward == record["result"]["scores"][int(agent[-1])]
            e.step(None)
            continue
        move = moves[len(e.actions)]
        o = e.state_.observation(e.state_.to_move)
        index = e.encoding.index(o, move)
        assert observation["action_mask"][index] == 1
        assert info["legal"] == e.state_.legal_actions()
        assert info["legal_indices"] == [e.encoding.index(o, a) for a in info["legal"]]
        assert sorted(info["legal_indices"]) == observation["action_mask"].nonzero()[0].tolist()
        e.step(index)
    assert e.actions == moves

    single = SeatEnv(game, variant, len(seats), seat=0, opponents=seats[1:])
    observation, info = single.reset(seed=5, options=options)
    terminated = False
    while not terminated:
        move = moves[len(single.actions)]
        o = single.state.observation(0)
        index = single.encoding.index(o, move)
        assert info["legal_indices"] == [single.encoding.index(o, a) for a in info["legal"]]
        assert sorted(info["legal_indices"]) == observation["action_mask"].nonzero()[0].tolist()
        observation, reward, terminated, _, info = single.step(index)
    assert single.actions == moves
    assert reward == record["result"]["scores"][0] and info["result"].ranks == \
        record["result"]["ranks"]


def test_an_illegal_index_forfeits_as_in_the_referee():
    """The seat takes last place and the episode ends, in both environments."""
    single = SeatEnv("vandtia", "swedish", 3, opponents=["random"])
    observation, _ = single.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = single.step(illegal)
    assert terminated and info["illegal"] == illegal and info["result"].ranks[0] == 3
    assert reward == -2 and info["result"].reason == "forfeit"
    with pytest.raises(ArenaError, match="the episode is over"):
        single.step(illegal)
    e = aec_env("vandtia", "cardems", 2)
    e.reset(seed=1)
    agent = e.agent_selection
    e.step(int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0]))
    assert all(e.terminations.values()) and e.infos[agent]["illegal"] >= 0
    assert e._cumulative_rewards[agent] == -1


def test_bad_choices_are_one_clear_error():
    with pytest.raises(ArenaError, match="one opponent, or one for each"):
        SeatEnv("vandtia", "swedish", 4, opponents=["random", "greedy"])
    with pytest.raises(ArenaError, match="no encoding for 'nim' yet \\(there is one for: "
                                         "vandtia, cherki, tractor\\)"):
        encoding("nim", "standard", 2)


MODEL_BOT = '''import arena
from arena.envs.model import model_bot

Bot = model_bot(__file__.replace(".py", ".npz"))


@arena.hookimpl
def register_bots(register):
    register("mymodel", Bot, games=[Bot.model.game])
'''


def _model(path, seed=1, hidden=16):
    """A small network of seeded random weights for two-seat Vändtia."""
    from arena.envs.model import save

    enc, rng = encoding("vandtia", "cardems", 2), np.random.default_rng(seed)
    save(path, "vandtia", "cardems", 2, [
        (rng.normal(0, 0.3, (enc.size, hidden)), np.zeros(hidden)),
        (rng.normal(0, 0.3, (hidden, enc.actions)), np.zeros(enc.actions))])


def test_a_model_bot_chooses_its_best_scoring_legal_action(tmp_path):
    from arena.envs.model import Model, model_bot

    _model(tmp_path / "m.npz")
    model = Model(str(tmp_path / "m.npz"))
    bot = model_bot(str(tmp_path / "m.npz"))()
    state = VANDTIA.new_state("cardems", 2, 3)
    requests = []
    while not state.is_over() and len(requests) < 40:
        o, legal = state.observation(state.to_move), list(state.legal_actions())
        scores = model.scores(model.encoding.observe(o)[None, :])[0]
        best = max(legal, key=lambda a: scores[model.encoding.index(o, a)])
        assert bot.act(o, legal) == best
        requests.append((o, legal))
        state.apply(best)
    assert type(bot).act_batch(requests) == [bot.act(o, legal) for o, legal in requests]
    three = VANDTIA.new_state("swedish", 3, 1)
    with pytest.raises(ArenaError, match="tables of 2 seats, not 3"):
        bot.act(three.observation(three.to_move), list(three.legal_actions()))
    np.savez(tmp_path / "bad.npz", meta=np.array('{"game": "vandtia", "variant": "cardems", '
                                                 '"players": 2}'), w0=np.zeros((3, 3)),
             b0=np.zeros(3))
    with pytest.raises(ArenaError, match="do not take 136 inputs to 285 action scores"):
        Model(str(tmp_path / "bad.npz"))


@pytest.mark.slow
def test_a_submitted_model_bot_passes_check_bot_and_plays_a_season(tmp_path):
    """Submitted as a folder (the bot file beside its weights), checked, and played in a
    season 8 matches side by side (its moves asked in batches: ``act_batch``)."""
    folder = tmp_path / "mymodel"
    folder.mkdir()
    (folder / "mymodel.py").write_text(MODEL_BOT)
    _model(folder / "mymodel.npz")
    base = [sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path / 'a.db'}",
            "--store", str(tmp_path / "store")]

    def arena(*args):
        run = subprocess.run(base + list(args), capture_output=True, text=True, timeout=600,
                             cwd=tmp_path)
        assert run.returncode == 0, (args, run.stdout, run.stderr)
        return run.stdout

    assert "accepted, version 1 of mymodel" in arena("submit", str(folder), "--author", "Ada")
    checked = arena("check-bot", "mymodel")
    assert checked.count("ok    vandtia") == 3, checked
    arena("season", "run", "vandtia", "--bots", "mymodel,random", "--rounds", "4",
          "--inflight", "8", "--name", "m")
    from arena import db

    engine = db.connect(f"sqlite:///{tmp_path / 'a.db'}", create=False)
    seats = [s for _, match in db.season_matches(engine, db.get_season(engine, "m").id)
             for s in match]
    assert len(seats) == 16 and all(s.fault is None for s in seats)
    assert {s.bot for s in seats} == {"mymodel@1", "random"}


def test_the_training_example_trains_and_exports_a_bot_that_plays(tmp_path):
    """``examples/train_cardems.py`` for a moment: it writes the weights and the bot file
    beside them, and the bot plays."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "trained" / "trained.npz"
    run = subprocess.run([sys.executable, str(root / "examples" / "train_cardems.py"),
                          "--minutes", "0.02", "--envs", "4", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert out.exists() and (out.parent / "trained.py").exists()
    from arena.envs.model import model_bot

    bot = model_bot(str(out))()
    state = VANDTIA.new_state("cardems", 2, 0)
    while not state.is_over():
        legal = list(state.legal_actions())
        state.apply(bot.act(state.observation(state.to_move), legal))
    assert state.result().reason in ("out", "cap")
