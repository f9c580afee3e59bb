"""A person's seat at ``arena play`` (``human``, ``human:NAME``): what it shows, how it
reads a choice, how its match is stored, and that it shows nothing its seat does not know."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys

import pytest

from arena.cards import SUIT_SYMBOLS
from arena.cli.human import TerminalSeat
from arena.games.cherki import FACE_NAMES
from arena.referee import play_deal_seed, play_match
from arena.sandbox import PythonBot
from arena.views.seat import choose

SYMBOL_SUITS = {v: k for k, v in SUIT_SYMBOLS.items()}
DRAWN = re.compile(r"(?<![\w])(10|[2-9JQKA])([♣♦♥♠])")
WRITTEN = re.compile(r"(?<![\w])(10[CDHS]|[2-9JQKA][CDHS]|SJ|BJ)(?![\w])")
TILES = re.compile(r"(?<![\w])(" + "|".join(FACE_NAMES) + r")(?![\w])")


def arena(*args, db_path, stdin: str = "", env=None):
    env = {**os.environ, "COLUMNS": "200", "ARENA_DB": f"sqlite:///{db_path}", **(env or {})}
    return subprocess.run([sys.executable, "-m", "arena", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=600)


def cards_shown(game: str, text: str) -> set[str]:
    if game == "cherki":
        return set(TILES.findall(text))
    return ({rank + SYMBOL_SUITS[suit] for rank, suit in DRAWN.findall(text)}
            | set(WRITTEN.findall(text)))


def strings(value) -> set[str]:
    """Every string in an observation (cards and all)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


class Last:
    def act(self, observation, legal):
        return legal[-1]


@pytest.mark.parametrize(("game_name", "variant", "players", "seat"), [
    ("vandtia", "cardems", 2, 0), ("vandtia", "swedish", 3, 1), ("tractor", "deal", 4, 2),
    ("cherki", "standard", 3, 1)])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_person_is_shown_no_card_its_seat_has_not_seen(registry, monkeypatch, capsys,
                                                         game_name, variant, players, seat,
                                                         seed):
    """At every decision, each card the person's screen names is one of its observations
    so far named: what happened since its last decision (the per-seat transcript) and its
    view show nothing hidden from its seat."""
    import io

    game = registry.game(game_name)
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5000))
    state = game.new_state(variant, players, seed, record=True)
    names = [f"p{i}" for i in range(players)]
    known: set[str] = set()
    checked = []

    class Watched(TerminalSeat):
        def act(self, observation, legal):
            known.update(strings(observation), strings(legal))
            return super().act(observation, legal)

        def _read(self, legal):
            shown = capsys.readouterr().out
            leaked = cards_shown(game_name, shown) - known
            assert not leaked, (leaked, shown)
            checked.append(len(shown))
            return super()._read(legal)

    person = Watched("human", lambda: state.events, names)
    seats = [person if i == seat else PythonBot(Last()) for i in range(players)]
    match, _ = play_match(game, variant, seats, seed, names, state=state)
    assert match.result.faults == [None] * players
    assert len(checked) >= 3 and all(checked)


def test_a_key_an_action_or_its_cards_choose_and_anything_else_does_not():
    legal = ["play 7H", "play 7H 7S", "play 9C", "pickup"]
    assert choose("1", legal) == "play 7H" and choose("4", legal) == "pickup"
    assert choose("play 9c", legal) == "play 9C" and choose(" 9C ", legal) == "play 9C"
    assert choose("7H 7S", legal) == "play 7H 7S"
    assert choose("5", legal) is None and choose("play 8D", legal) is None
    assert choose("", legal) is None and choose("q", legal) is None
    many = [f"pick {r}H" for r in "23456789"] + ["pick 10H", "pick JH", "pick QH"]
    assert choose("9", many) == "pick 10H" and choose("a", many) == "pick JH"


@pytest.mark.slow
@pytest.mark.parametrize(("args", "seat", "answers"), [
    (("vandtia", "human:Ada", "greedy", "--variant", "cardems"), 0, "?\nzz\n"),
    (("tractor", "human", "greedy", "greedy", "random", "--variant", "deal"), 0, ""),
    (("cherki", "random", "greedy", "human:Bo"), 2, "")])
