"""The Bot interface the referee talks to, and its two adapters: a sandboxed worker process
for any registered bot (``make_bot``), and in-process Python objects for trusted code
(tests, benchmarks, embedding).

A bot answers three messages: ``start(info)`` (optional), ``act(observation, legal)`` and
``end(result)`` (optional). ``info`` holds ``game``, ``variant``, ``seat``, ``players`` and
``seed`` (the bot's own seed, derived from the match seed and its seat).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import ArenaError


class Bot(Protocol):
    def start(self, info: dict) -> None: ...

    def act(self, observation: dict, legal: list) -> Any: ...

    def end(self, result: dict) -> None: ...


class PythonBot:
    """Wraps a user's object so that ``start`` and ``end`` may be left out."""

    def __init__(self, obj: Any, name: str = ""):
        self.obj = obj
        self.name = name or type(obj).__name__
        self.act = obj.act
        self._start = getattr(obj, "start", None)
        self._end = getattr(obj, "end", None)

    def start(self, info: dict) -> None:
        if self._start is not None:
            self._start(info)

    def end(self, result: dict) -> None:
        if self._end is not None:
            self._end(result)


def local_bot(entry) -> PythonBot:
    """A registry entry's bot (``arena.plugins.BotEntry``) in this very process, started
    with its options as the sandbox's worker starts it: for training and local tools only
    (``arena.envs``) - a league or match runs every bot in the sandbox."""
    from .worker import load_source, registrations

    spec = entry.spec
    if spec.get("kind") not in ("module", "file"):
        raise ArenaError(f"bot {entry.name!r} is a program, not Python: it plays only in "
                         "the sandbox")
    plugin = load_source(spec["kind"], spec["target"], spec.get("path"))
    factory, declared = next((f, o or {}) for name, games, f, o in registrations(plugin)
                             if name == spec["name"] and entry.game in games)
    bot = PythonBot(factory(), entry.name)
    options = {**declared, **spec.get("options", {})}
    start = bot.start
    bot.start = lambda info: start({**info, "options": options})
    return bot


def make_bot(entry, limits=None):
    """A bot seat for a registry entry (``arena.plugins.BotEntry``): a sandboxed worker
    process, started on the first ``start`` and reused by later matches; ``close()`` it."""
    from .process import SandboxBot

    return SandboxBot(entry.name, entry.spec, limits)
