"""The Bot interface the referee talks to, and its two adapters: a sandboxed worker process
for any registered bot (``make_bot``), and in-process Python objects for trusted code
(tests, benchmarks, embedding).

A bot answers three messages: ``start(info)`` (optional), ``act(observation, legal)`` and
``end(result)`` (optional). ``info`` holds ``game``, ``variant``, ``seat``, ``players`` and
``seed`` (the bot's own seed, derived from the match seed and its seat).
"""

from __future__ import annotations

from typing import Any, Protocol


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


def make_bot(entry, limits=None):
    """A bot seat for a registry entry (``arena.plugins.BotEntry``): a sandboxed worker
    process, started on the first ``start`` and reused by later matches; ``close()`` it."""
    from .process import SandboxBot

    return SandboxBot(entry.name, entry.spec, limits)
