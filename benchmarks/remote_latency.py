"""A remote bot's added time per move: the same bot played locally and remotely
(``arena connect`` to ``arena serve --league`` on this machine), as the runner times its
moves (question sent to answer read: ``move_mean_s``, stored per seat and match):

    python benchmarks/remote_latency.py                 # 20 rounds of Vändtia each way
    python benchmarks/remote_latency.py --rounds 50 --inflight 16

The bot plays the last legal action and nothing else, so its figure is the path alone: the
runner, the server's relay (an abstract Unix socket and a websocket on the loopback),
``arena connect`` and the bot's own sandboxed process on the far side - against the same
process started by the runner here. On one machine, so the network's own round trip adds
to it wherever the author is.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BOT = """
import arena

class Bot:
    def act(self, observation, legal):
        return legal[-1]

@arena.hookimpl
def register_bots(register):
    register({name!r}, Bot, games=["vandtia"])
"""


def moves(db_path: Path, bot: str) -> list[float]:
    with sqlite3.connect(db_path) as conn:
        return [r[0] for r in conn.execute(
            "SELECT move_mean_s FROM seat_results WHERE bot = ? AND move_mean_s IS NOT NULL",
            (bot,))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--inflight", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        home = Path(home)
        (home / "local").mkdir()
        (home / "far").mkdir()
        (home / "local" / "near.py").write_text(BOT.format(name="near"))
        (home / "far" / "far.py").write_text(BOT.format(name="far"))
        path = home / "a.db"
        base = [sys.executable, "-m", "arena", "--db", f"sqlite:///{path}"]
        token = subprocess.run([*base, "user", "add", "ada"], capture_output=True, text=True,
                               check=True).stdout.strip()
        server = subprocess.Popen([*base, "serve", "--port", "0", "--league"],
                                  stderr=subprocess.PIPE, text=True)
        url = re.search(r"serving (http://\S+)", server.stderr.readline()).group(1)
        client = subprocess.Popen([sys.executable, "-m", "arena", "--bots-dir",
                                   str(home / "far"), "connect", url, "far", "--token", token],
                                  stderr=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            for line in client.stderr:
                if "plays from here" in line:
                    break
            for bots, name in (("near,random", "local"), ("far@1,random", "remote")):
                subprocess.run([*base, "--bots-dir", str(home / "local"), "season", "run",
                                "vandtia", "--bots", bots, "--rounds", str(args.rounds),
                                "--name", name, "--workers", "1", "--inflight",
                                str(args.inflight), "--public-seed"], check=True,
                               stdout=subprocess.DEVNULL)
            near, far = moves(path, "near"), moves(path, "far@1")
        finally:
            client.kill()
            server.terminate()
            client.wait()
            server.wait()
    a, b = statistics.mean(near), statistics.mean(far)
    print(f"local bot:  {1e3 * a:.3f} ms a move (mean of {len(near)} matches)")
    print(f"remote bot: {1e3 * b:.3f} ms a move (mean of {len(far)} matches)")
    print(f"added by the remote path: {1e3 * (b - a):.3f} ms a move (K={args.inflight})")


if __name__ == "__main__":
    main()
