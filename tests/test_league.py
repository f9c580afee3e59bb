"""Seasons: schedule, ratings, storage, resume after SIGKILL, exports."""

import csv
import io
import json
import math
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path

import pytest
from conftest import CRASHER
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from arena import db
from arena.bench import SECOND_RANDOM
from arena.errors import ArenaError
from arena.games.vandtia import GAME
from arena.leagues import league, stats
from arena.leagues.ratings import Rater, Standing, rate
from arena.leagues.scheduler import (
    SeasonDef,
    batches,
    default_batch,
    fixture_count,
    fixtures,
    round_groups,
)
from arena.referee import ASKING
from arena.views import leaderboard as views

SECRET = "a secret shared by the seasons that are compared"


def defn(**kw):
    base = {"name": "s", "game": "vandtia", "variant": "cardems", "players": 2,
            "bots": ("a", "b", "c", "d"), "rounds": 3, "seed": 5, "secret": SECRET}
    return SeasonDef(**{**base, **kw})


def test_two_player_rounds_hold_every_pair_in_both_seatings_on_one_deal():
    fx = list(fixtures(defn()))
    assert len(fx) == fixture_count(defn()) == 3 * 6 * 2
    for rnd in range(3):
        this = [f for f in fx if f.round == rnd]
        assert {frozenset(f.seats) for f in this} == {frozenset(p) for p in
                                                      combinations("abcd", 2)}
        by_seed = Counter(f.seed for f in this)
        assert set(by_seed.values()) == {2}, "each deal is played in both seat rotations"
        for seed in by_seed:
            a, b = [f.seats for f in this if f.seed == seed]
            assert a == b[::-1]
    assert [f.index for f in fx] == list(range(len(fx)))


def test_n_player_groups_are_every_combination_in_every_rotation():
    d = defn(variant="german", players=3, bots=tuple("abcde"))
    this = [f for f in fixtures(d) if f.round == 0]
    assert len(this) == 10 * 3
    seats = Counter((f.seats.index(b)) for f in this for b in f.seats if b == "a")
    assert set(seats.values()) == {seats[0]}, "every bot sits in every seat equally often"


def test_too_many_combinations_are_sampled_in_balanced_tables():
    bots = tuple(f"b{i}" for i in range(12))
    d = defn(variant="german", players=4, bots=bots, rounds=60)
    assert fixture_count(d) == len(list(fixtures(d))) == 60 * 3 * 4
    meets = Counter()
    for tables in round_groups(d):
        assert len(tables) == 3 and Counter(b for t in tables for b in t) == Counter(bots)
        for t in tables:
            meets.update(frozenset(p) for p in combinations(t, 2))
    assert len(meets) == 66 and max(meets.values()) <= min(meets.values()) + 4


def test_the_schedule_is_a_pure_function_of_the_definition():
    assert list(fixtures(defn())) == list(fixtures(defn()))
    assert [f.seed for f in fixtures(defn(seed=6))] != [f.seed for f in fixtures(defn())]


def test_the_root_seed_fixes_the_schedule_and_the_secret_every_deal():
    other = defn(secret="another secret of at least sixteen")
    assert [f.seats for f in fixtures(other)] == [f.seats for f in fixtures(defn())]
    assert not {f.seed for f in fixtures(other)} & {f.seed for f in fixtures(defn())}
    assert SeasonDef("s", "vandtia", "cardems", 2, ("a", "b"), 1, 5).secret != SeasonDef(
        "s", "vandtia", "cardems", 2, ("a", "b"), 1, 5).secret, "a fresh secret by default"


def _results(n=60, seed=1):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        seats = rng.sample(["a", "b", "c"], 2)
        ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
        out.append((seats, ranks, [0, 0], [None, None]))
    return out


def test_ratings_depend_on_fixture_order_only():
    results = _results()
    assert rate(results) == rate(list(results))
    shuffled = results[:]
    random.Random(3).shuffle(shuffled)
    assert rate(shuffled) != rate(results), "order matters, so it must be fixture order"


@settings(max_examples=300, deadline=None)
@given(st.floats(-30, 80), st.floats(0.5, 9), st.floats(-30, 80), st.floats(0.5, 9),
       st.sampled_from([[1, 2], [2, 1], [1, 1]]), st.sampled_from([0.01, 0.03, 0.05, 0.2]))
def test_the_two_seat_update_is_trueskills_own(mu_a, sigma_a, mu_b, sigma_b, ranks, draw):
    rater = Rater(draw)
    env = rater.env
    try:
        (ra,), (rb,) = env.rate([(env.create_rating(mu_a, sigma_a),),
                                 (env.create_rating(mu_b, sigma_b),)], [r - 1 for r in ranks])
    except FloatingPointError:
        return  # beyond the library's own numeric range
    a, b = Standing("a", mu_a, sigma_a), Standing("b", mu_b, sigma_b)
    rater._rate_two(a, b, ranks)
    assert (a.mu, a.sigma, b.mu, b.sigma) == pytest.approx((ra.mu, ra.sigma, rb.mu, rb.sigma),
                                                            rel=1e-9, abs=1e-9)


