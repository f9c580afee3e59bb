"""Many matches per bot process (protocol 2): the same results whatever K is."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from arena import db
from arena.cards import PUBLIC_SECRET
from arena.leagues import league
from arena.leagues.scheduler import SeasonDef
from arena.plugins import Registry
from arena.sandbox import Limits, Worker

ROOT = Path(__file__).resolve().parent.parent

#: A bot whose mood, drawn from its seed, is to raise, to kill its own process, to answer
#: an illegal action or to run out of memory at its sixth move - or to play on at random.
MOODY = '''
import os, random
import arena

class Moody:
    def start(self, info):
        self.rng = random.Random(info["seed"])
        self.mood = info["seed"] % 6
        self.asked = 0

    def act(self, observation, legal):
        self.asked += 1
        if self.asked == 6:
            if self.mood == 0:
                raise RuntimeError("moody")
            if self.mood == 1:
                os._exit(3)  # the whole process: every match it serves
            if self.mood == 2:
                return "no such move"
            if self.mood == 3:
                hog = bytearray(3 << 30)  # over the memory limit: MemoryError
        return legal[self.rng.randrange(len(legal))]

@arena.hookimpl
def register_bots(register):
    register("moody", Moody, games=["vandtia", "tractor", "cherki"])
'''


@pytest.fixture(scope="module")
def bots_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bots")
    (folder / "moody.py").write_text(MOODY)
    return folder


def season(tmp_path, bots_dir, game, variant, players, bots, rounds, inflight, extra=()):
    registry = Registry(bots_dirs=[bots_dir, *extra])
    g = registry.game(game)
    engine = db.connect(f"sqlite:///{tmp_path}/k{inflight}-{game}.db")
    defn = SeasonDef("s", game, variant, players, bots, rounds, 5, 16, "memory_mb=512",
                     teams=g.teams, every_seating=g.seatings == "all", secret=PUBLIC_SECRET,
                     inflight=inflight)
    row = league.create(engine, registry, defn)
    league.play(engine, registry, row, workers=2)
    results = list(db.results(engine, game, variant, players))
    return results, league.standings(engine, registry, game, variant, players, "s")


@pytest.mark.parametrize("game, variant, players, bots, rounds", [
    ("vandtia", "cardems", 2, ("moody", "random", "greedy"), 8),
    ("tractor", "deal", 4, ("moody", "random", "greedy"), 3),
    ("cherki", "standard", 3, ("moody", "random", "greedy"), 2)])
@pytest.mark.slow
def test_seasons_with_k_1_and_16_give_identical_results_and_ratings(
        tmp_path, bots_dir, game, variant, players, bots, rounds):
    one = season(tmp_path, bots_dir, game, variant, players, bots, rounds, 1)
    many = season(tmp_path, bots_dir, game, variant, players, bots, rounds, 16)
    assert one == many
    results, _ = one
    faults = {f.split(":")[0] for _, _, _, fs in results for f in fs if f}
    assert len(faults) >= 2, faults  # the moods were met
    assert any(f == "memory exceeded" or (f or "").startswith("crash: exited")
               for _, _, _, fs in results for f in fs), "a fault no match can be blamed for"


@pytest.mark.slow
def test_a_protocol_1_executable_bot_plays_beside_protocol_2_bots(tmp_path, bots_dir):
    awk = ROOT / "plugins" / "awk-bot"
    one = season(tmp_path, bots_dir, "vandtia", "cardems", 2, ("lowawk", "random", "greedy"),
                 6, 1, extra=[awk])
    many = season(tmp_path, bots_dir, "vandtia", "cardems", 2,
                  ("lowawk", "random", "greedy"), 6, 16, extra=[awk])
    assert one == many
    assert not any(f for _, _, _, fs in one[0] for f in fs)


def test_a_batch_bot_decides_the_same_in_act_batch(tmp_path, bots_dir):
    examples = ROOT / "examples"
    one = season(tmp_path, bots_dir, "vandtia", "cardems", 2, ("batchbot", "random"), 10, 1,
                 extra=[examples])
    many = season(tmp_path, bots_dir, "vandtia", "cardems", 2, ("batchbot", "random"), 10, 16,
                  extra=[examples])
    assert one == many
    assert not any(f for _, _, _, fs in one[0] for f in fs)


@pytest.mark.slow
def test_a_crash_in_one_of_16_interleaved_matches_forfeits_that_match_alone(tmp_path,
                                                                             bots_dir):
    """The matches moody forfeits at K = 16 are the ones it forfeits at K = 1: its other
    matches in the same process played on."""
    def faulty(inflight):
        results, _ = season(tmp_path, bots_dir, "vandtia", "cardems", 2, ("moody", "random"),
                            24, inflight)
        return [i for i, (_, _, _, faults) in enumerate(results) if any(faults)]

    at_one = faulty(1)
    assert at_one and faulty(16) == at_one
    assert len(at_one) < 48


#: An executable speaking protocol 2 that garbles its first answer to an act of several
#: requests: it names the matches by lists (which no dict can be keyed by), or answers
#: JSON nested 1,020 levels deep in place of one (``sys.argv[1]``) - a protocol error.
GARBLED = r"""
import json, random, sys
rngs, garbled = {}, False  # a random policy per match, from its seed
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "start":
        rngs[m.get("match")] = random.Random(m["seed"])
        print(json.dumps({"type": "ready", "protocol": 2, "match": m["match"]}
                         if "match" in m else {"type": "ready"}), flush=True)
    elif m["type"] == "act" and "requests" in m:
        odd = len(m["requests"]) > 1 and not garbled
        garbled = garbled or odd
        answers = [{"match": [r["match"]] if odd else r["match"],
                    "action": rngs[r["match"]].choice(r["legal"])} for r in m["requests"]]
        text = json.dumps({"type": "actions", "actions": answers})
        if odd and sys.argv[1] == "deep":
            text = text.replace("[{", "[" + "[" * 1020 + "]" * 1020 + ",{", 1)
        print(text, flush=True)
    elif m["type"] == "act":
        print(json.dumps({"type": "action", "action": rngs[None].choice(m["legal"])}),
              flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("how", ["lists", "deep"])
def test_garbled_answers_cost_their_process_not_the_runner(tmp_path, how):
    """A shared process's broken answer is its own fault: it is killed and its matches
    played again at K = 1 (where it serves one match per act and answers well) - the
    season's results are those of K = 1."""
    folder = tmp_path / "garbled"
    folder.mkdir()
    (folder / "garbled.prog").write_text(GARBLED)
    (folder / "garbled.toml").write_text(
        f'name = "garbled"\ngames = ["vandtia"]\n'
        f'command = ["{sys.executable}", "garbled.prog", "{how}"]\n')
    one = season(tmp_path, folder, "vandtia", "cardems", 2, ("garbled", "random"), 6, 1)
    many = season(tmp_path, folder, "vandtia", "cardems", 2, ("garbled", "random"), 6, 16)
    assert one == many
    assert not any(f for _, _, _, fs in one[0] for f in fs)


def test_a_worker_speaks_protocol_2_with_two_matches_at_once():
    registry = Registry()
    entry = registry.bot("random", "vandtia")
    worker = Worker(entry.spec, Limits())
    try:
        for key, seat in ((0, 0), (1, 1)):
            answer = worker.ask({"type": "start", "protocol": 2, "match": key,
                                 "game": "vandtia", "variant": "cardems", "seat": seat,
                                 "players": 2, "seed": 11 + key,
                                 "limits": {"move_s": 1.0, "bank_s": 10.0}, "options": {}},
                                "ready", 10)
            assert answer == {"type": "ready", "protocol": 2, "match": key}
        worker.send({"type": "act", "requests": [
            {"match": 0, "observation": {}, "legal": ["a", "b"]},
            {"match": 1, "observation": {}, "legal": ["c"]}]})
        answer = worker.receive(10)
        assert answer["type"] == "actions"
        assert {a["match"]: a["action"] for a in answer["actions"]}.keys() == {0, 1}
        assert {a["match"]: a["action"] for a in answer["actions"]}[1] == "c"
        worker.send({"type": "end", "match": 1, "result": None})  # abandoned: forgotten
        worker.send({"type": "act", "requests": [{"match": 1, "observation": {},
                                                   "legal": ["c"]}]})
        answer = worker.receive(10)
        assert answer["actions"][0]["match"] == 1 and "error" in answer["actions"][0]
        old = worker.ask({"type": "start", "game": "vandtia", "variant": "cardems",
                          "seat": 0, "players": 2, "seed": 3,
                          "limits": {"move_s": 1.0, "bank_s": 10.0}}, "ready", 10)
        assert old == {"type": "ready"}  # protocol 1 still answered as before
        assert worker.ask({"type": "act", "observation": {}, "legal": ["x"]}, "action",
                          10)["action"] == "x"
    finally:
        worker.close()


def _killed_and_resumed(base: list, run: list, path: Path, total: int) -> None:
    """Run season ``s`` (``base + run``) at K=16 into ``path``, SIGKILL it once some, not
    all, of its ``total`` matches are stored, and resume it to its end."""
    proc = subprocess.Popen(base + ["--db", f"sqlite:///{path}", *run, "--inflight", "16"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None:  # kill it once some, not all, of its batches are stored
        if path.exists():
            try:
                engine = db.connect(f"sqlite:///{path}", create=False)
                stored = [n for _, n in db.list_seasons(engine)]
            except Exception:  # noqa: BLE001 - the file is still being made
                continue
            if stored and 0 < stored[0] < total:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    resumed = subprocess.run(base + ["--db", f"sqlite:///{path}", "season", "resume", "s"],
                             capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_season_at_k_16_killed_with_sigkill_resumes_to_the_results_of_k_1(tmp_path,
                                                                            bots_dir):
    base = [sys.executable, "-m", "arena", "--bots-dir", str(bots_dir)]
    run = ["season", "run", "vandtia", "--bots", "moody,random,greedy", "--rounds", "16",
           "--seed", "2", "--batch", "6", "--workers", "2", "--public-seed", "--name", "s"]
    straight = subprocess.run(base + ["--db", f"sqlite:///{tmp_path}/one.db", *run,
                                      "--inflight", "1"], capture_output=True, text=True,
                              timeout=900)
    assert straight.returncode == 0, straight.stderr
    _killed_and_resumed(base, run, tmp_path / "killed.db", 96)

    def stored(name):
        engine = db.connect(f"sqlite:///{tmp_path}/{name}", create=False)
        return list(db.results(engine, "vandtia", "cardems", 2))

    assert stored("killed.db") == stored("one.db")
    assert orjson.loads(orjson.dumps(stored("one.db")))  # something was played


#: A bot that writes to its log, as its seed says: nothing; a line of 1 KiB printed at every
#: move, or written to descriptor 2 (past ``log_kb=24`` within a match); 2 MiB at one move
#: (more than its pipe holds); 100 KiB printed in ``end`` (after its match: no match's); a
#: short line a move (within the limit)
CHATTY = '''
import os, random, sys
import arena

class Chatty:
    def start(self, info):
        self.rng = random.Random(info["seed"])
        self.mode = info["seed"] % 6
        self.asked = 0

    def act(self, observation, legal):
        self.asked += 1
        line = f"move {self.asked} " + "x" * 1000 + "\\n"
        if self.mode == 1:
            print(line, end="")
        elif self.mode == 2:
            os.write(2, line.encode())
        elif self.mode == 3 and self.asked == 5:
            os.write(2, b"y" * (2 << 20))
        elif self.mode == 5:
            print("move", self.asked, file=sys.stderr)
        return legal[self.rng.randrange(len(legal))]

    def end(self, result):
        if self.mode == 4:
            print("z" * 100_000)

@arena.hookimpl
def register_bots(register):
    register("chatty", Chatty, games=["vandtia"])
'''


def _matches(db_path) -> list[dict]:
    """A season's matches as ``season export`` gives them (its secret and versions left out)."""
    out = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                          "season", "export", "s"], capture_output=True, text=True,
                         check=True).stdout
    return [line for line in map(json.loads, out.splitlines()) if line["type"] == "match"]


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_bot_filling_its_log_gets_the_same_results_at_k_1_k_16_and_killed_and_resumed(
        tmp_path):
    """Its log and its limit are per match, whatever process serves it: the same faults
    (naming the limit), at the same moves, with the same logs kept."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "chatty.py").write_text(CHATTY)
    base = [sys.executable, "-m", "arena", "--bots-dir", str(folder)]
    run = ["season", "run", "vandtia", "--bots", "chatty,random", "--rounds", "12", "--seed",
           "5", "--batch", "8", "--workers", "2", "--public-seed", "--name", "s",
           "--limits", "log_kb=24"]
    for k in (1, 16):
        done = subprocess.run(base + ["--db", f"sqlite:///{tmp_path}/k{k}.db", *run,
                                      "--inflight", str(k)], capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0, done.stderr
    one, many = _matches(tmp_path / "k1.db"), _matches(tmp_path / "k16.db")
    assert any(m.get("logs") for m in one)  # every seat's output is kept, not only a fault's
    assert _faults_logs(one) == _faults_logs(many)
    faults = [f for m in one for f in m["result"]["faults"] if f]
    limit = "log limit: it wrote more than log_kb=24 KiB to its log in this match"
    assert faults.count(limit) >= 4 and set(faults) == {limit}, faults
    logs = [log for m in _faults_logs(one) for log in m.get("logs", {}).values()]
    assert len(logs) == len(faults) and {log[-2:] for log in logs} == {"x\n", "yy"}, logs

    path = tmp_path / "killed.db"
    _killed_and_resumed(base, run, path, len(one))
    assert _faults_logs(_matches(path)) == _faults_logs(one)


def _faults_logs(matches: list) -> list:
    """The matches with the logs of their faulty seats alone. What a seat wrote without a
    fault is kept too, but a process serving several matches at once cannot always tell
    whose it was (what a bot writes straight to its file descriptors, uncounted, shows
    with each match it was serving: docs/sandbox.md), so only a fault's log is the same
    whatever K."""
    out = []
    for m in matches:
        faulty = {str(seat) for seat, f in enumerate(m["result"]["faults"]) if f}
        out.append({**m, "logs": {k: v for k, v in m.get("logs", {}).items() if k in faulty}})
    return out


def test_bench_gives_its_rows_as_json_with_the_batched_ones():
    run = subprocess.run([sys.executable, "-m", "arena", "--bots-dir", str(ROOT / "examples"),
                          "bench", "--games", "8", "--inflight", "4", "--batch-bot",
                          "batchbot", "--format", "json"], capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stderr
    *rows, summary = [orjson.loads(line) for line in run.stdout.splitlines()]
    assert summary["label"] == "summary" and summary["side_by_side"] == 4  # the game's figures
    labels = [r["label"] for r in rows]
    assert "referee, in-process random policies" in labels
    assert "referee, sandboxed random bots, 4 matches side by side" in labels
    assert "batchbot in every seat, 64 matches side by side" in labels
    assert all(r["games_per_s"] > 0 and r["games"] > 0 for r in rows)
    batched = rows[labels.index("batchbot in every seat, 64 matches side by side")]
    assert batched["asked_per_s"] > 0 and batched["asked_per_game"] > 0


def test_the_process_with_most_matches_waiting_is_served_first_but_none_waits_for_ever():
    """``_next``: the largest batch first, so that the others grow meanwhile; but the
    process that has waited longest once it has waited two rounds for each one waiting."""
    from arena.sandbox.inflight import _next

    waiting = {1: (["m"], 10), 2: (["m", "m", "m"], 11), 3: (["m", "m"], 12)}
    assert _next(waiting, 12) == 2
    assert _next(waiting, 15) == 2
    assert _next(waiting, 16) == 1  # waited 6 rounds with 3 processes waiting
    # whatever the sizes, no process waits more than three rounds for each one waiting
    # (two, and then those overdue before it)
    waiting, served, rounds = {}, {}, 0
    for key in range(5):
        waiting[key] = (["m"] * (key + 1), 0)
    while rounds < 200:
        key = _next(waiting, rounds)
        lives, since = waiting.pop(key)
        assert rounds - since <= 3 * (len(waiting) + 1)
        served[key] = served.get(key, 0) + 1
        rounds += 1
        waiting[key] = (lives, rounds)  # its matches come back to it at once
    assert set(served) == set(range(5))
