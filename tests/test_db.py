"""The database layer on its own: URLs, folders, drivers, secrets in messages, and runners
that make a fresh database at the same moment."""

import sqlite3
import threading

import pytest

from arena import db
from arena.errors import ArenaError


def _connect_at_once(path, barrier, errors):
    barrier.wait()
    try:
        db.connect(f"sqlite:///{path}").dispose()
    except Exception as e:  # noqa: BLE001 - collected for the assertion
        errors.append(e)


def test_runners_making_a_fresh_database_at_once_make_its_schema_once(tmp_path):
    for attempt in range(5):
        path = tmp_path / f"fresh{attempt}.db"
        barrier, errors = threading.Barrier(8), []

        threads = [threading.Thread(target=_connect_at_once, args=(path, barrier, errors))
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT version FROM arena_schema").fetchall() == [
                (db.SCHEMA_VERSION,)]


def test_a_mistyped_folder_is_an_error_not_a_new_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ArenaError, match="folder no/such/dir does not exist"):
        db.connect("sqlite:///no/such/dir/arena.db")
    assert not (tmp_path / "no").exists()
    db.connect(db.DEFAULT_URL).dispose()  # only the default folder is made
    assert (tmp_path / "results" / "arena.db").exists()


def test_reading_commands_do_not_make_a_database(tmp_path):
    with pytest.raises(ArenaError, match="no database at .*nothing has been stored there yet"):
        db.connect(f"sqlite:///{tmp_path}/none.db", create=False)
    assert not (tmp_path / "none.db").exists()


def test_passwords_never_appear_in_messages():
    with pytest.raises(ArenaError) as e:
        db.connect("postgresql+psycopg://arena:SECRET@127.0.0.1:9/arena")
    assert "SECRET" not in str(e.value) and "arena:***@127.0.0.1:9" in str(e.value)
    assert db.masked("x mysql://u:p@h/d y") == "x mysql://u:***@h/d y"


def test_a_missing_driver_names_the_package_to_install():
    with pytest.raises(ArenaError, match=r"driver MySQLdb is not installed \(pip install "
                                         "'mysqlclient'\\)"):
        db.connect("mysql://u:p@127.0.0.1/d")


def _create_at_once(url, name, barrier, errors):
    from arena.leagues.scheduler import SeasonDef

    engine = db.connect(url)
    bots = [db.BotRow(name=n, game="vandtia", version="1", source="test", code_hash=h)
            for n, h in (("random", "r1"), ("greedy", "g1"), ("first", "f1"))]
    defn = SeasonDef(name, "vandtia", "cardems", 2, ("random", "greedy", "first"), 1, 1)
    barrier.wait()
    try:
        db.create_season(engine, defn, bots, 6)
    except Exception as e:  # noqa: BLE001 - collected for the assertion
        errors.put(f"{type(e).__name__}: {e}")
    finally:
        engine.dispose()


def _many_runners_register_the_same_bots(url):
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for attempt in range(3):
        barrier, errors = ctx.Barrier(8), ctx.Queue()
        procs = [ctx.Process(target=_create_at_once,
                             args=(url, f"s{attempt}-{i}", barrier, errors))
                 for i in range(8)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        found = []
        while not errors.empty():
            found.append(errors.get())
        assert not found, found
    engine = db.connect(url)
    with db.Session(engine) as session:
        rows = session.exec(db.select(db.BotRow)).all()
        assert sorted((r.name, r.code_hash) for r in rows) == [
            ("first", "f1"), ("greedy", "g1"), ("random", "r1")]
        assert len(session.exec(db.select(db.SeasonRow)).all()) == 24


def test_runners_creating_seasons_at_once_on_a_fresh_sqlite_file_record_each_bot_once(
        tmp_path):
    _many_runners_register_the_same_bots(f"sqlite:///{tmp_path}/fresh.db")


def test_runners_creating_seasons_at_once_on_postgresql_record_each_bot_once(pg):
    _many_runners_register_the_same_bots(pg)
