"""Speed benchmarks (``arena bench``): figures are measured here, never asserted in tests."""

from __future__ import annotations

import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import astuple, replace
from pathlib import Path

import orjson

from .cards import PUBLIC_SECRET
from .referee import play_match
from .sandbox.bot import make_bot


def engine_games(game, variant: str, players: int, games: int, seed: int = 0) -> dict:
    """Random-vs-random games through the state API alone (legal list, choice, apply)."""
    rnd = random.Random(seed).random
    moves = 0
    start = time.process_time()
    for g in range(games):
        state = game.new_state(variant, players, seed + g)
        while not state.over:
            legal = state.legal_actions()
            state.apply(legal[int(rnd() * len(legal))])
        moves += state.moves
    cpu = time.process_time() - start
    longest, slowest = 0, 0.0  # a second pass, timing each legal list on its own
    for g in range(max(1, games // 10)):
        state = game.new_state(variant, players, seed + g)
        while not state.over:
            t = time.perf_counter()
            legal = state.legal_actions()
            slowest = max(slowest, time.perf_counter() - t)
            longest = max(longest, len(legal))
            state.apply(legal[int(rnd() * len(legal))])
    return {"games": games, "cpu_s": cpu, "games_per_s": games / cpu, "moves_per_game":
            moves / games, "longest_legal": longest, "slowest_legal_us": slowest * 1e6}


def playout_games(game, variant: str, players: int, games: int, seed: int = 0,
                  midgame: bool = False) -> dict:
    """Random playouts by the engine's own ``playout`` (copy, then play to the end): from
    the deal, or (``midgame``) from positions half-way through a random game - reached
    by random play to half the mean game length, outside the timing."""
    rng = random.Random(seed)
    starts = []
    half = 0
    if midgame:
        lengths = []
        for g in range(min(games, 200)):
            state = game.new_state(variant, players, seed + g)
            state.playout(random.Random(g))
            lengths.append(state.moves)
        half = sum(lengths) // (2 * len(lengths))
    for g in range(games):
        state = game.new_state(variant, players, seed + g)
        while midgame and not state.is_over() and state.moves < half:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
        starts.append(state)
    moves = 0
    start = time.process_time()
    for state in starts:
        copy = state.copy()
        copy.playout(rng)
        moves += copy.moves - state.moves
    cpu = time.process_time() - start
    return {"games": games, "cpu_s": cpu, "games_per_s": games / cpu,
            "moves_per_game": moves / games, "from_move": half}


def yardstick(path: str, games: int, seed: int = 0) -> dict:
    """Run the speed yardstick (a separate program, two-player random Vändtia) and read
    its games per CPU second."""
    import subprocess
    import sys

    from .errors import ArenaError

    try:
        out = subprocess.run([sys.executable, path, str(games), str(seed)], capture_output=True,
                             text=True, timeout=600, check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise ArenaError(f"cannot run the yardstick {path}: {e}") from None
    fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
    try:
        return {"games": int(fields["games"]), "games_per_s": float(fields["games_per_s_cpu"]),
                "moves_per_game": float(fields["moves_per_game"])}
    except (KeyError, ValueError):
        raise ArenaError(f"the yardstick {path} printed no games_per_s_cpu") from None


class _Random:
    """A trusted in-process random policy: the referee's own cost, without a sandbox."""

    asked = 0

    def start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation, legal):
        self.asked += 1
        return legal[self.rng.randrange(len(legal))]

    def end(self, result):
        pass


BARE = """import os, random, sys, orjson
out = os.fdopen(os.dup(1), "wb", buffering=0)
rng = random.Random(0)
for line in sys.stdin.buffer:
    message = orjson.loads(line)
    if message["type"] == "act":
        legal = message["legal"]
        out.write(orjson.dumps({"type": "action", "action": legal[rng.randrange(len(legal))]},
                               option=orjson.OPT_APPEND_NEWLINE))
    elif message["type"] == "start":
        rng.seed(message["seed"])
        out.write(b'{"type": "ready"}\\n')
"""


class _Bare:
    """The floor a sandboxed bot is measured against: the same protocol and codec, random
    choice like ``random``, in a bare process - no confinement, no worker, no plugin, no
    watchdog, no checks on the runner's side."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-I", "-c", BARE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.w, self.r = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.asked = 0

    def _ask(self, message):
        os.write(self.w, orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
        return orjson.loads(os.read(self.r, 1 << 16))

    def start(self, info):
        self._ask({"type": "start", **info})

    def act(self, observation, legal):
        self.asked += 1
        return self._ask({"type": "act", "observation": observation, "legal": legal})["action"]

    def end(self, result):
        pass

    def close(self):
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.wait()


def referee_games(game, variant: str, players: int, games: int, seed: int = 0,
                  entry=None, bare: bool = False) -> dict:
    """Whole matches through the referee, with observations: in-process random policies,
    (``entry``) a sandboxed worker per seat, or (``bare``) a bare random process per seat,
    each serving every game. CPU time counts the runner and the bot processes
    (``children_cpu``), from after a first match that is not counted (``WARM_UP``): what a
    move costs once the processes run, not their start-up (``start_up``).
    ``asked_per_game``: moves a bot chose (a forced move is not asked)."""
    from .sandbox.bot import PythonBot

    if entry is not None:
        bots = [make_bot(entry) for _ in range(players)]
    else:
        bots = [_Bare() if bare else PythonBot(_Random()) for _ in range(players)]
    moves = 0
    try:
        play_match(game, variant, bots, seed + WARM_UP)
        for bot in bots:  # counted from here
            if entry is not None:
                bot.move_times = []
            else:
                getattr(bot, "obj", bot).asked = 0
        before = children_cpu()
        start, wall = time.process_time(), time.perf_counter()
        for g in range(games):
            moves += play_match(game, variant, bots, seed + g)[0].result.moves
        wall = time.perf_counter() - wall
        cpu = time.process_time() - start + children_cpu() - before  # the bots still running
    finally:
        for bot in bots:
            getattr(bot, "close", lambda: None)()
    asked = sum(len(b.move_times) if entry is not None else getattr(b, "obj", b).asked
                for b in bots)
    return {"games": games, "cpu_s": cpu, "wall_s": wall, "games_per_s": games / cpu,
            "moves_per_game": moves / games, "asked_per_game": asked / games,
            "asked_per_s": asked / cpu}


def inflight_games(game, variant: str, players: int, games: int, seed: int = 0, entry=None,
                   inflight: int = 16) -> dict:
    """Whole matches through the referee with sandboxed bots of ``entry`` in every seat,
    ``inflight`` of them side by side, their moves asked of each process together
    (``arena.sandbox.inflight``, as a season's worker plays them). CPU time counts the runner and
    the bot processes (``children_cpu``), from after a first match that is not counted, as in
    ``referee_games``."""
    from .leagues.scheduler import Fixture
    from .sandbox import inflight as side_by_side
    from .sandbox.process import Limits

    pools: dict = {}

    def play(seeds) -> list[dict]:  # as play_match's games, on the same processes
        return side_by_side.play(game, variant, [Fixture(g, 0, (entry.name,) * players, s)
                                                 for g, s in enumerate(seeds)],
                                 lambda name: entry, Limits(), PUBLIC_SECRET, inflight, pools)

    try:
        play([seed + WARM_UP])  # the processes start in a match that is not counted
        before = children_cpu()
        start, wall = time.process_time(), time.perf_counter()
        results = play([seed + g for g in range(games)])
        wall = time.perf_counter() - wall
        cpu = time.process_time() - start + children_cpu() - before  # the bots still running
    finally:
        for procs in pools.values():
            for proc in procs:
                proc.close()
    moves = sum(r["result"]["moves"] for r in results)
    asked = sum(_asked(game, variant, players, r) for r in results)
    return {"games": games, "cpu_s": cpu, "wall_s": wall, "games_per_s": games / cpu,
            "moves_per_game": moves / games, "asked_per_game": asked / games,
            "asked_per_s": asked / cpu}


#: the seed offset of the match a referee row plays before it counts (one none of its own
#: games has)
WARM_UP = 1 << 30


def start_up(entry, game, variant: str, players: int, times: int = 5) -> float:
    """The CPU seconds one sandboxed bot process of ``entry`` costs to start, answer its
    first ``start`` and stop - the runner's and the process's, the mean of ``times``: what
    a batch of a season pays once per process, apart from its moves."""
    from .sandbox.inflight import Shared
    from .sandbox.process import Limits

    info = {"game": game.name, "variant": variant, "seat": 0, "players": players,
            "seed": 1}
    before, start = children_cpu(), time.process_time()
    for _ in range(times):
        proc = Shared(entry, Limits())
        try:
            proc.start(0, info)
        finally:
            proc.close()
    return (time.process_time() - start + children_cpu() - before) / times


def command_start(times: int = 7) -> dict:
    """What the ``arena`` command costs before it does anything: the wall and CPU seconds
    (medians of ``times``) of ``arena --version`` and ``arena --help`` beside a Python that
    only imports click and rich (the floor any such command pays), run in turn so the two
    meet the same load; ``ratio``: ``--version``'s wall over the floor's."""
    import statistics
    import subprocess
    import sys

    commands = {"version": [sys.executable, "-m", "arena", "--version"],
                "help": [sys.executable, "-m", "arena", "--help"],
                "floor": [sys.executable, "-c", "import click, rich"]}
    walls: dict[str, list[float]] = {k: [] for k in commands}
    cpus: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(times):
        for key, argv in commands.items():
            cpu, start = children_cpu(), time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            walls[key].append(time.perf_counter() - start)
            cpus[key].append(children_cpu() - cpu)
    out = {f"{k}_ms": 1000 * statistics.median(v) for k, v in walls.items()}
    out.update({f"{k}_cpu_ms": 1000 * statistics.median(v) for k, v in cpus.items()})
    out["ratio"] = out["version_ms"] / out["floor_ms"]
    return out


def children_cpu() -> float:
    """CPU seconds of this process's descendants: those that ended and were waited for
    (``getrusage``) and those still running, with what they waited for in turn (``/proc``).
    A sandboxed bot is killed when it is closed, and the time of a process killed inside
    its jail never reaches ``getrusage``: so bots are counted while they run."""
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ended.ru_utime + ended.ru_stime + _running_descendants_cpu()


def _running_descendants_cpu() -> float:
    """Linux: utime + stime + cutime + cstime of every running descendant (0 elsewhere)."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(name))
        ticks[int(name)] = sum(int(x) for x in fields[11:15])
    total, stack = 0, [os.getpid()]
    while stack:
        for pid in children.get(stack.pop(), ()):
            total += ticks[pid]
            stack.append(pid)
    return total / os.sysconf("SC_CLK_TCK")


def cpu_us_per_asked(row: dict) -> float:
    """A referee row's CPU time per asked move, in microseconds (runner and bots)."""
    return 1e6 * row["cpu_s"] / (row["asked_per_game"] * row["games"])


def summary(engine: dict, inprocess: dict, sandboxed: dict, side_by_side: dict,
            start_s: float | None = None) -> dict:
    """A game's speed figures from its rows: the engine's moves per CPU second (state API,
    random choice), and the sandbox's cost of one asked move in microseconds of CPU - the
    sandboxed rows' CPU per asked move minus the in-process row's, the same games - one
    match at a time and side by side; and (``start_s``, from ``start_up``) the
    milliseconds of CPU a bot process costs to start and stop, which the rows leave out
    (each starts its processes in a match it does not count)."""
    base = cpu_us_per_asked(inprocess)
    return {"engine_moves_per_s": engine["games_per_s"] * engine["moves_per_game"],
            "inprocess_us": base,
            "overhead_us": cpu_us_per_asked(sandboxed) - base,
            "overhead_us_side_by_side": cpu_us_per_asked(side_by_side) - base,
            **({"start_ms": start_s * 1e3} if start_s is not None else {})}


def every_game(registry, games: int, seed: int = 0, inflight: int = 16):
    """``arena bench --game all``: for each installed game, at its default variant and
    smallest table, ``(name, variant, players, summary)`` - its rows measured with
    ``games`` engine games and a quarter as many matches a referee row, ``random`` bots."""
    quarter = max(1, games // 4)
    for name in sorted(registry.games()):
        game = registry.game(name)
        variant = game.default_variant
        players = game.variants[variant][0]
        entry = registry.bot("random", name)
        yield name, variant, players, summary(
            engine_games(game, variant, players, games, seed),
            referee_games(game, variant, players, quarter, seed),
            referee_games(game, variant, players, quarter, seed, entry),
            inflight_games(game, variant, players, quarter, seed, entry, inflight),
            start_up(entry, game, variant, players))


def _asked(game, variant: str, players: int, result: dict) -> int:
    """Moves of a stored match a bot was asked (a single legal action is not asked)."""
    state = game.new_state(variant, players, result["seed"])
    asked = 0
    for action in orjson.loads(result["replay"]):
        asked += len(state.legal_actions()) > 1
        state.apply(action)
    return asked


def round_trip(entry, game, variant: str, players: int, moves: int, seed: int = 0) -> dict:
    """Median time from sending ``act`` to holding the answer, over ``moves`` real positions
    of random games where the mover has a choice (only those are asked), for a sandboxed
    worker of ``entry`` - and, in the same run, for the bare process of :class:`_Bare`."""
    rng = random.Random(seed)
    positions, g = [], 0
    while len(positions) < moves:
        state = game.new_state(variant, players, seed + g)
        g += 1
        while not state.over and len(positions) < moves:
            legal = list(state.legal_actions())
            if len(legal) > 1:
                positions.append((state.observation(state.to_move), legal))
            state.apply(legal[rng.randrange(len(legal))])

    info = {"game": game.name, "variant": variant, "seat": 0, "players": players, "seed": seed}
    times = {}
    for kind, bot in (("sandboxed", make_bot(entry)), ("bare", _Bare())):
        try:
            bot.start(info)
            spent = []
            for observation, legal in positions:
                t = time.perf_counter()
                bot.act(observation, legal)
                spent.append(time.perf_counter() - t)
            times[kind] = statistics.median(spent) * 1e6
        finally:
            bot.close()
    return {"moves": moves, "median_us": times["sandboxed"], "floor_us": times["bare"]}


SECOND_RANDOM = '''"""A second random bot: a benchmark season is random against random."""
import random

import arena


class RandomBot:
    def start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation, legal):
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def register_bots(register):
    register("random-2", RandomBot, games=["vandtia"])
'''


def season(matches: int, workers: int, url: str | None = None, seed: int = 0,
           dask: bool = False, inflight: int | None = None) -> dict:
    """A season of ``matches`` random-vs-random ``cardems`` matches on ``workers`` local
    processes, stored in ``url`` (default: a new SQLite file in a temporary folder).

    ``outside`` is the share of the workers' wall time not spent inside a match
    (1 - summed match durations / (workers x wall)): scheduling, transport, storage and
    rating, with the coordinating process sharing the machine. ``stored_per_s`` is the
    storage layer alone: as many results written again, batch by batch, into a new season
    (the first batch, cycled). ``peak_mb`` is this process's peak resident memory, read
    before that: flat in the number of matches, as fixtures and results are streamed.
    ``dask``: the matches run on a Dask LocalCluster of ``workers`` processes instead.
    ``inflight``: matches side by side per worker (default: the seasons' default)."""
    from . import db
    from .leagues import league
    from .leagues.scheduler import SeasonDef, default_batch
    from .plugins import Registry

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "random2.py").write_text(SECOND_RANDOM)
        registry = Registry(bots_dirs=[tmp])
        engine = db.connect(url or f"sqlite:///{tmp}/bench.db")
        game = registry.game("vandtia")
        tag = f"bench-{time.time_ns()}"
        defn = SeasonDef(tag, "vandtia", "cardems", 2, ("random", "random-2"),
                         math.ceil(matches / 2), seed,
                         **({"inflight": inflight} if inflight else {}))
        defn = replace(defn, batch=default_batch(game, defn))
        row = league.create(engine, registry, defn)
        sample: list[list[dict]] = []  # the first batch, kept for the storage measurement
        totals = {"played": 0, "in_matches": 0.0, "faults": 0}

        def on_batch(results, _rater):
            totals["played"] += len(results)
            totals["in_matches"] += sum(r["duration"] for r in results)
            totals["faults"] += sum(any(r["result"]["faults"]) for r in results)
            if not sample:
                sample.append(results)

        cluster = None
        if dask:
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        try:
            pool = league.make_executor("dask" if dask else "local", workers,
                                        cluster.scheduler_address if cluster else None)
            start = time.perf_counter()
            league.play(engine, registry, row, executor=pool, own_executor=True,
                        on_batch=on_batch)
            wall = time.perf_counter() - start
        finally:
            if cluster is not None:
                cluster.close()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        played, in_matches, faults = totals["played"], totals["in_matches"], totals["faults"]

        copy = league.create(engine, registry, SeasonDef(tag + "-store", *astuple(defn)[1:]))
        start, written, offset = time.perf_counter(), 0, 0
        while written < played:
            for batch in sample:
                again = [{**r, "fixture": r["fixture"] + offset} for r in batch]
                db.store_results(engine, copy.id, again[:played - written])
                written += len(again[:played - written])
            offset += defn.batch * len(sample) * 1000
        store_s = time.perf_counter() - start
        engine.dispose()
    return {"matches": played, "faults": faults, "workers": workers, "wall_s": wall,
            "peak_mb": peak,
            "match_s": in_matches,
            "outside": 1 - in_matches / (workers * wall), "matches_per_s": played / wall,
            "stored_per_s": played / store_s}