def test_a_person_plays_a_whole_match_from_a_script_and_it_is_stored_and_verified(
        tmp_path, args, seat, answers):
    db_path = tmp_path / "a.db"
    out = arena("play", *args, "--seed", "4", db_path=db_path,
                stdin=answers + "1\n" * 3000)
    assert out.returncode == 0, out.stderr[-3000:]
    person = [a for a in args if a.startswith("human")][0]
    assert f"you are seat {seat} ({person})" in out.stdout
    assert "your hand:" in out.stdout and "result:" in out.stdout
    if "?" in answers:
        assert "draw-and-try" in out.stdout  # the help
        assert "not an action here: 'zz'" in out.stdout
    found = re.search(r"stored as match (\d+) \(season (human/\S+)\)", out.stderr)
    assert found, out.stderr
    match_id, season = found.groups()
    exported = arena("season", "export", season, db_path=db_path)
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "m.jsonl").write_text(exported.stdout)
    verified = arena("verify", str(tmp_path / "m.jsonl"), db_path=db_path)
    assert verified.returncode == 0 and "1 match(es) verified" in verified.stdout, verified
    replayed = json.loads(arena("replay", match_id, "--json", db_path=db_path).stdout)
    assert replayed["seats"][seat] == person and replayed["season"] == season
    # its deal is the one arena play --seed 4 deals under the same secret
    season, stored = (json.loads(line) for line in exported.stdout.splitlines()[:2])
    assert stored["deal_seed"] == play_deal_seed(season["secret"], 4)
    assert season["seed"] == 4 and season["options"]["kind"] == "human"


def _status(db_path, name_prefix="human/"):
    rows = sqlite3.connect(db_path).execute(
        "SELECT name, status, options FROM seasons WHERE name LIKE ?",
        (name_prefix + "%",)).fetchall()
    return [(n, s, json.loads(o)) for n, s, o in rows]


def test_the_end_of_the_input_abandons_the_match_and_stores_no_result(tmp_path):
    db_path = tmp_path / "a.db"
    out = arena("play", "vandtia", "human", "greedy", "--variant", "cardems", "--seed", "1",
                db_path=db_path, stdin="1\n")
    assert out.returncode == 130, out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("arena: match abandoned at move")
    assert "Traceback" not in out.stderr
    [(name, status, options)] = _status(db_path)
    assert status == "abandoned" and options["abandoned_at_move"] in range(0, 20)
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT COUNT(*) FROM matches").fetchone() == (0,)
    resumed = arena("season", "resume", name, db_path=db_path)
    assert resumed.returncode == 2 and "is not resumed" in resumed.stderr


@pytest.mark.serial
def test_ctrl_c_at_a_decision_abandons_the_match(tmp_path):
    db_path = tmp_path / "a.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "cherki", "human", "greedy", "random",
         "--seed", "3"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "COLUMNS": "200", "ARENA_DB": f"sqlite:///{db_path}"})
    for line in proc.stdout:  # the person is asked: the actions are listed
        if line.lstrip().startswith("1  "):
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130 and "match abandoned" in err and "Traceback" not in err, err
    [(_, status, _)] = _status(db_path)
    assert status == "abandoned"


