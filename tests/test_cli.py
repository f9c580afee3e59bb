"""The arena command, run as a user runs it: a real subprocess each time."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import CRASHER, bot_file


def arena(*args, env=None, cwd=None):
    full_env = {**os.environ, "COLUMNS": "100", **(env or {})}
    full_env.pop("ARENA_BOTS_DIR", None) if "ARENA_BOTS_DIR" not in (env or {}) else None
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, env=full_env, cwd=cwd, timeout=120)


def test_games_lists_the_variants_and_player_counts():
    out = arena("games").stdout
    assert "vandtia" in out and "cardems" in out and "swedish" in out and "german" in out
    assert "2-8" in out and "2-5" in out
    tractor = [line for line in out.splitlines() if "tractor" in line]
    assert tractor and all("250 per deal" in line for line in tractor)
    assert "250 per match" in next(line for line in out.splitlines() if "cardems" in line)


def test_bots_lists_reference_bots_with_their_source():
    out = arena("bots").stdout
    assert "random" in out and "greedy" in out and "arena 0.1.0" in out


def test_play_show_is_byte_for_byte_reproducible_under_a_public_seed():
    args = ("play", "vandtia", "random", "greedy", "--variant", "cardems", "--seed", "7",
            "--show", "--public-seed")
    first, second = arena(*args), arena(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    assert "seat 0: random" in first.stdout and "result:" in first.stdout
    assert "hidden" in first.stdout


def test_play_json_is_the_full_result_and_replay_without_timings():
    args = ("play", "vandtia", "greedy", "greedy", "random", "--variant", "german", "--seed",
            "3", "--show", "--json", "--public-seed")
    first, second = arena(*args), arena(*args)
    assert first.stdout == second.stdout and first.stderr == second.stderr
    data = json.loads(first.stdout)
    assert data["seats"] == ["greedy", "greedy", "random"] and data["seed"] == 3
    assert data["seeding"] == "public" and [a["seat"] for a in data["actions"][:3]] == [0, 1, 2]
    assert sorted(data["result"]["ranks"]) == [1, 2, 3]
    assert not any(k in first.stdout for k in ("time", "duration", "elapsed"))
    assert "seat 2: random" in first.stderr, "the transcript goes to stderr with --json"


def test_omniscient_shows_hidden_cards():
    args = ("play", "vandtia", "random", "random", "--seed", "1")
    assert "hidden" in arena(*args, "--show").stdout
    assert "hidden" not in arena(*args, "--omniscient").stdout


def test_play_without_a_seed_says_which_seed_it_used():
    result = arena("play", "vandtia", "random", "random")
    assert result.returncode == 0 and result.stderr.startswith("seed ")


@pytest.mark.parametrize("args,message", [
    (("play", "chess", "random", "random"), "unknown game 'chess'"),
    (("play", "vandtia", "random", "random", "--variant", "dutch"), "no variant 'dutch'"),
    (("play", "vandtia", "random", "nobody"), "unknown bot 'nobody'"),
    (("play", "vandtia", "random", "random", "random"), "played by 2 players, not 3"),
    (("play", "vandtia", "random", "random", "--seed", "x"), "'x' is not a valid integer"),
    (("play", "vandtia"), "Missing argument"),
    (("--bots-dir", "/nonexistent", "bots"), "bots folder not found"),
    (("frobnicate",), "No such command"),
])
def test_user_mistakes_are_one_line_and_exit_2(args, message):
    result = arena(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_bot_from_a_bots_dir_plays(tmp_path):
    (tmp_path / "mine.py").write_text(bot_file("mine"))
    result = arena("--bots-dir", str(tmp_path), "play", "vandtia", "mine", "random",
                   "--seed", "2")
    assert result.returncode == 0 and "mine" in result.stdout
    listed = arena("bots", env={"ARENA_BOTS_DIR": str(tmp_path), "COLUMNS": "400"}).stdout
    assert "mine" in listed and str(tmp_path / "mine.py") in listed


def test_a_bot_for_another_game_is_refused(tmp_path):
    (tmp_path / "mine.py").write_text(bot_file("mine", ["tractor"]))
    result = arena("--bots-dir", str(tmp_path), "play", "vandtia", "mine", "random")
    assert result.returncode == 2 and "does not play vandtia" in result.stderr


@pytest.mark.slow
def test_demo_plays_a_match_and_a_season_of_every_game_stores_them_and_says_what_next(
        tmp_path):
    env = {"ARENA_DB": f"sqlite:///{tmp_path}/demo.db", "COLUMNS": "100"}
    out = arena("demo", env=env).stdout
    for variant in ("cardems", "swedish", "german"):
        assert f"demo-{variant}: vandtia {variant}" in out and "40/40 matches (done)" in out
    assert "demo-tractor: tractor deal, 4 players, 20/20 matches (done)" in out
    assert "demo-cherki: cherki standard, 3 players, 60/60 matches (done)" in out
    assert out.count("result:") == 5 and "cherki standard: greedy vs random vs first" in out
    assert f"stored in sqlite:///{tmp_path}/demo.db. Next:" in out
    assert "arena season show demo-cardems --matches" in out
    listed = arena("season", "list", env=env).stdout
    assert all(f"demo-{s}" in listed for s in ("cardems", "swedish", "german", "tractor",
                                               "cherki"))
    again = arena("demo", env=env).stdout  # the same database again: new names
    assert "demo-cardems-2: vandtia cardems" in again


def test_bench_reports_games_per_second_and_a_seasons_overhead():
    result = arena("bench", "--games", "20", "--season", "40", env={"COLUMNS": "200"})
    assert result.returncode == 0 and "games/s per core" in result.stdout
    start = re.search(r"the command's own start: arena --version (\d+) ms, --help (\d+) ms, a "
                      r"Python importing click and rich (\d+) ms \(([\d.]+) ×", result.stdout)
    assert start and all(float(x) > 0 for x in start.groups()), result.stdout
    row = next(line for line in result.stdout.splitlines() if "random vs random" in line)
    assert row.split("│")[2].strip() == "40" and "%" in row

    def cells(label):  # moves/game and asked/game of a row
        line = next(line for line in result.stdout.splitlines() if label in line)
        return [float(c) for c in line.split("│")[-4:-2]]

    # the bare floor, and the batched row, play the very games the sandboxed bots play;
    # forced moves are not asked
    moves, asked = cells("sandboxed random bots")
    assert cells("bare random processes") == [moves, asked] and 0 < asked < moves
    assert cells("matches side by side") == [moves, asked]


def test_the_sandboxed_rows_count_moves_not_the_processes_start_up(monkeypatch):
    """A sandboxed row starts its bot processes in a match it does not count: when it reads
    the CPU its processes have used, before its games and after them, every process it
    uses has started, and none starts in between. (Not by comparing amounts: a running
    process's CPU is read from /proc in ticks of 10 ms.)"""
    from arena import bench
    from arena.plugins import Registry
    from arena.sandbox import process

    started, seen = [], []
    start, read = process.Worker.__init__, bench.children_cpu

    def starting(self, *args, **kwargs):
        started.append(self)
        start(self, *args, **kwargs)

    def reading():
        seen.append(len(started))
        return read()

    monkeypatch.setattr(process.Worker, "__init__", starting)
    monkeypatch.setattr(bench, "children_cpu", reading)
    registry = Registry()
    game, entry = registry.game("vandtia"), registry.bot("random", "vandtia")
    for row in (lambda: bench.referee_games(game, "cardems", 2, 2, 0, entry),
                lambda: bench.inflight_games(game, "cardems", 2, 2, 0, entry, 16)):
        started.clear()
        seen.clear()
        figures = row()
        assert figures["games"] == 2 and figures["asked_per_game"] > 0
        assert seen == [2, 2] and len(started) == 2


def test_bench_of_every_game_gives_its_engines_speed_and_the_sandboxs_cost_per_move():
    """``--game all``: a summary per game at its default variant (``--variant`` is refused
    beside it); one game's bench ends with the same summary, its variant the game's own."""
    result = arena("bench", "--game", "all", "--games", "4", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["game"] for r in rows] == ["cherki", "tractor", "vandtia"]
    for r in rows:
        assert r["label"] == "summary" and r["engine_moves_per_s"] > 0
        assert r["inprocess_us"] > 0 and r["overhead_us"] > 0 and r["overhead_us_side_by_side"] > 0
        assert r["start_ms"] > 0  # a bot process's start and stop, which the rows leave out
    assert [(r["variant"], r["players"]) for r in rows] == [("standard", 3), ("match", 4),
                                                            ("cardems", 2)]
    # the build each engine ran in (setup.py compiles all three; the command's own: run
    # from a checkout, it may import the source tree rather than the installed package)
    assert all(r["engine"] in ("compiled (Cython)", "pure Python") for r in rows)
    refused = arena("bench", "--game", "all", "--variant", "deal")
    assert refused.returncode == 2 and "leave out --variant" in refused.stderr
    one = arena("bench", "--game", "cherki", "--games", "4", "--format", "json")
    assert one.returncode == 0, one.stderr
    last = json.loads(one.stdout.splitlines()[-1])
    assert (last["label"], last["variant"], last["players"]) == ("summary", "standard", 3)


def test_help_and_version():
    assert arena("--help").returncode == 0 and "play" in arena("--help").stdout
    assert "0.1.0" in arena("--version").stdout


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["games"], ["season", "--help"]])
def test_starting_imports_no_database_code(args):
    """No command imports the database's code to start; ``--version`` and ``--help`` import
    nothing they do not use: no plugin machinery, no rich (their cost, beside a Python that
    imports click and rich, is in ``arena bench``'s figures)."""
    light = args in (["--version"], ["--help"])
    probe = textwrap.dedent(f"""
        import sys
        from arena.cli import main
        try:
            main({args!r})
        except SystemExit as e:
            code = e.code
        unused = ("pluggy", "rich", "jinja2", "starlette") if {light!r} else ()
        heavy = sorted(m for m in sys.modules
                       if m.split(".")[0] in ("sqlalchemy", "sqlmodel", *unused)
                       or m in ("arena.db", *(("arena.plugins", "importlib.metadata")
                                              if {light!r} else ())))
        print(code, heavy, file=sys.stderr)
        """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.stderr.strip().splitlines()[-1] == "0 []", out.stderr


def test_play_and_check_bot_show_a_faults_cause_and_log(tmp_path):
    (tmp_path / "crasher.py").write_text(CRASHER)
    played = arena("--bots-dir", str(tmp_path), "play", "vandtia", "crasher", "random")
    assert played.returncode == 0
    assert ("seat 0 (crasher) forfeits: crash: RuntimeError: always; the end of its log:\n"
            "about to fail\nTraceback (most recent call last):") in played.stderr
    checked = arena("--bots-dir", str(tmp_path), "check-bot", "crasher")
    assert checked.returncode == 2 and "crash: RuntimeError: always; the end of its log:" in (
        checked.stdout)
    assert "      | about to fail" in checked.stdout and "      | RuntimeError: always" in (
        checked.stdout)
    # the first fault ends the check: the other variants are listed, not played
    lines = checked.stdout.splitlines()
    assert lines[0].startswith("FAIL  vandtia cardems: 1 matches against random, faults: "
                               "crash: RuntimeError: always"), checked.stdout
    assert [line for line in lines if line.startswith("-     ")] == [
        f"-     vandtia {v}: not checked (the check stopped at the first fault; --keep-going "
        "checks every variant)" for v in ("swedish", "german")]
    assert checked.stderr.strip() == "arena: error: crasher failed the check (1 variant(s))"
    every = arena("--bots-dir", str(tmp_path), "check-bot", "crasher", "--keep-going",
                  "--matches", "2")
    assert every.returncode == 2 and every.stdout.count("FAIL  vandtia") == 3, every.stdout


def test_check_bot_names_the_limit_a_slow_bot_broke_and_stops_there(tmp_path):
    """A bot that takes 0.6 s a move, checked with move_s=0.2 and a bank of 1 s, times out
    within its first match; the check says which limits and how long its moves took, plays
    no other variant, and exits 2."""
    (tmp_path / "slowpoke.py").write_text(bot_file("slowpoke", sleep=0.6))
    checked = arena("--bots-dir", str(tmp_path), "check-bot", "slowpoke", "--limits",
                    "move_s=0.2,bank_s=1")
    assert checked.returncode == 2, checked.stderr
    first = checked.stdout.splitlines()[0]
    found = re.search(r"faults: timeout: move_s=0\.2, bank 1 s: the move ran past ([\d.]+) s, "
                      r"with ([\d.]+) s of the bank left; its moves took ([\d.]+) s \(median\)",
                      first)
    assert found and first.startswith("FAIL  vandtia cardems: 1 matches"), checked.stdout
    assert 0.5 <= float(found[3]) < 5  # 0.6 s of sleep, and the process's own time
    assert checked.stdout.count("not checked") == 2
    refused = arena("--bots-dir", str(tmp_path), "check-bot", "slowpoke", "--limits", "move_s=x")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr


def test_an_unknown_bot_whose_file_is_here_is_told_to_name_the_folder(tmp_path):
    (tmp_path / "mine.py").write_text(bot_file("mine"))
    run = subprocess.run([sys.executable, "-m", "arena", "check-bot", "mine"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'a.db'}"})
    assert run.returncode == 2
    assert "mine.py is in this folder, which is not a bots folder: name it one (arena " \
        "--bots-dir . ...)" in run.stderr, run.stderr


def test_season_show_lists_match_ids_and_the_first_match_of_each_fault(tmp_path):
    (tmp_path / "crasher.py").write_text(CRASHER)
    env = {"ARENA_DB": f"sqlite:///{tmp_path}/s.db", "COLUMNS": "120"}
    run = arena("--bots-dir", str(tmp_path), "season", "run", "vandtia", "--bots",
                "crasher,random", "--rounds", "2", "--name", "f", env=env)
    assert run.returncode == 0, run.stderr
    assert f"stored in sqlite:///{tmp_path}/s.db" in run.stderr
    shown = arena("season", "show", "f", "--matches", env=env).stdout
    assert "first match" in shown and "matches" in shown
    rows = [line for line in shown.splitlines() if "crash: RuntimeError" in line]
    assert len(rows) == 4, shown  # every match, each with its id and its fault
    first = rows[0].split()[0]
    replayed = arena("replay", first, env=env)
    assert "about to fail" in replayed.stdout and "Traceback" in replayed.stdout


def test_tables_fit_an_80_column_terminal_without_cutting_anything(tmp_path):
    env = {"ARENA_DB": f"sqlite:///{tmp_path}/w.db", "COLUMNS": "80"}
    run = arena("season", "run", "vandtia", "--bots", "random,greedy,lowball", "--rounds", "2",
                "--name", "spring", env=env)
    assert run.returncode == 0, run.stderr
    for args, wanted in ((("season", "list"), ["spring", "vandtia cardems 2p", "12/12"]),
                         (("leaderboard", "vandtia"), ["lowball", "μ−3σ", "mean score"]),
                         (("season", "show", "spring", "--matches", "--pairs"),
                          ["lowball", "random, greedy", "random vs greedy", "LOS"])):
        out = arena(*args, env=env).stdout
        assert "…" not in out and all(len(line) <= 80 for line in out.splitlines())
        for word in wanted:
            assert word in out, (word, out)


LEAGUE = """# the spring league
game = "vandtia"
variant = "cardems"
bots = ["random", "greedy", "first"]
rounds = 2
seed = 4
name = "spring"
limits = "move_s=0.5"
workers = 1
"""


@pytest.mark.slow
def test_a_season_defined_in_a_toml_file_is_run_and_the_file_stored_with_it(tmp_path):
    (tmp_path / "league.toml").write_text(LEAGUE)
    env = {"ARENA_DB": f"sqlite:///{tmp_path}/c.db"}
    run = arena("season", "run", "--config", str(tmp_path / "league.toml"), env=env)
    assert run.returncode == 0, run.stderr
    assert "season spring: 12 matches, seed 4" in run.stderr
    header = json.loads(arena("season", "export", "spring", env=env).stdout.splitlines()[0])
    assert header["bots"] == ["random", "greedy", "first"] and header["rounds"] == 2
    assert header["options"]["limits"] == "move_s=0.5" and header["options"]["config"] == LEAGUE
    override = arena("season", "run", "--config", str(tmp_path / "league.toml"), "--rounds",
                     "1", "--name", "short", env=env)
    assert override.returncode == 0 and "season short: 6 matches, seed 4" in override.stderr


@pytest.mark.parametrize("text,message", [
    ("game = 'vandtia'\nbots = ['random', 'greedy']\nround = 2\n", "unknown key 'round'"),
    ("game = 'vandtia'\nbots = 'random'\n", "bots must be a list of bot names"),
    ("game = 'vandtia'\nbots = ['random', 'greedy']\nrounds = 0\n", "rounds must be at least 1"),
    ("game = 'vandtia\n", "is not TOML"),
    ("bots = ['random', 'greedy']\n", "needs a GAME"),
])
def test_a_bad_season_file_is_one_line(tmp_path, text, message):
    (tmp_path / "bad.toml").write_text(text)
    out = arena("season", "run", "--config", str(tmp_path / "bad.toml"),
                env={"ARENA_DB": f"sqlite:///{tmp_path}/c.db"})
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_long_match_shows_its_progress_in_a_terminal_and_ctrl_c_stops_it(tmp_path):
    """``arena play`` in a terminal says how far the match has got (move, deal, time) on
    stderr while it runs, and a Ctrl-C typed there stops it; piped, it prints no progress."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "tractor", "ismcts:iterations=300", "greedy",
         "--seed", "3"], stdin=follower, stdout=follower, stderr=follower,
        env={**os.environ, "TERM": "xterm", "ARENA_DB": f"sqlite:///{tmp_path / 'a.db'}"},
        preexec_fn=_own_terminal)
    os.close(follower)
    seen = b""

    def read_until(pattern: bytes) -> None:
        nonlocal seen
        while pattern not in seen:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                return
            if not chunk:
                return
            seen += chunk

    try:
        read_until(b"(Ctrl-C stops)")
        assert re.search(rb"tractor: move \d+, deal 1, 0:\d\d \(Ctrl-C stops\)", seen), seen
        import termios

        # typed as a person types it: the terminal turns ^C into SIGINT for the command
        os.write(leader, termios.tcgetattr(leader)[6][termios.VINTR])
        assert process.wait(120) == 130
        read_until(b"arena: aborted")
        assert b"arena: aborted" in seen and b"Traceback" not in seen, seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    piped = arena("play", "tractor", "greedy", "random", "--seed", "3")
    assert piped.returncode == 0 and "Ctrl-C stops" not in piped.stderr


def _own_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is its stdin (a pty),
    as a shell gives a command it starts."""
    import fcntl
    import termios

    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
