"""How fast ``arena serve`` answers: pages of a 10,000-match league, the live feed's delay
after a batch is stored, and the time a person's move takes (the bots' answers included).

    python benchmarks/serve.py                      # makes the league first (about 30 s)
    python benchmarks/serve.py --db sqlite:///big.db  # a league made before

The league is ``random`` against ``first`` in ``cardems``, 5,000 rounds (10,000 matches), made
by ``arena season run`` as a user would. The server is ``arena serve --port 0`` in a process
of its own; every figure is a wall time seen by a client on the same machine:

* **pages**: each page asked for once after the server starts (cold: made from the
  database) and then 20 times (warm: the server keeps a page until the database changes);
  the median of the warm ones;
* **live feed**: a season runs (real matches, ``random`` against ``greedy``, stored a batch
  at a time as the runner stores them); from each batch stored to the event that says so on
  the season's stream, and to the page's fetch of its new standings and chart - for a
  small season and for the 10,000-match one;
* **moves**: a table against ``random`` bots in each game, a move posted and its answer
  (the bots' moves up to the person's next decision included), over a whole match.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from arena import db
from arena.leagues import league
from arena.leagues.scheduler import SeasonDef
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox import PythonBot

ROUNDS = 5000


def arena(*args, url: str) -> None:
    subprocess.run([sys.executable, "-m", "arena", "--db", url, *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start(url: str) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, "-m", "arena", "--db", url, "serve", "--port",
                               "0"], stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = server.stderr.readline()
    return server, line.split("serving ")[1].split()[0]


def timed(opener, url: str, data: bytes | None = None) -> tuple[float, bytes]:
    t = time.perf_counter()
    with opener.open(urllib.request.Request(url, data=data)) as r:
        body = r.read()
    return time.perf_counter() - t, body


def pages(base: str, engine) -> list[tuple[str, float, float]]:
    opener = urllib.request.build_opener()
    big = db.get_season(engine, "big")
    first = next(db.season_matches(engine, big.id))[0].id
    out = []
    for page in ("index.html", f"season-{big.id}.html", f"match-{first}.html",
                 f"api/season/{big.id}", "humans.html"):
        cold, _ = timed(opener, base + page)
        warm = statistics.median(timed(opener, base + page)[0] for _ in range(20))
        out.append((page, cold, warm))
    return out


class Feed:
    """A season's event stream, read line by line."""

    def __init__(self, base: str, season_id: int):
        parts = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port)
        self.conn.request("GET", f"/events/season/{season_id}")
        self.response = self.conn.getresponse()

    def next_event(self) -> str:
        data = ""
        while True:
            line = self.response.fp.readline().decode()
            if line.startswith("data:"):
                data = line[5:].strip()
            elif line == "\n" and data:
                return data


def live(base: str, engine, registry, season: str | None, batches: int = 12,
         batch: int = 4) -> list[tuple[float, float]]:
    """(to the event, to the page's new standings) per batch stored."""
    game = registry.game("vandtia")
    if season is None:
        row = league.create(engine, registry, SeasonDef(
            "live", "vandtia", "cardems", 2, ("random", "greedy"), 1000, 1))
    else:
        row = db.get_season(engine, season)
        db.set_status(engine, row.id, "running")
    from arena_bots.greedy import GreedyVandtia as Greedy
    from arena_bots.randombot import RandomBot as Random

    feed = Feed(base, row.id)
    feed.next_event()  # the state on connecting
    opener = urllib.request.build_opener()
    fixture = len(db.stored_fixtures(engine, row.id)) + 10**6 * (season is not None)
    out = []
    for _ in range(batches):
        results = []
        for _ in range(batch):
            match, _ = play_match(game, "cardems", [PythonBot(Random()), PythonBot(Greedy())],
                                  fixture, ["random", "greedy"])
            results.append(match.stored(fixture, 0.0))
            fixture += 1
        t = time.perf_counter()
        db.store_results(engine, row.id, results)
        feed.next_event()
        event = time.perf_counter() - t
        timed(opener, f"{base}api/season/{row.id}")
        out.append((event, time.perf_counter() - t))
    return out


def moves(base: str) -> list[tuple[str, int, float, float]]:
    out = []
    for table, opponents in (("vandtia/cardems/2", "random"), ("tractor/deal/4", "random"),
                             ("cherki/standard/3", "random")):
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        form = urllib.parse.urlencode({"table": table, "seat": "0",
                                       "opponents": opponents}).encode()
        with opener.open(base + "play.html", form) as r:
            table_id = r.url.rsplit("table-", 1)[1].split(".")[0]
        api = f"{base}api/table/{table_id}"
        state = json.loads(opener.open(api + "?since=0").read())
        times = []
        while state["status"] == "running":
            body = json.dumps({"action": state["legal"][0], "at": state["moves"],
                               "since": 10**9}).encode()
            t = time.perf_counter()
            with opener.open(urllib.request.Request(api + "/move", body, {
                    "Content-Type": "application/json"})) as r:
                state = json.loads(r.read())
            times.append(time.perf_counter() - t)
        times.sort()
        out.append((table, len(times), statistics.median(times),
                    times[int(0.9 * (len(times) - 1))]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="a database holding season 'big' (default: make one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db
        if url is None:
            url = f"sqlite:///{Path(tmp) / 'big.db'}"
            t = time.perf_counter()
            arena("season", "run", "vandtia", "--variant", "cardems", "--bots", "random,first",
                  "--rounds", str(ROUNDS), "--workers", "2", "--public-seed", "--name", "big",
                  url=url)
            print(f"made a league of {2 * ROUNDS} matches in {time.perf_counter() - t:.0f} s")
        engine = db.connect(url)
        registry = Registry()
        server, base = start(url)
        try:
            print("\npage                     cold ms   warm ms (median of 20)")
            for page, cold, warm in pages(base, engine):
                print(f"{page:24} {1000 * cold:8.1f} {1000 * warm:9.1f}")
            for label, season in (("a new season", None), ("the 10,000-match season", "big")):
                figures = live(base, engine, registry, season)
                event = statistics.median(e for e, _ in figures)
                page = statistics.median(p for _, p in figures)
                print(f"\nlive feed, {label}: a batch stored -> its event {1000 * event:.0f} ms,"
                      f" -> the page's new standings {1000 * page:.0f} ms (medians of "
                      f"{len(figures)} batches)")
            print("\ntable                 moves   median ms   90th pct ms  (a move posted "
                  "and answered, bots included)")
            for table, n, median, p90 in moves(base):
                print(f"{table:20} {n:6} {1000 * median:11.1f} {1000 * p90:13.1f}")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
