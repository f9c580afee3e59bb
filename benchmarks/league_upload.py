"""A submission's time from upload to rated, in a league served by ``arena serve --league``
with one ladder worker (``arena ladder vandtia --serve --bots greedy,random``), as an
author sees it:

    python benchmarks/league_upload.py              # 3 uploads, 50 deals a placement
    python benchmarks/league_upload.py --deals 10 --uploads 5

Each upload is a new single-file bot (a first-legal-action bot under a new name) sent with
``arena submit --to`` as a user would. Times, wall, seen by the client on the same machine:

* **answered**: from the start of ``arena submit --to`` to the server's 202 (the upload
  unpacked and kept; the command's own start included);
* **checked**: to the check's end (``kept``: check-bot in the sandbox, 3 matches a
  variant);
* **rated**: to the placement's last match stored (its season ``done``), its rating then on
  the ladder and the author's page.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena import db
from arena.leagues import accounts

BOT = """
import arena

class Bot:
    def act(self, observation, legal):
        return legal[0]

@arena.hookimpl
def register_bots(register):
    register({name!r}, Bot, games=["vandtia"])
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=3)
    parser.add_argument("--deals", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        home = Path(home)
        url = f"sqlite:///{home / 'a.db'}"
        engine = db.connect(url)
        _, token = accounts.add(engine, "ada")
        base = [sys.executable, "-m", "arena", "--db", url]
        server = subprocess.Popen([*base, "serve", "--port", "0", "--league"],
                                  stderr=subprocess.PIPE, text=True)
        found = re.search(r"serving (http://\S+)", server.stderr.readline())
        worker = subprocess.Popen([*base, "ladder", "vandtia", "--serve", "--bots",
                                   "greedy,random", "--deals", str(args.deals), "--poll",
                                   "0.2"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        rows = []
        try:
            for n in range(args.uploads):
                name = f"upbot{n}"
                path = home / f"{name}.py"
                path.write_text(BOT.format(name=name))
                start = time.perf_counter()
                sent = subprocess.Popen([*base, "submit", str(path), "--to", found.group(1),
                                         "--token", token], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
                sent.stderr.readline()  # "upload N: sent, waiting for its check"
                answered = time.perf_counter() - start
                out, err = sent.communicate()
                assert sent.returncode == 0, err
                checked = time.perf_counter() - start
                season = f"ladder/vandtia/cardems/2p/{name}@1"
                while True:
                    done = [r for r, _ in db.list_seasons(engine)
                            if r.name == season and r.status == "done"]
                    if done:
                        break
                    time.sleep(0.05)
                rated = time.perf_counter() - start
                rows.append((answered, checked, rated, done[0].fixtures))
                print(f"{name}: answered {answered:.2f} s, checked {checked:.2f} s, rated "
                      f"{rated:.2f} s ({done[0].fixtures} matches)", flush=True)
        finally:
            worker.terminate()
            server.terminate()
            worker.wait()
            server.wait()
    for label, i in (("answered", 0), ("checked", 1), ("rated", 2)):
        print(f"median {label}: {statistics.median(r[i] for r in rows):.2f} s")


if __name__ == "__main__":
    main()
