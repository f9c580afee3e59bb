"""Every season's and match's chance is keyed by a secret no bot sees: a bot that knows
arena's code, the season definition and even its root seed cannot compute a deal.

The attacker is a real bot file run by the real sandbox. Under ``--public-seed`` the same
bot does find its deals - which shows it would catch a leak."""

import json
import os
import subprocess
import sys

import pytest

from arena import db
from arena.cards import PUBLIC_SECRET, keyed_seed, new_secret, seeding

CRACKER = '''
import arena
from arena.cards import PUBLIC_SECRET, derive_seed, keyed_seed
from arena.games.vandtia import GAME

ROOT = {root!r}  # the season's root seed, handed to the bot in its own file


def deals_of(root, rnd, group):
    """The deal seeds a fixture would have under the old and under the public seeding."""
    return derive_seed(root, "deal", rnd, group), keyed_seed(PUBLIC_SECRET, "deal", root, rnd,
                                                              group)


def bot_seeds(deal, seat):
    return derive_seed(deal, "bot", seat), keyed_seed(PUBLIC_SECRET, "bot", deal, seat)


_TABLES = {{}}


def table(seat):
    """Every bot seed a guessable seed gives this seat -> the deal seed behind it: season
    root seeds 0-49, rounds 0-49, groups 0-2, and play seeds 0-19,999."""
    if seat not in _TABLES:
        found = {{}}
        for root in range(50):
            for rnd in range(50):
                for group in range(3):
                    for deal in deals_of(root, rnd, group):
                        for bot in bot_seeds(deal, seat):
                            found[bot] = deal
        for seed in range(20_000):
            for deal in (seed, keyed_seed(PUBLIC_SECRET, "play", seed)):
                for bot in bot_seeds(deal, seat):
                    found[bot] = deal
        _TABLES[seat] = found
    return _TABLES[seat]


def own_cards(observation, seat):
    return sorted(observation["hand"] + observation["seats"][seat]["faceup"])


class Bot:
    def start(self, info):
        self.seat, self.first = info["seat"], True
        self.found = table(self.seat).get(info["seed"])

    def act(self, observation, legal):
        if self.first:
            self.first = False
            mine = own_cards(observation, self.seat)
            if self.found is not None:
                state = GAME.new_state(observation["variant"], observation["players"],
                                       self.found)
                if own_cards(state.observation(self.seat), self.seat) == mine:
                    raise RuntimeError(f"found the deal from my seed: {{self.found}}")
            if ROOT is not None:
                for rnd in range(50):
                    for group in range(3):
                        for deal in deals_of(ROOT, rnd, group):
                            state = GAME.new_state(observation["variant"],
                                                   observation["players"], deal)
                            if own_cards(state.observation(self.seat), self.seat) == mine:
                                raise RuntimeError(f"rebuilt the deal from the root seed: "
                                                   f"round {{rnd}} group {{group}}")
        return legal[0]


@arena.hookimpl
def register_bots(register):
    register("seedleak", Bot, games=["vandtia"])
'''

LIMITS = "start_s=300"  # the search takes a few seconds, more on a loaded machine