def test_more_seats_go_through_the_trueskill_library():
    rater = Rater()
    rater.add(["a", "b", "c"], [1, 2, 2], [2, -1, -1], [None] * 3)
    env = rater.env
    expected = env.rate([(env.create_rating(),)] * 3, ranks=[0, 1, 1])
    assert [rater.table[b].mu for b in "abc"] == [r.mu for (r,) in expected]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.sets(st.integers(0, 35)))
def test_batches_are_fixed_by_fixture_index(size, done):
    d = defn(batch=size)
    got = list(batches(d, done))
    assert [f.index for b in got for f in b] == [i for i in range(36) if i not in done]
    for batch in got:
        assert batch and len({f.index // size for f in batch}) == 1


def test_the_default_batch_is_the_games_but_a_short_season_gets_sixteen_of_eight_or_more(
        registry):
    def batch(game, variant, players, rounds):
        d = SeasonDef("b", game, variant, players, ("random", "greedy", "x", "y"), rounds, 1)
        return default_batch(registry.game(game), d), fixture_count(d)

    assert batch("vandtia", "cardems", 2, 1000) == (512, 12000)
    assert batch("vandtia", "cardems", 2, 10) == (8, 120)  # 120 fixtures: 15 batches
    assert batch("cherki", "standard", 3, 1000)[0] == 256
    assert batch("tractor", "deal", 4, 1000)[0] == 128
    assert batch("tractor", "match", 4, 1000)[0] == 8
    assert batch("vandtia", "cardems", 2, 1) == (8, 12)  # two batches, not twelve
    assert batch("vandtia", "cardems", 2, 4) == (8, 48)


def test_each_game_sets_its_own_draw_probability(tmp_path, registry):
    engine = db.connect(f"sqlite:///{tmp_path}/d.db")
    _season(engine, registry, rounds=3)
    results = list(db.results(engine, "vandtia", "cardems", 2))
    assert GAME.draw_probability == 0.03
    got = league.standings(engine, registry, "vandtia", "cardems", 2, None)
    assert got == rate(results, GAME.draw_probability) != rate(results, 0.3)


@pytest.fixture
def engine(tmp_path):
    return db.connect(f"sqlite:///{tmp_path}/arena.db")


def _season(engine, registry, name="spring", rounds=4, executor=None, batch=32, stop=None):
    row = league.create(engine, registry, SeasonDef(
        name, "vandtia", "cardems", 2, ("random", "greedy", "lowball"), rounds, 11, batch,
        secret=SECRET))
    league.play(engine, registry, row, executor=executor, on_batch=stop)
    return db.get_season(engine, name)


def test_a_season_is_stored_rated_and_greedy_ranks_above_random(engine, registry):
    row = _season(engine, registry, rounds=10)
    assert row.status == "done" and len(db.stored_fixtures(engine, row.id)) == 60
    standings = league.standings(engine, registry, "vandtia", "cardems", 2, "spring")
    order = [s.bot for s in standings]
    assert order.index("greedy") < order.index("random")


def test_completion_order_does_not_change_results_or_ratings(tmp_path, registry):
    a = db.connect(f"sqlite:///{tmp_path}/a.db")
    b = db.connect(f"sqlite:///{tmp_path}/b.db")
    _season(a, registry, executor=ThreadPoolExecutor(1))
    _season(b, registry, executor=ThreadPoolExecutor(4))
    assert list(db.results(a, "vandtia", "cardems", 2)) == list(db.results(b, "vandtia",
                                                                            "cardems", 2))
    sa = league.standings(a, registry, "vandtia", "cardems", 2, None)
    sb = league.standings(b, registry, "vandtia", "cardems", 2, None)
    assert views.to_json(sa) == views.to_json(sb)


class Stop(Exception):
    pass


@pytest.mark.slow
def test_a_resumed_season_rates_stored_and_new_matches_in_fixture_order(tmp_path, registry):
    whole = db.connect(f"sqlite:///{tmp_path}/whole.db")
    _season(whole, registry, rounds=6, batch=3)
    parts = db.connect(f"sqlite:///{tmp_path}/parts.db")
    seen = []

    def stop_after_five(results, rater):  # batches finish out of order on four threads
        seen.append(results)
        if len(seen) == 5:
            raise Stop
    with pytest.raises(Stop):
        _season(parts, registry, rounds=6, batch=3, executor=ThreadPoolExecutor(4),
                stop=stop_after_five)
    stored = db.stored_fixtures(parts, 1)
    assert 0 < len(stored) < 36 and db.get_season(parts, "spring").status == "running"
    league.play(parts, registry, db.get_season(parts, "spring"))
    for season_id in (1, None):
        assert (db.stored_ratings(parts, "vandtia/cardems/2", season_id)
                == db.stored_ratings(whole, "vandtia/cardems/2", season_id))
    replayed = league.standings(parts, registry, "vandtia", "cardems", 2, "spring")
    assert [(r["bot"], r["mu"], r["sigma"]) for r in db.stored_ratings(parts, "vandtia/cardems/2",
                                                                       1)] == [
        (s.bot, s.mu, s.sigma) for s in replayed]


def test_league_ratings_span_every_season_of_the_league(engine, registry):
    _season(engine, registry, name="one", rounds=2)
    _season(engine, registry, name="two", rounds=2)
    league_rows = db.stored_ratings(engine, "vandtia/cardems/2", None)
    assert {r["games"] for r in league_rows} == {16}
    assert [r["mu"] for r in league_rows] == [
        s.mu for s in league.standings(engine, registry, "vandtia", "cardems", 2, None)]


def test_leaderboard_json_and_csv_round_trip(engine, registry):
    _season(engine, registry)
    standings = league.standings(engine, registry, "vandtia", "cardems", 2, None)
    data = json.loads(views.to_json(standings))
    assert [d["bot"] for d in data] == [s.bot for s in standings]
    assert {"bot", "mu", "sigma", "score", "games", "wins", "draws", "losses",
            "faults"} <= set(data[0])
    rows = list(csv.DictReader(io.StringIO(views.to_csv(standings))))
    assert [{k: "" if v is None else str(v) for k, v in d.items()} for d in data] == rows


def test_a_season_name_that_exists_is_refused(engine, registry):
    _season(engine, registry, rounds=1)
    with pytest.raises(Exception, match="exists"):
        _season(engine, registry, rounds=1)


AWK = Path(__file__).resolve().parents[1] / "plugins" / "awk-bot"


@pytest.mark.parametrize("kind", ["file", "exec"])
def test_a_season_whose_bot_changed_says_how_and_finishes_with_the_code_it_began_with(
        tmp_path, kind):
    """A bots folder's bot changed after its season began: the season never plays the new
    code. Resuming says which file changed and how to finish with the code it began with,
    which the database keeps: ``season export-bots`` writes it, and a resume from that
    folder plays it - the same results as a season never interrupted. An executable's
    manifest and own files are kept together, where they were beside each other."""
    from arena.plugins import Registry

    folder = tmp_path / "bots"
    folder.mkdir()
    if kind == "file":
        bot, first = folder / "mine.py", SECOND_RANDOM.replace("random-2", "mine")
        bot.write_text(first)
        files = {"mine.py": first}
    else:  # the awk example, its program in a folder of its own
        (folder / "awk").mkdir()
        bot, first = folder / "awk" / "mine.awk", (AWK / "lowawk.awk").read_text()
        bot.write_text(first)
        manifest = (AWK / "lowawk.toml").read_text().replace('"lowawk"', '"mine"').replace(
            "lowawk.awk", "awk/mine.awk")
        (folder / "mine.toml").write_text(manifest)
        files = {"mine.toml": manifest, "awk/mine.awk": first}
    database = tmp_path / "arena.db"
    engine = db.connect(f"sqlite:///{database}")
    row = league.create(engine, Registry(bots_dirs=[folder]), SeasonDef(
        "s", "vandtia", "cardems", 2, ("random", "mine"), 2, 1))
    bot.write_text(first + "\n# a new version\n")
    with pytest.raises(ArenaError, match="bot 'mine' has changed since season 's' started"):
        league.play(engine, Registry(bots_dirs=[folder]), row)
    assert db.stored_fixtures(engine, row.id) == set()
    proc = arena("--bots-dir", str(folder), "season", "resume", "s", db_path=database)
    _, err = proc.communicate(timeout=120)
    recorded = json.loads(row.options)["code_hashes"]["mine"]
    where = bot if kind == "file" else folder / "mine.toml"
    assert proc.returncode == 2 and err.splitlines() == [
        f"arena: error: bot 'mine' has changed since season 's' started: {where} is not the "
        f"code it began with (sha256 {recorded[:12]}, now "
        f"{Registry(bots_dirs=[folder]).bot('mine', 'vandtia').code_hash[:12]}); that "
        "code is kept: 'arena season export-bots s DIR' writes it, and 'arena --bots-dir DIR "
        "season resume s' finishes the season with it (a new season plays the new code)"]

    kept = tmp_path / "kept"
    proc = arena("season", "export-bots", "s", str(kept), db_path=database)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert sorted(out.splitlines()) == sorted(str(kept / name) for name in files)
    assert {name: (kept / name).read_text() for name in files} == files
    proc = arena("--bots-dir", str(kept), "season", "resume", "s", db_path=database)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert db.stored_fixtures(engine, row.id) == set(range(row.fixtures))

    # the same season, never interrupted, with the first code: the same results
    again = tmp_path / "again.db"
    other = db.connect(f"sqlite:///{again}")
    league.play(other, Registry(bots_dirs=[kept]), league.create(
        other, Registry(bots_dirs=[kept]), SeasonDef("s", "vandtia", "cardems", 2,
                                                     ("random", "mine"), 2, 1,
                                                     secret=row.secret)))
    assert _replays(engine) == _replays(other)


def test_an_executables_own_program_is_its_code(tmp_path):
    """A program in the bot's folder (a compiled bot, say) is part of its code hash, as its
    manifest and own files are; a program of the system is not."""
    from arena.plugins import Registry

    program = tmp_path / "mine.sh"
    program.write_text("#!/bin/sh\nexec awk -W interactive -f \"$1\"\n")
    program.chmod(0o755)
    (tmp_path / "mine.awk").write_text((AWK / "lowawk.awk").read_text())
    (tmp_path / "mine.toml").write_text('name = "mine"\ngames = ["vandtia"]\n'
                                        'command = ["./mine.sh", "mine.awk"]\n')
    before = Registry(bots_dirs=[tmp_path]).bot("mine", "vandtia")
    assert before.spec["code_files"] == [str(tmp_path / n) for n in ("mine.toml", "mine.sh",
                                                                      "mine.awk")]
    program.write_text(program.read_text() + "# changed\n")
    assert Registry(bots_dirs=[tmp_path]).bot("mine", "vandtia").code_hash != before.code_hash


def _replays(engine) -> list:
    with db.Session(engine) as session:
        return sorted((m.fixture, m.replay) for m in session.exec(db.select(db.MatchRow)))


@pytest.mark.parametrize("option, message", [
    ("asking", "began under a referee that asked bots every move"),  # forced moves asked
    ("rules", r"began under older Vändtia legal actions \(rules version 1, now 3\)"),
])
def test_a_season_begun_under_other_rules_is_not_resumed(engine, registry, option, message):
    row = league.create(engine, registry, SeasonDef(
        "old", "vandtia", "cardems", 2, ("random", "greedy"), 2, 1))
    assert json.loads(row.options)["asking"] == ASKING
    assert json.loads(row.options)["rules"] == registry.game("vandtia").rules_version == 3
    with db.Session(engine) as session:  # as a season stored before the rule was
        stored = session.get(db.SeasonRow, row.id)
        options = json.loads(stored.options)
        del options[option]
        stored.options = json.dumps(options)
        session.add(stored)
        session.commit()
        session.refresh(stored)
    with pytest.raises(ArenaError, match=message):
        league.play(engine, registry, stored)
    assert db.stored_fixtures(engine, row.id) == set()


def arena(*args, db_path, env=None, **kw):
    env = env or {**os.environ, "ARENA_DB": f"sqlite:///{db_path}"}
    return subprocess.Popen([sys.executable, "-m", "arena", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _export(db_path, season):
    out = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                          "leaderboard", "vandtia", "--season", season, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    engine = db.connect(f"sqlite:///{db_path}")
    return out, list(db.results(engine, "vandtia", "cardems", 2, season))


RUN = ("season", "run", "vandtia", "--bots", "random,greedy,lowball", "--rounds", "12",
       "--seed", "3", "--name", "k", "--workers", "2")
MATCHES = 72  # RUN's: 3 pairs of bots, 12 rounds, 2 seatings


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``RUN`` with a secret shared by every run of the module, so their results compare."""
    path = tmp_path_factory.mktemp("run") / "secret"
    path.write_text(SECRET)
    return (*RUN, "--secret-from", str(path))


@pytest.fixture(scope="module")
def whole(run, tmp_path_factory):
    """``RUN`` played straight through, once for the module: what every killed, locked or
    stopped run of it must end at."""
    path = tmp_path_factory.mktemp("whole") / "whole.db"
    proc = arena(*run, db_path=path)
    assert proc.wait(timeout=600) == 0, finished(proc)
    return _export(path, "k")


def finished(proc) -> str:
    """Wait for ``proc``; its stderr, for the assertion message."""
    _, err = proc.communicate(timeout=600)
    return err


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_season_killed_with_sigkill_resumes_to_the_same_results(tmp_path, run, whole):
    killed = tmp_path / "killed.db"
    rng = random.Random(7)
    stored = 0
    for attempt in range(3):  # killed once at least 1, 8 and 15 more matches are stored
        args = run if attempt == 0 else ("season", "resume", "k", "--workers", "2")
        proc = arena(*args, db_path=killed, start_new_session=True)
        stored = wait_for_matches(killed, stored + rng.choice([1, 8, 15]), proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert stored < MATCHES, "killed mid-season"
    proc = arena("season", "resume", "k", db_path=killed)
    assert proc.wait(timeout=600) == 0, finished(proc)
    assert _export(killed, "k") == whole


def _count(db_path, table):
    with sqlite3.connect(db_path, timeout=30) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def wait_for_matches(path, at_least: int, proc) -> int:
    """Wait until ``path`` holds ``at_least`` stored matches (an observable event, however
    slow the machine); fails with the runner's stderr if it ends first."""
    while True:
        try:
            if path.exists() and (n := _count(path, "matches")) >= at_least:
                return n
        except sqlite3.OperationalError:  # the runner has not made the schema yet
            pass
        if proc.poll() is not None:
            pytest.fail(f"the runner ended before {at_least} matches were stored: "
                        f"{proc.stderr.read()}")
        time.sleep(0.02)


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_database_locked_mid_season_stops_with_one_line_and_nothing_half_written(tmp_path,
                                                                                   run, whole):
    path = tmp_path / "locked.db"
    proc = arena(*run, "--batch", "4", db_path=path)
    wait_for_matches(path, 8, proc)
    lock = sqlite3.connect(path, timeout=30)
    lock.execute("BEGIN EXCLUSIVE")  # another program takes the database away
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        lock.rollback()
        lock.close()
    assert proc.returncode == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "arena: error: database: database is locked; what was stored stays, and 'arena "
        "season resume k' goes on once that is fixed")
    matches = _count(path, "matches")
    assert 8 <= matches < MATCHES and _count(path, "seat_results") == 2 * matches
    assert arena("season", "resume", "k", db_path=path).wait(timeout=600) == 0
    assert _export(path, "k") == whole


def test_cli_season_errors_are_one_line(tmp_path):
    db.connect(f"sqlite:///{tmp_path}/ro.db").dispose()
    db.connect(f"sqlite:///{tmp_path}/e.db").dispose()
    for args, message in [
        (("season", "show", "nope"), "no season named 'nope'"),
        (("--db", f"sqlite:///{tmp_path}/none.db", "season", "show", "x"),
         "no database at"),
        (("--db", f"sqlite:///{tmp_path}/no/such/dir/a.db", "season", "run", "vandtia",
          "--bots", "random,greedy"), "folder"),
        (("season", "run", "vandtia", "--bots", "random"), "need at least 2 bots"),
        (("season", "run", "vandtia", "--bots", "random,nobody"), "unknown bot 'nobody'"),
        (("--db", "sqlite:////proc/nope/x.db", "season", "list"), "no database at /proc/nope"),
        (("--db", "sqlite:////proc/nope/x.db", "season", "run", "vandtia", "--bots",
          "random,greedy"), "cannot use database sqlite:////proc/nope/x.db: folder"),
        (("--db", "nosuchdb://x", "season", "list"), "cannot use database"),
        (("--db", "postgresql+nosuchdriver://x/y", "season", "list"), "cannot use database"),
        (("--db", f"sqlite:///file:{tmp_path}/ro.db?mode=ro&uri=true", "season", "run",
          "vandtia", "--bots", "random,greedy"), "readonly database"),
    ]:
        proc = arena(*args, db_path=tmp_path / "e.db")
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_bot_faulting_in_a_row_is_suspended_the_same_way_however_matches_finish(tmp_path):
    from arena.plugins import Registry

    (tmp_path / "crasher.py").write_text(CRASHER)
    registry = Registry(bots_dirs=[tmp_path])
    outcomes = []
    for workers in (1, 4):
        engine = db.connect(f"sqlite:///{tmp_path}/s{workers}.db")
        row = league.create(engine, registry, SeasonDef(
            "s", "vandtia", "cardems", 2, ("crasher", "random", "greedy"), 8, 3, batch=2,
            suspend_after=3, secret=SECRET))
        league.play(engine, registry, row, executor=ThreadPoolExecutor(workers))
        results = list(db.results(engine, "vandtia", "cardems", 2, "s"))
        outcomes.append((results, views.to_json(league.standings(
            engine, registry, "vandtia", "cardems", 2, "s"))))
    assert outcomes[0] == outcomes[1]
    results, exported = outcomes[0]
    faults = [f[s.index("crasher")] for s, _, _, f in results if "crasher" in s]
    assert faults[:3] == ["crash: RuntimeError: always"] * 3
    assert faults[3:] == ["suspended"] * (len(faults) - 3) and len(faults) == 32
    board = {r["bot"]: r for r in json.loads(exported)}
    assert board["crasher"]["suspended"] and board["crasher"]["faults"] == 3
    assert not board["random"]["suspended"] and board["crasher"]["losses"] == 32
    fixture = next(i for i, (s, _, _, f) in enumerate(results) if "crasher" in s)
    with sqlite3.connect(tmp_path / "s1.db") as conn:
        first = conn.execute("SELECT id FROM matches WHERE fixture = ?", (fixture,)).fetchone()[0]
    shown = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path}/s1.db",
                            "replay", str(first), "--verify"], capture_output=True, text=True)
    assert "crash: RuntimeError: always; the end of its log:\nabout to fail" in shown.stdout
    assert "verified" in shown.stdout


