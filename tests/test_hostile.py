"""The hostile gallery: each attack of the red team's report on the trust line, as a hostile
bot (``tests/hostile/attacks.py``; the partner channels of ``collude.py`` are in
``test_collusion.py``) or a hostile drop, contained - each beside a control showing that the
attack is real on this machine where the defence is not there (the same attack unconfined,
or the path a write by name would have taken)."""

import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from conftest import bot_file

from arena import db
from arena.errors import ArenaError
from arena.games.vandtia import GAME
from arena.leagues.inbox import Inbox
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox import Limits, exec_spec, jail
from arena.sandbox.bot import make_bot

HOSTILE = Path(__file__).parent / "hostile"
ATTACKS = HOSTILE / "attacks.py"
TIGHT = Limits(move_s=5, bank_s=5, start_s=20, memory_mb=512)
ROOT = os.geteuid() == 0
root_only = pytest.mark.skipif(not ROOT, reason="the control needs root (the runner as root "
                               "is what the attack abused)")


@pytest.fixture
def database(tmp_path):
    """A real arena database with a season's secret in it; its bytes and its metadata
    (mode, owner, times, attributes, flags) must not change whatever a bot does."""
    path = tmp_path / "arena.db"
    db.connect(f"sqlite:///{path}").dispose()
    before = _fingerprint(path)
    yield path
    assert _fingerprint(path) == before, "the database changed"


def _fingerprint(path: Path):
    st = os.lstat(path)
    return (hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode, st.st_uid, st.st_gid,
            st.st_mtime_ns, sorted(os.listxattr(path)))


def against_random(folder: Path, entrant: str, limits: Limits = TIGHT) -> tuple[list, str]:
    """A match of bot ``entrant`` of bots folder ``folder`` against random: its faults and
    the bot's log."""
    registry = Registry(bots_dirs=[folder])
    bots = [make_bot(registry.bot(entrant, "vandtia"), limits),
            make_bot(registry.bot("random", "vandtia"), limits)]
    try:
        match, _ = play_match(GAME, "cardems", bots, 1)
        log = bots[0].log_tail()
    finally:
        for b in bots:
            b.close()
    return match.result.faults, log


def thief(attack: str, limits: Limits = TIGHT, **options) -> tuple[list, str]:
    """A match of ``thief`` (making ``attack``) against random: its faults and its log."""
    entrant = "thief:" + ",".join(f"{k}={v}" for k, v in {"attack": attack, **options}.items())
    return against_random(HOSTILE, entrant, limits)


def contained(attack: str, **options) -> str:
    """Run the attack in the sandbox: it must be refused (the bot plays on); its log."""
    faults, log = thief(attack, **options)
    assert faults == [None, None], (faults, log)
    assert f"refused: {attack}:" in log, log
    return log


