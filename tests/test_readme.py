"""Every line of the README's tour runs as written, from a checkout, on a fresh database:
the lines that need servers arena does not start (PostgreSQL, a Dask cluster) are named.
``arena serve`` runs until stopped: it is started on a free port (``--port 0``), its index
is read, and Ctrl-C stops it."""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NEEDS_A_SERVER = {"postgresql+psycopg://", "--scheduler tcp://"}


def tour_lines() -> list[str]:
    text = (ROOT / "README.md").read_text()
    tour = text.split("## A short tour\n", 1)[1].split("\n\n" + "Every line runs", 1)[0]
    lines, joined = [], ""
    for raw in tour.splitlines():
        line = raw.strip()
        if not line:
            continue
        joined += line
        if joined.endswith("\\"):
            joined = joined[:-1]
            continue
        lines.append(re.sub(r"\s+#.*$", "", joined).strip())
        joined = ""
    return lines


def tour_parts() -> dict[str, list[str]]:
    """The tour in parts that share nothing, each run on its own folder (side by side under
    xdist): the matches played, the tools (from ``check-bot`` on), then each season with all
    that reads it (a part starts at each ``season run`` that arena can run here)."""
    parts: dict[str, list[str]] = {"the matches": []}
    name = "the matches"
    for line in tour_lines():
        if line.startswith("arena check-bot"):
            name = "the tools"
        elif " season run " in line and not any(s in line for s in NEEDS_A_SERVER):
            name = "the season " + line.split(" season run ", 1)[1].split()[-1 if (
                "--config" in line) else 0]
        parts.setdefault(name, []).append(line)
    return parts


@pytest.mark.slow
@pytest.mark.parametrize("part", list(tour_parts()))
def test_every_tour_line_of_the_readme_runs_as_written(tmp_path, part):
    for folder in ("examples", "plugins"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_DB", "ARENA_BOTS_DIR")}
    env["COLUMNS"] = "100"
    ran, skipped = [], []
    for line in tour_parts()[part]:
        assert line.startswith("arena "), line
        if any(server in line for server in NEEDS_A_SERVER):
            skipped.append(line)
            continue
        if line.split()[1] == "serve":
            _serve(line, tmp_path, env)
            ran.append(line)
            continue
        out = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=900)
        assert out.returncode == 0, (line, out.stdout[-2000:], out.stderr[-2000:])
        assert "Traceback" not in out.stderr, (line, out.stderr)
        ran.append(line)
    assert ran
    if part.startswith("the season"):
        assert (tmp_path / "results" / "arena.db").exists(), "the default database, made here"
    assert [line.split()[1] for line in skipped] == (
        ["--db"] if part == list(tour_parts())[-1] else [])  # the PostgreSQL line, last


def test_the_tour_is_every_line_once():
    parts = tour_parts()
    assert sum(parts.values(), []) == tour_lines() and len(tour_lines()) >= 25
    assert len(parts) >= 6 and len(parts["the matches"]) >= 10


def _serve(line: str, cwd, env) -> None:
    import signal
    import urllib.request

    server = subprocess.Popen([*line.split(), "--port", "0"], cwd=cwd, env=env,
                              stderr=subprocess.PIPE, text=True)
    try:
        said = server.stderr.readline()
        url = re.search(r"serving (http://\S+)", said)
        assert url, said + server.stderr.read()
        page = urllib.request.urlopen(url.group(1), timeout=120).read().decode()
        assert "spring" in page and "greedy" in page
        server.send_signal(signal.SIGINT)
        assert server.wait(120) == 0
    finally:
        server.kill()
        server.stderr.close()
