"""Partners cannot see each other's hands, and no process sees a deal twice.

The bots are the real hostile ones of ``tests/hostile/collude.py``, run by real confined
worker processes exactly as a season runs them (``scheduler.play_batch``). Each test also
shows that what it guards against is real: the same bot does learn its partner's cards when
the two seats share one process, and every channel it tries does carry a hand between two
processes outside the sandbox."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cards import keyed_seed, new_secret
from arena.leagues.scheduler import Fixture, SeasonDef, fixtures, play_batch
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox.bot import PythonBot

HOSTILE = Path(__file__).parent / "hostile"
CLAIM = re.compile(r"LEAK via (\S+): seat (\d) holds (.*)")


def _collude():
    spec = importlib.util.spec_from_file_location("collude", HOSTILE / "collude.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def true_claims(game, variant, players, seed, actions, faults) -> list[str]:
    """The faults that are claims to know another seat's hand which the replayed match
    confirms: that seat held exactly those cards at some moment of the match."""
    confirmed = []
    for fault in faults:
        found = CLAIM.search(fault or "")
        if not found:
            continue
        seat, cards = int(found[2]), sorted(found[3].split())
        state = game.new_state(variant, players, seed)
        held = sorted(state.observation(seat)["hand"]) == cards
        for action in actions:
            state.apply(action)
            held = held or sorted(state.observation(seat)["hand"]) == cards
        if held:
            confirmed.append(fault)
    return confirmed


@pytest.mark.slow
def test_one_bot_in_both_seats_of_a_team_learns_no_card_of_its_partner():
    registry = Registry(bots_dirs=[HOSTILE])
    game = registry.game("tractor")
    defn = SeasonDef("s", "tractor", "deal", 4, ("colluder", "random"), 2, 1, teams=2)
    batch = list(fixtures(defn))
    assert [fx.seats for fx in batch[:2]] == [("colluder", "random") * 2,
                                             ("random", "colluder") * 2]
    results = play_batch("tractor", "deal", (str(HOSTILE),), "", batch, defn.secret)
    assert [r["result"]["faults"] for r in results] == [[None] * 4] * len(batch)
    assert all(r["result"]["reason"] != "forfeit" for r in results)

    # what this guards against: both seats in one process, and the colluder sees everything
    collude = _collude()
    collude.CHANNELS = {"memory": collude.CHANNELS["memory"]}  # nothing left on this machine
    one = PythonBot(collude.Colluder(), "colluder")
    seed = batch[0].seed
    match, _ = play_match(game, "deal", [one, _random(), one, _random()], seed)
    leak = next(f for f in match.result.faults if f)  # whichever partner asks first after
    assert leak.startswith("crash: RuntimeError: LEAK via memory: seat ")  # the other moved
    assert true_claims(game, "deal", 4, seed, match.actions, match.result.faults)


def _random():
    from arena_bots.randombot import RandomBot

    return PythonBot(RandomBot(), "random")


#: An executable colluder (``collude.py``'s channels, tried by a Python program run as an
#: executable: it gets an executable's seccomp filter): protocol 1, its claims sent as errors
EXEC_COLLUDER = r"""
import importlib.machinery, importlib.util, json, os, sys
loader = importlib.machinery.SourceFileLoader("collude", sys.argv[1])
collude = importlib.util.module_from_spec(importlib.util.spec_from_loader("collude", loader))
loader.exec_module(collude)
bot = collude.Colluder()
bot.tag = sys.argv[2]
out = os.fdopen(os.dup(1), "w")
sys.stdout = sys.stderr  # what it prints goes to its log
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        bot.start(msg)
        print(json.dumps({"type": "ready"}), file=out, flush=True)
    elif msg["type"] == "act":
        try:
            answer = {"type": "action", "action": bot.act(msg["observation"], msg["legal"])}
        except RuntimeError as e:
            answer = {"type": "error", "error": str(e)}
        print(json.dumps(answer), file=out, flush=True)