def unconfined(attack: str, **options) -> str:
    """The same attack in a plain process: its evidence (it worked)."""
    run = subprocess.run([sys.executable, str(ATTACKS), attack,
                          *(f"{k}={v}" for k, v in options.items())],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


# -- files and processes a bot must not reach ----------------------------------------------------


def test_a_bot_cannot_read_the_database(tmp_path, database):
    log = contained("read-file", target=database)
    assert "FileNotFoundError" in log  # not in its world at all
    assert unconfined("read-file", target=database).startswith(b"SQLite format 3".hex())


def test_a_bot_cannot_read_the_runners_command_line(tmp_path):
    log = contained("runner-proc", pid=os.getpid())
    assert "FileNotFoundError" in log  # its /proc shows its init and itself
    own = Path("/proc/self/cmdline").read_bytes().split(b"\0")[0].decode()
    assert own in unconfined("runner-proc", pid=os.getpid())  # the runner's own command line


def test_a_bot_cannot_read_etc_shadow():
    contained("shadow")
    if ROOT:  # control: the runner's user can
        assert unconfined("shadow") == "root"


def test_a_bot_is_never_root():
    log = contained("root")
    uid = int(re.search(r"uid (\d+)", log)[1])
    assert uid != 0 and uid != os.getuid() if ROOT else uid == os.getuid()
    if ROOT:
        assert unconfined("root") == "uid 0"


@pytest.mark.parametrize("attack", ["chmod", "chown", "utime", "xattr", "immutable"])
def test_metadata_calls_on_the_database_are_refused(tmp_path, database, attack):
    contained(attack, target=database)
    if ROOT or attack in ("chmod", "utime", "xattr"):  # control: on a copy, unconfined
        copy = tmp_path / "copy.db"
        shutil.copy(database, copy)
        try:
            assert unconfined(attack, target=copy)
        finally:
            subprocess.run(["chattr", "-i", str(copy)], capture_output=True)
            os.chmod(copy, 0o600)


@pytest.mark.parametrize("attack", ["chmod", "utime", "xattr", "immutable"])
def test_metadata_calls_on_its_own_files_are_refused_too(attack):
    """The files it can see (its own source, bound read-only) it cannot change either."""
    contained(attack, target=ATTACKS)


@pytest.mark.parametrize("attack", ["fanotify", "inotify", "io_uring", "realtime", "nice"])
def test_kernel_channels_and_priorities_are_refused(tmp_path, attack):
    contained(attack, target=str(tmp_path))
    if ROOT or attack in ("inotify", "io_uring"):
        assert unconfined(attack, target=str(tmp_path))


def _record() -> str:
    """A file every jail sees and no program reads (pip's list of an installed package's
    files), owned by whoever installed the environment (this test's user)."""
    from importlib import metadata

    return str(metadata.distribution("pluggy").locate_file(
        next(f for f in metadata.distribution("pluggy").files if f.name == "RECORD")))


RECORD = _record()


def _access_time_long_past() -> None:
    """The file's access time set before its change time: under ``relatime`` its next read
    updates it."""
    os.utime(RECORD, ns=(0, os.stat(RECORD).st_mtime_ns))


def test_a_bots_read_changes_no_access_time_another_jail_could_see():
    """In a jail, a file is read through a read-only bind, which never updates an access
    time; without a jail (``test_without_namespaces_...``), through the machine's own mount,
    after the runner has spent the update."""
    _access_time_long_past()
    run = subprocess.run([sys.executable, "-m", "arena", "--bots-dir", str(HOSTILE), "play",
                          "vandtia", f"thief:attack=atime,target={RECORD}", "random",
                          "--seed", "1", "--json"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"]["faults"] == [None, None], run.stdout
    _access_time_long_past()  # control: a plain process's read updates it
    with open(RECORD, "rb") as f:
        f.read(1)
    # whoever read it (this process or another test's runner warming its files), a read
    # through the machine's own mount moved it
    assert os.stat(RECORD).st_atime_ns != 0


EXEC_THIEF = """
import json, runpy, sys
attacks = runpy.run_path(sys.argv[1])["ATTACKS"]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        got = []
        for name in ("inotify", "io_uring", "fanotify", "realtime", "nice", "root"):
            try:
                got.append(f"{name}: {attacks[name]({'target': '/usr'})}")
            except OSError as e:
                print(f"refused: {name}: {e}", file=sys.stderr, flush=True)
        answer = "GOT " + "; ".join(got) if got else msg["legal"][0]
        print(json.dumps({"type": "action", "action": answer}), flush=True)
"""


def test_an_executable_bot_is_refused_the_same_kernel_channels(tmp_path):
    """An executable's filter is a deny-list (other languages make calls a Python bot
    never does); what reaches past the walls is on it all the same."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(ATTACKS, folder / "attacks.src")  # no .py: a bots folder lists only those
    (folder / "thief.prog").write_text(EXEC_THIEF)
    (folder / "xthief.toml").write_text(
        f'name = "xthief"\ngames = ["vandtia"]\n'
        f'command = ["{sys.executable}", "thief.prog", "attacks.src"]\n')
    faults, log = against_random(folder, "xthief")
    assert faults == [None, None], (faults, log)
    for name in ("inotify", "io_uring", "fanotify", "realtime", "nice", "root"):
        assert f"refused: {name}" in log, log


#: An executable answering its first ``act`` with JSON nested 1,020 levels deep (orjson reads
#: up to 1,024; ``json`` and ``repr`` give up near 1,000): as its action, as its error, or in
#: an answer of the wrong type.
DEEP = r"""
import json, sys
deep = "[" * 1020 + "]" * 1020
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        print({"action": '{"type":"action","action":%s}',
               "error": '{"type":"error","error":%s}',
               "type": '{"type":"nonsense","what":%s}'}[sys.argv[1]] % deep, flush=True)
"""


@pytest.mark.parametrize("where, fault", [("action", "illegal action: [[[[[[[...]]]]]]]"),
                                          ("error", "[[[[[[[...]]]]]]]"),
                                          ("type", "protocol error: expected 'action'")])
def test_an_answer_nesting_1020_levels_costs_the_bot_its_match_not_the_runner(tmp_path, where,
                                                                               fault):
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "deep.prog").write_text(DEEP)
    (folder / "deep.toml").write_text(f'name = "deep"\ngames = ["vandtia"]\n'
                                      f'command = ["{sys.executable}", "deep.prog", "{where}"]\n')
    faults, _ = against_random(folder, "deep")
    assert faults[1] is None and faults[0].startswith(fault), faults


# -- manifests name no paths ---------------------------------------------------------------------

SLASH = '''
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        options = msg.get("options", {})
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        got = []
        for path in (options["target"], f"/proc/{options['pid']}/cmdline", sys.argv[1]):
            try:
                size = len(os.listdir(path)) if os.path.isdir(path) else len(
                    open(path, "rb").read())
                got.append(f"{path}: {size}")
            except OSError as e:
                print(f"refused: {path}: {e}", file=sys.stderr, flush=True)
        answer = "GOT " + "; ".join(got) if got[:2] else msg["legal"][0]
        print(json.dumps({"type": "action", "action": answer}), flush=True)
'''


def test_a_manifest_naming_slash_makes_nothing_readable(tmp_path, database):
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "slash.prog").write_text(textwrap.dedent(SLASH))  # not a .py: not listed
    (folder / "slash.toml").write_text(f'name = "slash"\ngames = ["vandtia"]\n'
                                       f'command = ["{sys.executable}", "slash.prog", "/"]\n')
    spec = exec_spec(folder / "slash.toml", {"command": [sys.executable, "slash.prog", "/"]})
    assert "/" not in spec["read"] and spec["target"][-1] == "/"  # text passed on, not a path
    faults, log = against_random(folder, f"slash:target={database},pid={os.getpid()}")
    assert faults == [None, None], (faults, log)
    assert f"refused: {database}" in log and "cmdline" in log
    # control: the same program, unconfined, reads them all
    run = subprocess.run([sys.executable, str(folder / "slash.prog"), "/"], text=True,
                         input=json.dumps({"type": "start", "options": {
                             "target": str(database), "pid": os.getpid()}}) + "\n"
                         + json.dumps({"type": "act", "legal": ["x"]}) + "\n",
                         capture_output=True, timeout=60)
    assert '"action": "GOT ' in run.stdout


def test_a_huge_file_a_manifest_names_is_hashed_once_and_never_read_whole(tmp_path,
                                                                        monkeypatch):
    import arena.sandbox.files as files
    from arena.plugins import _manifest

    folder = tmp_path / "bots"
    folder.mkdir()
    big = folder / "weights.bin"
    with open(big, "wb") as f:
        f.truncate(256 * 1024 * 1024)  # sparse: costs no disk
    outside = tmp_path / "outside.bin"
    with open(outside, "wb") as f:
        f.truncate(1024 * 1024 * 1024)
    manifest = folder / "big.toml"
    manifest.write_text(f'name = "big"\ngames = ["vandtia"]\n'
                        f'command = ["awk", "-f", "weights.bin", "{outside}"]\n')
    reads = []
    real = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: reads.append(n) or real(fd, n))
    first = _manifest(manifest)
    assert reads and max(reads) <= files.CHUNK  # in chunks, never whole
    assert sum(reads) < 300 * 1024 * 1024  # the file outside its folder is not read at all
    reads.clear()
    assert _manifest(manifest)[3] == first[3] and not reads  # unchanged: not read again


def test_a_bot_cannot_take_back_what_it_wrote_to_its_log(tmp_path):
    """Its stdout and stderr are a pipe the runner reads: no seek, no write over an earlier
    line, no truncation; what it said first is in its log."""
    log = contained("rewrite-log")
    assert "EARLIER-TEXT: what the bot said first" in log
    assert "lseek ESPIPE" in log and "pwrite ESPIPE" in log and "ftruncate EINVAL" in log
    # control: with its log a file it holds open for writing, as it once was, it rewrites it
    path = tmp_path / "bot.log"
    with open(path, "wb") as stderr:
        run = subprocess.run([sys.executable, str(ATTACKS), "rewrite-log"], stdout=subprocess.PIPE,
                             stderr=stderr, text=True, timeout=120)
    assert run.returncode == 0 and "rewrote its log: lseek, pwrite, ftruncate" in run.stdout
    assert path.read_bytes() == b""


# -- the runner survives every bot ---------------------------------------------------------------


def _season(tmp_path, bot: str, rounds: int = 4, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena", "--bots-dir", str(HOSTILE), "--db",
         f"sqlite:///{tmp_path}/s.db", "season", "run", "vandtia", "--bots",
         f"{bot},random,greedy", "--rounds", str(rounds), "--seed", "3", "--workers", "2",
         "--batch", "2", "--name", "s", "--suspend-after", "0"],
        capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})


def _stored(folder) -> tuple[int, int]:
    engine = db.connect(f"sqlite:///{folder}/s.db", create=False)
    row, stored = next(iter(db.list_seasons(engine)))
    return stored, row.fixtures


def test_a_thread_bomb_stops_at_its_limit_and_the_season_ends(tmp_path):
    run = _season(tmp_path, "thief:attack=threads,limit=64")
    assert run.returncode == 0, run.stderr
    assert _stored(tmp_path) == (24, 24)
    engine = db.connect(f"sqlite:///{tmp_path}/s.db", create=False)
    assert not [f for f in _faults(engine) if f and "GOT" in f]  # never more than its limit
    # control: unconfined, the same code starts more threads than that
    assert unconfined("threads", cap=300, limit=64) == "300 threads"


def _faults(engine) -> list:
    from sqlmodel import Session, select

    with Session(engine) as session:
        return [r.fault for r in session.exec(select(db.SeatRow))]


def test_filling_its_folder_stops_at_its_size_and_leaves_nothing(tmp_path):
    before = set(os.listdir(tempfile.gettempdir()))
    run = _season(tmp_path, "thief:attack=fill-disk,limit=32")
    assert run.returncode == 0, run.stderr
    assert _stored(tmp_path) == (24, 24)
    engine = db.connect(f"sqlite:///{tmp_path}/s.db", create=False)
    assert not [f for f in _faults(engine) if f and "GOT" in f]
    left = {n for n in set(os.listdir(tempfile.gettempdir())) - before
            if n.startswith("arena-bot")}
    assert not left, left
    # control: unconfined, it writes past that size
    with tempfile.TemporaryDirectory() as scratch:
        assert unconfined("fill-disk", cap=40, limit=32, folder=scratch) == "40 MiB"


@pytest.mark.serial
def test_nothing_of_a_bot_is_left_when_the_runner_is_killed(tmp_path):
    before = set(os.listdir(tempfile.gettempdir()))
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "--bots-dir", str(HOSTILE), "--db",
         f"sqlite:///{tmp_path}/s.db", "season", "run", "vandtia", "--bots",
         "thief:attack=fill-disk,limit=32,cap=8,random", "--rounds", "40", "--seed", "3",
         "--workers", "1", "--name", "s"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    path = tmp_path / "s.db"
    while proc.poll() is None:  # once a batch is stored, bots are running: kill everything
        if path.exists():
            try:
                if _stored(tmp_path)[0]:
                    break
            except Exception:  # noqa: BLE001 - the file is being made
                continue
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    left = {n for n in set(os.listdir(tempfile.gettempdir())) - before
            if n.startswith("arena-bot")}
    assert not left, left


# -- drops: the inbox, folders, wheels -----------------------------------------------------------

from arena.leagues import store  # noqa: E402


@pytest.fixture
def league(tmp_path):
    """A database with a season's secret, its bot store, and a submit function."""
    engine = db.connect(f"sqlite:///{tmp_path}/a.db")
    folder = tmp_path / "bots"
    folder.mkdir()
    registry = Registry()
    registry.db_url = f"sqlite:///{tmp_path}/a.db"

    def submit(path, key=None, author="ada"):
        registry._bots, registry.latest, registry.broken = None, {}, {}
        return store.submit(engine, registry, folder, path, author=author, matches=1,
                            key=key)

    return engine, folder, submit, tmp_path / "a.db"


def _take(inbox: Path, submit) -> list[str]:
    lines: list[str] = []
    box = Inbox(inbox, lines.append)
    try:
        box.take(submit)
    finally:
        box.close()
    return lines


def test_a_link_named_refused_leads_no_write_outside_the_inbox(tmp_path, league):
    _, _, submit, _ = league
    inbox, site = tmp_path / "inbox", tmp_path / "site-packages"
    inbox.mkdir(), site.mkdir()
    (inbox / "refused").symlink_to(site)
    (inbox / "x.pth").write_text("import os; os.system('touch /tmp/owned')\n")
    # control: a write by name goes through the link into site-packages
    assert os.path.realpath(inbox / "refused" / "x.pth") == str(site / "x.pth")
    lines = _take(inbox, submit)
    assert list(site.iterdir()) == []  # nothing written there
    assert (inbox / "refused").is_dir() and not (inbox / "refused").is_symlink()
    assert (inbox / "refused" / "x.pth").is_file()
    assert "submit a bot file" in (inbox / "refused" / "x.pth.reason.txt").read_text()
    assert (inbox / "refused.set-aside").is_symlink()  # the link, set aside
    assert any("set aside" in line for line in lines)


def test_a_link_named_accepted_cannot_replace_a_stored_version(tmp_path, league):
    engine, folder, submit, _ = league
    (tmp_path / "victim.py").write_text(bot_file("victim"))
    kept = submit(tmp_path / "victim.py").row
    version = folder / kept.path
    before = store.content_hash(version)
    assert all(not os.access(p, os.W_OK) or ROOT for p in version.iterdir())
    assert stat.S_IMODE(os.stat(version / "victim.py").st_mode) == 0o444  # read-only
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "accepted").symlink_to(version)
    (inbox / "victim.py").write_text(bot_file("mallory"))
    _take(inbox, submit)
    assert store.content_hash(version) == before
    assert (version / "victim.py").read_text() == bot_file("victim")
    assert (inbox / "accepted" / "victim.py").read_text() == bot_file("mallory")


def test_fifos_links_and_broken_wheels_are_refused_and_the_watcher_goes_on(tmp_path, league):
    import threading

    _, _, submit, _ = league
    inbox, elsewhere = tmp_path / "inbox", tmp_path / "elsewhere"
    inbox.mkdir(), elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    os.mkfifo(inbox / "a-fifo.py")
    (inbox / "b-link.py").symlink_to(elsewhere / "keep.txt")
    wheel = inbox / "c_clash-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("c_clash-1.0.dist-info/METADATA", "Name: c_clash\n")
        z.writestr("pkg", "a file")
        z.writestr("pkg/mod.py", "and a folder")
    (inbox / "refused").mkdir()
    (inbox / "refused" / "d-good.py").symlink_to(elsewhere)  # where the next would go
    (inbox / "d-good.py").write_text(bot_file("dgood"))
    done = threading.Event()
    lines: list = []
    worker = threading.Thread(target=lambda: (lines.extend(_take(inbox, submit)),
                                              done.set()), daemon=True)
    worker.start()
    worker.join(600)  # a FIFO opened for reading would block here forever
    assert done.is_set(), "the watcher hung on a drop"
    refused = inbox / "refused"
    assert "a FIFO" in (refused / "a-fifo.py.reason.txt").read_text()
    assert "a symbolic link" in (refused / "b-link.py.reason.txt").read_text()
    assert "both a file and a folder" in (refused / f"{wheel.name}.reason.txt").read_text()
    assert (inbox / "accepted" / "d-good.py").is_file()
    assert (refused / "d-good.py").is_symlink() and list(elsewhere.iterdir()) == [
        elsewhere / "keep.txt"]  # the link there was left alone, nothing went through it
    assert not [n for n in os.listdir(inbox) if n.endswith(".py")]  # every drop moved on


def test_a_folder_of_links_is_refused_and_its_reason_holds_no_content(tmp_path, league):
    engine, folder, submit, database = league
    from sqlmodel import Session

    with Session(engine) as session:  # a secret worth stealing
        session.add(db.SeasonRow(name="s", game="vandtia", variant="cardems", players=2,
                                 bots="[]", rounds=1, seed=1, fixtures=1,
                                 secret="SECRET-0123456789abcdef", options="{}"))
        session.commit()
    drop = tmp_path / "loot"
    drop.mkdir()
    (drop / "loot.py").write_text(bot_file("loot"))
    (drop / "loot.db").symlink_to(database)
    (drop / "others").symlink_to(folder)
    # control: whatever opens the folder's files by name opens the database
    import sqlite3

    with sqlite3.connect(drop / "loot.db") as conn:
        assert conn.execute("SELECT secret FROM seasons").fetchone()[0].startswith("SECRET")
    with pytest.raises(ArenaError) as refused:
        submit(drop)
    assert "loot.db is a symbolic link" in str(refused.value)
    assert "SECRET" not in str(refused.value)
    assert [p.name for p in folder.iterdir()] == [".staging"]
    assert not list((folder / ".staging").iterdir())


def test_a_folder_linking_to_itself_is_refused_at_once(tmp_path, league):
    _, _, submit, _ = league
    drop = tmp_path / "loop"
    drop.mkdir()
    (drop / "loop.py").write_text(bot_file("loop"))
    (drop / "a").symlink_to(".")
    (drop / "b").symlink_to(".")
    # control: followed, the folder never ends
    seen = 0
    for _ in os.walk(drop, followlinks=True):
        seen += 1
        if seen > 1000:
            break
    assert seen > 1000
    with pytest.raises(ArenaError, match="a symbolic link"):
        submit(drop)


def test_a_hard_link_to_the_database_is_refused(tmp_path, league):
    _, _, submit, database = league
    drop = tmp_path / "hard"
    drop.mkdir()
    (drop / "hard.py").write_text(bot_file("hard"))
    os.link(database, drop / "data.bin")
    assert (drop / "data.bin").read_bytes() == database.read_bytes()  # control: the same file
    with pytest.raises(ArenaError, match="is a hard link"):
        submit(drop)


def test_a_wheel_bomb_is_refused_before_it_is_unpacked(tmp_path, league):
    _, folder, submit, _ = league
    wheel = tmp_path / "bomb-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bomb-1.0.dist-info/METADATA", "Name: bomb\n")
        z.writestr("bomb.py", bot_file("bomb"))
        z.writestr("data.bin", b"\0" * (80 * 1024 * 1024))
    assert wheel.stat().st_size < 200 * 1024  # control: small, yet 80 MiB unpacked
    with pytest.raises(ArenaError, match="unpacks to more than"):
        submit(wheel)
    assert not list((folder / ".staging").iterdir())


def test_a_broken_wheel_is_one_line_not_a_traceback(tmp_path):
    wheel = tmp_path / "clash-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("clash-1.0.dist-info/METADATA", "Name: clash\n")
        z.writestr("pkg", "a file")
        z.writestr("pkg/mod.py", "and a folder")
    with pytest.raises(NotADirectoryError):  # control: unzipped as zips usually are
        zipfile.ZipFile(wheel).extractall(tmp_path / "naive")
    run = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path}/a.db",
                          "submit", str(wheel)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "both a file and a folder" in run.stderr and "Traceback" not in run.stderr