def test_a_persons_matches_stay_out_of_the_bot_league_unless_named(tmp_path):
    db_path = tmp_path / "a.db"
    assert arena("season", "run", "vandtia", "--variant", "cardems", "--bots",
                 "greedy,random", "--rounds", "2", "--seed", "1", "--name", "bots",
                 db_path=db_path).returncode == 0
    out = arena("play", "vandtia", "human:Ada", "random", "--variant", "cardems",
                db_path=db_path, stdin="1\n" * 2000)
    assert out.returncode == 0, out.stderr[-2000:]
    [(name, status, _)] = _status(db_path)
    assert status == "done"
    league = arena("leaderboard", "vandtia", "--variant", "cardems", "--format", "json",
                   db_path=db_path)
    assert {r["bot"] for r in json.loads(league.stdout)} == {"greedy", "random"}
    own = arena("leaderboard", "vandtia", "--variant", "cardems", "--season", name,
                "--format", "json", db_path=db_path)
    assert {r["bot"] for r in json.loads(own.stdout)} == {"human:Ada", "random"}
    assert arena("play", "vandtia", "human:Bo", "greedy", "--variant", "cardems",
                 db_path=db_path, stdin="1\n" * 2000).returncode == 0
    people = json.loads(arena("leaderboard", "vandtia", "--variant", "cardems", "--humans",
                              "--format", "json", db_path=db_path).stdout)
    assert sorted((r["bot"], r["games"]) for r in people) == [
        ("greedy", 1), ("human:Ada", 1), ("human:Bo", 1), ("random", 1)]
    both = arena("leaderboard", "vandtia", "--humans", "--season", name, db_path=db_path)
    assert both.returncode == 2 and "give one of them" in both.stderr


def test_a_person_takes_one_seat_and_a_name_is_one_word(tmp_path):
    db_path = tmp_path / "a.db"
    for args, message in [
        (("tractor", "human", "greedy"), "a person plays one seat"),
        (("vandtia", "human:", "greedy"), "a human seat is 'human' or 'human:NAME'"),
        (("vandtia", "human:A B", "greedy"), "a human seat is 'human' or 'human:NAME'"),
        (("vandtia", "human", "nobody"), "unknown bot 'nobody'"),
    ]:
        out = arena("play", *args, db_path=db_path)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(lines) == 1 and message in lines[0], out.stderr


@pytest.mark.slow
def test_on_a_terminal_one_key_chooses_and_enter_opens_a_line(tmp_path):
    """A real pseudo-terminal: each move is one key, without Enter; once, Enter and an
    action typed whole; once, ? for the help. A key is sent once the seat reads the
    terminal key by key (raw mode: switching to it drops what was typed before)."""
    import pty
    import select
    import termios

    db_path = tmp_path / "a.db"
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "vandtia", "human", "greedy", "--variant",
         "cardems", "--seed", "5"], stdin=child, stdout=child, stderr=child, close_fds=True,
        env={**os.environ, "COLUMNS": "200", "ARENA_DB": f"sqlite:///{db_path}"})
    terminal = os.ttyname(child)
    os.close(child)

    def wait_for_raw_mode():  # the terminal's mode, as the seat's side sees it
        while True:
            fd = os.open(terminal, os.O_RDWR | os.O_NOCTTY)
            try:
                if not termios.tcgetattr(fd)[3] & termios.ICANON:
                    return
            finally:
                os.close(fd)
            select.select([], [], [], 0.01)

    seen, typed, helped, keys = "", None, False, 0
    while True:
        ready, _, _ = select.select([main], [], [], 300)
        assert ready, seen[-2000:]
        try:
            chunk = os.read(main, 65536).decode(errors="replace")
        except OSError:  # the other end closed: the match is over
            break
        if not chunk:
            break
        seen += re.sub(r"\x1b\[[0-9;]*m", "", chunk).replace("\r\n", "\n")
        assert "not an action here" not in seen, seen[-2000:]  # the typed line was taken
        if typed is not None and seen.endswith("action: "):
            os.write(main, (typed + "\r").encode())  # a line, in the terminal's line mode
            continue
        if not seen.endswith("(key, or Enter to type): "):  # the prompt, and nothing after
            continue
        wait_for_raw_mode()
        if not helped:
            os.write(main, b"?")
            helped = True
        elif typed is None and "\n1  play " in seen:
            row = seen[seen.rindex("\n1  play ") + 1:].split("\n")[0].strip()
            typed = re.split(r"\s{2,}", row)[-1]  # the action as written: "play 7H"
            os.write(main, b"\r")  # Enter: a line to type the action on
        else:
            os.write(main, b"1")
            keys += 1
        seen = seen[-5000:]
    os.close(main)
    assert proc.wait(timeout=300) == 0, seen[-2000:]
    assert helped and typed and typed.startswith("play ") and keys > 5
    rows = sqlite3.connect(db_path).execute("SELECT status FROM seasons").fetchall()
    assert rows == [("done",)]