def _affinity(barrier):
    barrier.wait(timeout=600)  # every worker holds one task at once: each answers once
    return tuple(sorted(os.sched_getaffinity(0)))


def test_pool_workers_are_pinned_one_to_a_cpu():
    import multiprocessing

    cpus = sorted(os.sched_getaffinity(0))
    pool = league.default_executor(len(cpus))
    manager = multiprocessing.Manager()
    try:
        barrier = manager.Barrier(len(cpus))
        pins = set(pool.map(_affinity, [barrier] * len(cpus)))
    finally:
        manager.shutdown()
        pool.shutdown()
    assert pins == {(cpu,) for cpu in cpus}


def test_a_schema_1_database_is_migrated_in_place(tmp_path, registry):
    path = tmp_path / "old.db"
    engine = db.connect(f"sqlite:///{path}")
    _season(engine, registry, rounds=1)
    engine.dispose()
    with sqlite3.connect(path) as conn:  # the tables as schema 1 had them
        conn.execute("ALTER TABLE seat_results DROP COLUMN log")
        conn.execute("ALTER TABLE ratings DROP COLUMN suspended")
        conn.execute("ALTER TABLE seasons DROP COLUMN secret")
        conn.execute("ALTER TABLE seat_results DROP COLUMN move_mean_s")
        conn.execute("ALTER TABLE seat_results DROP COLUMN move_max_s")
        conn.execute("ALTER TABLE seat_results DROP COLUMN luck")
        conn.execute("ALTER TABLE seasons DROP COLUMN rated")
        conn.execute("ALTER TABLE submissions DROP COLUMN disabled")
        conn.execute("ALTER TABLE submissions DROP COLUMN deleted")
        conn.execute("DROP TABLE submissions")
        conn.execute("UPDATE arena_schema SET version = 1")
    engine = db.connect(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM arena_schema").fetchall() == [
            (db.SCHEMA_VERSION,)]
        assert conn.execute("SELECT count(*) FROM submissions").fetchall() == [(0,)]
        columns = {row[1] for row in conn.execute("PRAGMA table_info(ratings)")}
        seat_columns = {row[1] for row in conn.execute("PRAGMA table_info(seat_results)")}
    assert "suspended" in columns and {"log", "move_mean_s", "move_max_s",
                                       "luck"} <= seat_columns
    assert len(db.stored_ratings(engine, "vandtia/cardems/2", None)) == 3