def arena(*args, bots=None, db_path=None):
    env = {**os.environ, "COLUMNS": "200"}
    if db_path:
        env["ARENA_DB"] = f"sqlite:///{db_path}"
    cmd = [sys.executable, "-m", "arena", *(["--bots-dir", str(bots)] if bots else []), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture
def cracker(tmp_path):
    def make(root=None):
        folder = tmp_path / f"bots-{root}"
        folder.mkdir()
        (folder / "seedleak.py").write_text(CRACKER.format(root=root))
        return folder
    return make


def season_faults(db_path, name):
    engine = db.connect(f"sqlite:///{db_path}")
    row = db.get_season(engine, name)
    return [faults[seats.index("seedleak")]
            for seats, _, _, faults in db.results(engine, row.game, row.variant, row.players,
                                                  name)]


SEASON = ("season", "run", "vandtia", "--variant", "cardems", "--bots", "random,seedleak",
          "--rounds", "2", "--seed", "11", "--batch", "4", "--limits", LIMITS, "--workers", "1")


@pytest.mark.slow
def test_a_bot_cannot_find_its_deal_from_its_seed_or_the_root_seed_in_a_season(
        cracker, tmp_path):
    bots = cracker(root=11)
    out = arena(*SEASON, "--name", "secret", bots=bots, db_path=tmp_path / "a.db")
    assert out.returncode == 0, out.stderr
    faults = season_faults(tmp_path / "a.db", "secret")
    assert len(faults) == 4 and faults == [None] * 4


@pytest.mark.slow
def test_under_a_public_seed_the_same_bot_finds_every_deal(cracker, tmp_path):
    for root, found in ((None, "found the deal from my seed"),
                        (11, "found the deal from my seed|rebuilt the deal")):
        bots = cracker(root=root)
        out = arena(*SEASON, "--name", "public", "--public-seed", bots=bots,
                    db_path=tmp_path / f"{root}.db")
        assert out.returncode == 0, out.stderr
        faults = season_faults(tmp_path / f"{root}.db", "public")
        assert len(faults) == 4 and all(f and f.startswith("crash: RuntimeError: ")
                                        and any(w in f for w in found.split("|"))
                                        for f in faults), faults


@pytest.mark.slow
def test_a_bot_cannot_find_the_deal_of_arena_play_from_its_seed(cracker):
    bots = cracker()
    for seed in (0, 7, 19_999):
        out = arena("play", "vandtia", "seedleak", "random", "--seed", str(seed), "--json",
                    "--limits", LIMITS, bots=bots)
        assert out.returncode == 0, out.stderr
        record = json.loads(out.stdout)
        assert record["result"]["faults"] == [None, None] and record["seeding"] == "secret"
    out = arena("play", "vandtia", "seedleak", "random", "--seed", "7", "--json", "--limits",
                LIMITS, "--public-seed", bots=bots)
    record = json.loads(out.stdout)
    assert record["seeding"] == "public" and record["secret"] == PUBLIC_SECRET
    assert record["result"]["faults"][0].startswith("crash: RuntimeError: found the deal")


def test_a_bots_seed_is_keyed_by_the_secret_and_tells_nothing_of_the_deal():
    secret = new_secret()
    assert len(secret) == 64 and secret != new_secret()
    assert keyed_seed(secret, "deal", 1, 0, 0) != keyed_seed(new_secret(), "deal", 1, 0, 0)
    assert keyed_seed(secret, "deal", 1, 0, 0) == keyed_seed(secret, "deal", 1, 0, 0) < 2**63
    assert [seeding(None), seeding(PUBLIC_SECRET), seeding(secret)] == [
        "legacy", "public", "secret"]


def export_matches(db_path, name):
    out = arena("season", "export", name, db_path=db_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "season"
    return lines


@pytest.mark.slow
def test_the_same_definition_and_secret_give_the_same_bytes_and_another_secret_differs(
        tmp_path):
    (tmp_path / "secret").write_text(new_secret() + "\n")
    (tmp_path / "other").write_text(new_secret() + "\n")
    run = ("season", "run", "vandtia", "--bots", "random,greedy,lowball", "--rounds", "4",
           "--seed", "3", "--name", "s")
    exports = {}
    for label, workers, secret in (("one", "1", "secret"), ("two", "2", "secret"),
                                   ("other", "2", "other")):
        path = tmp_path / f"{label}.db"
        out = arena(*run, "--workers", workers, "--secret-from", str(tmp_path / secret),
                    db_path=path)
        assert out.returncode == 0, out.stderr
        exports[label] = export_matches(path, "s")
    assert exports["one"] == exports["two"], "1 and 2 workers give identical bytes"
    assert json.loads(exports["one"][0])["secret"] == (tmp_path / "secret").read_text().strip()
    assert exports["other"][1:] != exports["one"][1:], "another secret, other deals"
    again = tmp_path / "again.db"  # the export's own secret plays the season again
    (tmp_path / "export.jsonl").write_text("\n".join(exports["one"]) + "\n")
    out = arena(*run, "--secret-from", str(tmp_path / "export.jsonl"), db_path=again)
    assert out.returncode == 0, out.stderr
    assert export_matches(again, "s") == exports["one"]
    verified = arena("verify", str(tmp_path / "export.jsonl"))
    assert verified.returncode == 0 and "24 match(es) verified" in verified.stdout
    one = arena("replay", "1", "--json", db_path=again)
    (tmp_path / "one.json").write_text(one.stdout)
    verified = arena("verify", str(tmp_path / "one.json"))
    assert verified.returncode == 0 and "1 match(es) verified" in verified.stdout


def test_verify_finds_a_deal_seed_that_does_not_follow_from_the_secret(tmp_path):
    out = arena("play", "vandtia", "random", "greedy", "--seed", "4", "--json")
    record = json.loads(out.stdout)
    (tmp_path / "m.json").write_text(json.dumps(record))
    assert arena("verify", str(tmp_path / "m.json")).returncode == 0
    record["secret"] = new_secret()
    (tmp_path / "m.json").write_text(json.dumps(record))
    bad = arena("verify", str(tmp_path / "m.json"))
    assert bad.returncode == 1 and "does not follow from its seed and secret" in bad.stderr


def test_play_again_with_the_records_secret_gives_the_same_bytes(tmp_path):
    args = ("play", "vandtia", "greedy", "random", "--seed", "5", "--json")
    first = arena(*args)
    (tmp_path / "m.json").write_text(first.stdout)
    again = arena(*args, "--secret-from", str(tmp_path / "m.json"))
    assert again.stdout == first.stdout
    fresh = arena(*args)
    assert json.loads(fresh.stdout)["deal_seed"] != json.loads(first.stdout)["deal_seed"]


def test_secret_errors_are_one_line(tmp_path):
    (tmp_path / "short").write_text("abc\n")
    for args, message in [
        (("--secret-from", str(tmp_path / "nope")), "cannot read a secret from"),
        (("--secret-from", str(tmp_path / "short")), "shorter than 16 characters"),
        (("--secret-from", str(tmp_path / "short"), "--public-seed"), "exclude each other"),
    ]:
        out = arena("play", "vandtia", "random", "random", *args)
        assert out.returncode == 2 and message in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