"""


@pytest.fixture(scope="module")
def executables(tmp_path_factory) -> Path:
    """A bots folder of executable colluders: ``xcolluder`` and ``xaccomplice`` (Tractor),
    ``xecho`` (Vändtia)."""
    folder = tmp_path_factory.mktemp("xbots")
    shutil.copy(HOSTILE / "collude.py", folder / "collude.src")  # no .py: not a bot file
    (folder / "xcollude.prog").write_text(EXEC_COLLUDER)
    for name, game, tag in (("xcolluder", "tractor", "collude"),
                            ("xaccomplice", "tractor", "collude"), ("xecho", "vandtia", "echo")):
        (folder / f"{name}.toml").write_text(
            f'name = "{name}"\ngames = ["{game}"]\n'
            f'command = ["{sys.executable}", "xcollude.prog", "collude.src", "{tag}"]\n')
    return folder


def _bots(kind: str, executables: Path) -> tuple[tuple, str]:
    """The bots folders and the name prefix of the colluders of ``kind``."""
    return ((str(HOSTILE),), "") if kind == "python" else ((str(executables),), "x")


@pytest.mark.slow
@pytest.mark.pagecache
@pytest.mark.parametrize("inflight", [1, 16])
@pytest.mark.parametrize("kind", ["python", "exec"])
def test_two_bots_in_mixed_teams_cannot_pass_cards_between_their_processes(kind, inflight,
                                                                            executables):
    folders, x = _bots(kind, executables)
    registry = Registry(bots_dirs=list(folders))
    game = registry.game("tractor")
    secret = new_secret()
    colluder, accomplice = x + "colluder", x + "accomplice"
    batch = [Fixture(i, 0, seats, keyed_seed(secret, "deal", 0, i))
             for i, seats in enumerate([(colluder, "random", accomplice, "random"),
                                        ("random", accomplice, "random", colluder)] * 2)]
    results = play_batch("tractor", "deal", folders, "", batch, secret, inflight=inflight)
    faults = [r["result"]["faults"] for r in results]
    assert faults == [[None] * 4] * len(batch), faults
    for r in results:
        assert not true_claims(game, "deal", 4, r["seed"], json.loads(r["replay"]),
                               r["result"]["faults"])


#: the channels through kernel state keyed on files every jail sees, each tried alone
FILE_KEYED = ["futex", "flock", "fcntl-lock", "ofd-lock", "nowait", "read-timing"]


@pytest.mark.slow
@pytest.mark.pagecache
@pytest.mark.parametrize("inflight", [1, 16])
@pytest.mark.parametrize("kind", ["python", "exec"])
@pytest.mark.parametrize("channel", FILE_KEYED)
def test_partners_and_duplicates_pass_nothing_through_files_every_jail_sees(channel, kind,
                                                                             inflight,
                                                                             executables):
    """Each channel alone, so that each is shown closed (with all of them, the first that
    carried a hand would hide the others): between Tractor partners in mixed teams, and
    between the processes of one bot playing a deal and its duplicate."""
    folders, x = _bots(kind, executables)
    registry = Registry(bots_dirs=list(folders))
    key = new_secret()
    colluder, accomplice = (f"{x}{name}:channel={channel}" for name in ("colluder",
                                                                         "accomplice"))
    partners = [Fixture(i, 0, seats, keyed_seed(key, "deal", 0, i))
                for i, seats in enumerate([(colluder, "random", accomplice, "random"),
                                           ("random", accomplice, "random", colluder)])]
    defn = SeasonDef("s", "vandtia", "cardems", 2, (f"{x}echo:channel={channel}", "random"),
                     2, 1)
    for game, variant, batch, secret in (("tractor", "deal", partners, key),
                                         ("vandtia", "cardems", list(fixtures(defn)),
                                          defn.secret)):
        results = play_batch(game, variant, folders, "", batch, secret, inflight=inflight)
        faults = [r["result"]["faults"] for r in results]
        assert all(f is None for fs in faults for f in fs), faults
        for r in results:
            assert not true_claims(registry.game(game), variant, len(r["seats"]), r["seed"],
                                   json.loads(r["replay"]), r["result"]["faults"])


#: each channel the colluders try, outside the sandbox: the reader opens its end and says
#: "ready", the writer (another process) publishes a hand, the reader reads it
READER = """
import sys
sys.path.insert(0, {folder!r})
import collude
{prelude}
collude.prepare({channel!r}, "unconfined", 2)  # opens (binds, creates, maps) its end
print("ready", flush=True)
sys.stdin.readline()
import time  # the futex channel's frames repeat: a read that missed one on a busy machine
got = collude.fetch({channel!r}, "unconfined", 2)  # reads again (a page-cache channel's
deadline = time.monotonic() + 40  # first read spends its signal: it is read once)
while got is None and {channel!r} == "futex" and time.monotonic() < deadline:
    got = collude.fetch({channel!r}, "unconfined", 2)
print(got.decode(), flush=True)
"""
WRITER = """
import sys
sys.path.insert(0, {folder!r})
import collude
{prelude}
collude.publish({channel!r}, "unconfined", 2, {hand!r})
print("published", flush=True)
sys.stdin.readline()  # what it holds (locks, a waiting thread) it holds until read
"""
HAND = b'{"seat": 2, "hand": ["10H", "QS"]}'


#: the io_uring channel's processes refuse themselves ``socket`` first, as a seccomp
#: deny-list did: their sockets are made all the same
NO_SOCKET = """
import pyseccomp
f = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
f.add_rule(pyseccomp.ERRNO(1), "socket")
f.load()
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    raise SystemExit("socket() was not refused")
except PermissionError:
    pass