#: what each schema added (``db.MIGRATIONS``): columns dropped, tables left for ``create_all``
ADDED = {2: ["seat_results.log", "ratings.suspended"], 3: ["seasons.secret"],
         4: ["seat_results.move_mean_s", "seat_results.move_max_s"], 8: ["seat_results.luck"],
         10: ["seasons.rated"], 12: ["submissions.disabled", "submissions.deleted"]}


@pytest.mark.parametrize("version", range(1, db.SCHEMA_VERSION))
def test_a_database_of_every_schema_shipped_upgrades_and_keeps_every_row(tmp_path, registry,
                                                                         version):
    path = tmp_path / "old.db"
    engine = db.connect(f"sqlite:///{path}")
    _season(engine, registry, rounds=1)
    engine.dispose()
    with sqlite3.connect(path) as conn:  # the tables as that schema had them
        for step, columns in ADDED.items():
            if step > version:
                for column in columns:
                    table, name = column.split(".")
                    conn.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
        conn.execute(f"UPDATE arena_schema SET version = {version}")
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("seasons", "matches", "seat_results", "ratings", "bots")}
    engine = db.connect(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM arena_schema").fetchall() == [
            (db.SCHEMA_VERSION,)]
        assert {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in counts} == counts
    assert len(db.stored_ratings(engine, "vandtia/cardems/2", None)) == 3
    assert len(list(db.results(engine, "vandtia", "cardems", 2))) == counts["matches"]


