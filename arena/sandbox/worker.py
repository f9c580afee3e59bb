"""The bot side of the trust line: ``python -I -m arena.sandbox.worker CONFIG``.

The runner starts one of these per bot seat (``arena.sandbox.process``); it jails itself
(``arena.sandbox.jail``), confines itself (``arena.sandbox.confine``) and only then imports
any bot code.
``CONFIG`` is one JSON object:

* ``mode: "serve"`` - load one bot (``bot.kind`` ``module`` or ``file``, ``bot.target``) with a
  pluggy plugin manager and answer the JSON-lines protocol of ``docs/protocol.md`` on
  stdin/stdout, match after match, until stdin closes;
* ``mode: "exec"`` - confine, then become ``bot.target`` (a command of any language);
* ``mode: "list"`` - load each source in ``sources`` and print one JSON line per source with
  the bots it registers (name, games, code hash) or its error;
* ``mode: "probe"`` - jail and confine itself, then print what holds: the kernel's word on
  its user, capabilities and namespaces, and what came of trying what a bot may not do.

What the bot prints is its log: descriptors 1 and 2 are the runner's pipe, which reads it
after every answer. The runner keeps it match by match: what comes before an answer is that
answer's match's, but for what the answer says came before the message it answers
(``log_other``: what the bot printed in an earlier match's ``end``); in an answer for
several matches each request's part is counted (``log_bytes``), Python's ``sys.stdout`` and
``sys.stderr`` being a :class:`Capture` that writes a line at a time and counts. The
protocol has the real stdout to itself.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import inspect
import io
import os
import sys
import traceback

import orjson
import pluggy

from .. import hookspecs
from ..errors import crash_reason
from ..games import sha256
from . import GC_THRESHOLD, confine, deltas, jail

PROTOCOL = 2  # the newest this worker speaks; it answers 1 to a protocol-1 offer


class Written:
    """How many bytes the bot has written through :class:`Capture` (a count the answers
    carry, so that the runner can tell each match's part of the pipe)."""

    def __init__(self):
        self.total = 0  # written so far
        self.answered = 0  # written when the last answer went


class Capture(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` of a bot: its text written to the descriptor (the
    runner's pipe) a line at a time, and counted in :data:`WRITTEN`."""

    encoding, errors = "utf-8", "backslashreplace"

    def __init__(self, fd: int):
        super().__init__()
        self.fd, self.pending = fd, bytearray()
        self.buffer = _Bytes(self)

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        data = text.encode("utf-8", "backslashreplace")
        self.pending += data
        if b"\n" in data or len(self.pending) > 1 << 13:
            self.flush()
        return len(text)

    def flush(self) -> None:
        view = memoryview(self.pending)
        while view:
            view = view[os.write(self.fd, view):]
        WRITTEN.total += len(self.pending)
        view.release()
        self.pending.clear()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.fd


class _Bytes(io.RawIOBase):
    """``sys.stdout.buffer``: bytes, written as they are."""

    def __init__(self, text: Capture):
        super().__init__()
        self.text = text

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.text.pending += bytes(data)
        self.text.flush()
        return len(data)


WRITTEN = Written()


def _flushed() -> int:
    """Every bot's line written out: the count so far."""
    sys.stdout.flush()
    sys.stderr.flush()
    return WRITTEN.total


def _answered(answer: dict, began: int) -> dict:
    """``answer``, with how much of what was written since the last answer came before
    ``began`` (``log_other``: the end of an earlier match, say; not this answer's)."""
    if began > WRITTEN.answered:
        answer["log_other"] = began - WRITTEN.answered
    WRITTEN.answered = _flushed()
    return answer


def _pm() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("arena")
    pm.add_hookspecs(hookspecs)
    return pm


def load_source(kind: str, target: str, path: str | None = None):
    """The plugin object of one bot source: an importable module or a ``.py`` file;
    ``path``, a folder its imports are found in first (a submitted bot's own folder)."""
    if path and path not in sys.path:
        sys.path.insert(0, path)
    if kind == "module":
        module, _, attr = target.partition(":")
        plugin = importlib.import_module(module)
        for part in filter(None, attr.split(".")):
            plugin = getattr(plugin, part)
        return plugin
    digest = sha256(target.encode()).hexdigest()[:12]
    name = f"arena_botfile_{''.join(c if c.isalnum() else '_' for c in target[-40:])}_{digest}"
    spec = importlib.util.spec_from_file_location(name, target)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would: its classes can name their source file
    spec.loader.exec_module(module)
    return module


def registrations(plugin) -> list[tuple[str, tuple, object]]:
    """``(name, games, factory)`` for each ``register(...)`` call of the plugin's hook."""
    pm = _pm()
    pm.register(plugin)
    found = []

    def register(name, factory, games=(), options=None):
        found.append((name, games, factory, options))

    for impl in pm.hook.register_bots.get_hookimpls():
        impl.function(register=register)
    return found


def code_hash(factory) -> str:
    try:
        data = open(inspect.getsourcefile(factory), "rb").read()
    except (TypeError, OSError):
        data = repr(factory).encode()
    return sha256(data).hexdigest()


def _error(e: BaseException) -> str:
    return "memory exceeded" if isinstance(e, MemoryError) else crash_reason(e)


def _list(config: dict, out) -> None:
    for source in config["sources"]:
        try:
            plugin = load_source(source["kind"], source["target"], source.get("path"))
            bots = [{"name": name, "games": games if isinstance(games, str) else list(games),
                     "callable": callable(factory), "code_hash": code_hash(factory),
                     "options": dict(options) if options is not None else None}
                    for name, games, factory, options in registrations(plugin)]
            line = {"source": source["target"], "bots": bots}
        except BaseException as e:  # noqa: BLE001 - any failure is this source's error
            line = {"source": source["target"], "error": f"{type(e).__name__}: {e}"}
        out.write(orjson.dumps(line, default=str) + b"\n")
        out.flush()


def _serve(config: dict, inp, out) -> None:
    bot = config["bot"]
    try:
        plugin = load_source(bot["kind"], bot["target"], bot.get("path"))
        factory, options = next((f, o or {}) for name, games, f, o in registrations(plugin)
                                if name == bot["name"] and bot["game"] in games)
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        _flushed()
        out.write(orjson.dumps({"type": "error", "error": "load failed: " + _error(e)}) + b"\n")
        out.flush()
        return
    # what is loaded so far is kept for good (the collector no longer walks it), and the
    # collector runs less often (``GC_THRESHOLD``)
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    player = act = None
    players: dict = {}  # protocol 2: a bot object per match in flight, by match key
    #: the last whole observation of each match that gets deltas (key None: protocol 1)
    seen: dict = {}
    batch = getattr(factory, "act_batch", None)
    dumps, loads, newline, write = orjson.dumps, orjson.loads, orjson.OPT_APPEND_NEWLINE, out.write
    written = WRITTEN
    for line in inp:
        msg = loads(line)
        kind = msg.get("type")
        began = written.total
        try:
            if kind == "act":  # the hot path
                if "requests" in msg:
                    data = dumps(_answered({"type": "actions", "actions": _acts(
                        players, batch, msg["requests"], seen)}, began), option=newline)
                else:
                    answer = {"type": "action", "action": act(_observation(seen, None, msg),
                                                              msg["legal"])}
                    data = dumps(answer if written.total == written.answered
                                 and sys.stdout.pending == sys.stderr.pending == b""
                                 else _answered(answer, began), option=newline)
                # what the request held goes before the answer does: the next request's
                # objects take its memory while the cache still holds it
                msg = line = None
                written.answered = written.total
                write(data)
                continue
            if kind == "start":
                player = factory()
                act = player.act
                if hasattr(player, "start"):
                    info = {k: msg[k] for k in ("game", "variant", "seat", "players", "seed",
                                                "limits")}
                    player.start({**info, "options": {**options, **msg.get("options", {})}})
                reply = {"type": "ready"}
                key = None
                if msg.get("protocol", 1) >= PROTOCOL and "match" in msg:
                    key = msg["match"]
                    players[key] = player
                    reply.update(protocol=PROTOCOL, match=key)
                seen.pop(key, None)
                if msg.get("deltas") is True:
                    reply["deltas"] = True
                    seen[key] = None  # its observations are kept, to rebuild the next
            elif kind == "values":  # arena review: the bot values every legal action
                judge = getattr(player, "values", None)
                if judge is None:
                    raise TypeError("this bot has no values(observation, legal) method: it "
                                    "cannot review")
                reply = {"type": "values", "values": judge(msg["observation"], msg["legal"])}
            elif kind == "end":
                seen.pop(msg.get("match"), None)
                ended = players.pop(msg["match"], None) if "match" in msg else player
                if msg.get("result") is not None and hasattr(ended, "end"):
                    ended.end(msg["result"])  # what it prints: the next answer's log_other
                continue
            else:
                reply = {"type": "error", "error": f"unknown message {kind!r}"}
            data = orjson.dumps(_answered(reply, began))
        except BaseException as e:  # noqa: BLE001 - the bot's failure, told to the runner
            traceback.print_exc()  # into the bot's log, which its author is shown
            data = orjson.dumps(_answered({"type": "error", "error": _error(e)}
                                          | ({"match": msg["match"]} if msg and "match" in msg
                                             else {}), began))
        write(data + b"\n")  # unbuffered: no flush needed


def _observation(seen: dict, key, msg: dict) -> dict:
    """The whole observation of an ``act`` (or a request) for match ``key``: as sent, or
    rebuilt from the last one and the delta sent instead (``arena.sandbox.deltas.rebuild``).
    In a match with deltas the bot gets a fresh copy of its top level (the whole is kept);
    in one without, the observation as sent."""
    if key not in seen:
        return msg["observation"]
    return deltas.rebuild(seen, key, msg)


def _acts(players: dict, batch, requests: list, seen: dict) -> list[dict]:
    """Protocol 2: the answers to one ``act`` of several requests, each for its match. With
    ``act_batch`` (a static or class method of the bot's class) every request is decided in
    one call (a failure there fails them all); else each match's own object decides its
    own, and a failure is that match's alone (a request that cannot be rebuilt fails the
    whole ``act``: the runner's fault, not one match's)."""
    if batch is not None:  # what it prints goes with the whole answer: every match's
        observations = [_observation(seen, r["match"], r) for r in requests]
        actions = batch([(o, r["legal"]) for o, r in zip(observations, requests,
                                                           strict=True)])
        if len(actions) != len(requests):
            raise ValueError(f"act_batch answered {len(actions)} actions to "
                             f"{len(requests)} requests")
        return [{"match": r["match"], "action": a} for r, a in zip(requests, actions,
                                                                    strict=True)]
    out = []
    for r in requests:
        key = r["match"]
        observation = _observation(seen, key, r)
        before = _flushed()
        try:
            item = {"match": key, "action": players[key].act(observation, r["legal"])}
        except BaseException as e:  # noqa: BLE001 - this match's bot failed
            traceback.print_exc()
            item = {"match": key, "error": _error(e)}
        written = _flushed() - before
        if written:  # what it wrote for this match, in order: its part of the pipe
            item["log_bytes"] = written
        out.append(item)
    return out


def _load_seccomp(libraries: dict) -> None:
    """Load libseccomp before the jail, where the runner found it (``libraries``: the
    runner's ``find_library`` answers), not asking ``ldconfig`` again; without them, as
    ``pyseccomp`` finds it."""
    import ctypes.util

    find = ctypes.util.find_library
    ctypes.util.find_library = lambda name: libraries.get(name) or find(name)
    try:
        import pyseccomp  # noqa: F401
    except Exception:  # noqa: BLE001 - no libseccomp here: arena doctor says so
        pass
    finally:
        ctypes.util.find_library = find


def main(argv: list[str]) -> None:
    try:
        config = orjson.loads(argv[1])
        config["mode"]
    except (IndexError, orjson.JSONDecodeError, TypeError, KeyError):
        sys.stderr.write("usage: python -I -m arena.sandbox.worker CONFIG: CONFIG is the JSON "
                         "object the runner gives it (docs/protocol.md)\n")
        raise SystemExit(2) from None
    prepare(config.get("libraries") or {})
    run(config)


def prepare(libraries: dict) -> None:
    """What a worker loads before its jail, whatever its bot: libseccomp (``libraries``:
    where the runner found the libraries) and what the probe uses - so that a template
    process (``arena.sandbox.zygote``) can load it once for every bot it forks."""
    _load_seccomp(libraries)
    import platform  # noqa: F401
    import socket  # noqa: F401


def run(config: dict) -> int:
    """The worker, its modules loaded (``prepare``): jail and confine this process, then
    serve, list, probe or exec as ``config["mode"]`` says. Its exit status (0)."""
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # what is written to descriptor 1 lands in its log (the runner's pipe)
    sys.stdout, sys.stderr = Capture(1), Capture(2)
    mode = config["mode"]
    jailed = jail.enter(config)
    facts = jail.report(jailed) if mode == "probe" else None
    write = ["/tmp"] if jailed["root"] else [os.getcwd()]
    read = config["read"] if jailed["root"] else confine.without(config["read"],
                                                                  config.get("hidden", []))
    # its own /proc shows its init and itself only: its own memory use, say, may be read
    read = [*read, *confine.DEVICES] + (["/proc"] if jailed.get("proc") == "subset=pid"
                                         else [])
    layers = confine.confine(config["limits"], read, write, allow_exec=mode == "exec")
    if mode == "exec":
        os.dup2(protocol_out.fileno(), 1)
        target = config["bot"]["target"]
        os.execv(target[0], target)
    elif mode == "probe":
        layers.update(jail=jailed, facts=facts, refused=confine.attempts(config["canary"]))
        protocol_out.write(orjson.dumps(layers) + b"\n")
    elif mode == "list":
        _list(config, protocol_out)
    else:
        _serve(config, sys.stdin.buffer, protocol_out)
    return 0


if __name__ == "__main__":
    main(sys.argv)