"""


@pytest.fixture
def cold_pages():
    """The page-cache channels' files out of memory, as files of the system may be; read
    in again after the test (other tests' jails would find them cold)."""
    collude = _collude()
    collude.evict(collude.page_files())
    yield collude.page_files()
    collude.read_in(collude.page_files())


@pytest.mark.pagecache
@pytest.mark.parametrize("channel", ["sysv-shm", "sysv-msg", "sysv-sem", "posix-mq",
                                     "posix-shm", "tmp-file", "abstract-socket", "inotify",
                                     "io_uring-udp", "futex", "flock", "fcntl-lock",
                                     "ofd-lock", "nowait", "read-timing"])
def test_every_channel_the_colluders_try_is_real_outside_the_sandbox(channel, request):
    """Each channel, tried by two plain processes, passes the hand: the attack is real. A
    page-cache one (nowait, read-timing) may read a page wrong on a busy machine - which
    also puts pages out of memory by itself - and its read spends its signal: it is tried
    afresh, the pages put out of memory again, up to three times, as an attacker would."""
    timed = channel in ("nowait", "read-timing")
    if channel in ("nowait", "read-timing"):
        request.getfixturevalue("cold_pages")
    args = {"folder": str(HOSTILE), "channel": channel, "hand": HAND,
            "prelude": NO_SOCKET if channel == "io_uring-udp" else ""}
    for attempt in range(3 if timed else 1):
        if attempt:
            collude = _collude()
            collude.evict(collude.page_files())
        reader = subprocess.Popen([sys.executable, "-c", READER.format(**args)], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        writer = None
        try:
            assert reader.stdout.readline() == "ready\n"
            writer = subprocess.Popen([sys.executable, "-c", WRITER.format(**args)],
                                      text=True, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE)
            assert writer.stdout.readline() == "published\n"
            out, err = reader.communicate("go\n", timeout=60)
            writer.communicate("done\n", timeout=60)
            assert writer.returncode == 0
            if out.encode() == HAND + b"\n":
                break
        finally:
            reader.kill()
            if writer is not None:
                writer.kill()
            _collude().cleanup(channel, "unconfined", 2)
    assert out.encode() == HAND + b"\n", err


def test_no_process_plays_the_duplicate_of_a_deal_it_has_played():
    registry = Registry(bots_dirs=[HOSTILE])
    game = registry.game("vandtia")
    defn = SeasonDef("s", "vandtia", "cardems", 2, ("rememberer", "random"), 3, 1)
    batch = list(fixtures(defn))
    results = play_batch("vandtia", "cardems", (str(HOSTILE),), "", batch, defn.secret)
    assert [r["result"]["faults"] for r in results] == [[None, None]] * len(batch)

    # what this guards against: one process for both halves of a duplicate pair
    collude = _collude()
    first, second = batch[0], batch[1]
    assert first.seed == second.seed and first.seats[::-1] == second.seats
    play_match(game, "cardems", [PythonBot(collude.Rememberer()), _random()],
               first.seed)
    match, _ = play_match(game, "cardems", [_random(),
                                            PythonBot(collude.Rememberer())], first.seed)
    assert true_claims(game, "cardems", 2, first.seed, match.actions, match.result.faults)


@pytest.mark.slow
@pytest.mark.pagecache
@pytest.mark.parametrize("inflight", [1, 16])
@pytest.mark.parametrize("kind", ["python", "exec"])
def test_the_processes_of_one_bot_pass_nothing_between_a_deal_and_its_duplicate(kind,
                                                                                 inflight,
                                                                                 executables):
    folders, x = _bots(kind, executables)
    registry = Registry(bots_dirs=list(folders))
    game = registry.game("vandtia")
    defn = SeasonDef("s", "vandtia", "cardems", 2, (x + "echo", "random"), 3, 1)
    batch = list(fixtures(defn))
    results = play_batch("vandtia", "cardems", folders, "", batch, defn.secret,
                         inflight=inflight)
    faults = [r["result"]["faults"] for r in results]
    assert faults == [[None, None]] * len(batch), faults
    for r in results:
        assert not true_claims(game, "cardems", 2, r["seed"], json.loads(r["replay"]),
                               r["result"]["faults"])


#: a runner of its own: a batch of the mixed-teams colluders, its results as JSON
RUNNER = """
import json, os, sys
from arena.cards import keyed_seed
from arena.leagues.scheduler import Fixture, play_batch
from arena.sandbox import view
secret, folder, inflight = sys.argv[1], sys.argv[2], int(sys.argv[3])
read_in, plain = {}, view._read_in

def spy(fd, size):  # each file the runner reads in, and whether all of it is in memory then
    got = plain(fd, size)  # (0 bytes read when it already was: recorded all the same)
    read_in[os.readlink(f"/proc/self/fd/{fd}")] = view.resident(fd, size)
    return got

view._read_in = spy
batch = [Fixture(i, 0, seats, keyed_seed(secret, "deal", 0, i))
         for i, seats in enumerate([("colluder", "random", "accomplice", "random"),
                                    ("random", "accomplice", "random", "colluder")] * 2)]
print(json.dumps({"results": play_batch("tractor", "deal", (folder,), "", batch, secret,
                                        inflight=inflight), "read_in": read_in}))
"""


@pytest.mark.slow
@pytest.mark.pagecache
@pytest.mark.parametrize("inflight", [1, 16])
def test_files_out_of_memory_are_read_in_before_a_bot_starts(cold_pages, inflight):
    """The page-cache channels' files are out of memory when a runner starts: it reads them
    in (with everything else a jail sees) before any bot starts, so the colluders' reads
    and timings of them tell nothing."""
    from arena.sandbox import view

    collude = _collude()
    fd = os.open(cold_pages[0], os.O_RDONLY)
    try:
        assert not view.resident(fd, os.fstat(fd).st_size)  # out of memory now
    finally:
        os.close(fd)
    secret = new_secret()
    run = subprocess.run([sys.executable, "-c", RUNNER, secret, str(HOSTILE), str(inflight)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    results = out["results"]
    game = Registry().game("tractor")
    assert [r["result"]["faults"] for r in results] == [[None] * 4] * len(results)
    for r in results:
        assert not true_claims(game, "deal", 4, r["seed"], json.loads(r["replay"]),
                               r["result"]["faults"])
    # the runner read each in, whole, before its first bot started (checked right then: the
    # machine may put a page out of memory again later, as docs/sandbox.md says)
    for path in collude.page_files():
        assert out["read_in"].get(os.path.realpath(path)) is True, path


@pytest.mark.slow
def test_the_reported_season_stores_no_leak(tmp_path):
    """The report, as it was run: ``season run tractor --variant deal --bots colluder,random``."""
    url = f"sqlite:///{tmp_path}/arena.db"
    base = [sys.executable, "-m", "arena", "--db", url, "--bots-dir", str(HOSTILE)]
    run = subprocess.run(base + ["season", "run", "tractor", "--variant", "deal", "--bots",
                                 "colluder,random", "--rounds", "3", "--seed", "1", "--name",
                                 "s"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    export = subprocess.run(base + ["season", "export", "s"], capture_output=True, text=True,
                            timeout=600, check=True).stdout
    matches = [line for line in map(json.loads, export.splitlines()) if line["type"] == "match"]
    assert len(matches) == 6
    assert all(m["result"]["faults"] == [None] * 4 for m in matches), matches


@pytest.mark.parametrize("game_name, variant, players, bots, teams, per_bot", [
    ("vandtia", "cardems", 2, ("random", "first"), 0, 2),
    ("tractor", "deal", 4, ("random", "first"), 2, 4),
    ("cherki", "standard", 3, ("random", "first", "greedy"), 0, 6),
])
def test_a_bot_has_a_process_for_each_seat_it_plays_of_one_deal(monkeypatch, game_name,
                                                                 variant, players, bots,
                                                                 teams, per_bot):
    import arena.leagues.scheduler as scheduler

    played = []  # (deal seed, the seats' bot objects) of every match of the batch

    def watched(game, variant, seats, seed, *args, **kwargs):
        played.append((seed, list(seats)))
        return play_match(game, variant, seats, seed, *args, **kwargs)

    monkeypatch.setattr(scheduler, "play_match", watched)
    game = Registry().game(game_name)
    defn = SeasonDef("s", game_name, game.check(variant, players), players, bots, 3, 1,
                     teams=teams, every_seating=game.seatings == "all")
    batch = list(fixtures(defn))
    scheduler.play_batch(game_name, defn.variant, (), "", batch, defn.secret)
    assert len(played) == len(batch)
    seen: dict[int, list[int]] = {}
    for (seed, seats), fx in zip(played, batch, strict=True):
        assert seed == fx.seed
        assert len({id(b) for b in seats}) == players  # every seat its own process
        for bot in seats:
            assert seed not in seen.get(id(bot), []), "a process saw a deal twice"
            seen.setdefault(id(bot), []).append(seed)
    names = {id(b): b.name for _, seats in played for b in seats}
    assert sorted(names.values()) == sorted(b for b in bots for _ in range(per_bot))
