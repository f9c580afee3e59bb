"""Submitted bots: the store, versions everywhere, the ladder (arena submit, withdraw,
ladder)."""

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import CRASHER, bot_file

from arena import db

ROOT = Path(__file__).resolve().parent.parent


def arena(*args, home: Path, env=None, **kw):
    """``arena`` with the database (and so the store) in ``home``."""
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{home}/a.db",
                           *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})}, **kw)


def one_line_error(run, message: str, bot_log: bool = False) -> None:
    """Exit status 2 and one line saying why (after the bot's own log, where it has one:
    its traceback is for its author; the runner's never shows)."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert message in lines[-1] and lines[-1].startswith("arena: error: "), run.stderr
    assert bot_log or len(lines) == 1, run.stderr
    assert "arena/cli" not in run.stderr, run.stderr


def make_wheel(folder: Path, dist: str, files: dict[str, str], entry_points: str) -> Path:
    """A wheel of a tiny package, written as any wheel is: a zip with a .dist-info."""
    info = f"{dist}-1.0.dist-info"
    path = folder / f"{dist}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        z.writestr(f"{info}/WHEEL",
                   "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/entry_points.txt", entry_points)
        z.writestr(f"{dist}-1.0.data/scripts/evil-script", "#!/bin/sh\ntouch /tmp/never\n")
        z.writestr(f"{info}/RECORD", "")
    return path


FOLDER_BOT = """
import arena
from helper import pick  # a module of its own, beside it
from pathlib import Path

WEIGHT = (Path(__file__).parent / "data" / "weight.txt").read_text().strip()  # a data file

class Bot:
    def act(self, observation, legal):
        return pick(legal, WEIGHT)

@arena.hookimpl
def register_bots(register):
    register("folderbot", Bot, games=["vandtia"])
"""


def wheel_files(marker: Path) -> dict[str, str]:
    trusted = f"""
import arena
open({str(marker)!r}, "w").write("the trusted plugin ran")

class Game:
    name = "evilgame"
    variants = {{"x": (2,)}}

@arena.hookimpl
def register_games(register):
    register(Game())
"""
    return {"wheelbot/__init__.py": bot_file("wheelbot"),
            "wheelbot/evil.py": trusted}


WHEEL_POINTS = """[arena.bots]
wheelbot = wheelbot

[arena]
evilgame = wheelbot.evil

