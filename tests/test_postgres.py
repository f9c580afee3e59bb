"""PostgreSQL: the same code with a postgresql+psycopg URL, and two runners sharing it.

Needs a real server: ``ARENA_TEST_PG`` (default
``postgresql+psycopg://postgres:arena@localhost/arena_test``; ``.ci/run`` installs and starts
one). Without a reachable server every test here is skipped, saying so."""

import json
import subprocess
import sys

from arena import db


def arena(*args, url):
    return subprocess.Popen([sys.executable, "-m", "arena", "--db", url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def board(url, season):
    out = subprocess.run([sys.executable, "-m", "arena", "--db", url, "leaderboard", "vandtia",
                          "--season", season, "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


RUN = ("season", "run", "vandtia", "--bots", "random,greedy,lowball", "--rounds", "12",
       "--seed", "3", "--workers", "2", "--public-seed")  # runs compared


def test_a_season_on_postgresql_equals_the_same_season_on_sqlite(pg, tmp_path):
    lite = f"sqlite:///{tmp_path}/a.db"
    for url in (pg, lite):
        run = arena(*RUN, "--name", "same", url=url)
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    assert board(pg, "same") == board(lite, "same")
    assert (list(db.results(db.connect(pg), "vandtia", "cardems", 2))
            == list(db.results(db.connect(lite), "vandtia", "cardems", 2)))


def test_two_runners_and_a_reader_share_one_database(pg, tmp_path):
    runs = [arena(*RUN, "--name", name, url=pg) for name in ("left", "right")]
    readers = 0
    while any(r.poll() is None for r in runs):
        out = subprocess.run([sys.executable, "-m", "arena", "--db", pg, "leaderboard",
                              "vandtia", "--format", "csv"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        readers += 1
    assert [r.wait() for r in runs] == [0, 0], [r.stderr.read()[-300:] for r in runs]
    assert readers
    engine = db.connect(pg)
    for name in ("left", "right"):
        season = db.get_season(engine, name)
        assert season.status == "done"
        assert len(db.stored_fixtures(engine, season.id)) == season.fixtures == 72
    assert board(pg, "left") == board(pg, "right"), "same definition, same results"
    league = db.stored_ratings(engine, "vandtia/cardems/2", None)
    assert sorted(r["bot"] for r in league) == ["greedy", "lowball", "random"]
    assert {r["games"] for r in league} == {96}, "the league ratings hold both seasons, once"


def test_the_schema_is_made_once_by_runners_starting_together(pg):
    procs = [arena("season", "list", url=pg) for _ in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0] * 4
