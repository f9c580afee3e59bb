"""The bot template (arena.sandbox.zygote): bots forked from one process that has made the
interpreter's start once, each jailed after the fork exactly as before (the whole hostile
gallery runs on forked bots); here, what is new - the template and the bots beside it are
out of a bot's reach, and nothing of one bot, nor any secret, reaches another through it."""

import os
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import bot_file
from test_hostile import ROOT, TIGHT, contained, unconfined

from arena.cards import keyed_seed
from arena.games.vandtia import GAME
from arena.plugins import Registry
from arena.referee import play_match
from arena.sandbox import zygote
from arena.sandbox.bot import make_bot

INFO = {"game": "vandtia", "variant": "cardems", "seat": 0, "players": 2, "seed": 1}


def _started(entry):
    bot = make_bot(entry, TIGHT)
    bot.start(INFO)
    return bot


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _inner(keeper: int) -> list[int]:
    """The keeper's processes below it: the jail's init, then the bot."""
    found, here = [], keeper
    while True:
        try:
            with open(f"/proc/{here}/task/{here}/children") as f:
                children = [int(p) for p in f.read().split()]
        except OSError:
            return found
        if not children:
            return found
        here = children[0]
        found.append(here)


def _memory(pid: int) -> bytes:
    """Every readable mapping of process ``pid`` (as /proc lets this runner read it)."""
    out = bytearray()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem:
        for line in maps:
            fields = line.split()
            if "r" not in fields[1] or line.rstrip().endswith(("[vvar]", "[vsyscall]")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                out += mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
    return bytes(out)


def test_a_bot_is_forked_from_the_template_and_is_the_runners_own_child():
    """The keeper of a bot is this runner's child (re-parented: ``PR_SET_CHILD_SUBREAPER``),
    a fork of the template (its command line the template's), and the template serves
    every bot this runner starts; ``ARENA_ZYGOTE=0`` starts them with the interpreter."""
    a, b = (_started(Registry().bot(n, "vandtia")) for n in ("random", "greedy"))
    try:
        template = zygote._templates[os.getpid()]
        assert template is not None and template.alive
        for bot in (a, b):
            keeper = bot.worker.proc.pid
            assert _parent(keeper) == os.getpid()
            with open(f"/proc/{keeper}/cmdline", "rb") as f:
                assert b"arena.sandbox.zygote" in f.read()
            assert isinstance(bot.worker.proc, zygote.Child)
    finally:
        a.close()
        b.close()
    assert a.worker is None or not a.worker.alive
    plain = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            from arena.plugins import Registry
            from arena.sandbox.bot import make_bot
            bot = make_bot(Registry().bot("random", "vandtia"))
            bot.start({"game": "vandtia", "variant": "cardems", "seat": 0, "players": 2,
                       "seed": 1})
            print(type(bot.worker.proc).__name__,
                  open(f"/proc/{bot.worker.proc.pid}/cmdline", "rb").read().split(b"\\0")[3])
            bot.close()
        """)], env={**os.environ, "ARENA_ZYGOTE": "0"}, capture_output=True, text=True,
        check=True)
    assert plain.stdout.split() == ["Popen", "b'arena.sandbox.worker'"]


@pytest.mark.parametrize("attack", ["signal-process", "trace-process", "read-memory"])
def test_a_bot_cannot_signal_trace_or_read_the_template_or_another_bot(attack):
    """From inside its jail a bot cannot reach the template's pid, nor another bot's keeper,
    its jail's init or the bot process itself - its pid namespace holds its init and itself,
    and its filter lets it signal only itself. Both live on.
    Control (root): the same attack from a plain process reaches a process of ours."""
    other = _started(Registry().bot("random", "vandtia"))
    try:
        template = zygote._templates[os.getpid()]
        targets = [template.proc.pid, other.worker.proc.pid, *_inner(other.worker.proc.pid)]
        assert len(targets) == 4  # the template, the keeper, the jail's init and the bot
        for pid in targets:  # refused (seccomp, or no such pid in its namespace)
            contained(attack, pid=pid)
        assert template.alive and other.worker.alive
        assert other.act(GAME.new_state("cardems", 2, 1).observation(
            GAME.new_state("cardems", 2, 1).to_move), ["x", "y"]) in ("x", "y")
    finally:
        other.close()
    if ROOT:
        victim = subprocess.Popen(["sleep", "60"])
        try:
            evidence = unconfined(attack, pid=victim.pid)
            assert evidence.startswith(("killed", "traced")) or re.fullmatch(r"[0-9a-f]+",
                                                                             evidence)
        finally:
            victim.kill()
            victim.wait()


def test_the_template_holds_no_secret_seed_or_other_bots_request(tmp_path):
    """A match played with a secret: nothing of it - the secret, the deal seed, a bot's
    seed - is in the template's memory (read from here), which does hold the worker's
    modules (the read works). A bot forked after another holds nothing of the other's
    request (its file's name), which is in the other's own memory (root: a bot's memory
    is readable by root alone)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "alpha_7f3c9e.py").write_text(bot_file("alpha7f3c"))
    registry = Registry(bots_dirs=[folder])
    secret = "zygote-secret-0e7d51b2a94c4f6a8d3e"
    deal_seed = 987654321012345678
    bots = [make_bot(registry.bot("alpha7f3c", "vandtia"), TIGHT),
            make_bot(registry.bot("random", "vandtia"), TIGHT)]
    try:
        match, _ = play_match(GAME, "cardems", bots, deal_seed, secret=secret)
        assert match.result.faults == [None, None]
        alpha = bots[0].worker.proc.pid
        later = _started(registry.bot("random", "vandtia"))
        try:
            template = zygote._templates[os.getpid()].proc.pid
            memory = _memory(template)
            assert b"arena.sandbox.worker" in memory
            needles = [secret, str(deal_seed),
                       *(str(keyed_seed(secret, "bot", deal_seed, s)) for s in range(2))]
            for needle in needles:
                assert needle.encode() not in memory, needle
            assert b"alpha_7f3c9e" not in memory
            if ROOT:
                assert b"alpha_7f3c9e" in _memory(_inner(alpha)[-1])  # its own request
                assert b"alpha_7f3c9e" not in _memory(_inner(later.worker.proc.pid)[-1])
        finally:
            later.close()
    finally:
        for b in bots:
            b.close()


def _season(tmp_path, name: str, zygote_on: bool, workers: int, inflight: int) -> list:
    """A season's matches as ``season export`` gives them (seats, actions, results)."""
    url = f"sqlite:///{tmp_path / name}.db"
    env = {**os.environ, "ARENA_ZYGOTE": "1" if zygote_on else "0"}
    for args in (("season", "run", "vandtia", "--bots", "random,greedy,first", "--rounds",
                  "4", "--seed", "9", "--public-seed", "--name", "same", "--workers",
                  str(workers), "--inflight", str(inflight)),
                 ("season", "export", "same", "-o", str(tmp_path / f"{name}.jsonl"))):
        subprocess.run([sys.executable, "-m", "arena", "--db", url, *args], env=env,
                       check=True, capture_output=True, text=True, timeout=600)
    lines = (tmp_path / f"{name}.jsonl").read_text().splitlines()
    import json

    return [{k: v for k, v in json.loads(line).items() if k not in ("versions",)}
            for line in lines[1:]]


def test_a_season_is_the_same_with_and_without_the_template(tmp_path):
    """The same season - its deals, seats, every action and result - whether its bots are
    forked from the template or started with the interpreter, one match at a time on one
    worker or sixteen side by side on two (which keep their processes from batch to
    batch)."""
    plain = _season(tmp_path, "plain", False, 1, 1)
    forked = _season(tmp_path, "forked", True, 2, 16)
    assert len(plain) == 24 and plain == forked


def test_a_template_that_dies_costs_speed_not_a_match():
    """The template killed between two bots: the next bot starts with the interpreter, as
    with ARENA_ZYGOTE=0, and plays; the template is not started again by this runner."""
    import signal

    first = _started(Registry().bot("random", "vandtia"))
    template = zygote._templates[os.getpid()]
    try:
        os.kill(template.proc.pid, signal.SIGKILL)
        template.proc.wait()
        second = _started(Registry().bot("greedy", "vandtia"))
        try:
            assert isinstance(second.worker.proc, subprocess.Popen)
            state = GAME.new_state("cardems", 2, 3)
            legal = state.legal_actions()
            assert second.act(state.observation(state.to_move), legal) in legal
            assert first.act(state.observation(state.to_move), legal) in legal  # lives on
        finally:
            second.close()
        assert zygote._templates[os.getpid()] is None
    finally:
        first.close()
        zygote._templates.pop(os.getpid(), None)  # a later test here starts a new one


def test_a_worker_keeps_its_bot_processes_from_batch_to_batch_of_one_season():
    """Two batches of one season in one worker: the second starts no process (the same
    keepers serve it); another season's batch closes them; a batch past half the CPU
    limit's worth of play closes them after it."""
    from arena.leagues import scheduler
    from arena.leagues.scheduler import SeasonDef, fixtures, play_batch

    defn = SeasonDef("kept", "vandtia", "cardems", 2, ("random", "greedy"), 4, 1)
    every = list(fixtures(defn))

    def keepers():
        kept = scheduler._KEEP.kept
        return sorted(b.worker.proc.pid for pool in kept.pools.values() for b, _ in pool
                      if b.worker is not None)

    play_batch("vandtia", "cardems", (), "", every[:4], defn.secret)
    before = keepers()
    assert len(before) == 4  # each bot: a process per seat of a deal
    play_batch("vandtia", "cardems", (), "", every[4:], defn.secret)
    assert keepers() == before
    old = [b.worker.proc for pool in scheduler._KEEP.kept.pools.values() for b, _ in pool]
    other = SeasonDef("other", "vandtia", "cardems", 2, ("random", "greedy"), 1, 1)
    play_batch("vandtia", "cardems", (), "cpu_s=1", list(fixtures(other)), other.secret)
    assert all(p.poll() is not None for p in old)  # the last season's: closed
    scheduler._KEEP.kept.served = 0.6  # as if it had played 0.6 s: past half of cpu_s=1
    play_batch("vandtia", "cardems", (), "cpu_s=1", list(fixtures(other)), other.secret)
    assert keepers() == []  # closed after that batch