PEEK = """
import arena

def _can_read(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return "y"
    except OSError:
        return "n"

SEEN = _can_read({database!r}) + _can_read({sibling!r})

class Bot:
    def act(self, observation, legal):
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register("peek-" + SEEN, Bot, games=["vandtia"])
"""


def test_a_bots_folder_is_listed_a_file_at_a_time_and_no_link_leads_out(tmp_path, database):
    """A link in the bots folder to the database is not listed (nor bound in any jail), and
    each file is listed by a worker that can read that file alone: its top level, run
    there, reads neither the database nor the folder's other files."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "secret.py").symlink_to(database)
    (folder / "other.py").write_text(bot_file("other"))
    text = PEEK.format(database=str(folder / "secret.py"), sibling=str(folder / "other.py"))
    (folder / "peek.py").write_text(text)
    registry = Registry(bots_dirs=[folder], entry_points=False)
    assert sorted(registry.bots()) == ["other", "peek-nn"]
    assert registry.broken[str(folder / "secret.py")] == (
        f"{folder / 'secret.py'}: a link out of the bots folder: not listed (copy the file in "
        "instead)")
    # control: the same top level, run in a plain process, reads both
    run = subprocess.run([sys.executable, "-c", text.replace("import arena", "import arena\n"
                          "arena.hookimpl = lambda f: f") + "\nprint(SEEN)"],
                         capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "yy", run.stderr


# -- names and authors ---------------------------------------------------------------------------


def test_a_name_with_a_newline_is_refused(tmp_path, league):
    import re as regex

    _, _, submit, _ = league
    assert regex.compile(r"^[a-z0-9][a-z0-9_.-]*$").match("greedy\n")  # control: `$` let it by
    (tmp_path / "nl.py").write_text(bot_file("greedy\n"))
    with pytest.raises(ArenaError, match="no bot is registered|bad bot name"):
        submit(tmp_path / "nl.py")


@pytest.mark.parametrize("name", ["gr3edy", "greedy_", "gr-eedy", "rand0m", "lsmcts"])
def test_a_look_alike_of_a_known_name_is_refused(tmp_path, league, name):
    _, _, submit, _ = league
    (tmp_path / "alike.py").write_text(bot_file(name))
    with pytest.raises(ArenaError, match="looks like"):
        submit(tmp_path / "alike.py")


def test_a_new_version_needs_the_key_made_at_the_first(tmp_path, league):
    engine, _, submit, _ = league
    (tmp_path / "mine.py").write_text(bot_file("mine"))
    first = submit(tmp_path / "mine.py", author="ada")
    assert first.new and first.key and first.row.author == "ada"
    (tmp_path / "mine.py").write_text(bot_file("mine") + "# v2\n")
    with pytest.raises(ArenaError, match="belongs to ada; a new version needs its key"):
        submit(tmp_path / "mine.py", author="ada")  # the name alone proves nothing
    with pytest.raises(ArenaError, match="needs its key"):
        submit(tmp_path / "mine.py", key="arena-key-guessed-wrong-000000", author="mallory")
    second = submit(tmp_path / "mine.py", key=first.key, author="mallory")
    assert second.row.version == 2 and second.row.author == "ada" and second.key is None
    new = store.set_key(engine, "mine")  # whoever runs the league: a lost key
    (tmp_path / "mine.py").write_text(bot_file("mine") + "# v3\n")
    with pytest.raises(ArenaError, match="needs its key"):
        submit(tmp_path / "mine.py", key=first.key)
    assert submit(tmp_path / "mine.py", key=new).row.version == 3


def test_a_key_dropped_beside_a_bot_is_taken_and_a_made_one_is_its_owners(tmp_path, league):
    _, _, submit, _ = league
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "kbot.py").write_text(bot_file("kbot"))
    _take(inbox, submit)
    made = inbox / "accepted" / "kbot.py.key"
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    key = made.read_text().strip()
    (inbox / "kbot.py").write_text(bot_file("kbot") + "# v2\n")
    (inbox / "kbot.py.key").write_text(key)
    _take(inbox, submit)
    assert not (inbox / "kbot.py.key").exists()  # taken away, never moved or kept
    assert (inbox / "accepted" / "kbot.py.1").exists()
    assert not (inbox / "accepted" / "kbot.py.key.1").exists()
    assert not list((inbox / "refused").iterdir())


# -- stored versions -----------------------------------------------------------------------------


def test_a_stored_version_changed_on_disk_does_not_run(tmp_path, league):
    engine, folder, submit, _ = league
    (tmp_path / "steady.py").write_text(bot_file("steady"))
    row = submit(tmp_path / "steady.py").row
    path = folder / row.path / "steady.py"
    run = [sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path}/a.db", "play",
           "vandtia", "steady", "random", "--seed", "1"]
    assert subprocess.run(run, capture_output=True, timeout=300).returncode == 0
    os.chmod(path, 0o644)
    path.write_text(bot_file("steady") + "import os  # tampered\n")
    tampered = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert tampered.returncode == 2 and "have been changed" in tampered.stderr
    assert tampered.stderr.count("\n") == 1, tampered.stderr
    path.write_text(bot_file("steady"))  # restored: it runs again
    assert subprocess.run(run, capture_output=True, timeout=300).returncode == 0


def test_a_bots_folder_file_changed_mid_season_does_not_play(tmp_path):
    """Changed after a worker listed it, or before: the season stops with the reason, and
    goes on once the file is restored - it never plays the changed code."""
    from arena.leagues.scheduler import SeasonDef, fixtures, play_batch

    folder = tmp_path / "bots"
    folder.mkdir()
    path = folder / "steady.py"
    path.write_text(bot_file("steady"))
    recorded = Registry(bots_dirs=[folder]).bot("steady", "vandtia").code_hash
    defn = SeasonDef("s", "vandtia", "cardems", 2, ("steady", "random"), 2, 1)
    batch = list(fixtures(defn))
    args = ("vandtia", "cardems", (str(folder),), "", batch, defn.secret)
    hashes = (("steady", recorded),)
    assert len(play_batch(*args, hashes=hashes)) == len(batch)  # lists it, and plays
    path.write_text(bot_file("steady") + "import os  # changed\n")
    with pytest.raises(ArenaError, match="has changed since it was listed"):
        play_batch(*args, hashes=hashes)  # this process listed it before the change
    fresh = subprocess.run(
        [sys.executable, "-c", "import sys; from arena.leagues.scheduler import play_batch, "
         "SeasonDef, fixtures; from arena.errors import ArenaError\n"
         f"d = SeasonDef('s', 'vandtia', 'cardems', 2, ('steady', 'random'), 2, 1)\n"
         f"try:\n    play_batch('vandtia', 'cardems', ({str(folder)!r},), '', "
         f"list(fixtures(d)), d.secret, hashes={hashes!r})\n"
         "except ArenaError as e:\n    print(e)"], capture_output=True, text=True,
        timeout=300)
    assert "has changed since its season started" in fresh.stdout, fresh.stderr
    path.write_text(bot_file("steady"))  # restored
    assert len(play_batch(*args, hashes=hashes)) == len(batch)


# -- secrets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("url, secret", [
    ("postgresql+psycopg://ada:hunter2secret@localhost:1/x", "hunter2secret"),
    ("postgresql+psycopg://ada@localhost:1/x?password=hunter2secret", "hunter2secret"),
    ("postgresql+psycopg://ada:hun@ter2secret@localhost:1/x", "ter2secret"),
    ("postgresql+psycopg://ada:hunter2secret@localhost:notaport/x", "hunter2secret"),
    ("postgresql+psycopg://localhost:1/x?sslpassword=hunter2secret&user=ada", "hunter2secret"),
])
def test_a_database_password_never_shows(tmp_path, url, secret):
    run = subprocess.run([sys.executable, "-m", "arena", "--db", url, "season", "list"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert secret not in run.stderr and secret[-6:] not in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


# -- a machine without namespaces ----------------------------------------------------------------

NO_NAMESPACES = """
import os, sys, pyseccomp
f = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
f.add_rule(pyseccomp.ERRNO(1), "unshare")  # as a kernel or container without them says
f.load()
os.execv(sys.executable, [sys.executable, "-m", "arena", *sys.argv[1:]])
"""


def _without_namespaces(*args, env=None):
    return subprocess.run([sys.executable, "-c", NO_NAMESPACES, *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "200",
                                                       **(env or {})})


#: without namespaces a root runner's bot runs as a user of its own, who must reach Python
UNREACHABLE = ROOT and jail.unreachable_for_others([sys.prefix, sys.base_prefix])


def test_without_namespaces_doctor_says_so_and_strict_refuses(tmp_path):
    if UNREACHABLE:  # then nothing runs, and every command says why in one line
        run = _without_namespaces("doctor")
        assert run.returncode == 2 and "bots cannot run on this machine" in run.stderr
        assert UNREACHABLE in run.stderr and run.stderr.count("\n") == 1, run.stderr
        return
    doctor = _without_namespaces("doctor")
    assert re.search(r"pid namespace\s+│ NO", doctor.stdout), doctor.stdout
    assert re.search(r"seccomp\s+│ yes", doctor.stdout) and re.search(
        r"landlock\s+│ yes", doctor.stdout), doctor.stdout
    assert "missing here" in doctor.stderr and "closed" not in doctor.stdout
    strict = _without_namespaces("play", "vandtia", "random", "greedy", "--limits", "strict=1")
    last = strict.stderr.strip().splitlines()[-1]
    assert strict.returncode == 2 and last.startswith("arena: error: strict=1: this machine "
                                                      "lacks"), strict.stderr
    assert "Traceback" not in strict.stderr


@pytest.mark.skipif(bool(UNREACHABLE), reason=f"{UNREACHABLE} is not readable by other "
                    "users, so a root runner without namespaces runs no bot here (tested above)")
def test_without_namespaces_a_bot_still_plays_unprivileged_and_leaves_nothing(tmp_path,
                                                                              database):
    before = set(os.listdir(tempfile.gettempdir()))
    run = _without_namespaces("--bots-dir", str(HOSTILE), "play", "vandtia",
                              f"thief:attack=read-file,target={database}", "random", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"]["faults"] == [None, None]  # refused, played on
    run = _without_namespaces("--bots-dir", str(HOSTILE), "play", "vandtia",
                              "thief:attack=root", "random", "--json")
    assert json.loads(run.stdout)["result"]["faults"] == [None, None], run.stdout
    _access_time_long_past()  # read through the machine's mount: the runner read it first
    run = _without_namespaces("--bots-dir", str(HOSTILE), "play", "vandtia",
                              f"thief:attack=atime,target={RECORD}", "random", "--json")
    assert json.loads(run.stdout)["result"]["faults"] == [None, None], run.stdout
    left = {n for n in set(os.listdir(tempfile.gettempdir())) - before
            if n.startswith("arena-bot")}
    assert not left, left