def test_a_schema_9_database_keeps_every_row_and_its_ab_matches_leave_the_league(
        tmp_path, registry):
    """Before schema 10 a match (``arena match``) rated its league like a season: migrated,
    every row stays, the match is marked unrated (column and options), and the league's
    standings are the season's alone - as a fresh database with the same play gives."""
    from arena.leagues.match import summary, tally_for

    path = tmp_path / "old.db"
    engine = db.connect(f"sqlite:///{path}")
    _season(engine, registry, rounds=1)
    ab = league.create(engine, registry, SeasonDef(
        "ab", "vandtia", "cardems", 2, ("greedy", "random"), 3, 5, kind="match",
        rated=False))
    league.play(engine, registry, ab)
    assert json.loads(db.get_season(engine, "ab").options)["verdict"]["pairs"] == 3
    season_only = views.to_json(league.standings(engine, registry, "vandtia", "cardems", 2,
                                                 None))
    engine.dispose()
    with sqlite3.connect(path) as conn:  # as schema 9 stored them: the match rated, no verdict
        conn.execute("ALTER TABLE seasons DROP COLUMN rated")
        conn.execute("ALTER TABLE submissions DROP COLUMN disabled")
        conn.execute("ALTER TABLE submissions DROP COLUMN deleted")
        for season_id, text in conn.execute("SELECT id, options FROM seasons").fetchall():
            options = json.loads(text)
            options.pop("rated", None)
            options.pop("verdict", None)
            conn.execute("UPDATE seasons SET options = ? WHERE id = ?",
                         (json.dumps(options), season_id))
        conn.execute("UPDATE arena_schema SET version = 9")
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("seasons", "matches", "seat_results", "ratings", "bots")}
    engine = db.connect(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        assert {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in counts} == counts
        assert conn.execute("SELECT name, rated FROM seasons ORDER BY id").fetchall() == [
            ("spring", 1), ("ab", 0)]
    row = db.get_season(engine, "ab")
    assert json.loads(row.options)["rated"] is False and league.definition(row).rated is False
    assert views.to_json(league.standings(engine, registry, "vandtia", "cardems", 2,
                                          None)) == season_only
    # its verdict, not stored before, is counted again from its matches
    assert summary(engine, league.definition(row), row.id).to_json()["pairs"] == 3
    assert tally_for(league.definition(row)).pair_count == 0


def test_a_season_made_before_secrets_stays_readable_and_is_not_resumed(tmp_path, registry):
    path = tmp_path / "old.db"
    engine = db.connect(f"sqlite:///{path}")
    _season(engine, registry, rounds=1)
    row = league.create(engine, registry, SeasonDef(
        "unfinished", "vandtia", "cardems", 2, ("random", "greedy"), 2, 1))
    board = views.to_json(league.standings(engine, registry, "vandtia", "cardems", 2, None))
    engine.dispose()
    with sqlite3.connect(path) as conn:  # as schema 2 stored them
        conn.execute("ALTER TABLE seasons DROP COLUMN secret")
        conn.execute("ALTER TABLE seat_results DROP COLUMN move_mean_s")
        conn.execute("ALTER TABLE seat_results DROP COLUMN move_max_s")
        conn.execute("ALTER TABLE seat_results DROP COLUMN luck")
        conn.execute("ALTER TABLE seasons DROP COLUMN rated")
        conn.execute("ALTER TABLE submissions DROP COLUMN disabled")
        conn.execute("ALTER TABLE submissions DROP COLUMN deleted")
        conn.execute("UPDATE arena_schema SET version = 2")
    engine = db.connect(f"sqlite:///{path}")
    assert db.get_season(engine, "spring").secret is None
    assert views.to_json(league.standings(engine, registry, "vandtia", "cardems", 2,
                                          None)) == board
    with pytest.raises(ArenaError, match="made before seasons had secrets"):
        league.play(engine, registry, db.get_season(engine, "unfinished"))
    assert db.stored_fixtures(engine, row.id) == set()
    for args, code, expected in (
            (("season", "resume", "unfinished"), 2, "arena: error: season 'unfinished' was made "
             "before seasons had secrets"),
            (("season", "list"), 0, "(legacy)"),
            (("season", "show", "spring"), 0, "made before secrets"),
            (("replay", "1", "--verify"), 0, "match 1: verified")):
        proc = arena(*args, db_path=path, env={**os.environ, "ARENA_DB": f"sqlite:///{path}",
                                                "COLUMNS": "200"})
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == code and expected in out + err, (args, out, err)
    export = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{path}",
                             "season", "export", "spring"], capture_output=True, text=True)
    header = json.loads(export.stdout.splitlines()[0])
    assert header["seeding"] == "legacy" and header["secret"] is None
    (tmp_path / "spring.jsonl").write_text(export.stdout)
    verified = subprocess.run([sys.executable, "-m", "arena", "verify",
                               str(tmp_path / "spring.jsonl")], capture_output=True, text=True)
    assert verified.returncode == 0 and "6 match(es) verified" in verified.stdout


