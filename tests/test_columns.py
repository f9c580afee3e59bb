"""Every table command at 80 columns piped and at 60 in a terminal (a pty of that size),
with long names: no bot, season or match name is ever broken across lines, and no line is
wider than the terminal (issue: ``greed``/``y``, a season's name over five lines)."""

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import bot_file
from rich.cells import cell_len

pytestmark = pytest.mark.slow

LONG = "lowrider-experimental"
SEASON = "the-long-autumn-ladder-of-lowriders"


def _env(db_path, columns=None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["ARENA_DB"] = f"sqlite:///{db_path}"
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return env


def piped(args, db_path, columns: int) -> str:
    run = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                         text=True, env=_env(db_path, columns), timeout=300)
    assert run.returncode == 0, (args, run.stderr)
    return run.stdout


def in_a_terminal(args, db_path, columns: int) -> str:
    """The command's output in a pty ``columns`` wide (rich reads the terminal's size)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "arena", *args], stdin=follower,
                               stdout=follower, stderr=subprocess.PIPE,
                               env={**_env(db_path), "TERM": "xterm"})
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 300)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the command has ended and closed its side
            break
        if not chunk:
            break
        out += chunk
    assert process.wait(300) == 0, (args, process.stderr.read())
    process.stderr.close()
    os.close(leader)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode())  # colours, if any
    return text.replace("\r\n", "\n")


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A season of a long-named submitted bot, an A/B match and an account: the tables."""
    where = tmp_path_factory.mktemp("columns")
    db_path = where / "a.db"
    (where / f"{LONG}.py").write_text(bot_file(LONG))
    env = _env(db_path, 200)

    def run(*args):
        done = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                              text=True, env=env, timeout=600)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    run("submit", str(where / f"{LONG}.py"))
    run("season", "run", "vandtia", "--name", SEASON, "--variant", "cardems", "--bots",
        f"{LONG},greedy,random", "--rounds", "2", "--workers", "1")
    run("match", LONG, "greedy", "--games", "8", "--name", "lowriders-against-greedy")
    run("user", "add", "an-author-with-a-long-name")
    match = json.loads(run("season", "show", SEASON, "--matches", "--format", "json"))[
        "matches"][0]["match"]
    return db_path, match


def test_no_table_command_breaks_a_name_at_80_or_60_columns(league):
    db_path, match = league
    commands = [
        ["leaderboard", "vandtia", "--variant", "cardems"],
        ["leaderboard", "vandtia", "--variant", "cardems", "--all-versions"],
        ["season", "list"],
        ["season", "show", SEASON, "--matches", "--pairs"],
        ["season", "show", "lowriders-against-greedy"],
        ["review", str(match), "--reviewer", "ismcts:iterations=20", "--all"],
        ["bots"],
        ["bots", "--versions", LONG],
        ["games"],
        ["user", "list"],
        ["doctor"],
    ]
    names = [f"{LONG}@1", SEASON, "lowriders-against-greedy", "an-author-with-a-long-name",
             "greedy", "random", "inaccuracy"]
    runs = [(how, args, columns) for args in commands
            for how, columns in ((piped, 80), (in_a_terminal, 60))]
    with ThreadPoolExecutor(2) as pool:
        outputs = list(pool.map(lambda r: r[0](r[1], db_path, r[2]), runs))
    for (how, args, columns), out in zip(runs, outputs, strict=True):
        where = f"{how.__name__} at {columns}: arena {' '.join(args)}\n{out}"
        lines = out.splitlines()
        assert lines, where
        assert max(cell_len(line.rstrip()) for line in lines) <= columns, where
        for line in lines:  # every word that begins a name is a whole name
            for name in names:
                head = name[:max(6, len(name) // 2)]
                for word in re.findall(r"(?<![\w@-])" + re.escape(head) + r"[^\s,;:()=]*",
                                       line):
                    assert word in (*names, LONG), (word, where)
    shown = "".join(outputs)
    assert f"{LONG}@1" in shown and SEASON in shown

