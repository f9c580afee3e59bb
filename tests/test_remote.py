"""Remote bots (``arena connect``, ``arena serve --league``): a bot on its author's machine
plays the league's matches over a websocket, with the same protocol as a local bot - by
arena's own client and by a second client in JavaScript (plugins/remote-node) - and a
client gone mid-match forfeits it by the written rule."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import db
from arena.leagues import accounts

ROOT = Path(__file__).resolve().parent.parent


def _arena(*args, path, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{path}", *args],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, **kw)


def _line(stream, pattern: str) -> str:
    """The first line of ``stream`` that holds ``pattern`` (read as the process writes)."""
    for line in stream:
        if pattern in line:
            return line
    raise AssertionError(f"no line with {pattern!r}")


@pytest.fixture
def league(tmp_path):
    from test_serve import Server

    path = tmp_path / "a.db"
    engine = db.connect(f"sqlite:///{path}")
    _, token = accounts.add(engine, "ada")
    server = Server(path, options=("--league", "--remote-grace", "1"))
    yield server, path, token
    server.stop(signal.SIGKILL)


@pytest.mark.slow
def test_a_remote_bot_in_javascript_plays_a_ladder_placement(league):
    """The second client (plugins/remote-node, no arena there) connects an executable bot;
    a ladder placement plays it against ``random`` (protocol 2, deltas offered, many
    matches in one process), nothing faults, and the ladder marks it remote."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js here (Debian: apt-get install nodejs)")
    server, path, token = league
    client = subprocess.Popen(
        [node, "--experimental-websocket", str(ROOT / "plugins/remote-node/connect.js"),
         server.url, token, "lownode", "vandtia", "0123456789abcdef", "--", node,
         str(ROOT / "plugins/node-bot/lownode.js")], stderr=subprocess.PIPE, text=True)
    try:
        assert "lownode@1 plays from here" in _line(client.stderr, "connected")
        placed = _arena("ladder", "vandtia", "--bots", "random", "--deals", "4",
                        "--format", "json", path=path)
        assert placed.returncode == 0, placed.stderr
        import json

        rows = {r["bot"]: r for r in json.loads(placed.stdout)}
        assert rows["lownode@1"]["remote"] and not rows["random"]["remote"]
        assert rows["lownode@1"]["games"] == 8 and rows["lownode@1"]["faults"] == 0
        engine = db.connect(f"sqlite:///{path}")
        season = db.get_season(engine, "ladder/vandtia/cardems/2p/lownode@1")
        assert season.status == "done"
        text = _arena("ladder", "vandtia", "--bots", "random", path=path).stdout
        assert "(remote)" in text
    finally:
        client.kill()
        client.wait()


@pytest.mark.serial
@pytest.mark.slow
def test_a_remote_bot_gone_mid_match_forfeits_it_after_the_grace_period(league, tmp_path):
    """``arena connect`` plays a match from this machine; killed (-9) in the middle, the
    match goes on waiting for it for the grace period (1 s here), then the remote bot
    forfeits it: ``disconnected``, last place, stored as any forfeit. A token that is not
    valid is refused before anything is connected."""
    from conftest import bot_file

    server, path, token = league
    bots = tmp_path / "mine"
    bots.mkdir()
    # it thinks a little at every move, so that a match of it is in play for a while
    (bots / "thinker.py").write_text(bot_file("thinker", sleep=0.05))
    refused = _arena("--bots-dir", str(bots), "connect", server.url, "thinker", "--token",
                     "arena_t_" + "x" * 43, path=path)
    assert refused.returncode == 2 and "this token is not valid" in refused.stderr
    client = subprocess.Popen(
        [sys.executable, "-m", "arena", "--bots-dir", str(bots), "connect", server.url,
         "thinker", "--token", token], stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert "thinker@1 plays from here" in _line(client.stderr, "connected")
        play = subprocess.Popen(
            [sys.executable, "-m", "arena", "--db", f"sqlite:///{path}", "play", "vandtia",
             "thinker@1", "random", "--seed", "4", "--json"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        _line(client.stderr, "channel 1: a process plays vandtia")
        client.send_signal(signal.SIGKILL)
        gone = time.monotonic()
        out, err = play.communicate(timeout=300)
        assert time.monotonic() - gone >= 1.0  # it was waited for, for the grace period
    finally:
        client.kill()
        client.wait()
    import json

    assert play.returncode == 0, err
    result = json.loads(out)["result"]
    assert result["faults"] == ["disconnected", None] and result["ranks"] == [2, 1], result
