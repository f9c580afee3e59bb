"""Dask: the same season on a Dask cluster as on the local pool, a worker killed mid-season,
and clear errors. A real LocalCluster of worker processes; skipped where Dask is missing."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed", reason="Dask: pip install 'card-arena[dask]'")

RUN = ("season", "run", "vandtia", "--bots", "random,greedy,lowball", "--rounds", "12",
       "--seed", "5", "--name", "d", "--batch", "4", "--public-seed")  # runs compared

pytestmark = pytest.mark.soak  # a real Dask cluster: tox -e soak


def arena(*args, db_path):
    return subprocess.Popen([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def export(db_path):
    out = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db_path}",
                          "leaderboard", "vandtia", "--season", "d", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT m.fixture, m.replay, s.seat, s.rank FROM matches m JOIN "
                            "seat_results s ON s.match_id = m.id ORDER BY 1, 3").fetchall()
    return json.loads(out), rows


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    path = tmp_path_factory.mktemp("local") / "local.db"
    assert arena(*RUN, "--workers", "2", db_path=path).wait(timeout=300) == 0
    return export(path)


@pytest.mark.serial  # beside the killed worker's test: one cluster, one local season for both
@pytest.mark.slow
def test_a_season_on_dask_equals_the_same_season_on_the_local_pool(cluster, local, tmp_path):
    path = tmp_path / "dask.db"
    proc = arena(*RUN, "--executor", "dask", "--scheduler", cluster.scheduler_address,
                 db_path=path)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    assert export(path) == local


@pytest.mark.serial
@pytest.mark.slow
def test_a_dask_worker_killed_mid_season_changes_nothing(cluster, local, tmp_path):
    path = tmp_path / "killed.db"
    proc = arena(*RUN, "--executor", "dask", "--scheduler", cluster.scheduler_address,
                 db_path=path)
    with distributed.Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        while proc.poll() is None:  # until 12 matches are stored, however slow the machine
            try:
                with sqlite3.connect(path) as conn:
                    if conn.execute("SELECT count(*) FROM matches").fetchone()[0] >= 12:
                        break
            except sqlite3.OperationalError:
                pass
            time.sleep(0.05)
        assert proc.poll() is None, "killed mid-season: " + proc.stderr.read()
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    assert export(path) == local, "the lost worker's batches ran again, none twice"


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line(tmp_path):
    proc = arena(*RUN, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9",
                 db_path=tmp_path / "x.db")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "cannot reach the Dask scheduler" in err
    assert len(err.strip().splitlines()) == 1
    with sqlite3.connect(tmp_path / "x.db") as conn:
        assert conn.execute("SELECT count(*) FROM seasons").fetchone()[0] == 0


def test_without_dask_installed_the_error_is_one_line(tmp_path):
    shadow = tmp_path / "shadow" / "distributed"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "shadow")}
    out = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{tmp_path}/x.db",
                          *RUN, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == ("arena: error: --executor dask needs Dask: "
                                  "pip install 'card-arena[dask]'")
