"""Bot options: ``NAME:key=value,...`` wherever a bot is named, reaching the bot in ``start``."""

import json
import os
import subprocess
import sys

import pytest

from arena.errors import ArenaError
from arena.games.vandtia import GAME
from arena.plugins import Registry, parse_entrant, split_entrants
from arena.referee import play_match
from arena.sandbox.bot import make_bot

TELLER = '''
import json
import arena

class Teller:
    def start(self, info):
        self.options = info["options"]

    def act(self, observation, legal):
        raise RuntimeError("OPTIONS " + json.dumps(self.options, sort_keys=True))

@arena.hookimpl
def register_bots(register):
    register("teller", Teller, games=["vandtia"],
             options={"depth": 2, "c": 1.0, "deep": False, "label": "x"})
    register("open", Teller, games=["vandtia"])
'''


def test_an_entrant_is_a_name_with_options():
    assert parse_entrant("greedy") == ("greedy", {})
    assert parse_entrant("ismcts:iterations=2000, c=1.4") == (
        "ismcts", {"iterations": "2000", "c": "1.4"})
    for bad in ("ismcts:", "ismcts:iterations", "ismcts:=3", "ismcts:a=1,a=2", "x:a="):
        with pytest.raises(ArenaError, match="ismcts|x"):
            parse_entrant(bad)
    assert split_entrants("ismcts:iterations=200,c=1.4,greedy, random") == [
        "ismcts:iterations=200,c=1.4", "greedy", "random"]
    assert split_entrants("a:x=1,b:y=2") == ["a:x=1", "b:y=2"]


def told(tmp_path, entrant):
    """The options a sandboxed bot named ``entrant`` received in ``start``."""
    (tmp_path / "teller.py").write_text(TELLER)
    registry = Registry(bots_dirs=[tmp_path])
    entry = registry.bot(entrant, "vandtia")
    assert entry.name == entrant  # the entrant as written
    bots = [make_bot(entry), make_bot(registry.bot("random", "vandtia"))]
    try:
        match, _ = play_match(GAME, "cardems", bots, 1)
    finally:
        for b in bots:
            b.close()
    return json.loads(match.result.faults[0].partition("OPTIONS ")[2])


def test_options_reach_the_bot_typed_like_its_declared_defaults(tmp_path):
    assert told(tmp_path, "teller:depth=3,deep=true,c=2") == {
        "depth": 3, "c": 2.0, "deep": True, "label": "x"}
    assert told(tmp_path, "teller") == {"depth": 2, "c": 1.0, "deep": False, "label": "x"}
    assert told(tmp_path, "open:n=3,f=0.5,on=false,s=text") == {
        "n": 3, "f": 0.5, "on": False, "s": "text"}


def test_an_undeclared_or_mistyped_option_is_refused(tmp_path):
    (tmp_path / "teller.py").write_text(TELLER)
    registry = Registry(bots_dirs=[tmp_path])
    for entrant, message in (("teller:width=3", "has no option 'width'"),
                             ("teller:depth=x", "option depth needs a whole number"),
                             ("teller:deep=maybe", "option deep is true or false"),
                             ("random:seed=3", r"has no option 'seed' \(options: none\)")):
        with pytest.raises(ArenaError, match=message):
            registry.bot(entrant, "vandtia")


def arena(*args, db=None):
    env_db = ["--db", db] if db else []
    return subprocess.run([sys.executable, "-m", "arena", *env_db, *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})


@pytest.mark.parametrize("args", [
    ("play", "vandtia", "greedy:depth=3", "random"),
    ("season", "run", "vandtia", "--bots", "greedy,random:speed=fast", "--rounds", "1"),
    ("check-bot", "random:x=1"),
    ("play", "vandtia", "greedy:", "random"),
])
def test_a_bad_option_for_a_reference_bot_is_one_line_and_exit_2(tmp_path, args):
    run = arena(*args, db=f"sqlite:///{tmp_path}/a.db")
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("arena: error: bot ") and "Traceback" not in run.stderr


def test_an_entrant_with_options_is_stored_and_rated_as_written(tmp_path):
    (tmp_path / "teller.py").write_text(TELLER.replace(
        'raise RuntimeError("OPTIONS " + json.dumps(self.options, sort_keys=True))',
        "return legal[self.options['depth'] % len(legal)]"))
    db = f"sqlite:///{tmp_path}/a.db"
    run = arena("--bots-dir", str(tmp_path), "season", "run", "vandtia", "--bots",
                "teller:depth=3,deep=true,teller,random", "--rounds", "1", "--name", "s", db=db)
    assert run.returncode == 0, run.stderr
    board = arena("leaderboard", "vandtia", db=db).stdout
    assert "teller:depth=3,deep=true " in board and "teller " in board
    export = [json.loads(line) for line in arena("season", "export", "s", db=db)
              .stdout.splitlines()]
    assert export[0]["bots"] == ["teller:depth=3,deep=true", "teller", "random"]