@pytest.fixture
def small_disk(tmp_path):
    """A 400 KB filesystem (a tmpfs mounted for the test; root only)."""
    where = tmp_path / "small"
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs",
                                            str(where)], capture_output=True).returncode:
        pytest.skip("mounting a small filesystem needs root")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_a_full_disk_stops_with_one_line_and_resumes_once_there_is_room(small_disk, tmp_path,
                                                                       run):
    import shutil

    path = small_disk / "full.db"
    big = [*run[:run.index("--rounds") + 1], "45", *run[run.index("--rounds") + 2:],
           "--batch", "32"]  # 270 matches, about 650 KB
    proc = arena(*big, db_path=path)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("arena: error: ") and "'arena season resume k'" in last, err
    assert "disk is full" in last or "disk I/O error" in last, err
    for name in ("full.db", "full.db-wal", "full.db-shm"):  # onto a disk with room
        if (small_disk / name).exists():
            shutil.copy(small_disk / name, tmp_path / name)
    moved = tmp_path / "full.db"
    matches = _count(moved, "matches")
    assert 0 < matches < 270 and _count(moved, "seat_results") == 2 * matches
    resumed = arena("season", "resume", "k", db_path=moved)
    assert resumed.communicate(timeout=900) and resumed.returncode == 0
    whole = arena(*big, db_path=tmp_path / "whole.db")
    assert whole.communicate(timeout=900) and whole.returncode == 0
    assert _export(moved, "k") == _export(tmp_path / "whole.db", "k")