[console_scripts]
evil = wheelbot.evil:main
"""


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    """A file, a folder, a wheel and an executable bot, each submitted once."""
    home = tmp_path_factory.mktemp("store")
    src = home / "src"
    src.mkdir()
    (src / "filebot.py").write_text(bot_file("filebot"))
    folder = src / "folderbot"
    (folder / "data").mkdir(parents=True)
    (folder / "folderbot.py").write_text(FOLDER_BOT)
    (folder / "helper.py").write_text("def pick(legal, weight):\n    return legal[0]\n")
    (folder / "data" / "weight.txt").write_text("1\n")
    marker = home / "trusted-plugin-ran"
    wheel = make_wheel(src, "wheelbot", wheel_files(marker), WHEEL_POINTS)
    awk = src / "awkbot"
    awk.mkdir()
    (awk / "lowawk.awk").write_text((ROOT / "plugins/awk-bot/lowawk.awk").read_text())
    (awk / "awkbot.toml").write_text((ROOT / "plugins/awk-bot/lowawk.toml").read_text()
                                     .replace('name = "lowawk"', 'name = "awkbot"'))
    runs = {}
    for name, path in (("filebot", src / "filebot.py"), ("folderbot", folder),
                       ("wheelbot", wheel), ("awkbot", awk)):
        runs[name] = arena("submit", str(path), "--author", "Ada", "--matches", "1", home=home)
        assert runs[name].returncode == 0, (name, runs[name].stderr)
    return home, src, marker, runs


def key_of(run) -> str:
    """The key a first submission made (shown once)."""
    return re.search(r"key for \S+: (\S+)", run.stdout)[1]


@pytest.mark.slow
def test_a_file_a_folder_a_wheel_and_an_executable_are_each_version_1(submissions):
    home, _, _, runs = submissions
    for name, run in runs.items():
        assert f"{name}@1: accepted" in run.stdout
    listed = arena("bots", home=home, env={"COLUMNS": "160"}).stdout
    for name in runs:
        assert f"{name}@1" in listed
    assert "by Ada" in listed
    versions = arena("bots", "--versions", "folderbot", home=home).stdout
    assert "folderbot@1" in versions and "Ada" in versions
    stored = sorted(p.name for p in (home / "bots").iterdir() if not p.name.startswith("."))
    assert stored == ["awkbot", "filebot", "folderbot", "wheelbot"]
    assert not list((home / "bots" / ".staging").iterdir())
    played = arena("play", "vandtia", "folderbot", "awkbot", "--seed", "2", home=home)
    assert played.returncode == 0 and "folderbot@1" not in played.stderr, played.stderr


def test_a_wheel_runs_nothing_in_the_runner_and_registers_no_game(submissions):
    home, _, marker, _ = submissions
    assert not marker.exists()  # its trusted entry point was never loaded, here or anywhere
    games = arena("games", home=home).stdout
    assert "evilgame" not in games
    folder = next((home / "bots" / "wheelbot").iterdir())
    assert not any("scripts" in str(p) for p in folder.rglob("*"))  # scripts not unpacked
    assert "evilgame" not in arena("bots", home=home).stdout
    assert not marker.exists()


@pytest.mark.slow
def test_a_changed_file_is_version_2_the_same_content_the_same_version(submissions):
    home, src, _, _ = submissions
    path = src / "filebot.py"
    path.write_text(bot_file("filebot") + "\n# faster\n")
    key = key_of(submissions[3]["filebot"])
    again = arena("submit", str(path), "--key", key, "--matches", "1", home=home)
    assert again.returncode == 0 and "filebot@2: accepted" in again.stdout, again.stderr
    same = arena("submit", str(path), "--matches", "1", home=home, env={"ARENA_KEY": key})
    assert same.returncode == 0 and "already submitted" in same.stdout
    played = arena("play", "vandtia", "filebot@1", "filebot@2", "--seed", "1", "--json",
                   home=home)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["seats"] == ["filebot@1", "filebot@2"]
    person = arena("play", "vandtia", "human:Ada", "filebot", "--seed", "1", home=home,
                   input="")  # no answer: abandoned, its seats stored
    assert person.returncode == 130, person.stderr
    engine = db.connect(f"sqlite:///{home}/a.db", create=False)
    people = [r for r, _ in db.list_seasons(engine) if r.name.startswith(db.HUMAN_SEASONS)]
    assert [json.loads(r.bots) for r in people] == [["human:Ada", "filebot@2"]]  # its version
    season = arena("season", "run", "vandtia", "--bots", "filebot,filebot@1,greedy",
                   "--rounds", "1", "--seed", "1", "--name", "versions", "--workers", "1",
                   home=home)
    assert season.returncode == 0, season.stderr
    engine = db.connect(f"sqlite:///{home}/a.db", create=False)
    row = db.get_season(engine, "versions")
    assert json.loads(row.bots) == ["filebot@2", "filebot@1", "greedy"]  # plain: the latest
    hashes = json.loads(row.options)["code_hashes"]
    assert hashes["filebot@1"] != hashes["filebot@2"]  # each match records its version
    board = arena("leaderboard", "vandtia", "--format", "json", home=home).stdout
    assert {r["bot"] for r in json.loads(board)} == {"filebot@2", "greedy"}
    every = arena("leaderboard", "vandtia", "--format", "json", "--all-versions", home=home)
    assert {r["bot"] for r in json.loads(every.stdout)} == {"filebot@1", "filebot@2",
                                                             "greedy"}
    everyone = arena("season", "run", "vandtia", "--bots", "@submitted", "--rounds", "1",
                     "--seed", "1", "--name", "all", "--workers", "1", home=home)
    assert everyone.returncode == 0, everyone.stderr
    assert json.loads(db.get_season(engine, "all").bots) == [
        "awkbot@1", "filebot@2", "folderbot@1", "wheelbot@1"]


def test_a_failing_or_misnamed_submission_is_refused_and_leaves_no_trace(tmp_path):
    (tmp_path / "crasher.py").write_text(CRASHER)
    refused = arena("submit", str(tmp_path / "crasher.py"), "--matches", "1", home=tmp_path)
    one_line_error(refused, "refused: check-bot failed in vandtia", bot_log=True)
    assert "about to fail" in refused.stderr  # its log, for its author
    (tmp_path / "greedy.py").write_text(bot_file("greedy"))
    one_line_error(arena("submit", str(tmp_path / "greedy.py"), home=tmp_path),
                   "refused: the name 'greedy' belongs to an installed bot")
    (tmp_path / "nothing.py").write_text("x = 1\n")
    one_line_error(arena("submit", str(tmp_path / "nothing.py"), home=tmp_path),
                   "refused: no bot is registered by it")
    rows = sqlite3.connect(tmp_path / "a.db").execute("SELECT * FROM submissions").fetchall()
    assert rows == []
    store = tmp_path / "bots"
    assert [p.name for p in store.iterdir()] == [".staging"]
    assert not list((store / ".staging").iterdir())


def test_submit_and_a_ladder_work_on_the_default_database_from_any_folder(tmp_path):
    """The default database (and a --db or --store given as a relative path) is relative to
    the folder arena runs in; the sandbox that checks a submission runs elsewhere, so the
    store is made absolute before anything is handed to it."""
    (tmp_path / "alpha.py").write_text(bot_file("alpha"))
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_DB", "ARENA_STORE")}
    for args in (["submit", "alpha.py", "--matches", "1"],
                 ["--db", "sqlite:///other.db", "submit", "alpha.py", "--matches", "1"],
                 ["ladder", "vandtia", "--variant", "cardems", "--bots", "random",
                  "--deals", "1", "--public-seed"]):
        run = subprocess.run([sys.executable, "-m", "arena", *args], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
    assert "alpha@1" in run.stdout
    assert (tmp_path / "results" / "bots" / "alpha").is_dir()
    assert (tmp_path / "bots" / "alpha").is_dir()


def test_a_name_is_its_first_authors(submissions):
    home, src, _, _ = submissions
    other = src / "other"
    other.mkdir(exist_ok=True)
    (other / "filebot.py").write_text(bot_file("filebot") + "# mine\n")
    one_line_error(arena("submit", str(other / "filebot.py"), "--author", "Bob", home=home),
                   "refused: the name 'filebot' belongs to Ada; a new version needs its key")


def test_bad_input_is_one_line(submissions, tmp_path):
    home, _, _, _ = submissions
    one_line_error(arena("submit", str(tmp_path / "missing.py"), home=home),
                   "no such file or folder")
    (tmp_path / "notes.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    one_line_error(arena("submit", str(tmp_path / "notes.zip"), home=home),
                   "a source archive needs a build")
    (tmp_path / "pkg-1.0.tar.gz").write_bytes(b"\x1f\x8b")
    one_line_error(arena("submit", str(tmp_path / "pkg-1.0.tar.gz"), home=home),
                   "build a wheel")
    (tmp_path / "fake.whl").write_text("not a zip")
    one_line_error(arena("submit", str(tmp_path / "fake.whl"), home=home), "not a wheel")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    one_line_error(arena("submit", str(pkg), home=home), "needs a build")
    (tmp_path / "bot.txt").write_text("hi")
    one_line_error(arena("submit", str(tmp_path / "bot.txt"), home=home), "submit a bot file")
    one_line_error(arena("play", "vandtia", "filebot@9", "random", home=home),
                   "bot 'filebot' has no version '9'")
    one_line_error(arena("withdraw", "nobody", home=home), "no submitted bot named 'nobody'")


def test_doctor_lists_the_distributions_that_load_in_the_runner(tmp_path):
    info = tmp_path / "fakegame-2.5.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakegame\nVersion: 2.5\n")
    (info / "entry_points.txt").write_text("[arena]\nfake = fakegame_module\n")
    run = arena("doctor", home=tmp_path,
                env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                     "COLUMNS": "200"})
    assert "trusted plugins" in run.stdout and "fakegame 2.5 (fake = fakegame_module)" in \
        run.stdout, run.stdout + run.stderr


# -- the ladder --------------------------------------------------------------------------------

LADDER = ("ladder", "vandtia", "--variant", "cardems", "--bots", "greedy,random", "--deals",
          "2", "--public-seed", "--format", "json", "--workers", "1")


def _submit_three(home: Path) -> None:
    src = home / "src"
    src.mkdir(exist_ok=True)
    for name in ("alpha", "beta", "gamma"):
        (src / f"{name}.py").write_text(bot_file(name))
        run = arena("submit", str(src / f"{name}.py"), "--author", "Ada", "--matches", "1",
                    home=home)
        assert run.returncode == 0, run.stderr


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_ladder_killed_with_sigkill_and_restarted_ends_with_the_same_ratings(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    whole.mkdir()
    _submit_three(whole)
    shutil.copytree(whole, killed)  # the same three submissions, before any ladder
    straight = arena(*LADDER, home=whole)
    assert straight.returncode == 0, straight.stderr
    table = json.loads(straight.stdout)
    assert {r["bot"] for r in table} == {"alpha@1", "beta@1", "gamma@1", "greedy", "random"}
    cmd = [sys.executable, "-m", "arena", "--db", f"sqlite:///{killed}/a.db", *LADDER]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    engine = db.connect(f"sqlite:///{killed}/a.db", create=False)
    while True:  # kill it once the second placement has stored a match
        seasons = [row for row, stored in db.list_seasons(engine) if stored]
        if len(seasons) >= 2 or proc.poll() is not None:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    again = arena(*LADDER, home=killed)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == table
    placements = [row.name for row, _ in db.list_seasons(engine)]
    assert placements == [f"ladder/vandtia/cardems/2p/{n}@1" for n in ("alpha", "beta",
                                                                         "gamma")]
    beta = db.get_season(engine, placements[1])
    assert json.loads(beta.bots) == ["beta@1", "greedy", "random", "alpha@1"]


@pytest.mark.slow
def test_a_withdrawn_bot_leaves_the_ladder_and_its_results_stay(tmp_path):
    _submit_three(tmp_path)
    assert arena(*LADDER, home=tmp_path).returncode == 0
    out = arena("withdraw", "beta", home=tmp_path)
    assert out.returncode == 0 and "withdrawn" in out.stdout
    table = json.loads(arena(*LADDER, home=tmp_path).stdout)
    assert "beta@1" not in {r["bot"] for r in table}
    assert len(table) == 4
    src = tmp_path / "src"
    (src / "delta.py").write_text(bot_file("delta"))
    assert arena("submit", str(src / "delta.py"), "--matches", "1", home=tmp_path).returncode == 0
    assert arena(*LADDER, home=tmp_path).returncode == 0
    engine = db.connect(f"sqlite:///{tmp_path}/a.db", create=False)
    delta = db.get_season(engine, "ladder/vandtia/cardems/2p/delta@1")
    assert "beta@1" not in json.loads(delta.bots)  # a withdrawn bot meets no newcomer

    # the organizer disables gamma: it plays nowhere until enabled again
    out = arena("withdraw", "gamma", "--disable", home=tmp_path)
    assert out.returncode == 0 and "plays nowhere" in out.stdout, out.stderr
    one_line_error(arena("play", "vandtia", "gamma", "random", home=tmp_path), "gamma")
    assert arena("withdraw", "gamma", "--enable", home=tmp_path).returncode == 0
    assert arena("play", "vandtia", "gamma", "random", home=tmp_path).returncode == 0
    # ... and deletes alpha: its code is gone, its rated results stay, marked
    out = arena("withdraw", "alpha", "--delete", "--yes", home=tmp_path)
    assert out.returncode == 0 and "deleted (1 version(s))" in out.stdout, out.stderr
    assert not (tmp_path / "bots" / "alpha").exists() and (tmp_path / "bots" / "delta").exists()
    one_line_error(arena("play", "vandtia", "alpha", "random", home=tmp_path), "alpha")
    board = json.loads(arena("leaderboard", "vandtia", "--variant", "cardems", "--format",
                             "json", home=tmp_path).stdout)
    marked = {r["bot"]: r["deleted"] for r in board}
    assert marked["alpha@1"] is True and marked["delta@1"] is False, marked
    text = arena("leaderboard", "vandtia", "--variant", "cardems", home=tmp_path,
                 env={"COLUMNS": "200"}).stdout
    assert "alpha@1 (deleted)" in text
    one_line_error(arena("withdraw", "alpha", "--enable", home=tmp_path), "its code is gone")


@pytest.mark.serial
@pytest.mark.slow
def test_ladder_watch_places_what_is_dropped_in_and_stops_on_ctrl_c(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    cmd = [sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path}/a.db", *LADDER,
           "--watch", str(inbox), "--poll", "0.1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    (tmp_path / "zeta.py").write_text(bot_file("zeta"))
    (tmp_path / "zeta.py").rename(inbox / "zeta.py")  # dropped in whole
    (tmp_path / "bad.py").write_text(CRASHER)
    (tmp_path / "bad.py").rename(inbox / "bad.py")
    path = tmp_path / "a.db"
    while True:  # the placement of zeta, stored
        if proc.poll() is not None:
            break
        if path.exists():
            engine = db.connect(f"sqlite:///{path}", create=False)
            done = [row for row, _ in db.list_seasons(engine) if row.status == "done"]
            if done:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130 and "stopped" in err, err
    assert (inbox / "accepted" / "zeta.py").exists()
    assert (inbox / "refused" / "bad.py").exists()
    assert "check-bot failed" in (inbox / "refused" / "bad.py.reason.txt").read_text()
    assert done[0].name == "ladder/vandtia/cardems/2p/zeta@1"


def test_two_ladders_on_one_postgresql_database_place_each_version_once(tmp_path, pg):
    store = tmp_path / "shared-store"
    env = {"ARENA_STORE": str(store)}
    src = tmp_path / "src"
    src.mkdir()
    base = [sys.executable, "-m", "arena", "--db", pg]
    for name in ("alpha", "beta", "gamma", "delta"):
        (src / f"{name}.py").write_text(bot_file(name))
        run = subprocess.run(base + ["submit", str(src / f"{name}.py"), "--matches", "1"],
                             capture_output=True, text=True, env={**os.environ, **env})
        assert run.returncode == 0, run.stderr
    procs = [subprocess.Popen(base + list(LADDER), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
             for _ in range(2)]
    outs = [p.communicate(timeout=900) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    engine = db.connect(pg)
    seasons = [row for row, _ in db.list_seasons(engine)]
    assert sorted(r.name for r in seasons) == sorted(
        f"ladder/vandtia/cardems/2p/{n}@1" for n in ("alpha", "beta", "gamma", "delta"))
    for row in seasons:
        assert row.status == "done"
        assert len(db.stored_fixtures(engine, row.id)) == row.fixtures
    assert json.loads(outs[0][0]) == json.loads(outs[1][0])