def _peak_mb(matches: int) -> float:
    out = subprocess.run([sys.executable, "-m", "arena", "bench", "--games", "1", "--season",
                          str(matches), "--workers", "2"], capture_output=True, text=True,
                         timeout=600, env={**os.environ, "COLUMNS": "250"}).stdout
    row = next(line for line in out.splitlines() if "random vs random" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[2] == "0", "no match may fault"
    return float(cells[-1])


@pytest.mark.soak
@pytest.mark.serial
@pytest.mark.slow
def test_the_runners_memory_stays_flat_over_a_4000_match_season():
    """Ten times the matches, about the same peak: fixtures and results are streamed (a
    runner that kept 3 KB a match would grow by more than the 10 MB allowed; the peak grows
    by about 5 MB from 400 matches to 4,000 as SQLite's and the allocator's caches fill)."""
    small, large = _peak_mb(400), _peak_mb(4000)
    assert large - small < 10, (small, large)


@pytest.mark.serial
@pytest.mark.slow
def test_ctrl_c_stops_a_season_marked_interrupted_and_resume_finishes_it(tmp_path, run):
    path = tmp_path / "int.db"
    proc = arena(*run, db_path=path)
    wait_for_matches(path, 1, proc)
    proc.send_signal(signal.SIGINT)  # as Ctrl-C does to the runner
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130 and "arena: aborted" in err and "Traceback" not in err, err
    stopped = re.search(r"stopped: season k keeps the (\d+) of (\d+) matches stored; 'arena "
                        r"season resume k' plays the rest", " ".join(err.split()))
    assert stopped and 1 <= int(stopped[1]) < int(stopped[2]), err
    listed = arena("season", "list", db_path=path, env={
        **os.environ, "ARENA_DB": f"sqlite:///{path}", "COLUMNS": "200"}).communicate()[0]
    assert "interrupted" in listed, listed
    resumed = arena("season", "resume", "k", db_path=path)
    assert resumed.wait(timeout=600) == 0
    assert db.get_season(db.connect(f"sqlite:///{path}"), "k").status == "done"
    again = arena("season", "resume", "k", db_path=path)
    _, err = again.communicate(timeout=600)
    assert again.returncode == 0 and "season k is finished" in err and "nothing to play" in err


def test_the_leaderboard_gives_each_skill_its_interval_and_the_odds_over_the_next_bot(
        engine, registry):
    _season(engine, registry, rounds=3)
    standings = league.standings(engine, registry, "vandtia", "cardems", 2, None)
    data = views.rows(standings)
    for r, s, below in zip(data, standings, [*standings[1:], None], strict=True):
        assert r["mu_low"] == pytest.approx(s.mu - 1.959964 * s.sigma, abs=1e-5)
        assert r["mu_high"] == pytest.approx(s.mu + 1.959964 * s.sigma, abs=1e-5)
        if below is None:
            assert r["above_next"] is None
        else:  # the normal probability that this skill exceeds the next one's
            z = (s.mu - below.mu) / (s.sigma ** 2 + below.sigma ** 2) ** 0.5
            assert r["above_next"] == pytest.approx(0.5 * (1 + math.erf(z / 2 ** 0.5)),
                                                    abs=1e-6)
    # ... and the table marks two bots it cannot separate
    a = Standing("a", mu=25.0, sigma=2.0, games=10, wins=5, losses=5)
    b = Standing("b", mu=24.0, sigma=2.0, games=10, wins=5, losses=5)
    console = Console(width=100, record=True)
    console.print(views.table([a, b]))
    assert "≈ 64 %" in console.export_text()


def test_pairwise_figures_are_the_pentanomial_of_the_duplicate_deals(engine, registry):
    """In a two-seat season each deal is played in both seatings: a pair scores 0, ¼, ½, ¾
    or 1, and the pairwise table is arena.leagues.stats on those counts."""
    row = _season(engine, registry, rounds=12)
    results = list(db.season_results(engine, row.id))
    by_deal: dict[tuple, list[float]] = {}
    for _, seed, seats, ranks, _, _ in results:
        if set(seats) == {"greedy", "random"}:
            g = seats.index("greedy")
            by_deal.setdefault(seed, []).append(1.0 if ranks[g] < ranks[1 - g] else
                                                0.5 if ranks[g] == ranks[1 - g] else 0.0)
    assert {len(v) for v in by_deal.values()} == {2}
    counts = [0] * 5
    for scores in by_deal.values():
        counts[int(sum(scores) * 2)] += 1
    pairs = views.pairwise(results, ["random", "greedy", "lowball"])
    assert list(pairs) == [("random", "greedy"), ("random", "lowball"), ("greedy", "lowball")]
    flipped = stats.estimate(stats.pentanomial(counts[::-1]))  # random's side of it
    assert pairs["random", "greedy"] == flipped
    assert pairs["random", "greedy"].pairs == 12 and pairs["random", "greedy"].los < 0.05
